/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog report: count a replay's samples by (pid, object, function),
 * name them through a resolver, and print the profile in one of the
 * formats of a table (text, json, folded) and as gprof(1) histograms.
 *
 *   pmclog_report__new()      with the sort keys and the pid filter
 *   pmclog_replay__run(replay, pmclog_report__sample, report)
 *   pmclog_report__finish()   resolve each distinct address once, make rows
 *   pmclog_report__print() / __print_stats() / __write_gmon()
 */
#ifndef PMCLOG_REPORT_H
#define PMCLOG_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "pmclog_common.h"
#include "pmclog_replay.h"
#include "pmclog_resolve.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmclog_sort_key {
	PMCLOG_SORT_PID = 1,
	PMCLOG_SORT_DSO,
	PMCLOG_SORT_SYM,
	PMCLOG_SORT_SRCLINE,	/* libpmclog 1.1: "file.c:123", DWARF line info */
};

/* Keys in one report (of the four): the size of the options' array. */
#define PMCLOG_SORT_MAX	3

struct pmclog_report_opts {
	enum pmclog_sort_key keys[PMCLOG_SORT_MAX];	/* display order */
	size_t nkeys;
	const __u32 *pids;	/* only these pids; NULL: all */
	size_t npids;
	/* Only samples in [time_from, time_to), ns after INITIALIZE. */
	bool has_time;
	__u64 time_from, time_to;
	bool full_paths;	/* objects by path, not by file name */
	bool demangle;		/* C++, Rust legacy and v0 names demangled */
};

struct pmclog_row {
	__u64 samples;
	__u32 pid;		/* with PMCLOG_SORT_PID */
	const char *comm;	/* pid's executable, or NULL */
	const char *object;	/* with PMCLOG_SORT_DSO */
	const char *symbol;	/* with PMCLOG_SORT_SYM */
	bool kernel;
	const char *srcline;	/* with PMCLOG_SORT_SRCLINE: "file.c:123", "??:0" */
};

struct pmclog_report_stats {
	__u64 samples;		/* after the pid and time filters */
	__u64 filtered_out;	/* left out by them */
	__u64 resolved;		/* a function named */
	__u64 no_object;	/* in no map */
	__u64 no_function;	/* in an object, not in a known function */
	__u64 hidden;		/* kernel, address hidden */
	size_t objects;		/* with samples */
	size_t objects_not_found;
};

struct pmclog_report;

PMCLOG_API struct pmclog_report *pmclog_report__new(struct pmclog_strings *strings,
						    struct pmclog_replay *replay,
						    struct pmclog_resolver *res,
						    const struct pmclog_report_opts *opts);
PMCLOG_API void pmclog_report__free(struct pmclog_report *rep);

/* A pmclog_replay_sample_fn: ctx is the report. */
PMCLOG_API int pmclog_report__sample(void *ctx, const struct pmclog_sample_loc *s);
PMCLOG_API int pmclog_report__finish(struct pmclog_report *rep);

PMCLOG_API size_t pmclog_report__nrows(const struct pmclog_report *rep);
PMCLOG_API const struct pmclog_row *pmclog_report__row(const struct pmclog_report *rep,
						       size_t i);
PMCLOG_API const struct pmclog_report_stats *pmclog_report__stats(const struct pmclog_report *rep);

/*
 * Print in the named format; -EINVAL (errno too) for an unknown name.
 * pmclog_report__formats() lists the names, "text" first.
 */
PMCLOG_API int pmclog_report__print(const struct pmclog_report *rep, const char *format,
				    FILE *f);
PMCLOG_API const char *const *pmclog_report__formats(void);

/* The conversion statistics; verbosity -1 prints nothing, 1 more. */
PMCLOG_API void pmclog_report__print_stats(const struct pmclog_report *rep, FILE *f,
					   int verbosity);

/*
 * gprof(1) profiles: one gmon.out-format file per object whose ELF file
 * was read, in dir, and "GMONFILE OBJECTPATH" lines in mapfile (NULL:
 * none), as pmcstat -g / -M do.  Return 0 or a negative errno, with a
 * message through the print callback naming the file.
 */
PMCLOG_API int pmclog_report__write_gmon(const struct pmclog_report *rep, const char *dir,
					 const char *mapfile);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_REPORT_H */
