// SPDX-License-Identifier: GPL-2.0
/*
 * Process lifecycle: PROCEXEC, PROCFORK and PROCEXIT records.
 *
 *   fork of a new process   sched_process_fork tracepoint    -> PROCFORK
 *   exit of its last thread sched_process_exit tracepoint    -> PROCEXIT
 *   exec                    setup_new_exec() entry (kprobe)  -> PROCEXEC
 *
 * exec is taken at setup_new_exec() rather than at the sched_process_exec
 * tracepoint: there the old address space is already gone (its MAP_OUTs
 * are written) but the new image is not mapped yet, so PROCEXEC comes
 * before the MAP_INs of the new image, and a reader can forget the old
 * maps on PROCEXEC.  The tracepoint fires only after those MAP_INs.
 */
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

#include "pmclog.h"
#include "pmclog_compat.h"

/* setup_new_exec(struct linux_binprm *bprm), preemption off. */
static int pmclog_proc_exec_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct linux_binprm *bprm;
	struct pmclog_procexec *r;
	const char *path;
	size_t len;

	if (!pmclog_track_active())
		return 0;
	bprm = (void *)regs_get_kernel_argument(regs, 0);
	r = pmclog_scratch();
	path = d_path(&bprm->file->f_path, r->path,
		      PMCLOG_SCRATCH_SIZE - sizeof(*r));
	if (IS_ERR(path))
		path = bprm->filename;
	len = pmclog_rec_put_str(r, sizeof(*r), path);
	pmclog_hdr_init(&r->header, PMCLOG_TYPE_PROCEXEC, len,
			smp_processor_id(), pmclog_clock());
	r->pid = task_tgid_nr(current);
	r->__reserved = 0;
	rcu_read_lock();
	pmclog_track_emit(current, r);
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
	pmclog_hdr_init(&r.header, PMCLOG_TYPE_PROCFORK, sizeof(r),
			raw_smp_processor_id(), pmclog_clock());
	r.ppid = task_tgid_nr(parent);
	r.pid = task_tgid_nr(child);
	rcu_read_lock();
	pmclog_track_fork(parent, child, &r);
	rcu_read_unlock();
}

static void pmclog_proc_exit(void *data, struct task_struct *t)
{
	struct pmclog_procexit r;
	struct signal_struct *sig = t->signal;

	if (!pmclog_track_active())
		return;
	/* do_exit() counted this thread out of signal->live already. */
	if (atomic_read(&sig->live))
		return;
	pmclog_hdr_init(&r.header, PMCLOG_TYPE_PROCEXIT, sizeof(r),
			raw_smp_processor_id(), pmclog_clock());
	r.pid = task_tgid_nr(t);
	r.status = sig->flags & SIGNAL_GROUP_EXIT ? sig->group_exit_code :
						    t->exit_code;
	rcu_read_lock();
	pmclog_track_emit(t, &r);
	rcu_read_unlock();
}

static struct pmclog_tracepoint pmclog_proc_tps[] = {
	{ .name = "sched_process_fork", .probe = pmclog_proc_fork },
	{ .name = "sched_process_exit", .probe = pmclog_proc_exit },
};

int pmclog_proc_init(void)
{
	int ret;

	ret = pmclog_compat_register_kprobe(&pmclog_proc_kp_exec);
	if (ret)
		return ret;
	ret = pmclog_compat_register_tracepoints(pmclog_proc_tps,
						 ARRAY_SIZE(pmclog_proc_tps));
	if (ret)
		unregister_kprobe(&pmclog_proc_kp_exec);
	return ret;
}

void pmclog_proc_exit_hooks(void)
{
	pmclog_compat_unregister_tracepoints(pmclog_proc_tps,
					     ARRAY_SIZE(pmclog_proc_tps));
	unregister_kprobe(&pmclog_proc_kp_exec);
}
