// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 PMU source: hardware events on the counters of Intel
 * architectural perfmon and AMD (perfctr_core or K7), sampled through the
 * PMU overflow interrupt, delivered as an NMI by the local APIC's LVTPC.
 *
 * What to program and in which order is in pmclog_pmu_logic.c, shared with
 * the unit tests, which reaches the MSRs through pmclog_x86_msr.c and hands
 * samples and throttles to pmclog_sample.c; this file calls it and never
 * the other way round: detection, counter reservation, the per-CPU calls,
 * the NMI handler, CPU hotplug and process mode's switch function (called
 * by the scheduler hook of pmclog_proc.c).
 *
 * Sharing the PMU.  perf (and through it the NMI watchdog, KVM's virtual
 * PMUs) owns the PMU in practice.  The kernel's registry of PMU counters
 * (reserve_perfctr_nmi(), reserve_evntsel_nmi()) is what perf checks: it
 * reserves every GP counter when it creates its first hardware event and
 * fails with EBUSY when one is taken.  So pmclog reserves every GP counter
 * it programs, and while it holds a fixed counter it also holds one GP
 * reservation (the "guard"): perf cannot start a hardware event while
 * pmclog samples, and pmclog cannot take a counter while perf has events.
 * A counter whose enable bit someone set without the registry (a tool
 * writing /dev/cpu/N/msr) is left alone too.  perf does not otherwise know
 * about pmclog's counters: the registry is the whole agreement.  The
 * registry cannot be read without reserving (a perf user starting in that
 * moment would fail with EBUSY), so GET_PMU reports only what it refused
 * pmclog's last tries.
 *
 * Throttling.  The NMI handler stops a counter that goes over the
 * interrupt limits (pmclog_pmu_logic.c: max_sample_rate / HZ overflows,
 * cpu_time_max_percent of a tick) and queues a hard irq_work, which arms
 * that CPU's pinned hrtimer for the end of the tick: the timer restarts
 * it.  Hard, both, so that PREEMPT_RT runs them in interrupt context too;
 * an hrtimer cannot be armed from NMI.  The records go through the
 * owner's per-CPU sample state (pmclog_sample_throttle()).
 *
 * Locking.  pmclog_x86_pmu_mutex serialises allocation, start, stop and the
 * hotplug callbacks; it nests inside cpus_read_lock().  Per-CPU state is
 * only touched on its CPU, with interrupts off or in the NMI handler.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#include <asm/processor.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"
#include "pmclog_pmu_logic.h"

/* A PMC of this source: one counter slot, the same on every CPU. */
struct pmclog_x86_pmc {
	struct pmclog_pmc	*pmc;
	unsigned int		slot;
	struct pmclog_pmu_slot	init;		/* claim template */
	struct list_head	node;		/* on pmclog_x86_pmu_running */
	bool			guard;		/* holds a guard reference */
};

/*
 * What every CPU has, for allocation and GET_PMU; each CPU programs its
 * own counters with its own (pmclog_x86_pmu_cpu_caps), which on CPUs of
 * different kinds (Intel hybrid) has more.  Written at load and by the
 * online callback, under pmclog_x86_pmu_mutex.
 */
static struct pmclog_pmu_caps pmclog_x86_pmu_caps __read_mostly;
static bool pmclog_x86_pmu_hetero;
static const char *pmclog_x86_pmu_none_reason __read_mostly;
#define PMCLOG_WHY_NO_RW \
	"the PMU counters do not keep what is written (a virtual machine without a virtual PMU?)"
#define PMCLOG_WHY_MIXED "the CPUs have PMUs of different vendors"
static DEFINE_PER_CPU(struct pmclog_pmu_caps, pmclog_x86_pmu_cpu_caps);
static DEFINE_PER_CPU(const char *, pmclog_x86_pmu_cpu_why);
static DEFINE_PER_CPU(struct pmclog_pmu_cpu, pmclog_x86_pmu_pcpu);
static DEFINE_PER_CPU(u32, pmclog_x86_pmu_lvtpc);	/* LVTPC before our first slot */
static DEFINE_PER_CPU(bool, pmclog_x86_pmu_lvt_saved);

/* Per CPU: the timer that ends its throttles, and what arms it from NMI. */
struct pmclog_x86_pmu_unthrottler {
	struct hrtimer		timer;
	struct irq_work		arm;
	unsigned int		cpu;
};

static DEFINE_PER_CPU(struct pmclog_x86_pmu_unthrottler, pmclog_x86_pmu_unthr);
static bool pmclog_x86_pmu_unthr_ready;

/*
 * A running PMC that did not start on a CPU (its counter busy there, or
 * absent), per slot, and the THROTTLE / UNTHROTTLE that says so, left for
 * pmclog_x86_pmu_log_skips().  Written on the CPU with interrupts off by
 * (un)programming, read after it under the mutex in process context.
 */
