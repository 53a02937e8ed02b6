// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of running logs, which the object-tracking hooks (modules,
 * mappings, exec/fork/exit) write to, and the set of processes each log
 * targets.
 *
 * Owners are published on pmclog_live when they START and unpublished when
 * they STOP or close; hooks walk the list under RCU (kprobe and tracepoint
 * handlers run with preemption off, which is an RCU read side).  With no
 * running log, every hook returns at once on pmclog_track_active().
 *
 * That test is a plain counter read, not a static key.  A key flipped at
 * START and STOP rewrites the branch in every hook (text_poke_bp(): an int3,
 * a sync IPI, the new bytes) while the hooks run on the other CPUs, and on
 * 6.12 that ended in "Oops: int3" at the branch site of whichever hook was
 * running (exit_mmap, munmap, mprotect, exec, exit), 4 boots in 6 under
 * churn.  The hooks are kprobes and tracepoints, which cost far more than
 * one load and a predicted branch: nothing the key saved is worth patching
 * the module's own text under its running code.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "pmclog_kern.h"

atomic_t pmclog_nr_live = ATOMIC_INIT(0);
static LIST_HEAD(pmclog_live);
static DEFINE_MUTEX(pmclog_live_lock);

static void **pmclog_scratch_bufs;	/* [nr_cpu_ids] */

/*
 * This CPU's PMCLOG_SCRATCH_SIZE bytes, for hooks that build a record with
 * a path.  Preemption off; hooks do not nest on one CPU (they all run in
 * process context, for mm or task changes, never from interrupts).
 */
void *pmclog_scratch(void)
{
	return pmclog_scratch_bufs[smp_processor_id()];
}

int pmclog_scratch_init(void)
{
	unsigned int cpu;

	pmclog_scratch_bufs = kcalloc(nr_cpu_ids, sizeof(void *), GFP_KERNEL);
	if (!pmclog_scratch_bufs)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		pmclog_scratch_bufs[cpu] = kmalloc_node(PMCLOG_SCRATCH_SIZE,
							GFP_KERNEL,
							cpu_to_node(cpu));
		if (!pmclog_scratch_bufs[cpu]) {
			pmclog_scratch_free();
			return -ENOMEM;
		}
	}
	return 0;
}

void pmclog_scratch_free(void)
{
	unsigned int cpu;

	if (!pmclog_scratch_bufs)
		return;
	for_each_possible_cpu(cpu)
		kfree(pmclog_scratch_bufs[cpu]);
	kfree(pmclog_scratch_bufs);
	pmclog_scratch_bufs = NULL;
}

/* Hook calls that the kprobes missed since the module was loaded. */
unsigned long pmclog_hooks_missed(void)
{
	return pmclog_vma_missed() + pmclog_proc_missed();
}

/* Followed descendants of a process target (-d): at most half full. */
#define PMCLOG_KIDS_SLOTS	8192U

void pmclog_track_publish(struct pmclog_owner *o)
{
	mutex_lock(&pmclog_live_lock);
	list_add_tail_rcu(&o->live, &pmclog_live);
	mutex_unlock(&pmclog_live_lock);
	atomic_inc(&pmclog_nr_live);
}

/*
 * After this, no hook writes to @o's log any more, and what they queued
 * for it (pmclog_defer.c) is in it.  May sleep.
 */
void pmclog_track_unpublish(struct pmclog_owner *o)
{
	atomic_dec(&pmclog_nr_live);
	mutex_lock(&pmclog_live_lock);
	list_del_rcu(&o->live);
	mutex_unlock(&pmclog_live_lock);
	synchronize_rcu();
	pmclog_defer_flush();
}

int pmclog_track_alloc_kids(struct pmclog_owner *o)
{
	o->kids = __vmalloc(array_size(PMCLOG_KIDS_SLOTS, sizeof(*o->kids)),
			    PMCLOG_GFP_OPEN | __GFP_ZERO);
	return o->kids ? 0 : -ENOMEM;
}

/* At destroy, once unpublished. */
void pmclog_track_free_kids(struct pmclog_owner *o)
{
	unsigned int i;

	if (!o->kids)
		return;
	for (i = 0; i < PMCLOG_KIDS_SLOTS; i++)
		put_pid(o->kids[i]);
	vfree(o->kids);
	o->kids = NULL;
}

static unsigned int pmclog_kids_hash(const struct pid *pid)
{
	return hash_ptr(pid, ilog2(PMCLOG_KIDS_SLOTS));
}

