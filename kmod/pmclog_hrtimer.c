// SPDX-License-Identifier: GPL-2.0
/*
 * The cpu-clock source: one hrtimer per CPU that samples the context it
 * interrupts, for machines (and virtual machines) without a usable PMU.
 *
 * The timers run in hard interrupt context (HRTIMER_MODE_*_HARD) so that
 * get_irq_regs() is the interrupted context on PREEMPT_RT too, where soft
 * timers run in a thread and have no interrupted registers.
 */
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>

#include "pmclog.h"
#include "pmclog_compat.h"

/* Between 10 us and 1 s: faster swamps the machine, slower is not a profile. */
#define PMCLOG_HRTIMER_MIN_NS	10000ULL
#define PMCLOG_HRTIMER_MAX_NS	NSEC_PER_SEC

struct pmclog_hrtimer {
	struct hrtimer		timer;
	struct pmclog_pmc	*pmc;
	u64			period_ns;
	bool			stopping;
};

static enum hrtimer_restart pmclog_hrtimer_fire(struct hrtimer *t)
{
	struct pmclog_hrtimer *ht = container_of(t, struct pmclog_hrtimer, timer);
	struct pt_regs *regs = get_irq_regs();

	if (READ_ONCE(ht->stopping))
		return HRTIMER_NORESTART;
	if (regs)
		pmclog_sample_take(ht->pmc, regs);
	hrtimer_forward_now(t, ns_to_ktime(ht->period_ns));
	return HRTIMER_RESTART;
}

static int pmclog_hrtimer_alloc(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer __percpu *timers;
	u64 ns;
	int cpu;

	if (pmc->flags & PMCLOG_PMC_F_FREQ)
		ns = pmc->period ? div64_u64(NSEC_PER_SEC, pmc->period) : 0;
	else
		ns = pmc->period;
	if (ns < PMCLOG_HRTIMER_MIN_NS || ns > PMCLOG_HRTIMER_MAX_NS)
		return -EINVAL;

	timers = alloc_percpu(struct pmclog_hrtimer);
	if (!timers)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pmclog_hrtimer *ht = per_cpu_ptr(timers, cpu);

		pmclog_hrtimer_setup(&ht->timer, pmclog_hrtimer_fire,
				     CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL_PINNED_HARD);
		ht->pmc = pmc;
		ht->period_ns = ns;
	}
	pmc->priv = (void __force *)timers;
	return 0;
}

static void pmclog_hrtimer_free(struct pmclog_pmc *pmc)
{
	free_percpu((struct pmclog_hrtimer __percpu __force *)pmc->priv);
	pmc->priv = NULL;
}

/* On each CPU, through on_each_cpu(): a pinned timer starts where it runs. */
static void pmclog_hrtimer_start_local(void *arg)
{
	struct pmclog_pmc *pmc = arg;
	struct pmclog_hrtimer *ht;

	ht = this_cpu_ptr((struct pmclog_hrtimer __percpu __force *)pmc->priv);
	WRITE_ONCE(ht->stopping, false);
	hrtimer_start(&ht->timer, ns_to_ktime(ht->period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int pmclog_hrtimer_start(struct pmclog_pmc *pmc)
{
	on_each_cpu(pmclog_hrtimer_start_local, pmc, 1);
	return 0;
}

static void pmclog_hrtimer_stop(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer __percpu *timers = (void __percpu __force *)pmc->priv;
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(timers, cpu)->stopping, true);
	/* Waits for a callback running on another CPU. */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(timers, cpu)->timer);
}

const struct pmclog_source_ops pmclog_hrtimer_ops = {
	.name	= "cpu-clock",
	.alloc	= pmclog_hrtimer_alloc,
	.free	= pmclog_hrtimer_free,
	.start	= pmclog_hrtimer_start,
	.stop	= pmclog_hrtimer_stop,
};