struct pmclog_x86_pmu_skip {
	u8	reason;		/* PMCLOG_THROTTLE_BUSY, _ABSENT; 0: it started */
	u8	pending;	/* PMCLOG_TYPE_THROTTLE, _UNTHROTTLE, or 0 */
	u64	since;
	u64	at;		/* the pending record's time */
};

struct pmclog_x86_pmu_skips {
	struct pmclog_x86_pmu_skip	slot[PMCLOG_PMU_MAX_SLOTS];
};

static DEFINE_PER_CPU(struct pmclog_x86_pmu_skips, pmclog_x86_pmu_skips);
static u64 pmclog_x86_pmu_skipped;		/* since load; under mutex */

static DEFINE_MUTEX(pmclog_x86_pmu_mutex);
static u32 pmclog_x86_pmu_taken;		/* slots our PMCs hold; under mutex */
static u32 pmclog_x86_pmu_refused;		/* GP slots the registry refused; mutex */
static int pmclog_x86_pmu_guard_slot = -1;	/* under mutex */
static unsigned int pmclog_x86_pmu_guard_refs;
static LIST_HEAD(pmclog_x86_pmu_running);	/* started PMCs; under mutex */
/*
 * Process mode: the owner of each slot, whose targets (the process, and
 * its descendants with -d) the scheduler hook counts for.  Cleared at stop;
 * the owner is freed only after the RCU grace period that unpublishing it
 * waits for, which the preemption-off hook is inside of.
 */
static struct pmclog_owner *pmclog_x86_pmu_slot_owner[PMCLOG_PMU_MAX_SLOTS];

static int pmclog_x86_pmu_hp_state = -1;
static bool pmclog_x86_pmu_nmi_registered;

/* ---------------------------------------------------------------- */
/* Throttling: the unthrottle timer                                 */

/* Hard irq_work, on the CPU that throttled: arm its timer. */
static void pmclog_x86_pmu_arm_unthrottle(struct irq_work *w)
{
	struct pmclog_x86_pmu_unthrottler *u =
		container_of(w, struct pmclog_x86_pmu_unthrottler, arm);
	u64 next = pmclog_pmu_next_unthrottle(this_cpu_ptr(&pmclog_x86_pmu_pcpu));

	if (next)
		hrtimer_start(&u->timer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS_PINNED_HARD);
}

/* Hard interrupt context, on the timer's CPU (checked: see the offline). */
static enum hrtimer_restart pmclog_x86_pmu_unthrottle_timer(struct hrtimer *t)
{
	struct pmclog_x86_pmu_unthrottler *u =
		container_of(t, struct pmclog_x86_pmu_unthrottler, timer);
	u64 next;

