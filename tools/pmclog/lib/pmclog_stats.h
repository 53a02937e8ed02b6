/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog stats: running totals over a log's records, as `pmclog
 * record` shows them while it saves the log and in its summary.
 *
 * A pmclog_tool: pmclog_stats__init() sets its callbacks, and every
 * record delivered to &st->tool (pmclog_tool__deliver(), or through a
 * pmclog_writer) is counted.
 */
#ifndef PMCLOG_STATS_H
#define PMCLOG_STATS_H

#include <stdbool.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"
#include "pmclog_tool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_stats {
	struct pmclog_tool tool;
	__u64 bytes;		/* in the records counted (a packed sample: 32) */
	__u64 records;
	__u64 samples;		/* PCSAMPLE records */
	__u64 samples_dropped;	/* sum of DROPNOTIFY.samples */
	__u64 records_dropped;	/* sum of DROPNOTIFY.records */
	__u64 throttles;	/* THROTTLE counts for the rate or CPU time */
	__u64 procs_unfollowed;	/* PROCFORK with PMCLOG_HF_UNFOLLOWED */
	__u64 cpus_skipped;	/* THROTTLE counts for a busy or absent counter */
	bool closelog;		/* a CLOSELOG was seen: its totals below */
	struct pmclog_closelog close;
};

/* Zero the totals and set the tool's callbacks. */
PMCLOG_API void pmclog_stats__init(struct pmclog_stats *st);

/*
 * The drops of the log: CLOSELOG's totals once it was seen (they count
 * what no DROPNOTIFY could tell any more), else the DROPNOTIFY sums.
 */
PMCLOG_API __u64 pmclog_stats__samples_dropped(const struct pmclog_stats *st);
PMCLOG_API __u64 pmclog_stats__records_dropped(const struct pmclog_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_STATS_H */
