/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog replay: put a log's records in time order and replay its
 * maps, so that every sample is known as (pid, object, object address).
 *
 * The records are added as read (pmclog_replay__add() copies them) and
 * replayed in (tstamp, position in the log) order, as the ABI's "Order."
 * paragraph asks, sorted in a window as perf's ordered events are:
 *
 *   The log is out of order only by a bounded time: a sample waits at most
 *   until its CPU's next drain (a tick, or sooner), a MAP_IN or PROCEXEC
 *   whose path the module resolved in process context by that work's
 *   latency.  So a record waits in the window until one at least the
 *   window (PMCLOG_REPLAY_WINDOW_NS, 1 s; pmclog_replay__set_window())
 *   newer than it was added, and then it is replayed: precisely, when a
 *   record with the highest tstamp so far, T, is added, every waiting
 *   record with tstamp < T - window is replayed in order, and a record
 *   added with a tstamp below that limit is replayed at once.  Memory is
 *   what the window holds, not the log.
 *
 *   A record later than the window (its tstamp below one already
 *   replayed) is replayed where it arrives, against the maps as they are
 *   then, and counted in records_late: a late sample may find another
 *   object, or none, where the full sort would have found its own.  The
 *   one late kind a real log has, the recorder's KSYMBOLs and BUILDIDs
 *   (PMCLOG_HF_SYNTH: the kernel at START, stamped with INITIALIZE's time
 *   but written just before CLOSELOG), is replayed as where it sorts, and
 *   not counted: a KSYMBOL goes to the object of the first kernel map of
 *   START (PMCLOG_MAP_F_INITIAL) that held its address, a BUILDID gives
 *   its build-id, in place, to the object of START's kernel map at its
 *   start (the samples it already has stay with it); with none, either
 *   waits as one without a map does.
 *   When the whole log fits in the window the order is the full sort's.
 *
 * With pmclog_replay__stream() (before the first add) records are
 * replayed as they are added and fn sees samples from inside
 * pmclog_replay__add(); pmclog_replay__run() replays what the window
 * still holds.  Without it, the records are held until
 * pmclog_replay__run(), which puts them through the same window: the
 * same order, but memory grows with the log.  Replaying:
 *
 *   MAP_IN      pid's map gets [start, end) -> the object of path
 *   MAP_OUT     removed, or split
 *   PROCFORK    the child's maps are a copy of the parent's
 *   PROCEXEC    pid's maps are emptied (the new image's MAP_INs follow)
 *   PROCEXIT    pid's maps are kept, for samples taken before it
 *   KSYMBOL     a function of the kernel object mapped at its address
 *               then; one that arrives before its MAP_IN (the recorder's,
 *               written after INITIALIZE) waits for it
 *   PCSAMPLE    looked up in pid's maps (user) or the kernel's (pid -1)
 *   PMCALLOCATE a PMC of the log (pmclog_replay__pmc()): its samples
 *               carry its pmcid
 *   CALLCHAIN   the stack of the PCSAMPLE just before it in the log (same
 *               cpu, tstamp, pmcid, pid and tid): each frame looked up as
 *               the sample is, handed to fn with it
 *
 * An object is one file path (or "[kernel]", a module name, "[vdso]"):
 * the same library mapped twice, or a module loaded twice at another
 * address, is one object with one symbol table.  Object addresses are
 * MAP_IN's offset arithmetic: file offsets for files, link-time
 * addresses for "[kernel]", offsets in the text for modules.
 */
#ifndef PMCLOG_REPLAY_H
#define PMCLOG_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"
#include "pmclog_reader.h"
#include "pmclog_symtab.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmclog_obj_kind {
	PMCLOG_OBJ_FILE = 1,	/* a file mapping of a process */
	PMCLOG_OBJ_ANON,	/* anonymous or special ([vdso]) code */
	PMCLOG_OBJ_KERNEL,	/* "[kernel]" */
	PMCLOG_OBJ_KMODULE,	/* a module's core text */
	PMCLOG_OBJ_KMODULE_INIT,	/* a module's .init text */
};

/*
 * An object is a (path, kind, build-id): the builds of a module or
 * library that a log maps one after the other (BUILDID) are objects of
 * their own, each with its own KSYMBOLs; maps without a BUILDID share the
 * object of their path and kind with build_id_size 0.
 */