	if (u->cpu != smp_processor_id())
		return HRTIMER_NORESTART;
	/* The timer's own clock: a restart is always in its future. */
	next = pmclog_pmu_unthrottle(this_cpu_ptr(&pmclog_x86_pmu_cpu_caps),
				     this_cpu_ptr(&pmclog_x86_pmu_pcpu),
				     ktime_get_ns());
	if (!next)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(t, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/* The limits every CPU's handler applies (struct pmclog_pmu_limits). */
static void pmclog_x86_pmu_unthrottle_init(void)
{
	struct pmclog_pmu_limits lim = {
		.tick_ns = TICK_NSEC,
		.max_per_tick = DIV_ROUND_UP(pmclog_max_sample_rate, HZ),
	};
	unsigned int cpu;

	if (pmclog_cpu_time_max_percent < 100)
		lim.max_ns_per_tick = div_u64((u64)TICK_NSEC *
					      pmclog_cpu_time_max_percent, 100);
	for_each_possible_cpu(cpu) {
		struct pmclog_x86_pmu_unthrottler *u = per_cpu_ptr(&pmclog_x86_pmu_unthr, cpu);

		per_cpu_ptr(&pmclog_x86_pmu_pcpu, cpu)->lim = lim;
		u->cpu = cpu;
		pmclog_hrtimer_setup(&u->timer, pmclog_x86_pmu_unthrottle_timer,
				     CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
		u->arm = IRQ_WORK_INIT_HARD(pmclog_x86_pmu_arm_unthrottle);
	}
	pmclog_x86_pmu_unthr_ready = true;
}

/* No slot of @cpu is active: nothing arms its timer again.  Process context. */
static void pmclog_x86_pmu_unthrottle_stop(unsigned int cpu)
{
	struct pmclog_x86_pmu_unthrottler *u = per_cpu_ptr(&pmclog_x86_pmu_unthr, cpu);

	irq_work_sync(&u->arm);
	hrtimer_cancel(&u->timer);
}

/* ---------------------------------------------------------------- */
/* Detection                                                        */

u16 pmclog_x86_pmu_kind(void)
{
	return pmclog_x86_pmu_caps.kind;
}

/* For the load message: what the module found, and why nothing if so. */
const char *pmclog_x86_pmu_describe(void)
{
	switch (pmclog_x86_pmu_caps.kind) {
	case PMCLOG_PMU_INTEL_ARCH:
		return "Intel architectural perfmon";
	case PMCLOG_PMU_AMD_CORE:
		if (pmclog_x86_pmu_caps.version >= 2)
			return "AMD core performance counters (PerfMonV2)";
		return "AMD core performance counters (perfctr_core)";
	case PMCLOG_PMU_AMD_K7:
		return "AMD legacy performance counters (K7)";
	default:
		return pmclog_x86_pmu_none_reason;
	}
}

/*
 * PMCLOG_CPU_VENDOR_*: whose PMU this CPU has, as INITIALIZE says too.
 * Zhaoxin's is Intel's architectural perfmon, Hygon's AMD's counters.
 */
u8 pmclog_x86_pmu_vendor(void)
{
	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
	case X86_VENDOR_ZHAOXIN:
		return PMCLOG_CPU_VENDOR_INTEL;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		return PMCLOG_CPU_VENDOR_AMD;
	default:
		return PMCLOG_CPU_VENDOR_UNKNOWN;
	}
}

/*
 * This CPU's identification, as pmclog_pmu_detect() wants it.  On the CPU
 * itself: on Intel hybrid parts leaves 0xA and 0x23 describe the counters
 * of the kind of CPU that executes CPUID.
 */
static void pmclog_x86_pmu_read_cpuid(struct pmclog_pmu_cpuid *id)
{
	const struct cpuinfo_x86 *c = &boot_cpu_data;
	u32 eax, ebx, ecx, edx;

	id->vendor = pmclog_x86_pmu_vendor();
	id->family = c->x86;
	id->hypervisor = boot_cpu_has(X86_FEATURE_HYPERVISOR);
	id->arch_perfmon = boot_cpu_has(X86_FEATURE_ARCH_PERFMON);
	if (id->vendor == PMCLOG_CPU_VENDOR_INTEL && c->cpuid_level >= 0xa)
		cpuid(0xa, &id->a_eax, &id->a_ebx, &id->a_ecx, &id->a_edx);
	/* Leaf 0x23 exists when CPUID.(7,1):EAX[8] says so (ARCH_PERFMON_EXT). */
	if (id->vendor == PMCLOG_CPU_VENDOR_INTEL &&
	    c->cpuid_level >= PMCLOG_CPUID_INTEL_PERFMON_EXT) {
		cpuid_count(7, 1, &eax, &ebx, &ecx, &edx);
		if (eax & BIT(8)) {
			cpuid_count(PMCLOG_CPUID_INTEL_PERFMON_EXT, 0,
				    &eax, &ebx, &ecx, &edx);
			id->ext_counters = eax & BIT(1);
		}
		if (id->ext_counters)
			cpuid_count(PMCLOG_CPUID_INTEL_PERFMON_EXT, 1,
				    &id->ext_gp_mask, &id->ext_fixed_mask,
				    &ecx, &edx);
	}
	id->pdcm = boot_cpu_has(X86_FEATURE_PDCM);
	/* 0 where the MSR faults, as every read of pmclog_x86_msr.c. */
	id->perf_capabilities = id->pdcm ?
		pmclog_x86_msr_read(PMCLOG_MSR_PERF_CAPABILITIES) : 0;
	id->perfctr_core = boot_cpu_has(X86_FEATURE_PERFCTR_CORE);
	id->perfmon_v2 = boot_cpu_has(X86_FEATURE_PERFMON_V2);
	if (id->perfmon_v2 && c->extended_cpuid_level >= PMCLOG_CPUID_AMD_PERFMON)
		id->ext_ebx = cpuid_ebx(PMCLOG_CPUID_AMD_PERFMON);
}

/*
 * This CPU's PMU, into its pmclog_x86_pmu_cpu_caps: detected through CPUID,
 * then checked to keep what is written to a free counter (under QEMU/TCG
 * every PMU MSR reads 0 and drops writes without faulting, and AMD's K7
 * block has no CPUID bit at all).  On the CPU, interrupts off.
 */
static void pmclog_x86_pmu_probe_local(void *unused)
{
	struct pmclog_pmu_caps *caps = this_cpu_ptr(&pmclog_x86_pmu_cpu_caps);
	struct pmclog_pmu_cpuid id = { };
	const char *why;

	pmclog_x86_pmu_read_cpuid(&id);
	why = pmclog_pmu_detect(&id, caps);
	if (!why && !pmclog_pmu_probe_rw(caps)) {
		caps->kind = PMCLOG_PMU_NONE;
		why = PMCLOG_WHY_NO_RW;
	}
	__this_cpu_write(pmclog_x86_pmu_cpu_why, why);
}

/*
 * What every online CPU has (pmclog_pmu_caps_merge()): the counters that
 * allocation uses.  One CPU without a usable PMU leaves none.  Module
 * init, cpus_read_lock() held.
 */
static void pmclog_x86_pmu_detect_all(void)
{
	bool first = true;
	unsigned int cpu;

	on_each_cpu(pmclog_x86_pmu_probe_local, NULL, 1);
	for_each_online_cpu(cpu) {
		const struct pmclog_pmu_caps *c = per_cpu_ptr(&pmclog_x86_pmu_cpu_caps, cpu);

		if (c->kind == PMCLOG_PMU_NONE) {
			pmclog_x86_pmu_caps = *c;
			pmclog_x86_pmu_none_reason = per_cpu(pmclog_x86_pmu_cpu_why, cpu);
			return;
		}
		if (first)
			pmclog_x86_pmu_caps = *c;
		else if (pmclog_pmu_caps_merge(&pmclog_x86_pmu_caps, c))
			pmclog_x86_pmu_hetero = true;
		first = false;
	}
	if (pmclog_x86_pmu_caps.kind == PMCLOG_PMU_NONE)
		pmclog_x86_pmu_none_reason = PMCLOG_WHY_MIXED;
}

/*
 * A CPU that comes online: probe it, and narrow what allocation uses to
 * what it has too, for the PMCs allocated from now on (those running
 * skip it where it lacks their counter).  On the CPU; mutex held.
 */
static void pmclog_x86_pmu_probe_online(void)
{
	struct pmclog_pmu_caps merged = pmclog_x86_pmu_caps;

	local_irq_disable();
	pmclog_x86_pmu_probe_local(NULL);
	local_irq_enable();
	if (this_cpu_ptr(&pmclog_x86_pmu_cpu_caps)->kind != merged.kind)
		return;
	if (pmclog_pmu_caps_merge(&merged, this_cpu_ptr(&pmclog_x86_pmu_cpu_caps))) {
		WRITE_ONCE(pmclog_x86_pmu_hetero, true);
		pmclog_x86_pmu_caps = merged;
	}
}

/* ---------------------------------------------------------------- */
/* Reservation                                                      */

/* Reserve GP @slot in the registry; remember a refusal for GET_PMU.  Mutex held. */
static bool pmclog_x86_pmu_reserve_gp(unsigned int slot)
{
	const struct pmclog_pmu_caps *caps = &pmclog_x86_pmu_caps;

	if (!reserve_perfctr_nmi(pmclog_pmu_ctr_msr(caps, slot)))
		goto refused;
	if (!reserve_evntsel_nmi(pmclog_pmu_ctl_msr(caps, slot))) {
		release_perfctr_nmi(pmclog_pmu_ctr_msr(caps, slot));
		goto refused;
	}
	pmclog_x86_pmu_refused &= ~(1U << slot);
	return true;
refused:
	pmclog_x86_pmu_refused |= 1U << slot;
	return false;
}

static void pmclog_x86_pmu_release_gp(unsigned int slot)
{
	const struct pmclog_pmu_caps *caps = &pmclog_x86_pmu_caps;

	release_evntsel_nmi(pmclog_pmu_ctl_msr(caps, slot));
	release_perfctr_nmi(pmclog_pmu_ctr_msr(caps, slot));
}

static void pmclog_x86_pmu_busy_local(void *arg)
{
	atomic_or(pmclog_pmu_busy(this_cpu_ptr(&pmclog_x86_pmu_cpu_caps)), arg);
}

/* Slots someone else enabled on any online CPU.  cpus_read_lock held. */
static u32 pmclog_x86_pmu_busy_all(void)
{
	atomic_t busy = ATOMIC_INIT(0);

	on_each_cpu(pmclog_x86_pmu_busy_local, &busy, 1);
	return (u32)atomic_read(&busy) & ~pmclog_x86_pmu_taken;
}

/* A GP reservation that keeps perf off the PMU while we use fixed counters. */
static int pmclog_x86_pmu_guard_get(u32 busy)
{
	unsigned int i;

	if (pmclog_x86_pmu_guard_refs) {
		pmclog_x86_pmu_guard_refs++;
		return 0;
	}
	for (i = 0; i < pmclog_x86_pmu_caps.ngp; i++) {
		if (busy & (1U << i) || pmclog_x86_pmu_taken & (1U << i))
			continue;
		if (pmclog_x86_pmu_reserve_gp(i)) {
			pmclog_x86_pmu_guard_slot = i;
			pmclog_x86_pmu_guard_refs = 1;
			return 0;
		}
	}
	return -EBUSY;
}

static void pmclog_x86_pmu_guard_put(void)
{
	if (--pmclog_x86_pmu_guard_refs)
		return;
	pmclog_x86_pmu_release_gp(pmclog_x86_pmu_guard_slot);
	pmclog_x86_pmu_guard_slot = -1;
}

/* ---------------------------------------------------------------- */
/* Per-CPU programming, on the CPU itself with interrupts off        */

static bool pmclog_x86_pmu_target_here(const struct pmclog_x86_pmc *x)
{
	struct pmclog_owner *o = READ_ONCE(pmclog_x86_pmu_slot_owner[x->slot]);

	return !o || pmclog_track_targets(o, current);
}

/*
 * Start @arg's counter on this CPU, or leave the CPU alone and say why:
 * it came online without that counter, or someone took the counter
 * behind the registry's back since ALLOCATE.
 */
static void pmclog_x86_pmu_program_local(void *arg)
{
	const struct pmclog_pmu_caps *caps = this_cpu_ptr(&pmclog_x86_pmu_cpu_caps);
	struct pmclog_pmu_cpu *pc = this_cpu_ptr(&pmclog_x86_pmu_pcpu);
	struct pmclog_x86_pmc *x = arg;
	struct pmclog_x86_pmu_skip *sk = &this_cpu_ptr(&pmclog_x86_pmu_skips)->slot[x->slot];
	u8 why = 0;

	if (caps->kind != pmclog_x86_pmu_caps.kind ||
	    !(pmclog_pmu_slots(caps) & (1U << x->slot)))
		why = PMCLOG_THROTTLE_ABSENT;
	else if (pmclog_pmu_busy(caps) & (1U << x->slot))
		why = PMCLOG_THROTTLE_BUSY;
	if (why) {
		sk->reason = why;
		sk->since = pmclog_clock();
		sk->at = sk->since;
		sk->pending = PMCLOG_TYPE_THROTTLE;
		return;
	}
	if (!__this_cpu_read(pmclog_x86_pmu_lvt_saved)) {
		__this_cpu_write(pmclog_x86_pmu_lvtpc, pmclog_apic_read(APIC_LVTPC));
		__this_cpu_write(pmclog_x86_pmu_lvt_saved, true);
		pmclog_apic_write(APIC_LVTPC, APIC_DM_NMI);
	}
	pmclog_pmu_claim(caps, pc, x->slot, &x->init,
			 pmclog_x86_pmu_target_here(x), pmclog_clock());
}

/*
 * The record that (un)programming @x on @cpu left, if any.  Process
 * context, mutex held, after the IPI or in @cpu's hotplug callback.
 */
static void pmclog_x86_pmu_log_skip(struct pmclog_x86_pmc *x, unsigned int cpu)
{
	struct pmclog_x86_pmu_skip *sk = &per_cpu_ptr(&pmclog_x86_pmu_skips, cpu)->slot[x->slot];

	lockdep_assert_held(&pmclog_x86_pmu_mutex);
	switch (sk->pending) {
	case PMCLOG_TYPE_THROTTLE:
		pmclog_sample_write_throttle(x->pmc, PMCLOG_TYPE_THROTTLE, cpu,
					     sk->reason, sk->at, 0);
		pmclog_x86_pmu_skipped++;
		break;
	case PMCLOG_TYPE_UNTHROTTLE:
		pmclog_sample_write_throttle(x->pmc, PMCLOG_TYPE_UNTHROTTLE, cpu,
					     sk->reason, sk->at,
					     sk->at - sk->since);
		sk->reason = 0;
		break;
	default:
		return;
	}
	sk->pending = 0;
}

/* As pmclog_x86_pmu_log_skip(), for every online CPU; cpus_read_lock() held. */
static void pmclog_x86_pmu_log_skips(struct pmclog_x86_pmc *x)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		pmclog_x86_pmu_log_skip(x, cpu);
}

static void pmclog_x86_pmu_unprogram_local(void *arg)
{
	struct pmclog_pmu_cpu *pc = this_cpu_ptr(&pmclog_x86_pmu_pcpu);
	struct pmclog_x86_pmc *x = arg;
	struct pmclog_x86_pmu_skip *sk = &this_cpu_ptr(&pmclog_x86_pmu_skips)->slot[x->slot];

	/* Never started here: its skip ends. */
	if (sk->reason) {
		sk->at = pmclog_clock();
		sk->pending = PMCLOG_TYPE_UNTHROTTLE;
		return;
	}
	pmclog_pmu_release(this_cpu_ptr(&pmclog_x86_pmu_cpu_caps), pc, x->slot,
			   pmclog_clock());
	if (!pc->active && __this_cpu_read(pmclog_x86_pmu_lvt_saved)) {
		pmclog_apic_write(APIC_LVTPC, __this_cpu_read(pmclog_x86_pmu_lvtpc));
		__this_cpu_write(pmclog_x86_pmu_lvt_saved, false);
	}
}

/*
 * NMI_LOCAL handler.  Every handler of the chain sees every PMU NMI, so
 * one that finds none of our counters overflowed passes it on (NMI_DONE);
 * the logic counts it as foreign.
 */
static int pmclog_x86_pmu_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct pmclog_pmu_cpu *pc = this_cpu_ptr(&pmclog_x86_pmu_pcpu);
	u64 start = pmclog_clock();
	u64 throttles = pc->throttles;
	int handled;

