// SPDX-License-Identifier: GPL-2.0
/*
 * Executable mappings of processes: when MAP_IN and MAP_OUT records are
 * written (pmclog_record.c builds them).
 *
 *   new mapping, stack growth,
 *   mprotect adding PROT_EXEC     perf_event_mmap(vma)        -> MAP_IN
 *   mremap moving a mapping       copy_vma() returns          -> MAP_IN
 *   mremap growing one in place   vma_merge_extend() returns  -> MAP_IN
 *                                 (before 6.3: __vma_adjust())
 *   munmap, MAP_FIXED over it,    the unmap paths, at return;
 *   mremap's old range            6.1: unmap_region()         -> MAP_OUT
 *   mprotect removing PROT_EXEC   mprotect_fixup(), at return -> MAP_OUT
 *   exit, and exec's old image    exit_mmap() entry           -> MAP_OUT
 *
 * perf_event_mmap() is where perf learns of new mappings, for the same
 * reasons.  The handlers run as kprobes and kretprobes (preemption off,
 * mmap_lock held by the caller except in exit_mmap, where nobody else can
 * reach the mm).  A MAP_IN's path is resolved later, in process context
 * (pmclog_defer.c); a MAP_OUT is written only once the unmap or mprotect
 * has happened.  The kprobed symbols differ between kernels:
 * pmclog_compat.c chooses them.
 *
 * At START, every executable mapping already there is logged with
 * PMCLOG_MAP_F_INITIAL (pmclog_vma_log_initial()).
 */
#include <linux/compat.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/syscall.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

static bool pmclog_vma_is_exec(const struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_EXEC;
}

/*
 * Build the MAP_IN of @vma for pid @tgid in @buf (PMCLOG_SCRATCH_SIZE
 * bytes).  Process context for a file mapping: d_path() may sleep on
 * PREEMPT_RT.  An anonymous one is named without sleeping.
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
			  path, raw_smp_processor_id(), tstamp);
}

static void pmclog_vma_emit_out(struct task_struct *t, unsigned long start,
				unsigned long end, u64 tstamp)
{
	struct pmclog_map_out r;

	pmclog_rec_map_out(&r, task_tgid_nr(t), start, end,
			   raw_smp_processor_id(), tstamp);
	rcu_read_lock();
	pmclog_track_emit(t, &r);
	rcu_read_unlock();
}

/* Does a running log target the current process?  For a hook. */
static bool pmclog_vma_wanted(void)
{
	bool wanted;

	rcu_read_lock();
	wanted = pmclog_track_wanted(current);
	rcu_read_unlock();
	return wanted;
}

/*
 * A vma of the current process is new, grew, or changed protection.  A
 * hook: the MAP_IN of a file mapping is queued for its path
 * (pmclog_defer.c), that of an anonymous one written at once.
 */
static void pmclog_vma_changed(struct vm_area_struct *vma)
{
	struct task_struct *t = current;
	void *buf;

	if (!pmclog_vma_is_exec(vma) || vma->vm_mm != t->mm ||
	    !pmclog_vma_wanted())
		return;
	if (vma->vm_file) {
		struct pmclog_deferred d = {
			.file	= vma->vm_file,
			.tstamp	= pmclog_clock(),
			.start	= vma->vm_start,
			.end	= vma->vm_end,
			.offset	= (u64)vma->vm_pgoff << PAGE_SHIFT,
			.pid	= task_tgid_nr(t),
			.type	= PMCLOG_TYPE_MAP_IN,
			.cpu	= raw_smp_processor_id(),
		};

		rcu_read_lock();
		pmclog_track_emit_deferred(t, &d);
		rcu_read_unlock();
		return;
	}
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

/*
 * copy_vma() returns the vma of mremap's new range, vma_merge_extend() the
 * one it grew in place (or NULL).
 */
static int pmclog_vma_copy_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_return_value(regs);

	if (pmclog_track_active() && vma)
		pmclog_vma_changed(vma);
	return 0;
}

/*
 * Before 6.3, mremap grows a mapping in place through __vma_adjust(): by
 * vma_merge(mm, vma, old end, new end, ...), which expands the vma as the
 * predecessor of the extension (expand == vma), or, for a vma with a
 * close op, by vma_adjust(vma, vma->vm_start, new end, ...) (expand ==
 * NULL).  Every other change of a vma calls __vma_adjust() too, so the
 * call must be mremap's own: the task is in mremap(2), nothing is
 * inserted, the vma keeps its start, and it ends where the old range
 * ended and grows to where the new one ends (or past, when the
 * extension also joins the next vma).  A move merging at its new place
 * ends elsewhere, and copy_vma() logs it.  64-bit tasks only: a 32-bit
 * task's growth is not seen.  The vma is kept at entry (mremap holds
 * mmap_lock for writing) and gets its MAP_IN at return, if that is 0.
 * 6.3 and 6.4 grow through vma_merge() with no such trace: not tracked.
 */
