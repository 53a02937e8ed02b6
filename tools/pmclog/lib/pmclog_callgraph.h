/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog callgraph: the stacks of a log recorded with -g (CALLCHAIN),
 * counted by function and printed as folded stacks (Brendan Gregg's
 * collapsed format, the input of flamegraph.pl) or as pmcstat -G's
 * callgraph tree.
 *
 *   pmclog_callgraph__new(report)
 *   pmclog_replay__run(replay, pmclog_callgraph__report_sample, cg): each
 *       sample to the report, then to the callgraph
 *   pmclog_report__finish(report), then pmclog_callgraph__finish()
 *   pmclog_callgraph__print_folded() / __print_tree() / __print_flame_json()
 *
 * It keeps the report's --pid and --time filters and names every frame
 * as the report names a sample (the same resolver: objects of a load or
 * build each, modules and libraries mapped and unmapped mid-run).  A
 * sample without a CALLCHAIN is not in the callgraph.
 */
#ifndef PMCLOG_CALLGRAPH_H
#define PMCLOG_CALLGRAPH_H

#include <stdio.h>
#include <linux/types.h>

#include "pmclog_common.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_callgraph;

PMCLOG_API struct pmclog_callgraph *pmclog_callgraph__new(struct pmclog_report *rep);
PMCLOG_API void pmclog_callgraph__free(struct pmclog_callgraph *cg);

/* A pmclog_replay_sample_fn: ctx is the callgraph. */
PMCLOG_API int pmclog_callgraph__sample(void *ctx, const struct pmclog_sample_loc *s);

/*
 * A pmclog_replay_sample_fn for both: the sample to the callgraph's report
 * (pmclog_report__sample()), then to the callgraph.  ctx is the callgraph.
 */
PMCLOG_API int pmclog_callgraph__report_sample(void *ctx,
					       const struct pmclog_sample_loc *s);

/* Name the frames and build the trees; after pmclog_report__finish(). */
PMCLOG_API int pmclog_callgraph__finish(struct pmclog_callgraph *cg);

/* Samples with a stack, after the filters. */
PMCLOG_API __u64 pmclog_callgraph__samples(const struct pmclog_callgraph *cg);

/*
 * One line per distinct stack: "comm;outermost;...;leaf count", kernel
 * functions suffixed "_[k]" as perf's stackcollapse does; a frame in no
 * known function is "[object]".  comm is the process's executable name
 * ("comm-pid" when the report sorts by pid).  Lines in name order.
 */
PMCLOG_API void pmclog_callgraph__print_folded(const struct pmclog_callgraph *cg, FILE *f);

/*
 * pmcstat -G's tree, per PMC: "@ EVENT [N samples]" (EVENT the label of
 * the PMC's profile, as the text report names its sections: the event's
 * name, "NAME#ID" when two PMCs share it; "pmc ID" without a
 * PMCALLOCATE), then each function
 * that samples fell in (most first) with its callers below it, each line
 * "PERCENT% [SAMPLES] function @ object", indented by depth, the
 * percentage that of the line above (of N at the top); then the same
 * for callees, from the outermost functions down ("@ EVENT [N samples]
 * callees").
 */
PMCLOG_API void pmclog_callgraph__print_tree(const struct pmclog_callgraph *cg, FILE *f);

/*
 * The stacks of print_folded() as one JSON object, the data of pmclog
 * flamegraph: {"format": "pmclog-flamegraph", "version": 1, "events":
 * [EVENT...]}, one EVENT per PMC in pmcid order: {"pmcid", "label" (as
 * print_tree() names it), "samples", "root"}; root is a NODE named "all",
 * kind "root", whose children are the processes (kind "process", named
 * as print_folded()'s comm), theirs the outermost functions, and so on
 * down to the leaves: NODE is {"name", "object" (null for a process),
 * "kind" ("root", "process", "kernel", "user"), "value" (samples through
 * it), "self" (samples ending at it), "children" (in name order)}.
 * Strings as the json report writes them, with <, > and & as \u00NN as
 * well, so that the object can be embedded in an HTML <script>.
 */
PMCLOG_API void pmclog_callgraph__print_flame_json(const struct pmclog_callgraph *cg,
						   FILE *f);

/*
 * libpmclog 1.1: keep every sample the report keeps (with a stack or
 * without) and every MAP_IN and MAP_OUT, in replay order, for
 * pmclog_callgraph__print_chrome_trace().  Call before
 * pmclog_replay__run(): it sets the replay's record function
 * (pmclog_replay__set_record_fn()).  0.
 */
PMCLOG_API int pmclog_callgraph__keep_timeline(struct pmclog_callgraph *cg);

/*
 * After pmclog_callgraph__finish(), the timeline as a Chrome trace (the
 * Trace Event Format's JSON object form, which Perfetto and
 * chrome://tracing import): "traceEvents" holds process_name and
 * thread_name metadata ("M") for each pid and tid (comm, as folded's;
 * pid 0 is also where the kernel's maps go), then in time order each
 * sample as a thread-scoped instant ("i", "s": "t") named by its
 * function, args {object, event (the -G tree's label), kernel, cpu}, and
 * with a stack "sf" naming its leaf in "stackFrames" ({name, category:
 * the object, parent}); each MAP_IN and MAP_OUT as a process-scoped
 * instant ("MAP_IN libfoo.so"), a module's load and unload (pid -1
 * after START) as global ones ("module load NAME", cat "module"), args
 * {path, start, end, initial, cpu}.  "ts" is microseconds after
 * INITIALIZE.  -EINVAL (errno too) without keep_timeline().
 */
PMCLOG_API int pmclog_callgraph__print_chrome_trace(const struct pmclog_callgraph *cg,
						    FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_CALLGRAPH_H */