	/* Samples and throttles go from the logic to pmclog_sample.c. */
	handled = pmclog_pmu_handle_nmi(this_cpu_ptr(&pmclog_x86_pmu_cpu_caps), pc,
					start, regs);
	if (!handled)
		return NMI_DONE;
	/* A slot throttled: its CPU's timer restarts it (not armable in NMI). */
	if (pc->throttles != throttles)
		irq_work_queue(&this_cpu_ptr(&pmclog_x86_pmu_unthr)->arm);
	/* Some CPUs mask the LVT entry when they deliver a PMI. */
	if (pc->active)
		pmclog_apic_write(APIC_LVTPC, APIC_DM_NMI);
	/* As perf_sample_event_took(): the cost, for cpu_time_max_percent. */
	pmclog_pmu_nmi_took(pc, start, pmclog_clock());
	return handled;
}

/*
 * Process mode: from the scheduler hook (pmclog_proc.c); irqs off, the
 * runqueue locked.  Stop clears pc->active on every CPU by IPI, so once
 * it returns no call here reads a slot's owner.
 */
void pmclog_x86_pmu_switch(struct task_struct *prev, struct task_struct *next)
{
	struct pmclog_pmu_cpu *pc = this_cpu_ptr(&pmclog_x86_pmu_pcpu);
	u32 active = READ_ONCE(pc->active), out = 0, in = 0;
	unsigned int slot;
	u64 now;

	if (!active)
		return;
	for (slot = 0; slot < PMCLOG_PMU_MAX_SLOTS; slot++) {
		struct pmclog_owner *o = READ_ONCE(pmclog_x86_pmu_slot_owner[slot]);

		if (!(active & (1U << slot)) || !o)
			continue;
		if (pmclog_track_targets(o, prev))
			out |= 1U << slot;
		if (pmclog_track_targets(o, next))
			in |= 1U << slot;
	}
	if (!(out ^ in))
		return;
	now = pmclog_clock();
	pmclog_pmu_freeze(this_cpu_ptr(&pmclog_x86_pmu_cpu_caps), pc, out & ~in, now);
	pmclog_pmu_thaw(this_cpu_ptr(&pmclog_x86_pmu_cpu_caps), pc, in & ~out, now);
}

