/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog report: count a replay's samples by (PMC, pid, object,
 * function), name them through a resolver, and print one profile per PMC
 * (per event, as pmcstat -R does) in one of the formats of a table (text,
 * json, folded) and as gprof(1) histograms.
 *
 *   pmclog_report__new()      with the sort keys and the pid filter
 *   pmclog_replay__run(replay, pmclog_report__sample, report)
 *   pmclog_report__select()   optionally, one event (--event)
 *   pmclog_report__finish()   resolve each distinct address once, make the
 *                             profiles and their rows
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

/*
 * A row of a profile.  The library allocates them (pmclog_report__row()):
 * fields are only ever appended.
 */
struct pmclog_row {
	__u64 samples;
	__u32 pid;		/* with PMCLOG_SORT_PID */
	const char *comm;	/* pid's executable, or NULL */
	/*
	 * With PMCLOG_SORT_DSO: the object's name ("libc.so.6", or its full
	 * path with full_paths; "[kernel]", "[MODULE]", "[unknown]" for a
	 * sample in no map), never with a word about its state appended.
	 */
	const char *object;
	/* With PMCLOG_SORT_SYM: the function, or its address ("0x...": has_addr). */
	const char *symbol;
	bool kernel;
	/* libpmclog 1.1 */
	const char *srcline;	/* with PMCLOG_SORT_SRCLINE: "file.c:123", "??:0" */
	__u32 pmcid;		/* the PMC whose profile the row is in */
	const char *path;	/* with _DSO: as the log names the object; NULL: none */
	/*
	 * With _DSO or _SYM: LOADED (symbols read), NOTFOUND (its file, or
	 * the kernel's symbols, could not be found or read: -v says why),
	 * NOFILE ([vdso], anonymous code); UNTRIED: no object.
	 */
	enum pmclog_obj_state objstate;
	bool has_addr;		/* with _SYM: in no known function */
	__u64 addr;		/* then: a virtual address of the file when it was
				 * read, else the object address (file offset,
				 * offset in a module's text; the pc without object) */
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
	/* libpmclog 1.1 */
	__u64 other_events;	/* of PMCs pmclog_report__select() left out,
				 * kept by the pid and time filters (those
				 * they leave out are in filtered_out) */
};

/*
 * The profile of one PMC: its rows are pmclog_report__row(first_row) to
 * pmclog_report__row(first_row + nrows - 1), most samples first.
 */
struct pmclog_profile {
	__u32 pmcid;
	const struct pmclog_replay_pmc *pmc;	/* its PMCALLOCATE; NULL: none in the log */
	/*
	 * The event's name as recorded; "NAME#ID" when another PMC of the
	 * log has the same name; "pmcID" without a PMCALLOCATE (or an
	 * empty name in it).
	 */
	const char *label;
	size_t first_row, nrows;
	struct pmclog_report_stats stats;	/* this PMC's samples only */
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

/*
 * Keep only the profile of event, after pmclog_replay__run() and before
 * pmclog_report__finish(): a PMC id ("2"), a name as recorded
 * ("cycles:u"), or a profile's label ("cpu-clock#2").  -ENOENT when the
 * log has no such PMC, -ENOTUNIQ when the name is that of several (errno
 * too), with a message through the print callback naming the log's events.
 */
PMCLOG_API int pmclog_report__select(struct pmclog_report *rep, const char *event);

/*
 * The profiles, one per PMC: those of the log's PMCALLOCATEs in their
 * order, then those of samples whose PMC none announced, by id.
 */
PMCLOG_API size_t pmclog_report__nprofiles(const struct pmclog_report *rep);
PMCLOG_API const struct pmclog_profile *pmclog_report__profile(const struct pmclog_report *rep,
							       size_t i);

/* Every profile's rows, profile after profile, and their totals. */
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
 * gprof(1) profiles, as pmcstat -g / -M write them: for each profile, a
 * directory in dir named by its label, holding one gmon.out-format file
 * per object whose ELF file was read; and "GMONFILE OBJECTPATH" lines in
 * mapfile (NULL: none).  Return 0 or a negative errno, with a message
 * through the print callback naming the file.
 */
PMCLOG_API int pmclog_report__write_gmon(const struct pmclog_report *rep, const char *dir,
					 const char *mapfile);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_REPORT_H */