struct pmclog_object {
	const char *path;		/* interned, as the log names it */
	enum pmclog_obj_kind kind;
	struct pmclog_symtab *logsyms;	/* from KSYMBOL; NULL if none */
	__u64 limit;			/* highest object address mapped */
	void *priv;			/* for the resolver (pmclog_resolve.h) */
	__u8 build_id_size;		/* 0: not known */
	__u8 build_id[PMCLOG_BUILD_ID_MAX];
};

/*
 * A frame of a sample's stack (a log recorded with -g: CALLCHAIN).
 * A return address is looked up as the call before it: objaddr is that
 * of pc - 1, so that a call at the end of a function names it.
 */
struct pmclog_frame {
	__u64 pc;			/* as in the log */
	struct pmclog_object *obj;	/* NULL: no map held it */
	__u64 objaddr;
	bool user;
	bool hidden;	/* the sample's own kernel PC, hidden (pc 0) */
	/*
	 * With obj: the map that held it then, as MAP_IN made it (what is
	 * left of it after a MAP_OUT): [map_start, map_end) at object
	 * address map_base.  pprof's Mapping (pmclog_pprof.h).
	 */
	__u64 map_start, map_end, map_base;
};

struct pmclog_sample_loc {
	__u64 tstamp;
	__u64 pc;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	bool user;
	bool hidden;	/* kernel sample with pc 0: no CAP_SYSLOG at record time */
	struct pmclog_object *obj;	/* NULL: no map held pc */
	__u64 objaddr;
	__u32 pmcid;	/* header.pmcid: the PMC that took it */
	/*
	 * The stack, from a CALLCHAIN (NULL and 0 without one): frames[0]
	 * is the sample itself, then its callers outwards, the kernel's
	 * first, then the user's.
	 */
	const struct pmclog_frame *frames;
	size_t nframes;
	__u32 callchain_flags;		/* PMCLOG_CC_F_*: where it was cut */
	/* With obj: the map that held pc, as for struct pmclog_frame. */
	__u64 map_start, map_end, map_base;
};

#define PMCLOG_REPLAY_TYPES	(PMCLOG_TYPE_MAX_KNOWN + 2)	/* last: newer types */
#define PMCLOG_REPLAY_REASONS	(PMCLOG_THROTTLE_MAX_KNOWN + 1)	/* [0]: newer reasons */

struct pmclog_replay_stats {
	__u64 records[PMCLOG_REPLAY_TYPES];
	__u64 samples;
	__u64 samples_user;
	__u64 samples_kernel;
	__u64 samples_hidden;
	__u64 samples_no_object;
	__u64 drop_samples;	/* sum of DROPNOTIFY */
	__u64 drop_records;
	/* THROTTLE and UNTHROTTLE counts, and stopped time, by reason. */
	__u64 throttles[PMCLOG_REPLAY_REASONS];
	__u64 unthrottles[PMCLOG_REPLAY_REASONS];
	__u64 stopped_ns[PMCLOG_REPLAY_REASONS];
	bool closelog;
	__u64 close_samples, close_samples_dropped, close_records_dropped;
	__u64 ksymbols_unmapped;	/* KSYMBOL inside no kernel map, ever */
	__u64 buildids_unmapped;	/* BUILDID of no map that started there */
	__u64 maps_bad;			/* MAP_IN/MAP_OUT with end <= start */
	__u64 procs_unfollowed;		/* PROCFORK with PMCLOG_HF_UNFOLLOWED */
	__u64 callchains;		/* CALLCHAIN records paired with a sample */
	__u64 callchains_orphan;	/* CALLCHAIN after no sample of its own */
	__u32 abi_version;
	__u64 start_tstamp;		/* INITIALIZE's: the log's time 0 */
	/* The last PMCALLOCATE's; each PMC's: pmclog_replay__pmc(). */
	__u64 period;
	bool freq;
	const char *event;		/* interned PMCALLOCATE name, or NULL */
	/* INITIALIZE's CLOCK_REALTIME (0: none); the newest record's tstamp. */
	__u64 start_realtime_ns;
	__u64 end_tstamp;
	/* Replayed later than their place (the recorder's KSYMBOLs apart). */
	__u64 records_late;
	__u64 sort_window_ns;		/* the window they were later than */
};