/* ---------------------------------------------------------------- */
/* The source                                                       */

/*
 * A counter for @pmc that every online CPU has (pmclog_x86_pmu_caps), reserved
 * in the kernel's registry; programmed on each CPU at start.
 */
static int pmclog_x86_pmu_alloc(struct pmclog_pmc *pmc)
{
	const struct pmclog_pmu_caps *caps = &pmclog_x86_pmu_caps;
	struct pmclog_pmu_enc enc;
	struct pmclog_x86_pmc *x;
	u64 period, max;
	u32 busy;
	int slot, ret;

	if (READ_ONCE(caps->kind) == PMCLOG_PMU_NONE)
		return -ENODEV;
	if (pmc->flags & PMCLOG_PMC_F_FREQ) {
		/*
		 * Start as if one event per nanosecond; the NMIs adapt it.
		 * ALLOCATE refused a rate above max_sample_rate (ERANGE).
		 */
		period = NSEC_PER_SEC / pmc->period;
	} else {
		period = pmc->period;
		if (period < PMCLOG_PMU_MIN_PERIOD)
			return -EINVAL;
	}
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;

	cpus_read_lock();
	mutex_lock(&pmclog_x86_pmu_mutex);
	/* Under the mutex: a CPU coming online may narrow the caps. */
	ret = pmclog_pmu_encode(caps, pmc->event, pmc->config, pmc->flags, &enc);
	if (ret)
		goto err_unlock;
	busy = pmclog_x86_pmu_busy_all() | pmclog_x86_pmu_taken;
	if (pmclog_x86_pmu_guard_slot >= 0)
		busy |= 1U << pmclog_x86_pmu_guard_slot;
	for (;;) {
		slot = pmclog_pmu_pick(caps, &enc, busy);
		if (slot < 0) {
			ret = -EBUSY;
			goto err_unlock;
		}
		if (PMCLOG_PMU_IS_FIXED(slot)) {
			if (!pmclog_x86_pmu_guard_get(busy)) {
				x->guard = true;
				break;
			}
		} else if (pmclog_x86_pmu_reserve_gp(slot)) {
			break;
		}
		busy |= 1U << slot;
	}
	max = pmclog_pmu_max_period(caps, slot);
	if (period > max) {
		if (!(pmc->flags & PMCLOG_PMC_F_FREQ)) {
			ret = -EINVAL;
			goto err_release;
		}
		period = max;
	}
	if (period < PMCLOG_PMU_MIN_PERIOD)
		period = PMCLOG_PMU_MIN_PERIOD;

	pmclog_x86_pmu_taken |= 1U << slot;
	mutex_unlock(&pmclog_x86_pmu_mutex);
	cpus_read_unlock();

	x->pmc = pmc;
	x->slot = slot;
	INIT_LIST_HEAD(&x->node);
	x->init.pmc = pmc;
	x->init.period = period;
	if (pmc->flags & PMCLOG_PMC_F_FREQ)
		x->init.target_ns = NSEC_PER_SEC / pmc->period;
	x->init.ctl = PMCLOG_PMU_IS_FIXED(slot) ? enc.fixed_field :
						  enc.evtsel | PMCLOG_EVSEL_EN;
	pmc->priv = x;
	return 0;

err_release:
	if (x->guard)
		pmclog_x86_pmu_guard_put();
	else
		pmclog_x86_pmu_release_gp(slot);
err_unlock:
	mutex_unlock(&pmclog_x86_pmu_mutex);
	cpus_read_unlock();
	kfree(x);
	return ret;
}

