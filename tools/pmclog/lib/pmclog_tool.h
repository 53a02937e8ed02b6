/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog tool: the records of a log, decoded once, handed to a
 * consumer through one callback per record type, in the manner of perf's
 * struct perf_tool.  Every consumer in libpmclog is one: the dump format,
 * the recorder's counts (pmclog_stats), the log writer and the replay.
 *
 * A consumer embeds a struct pmclog_tool, sets the callbacks for the
 * types it wants (NULL: not interested) and finds itself from the tool
 * pointer with container_of().  The records it gets are those that
 * pmclog_reader__next() returned: validated, with path and name checked.
 */
#ifndef PMCLOG_TOOL_H
#define PMCLOG_TOOL_H

#include "pmclog_common.h"
#include "pmclog_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_tool;

/* Return 0 to go on; anything else stops the delivery and is returned. */
typedef int (*pmclog_tool_fn)(struct pmclog_tool *tool,
			      const struct pmclog_record *rec);

struct pmclog_tool {
	pmclog_tool_fn record;		/* every record, before its type's */
	pmclog_tool_fn initialize;
	pmclog_tool_fn closelog;
	pmclog_tool_fn pmcallocate;
	pmclog_tool_fn pcsample;
	pmclog_tool_fn map_in;
	pmclog_tool_fn map_out;
	pmclog_tool_fn procexec;
	pmclog_tool_fn procfork;
	pmclog_tool_fn procexit;
	pmclog_tool_fn dropnotify;
	pmclog_tool_fn ksymbol;
	pmclog_tool_fn throttle;
	pmclog_tool_fn unthrottle;
	pmclog_tool_fn unknown;		/* a type above PMCLOG_TYPE_MAX_KNOWN */
	pmclog_tool_fn buildid;		/* ABI 1.4, appended */
	pmclog_tool_fn callchain;	/* ABI 1.5, appended */
};

/*
 * Hand rec to tool: its record callback, then the one of its type.
 * Return: 0, or the first non-zero callback return.
 */
PMCLOG_API int pmclog_tool__deliver(struct pmclog_tool *tool,
				    const struct pmclog_record *rec);

/*
 * Deliver every record r has left to tool.
 * Return: 0 at the end of the log (pmclog_reader__end() says which);
 * pmclog_reader__next()'s negative errno (-EAGAIN: a memory reader wants
 * more bytes; call again after feeding them); or a callback's non-zero
 * return, which stops the walk after that record.
 */
PMCLOG_API int pmclog_tool__process(struct pmclog_tool *tool, struct pmclog_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_TOOL_H */
