// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU sample rings (hwpmc's per-CPU sample buffers, nsamples deep),
 * and when the records about sampling itself are written (pmclog_record.c
 * builds them):
 *
 *   PMC interrupt (NMI, hrtimer) -> pmclog_sample_take()     -> PCSAMPLE
 *                                   (-g: its stack, pmclog_callchain.c,
 *                                   -> CALLCHAIN after it)
 *   PMU throttle (NMI)           -> pmclog_sample_throttle()   -> THROTTLE
 *   PMU unthrottle (irqs off)    -> pmclog_sample_unthrottle() -> UNTHROTTLE
 *   PMC not started on a CPU     -> pmclog_sample_write_throttle()
 *
 * A PMC interrupt stores the interrupted PC in its CPU's ring and asks for
 * a lazy irq_work, which runs at that CPU's next tick (at once when the
 * tick is stopped) and moves the ring into the owner's log as PCSAMPLE
 * records, as hwpmc's soft handler does.  The log is never written from
 * the interrupt itself (it may be an NMI, and the log's lock is not
 * NMI-safe).
 *
 * When the ring holds drain_mark samples (the module parameter
 * drain_watermark, a percentage of nsamples: a quarter by default), the
 * interrupt raises a second irq_work instead, a hard one: it runs as soon
 * as the interrupt returns (a self-IPI, which the local APIC delivers
 * before the next timer interrupt), in hard interrupt context on
 * PREEMPT_RT too.  Not in RT's irq_work thread: that thread, at the
 * lowest real-time priority behind the threaded interrupt handlers, let a
 * ring of 8 drained from its first sample lose 1% at 20 kHz on 6.1-rt
 * under TCG, where the drain in the interrupt loses none.  So a ring
 * fills faster than the tick drains it without losing samples: what it
 * must hold is what arrives between the watermark and that drain, not a
 * whole tick's worth.  The defaults (512 slots, drained at once from 128)
 * take 20 kHz per CPU on the tick alone at HZ=250 (80 samples a tick) and
 * leave 384 slots of slack for a late tick.  drain_watermark=0 drains at
 * the tick only, as before (tests/vm/scenarios/40-drops.sh uses it to
 * make drops).
 *
 * Both works run on the ring's CPU, never one inside the other: a drain
 * keeps interrupts off from its first look at the ring to its last store
 * of the tail, in hard interrupt context (both works without PREEMPT_RT,
 * the watermark's with it) or in RT's irq_work thread (the tick's), which
 * the producers and the watermark's drain may interrupt only before or
 * after.  After STOP's pmclog_sample_flush_all() neither runs again:
 * every producer has stopped, so nothing queues them, and the flush waits
 * for both before it drains the last time and the log closes; the rings
 * are freed only after the same wait.
 *
 * A full ring counts a drop: samples arriving faster than the drains free
 * slots are lost, counted, and told in a DROPNOTIFY.  A throttle, which
 * cannot take the log's lock in NMI either, is counted in the same per-CPU
 * state and written by the same drain; it never takes a ring slot, so a
 * storm that fills the ring does not lose it.
 */
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

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
	if (pmc->flags & PMCLOG_PMC_F_CALLCHAIN)
		pmclog_callchain_take(pc, head % pc->nsamples, pmc, regs);
	/* Samples waiting, this one included (a nested one may follow). */
	if (pc->drain_mark && head + 1 - READ_ONCE(pc->tail) >= pc->drain_mark)
		irq_work_queue(&pc->drain_now);
	else
		irq_work_queue(&pc->drain_work);
}

static struct pmclog_throttle_state *
pmclog_throttle_state(struct pmclog_cpu *pc, const struct pmclog_pmc *pmc,
		      unsigned int reason)
{
	unsigned int r = reason - PMCLOG_THROTTLE_RATE;

	if (!pmc->id || pmc->id > PMCLOG_MAX_PMCS ||
	    r >= PMCLOG_THROTTLE_NMI_REASONS)
		return NULL;
	return &pc->throttle[pmc->id - 1][r];
}

/*
 * @pmc stopped sampling on this CPU at @tstamp for @reason
 * (PMCLOG_THROTTLE_RATE or _CPU_TIME).  NMI-safe: counted here, written
 * by the drain.
 */
void pmclog_sample_throttle(struct pmclog_pmc *pmc, unsigned int reason,
			    u64 tstamp)
{
	struct pmclog_cpu *pc = pmc->owner->cpus[smp_processor_id()];
	struct pmclog_throttle_state *t = pmclog_throttle_state(pc, pmc, reason);

	if (!t)
		return;
	WRITE_ONCE(t->throttle_ts, tstamp);
	barrier();	/* the drain reads the count, then the time */
	local_inc(&t->throttles);
	irq_work_queue(&pc->drain_work);
}

/* Its throttle ended after @stopped_ns.  On this CPU, interrupts off. */
void pmclog_sample_unthrottle(struct pmclog_pmc *pmc, unsigned int reason,
			      u64 tstamp, u64 stopped_ns)
{
	struct pmclog_cpu *pc = pmc->owner->cpus[smp_processor_id()];
	struct pmclog_throttle_state *t = pmclog_throttle_state(pc, pmc, reason);

	if (!t)
		return;
	local64_add(stopped_ns, &t->stopped_ns);
	WRITE_ONCE(t->unthrottle_ts, tstamp);
	barrier();
	local_inc(&t->unthrottles);
	irq_work_queue(&pc->drain_work);
}

static void pmclog_sample_put_throttle(struct pmclog_log *log,
				       unsigned int type, unsigned int cpu,
				       unsigned int pmcid, unsigned int reason,
				       unsigned long count, u64 tstamp,
				       u64 stopped_ns)
{
	struct pmclog_throttle r;

	if (type == PMCLOG_TYPE_THROTTLE)
		pmclog_rec_throttle(&r, pmcid, reason, count, cpu, tstamp);
	else
		pmclog_rec_unthrottle(&r, pmcid, reason, count, stopped_ns,
				      cpu, tstamp);
	pmclog_log_write_locked(log, &r);
}

/*
 * The throttles counted since the last drain, one record per type, PMC and
 * reason, in the order of their last change.  log->lock held.
 */
static void pmclog_sample_drain_throttles(struct pmclog_cpu *pc)
{
	struct pmclog_log *log = &pc->owner->log;
	unsigned int i, r;

	for (i = 0; i < PMCLOG_MAX_PMCS; i++) {
		for (r = 0; r < PMCLOG_THROTTLE_NMI_REASONS; r++) {
			struct pmclog_throttle_state *t = &pc->throttle[i][r];
			unsigned long nt, nu;
			u64 stopped, tts, uts;
			bool th_first;

			nt = local_read(&t->throttles) - t->throttles_told;
			nu = local_read(&t->unthrottles) - t->unthrottles_told;
			if (!nt && !nu)
				continue;
			barrier();
			tts = READ_ONCE(t->throttle_ts);
			uts = READ_ONCE(t->unthrottle_ts);
			stopped = local64_read(&t->stopped_ns);
			th_first = nt && (!nu || tts <= uts);
			if (th_first)
				pmclog_sample_put_throttle(log, PMCLOG_TYPE_THROTTLE,
							   pc->cpu, i + 1,
							   r + PMCLOG_THROTTLE_RATE,
							   nt, tts, 0);
			if (nu)
				pmclog_sample_put_throttle(log, PMCLOG_TYPE_UNTHROTTLE,
							   pc->cpu, i + 1,
							   r + PMCLOG_THROTTLE_RATE,
							   nu, uts,
							   stopped - t->stopped_told);
			if (nt && !th_first)
				pmclog_sample_put_throttle(log, PMCLOG_TYPE_THROTTLE,
							   pc->cpu, i + 1,
							   r + PMCLOG_THROTTLE_RATE,
							   nt, tts, 0);
			t->throttles_told += nt;
			t->unthrottles_told += nu;
			t->stopped_told = stopped;
		}
	}
}

/*
 * A THROTTLE or UNTHROTTLE (@type) of @pmc on @cpu written now, for the
 * PMCs that did not start on a CPU (PMCLOG_THROTTLE_BUSY, _ABSENT).
 * Process context.
 */
void pmclog_sample_write_throttle(struct pmclog_pmc *pmc, unsigned int type,
				  unsigned int cpu, unsigned int reason,
				  u64 tstamp, u64 stopped_ns)
{
	struct pmclog_log *log = &pmc->owner->log;
	unsigned long flags;

	raw_spin_lock_irqsave(&log->lock, flags);
	pmclog_sample_put_throttle(log, type, cpu, pmc->id, reason, 1, tstamp,
				   stopped_ns);
	raw_spin_unlock_irqrestore(&log->lock, flags);
	pmclog_log_kick(log);
}

/*
 * Records a drain writes per hold of the log's lock: a raw lock, taken
 * with interrupts off, that other CPUs' drains and hooks wait for (this
 * CPU's interrupts stay off between two holds).
 */
#define PMCLOG_DRAIN_BATCH	32

/*
 * PCSAMPLEs a drain builds on its stack and writes with one copy
 * (pmclog_log_write_run_locked()): 512 bytes.
 */
#define PMCLOG_DRAIN_RUN	16

/*
 * Write the first @n PCSAMPLEs of @run: together when the log takes them
 * as they are, else one by one (what does not fit is dropped and counted
 * by record, as it would have been).  log->lock held.
 */
static void pmclog_sample_put_run(struct pmclog_log *log,
				  const struct pmclog_pcsample *run,
				  unsigned int n)
{
	unsigned int i;

	if (!n || !pmclog_log_write_run_locked(log, run, n * sizeof(*run)))
		return;
	for (i = 0; i < n; i++)
		pmclog_log_write_locked(log, &run[i]);
}

/*
 * Move @pc's ring into the log.  On @pc's CPU from one of its two
 * irq_works, or from anywhere once every producer of @pc is stopped and
 * both works are synced.
 */
static void pmclog_sample_drain(struct pmclog_cpu *pc)
{
	struct pmclog_owner *o = pc->owner;
	struct pmclog_log *log = &o->log;
	struct pmclog_pcsample run[PMCLOG_DRAIN_RUN];
	const struct pmclog_callchain *cc;
	unsigned long head, tail;
	unsigned int n = 0, nrun = 0;
	unsigned long flags;
	u64 dropped;

	/*
	 * Interrupts off for the whole drain, not only under the lock: on
	 * PREEMPT_RT the tick's drain runs in a thread, and the watermark's
	 * (a hard interrupt) must not run in the middle of it.
	 */
	local_irq_save(flags);
	head = local_read(&pc->head);
	tail = pc->tail;
	dropped = local64_read(&pc->dropped);
	raw_spin_lock(&log->lock);
	if (dropped != pc->dropped_told) {
		pmclog_log_add_sample_drops(log, pc->cpu,
					    dropped - pc->dropped_told);
		pc->dropped_told = dropped;
	}
	for (; tail != head; tail++) {
		unsigned long slot = tail % pc->nsamples;
		const struct pmclog_sample *s = &pc->ring[slot];

		if (++n % PMCLOG_DRAIN_BATCH == 0) {
			pmclog_sample_put_run(log, run, nrun);
			nrun = 0;
			raw_spin_unlock(&log->lock);
			raw_spin_lock(&log->lock);
		}

		pmclog_rec_pcsample(&run[nrun], s, o->kernel_addrs, pc->cpu);
		/* Without a PMC of -g this CPU keeps no stacks: no call. */
		cc = pc->cc ? pmclog_callchain_record(pc, slot, s) : NULL;
		if (cc) {
			/* The samples before it, then it with its stack. */
			pmclog_sample_put_run(log, run, nrun);
			pmclog_log_write_pair_locked(log, &run[nrun], cc);
			nrun = 0;
		} else if (++nrun == PMCLOG_DRAIN_RUN) {
			pmclog_sample_put_run(log, run, nrun);
			nrun = 0;
		}
	}
	pmclog_sample_put_run(log, run, nrun);
	pmclog_sample_drain_throttles(pc);
	raw_spin_unlock(&log->lock);
	/* Producers may reuse the slots once they see the tail move. */
	smp_store_release(&pc->tail, tail);
	local_irq_restore(flags);
	pmclog_log_kick(log);
}

static void pmclog_sample_drain_work(struct irq_work *w)
{
	pmclog_sample_drain(container_of(w, struct pmclog_cpu, drain_work));
}

static void pmclog_sample_drain_now(struct irq_work *w)
{
	pmclog_sample_drain(container_of(w, struct pmclog_cpu, drain_now));
}

/* Neither of @pc's drains runs or is queued when this returns. */
static void pmclog_sample_sync(struct pmclog_cpu *pc)
{
	irq_work_sync(&pc->drain_work);
	irq_work_sync(&pc->drain_now);
}

/* Process context, at open. */
int pmclog_owner_alloc_cpus(struct pmclog_owner *o)
{
	unsigned int cpu;

	o->cpus = kcalloc(nr_cpu_ids, sizeof(*o->cpus), GFP_KERNEL_ACCOUNT);
	if (!o->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pmclog_cpu *pc;

		/* 17 KiB by default: no need for contiguous pages. */
		pc = kvzalloc_node(struct_size(pc, ring, pmclog_nsamples),
				   PMCLOG_GFP_OPEN, cpu_to_node(cpu));
		if (!pc) {
			pmclog_owner_free_cpus(o);
			return -ENOMEM;
		}
		pc->owner = o;
		pc->cpu = cpu;
		pc->nsamples = pmclog_nsamples;
		if (pmclog_drain_watermark)
			pc->drain_mark = max(1U, pmclog_nsamples *
					     pmclog_drain_watermark / 100);
		local_set(&pc->head, 0);
		local64_set(&pc->samples, 0);
		local64_set(&pc->dropped, 0);
		pc->drain_work = IRQ_WORK_INIT_LAZY(pmclog_sample_drain_work);
		pc->drain_now = IRQ_WORK_INIT_HARD(pmclog_sample_drain_now);
		o->cpus[cpu] = pc;
	}
	return 0;
}

/*
 * @cpu goes offline, and no source of @o produces there any more: nothing
 * of @o's stays queued on it.  On @cpu's hotplug thread, before the CPU
 * parks its threads (CPUHP_AP_ONLINE_DYN comes down before
 * CPUHP_AP_SMPBOOT_THREADS): PREEMPT_RT runs the lazy drain in the CPU's
 * irq_work thread, and a drain still queued when that thread parks would
 * keep STOP and close waiting in irq_work_sync() until the CPU is back.
 * What the ring holds, STOP's flush drains.  Sleeps.
 */
void pmclog_sample_cpu_offline(struct pmclog_owner *o, unsigned int cpu)
{
	if (o->cpus && o->cpus[cpu])
		pmclog_sample_sync(o->cpus[cpu]);
}

/* Process context; every producer has stopped. */
void pmclog_owner_free_cpus(struct pmclog_owner *o)
{
	unsigned int cpu;

	if (!o->cpus)
		return;
	for_each_possible_cpu(cpu)
		if (o->cpus[cpu])
			pmclog_sample_sync(o->cpus[cpu]);
	pmclog_irq_work_quiesce();
	for_each_possible_cpu(cpu) {
		if (o->cpus[cpu])
			pmclog_callchain_free(o->cpus[cpu]);
		kvfree(o->cpus[cpu]);
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

		pmclog_sample_sync(pc);
		pmclog_sample_drain(pc);
		*samples += local64_read(&pc->samples);
		*dropped += local64_read(&pc->dropped);
	}
}
