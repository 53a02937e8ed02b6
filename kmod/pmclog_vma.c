// SPDX-License-Identifier: GPL-2.0
/*
 * Executable mappings of processes: MAP_IN and MAP_OUT records.
 *
 *   new mapping, stack growth,
 *   mprotect adding PROT_EXEC     perf_event_mmap(vma)      -> MAP_IN
 *   mremap moving a mapping       copy_vma() returns        -> MAP_IN
 *   munmap, MAP_FIXED over it,
 *   mremap's old range            the unmap paths, at entry -> MAP_OUT
 *   mprotect removing PROT_EXEC   mprotect_fixup() entry    -> MAP_OUT
 *   exit, and exec's old image    exit_mmap() entry         -> MAP_OUT
 *
 * perf_event_mmap() is where perf learns of new mappings, for the same
 * reasons.  The handlers run as kprobes (preemption off, mmap_lock held by
 * the caller except in exit_mmap, where nobody else can reach the mm) and
 * build records in a per-CPU scratch buffer.  The kprobed symbols differ
 * between kernels: pmclog_compat.c chooses them.
 *
 * At START, every executable mapping already there is logged with
 * PMCLOG_MAP_F_INITIAL (pmclog_vma_log_initial()).
 */
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pmclog.h"
#include "pmclog_compat.h"

static bool pmclog_vma_is_exec(const struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_EXEC;
}

/*
 * Build the MAP_IN of @vma for pid @tgid in @buf (PMCLOG_SCRATCH_SIZE
 * bytes).  Does not sleep: d_path() only walks the dentries.
 */
static void pmclog_vma_map_in(void *buf, const struct vm_area_struct *vma,
			      u32 tgid, u32 flags, u64 tstamp)
{
	struct pmclog_map_in *r = buf;
	const char *path = NULL;

	if (vma->vm_file) {
		path = d_path(&vma->vm_file->f_path, r->path,
			      PMCLOG_SCRATCH_SIZE - sizeof(*r));
		if (IS_ERR(path))
			path = "[unreachable]";
	} else {
		flags |= PMCLOG_MAP_F_ANON;
		if (vma->vm_ops && vma->vm_ops->name)
			path = vma->vm_ops->name((struct vm_area_struct *)vma);
		if (!path)
			path = "[anon exec]";
	}
	pmclog_rec_map_in(r, tgid, flags, vma->vm_start, vma->vm_end,
			  vma->vm_file ? (u64)vma->vm_pgoff << PAGE_SHIFT : 0,
			  path, tstamp);
}

static void pmclog_vma_emit_out(struct task_struct *t, unsigned long start,
				unsigned long end)
{
	struct pmclog_map_out r;

	pmclog_rec_map_out(&r, task_tgid_nr(t), start, end);
	rcu_read_lock();
	pmclog_track_emit(t, &r);
	rcu_read_unlock();
}

/*
 * MAP_OUT for the executable parts of [start, end) of @mm.  The caller
 * holds mmap_lock, or is exit_mmap()'s, where nobody else can change @mm:
 * so no find_vma(), which asserts the lock (a WARN on 6.12), but the
 * vma iterator under RCU.
 */
static void pmclog_vma_emit_range_out(struct task_struct *t,
				      struct mm_struct *mm,
				      unsigned long start, unsigned long end)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;

	rcu_read_lock();
	for_each_vma_range(vmi, vma, end) {
		if (pmclog_vma_is_exec(vma))
			pmclog_vma_emit_out(t, max(start, vma->vm_start),
					    min(end, vma->vm_end));
	}
	rcu_read_unlock();
}

/* A vma of the current process is new, grew, or changed protection. */
static void pmclog_vma_changed(struct vm_area_struct *vma)
{
	struct task_struct *t = current;
	void *buf;

	if (!pmclog_vma_is_exec(vma) || vma->vm_mm != t->mm)
		return;
	buf = pmclog_scratch();

	pmclog_vma_map_in(buf, vma, task_tgid_nr(t), 0, pmclog_clock());
	rcu_read_lock();
	pmclog_track_emit(t, buf);
	rcu_read_unlock();
}