static bool pmclog_kids_has(const struct pmclog_owner *o, const struct pid *pid)
{
	unsigned int i, h = pmclog_kids_hash(pid);

	for (i = 0; i < PMCLOG_KIDS_SLOTS; i++) {
		const struct pid *k = READ_ONCE(o->kids[(h + i) % PMCLOG_KIDS_SLOTS]);

		if (!k)
			return false;
		if (k == pid)
			return true;
	}
	return false;
}

/*
 * Follow @pid from now on.  Fork tracepoint (preemption off); concurrent
 * inserts race on the slot with cmpxchg.  Entries stay, pinned, until the
 * log is freed, so a pointer in the table never names another process.
 * False when the table is full: the caller tells the log.
 */
static bool pmclog_kids_add(struct pmclog_owner *o, struct pid *pid)
{
	unsigned int i, h = pmclog_kids_hash(pid);

	if (atomic_inc_return(&o->nkids) > PMCLOG_KIDS_SLOTS / 2) {
		atomic_dec(&o->nkids);
		return false;
	}
	get_pid(pid);
	for (i = 0; i < PMCLOG_KIDS_SLOTS; i++) {
		struct pid **slot = &o->kids[(h + i) % PMCLOG_KIDS_SLOTS];

		if (!cmpxchg(slot, NULL, pid))
			return true;
	}
	put_pid(pid);	/* not reached: the table is never more than half full */
	return false;
}

/*
 * Does @o want samples and records of task @t?  Any context, NMI included:
 * reads only, and compares struct pid pointers that cannot be reused while
 * the log holds them.
 */
bool pmclog_track_targets(const struct pmclog_owner *o, struct task_struct *t)
{
	struct pid *tgid;

	if (o->mode == PMCLOG_ATTACH_SYSTEM)
		return true;
	tgid = task_tgid(t);
	return tgid == o->target || (o->kids && pmclog_kids_has(o, tgid));
}

/*
 * @parent forked the process @child: tell the logs that follow @parent
 * (system-wide ones, and those with -d), and follow @child where -d.  A
 * child that a -d log cannot follow is flagged PMCLOG_HF_UNFOLLOWED in its
 * PROCFORK, so that the loss of its records is in the log.
 */
void pmclog_track_fork(struct task_struct *parent, struct task_struct *child,
		       const struct pmclog_procfork *rec)
{
	struct pmclog_owner *o;

	list_for_each_entry_rcu(o, &pmclog_live, live) {
		if (o->mode == PMCLOG_ATTACH_SYSTEM) {
			pmclog_log_write(&o->log, rec);
		} else if (o->kids && pmclog_track_targets(o, parent)) {
			struct pmclog_procfork r = *rec;

			if (!pmclog_kids_add(o, task_tgid(child)))
				r.header.flags |= PMCLOG_HF_UNFOLLOWED;
			pmclog_log_write(&o->log, &r);
		}
	}
}

/*
 * Does a running log target @t?  For a hook's early way out, before it
 * reads the clock or walks the vmas: in process mode most calls are other
 * processes'.  RCU read side.
 */
bool pmclog_track_wanted(struct task_struct *t)
{
	struct pmclog_owner *o;

	list_for_each_entry_rcu(o, &pmclog_live, live)
		if (pmclog_track_targets(o, t))
			return true;
	return false;
}

/* Write @rec to every running log that targets @t.  RCU read side. */
void pmclog_track_emit(struct task_struct *t, const void *rec)
{
	struct pmclog_owner *o;

	list_for_each_entry_rcu(o, &pmclog_live, live)
		if (pmclog_track_targets(o, t))
			pmclog_log_write(&o->log, rec);
}

/* Queue @d for every running log that targets @t.  RCU read side. */
void pmclog_track_emit_deferred(struct task_struct *t,
				const struct pmclog_deferred *d)
{
	struct pmclog_owner *o;

	list_for_each_entry_rcu(o, &pmclog_live, live)
		if (pmclog_track_targets(o, t))
			pmclog_defer_queue(o, d);
}

/*
 * Write @rec (about the kernel: it holds kernel addresses) to every running
 * log whose opener may see kernel addresses.  RCU read side.
 */
void pmclog_track_emit_all(const void *rec)
{
	struct pmclog_owner *o;

	list_for_each_entry_rcu(o, &pmclog_live, live)
		if (o->kernel_addrs)
			pmclog_log_write(&o->log, rec);
}