static void pmclog_x86_pmu_free(struct pmclog_pmc *pmc)
{
	struct pmclog_x86_pmc *x = pmc->priv;

	mutex_lock(&pmclog_x86_pmu_mutex);
	if (x->guard)
		pmclog_x86_pmu_guard_put();
	else
		pmclog_x86_pmu_release_gp(x->slot);
	pmclog_x86_pmu_taken &= ~(1U << x->slot);
	mutex_unlock(&pmclog_x86_pmu_mutex);
	kfree(x);
	pmc->priv = NULL;
}

static int pmclog_x86_pmu_start(struct pmclog_pmc *pmc)
{
	struct pmclog_x86_pmc *x = pmc->priv;
	struct pmclog_owner *o = pmc->owner;

	cpus_read_lock();
	mutex_lock(&pmclog_x86_pmu_mutex);
	WRITE_ONCE(pmclog_x86_pmu_slot_owner[x->slot],
		   o->mode == PMCLOG_ATTACH_PROCESS ? o : NULL);
	list_add(&x->node, &pmclog_x86_pmu_running);
	on_each_cpu(pmclog_x86_pmu_program_local, x, 1);
	pmclog_x86_pmu_log_skips(x);
	mutex_unlock(&pmclog_x86_pmu_mutex);
	cpus_read_unlock();
	return 0;
}

