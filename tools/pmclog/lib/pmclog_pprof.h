/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog pprof: a log's samples as a pprof profile (profile.proto,
 * gzip-compressed), the input of go tool pprof and of the fleet
 * profilers (Pyroscope, Parca, Grafana).
 *
 *   pmclog_pprof__new(report)
 *   pmclog_replay__run(replay, pmclog_pprof__report_sample, pp): each
 *       sample to the report, then to the profile (or call
 *       pmclog_pprof__sample() from a callback of one's own)
 *   pmclog_report__finish(report), then pmclog_pprof__finish()
 *   pmclog_pprof__write()
 *
 * What the profile holds:
 *
 *   sample_type   per PMC of the report (its --event choice): "samples"
 *                 (count), then, when the period is known, the event in
 *                 its unit: cpu-clock in nanoseconds (its period, or 1e9
 *                 / Hz), a hardware event counted by a fixed period in
 *                 "count" (events).  With several PMCs each type is
 *                 prefixed by the profile's label ("cycles_samples",
 *                 "cycles").  A sample has a value for its own PMC's
 *                 types, 0 for the others'.
 *   sample        one per distinct (PMC, pid, tid, stack), with the labels
 *                 pid, tid (numbers) and comm (the executable's name, as
 *                 --format folded's first frame); the stack leaf first:
 *                 the CALLCHAIN's frames (-g), else the sample's PC alone
 *   mapping       one per map that held a frame, as MAP_IN made it:
 *                 memory_start/limit its addresses, file_offset the object
 *                 address of its start (the file offset for a file; the
 *                 link-time address for [kernel], the offset in the text
 *                 for a module); filename the object's path ("[kernel]",
 *                 "[MODULE]"); build_id in hex when the log has a BUILDID
 *   location      one per distinct frame: its address (a return address
 *                 less one, inside the call), its mapping, one line naming
 *                 its function (and its line number, from DWARF, when the
 *                 object has it); none when no function is known
 *   function      name (demangled as the report's --demangle says),
 *                 system_name (as in the symbol table), filename (the
 *                 source file of its line, when known)
 *   time_nanos, duration_nanos   INITIALIZE's wall clock, and the time
 *                 to the last record
 *   period_type, period          the first PMC's event and period, when
 *                 known
 *
 * It keeps the report's --pid and --time filters, and names each frame as
 * the report and --format folded do (the same resolver).
 */
#ifndef PMCLOG_PPROF_H
#define PMCLOG_PPROF_H

#include <stdio.h>
#include <linux/types.h>

#include "pmclog_common.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_pprof;

PMCLOG_API struct pmclog_pprof *pmclog_pprof__new(struct pmclog_report *rep);
PMCLOG_API void pmclog_pprof__free(struct pmclog_pprof *pp);

/* A pmclog_replay_sample_fn: ctx is the profile. */
PMCLOG_API int pmclog_pprof__sample(void *ctx, const struct pmclog_sample_loc *s);

/*
 * A pmclog_replay_sample_fn for both: the sample to the profile's report
 * (pmclog_report__sample()), then to the profile.  ctx is the profile.
 */
PMCLOG_API int pmclog_pprof__report_sample(void *ctx, const struct pmclog_sample_loc *s);

/* Name the frames; after pmclog_report__finish(). */
PMCLOG_API int pmclog_pprof__finish(struct pmclog_pprof *pp);

/* Samples in the profile, after the filters (and --event). */
PMCLOG_API __u64 pmclog_pprof__samples(const struct pmclog_pprof *pp);

/*
 * The profile, gzip-compressed (as pprof reads it; the gzip header
 * carries no time, so one log gives the same bytes), into f.  0, or a
 * negative errno (errno too): -ENOMEM, -EIO when f fails.
 */
PMCLOG_API int pmclog_pprof__write(const struct pmclog_pprof *pp, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_PPROF_H */
