/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog stats: running totals over raw log bytes, as `pmclog record`
 * saves them, without decoding more than the record headers.
 */
#ifndef PMCLOG_STATS_H
#define PMCLOG_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/pmclog.h>

struct pmclog_stats {
	__u64 bytes;		/* whole records walked */
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

/*
 * Account the whole records at the start of buf (len bytes, as read(2)
 * from /dev/pmclog returns them).
 *
 * Return: the bytes walked; less than len when a header is malformed or a
 * record is incomplete, in which case the rest was not accounted.
 */
size_t pmclog_stats__account(struct pmclog_stats *st, const void *buf,
			     size_t len);

#endif /* PMCLOG_STATS_H */