struct pmclog_vma_adjust_args {
	struct vm_area_struct *vma;
};

static bool pmclog_vma_in_mremap_growth(const struct vm_area_struct *vma,
					unsigned long end)
{
	struct pt_regs *uregs = task_pt_regs(current);
	unsigned long arg[6];

	if (in_compat_syscall() ||
	    syscall_get_nr(current, uregs) != __NR_mremap)
		return false;
	syscall_get_arguments(current, uregs, arg);
	/* mremap(addr, old_len, new_len, flags, new_addr) */
	return vma->vm_end == arg[0] + PAGE_ALIGN(arg[1]) &&
	       end >= arg[0] + PAGE_ALIGN(arg[2]);
}

static int pmclog_vma_adjust_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct pmclog_vma_adjust_args *a = (void *)ri->data;
	struct vm_area_struct *vma, *expand;
	unsigned long end;

	if (!pmclog_track_active())
		return 1;
	vma = (void *)regs_get_kernel_argument(regs, 0);
	end = regs_get_kernel_argument(regs, 2);
	expand = (void *)regs_get_kernel_argument(regs, 5);
	if (regs_get_kernel_argument(regs, 4) ||	/* insert */
	    (expand && expand != vma) ||
	    regs_get_kernel_argument(regs, 1) != vma->vm_start ||
	    end <= vma->vm_end || !pmclog_vma_is_exec(vma) ||
	    vma->vm_mm != current->mm ||
	    !pmclog_vma_in_mremap_growth(vma, end))
		return 1;
	a->vma = vma;
	return 0;
}

static int pmclog_vma_adjust_ret(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct pmclog_vma_adjust_args *a = (void *)ri->data;

	if ((int)regs_return_value(regs) == 0 && pmclog_track_active())
		pmclog_vma_changed(a->vma);
	return 0;
}

/*
 * Executable ranges leave a process through calls that may fail: munmap
 * (an unaligned range, ENOMEM splitting a vma), mprotect, 6.12's
 * mmap_region() over a MAP_FIXED range.  Each is a kretprobe (but 6.1's
 * unmaps: pmclog_vma_unmap_tree_pre(), further down).  At entry,
 * while the vmas still say which parts of the range are executable, those
 * parts are kept in the instance; at return they get a MAP_OUT if the call
 * succeeded, or, if it failed, each part that is no longer the same
 * executable mapping (a failed call may already have removed it).  The
 * MAP_OUT has the time of entry: from there to the change the caller
 * holds mmap_lock for writing, so no other change of the process's maps
 * comes between, while the unmap paths may drop the lock before returning.
 */
#define PMCLOG_VMA_OUT_PARTS	8

struct pmclog_vma_out {
	u64		tstamp;
	unsigned int	n;
	struct {
		unsigned long		start, end;
		const struct file	*file;	/* compared, not dereferenced */
	} part[PMCLOG_VMA_OUT_PARTS];
};

/*
 * Keep the executable parts of [start, end) of @mm in @out, and the time
 * if there are any (mmap_region() unmaps the range of every new mapping
 * first: mostly there are none).  The caller holds mmap_lock: no
 * find_vma(), which asserts it (a WARN on 6.12), but the vma iterator
 * under RCU.  Past PMCLOG_VMA_OUT_PARTS, the last part stretches over the
 * rest: a MAP_OUT over unmapped or non-executable addresses removes
 * nothing that a reader knows of.
 */
static bool pmclog_vma_out_collect(struct pmclog_vma_out *out,
				   struct mm_struct *mm, unsigned long start,
				   unsigned long end)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;

	out->n = 0;
	rcu_read_lock();
	for_each_vma_range(vmi, vma, end) {
		if (!pmclog_vma_is_exec(vma))
			continue;
		if (out->n == PMCLOG_VMA_OUT_PARTS) {
			out->part[out->n - 1].end = min(end, vma->vm_end);
			continue;
		}
		out->part[out->n].start = max(start, vma->vm_start);
		out->part[out->n].end = min(end, vma->vm_end);
		out->part[out->n].file = vma->vm_file;
		out->n++;
	}
	rcu_read_unlock();
	if (out->n)
		out->tstamp = pmclog_clock();
	return out->n;
}

