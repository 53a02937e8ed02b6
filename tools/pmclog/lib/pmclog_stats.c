// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog stats: the recorder's totals, one callback per record type
 * that counts something.  See pmclog_stats.h.
 */

#include "pmclog_internal.h"
#include "pmclog_stats.h"

static struct pmclog_stats *stats_of(struct pmclog_tool *tool)
{
	return container_of(tool, struct pmclog_stats, tool);
}

static int on_record(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_stats *st = stats_of(tool);

	st->records++;
	st->bytes += rec->length;
	return 0;
}

static int on_pcsample(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	(void)rec;
	stats_of(tool)->samples++;
	return 0;
}

static int on_procfork(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	if (rec->flags & PMCLOG_HF_UNFOLLOWED)
		stats_of(tool)->procs_unfollowed++;
	return 0;
}

static int on_dropnotify(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_stats *st = stats_of(tool);

	st->samples_dropped += rec->rec.dropnotify->samples;
	st->records_dropped += rec->rec.dropnotify->records;
	return 0;
}

static int on_throttle(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_stats *st = stats_of(tool);
	const struct pmclog_throttle *th = rec->rec.throttle;

	if (th->reason == PMCLOG_THROTTLE_BUSY || th->reason == PMCLOG_THROTTLE_ABSENT)
		st->cpus_skipped += th->count;
	else
		st->throttles += th->count;
	return 0;
}

static int on_closelog(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_stats *st = stats_of(tool);

	st->close = *rec->rec.closelog;
	st->closelog = true;
	return 0;
}

void pmclog_stats__init(struct pmclog_stats *st)
{
	*st = (struct pmclog_stats){
		.tool = {
			.record		= on_record,
			.pcsample	= on_pcsample,
			.procfork	= on_procfork,
			.dropnotify	= on_dropnotify,
			.throttle	= on_throttle,
			.closelog	= on_closelog,
		},
	};
}

__u64 pmclog_stats__samples_dropped(const struct pmclog_stats *st)
{
	return st->closelog ? st->close.samples_dropped : st->samples_dropped;
}

__u64 pmclog_stats__records_dropped(const struct pmclog_stats *st)
{
	return st->closelog ? st->close.records_dropped : st->records_dropped;
}
