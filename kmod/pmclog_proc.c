// SPDX-License-Identifier: GPL-2.0
/*
 * Process lifecycle: when PROCEXEC, PROCFORK and PROCEXIT records are
 * written (pmclog_record.c builds them).
 *
 *   fork of a new process   sched_process_fork tracepoint    -> PROCFORK
 *   exit of its last thread taskstats_exit() entry (kprobe)  -> PROCEXIT
 *   exec                    setup_new_exec() entry (kprobe)  -> PROCEXEC
 *
 * and the scheduler hook of the process-mode sources, which count only
 * while a target runs: cpu-clock starts and cancels each CPU's timer,
 * the PMU thaws and freezes its counters (sched_switch tracepoint).
 *
 * exec is taken at setup_new_exec() rather than at the sched_process_exec
 * tracepoint: there the old address space is already gone (its MAP_OUTs
 * are written) but the new image is not mapped yet, so PROCEXEC comes
 * before the MAP_INs of the new image, and a reader can forget the old
 * maps on PROCEXEC.  The tracepoint fires only after those MAP_INs.
 * PROCEXEC names the file, so it is written from process context
 * (pmclog_defer.c), with the time of setup_new_exec().
 *
 * exit is taken where do_exit() tells taskstats whether the group died:
 * group_dead is true in exactly one thread, the one that counted the
 * group's last live thread out.  sched_process_exit has no such argument
 * before 6.16, and threads exiting together all read signal->live as 0
 * there, which wrote PROCEXIT twice.  Kernels without taskstats fall back
 * to that tracepoint.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

/* setup_new_exec(struct linux_binprm *bprm), preemption off. */
static int pmclog_proc_exec_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct linux_binprm *bprm;
	struct pmclog_deferred d;

	if (!pmclog_track_active())
		return 0;
	bprm = (void *)regs_get_kernel_argument(regs, 0);
	d = (struct pmclog_deferred){
		.file	= bprm->file,
		.tstamp	= pmclog_clock(),
		.pid	= task_tgid_nr(current),
		.type	= PMCLOG_TYPE_PROCEXEC,
		.cpu	= raw_smp_processor_id(),
	};
	rcu_read_lock();
	pmclog_track_emit_deferred(current, &d);
	rcu_read_unlock();
	return 0;
}

static struct kprobe pmclog_proc_kp_exec = {
	.symbol_name	= "setup_new_exec",
	.pre_handler	= pmclog_proc_exec_pre,
};

static void pmclog_proc_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	struct pmclog_procfork r;

	if (!pmclog_track_active())
		return;
	if (child->tgid == parent->tgid)
		return;	/* a new thread, not a new process */
	pmclog_rec_procfork(&r, task_tgid_nr(parent), task_tgid_nr(child),
			    raw_smp_processor_id(), pmclog_clock());
	rcu_read_lock();
	pmclog_track_fork(parent, child, &r);
	rcu_read_unlock();
}

/* The thread @t, last of its group, is exiting: PROCEXIT. */
static void pmclog_proc_emit_exit(struct task_struct *t)
{
	struct pmclog_procexit r;
	struct signal_struct *sig = t->signal;

	pmclog_rec_procexit(&r, task_tgid_nr(t),
			    sig->flags & SIGNAL_GROUP_EXIT ?
			    sig->group_exit_code : t->exit_code,
			    raw_smp_processor_id(), pmclog_clock());
	rcu_read_lock();
	pmclog_track_emit(t, &r);
	rcu_read_unlock();
}

/* taskstats_exit(struct task_struct *tsk, int group_dead); exit_code is set. */
static int pmclog_proc_exit_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (pmclog_track_active() && (int)regs_get_kernel_argument(regs, 1))
		pmclog_proc_emit_exit((void *)regs_get_kernel_argument(regs, 0));
	return 0;
}

static struct kprobe pmclog_proc_kp_exit = {
	.symbol_name	= "taskstats_exit",
	.pre_handler	= pmclog_proc_exit_pre,
};

/* Without taskstats: may write PROCEXIT twice when threads exit together. */
static void pmclog_proc_exit_tp(void *data, struct task_struct *t)
{
	/* do_exit() counted this thread out of signal->live already. */
	if (pmclog_track_active() && !atomic_read(&t->signal->live))
		pmclog_proc_emit_exit(t);
}

/*
 * Registered with the other hooks for as long as the module is loaded,
 * not at each process-mode START and STOP: that flipped sched_switch's
 * static key each time, text_poke_bp() in __schedule() while the other
 * CPUs run it, and on 6.12-rt under TCG 90-churn ended in "Oops: int3" in
 * __schedule() (as the module's own key did, pmclog_track.c).  With no
 * log running it costs a call, a load and a branch per context switch.
 * The branch is still rewritten at insmod and rmmod: rarely, not never.
 */
static void pmclog_proc_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	if (!pmclog_track_active())
		return;
	pmclog_hrtimer_switch(prev, next);
	pmclog_x86_pmu_switch(prev, next);
}

/* sched_process_exit last: not registered where taskstats_exit() is. */
static struct pmclog_tracepoint pmclog_proc_tps[] = {
	{ .name = "sched_switch", .probe = pmclog_proc_switch },
	{ .name = "sched_process_fork", .probe = pmclog_proc_fork },
	{ .name = "sched_process_exit", .probe = pmclog_proc_exit_tp },
};

static struct kprobe *pmclog_proc_kprobes[2];
static unsigned int pmclog_proc_nr_kprobes, pmclog_proc_nr_tps;

int pmclog_proc_init(void)
{
	int ret;

	pmclog_proc_kprobes[pmclog_proc_nr_kprobes++] = &pmclog_proc_kp_exec;
	pmclog_proc_nr_tps = ARRAY_SIZE(pmclog_proc_tps);
	if (pmclog_compat_have_function(pmclog_proc_kp_exit.symbol_name)) {
		pmclog_proc_kprobes[pmclog_proc_nr_kprobes++] =
			&pmclog_proc_kp_exit;
		pmclog_proc_nr_tps--;	/* sched_process_exit is not needed */
	} else {
		pr_info("no taskstats_exit() in this kernel: PROCEXIT from sched_process_exit, twice when threads exit at once\n");
	}

	ret = pmclog_compat_register_kprobes(pmclog_proc_kprobes,
					     pmclog_proc_nr_kprobes);
	if (ret)
		return ret;
	ret = pmclog_compat_register_tracepoints(pmclog_proc_tps,
						 pmclog_proc_nr_tps);
	if (ret)
		unregister_kprobes(pmclog_proc_kprobes, pmclog_proc_nr_kprobes);
	return ret;
}

void pmclog_proc_exit_hooks(void)
{
	pmclog_compat_unregister_tracepoints(pmclog_proc_tps,
					     pmclog_proc_nr_tps);
	unregister_kprobes(pmclog_proc_kprobes, pmclog_proc_nr_kprobes);
}

/* Calls the kprobes missed since the module was loaded. */
unsigned long pmclog_proc_missed(void)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < pmclog_proc_nr_kprobes; i++)
		n += READ_ONCE(pmclog_proc_kprobes[i]->nmissed);
	return n;
}