/* Is [start, end) still (part of) the executable mapping of @file? */
static bool pmclog_vma_still_exec(struct mm_struct *mm, unsigned long start,
				  unsigned long end, const struct file *file)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;
	bool live;

	rcu_read_lock();
	vma = vma_next(&vmi);
	live = vma && vma->vm_start <= start && end <= vma->vm_end &&
	       pmclog_vma_is_exec(vma) && vma->vm_file == file;
	rcu_read_unlock();
	return live;
}

/*
 * At return.  After a failure the caller still holds mmap_lock (the
 * unmap paths drop it only on success), so @mm can be looked at.
 */
static void pmclog_vma_out_finish(const struct pmclog_vma_out *out,
				  bool done)
{
	struct task_struct *t = current;
	unsigned int i;

	if (!pmclog_track_active() || !t->mm)
		return;
	for (i = 0; i < out->n; i++) {
		if (!done && pmclog_vma_still_exec(t->mm, out->part[i].start,
						   out->part[i].end,
						   out->part[i].file))
			continue;
		pmclog_vma_emit_out(t, out->part[i].start, out->part[i].end,
				    out->tstamp);
	}
}

/*
 * Ranges of a process are unmapped through the functions that
 * pmclog_compat_unmap_hooks() names.
 */
static struct pmclog_unmap_hook pmclog_vma_unmap[PMCLOG_UNMAP_HOOKS_MAX];
static struct kretprobe pmclog_vma_krp_unmap[PMCLOG_UNMAP_HOOKS_MAX];
static unsigned int pmclog_vma_nr_unmap;

static const struct pmclog_unmap_hook *
pmclog_vma_unmap_hook(struct kretprobe_instance *ri)
{
	return &pmclog_vma_unmap[get_kretprobe(ri) - pmclog_vma_krp_unmap];
}

/* Entry: non-zero means no return handler for this call. */
static int pmclog_vma_unmap_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	const struct pmclog_unmap_hook *h = pmclog_vma_unmap_hook(ri);
	struct mm_struct *mm;
	unsigned long start, len;

	if (!pmclog_track_active())
		return 1;
	mm = h->mm < 0 ? current->mm :
			 (void *)regs_get_kernel_argument(regs, h->mm);
	start = regs_get_kernel_argument(regs, h->start);
	len = regs_get_kernel_argument(regs, h->len);
	len = h->len_is_end ? len - start : PAGE_ALIGN(len);
	if (!mm || mm != current->mm || !len || start + len <= start ||
	    !pmclog_vma_wanted())
		return 1;
	return !pmclog_vma_out_collect((void *)ri->data, mm, start,
				       start + len);
}

static int pmclog_vma_unmap_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	const struct pmclog_unmap_hook *h = pmclog_vma_unmap_hook(ri);
	unsigned long ret = regs_return_value(regs);
	bool done = h->ret_addr ? !IS_ERR_VALUE(ret) : (int)ret >= 0;

	pmclog_vma_out_finish((void *)ri->data, done);
	return 0;
}

/*
 * Where the kernel has one (6.1: pmclog_compat_unmap_hooks()), a plain
 * kprobe past the last point where the unmap can fail, on the tree of
 * the vmas it takes away: a MAP_OUT for each executable one.  The caller
 * holds mmap_lock (for writing, or downgraded to reading), so no other
 * change of the process's maps comes between.  The tree is a local of
 * the caller's, this task's, which frees it only after the call: nothing
 * changes it under the walk.  Its lock is mmap_lock, held; the RCU read
 * side is for the slot reads' rcu_dereference_check() alone.
 */
static void pmclog_vma_out_tree(struct task_struct *t, struct maple_tree *mt)
{
	MA_STATE(mas, mt, 0, 0);
	struct vm_area_struct *vma;
	u64 now = 0;

	rcu_read_lock();
	mas_for_each(&mas, vma, ULONG_MAX) {
		if (!pmclog_vma_is_exec(vma) || vma->vm_mm != t->mm)
			continue;
		if (!now) {
			if (!pmclog_track_wanted(t))
				break;
			now = pmclog_clock();
		}
		pmclog_vma_emit_out(t, vma->vm_start, vma->vm_end, now);
	}
	rcu_read_unlock();
}

