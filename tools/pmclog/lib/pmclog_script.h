/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog script: a log's samples, one after the other in time order,
 * with their stacks, in the text format of `perf script`, which
 * speedscope, the Firefox Profiler and FlameGraph's stackcollapse-perf.pl
 * read; the maps and the processes' life as events between them, as
 * `perf script --show-mmap-events --show-task-events` prints them.
 *
 *   pmclog_script__new(report, opts)
 *   pmclog_replay__set_record_fn(replay, pmclog_script__record, sc)
 *   pmclog_replay__run(replay, pmclog_script__sample, sc)
 *   pmclog_script__print(sc, f)
 *
 * A sample (perf's field formats, each field when asked for):
 *
 *   COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT:
 *   \tADDR SYMBOL+0xOFF (OBJECT)         one line per frame, leaf first
 *   (a blank line)
 *
 * COMM is the process's executable's name then ("%16s" without a
 * stack), PID/TID "%5d/%-5d", the time the log's clock in seconds,
 * PERIOD the event's (cpu-clock: its period in ns, or 1e9 / Hz; a
 * counter's overflow period; 1 when only a rate is known), EVENT its
 * name as recorded, padded to the longest.  ADDR is perf's: the address
 * in the object's file (its virtual address when the file was read) for
 * user code, the address itself for the kernel; a return address as is,
 * SYMBOL+0xOFF the function it is in.  OBJECT is the file's path,
 * "[kernel.kallsyms]" for the kernel, "[MODULE]" for a module,
 * "[unknown]" for none; SYMBOL "[unknown]" for none.  A sample without a
 * stack is one line: "... EVENT: ADDR SYMBOL+0xOFF (OBJECT)", ADDR its PC.
 *
 * Events:
 *   MAP_IN     COMM PID TIME: PERF_RECORD_MMAP2 PID/PID: [0xSTART(0xLEN) @ 0xOFF 00:00 0 0]: r-xp PATH
 *              (pid -1, COMM ":-1", for the kernel and a module loaded)
 *   MAP_OUT    COMM PID TIME: PMCLOG_RECORD_MAP_OUT PID/PID: [0xSTART(0xLEN)]
 *              (perf has none: an unmap, a module unloaded)
 *   PROCEXEC   COMM PID TIME: PERF_RECORD_COMM exec: COMM:PID/PID
 *   PROCFORK   COMM PID TIME: PERF_RECORD_FORK(PID:PID):(PPID:PPID)
 *   PROCEXIT   COMM PID TIME: PERF_RECORD_EXIT(PID:PID):(PPID:PPID)
 *              (PPID that of its PROCFORK; 0 when the log has none)
 *
 * It keeps the report's --pid and --time filters (events too) and names
 * the frames through the report's resolver (demangled as it says).
 */
#ifndef PMCLOG_SCRIPT_H
#define PMCLOG_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "pmclog_common.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fields of a line (perf script -F): PMCLOG_SCRIPT_F_ALL by default. */
enum pmclog_script_field {
	PMCLOG_SCRIPT_F_COMM	= 1U << 0,
	PMCLOG_SCRIPT_F_PID	= 1U << 1,
	PMCLOG_SCRIPT_F_TID	= 1U << 2,
	PMCLOG_SCRIPT_F_CPU	= 1U << 3,
	PMCLOG_SCRIPT_F_TIME	= 1U << 4,
	PMCLOG_SCRIPT_F_PERIOD	= 1U << 5,
	PMCLOG_SCRIPT_F_EVENT	= 1U << 6,
	PMCLOG_SCRIPT_F_IP	= 1U << 7,
	PMCLOG_SCRIPT_F_SYM	= 1U << 8,
	PMCLOG_SCRIPT_F_SYMOFF	= 1U << 9,
	PMCLOG_SCRIPT_F_DSO	= 1U << 10,
	PMCLOG_SCRIPT_F_ALL	= (1U << 11) - 1,
};

struct pmclog_script_opts {
	size_t sz;		/* sizeof(struct pmclog_script_opts) */
	__u32 fields;		/* PMCLOG_SCRIPT_F_*; 0: all */
	bool mmap_events;	/* MAP_IN, MAP_OUT */
	bool task_events;	/* PROCEXEC, PROCFORK, PROCEXIT */
};

/*
 * The field named name ("comm", "pid", "tid", "cpu", "time", "period",
 * "event", "ip", "sym", "symoff", "dso", as perf script -F names them),
 * or 0.
 */
PMCLOG_API __u32 pmclog_script__field(const char *name);

struct pmclog_script;

PMCLOG_API struct pmclog_script *pmclog_script__new(struct pmclog_report *rep,
						    const struct pmclog_script_opts *opts);
PMCLOG_API void pmclog_script__free(struct pmclog_script *sc);

/* A pmclog_replay_sample_fn and a pmclog_replay_record_fn: ctx is the script. */
PMCLOG_API int pmclog_script__sample(void *ctx, const struct pmclog_sample_loc *s);
PMCLOG_API int pmclog_script__record(void *ctx, const struct pmclog_record *rec);

/*
 * After pmclog_replay__run() (the log's symbols are then complete): the
 * samples and events into f.  0, or a negative errno (errno too).
 */
PMCLOG_API int pmclog_script__print(struct pmclog_script *sc, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_SCRIPT_H */