/* perf_event_mmap(struct vm_area_struct *vma) */
static int pmclog_vma_mmap_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (pmclog_track_active())
		pmclog_vma_changed((void *)regs_get_kernel_argument(regs, 0));
	return 0;
}

/* copy_vma() returns the vma of mremap's new range. */
static int pmclog_vma_copy_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_return_value(regs);

	if (pmclog_track_active() && vma)
		pmclog_vma_changed(vma);
	return 0;
}

/*
 * Ranges of a process are unmapped through the functions that
 * pmclog_compat_unmap_hooks() names: one kprobe on each, at entry, while
 * the vmas are still there to say which parts were executable.
 */
static struct pmclog_unmap_hook pmclog_vma_unmap[PMCLOG_UNMAP_HOOKS_MAX];
static struct kprobe pmclog_vma_kp_unmap[PMCLOG_UNMAP_HOOKS_MAX];
static unsigned int pmclog_vma_nr_unmap;

static int pmclog_vma_unmap_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct pmclog_unmap_hook *h;
	struct mm_struct *mm;
	unsigned long start, len;

	if (!pmclog_track_active())
		return 0;
	h = &pmclog_vma_unmap[p - pmclog_vma_kp_unmap];
	mm = h->mm < 0 ? current->mm :
			 (void *)regs_get_kernel_argument(regs, h->mm);
	start = regs_get_kernel_argument(regs, h->start);
	len = PAGE_ALIGN(regs_get_kernel_argument(regs, h->len));
	if (mm && mm == current->mm && len && start + len > start)
		pmclog_vma_emit_range_out(current, mm, start, start + len);
	return 0;
}

/* mprotect_fixup(..., vma, ..., start, end, newflags), see pmclog_compat.c. */
static int pmclog_vma_mprotect_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct pmclog_mprotect_args *a = &pmclog_compat_mprotect;
	struct vm_area_struct *vma;
	unsigned long newflags;

	if (!pmclog_track_active())
		return 0;
	vma = (void *)regs_get_kernel_argument(regs, a->vma);
	newflags = regs_get_kernel_argument(regs, a->newflags);
	if (pmclog_vma_is_exec(vma) && !(newflags & VM_EXEC) &&
	    vma->vm_mm == current->mm)
		pmclog_vma_emit_out(current,
				    regs_get_kernel_argument(regs, a->start),
				    regs_get_kernel_argument(regs, a->end));
	return 0;
}

/*
 * exit_mmap(mm): the last user dropped @mm.  Only when that is the process
 * exiting, or exec'ing a new image, is @mm known to be the current
 * process's; an mm put late by someone else (a /proc reader, say) needs no
 * MAP_OUT, as PROCEXIT and PROCEXEC already end its maps.
 */
static int pmclog_vma_exit_mmap_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct mm_struct *mm;

	if (!pmclog_track_active())
		return 0;
	mm = (void *)regs_get_kernel_argument(regs, 0);
	if (mm == t->mm || !(t->flags & PF_EXITING || t->in_execve))
		return 0;
	pmclog_vma_emit_range_out(t, mm, 0, TASK_SIZE_MAX);
	return 0;
}

static struct kprobe pmclog_vma_kp_mmap = {
	.symbol_name	= "perf_event_mmap",
	.pre_handler	= pmclog_vma_mmap_pre,
};

static struct kprobe pmclog_vma_kp_mprotect = {
	.symbol_name	= "mprotect_fixup",
	.pre_handler	= pmclog_vma_mprotect_pre,
};

static struct kprobe pmclog_vma_kp_exit = {
	.symbol_name	= "exit_mmap",
	.pre_handler	= pmclog_vma_exit_mmap_pre,
};

static struct kretprobe pmclog_vma_krp_copy = {
	.kp.symbol_name	= "copy_vma",
	.handler	= pmclog_vma_copy_ret,
	.maxactive	= 0,	/* default: enough for every CPU */
};

/* The fixed hooks, then the unmap ones: filled by pmclog_vma_init(). */
static struct kprobe *pmclog_vma_kprobes[3 + PMCLOG_UNMAP_HOOKS_MAX];
static unsigned int pmclog_vma_nr_kprobes;