/* The sort window of a new replay, in ns of the log's clock. */
#define PMCLOG_REPLAY_WINDOW_NS	1000000000ULL

/*
 * A sampling PMC of the log, as its PMCALLOCATE says (one per pmcid, in
 * the order of their PMCALLOCATEs; a later one for the same pmcid
 * replaces it), with the THROTTLE / UNTHROTTLE records about it.
 */
struct pmclog_replay_pmc {
	__u32 pmcid;
	__u32 event;		/* PMCLOG_EV_* */
	__u32 flags;		/* PMCLOG_PMC_F_* */
	__u64 config;		/* PMCLOG_EV_RAW: the event select */
	__u64 period;		/* events (ns for cpu-clock), or Hz with PMCLOG_PMC_F_FREQ */
	const char *name;	/* interned: the event as the recorder was asked for it */
	__u64 throttles[PMCLOG_REPLAY_REASONS];
	__u64 unthrottles[PMCLOG_REPLAY_REASONS];
	__u64 stopped_ns[PMCLOG_REPLAY_REASONS];
};

struct pmclog_replay;

typedef int (*pmclog_replay_sample_fn)(void *ctx,
				       const struct pmclog_sample_loc *s);

/*
 * A record of the replay other than PCSAMPLE and CALLCHAIN (which come as
 * samples), in time order, after the replay applied it: pmclog_replay__comm()
 * and the maps are then as of the record (libpmclog 1.1).
 */
typedef int (*pmclog_replay_record_fn)(void *ctx, const struct pmclog_record *rec);

PMCLOG_API struct pmclog_replay *pmclog_replay__new(struct pmclog_strings *strings);
PMCLOG_API void pmclog_replay__free(struct pmclog_replay *r);

/*
 * The sort window, ns (0: only records that arrive in order wait for
 * nothing).  Before the first pmclog_replay__add(); -EBUSY after.
 */
PMCLOG_API int pmclog_replay__set_window(struct pmclog_replay *r, __u64 ns);

/*
 * Replay as records are added, handing samples to fn from inside
 * pmclog_replay__add() (whose return is then fn's non-zero return, as
 * run's is); run() must be given the same fn and ctx.  Before the first
 * pmclog_replay__add(); -EBUSY after.
 */
PMCLOG_API int pmclog_replay__stream(struct pmclog_replay *r, pmclog_replay_sample_fn fn,
				     void *ctx);

/*
 * Copy one record (as pmclog_reader__next() returned it).  0, -ENOMEM,
 * or fn's return when streaming (then every later call returns it too).
 */
PMCLOG_API int pmclog_replay__add(struct pmclog_replay *r, const struct pmclog_record *rec);

/*
 * Replay what is left; fn sees every PCSAMPLE, in time order.  A non-zero
 * return from fn stops the replay and is returned.  Run once; -EINVAL
 * when streaming with another fn or ctx.
 */
PMCLOG_API int pmclog_replay__run(struct pmclog_replay *r, pmclog_replay_sample_fn fn,
				  void *ctx);

/*
 * Before pmclog_replay__run(): also hand every other record to fn (NULL:
 * none), with ctx, between the samples, as perf script shows its events.
 */
PMCLOG_API void pmclog_replay__set_record_fn(struct pmclog_replay *r,
					     pmclog_replay_record_fn fn, void *ctx);

PMCLOG_API const struct pmclog_replay_stats *pmclog_replay__stats(const struct pmclog_replay *r);
PMCLOG_API size_t pmclog_replay__nobjects(const struct pmclog_replay *r);
PMCLOG_API struct pmclog_object *pmclog_replay__object(const struct pmclog_replay *r,
						       size_t i);
/* The path of pid's last PROCEXEC (interned), or NULL. */
PMCLOG_API const char *pmclog_replay__comm(const struct pmclog_replay *r, __u32 pid);

/* The log's PMCs (after pmclog_replay__run()); NULL past the last. */
PMCLOG_API size_t pmclog_replay__npmcs(const struct pmclog_replay *r);
PMCLOG_API const struct pmclog_replay_pmc *pmclog_replay__pmc(const struct pmclog_replay *r,
							      size_t i);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_REPLAY_H */