/* When this returns, no CPU counts for @pmc and no NMI will sample it. */
static void pmclog_x86_pmu_stop(struct pmclog_pmc *pmc)
{
	struct pmclog_x86_pmc *x = pmc->priv;

	cpus_read_lock();
	mutex_lock(&pmclog_x86_pmu_mutex);
	on_each_cpu(pmclog_x86_pmu_unprogram_local, x, 1);
	pmclog_x86_pmu_log_skips(x);
	list_del_init(&x->node);
	WRITE_ONCE(pmclog_x86_pmu_slot_owner[x->slot], NULL);
	mutex_unlock(&pmclog_x86_pmu_mutex);
	cpus_read_unlock();
}

const struct pmclog_source_ops pmclog_x86_pmu_ops = {
	.name	= "x86-pmu",
	.alloc	= pmclog_x86_pmu_alloc,
	.free	= pmclog_x86_pmu_free,
	.start	= pmclog_x86_pmu_start,
	.stop	= pmclog_x86_pmu_stop,
};

/* ---------------------------------------------------------------- */
/* CPU hotplug: program a CPU that comes online, restore one that goes */

static int pmclog_x86_pmu_cpu_online(unsigned int cpu)
{
	struct pmclog_x86_pmc *x;

	mutex_lock(&pmclog_x86_pmu_mutex);
	pmclog_x86_pmu_probe_online();
	list_for_each_entry(x, &pmclog_x86_pmu_running, node) {
		local_irq_disable();
		pmclog_x86_pmu_program_local(x);
		local_irq_enable();
		pmclog_x86_pmu_log_skip(x, cpu);
	}
	mutex_unlock(&pmclog_x86_pmu_mutex);
	return 0;
}

/*
 * On the CPU going down.  Its pinned timer would move to another CPU: it
 * is cancelled here, and one armed meanwhile finds itself elsewhere.
 */
static int pmclog_x86_pmu_cpu_offline(unsigned int cpu)
{
	struct pmclog_x86_pmc *x;

	mutex_lock(&pmclog_x86_pmu_mutex);
	list_for_each_entry(x, &pmclog_x86_pmu_running, node) {
		local_irq_disable();
		pmclog_x86_pmu_unprogram_local(x);
		local_irq_enable();
		pmclog_x86_pmu_log_skip(x, cpu);
	}
	pmclog_x86_pmu_unthrottle_stop(cpu);
	/* Neither an NMI nor an unthrottle queues a drain here any more. */
	list_for_each_entry(x, &pmclog_x86_pmu_running, node)
		pmclog_sample_cpu_offline(x->pmc->owner, cpu);
	mutex_unlock(&pmclog_x86_pmu_mutex);
	return 0;
}

/* ---------------------------------------------------------------- */
/* PMCLOG_IOC_GET_PMU                                               */

