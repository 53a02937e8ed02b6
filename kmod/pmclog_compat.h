/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels pmclog builds on lives here, as a
 * small pmclog_* wrapper with a one-line reason; the other files call the
 * wrappers and carry no version checks.  Supported: 6.1 to 6.12.
 */
#ifndef _PMCLOG_COMPAT_H
#define _PMCLOG_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include <asm/apic.h>

/*
 * Features are detected, not inferred from LINUX_VERSION_CODE: a macro by
 * #ifdef, a function or a type by kmod/Kbuild (PMCLOG_HAVE_*), a symbol of
 * the running kernel at module init.  Versions in comments are upstream's.
 */

/*
 * Whether @t runs user code of its own, whose stack a sample may walk:
 * is_user_task() of 6.12, which also leaves out the user workers (io_uring,
 * vhost: PF_USER_WORKER, 6.4), which have a user mm but no user context
 * of their own; 6.1 has neither.
 */
static inline bool pmclog_is_user_task(struct task_struct *t)
{
#ifdef PF_USER_WORKER
	return t->mm && !(t->flags & (PF_KTHREAD | PF_USER_WORKER));
#else
	return t->mm && !(t->flags & PF_KTHREAD);
#endif
}

/* from_timer() became timer_container_of() in 6.16. */
#ifdef timer_container_of
#define pmclog_from_timer(var, t, field) timer_container_of(var, t, field)
#else
#define pmclog_from_timer(var, t, field) from_timer(var, t, field)
#endif

/*
 * Wait until no irq_work of the module's can still be inside the kernel's
 * irq_work_single(), which reads a work again after clearing its busy bit,
 * so after irq_work_sync() may have returned: before freeing memory that
 * holds irq_works.  Works that run in hard interrupt context run with
 * interrupts off, which synchronize_rcu() waits for; PREEMPT_RT runs the
 * others preemptibly in the CPU's irq_work thread, done with them only at
 * that thread's next voluntary sleep, which synchronize_rcu_tasks() waits
 * for (upstream's irq_work_sync() came to wait for this itself only in
 * 2026).  Process context; sleeps.
 */
static inline void pmclog_irq_work_quiesce(void)
{
	synchronize_rcu();
#if defined(CONFIG_PREEMPT_RT) && defined(CONFIG_TASKS_RCU)
	synchronize_rcu_tasks();
#endif
}

/* timer_shutdown_sync() is in 6.2 and in Debian's 6.1 (backported). */
static inline void pmclog_timer_shutdown_sync(struct timer_list *t)
{
	timer_shutdown_sync(t);
}

/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13. */
static inline void
pmclog_hrtimer_setup(struct hrtimer *t,
		     enum hrtimer_restart (*fn)(struct hrtimer *),
		     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef PMCLOG_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	/* Before 6.13 the callback is set after hrtimer_init(). */
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

/*
 * The local APIC.  apic_read()/apic_write() became static calls in 6.8,
 * whose keys are not exported to modules; the exported apic's methods are
 * what those calls go to, and what apic_read() itself called before.
 */
static inline u32 pmclog_apic_read(u32 reg)
{
	return apic->read(reg);
}

static inline void pmclog_apic_write(u32 reg, u32 val)
{
	apic->write(reg, val);
}

struct file;
struct inode;
struct kprobe;
struct kretprobe;
struct module;

/* An executable range of a module: [start, start + size). */
struct pmclog_text {
	unsigned long	start;
	unsigned long	size;
};

/* The module's core text and, until it is freed, its init text. */
void pmclog_compat_module_text(const struct module *mod,
			       struct pmclog_text *core,
			       struct pmclog_text *init);

/* Is @p in the module area (and so not the head of the module list)? */
bool pmclog_compat_in_module_space(const void *p);

/*
 * May the opener of @file see kernel addresses, by the rules of
 * /proc/kallsyms (kallsyms_show_value())?  At open, in the opener's task.
 */
bool pmclog_compat_kernel_addrs_visible(const struct file *file);

/* The ctime of @inode: any write to its contents changes it. */
struct timespec64 pmclog_compat_inode_ctime(const struct inode *inode);

/* Does the kernel have this function?  Module init only; may sleep. */
bool pmclog_compat_have_function(const char *name);

/*
 * The kernel's core text: [start, end) where it runs, start where it was
 * linked (they differ by the KASLR offset).
 */
struct pmclog_kernel_text {
	unsigned long	start;
	unsigned long	end;
	unsigned long	link_start;
};

int pmclog_compat_kernel_text(struct pmclog_kernel_text *kt);

/*
 * A function through which ranges of a process's address space are
 * unmapped, and where the range is among its arguments (0-based);
 * mm < 0 means the range is current->mm's.  It returns an int, negative
 * on failure, or, with ret_addr, an address or a negative errno.
 */
struct pmclog_unmap_hook {
	const char	*symbol;
	int		mm;		/* its argument's index; -1: current->mm */
	unsigned int	start, len;	/* the range's arguments' indices */
	bool		ret_addr;	/* returns the address, else 0 or -errno */
	bool		len_is_end;	/* the argument at len is the range's end */
};

#define PMCLOG_UNMAP_HOOKS_MAX	2

/*
 * Fill @hooks with this kernel's unmap paths, to follow with kretprobes,
 * and return how many; or name in *@tree_hook the function to kprobe
 * instead, whose second argument is a maple tree of the unmapped vmas
 * (see pmclog_compat.c), and return 0.  Module init only.
 */
unsigned int pmclog_compat_unmap_hooks(struct pmclog_unmap_hook *hooks,
				       const char **tree_hook);

/* mprotect_fixup()'s arguments that pmclog reads (0-based). */
struct pmclog_mprotect_args {
	unsigned int	vma, start, end, newflags;
};

extern const struct pmclog_mprotect_args pmclog_compat_mprotect;

/* Register, or fail saying which symbol of which kernel is missing. */
int pmclog_compat_register_kprobe(struct kprobe *kp);
int pmclog_compat_register_kprobes(struct kprobe **kps, unsigned int n);
int pmclog_compat_register_kretprobe(struct kretprobe *krp);

/* A tracepoint found by name (tracepoints are not exported to modules). */
struct pmclog_tracepoint {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
};

int pmclog_compat_register_tracepoints(struct pmclog_tracepoint *tps,
				       unsigned int n);
void pmclog_compat_unregister_tracepoints(struct pmclog_tracepoint *tps,
					  unsigned int n);

#endif /* _PMCLOG_COMPAT_H */
