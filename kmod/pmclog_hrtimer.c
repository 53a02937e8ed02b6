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
 *
 * System-wide, a CPU's timer runs from start to stop.  In process mode it
 * runs only while a target runs on that CPU, as perf's per-task cpu-clock
 * does: the scheduler hook starts it when a target is switched in and
 * cancels it when the last is switched out, keeping what was left of the
 * period for the next switch in.  So the period is the targets' time on
 * the CPU, and a CPU that is idle or runs other tasks takes no interrupt:
 * at 10 kHz under TCG the idle CPU's timer cost the target a third of
 * what sampling it did.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
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
	/*
	 * Process mode, written on this CPU with interrupts off (the hotplug
	 * callbacks, the scheduler hook): whether the CPU samples for the PMC
	 * (from its online callback to its offline one), and what was left
	 * of the period when the targets were last switched out.
	 */
	bool			armed;
	u64			left_ns;
};

/* A cpu-clock PMC: its timers, and its instance of the hotplug state. */
struct pmclog_hrtimer_pmc {
	struct hlist_node			node;
	struct list_head			switch_node;
	struct pmclog_hrtimer __percpu		*timers;
};

static enum cpuhp_state pmclog_hrtimer_hp_state;

/*
 * The started process-mode PMCs, which the scheduler hook walks: changed
 * under the mutex, read with interrupts off (an RCU read side).
 */
static LIST_HEAD(pmclog_hrtimer_process);
static DEFINE_MUTEX(pmclog_hrtimer_mutex);

static bool pmclog_hrtimer_is_process(const struct pmclog_pmc *pmc)
{
	return pmc->owner->mode == PMCLOG_ATTACH_PROCESS;
}

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

	if (!pmclog_hrtimer_is_process(ht->pmc)) {
		hrtimer_start(&ht->timer, ns_to_ktime(ht->period_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
		return 0;
	}
	/*
	 * What runs here is the CPU's hotplug thread, never a target: the
	 * next target switched in starts the timer.
	 */
	local_irq_disable();
	ht->left_ns = ht->period_ns;
	ht->armed = true;
	local_irq_enable();
	return 0;
}

/*
 * Also when the PMC stops.  Once the CPU is disarmed the scheduler hook
 * leaves its timer alone; hrtimer_cancel() waits for a running callback,
 * and then nothing of this PMC queues the CPU's drains again.
 */
static int pmclog_hrtimer_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct pmclog_hrtimer_pmc *hp = hlist_entry(node, struct pmclog_hrtimer_pmc, node);
	struct pmclog_hrtimer *ht = per_cpu_ptr(hp->timers, cpu);

	local_irq_disable();
	ht->armed = false;
	local_irq_enable();
	hrtimer_cancel(&ht->timer);
	pmclog_sample_cpu_offline(ht->pmc->owner, cpu);
	return 0;
}

/*
 * Process mode: from the scheduler hook (pmclog_proc.c), on the switching
 * CPU with interrupts off and its runqueue locked (where perf starts and
 * cancels its per-task timers too), so never beside this CPU's timer
 * callback.
 */
void pmclog_hrtimer_switch(struct task_struct *prev, struct task_struct *next)
{
	struct pmclog_hrtimer_pmc *hp;

	list_for_each_entry_rcu(hp, &pmclog_hrtimer_process, switch_node) {
		struct pmclog_hrtimer *ht = this_cpu_ptr(hp->timers);
		const struct pmclog_owner *o = ht->pmc->owner;
		bool out, in;
		s64 left;

		if (!ht->armed)
			continue;
		out = pmclog_track_targets(o, prev);
		in = pmclog_track_targets(o, next);
		if (in && !out) {
			hrtimer_start(&ht->timer, ns_to_ktime(ht->left_ns),
				      HRTIMER_MODE_REL_PINNED_HARD);
		} else if (out && !in) {
			/*
			 * An expiry that interrupts-off kept from running
			 * is due at once when a target comes back.
			 */
			left = ktime_to_ns(hrtimer_get_remaining(&ht->timer));
			hrtimer_try_to_cancel(&ht->timer);
			ht->left_ns = clamp_t(s64, left, 1, ht->period_ns);
		}
	}
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

	hp = kzalloc(sizeof(*hp), GFP_KERNEL_ACCOUNT);
	if (!hp)
		return -ENOMEM;
	hp->timers = alloc_percpu_gfp(struct pmclog_hrtimer, GFP_KERNEL_ACCOUNT);
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

/*
 * Off the scheduler hook's list, every CPU disarmed: when this returns no
 * call of the hook looks at @hp any more, and it may be freed.
 */
static void pmclog_hrtimer_stop_process(struct pmclog_hrtimer_pmc *hp)
{
	mutex_lock(&pmclog_hrtimer_mutex);
	list_del_rcu(&hp->switch_node);
	mutex_unlock(&pmclog_hrtimer_mutex);
	synchronize_rcu();
}

static int pmclog_hrtimer_start(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer_pmc *hp = pmc->priv;
	int ret;

	if (!pmclog_hrtimer_is_process(pmc))
		return cpuhp_state_add_instance(pmclog_hrtimer_hp_state,
						&hp->node);

	mutex_lock(&pmclog_hrtimer_mutex);
	list_add_rcu(&hp->switch_node, &pmclog_hrtimer_process);
	mutex_unlock(&pmclog_hrtimer_mutex);
	ret = cpuhp_state_add_instance(pmclog_hrtimer_hp_state, &hp->node);
	if (ret)
		pmclog_hrtimer_stop_process(hp);
	return ret;
}

/* Cancels every CPU's timer; none runs when this returns. */
static void pmclog_hrtimer_stop(struct pmclog_pmc *pmc)
{
	struct pmclog_hrtimer_pmc *hp = pmc->priv;

	cpuhp_state_remove_instance(pmclog_hrtimer_hp_state, &hp->node);
	if (pmclog_hrtimer_is_process(pmc))
		pmclog_hrtimer_stop_process(hp);
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