/* uapi numbering: GP counter i is bit i, fixed counter j bit 16 + j. */
static u32 pmclog_x86_pmu_slots_to_uapi(u32 slots)
{
	u32 gp = slots & ((1U << PMCLOG_PMU_MAX_GP) - 1);

	return gp | (slots >> PMCLOG_PMU_MAX_GP) << 16;
}

/* Process context. */
void pmclog_x86_pmu_info_fill(struct pmclog_pmu_info *info)
{
	const struct pmclog_pmu_caps *caps = &pmclog_x86_pmu_caps;
	unsigned int cpu;

	memset(info, 0, sizeof(*info));
	info->max_sample_rate = pmclog_max_sample_rate;
	info->cpu_time_max_percent = pmclog_cpu_time_max_percent;
	info->pmu = caps->kind;
	if (caps->kind == PMCLOG_PMU_NONE) {
		strscpy(info->reason, pmclog_x86_pmu_none_reason, sizeof(info->reason));
		return;
	}

	cpus_read_lock();
	mutex_lock(&pmclog_x86_pmu_mutex);
	info->version = caps->version;
	info->ngp = caps->ngp;
	info->nfixed = caps->nfixed;
	info->gp_width = caps->gp_width;
	info->fixed_width = caps->fixed_width;
	info->events = pmclog_pmu_events(caps);
	info->counters = pmclog_x86_pmu_slots_to_uapi(pmclog_pmu_slots(caps));
	if (pmclog_x86_pmu_hetero)
		info->flags |= PMCLOG_PMU_INFO_F_HETERO;
	info->busy = pmclog_x86_pmu_slots_to_uapi(pmclog_x86_pmu_busy_all());
	/* Not probed: reserving a free counter, even for a moment, could fail perf. */
	info->reserved = pmclog_x86_pmu_refused & ((1U << caps->ngp) - 1);
	info->taken = pmclog_x86_pmu_slots_to_uapi(pmclog_x86_pmu_taken);
	info->skipped = pmclog_x86_pmu_skipped;
	if (pmclog_x86_pmu_guard_slot >= 0)
		info->taken |= 1U << pmclog_x86_pmu_guard_slot;
	mutex_unlock(&pmclog_x86_pmu_mutex);
	for_each_possible_cpu(cpu) {
		const struct pmclog_pmu_cpu *pc = per_cpu_ptr(&pmclog_x86_pmu_pcpu, cpu);

		info->foreign_nmis += READ_ONCE(pc->foreign);
		info->overflows += READ_ONCE(pc->handled);
		info->throttles += READ_ONCE(pc->throttles);
	}
	cpus_read_unlock();
	if (info->reserved)
		strscpy(info->reason,
			"perf holds the PMU (the NMI watchdog or another perf user): sysctl kernel.nmi_watchdog=0 frees it",
			sizeof(info->reason));
}

/* ---------------------------------------------------------------- */
/* Load and unload                                                  */

/*
 * Every online CPU is probed on itself and the hotplug callbacks, which
 * probe the CPUs that come later, go in under the same cpus_read_lock():
 * no CPU is left unprobed in between.
 */
int pmclog_x86_pmu_init(void)
{
	int ret = 0;

	cpus_read_lock();
	pmclog_x86_pmu_detect_all();
	if (pmclog_x86_pmu_caps.kind == PMCLOG_PMU_NONE)
		goto out;
	if (pmclog_x86_pmu_hetero)
		pr_info("the CPUs' counters differ (hybrid): using the %u general-purpose and %u fixed counters every CPU has\n",
			pmclog_x86_pmu_caps.ngp, hweight32(pmclog_x86_pmu_caps.fixed_mask));
	pmclog_x86_pmu_unthrottle_init();
	ret = register_nmi_handler(NMI_LOCAL, pmclog_x86_pmu_nmi, 0, "pmclog");
	if (ret)
		goto out;
	pmclog_x86_pmu_nmi_registered = true;
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						   "pmclog/pmu:online",
						   pmclog_x86_pmu_cpu_online,
						   pmclog_x86_pmu_cpu_offline);
	if (ret < 0)
		goto err_nmi;
	pmclog_x86_pmu_hp_state = ret;
	ret = 0;
	goto out;

err_nmi:
	unregister_nmi_handler(NMI_LOCAL, "pmclog");
	pmclog_x86_pmu_nmi_registered = false;
out:
	cpus_read_unlock();
	return ret;
}

/* Every owner is gone (each open file pins the module): nothing runs. */
void pmclog_x86_pmu_exit(void)
{
	unsigned int cpu;

	if (pmclog_x86_pmu_hp_state >= 0)
		cpuhp_remove_state_nocalls(pmclog_x86_pmu_hp_state);
	if (pmclog_x86_pmu_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "pmclog");
	if (pmclog_x86_pmu_unthr_ready)
		for_each_possible_cpu(cpu)
			pmclog_x86_pmu_unthrottle_stop(cpu);
}
