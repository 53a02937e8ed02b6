// SPDX-License-Identifier: GPL-2.0
/*
 * Callchains (`pmclog record -g`): the stack of each sample of a PMC
 * allocated with PMCLOG_PMC_F_CALLCHAIN, taken in the PMC's interrupt
 * and written as a CALLCHAIN record just after its PCSAMPLE:
 *
 *   ALLOCATE                      -> pmclog_callchain_reserve() [frames]
 *   PMC interrupt (NMI, hrtimer)  -> pmclog_callchain_take()    [a slot]
 *   drain of the CPU's ring       -> pmclog_callchain_record()  -> CALLCHAIN
 *
 * A sample waits in its CPU's ring (pmclog_sample.c) until the drain; its
 * frames wait beside it, in a parallel array of CALLCHAIN records that
 * has one record per ring slot, each with room for the deepest PMC of the
 * log.  The interrupt fills the frames of the slot it reserved, the drain
 * the header; the record is then written as it lies.  The array is
 * allocated at ALLOCATE, before any producer runs, so the interrupt
 * allocates nothing.
 *
 * Kernel frames come from the kernel's own unwinder (ORC on Debian's
 * kernels) started on the interrupted registers, as
 * perf_callchain_kernel() does; user frames from the frame-pointer chain
 * that starts at the user registers (those of the interrupt, or those
 * saved at the entry into the kernel), read with copy_from_user_nofault(),
 * as perf_callchain_user() does.  Both are safe in NMI: perf calls them
 * there.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <asm/processor-flags.h>
#include <asm/unwind.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

/* Bytes of one slot's record: the fixed part and both parts' frames. */
static size_t pmclog_callchain_stride(unsigned int depth)
{
	return sizeof(struct pmclog_callchain) + 2 * depth * sizeof(u64);
}

static struct pmclog_callchain *pmclog_callchain_slot(struct pmclog_cpu *pc,
						      unsigned long slot)
{
	return (void *)((char *)pc->cc + slot * pc->owner->cc_stride);
}

/*
 * Room for the frames of @depth for every slot of every CPU's ring of
 * @o.  ALLOCATE, owner's mutex held, no producer running: a deeper PMC
 * than the earlier ones replaces the arrays.  -ENOMEM when they cannot be
 * had (nsamples x 16 bytes x @depth per CPU), said by the recorder.
 */
int pmclog_callchain_reserve(struct pmclog_owner *o, unsigned int depth)
{
	size_t stride = pmclog_callchain_stride(depth), bytes;
	unsigned int cpu;

	lockdep_assert_held(&o->lock);
	if (depth <= o->cc_depth)
		return 0;
	/* kvmalloc() WARNs above INT_MAX: refuse it first. */
	if (check_mul_overflow((size_t)pmclog_nsamples, stride, &bytes) ||
	    bytes > INT_MAX)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pmclog_cpu *pc = o->cpus[cpu];
		void *cc;

		cc = kvzalloc_node(bytes, PMCLOG_GFP_OPEN | __GFP_NOWARN,
				   cpu_to_node(cpu));
		if (!cc)
			return -ENOMEM;	/* the older arrays stay, whole */
		kvfree(pc->cc);
		pc->cc = cc;
	}
	o->cc_depth = depth;
	o->cc_stride = stride;
	return 0;
}

/* @pc's array, at close; no producer runs. */
void pmclog_callchain_free(struct pmclog_cpu *pc)
{
	kvfree(pc->cc);
	pc->cc = NULL;
}

/*
 * The kernel frames of @regs, a kernel context of current, into @pc:
 * the interrupted PC, then return addresses.  As perf_callchain_kernel():
 * registers of a real interrupt (X86_EFLAGS_FIXED) start the unwinder at
 * them, which skips their own frame.  A frame the unwinder reached through
 * the registers of an interrupt or exception below it (entry regs) is the
 * PC the code was stopped at, not a return address: PMCLOG_CC_EXACT says
 * so, lest a reader name the function before it.
 */
static unsigned int pmclog_callchain_kernel(struct pt_regs *regs, u64 *pc,
					    unsigned int depth, u32 *flags)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;
	bool exact;

	pc[n++] = regs->ip;
	if (regs->flags & X86_EFLAGS_FIXED)
		unwind_start(&state, current, regs, NULL);
	else
		unwind_start(&state, current, NULL, (void *)regs->sp);
	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		exact = unwind_get_entry_regs(&state, NULL);
		if (n + exact >= depth) {
			*flags |= PMCLOG_CC_F_KERNEL_TRUNC;
			break;
		}
		if (exact)
			pc[n++] = PMCLOG_CC_EXACT;
		pc[n++] = addr;
	}
	return n;
}