/*
 * The address space of the process led by @leader: the leader's own, or,
 * once the leader has exited while other threads run (it has no mm any
 * more), that of any live thread.
 */
static struct mm_struct *pmclog_vma_get_mm(struct task_struct *leader)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;

	rcu_read_lock();
	for_each_thread(leader, t) {
		mm = get_task_mm(t);
		if (mm)
			break;
	}
	rcu_read_unlock();
	return mm;
}

/*
 * Process context, may sleep: at START, with the log just published.
 * -EINTR when the caller got a fatal signal while it waited for mmap_lock
 * (a writer may hold that for long: START must stay killable).
 */
static int pmclog_vma_log_task(struct pmclog_owner *o, struct task_struct *t,
			       void *buf, u64 tstamp)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	u32 tgid = task_tgid_nr(t);

	mm = pmclog_vma_get_mm(t);
	if (!mm)
		return 0;	/* a kernel thread, or exiting */
	if (mmap_read_lock_killable(mm)) {
		mmput(mm);
		return -EINTR;
	}
	for (vma = find_vma(mm, 0); vma; vma = find_vma(mm, vma->vm_end)) {
		if (!pmclog_vma_is_exec(vma))
			continue;
		pmclog_vma_map_in(buf, vma, tgid, PMCLOG_MAP_F_INITIAL, tstamp);
		pmclog_log_write(&o->log, buf);
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return 0;
}

/*
 * Log the executable mappings that the targets of @o already have, as
 * MAP_IN with PMCLOG_MAP_F_INITIAL and the time of START.  The hooks are
 * already writing to @o, so a change racing with this walk is logged too
 * (a MAP_IN may come twice; the second one changes nothing).
 */
int pmclog_vma_log_initial(struct pmclog_owner *o, u64 tstamp)
{
	struct task_struct *t;
	struct pid *pid;
	void *buf;
	int nr, ret = 0;

	buf = kmalloc(PMCLOG_SCRATCH_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (o->mode == PMCLOG_ATTACH_PROCESS) {
		t = get_pid_task(o->target, PIDTYPE_TGID);
		if (t) {
			ret = pmclog_vma_log_task(o, t, buf, tstamp);
			put_task_struct(t);
		}
		kfree(buf);
		return ret;
	}

	/* Every process, each at most once: pids only go up in this walk. */
	for (nr = 1; !ret; nr++) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid);
		t = pid_task(pid, PIDTYPE_TGID);
		if (t)
			get_task_struct(t);
		rcu_read_unlock();
		if (t) {
			ret = pmclog_vma_log_task(o, t, buf, tstamp);
			put_task_struct(t);
		}
		cond_resched();
	}
	kfree(buf);
	return ret;
}

/* Module init: choose and register the hooks. */
int pmclog_vma_init(void)
{
	unsigned int i, n = 0;
	int ret;

	pmclog_vma_kprobes[n++] = &pmclog_vma_kp_mmap;
	pmclog_vma_kprobes[n++] = &pmclog_vma_kp_mprotect;
	pmclog_vma_kprobes[n++] = &pmclog_vma_kp_exit;
	pmclog_vma_nr_unmap = pmclog_compat_unmap_hooks(pmclog_vma_unmap);
	for (i = 0; i < pmclog_vma_nr_unmap; i++) {
		pmclog_vma_kp_unmap[i].symbol_name = pmclog_vma_unmap[i].symbol;
		pmclog_vma_kp_unmap[i].pre_handler = pmclog_vma_unmap_pre;
		pmclog_vma_kprobes[n++] = &pmclog_vma_kp_unmap[i];
	}
	pmclog_vma_nr_kprobes = n;

	ret = pmclog_compat_register_kprobes(pmclog_vma_kprobes, n);
	if (ret)
		return ret;
	ret = pmclog_compat_register_kretprobe(&pmclog_vma_krp_copy);
	if (ret)
		unregister_kprobes(pmclog_vma_kprobes, n);
	return ret;
}

void pmclog_vma_exit(void)
{
	unregister_kretprobe(&pmclog_vma_krp_copy);
	unregister_kprobes(pmclog_vma_kprobes, pmclog_vma_nr_kprobes);
}