/* unmap_region(mm, mt, vma, prev, next, start, end) */
static int pmclog_vma_unmap_tree_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct maple_tree *mt;

	if (!pmclog_track_active() || !t->mm ||
	    (void *)regs_get_kernel_argument(regs, 0) != t->mm)
		return 0;
	/* 6.1's mmap_region(), failing, passes the mm's own tree. */
	mt = (void *)regs_get_kernel_argument(regs, 1);
	if (mt != &t->mm->mm_mt)
		pmclog_vma_out_tree(t, mt);
	return 0;
}

/* mprotect_fixup(..., vma, ..., start, end, newflags), see pmclog_compat.c. */
static int pmclog_vma_mprotect_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	const struct pmclog_mprotect_args *a = &pmclog_compat_mprotect;
	struct pmclog_vma_out *out = (void *)ri->data;
	struct vm_area_struct *vma;
	unsigned long newflags;

	if (!pmclog_track_active())
		return 1;
	vma = (void *)regs_get_kernel_argument(regs, a->vma);
	newflags = regs_get_kernel_argument(regs, a->newflags);
	if (!pmclog_vma_is_exec(vma) || newflags & VM_EXEC ||
	    vma->vm_mm != current->mm || !pmclog_vma_wanted())
		return 1;
	out->tstamp = pmclog_clock();
	out->n = 1;
	out->part[0].start = regs_get_kernel_argument(regs, a->start);
	out->part[0].end = regs_get_kernel_argument(regs, a->end);
	out->part[0].file = vma->vm_file;
	return 0;
}

static int pmclog_vma_mprotect_ret(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	pmclog_vma_out_finish((void *)ri->data,
			      (int)regs_return_value(regs) == 0);
	return 0;
}

/*
 * exit_mmap(mm): the last user dropped @mm.  Only when that is the process
 * exiting, or exec'ing a new image, is @mm known to be the current
 * process's; an mm put late by someone else (a /proc reader, say) needs no
 * MAP_OUT, as PROCEXIT and PROCEXEC already end its maps.  Nobody else can
 * reach @mm here, and exit_mmap() cannot fail: MAP_OUT at entry.
 */
static void pmclog_vma_exit_out(struct task_struct *t, struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	u64 now = pmclog_clock();

	rcu_read_lock();
	for_each_vma(vmi, vma)
		if (pmclog_vma_is_exec(vma))
			pmclog_vma_emit_out(t, vma->vm_start, vma->vm_end,
					    now);
	rcu_read_unlock();
}

static int pmclog_vma_exit_mmap_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct mm_struct *mm;

	if (!pmclog_track_active())
		return 0;
	mm = (void *)regs_get_kernel_argument(regs, 0);
	if (mm == t->mm || !(t->flags & PF_EXITING || t->in_execve))
		return 0;
	pmclog_vma_exit_out(t, mm);
	return 0;
}

static struct kprobe pmclog_vma_kp_mmap = {
	.symbol_name	= "perf_event_mmap",
	.pre_handler	= pmclog_vma_mmap_pre,
};

static struct kprobe pmclog_vma_kp_exit = {
	.symbol_name	= "exit_mmap",
	.pre_handler	= pmclog_vma_exit_mmap_pre,
};

static struct kretprobe pmclog_vma_krp_copy = {
	.kp.symbol_name	= "copy_vma",
	.handler	= pmclog_vma_copy_ret,
};

/*
 * vma_merge_extend() (6.5 on) returns the vma that mremap grew in place,
 * its only caller (before: pmclog_vma_krp_adjust).
 */
static struct kretprobe pmclog_vma_krp_extend = {
	.kp.symbol_name	= "vma_merge_extend",
	.handler	= pmclog_vma_copy_ret,
};

static struct kretprobe pmclog_vma_krp_adjust = {
	.kp.symbol_name	= "__vma_adjust",
	.entry_handler	= pmclog_vma_adjust_entry,
	.handler	= pmclog_vma_adjust_ret,
	.data_size	= sizeof(struct pmclog_vma_adjust_args),
};

static struct kretprobe pmclog_vma_krp_mprotect = {
	.kp.symbol_name	= "mprotect_fixup",
	.entry_handler	= pmclog_vma_mprotect_entry,
	.handler	= pmclog_vma_mprotect_ret,
	.data_size	= sizeof(struct pmclog_vma_out),
};

/* Its symbol is chosen at init; registered only where there is one. */
static struct kprobe pmclog_vma_kp_unmap_tree = {
	.pre_handler	= pmclog_vma_unmap_tree_pre,
};