/* A frame of the x86-64 frame-pointer chain: what rbp points at. */
struct pmclog_user_frame {
	u64	next;	/* the caller's rbp */
	u64	ret;	/* return address into the caller */
};

/*
 * The user frames of @regs, current's user registers, into @pc: its PC,
 * then the return addresses of the frame-pointer chain.  The walk ends at
 * a zero frame pointer or return address (the outermost frame), at a
 * frame it cannot read (PMCLOG_CC_F_USER_FAULT: not mapped, or not in
 * memory, since nothing may fault here), at a frame that is misaligned or
 * not above the last one (PMCLOG_CC_F_USER_BADFRAME: code without frame
 * pointers), or at @depth (PMCLOG_CC_F_USER_TRUNC).  32-bit code keeps its
 * PC alone.
 */
static unsigned int pmclog_callchain_user(struct pt_regs *regs, u64 *pc,
					  unsigned int depth, u32 *flags)
{
	struct pmclog_user_frame f;
	unsigned long fp = regs->bp, low = regs->sp;
	unsigned int n = 0;

	pc[n++] = regs->ip;
	if (!user_64bit_mode(regs))
		return n;
	while (fp) {
		if (fp & (sizeof(u64) - 1) || fp < low) {
			*flags |= PMCLOG_CC_F_USER_BADFRAME;
			break;
		}
		if (copy_from_user_nofault(&f, (const void __user *)fp, sizeof(f))) {
			*flags |= PMCLOG_CC_F_USER_FAULT;
			break;
		}
		if (!f.ret)
			break;
		if (n == depth) {
			*flags |= PMCLOG_CC_F_USER_TRUNC;
			break;
		}
		pc[n++] = f.ret;
		low = fp + sizeof(f);
		fp = f.next;
	}
	return n;
}

/*
 * The stack of the sample of @pmc in slot @slot of @pc's ring, for the
 * interrupted context @regs of current.  Hardirq or NMI, from
 * pmclog_sample_take() once the slot is reserved: no locks, no
 * allocation, at most 2 * the PMC's depth frames read.  A kernel sample
 * of a task with a user side (not a kernel thread) takes that side too,
 * from the registers its entry into the kernel saved.
 */
void pmclog_callchain_take(struct pmclog_cpu *pc, unsigned long slot,
			   const struct pmclog_pmc *pmc, struct pt_regs *regs)
{
	struct pmclog_callchain *r = pmclog_callchain_slot(pc, slot);
	struct task_struct *t = current;
	struct pt_regs *uregs = regs;
	unsigned int nk = 0, nu = 0;
	u32 flags = 0;

	if (!user_mode(regs)) {
		if (pmc->owner->kernel_addrs)
			nk = pmclog_callchain_kernel(regs, r->pc, pmc->cc_depth,
						     &flags);
		else
			flags |= PMCLOG_CC_F_KERNEL_HIDDEN;
		uregs = pmclog_is_user_task(t) ? task_pt_regs(t) : NULL;
	}
	if (uregs)
		nu = pmclog_callchain_user(uregs, r->pc + nk, pmc->cc_depth,
					   &flags);
	r->nkernel = nk;
	r->nuser = nu;
	r->flags = flags;
}

/*
 * The CALLCHAIN of the sample @s in slot @slot of @pc's ring, ready to be
 * written after its PCSAMPLE; NULL when its PMC takes no stacks.  The
 * drain, after every producer of the slot is done with it.
 */
const struct pmclog_callchain *
pmclog_callchain_record(struct pmclog_cpu *pc, unsigned long slot,
			const struct pmclog_sample *s)
{
	const struct pmclog_owner *o = pc->owner;
	struct pmclog_callchain *r;

	if (!s->pmcid || s->pmcid > o->npmcs ||
	    !(o->pmcs[s->pmcid - 1].flags & PMCLOG_PMC_F_CALLCHAIN) || !pc->cc)
		return NULL;
	r = pmclog_callchain_slot(pc, slot);
	pmclog_rec_callchain(r, s, pc->cpu);
	return r;
}
