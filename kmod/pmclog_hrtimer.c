// SPDX-License-Identifier: GPL-2.0
/*
 * The cpu-clock source: one hrtimer per CPU that samples the context it
 * interrupts, for machines (and virtual machines) without a usable PMU.
 *
 * A CPU-hotplug instance per PMC starts each CPU's timer where it runs,
 * also on a CPU that comes online later, and cancels it on one that goes.
 *
 * The timers run in hard interrupt context (HRTIMER_MODE_*_HARD) so that
 * get_irq_regs() is the interrupted context on PREEMPT_RT too, where soft
 * timers run in a thread and have no interrupted registers.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

/*
 * Between 10 us and 1 s: faster swamps the machine, slower is not a
 * profile; and no faster than max_sample_rate (ERANGE, as for -F).
 */
#define PMCLOG_HRTIMER_MIN_NS	10000ULL
#define PMCLOG_HRTIMER_MAX_NS	NSEC_PER_SEC

struct pmclog_hrtimer {
	struct hrtimer		timer;
	struct pmclog_pmc	*pmc;
	u64			period_ns;
};

/* A cpu-clock PMC: its timers, and its instance of the hotplug state. */
struct pmclog_hrtimer_pmc {
	struct hlist_node			node;
	struct pmclog_hrtimer __percpu		*timers;
};

static enum cpuhp_state pmclog_hrtimer_hp_state;

static enum hrtimer_restart pmclog_hrtimer_fire(struct hrtimer *t)
{
	struct pmclog_hrtimer *ht = container_of(t, struct pmclog_hrtimer, timer);
	struct pt_regs *regs = get_irq_regs();

	if (regs)
		pmclog_sample_take(ht->pmc, regs);
	hrtimer_forward_now(t, ns_to_ktime(ht->period_ns));
	return HRTIMER_RESTART;
}

/*
 * Hotplug callbacks, on @cpu itself (AP states run there): when the PMC
 * starts, for each online CPU; later, as CPUs come and go.  A pinned timer
 * starts on the CPU that starts it.
 */
static int pmclog_hrtimer_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct pmclog_hrtimer_pmc *hp = hlist_entry(node, struct pmclog_hrtimer_pmc, node);
	struct pmclog_hrtimer *ht = per_cpu_ptr(hp->timers, cpu);

	hrtimer_start(&ht->timer, ns_to_ktime(ht->period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

/* Also when the PMC stops: hrtimer_cancel() waits for a running callback. */
static int pmclog_hrtimer_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct pmclog_hrtimer_pmc *hp = hlist_entry(node, struct pmclog_hrtimer_pmc, node);

	hrtimer_cancel(&per_cpu_ptr(hp->timers, cpu)->timer);
	return 0;
}

static int pmclog_hrtimer_alloc(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer_pmc *hp;
	u64 ns;
	int cpu;

	if (pmc->flags & PMCLOG_PMC_F_FREQ)
		ns = pmc->period ? div64_u64(NSEC_PER_SEC, pmc->period) : 0;
	else
		ns = pmc->period;
	if (ns < div_u64(NSEC_PER_SEC, pmclog_max_sample_rate))
		return -ERANGE;
	if (ns < PMCLOG_HRTIMER_MIN_NS || ns > PMCLOG_HRTIMER_MAX_NS)
		return -EINVAL;

	hp = kzalloc(sizeof(*hp), GFP_KERNEL);
	if (!hp)
		return -ENOMEM;
	hp->timers = alloc_percpu(struct pmclog_hrtimer);
	if (!hp->timers) {
		kfree(hp);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct pmclog_hrtimer *ht = per_cpu_ptr(hp->timers, cpu);

		pmclog_hrtimer_setup(&ht->timer, pmclog_hrtimer_fire,
				     CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL_PINNED_HARD);
		ht->pmc = pmc;
		ht->period_ns = ns;
	}
	pmc->priv = hp;
	return 0;
}

static void pmclog_hrtimer_free(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer_pmc *hp = pmc->priv;

	free_percpu(hp->timers);
	kfree(hp);
	pmc->priv = NULL;
}

static int pmclog_hrtimer_start(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer_pmc *hp = pmc->priv;

	return cpuhp_state_add_instance(pmclog_hrtimer_hp_state, &hp->node);
}

/* Cancels every CPU's timer; none runs when this returns. */
static void pmclog_hrtimer_stop(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer_pmc *hp = pmc->priv;

	cpuhp_state_remove_instance(pmclog_hrtimer_hp_state, &hp->node);
}

int pmclog_hrtimer_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "pmclog/hrtimer:online",
				      pmclog_hrtimer_cpu_online,
				      pmclog_hrtimer_cpu_offline);
	if (ret < 0)
		return ret;
	pmclog_hrtimer_hp_state = ret;
	return 0;
}

void pmclog_hrtimer_exit(void)
{
	cpuhp_remove_multi_state(pmclog_hrtimer_hp_state);
}

const struct pmclog_source_ops pmclog_hrtimer_ops = {
	.name	= "cpu-clock",
	.alloc	= pmclog_hrtimer_alloc,
	.free	= pmclog_hrtimer_free,
	.start	= pmclog_hrtimer_start,
	.stop	= pmclog_hrtimer_stop,
};
