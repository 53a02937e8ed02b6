/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmclog internals shared by the files of the module (as FreeBSD's
 * sys/sys/pmckern.h is hwpmc's); the ABI with userland is
 * include/uapi/linux/pmclog.h.
 *
 * One open of /dev/pmclog is one owner (hwpmc's "owner"): it has a log
 * buffer, up to PMCLOG_MAX_PMCS sampling PMCs and, for each CPU, a small
 * ring of samples.  The path of a sample:
 *
 *   PMC interrupt (hrtimer, NMI) -> pmclog_sample_take()  [this CPU's ring]
 *   next tick -> lazy irq_work,
 *   or ring past drain_watermark
 *        -> hard irq_work at once -> pmclog_sample_drain() [the owner's log]
 *   read(2)                      -> pmclog_log_read()     [userland]
 */
#ifndef _PMCLOG_KERN_H
#define _PMCLOG_KERN_H

#include <linux/irq_work.h>
#include <linux/atomic.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <asm/local64.h>

#include "../include/uapi/linux/pmclog.h"

#define PMCLOG_MAX_PMCS		8

/*
 * What an open allocates for its lifetime: charged to the opener's memory
 * cgroup, so that a recorder in a container stays inside its limit, and
 * refused there (-ENOMEM, which the recorder explains) rather than made
 * room for by the cgroup's OOM killer.
 */
#define PMCLOG_GFP_OPEN		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

/* Module parameters, fixed once the module is loaded (pmclog_main.c). */
extern unsigned int pmclog_nsamples;
extern unsigned int pmclog_drain_watermark;	/* % of nsamples, 0: tick only */
extern unsigned int pmclog_logbuffersize;	/* KiB */
extern unsigned int pmclog_maxlogs;
extern unsigned int pmclog_max_sample_rate;	/* Hz, per PMC and CPU */
extern unsigned int pmclog_cpu_time_max_percent;	/* of a tick, in NMIs */
extern unsigned int pmclog_callchain_max_depth;	/* frames per part */

/* Timestamps of every record: CLOCK_MONOTONIC, readable in NMI. */
static inline u64 pmclog_clock(void)
{
	return ktime_get_mono_fast_ns();
}

/* ---------------------------------------------------------------- */
/* Log buffer (pmclog_log.c)                                        */

/*
 * A byte ring of whole records.  Writers (any context but NMI) serialise
 * on @lock; the single reader (read_mutex) owns @tail.  Bytes in
 * [tail, head) are complete records that no writer touches.
 */
struct pmclog_log {
	raw_spinlock_t		lock;
	char			*buf;
	u64			size;		/* power of two */
	u64			head;		/* written; under lock */
	u64			tail;		/* consumed; reader only */
	/*
	 * STOP sets @closing: writers and drop counts are refused from then
	 * on, so CLOSELOG's totals are those at STOP.  The log ends (@closed:
	 * read(2) returns 0 once it is empty) when the pending DROPNOTIFYs
	 * and CLOSELOG are in: at STOP or, when the reader is too far behind
	 * for them, as its read(2)s make room.  Written under lock, read
	 * without it by read(2) and poll(2).
	 */
	bool			closing;
	bool			closed;
	u64			close_samples;
	u64			close_samples_dropped;

	/* Losses not yet told in a DROPNOTIFY, per CPU; under lock. */
	u64			*pend_samples;
	u64			*pend_records;
	cpumask_var_t		pend_cpus;
	u64			records_dropped;	/* whole log; under lock */

	struct mutex		read_mutex;	/* one reader copies out at a time */
	wait_queue_head_t	wait;
	struct timer_list	wake_timer;	/* bounds wake-up latency */
	struct irq_work		wake_work;	/* wakes at the watermark */
};

int pmclog_log_init(struct pmclog_log *log, size_t size);
void pmclog_log_destroy(struct pmclog_log *log);
int pmclog_log_write(struct pmclog_log *log, const void *rec);
int pmclog_log_write_locked(struct pmclog_log *log, const void *rec);
int pmclog_log_write_pair_locked(struct pmclog_log *log, const void *rec,
				 const void *rec2);
int pmclog_log_write_run_locked(struct pmclog_log *log, const void *recs,
				size_t len);
void pmclog_log_add_record_drops(struct pmclog_log *log, unsigned int cpu,
				 u64 n);
void pmclog_log_add_sample_drops(struct pmclog_log *log, unsigned int cpu,
				 u64 n);
void pmclog_log_kick(struct pmclog_log *log);
void pmclog_log_close(struct pmclog_log *log, u64 samples,
		      u64 samples_dropped);
ssize_t pmclog_log_read(struct pmclog_log *log, char __user *ubuf,
			size_t count, bool nonblock);
bool pmclog_log_readable(struct pmclog_log *log);

/* ---------------------------------------------------------------- */
/* Owners, PMCs and sampling sources                                */

struct file;
struct pmclog_pmc;
struct pt_regs;
struct task_struct;

/*
 * A sampling source.  alloc/free/start/stop run in process context with
 * the owner's mutex held.  When stop() returns, no handler of the PMC
 * runs or will run on any CPU.
 */
struct pmclog_source_ops {
	const char	*name;
	int		(*alloc)(struct pmclog_pmc *pmc);
	void		(*free)(struct pmclog_pmc *pmc);
	int		(*start)(struct pmclog_pmc *pmc);
	void		(*stop)(struct pmclog_pmc *pmc);
};

struct pmclog_pmc {
	struct pmclog_owner		*owner;
	const struct pmclog_source_ops	*ops;
	u8				id;
	u32				event;
	u32				flags;
	u64				config;
	u64				period;	/* or Hz, PMCLOG_PMC_F_FREQ */
	char				name[PMCLOG_EVENT_NAME_LEN];
	u16				cc_depth;	/* PMCLOG_PMC_F_CALLCHAIN */
	void				*priv;	/* the source's */
};

/* A sample waiting in a per-CPU ring. */
struct pmclog_sample {
	u64	tstamp;
	u64	pc;
	u32	pid;
	u32	tid;
	u8	pmcid;
	u8	flags;		/* PMCLOG_HF_* */
};

/*
 * The throttles of one PMC on one CPU for one reason (RATE, CPU_TIME) not
 * yet written as THROTTLE / UNTHROTTLE.  Throttles come from the NMI,
 * unthrottles with interrupts off on that CPU; each time is written
 * before its count.  The *_told fields are the drainer's.
 */
struct pmclog_throttle_state {
	local_t			throttles;
	local_t			unthrottles;
	local64_t		stopped_ns;
	u64			throttle_ts;	/* the last one's */
	u64			unthrottle_ts;
	unsigned long		throttles_told;
	unsigned long		unthrottles_told;
	u64			stopped_told;
};

#define PMCLOG_THROTTLE_NMI_REASONS	2	/* RATE, CPU_TIME */

/*
 * Per owner, per CPU.  Producers are the interrupt handlers of the PMCs on
 * that CPU (hardirq and NMI, which may nest), consumers the two drain
 * works on that CPU (the tick's, lazy, and the watermark's, raised at
 * once), or anyone once the producers are stopped and both works synced.
 */
struct pmclog_cpu {
	struct pmclog_owner	*owner;
	unsigned int		cpu;
	unsigned int		nsamples;
	unsigned int		drain_mark;	/* samples waiting; 0: none */
	local_t			head;		/* reserved by producers */
	unsigned long		tail;		/* consumed by the drainer */
	local64_t		samples;	/* taken, dropped included */
	local64_t		dropped;	/* ring was full */
	u64			dropped_told;	/* drainer only */
	struct pmclog_throttle_state
		throttle[PMCLOG_MAX_PMCS][PMCLOG_THROTTLE_NMI_REASONS];
	struct irq_work		drain_work;	/* lazy: the next tick */
	struct irq_work		drain_now;	/* the ring passed drain_mark */
	/* pmclog_callchain.c: a CALLCHAIN per ring slot, or NULL */
	struct pmclog_callchain	*cc;
	struct pmclog_sample	ring[];
};

enum pmclog_state {
	PMCLOG_STATE_NEW,	/* PMCs may be allocated */
	PMCLOG_STATE_ATTACHED,	/* target chosen */
	PMCLOG_STATE_RUNNING,
	PMCLOG_STATE_STOPPED,	/* CLOSELOG written; the log only drains */
};

struct pmclog_owner {
	struct mutex		lock;		/* ioctls, state changes */
	enum pmclog_state	state;
	struct list_head	live;		/* on pmclog_live while RUNNING */
	u32			mode;		/* PMCLOG_ATTACH_* */
	struct pid		*target;	/* PMCLOG_ATTACH_PROCESS */
	struct pid		**kids;		/* followed descendants (-d) */
	atomic_t		nkids;
	unsigned long		hooks_missed;	/* pmclog_hooks_missed() at START */
	bool			kernel_addrs;	/* opener may see them */
	unsigned int		npmcs;
	struct pmclog_pmc	pmcs[PMCLOG_MAX_PMCS];
	struct pmclog_cpu	**cpus;		/* [nr_cpu_ids] */
	unsigned int		cc_depth;	/* pmclog_cpu.cc's, set at ALLOCATE */
	size_t			cc_stride;	/* bytes per slot of it */
	struct pmclog_log	log;
};

/*
 * pmclog_record.c: one builder per record type, packing it into the
 * caller's memory (records with a string: PMCLOG_SCRATCH_SIZE bytes).
 * No locks, no allocation; any context but NMI.
 */
void pmclog_rec_initialize(struct pmclog_initialize *r, unsigned int cpu,
			   u64 tstamp);
void pmclog_rec_closelog(struct pmclog_closelog *r, u64 samples,
			 u64 samples_dropped, u64 records_dropped,
			 unsigned int cpu, u64 tstamp);
void pmclog_rec_pmcallocate(struct pmclog_pmcallocate *r,
			    const struct pmclog_pmc *pmc, unsigned int cpu,
			    u64 tstamp);
void pmclog_rec_pcsample(struct pmclog_pcsample *r,
			 const struct pmclog_sample *s, bool kernel_addrs,
			 unsigned int cpu);
void pmclog_rec_callchain(struct pmclog_callchain *r,
			  const struct pmclog_sample *s, unsigned int cpu);
void pmclog_rec_map_in(struct pmclog_map_in *r, u32 pid, u32 flags,
		       u64 start, u64 end, u64 offset, const char *path,
		       unsigned int cpu, u64 tstamp);
void pmclog_rec_map_out(struct pmclog_map_out *r, u32 pid, u64 start,
			u64 end, unsigned int cpu, u64 tstamp);
void pmclog_rec_procexec(struct pmclog_procexec *r, u32 pid, const char *path,
			 unsigned int cpu, u64 tstamp);
void pmclog_rec_procfork(struct pmclog_procfork *r, u32 ppid, u32 pid,
			 unsigned int cpu, u64 tstamp);
void pmclog_rec_procexit(struct pmclog_procexit *r, u32 pid, u32 status,
			 unsigned int cpu, u64 tstamp);
void pmclog_rec_dropnotify(struct pmclog_dropnotify *r, u64 samples,
			   u64 records, unsigned int cpu, u64 tstamp);
void pmclog_rec_ksymbol(struct pmclog_ksymbol *r, u64 start, u64 size,
			const char *name, unsigned int cpu, u64 tstamp);
void pmclog_rec_throttle(struct pmclog_throttle *r, unsigned int pmcid,
			 unsigned int reason, unsigned long count,
			 unsigned int cpu, u64 tstamp);
void pmclog_rec_unthrottle(struct pmclog_throttle *r, unsigned int pmcid,
			   unsigned int reason, unsigned long count,
			   u64 stopped_ns, unsigned int cpu, u64 tstamp);
struct pmclog_build_id;
void pmclog_rec_buildid(struct pmclog_buildid *r, u32 pid, u64 start,
			const struct pmclog_build_id *id, unsigned int cpu,
			u64 tstamp);

/* pmclog_owner.c */
struct pmclog_owner *pmclog_owner_create(struct file *file);
void pmclog_owner_destroy(struct pmclog_owner *o);
int pmclog_owner_allocate_locked(struct pmclog_owner *o,
				 struct pmclog_alloc *req);
int pmclog_owner_attach_locked(struct pmclog_owner *o,
			       const struct pmclog_attach *req);
int pmclog_owner_start_locked(struct pmclog_owner *o);
int pmclog_owner_stop_locked(struct pmclog_owner *o);

/* pmclog_track.c: running logs, their targets, hooks' scratch buffers */
#define PMCLOG_SCRATCH_SIZE	(sizeof(struct pmclog_map_in) + PATH_MAX)

/*
 * The number of running logs.  Every hook reads it first and returns at once
 * while it is zero; pmclog_live (pmclog_track.c) is what says which logs
 * want a record.  A counter read, not a static key: see pmclog_track.c.
 */
extern atomic_t pmclog_nr_live;

static inline bool pmclog_track_active(void)
{
	return atomic_read(&pmclog_nr_live) != 0;
}

void pmclog_track_publish(struct pmclog_owner *o);
void pmclog_track_unpublish(struct pmclog_owner *o);
int pmclog_track_alloc_kids(struct pmclog_owner *o);
void pmclog_track_free_kids(struct pmclog_owner *o);
bool pmclog_track_targets(const struct pmclog_owner *o, struct task_struct *t);
bool pmclog_track_wanted(struct task_struct *t);
void pmclog_track_emit(struct task_struct *t, const void *rec);
void pmclog_track_emit_all(const void *rec);
struct pmclog_deferred;
void pmclog_track_emit_deferred(struct task_struct *t,
				const struct pmclog_deferred *d);
void pmclog_track_fork(struct task_struct *parent, struct task_struct *child,
		       const struct pmclog_procfork *rec);
void *pmclog_scratch(void);
unsigned long pmclog_hooks_missed(void);
int pmclog_scratch_init(void);
void pmclog_scratch_free(void);

/* pmclog_defer.c: records with a path, resolved in process context */
struct pmclog_deferred {
	struct pmclog_owner	*owner;
	struct file		*file;	/* referenced until written */
	u64			tstamp;
	u64			start, end, offset;	/* MAP_IN */
	u32			pid;
	u32			flags;			/* MAP_IN */
	u16			type;	/* PMCLOG_TYPE_MAP_IN, _PROCEXEC */
	u16			cpu;
};

void pmclog_defer_queue(struct pmclog_owner *o,
			const struct pmclog_deferred *d);
void pmclog_defer_flush(void);
int pmclog_defer_init(void);
void pmclog_defer_exit(void);

/* pmclog_buildid.c: build-ids of mapped files and of loading modules */
struct pmclog_build_id {
	u8	size;	/* 1 to PMCLOG_BUILD_ID_MAX */
	u8	data[PMCLOG_BUILD_ID_MAX];
};

struct module;
void pmclog_buildid_log_file(struct pmclog_log *log, struct file *file,
			     void *buf, u32 pid, u64 start, unsigned int cpu,
			     u64 tstamp);
bool pmclog_buildid_take_module(const struct module *mod,
				struct pmclog_build_id *id);
void pmclog_buildid_init(void);
void pmclog_buildid_exit(void);

/* pmclog_kobj.c: the kernel image and modules */
int pmclog_kobj_init(void);
void pmclog_kobj_exit(void);
int pmclog_kobj_log_initial(struct pmclog_owner *o, u64 tstamp);

/* pmclog_vma.c: executable mappings of processes */
int pmclog_vma_init(void);
void pmclog_vma_exit(void);
int pmclog_vma_log_initial(struct pmclog_owner *o, u64 tstamp);
unsigned long pmclog_vma_missed(void);

/* pmclog_proc.c: exec, fork, exit, and the scheduler hook */
int pmclog_proc_init(void);
void pmclog_proc_exit_hooks(void);
unsigned long pmclog_proc_missed(void);

/* pmclog_sample.c */
int pmclog_owner_alloc_cpus(struct pmclog_owner *o);
void pmclog_owner_free_cpus(struct pmclog_owner *o);
void pmclog_sample_cpu_offline(struct pmclog_owner *o, unsigned int cpu);
void pmclog_sample_take(struct pmclog_pmc *pmc, struct pt_regs *regs);
void pmclog_sample_throttle(struct pmclog_pmc *pmc, unsigned int reason,
			    u64 tstamp);
void pmclog_sample_unthrottle(struct pmclog_pmc *pmc, unsigned int reason,
			      u64 tstamp, u64 stopped_ns);
void pmclog_sample_write_throttle(struct pmclog_pmc *pmc, unsigned int type,
				  unsigned int cpu, unsigned int reason,
				  u64 tstamp, u64 stopped_ns);
void pmclog_sample_flush_all(struct pmclog_owner *o, u64 *samples,
			     u64 *dropped);

/* pmclog_callchain.c */
int pmclog_callchain_reserve(struct pmclog_owner *o, unsigned int depth);
void pmclog_callchain_free(struct pmclog_cpu *pc);
void pmclog_callchain_take(struct pmclog_cpu *pc, unsigned long slot,
			   const struct pmclog_pmc *pmc, struct pt_regs *regs);
const struct pmclog_callchain *
pmclog_callchain_record(struct pmclog_cpu *pc, unsigned long slot,
			const struct pmclog_sample *s);

/* pmclog_hrtimer.c */
extern const struct pmclog_source_ops pmclog_hrtimer_ops;
int pmclog_hrtimer_init(void);
void pmclog_hrtimer_exit(void);
void pmclog_hrtimer_switch(struct task_struct *prev, struct task_struct *next);

/* pmclog_x86_pmu.c */
extern const struct pmclog_source_ops pmclog_x86_pmu_ops;
int pmclog_x86_pmu_init(void);
void pmclog_x86_pmu_exit(void);
void pmclog_x86_pmu_switch(struct task_struct *prev, struct task_struct *next);
u16 pmclog_x86_pmu_kind(void);
u8 pmclog_x86_pmu_vendor(void);
const char *pmclog_x86_pmu_describe(void);
void pmclog_x86_pmu_info_fill(struct pmclog_pmu_info *info);

/* pmclog_dev.c */
int pmclog_dev_register(void);
void pmclog_dev_unregister(void);

#endif /* _PMCLOG_KERN_H */
