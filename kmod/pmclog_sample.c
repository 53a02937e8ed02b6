// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU sample rings (hwpmc's per-CPU sample buffers, nsamples deep).
 *
 * A PMC interrupt stores the interrupted PC in its CPU's ring and asks for
 * a lazy irq_work, which runs at that CPU's next tick (at once when the
 * tick is stopped) and moves the ring into the owner's log as PCSAMPLE
 * records, as hwpmc's soft handler does.  A full ring counts a drop:
 * samples arriving faster than nsamples per tick are lost, counted, and
 * told in a DROPNOTIFY.
 */
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "pmclog.h"

/*
 * Take a sample of the interrupted context @regs for @pmc on this CPU.
 * Hardirq or NMI, interrupts off; handlers of one CPU may nest (an NMI in
 * the hrtimer), so a slot is reserved with a cmpxchg on the CPU-local head
 * before it is filled.  No locks, no allocation, bounded.
 */
void pmclog_sample_take(struct pmclog_pmc *pmc, struct pt_regs *regs)
{
	struct pmclog_owner *o = pmc->owner;
	struct pmclog_cpu *pc = o->cpus[smp_processor_id()];
	struct task_struct *t = current;
	struct pmclog_sample *s;
	unsigned long head;

	if (!pmclog_track_targets(o, t))
		return;
	local64_inc(&pc->samples);
	do {
		head = local_read(&pc->head);
		if (head - READ_ONCE(pc->tail) >= pc->nsamples) {
			local64_inc(&pc->dropped);
			return;
		}
	} while (local_cmpxchg(&pc->head, head, head + 1) != head);

	/*
	 * The drainer runs on this CPU with interrupts off, or after every
	 * producer stopped: it never sees a reserved slot half written.
	 */
	s = &pc->ring[head % pc->nsamples];
	s->tstamp = pmclog_clock();
	s->pc = instruction_pointer(regs);
	s->pid = task_tgid_nr(t);
	s->tid = task_pid_nr(t);
	s->pmcid = pmc->id;
	s->flags = user_mode(regs) ? PMCLOG_HF_USER : 0;
	irq_work_queue(&pc->drain_work);
}

/*
 * Records a drain writes per hold of the log's lock: a raw lock, taken
 * with interrupts off, that other CPUs' drains and hooks wait for.
 */
#define PMCLOG_DRAIN_BATCH	32

/*
 * Move @pc's ring into the log.  On @pc's CPU from its irq_work, or from
 * anywhere once every producer of @pc is stopped.
 */
static void pmclog_sample_drain(struct pmclog_cpu *pc)
{
	struct pmclog_owner *o = pc->owner;
	struct pmclog_log *log = &o->log;
	unsigned long head = local_read(&pc->head);
	unsigned long tail = pc->tail;
	u64 dropped = local64_read(&pc->dropped);
	struct pmclog_pcsample r;
	unsigned long flags;
	unsigned int n = 0;

	raw_spin_lock_irqsave(&log->lock, flags);
	if (dropped != pc->dropped_told) {
		pmclog_log_add_sample_drops(log, pc->cpu,
					    dropped - pc->dropped_told);
		pc->dropped_told = dropped;
	}
	for (; tail != head; tail++) {
		const struct pmclog_sample *s = &pc->ring[tail % pc->nsamples];

		if (++n % PMCLOG_DRAIN_BATCH == 0) {
			raw_spin_unlock_irqrestore(&log->lock, flags);
			raw_spin_lock_irqsave(&log->lock, flags);
		}

		pmclog_hdr_init(&r.header, PMCLOG_TYPE_PCSAMPLE, sizeof(r),
				pc->cpu, s->tstamp);
		r.header.flags = s->flags;
		r.header.pmcid = s->pmcid;
		r.pid = s->pid;
		r.tid = s->tid;
		/* Kernel addresses only for those who may read kallsyms. */
		r.pc = (s->flags & PMCLOG_HF_USER) || o->kernel_addrs ? s->pc : 0;
		pmclog_log_write_locked(log, &r);
	}
	raw_spin_unlock_irqrestore(&log->lock, flags);
	/* Producers may reuse the slots once they see the tail move. */
	smp_store_release(&pc->tail, tail);
	pmclog_log_kick(log);
}

static void pmclog_sample_drain_work(struct irq_work *w)
{
	pmclog_sample_drain(container_of(w, struct pmclog_cpu, drain_work));
}

/* Process context, at open. */
int pmclog_owner_alloc_cpus(struct pmclog_owner *o)
{
	unsigned int cpu;

	o->cpus = kcalloc(nr_cpu_ids, sizeof(*o->cpus), GFP_KERNEL);
	if (!o->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pmclog_cpu *pc;

		pc = kzalloc_node(struct_size(pc, ring, pmclog_nsamples),
				  GFP_KERNEL, cpu_to_node(cpu));
		if (!pc) {
			pmclog_owner_free_cpus(o);
			return -ENOMEM;
		}
		pc->owner = o;
		pc->cpu = cpu;
		pc->nsamples = pmclog_nsamples;
		local_set(&pc->head, 0);
		local64_set(&pc->samples, 0);
		local64_set(&pc->dropped, 0);
		pc->drain_work = IRQ_WORK_INIT_LAZY(pmclog_sample_drain_work);
		o->cpus[cpu] = pc;
	}
	return 0;
}

/* Process context; every producer has stopped. */
void pmclog_owner_free_cpus(struct pmclog_owner *o)
{
	unsigned int cpu;

	if (!o->cpus)
		return;
	for_each_possible_cpu(cpu) {
		if (o->cpus[cpu])
			irq_work_sync(&o->cpus[cpu]->drain_work);
		kfree(o->cpus[cpu]);
	}
	kfree(o->cpus);
	o->cpus = NULL;
}

/*
 * Drain every CPU's ring into the log and sum the counters.  Process
 * context; every producer has stopped.
 */
void pmclog_sample_flush_all(struct pmclog_owner *o, u64 *samples,
			     u64 *dropped)
{
	unsigned int cpu;

	*samples = 0;
	*dropped = 0;
	for_each_possible_cpu(cpu) {
		struct pmclog_cpu *pc = o->cpus[cpu];

		irq_work_sync(&pc->drain_work);
		pmclog_sample_drain(pc);
		*samples += local64_read(&pc->samples);
		*dropped += local64_read(&pc->dropped);
	}
}