/* perf_event_mmap, exit_mmap, the unmap tree hook if any: at init. */
static struct kprobe *pmclog_vma_kprobes[3];
static unsigned int pmclog_vma_nr_kprobes;

/*
 * copy_vma, mprotect_fixup, vma_merge_extend or __vma_adjust, the unmap
 * ones: at init.
 */
static struct kretprobe *pmclog_vma_kretprobes[3 + PMCLOG_UNMAP_HOOKS_MAX];
static unsigned int pmclog_vma_nr_kretprobes;

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
		if (vma->vm_file)
			pmclog_buildid_log_file(&o->log, vma->vm_file, buf, tgid,
						vma->vm_start,
						raw_smp_processor_id(), tstamp);
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

/*
 * Calls in flight that a kretprobe can follow at once; the munmap and
 * mprotect paths sleep, so many may wait at a time.  A call that finds
 * none free is missed (kretprobe.nmissed) and counted in the logs.
 */
static int pmclog_vma_maxactive(void)
{
	return max_t(int, 64, 4 * num_possible_cpus());
}

/* Module init: choose and register the hooks. */
int pmclog_vma_init(void)
{
	unsigned int i, n = 0;
	int ret;

	pmclog_vma_kretprobes[n++] = &pmclog_vma_krp_copy;
	pmclog_vma_kretprobes[n++] = &pmclog_vma_krp_mprotect;
	if (pmclog_compat_have_function(pmclog_vma_krp_extend.kp.symbol_name))
		pmclog_vma_kretprobes[n++] = &pmclog_vma_krp_extend;
	else if (pmclog_compat_have_function(pmclog_vma_krp_adjust.kp.symbol_name))
		pmclog_vma_kretprobes[n++] = &pmclog_vma_krp_adjust;
	pmclog_vma_nr_unmap =
		pmclog_compat_unmap_hooks(pmclog_vma_unmap,
					  &pmclog_vma_kp_unmap_tree.symbol_name);
	for (i = 0; i < pmclog_vma_nr_unmap; i++) {
		struct kretprobe *krp = &pmclog_vma_krp_unmap[i];

		krp->kp.symbol_name = pmclog_vma_unmap[i].symbol;
		krp->entry_handler = pmclog_vma_unmap_entry;
		krp->handler = pmclog_vma_unmap_ret;
		krp->data_size = sizeof(struct pmclog_vma_out);
		pmclog_vma_kretprobes[n++] = krp;
	}
	for (i = 0; i < n; i++)
		pmclog_vma_kretprobes[i]->maxactive = pmclog_vma_maxactive();

	pmclog_vma_nr_kprobes = 0;
	pmclog_vma_kprobes[pmclog_vma_nr_kprobes++] = &pmclog_vma_kp_mmap;
	pmclog_vma_kprobes[pmclog_vma_nr_kprobes++] = &pmclog_vma_kp_exit;
	if (pmclog_vma_kp_unmap_tree.symbol_name)
		pmclog_vma_kprobes[pmclog_vma_nr_kprobes++] =
			&pmclog_vma_kp_unmap_tree;
	ret = pmclog_compat_register_kprobes(pmclog_vma_kprobes,
					     pmclog_vma_nr_kprobes);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = pmclog_compat_register_kretprobe(pmclog_vma_kretprobes[i]);
		if (ret)
			goto err;
	}
	pmclog_vma_nr_kretprobes = n;
	return 0;

err:
	while (i--)
		unregister_kretprobe(pmclog_vma_kretprobes[i]);
	unregister_kprobes(pmclog_vma_kprobes, pmclog_vma_nr_kprobes);
	return ret;
}

void pmclog_vma_exit(void)
{
	unregister_kretprobes(pmclog_vma_kretprobes, pmclog_vma_nr_kretprobes);
	unregister_kprobes(pmclog_vma_kprobes, pmclog_vma_nr_kprobes);
}

/* Calls the hooks missed since the module was loaded. */
unsigned long pmclog_vma_missed(void)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < pmclog_vma_nr_kprobes; i++)
		n += READ_ONCE(pmclog_vma_kprobes[i]->nmissed);
	for (i = 0; i < pmclog_vma_nr_kretprobes; i++)
		n += READ_ONCE(pmclog_vma_kretprobes[i]->nmissed) +
		     READ_ONCE(pmclog_vma_kretprobes[i]->kp.nmissed);
	return n;
}
