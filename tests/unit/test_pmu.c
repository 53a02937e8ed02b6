// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 PMU logic of the module (kmod/pmclog_pmu_logic.c) against a
 * simulated PMU: an MSR model with counters that advance, wrap at their
 * width and raise overflows, Intel's GLOBAL_CTRL / GLOBAL_STATUS /
 * GLOBAL_OVF_CTRL for perfmon v2-v5, the AMD perfctr_core and K7 layouts,
 * where overflow is only the counter's sign, and AMD PerfMonV2 (Zen 4),
 * whose PerfCntrGlobalCtl gates every counter as Intel's GLOBAL_CTRL does
 * and which Linux leaves at 0 on a CPU where perf has no events.
 *
 * The model refuses what the hardware would fault on (an MSR the PMU does
 * not have, bits beyond a counter's width) and logs every write, so the
 * tests can check programming sequences, not only final states.  It
 * defines what the logic calls down to, under the module's names: the
 * MSR accessors of kmod/pmclog_x86_msr.c and the sample and throttle
 * entries of kmod/pmclog_sample.c, which it counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pmclog_pmu_logic.h"

#define SIM_LOG_MAX	256

struct sim_write {
	u32	msr;
	u64	val;
};

/* A throttle (stopped_ns ~0) or unthrottle the logic told the module of. */
struct sim_throttle {
	int		pmc;
	unsigned int	reason;
	u64		now;
	u64		stopped_ns;	/* ~0ULL: a throttle */
};

#define SIM_THROTTLES_MAX	16

static struct sim {
	struct pmclog_pmu_caps	caps;
	bool	tcg;		/* every MSR reads 0, writes are dropped */
	bool	amd_v2;		/* the hardware is a Zen 4, whatever was detected */
	u64	ctl[PMCLOG_PMU_MAX_GP];
	u64	ctr[PMCLOG_PMU_MAX_GP];
	u64	fctl;
	u64	fctr[PMCLOG_PMU_MAX_FIXED];
	u64	gctrl;
	u64	gstatus;
	u64	rate[PMCLOG_PMU_MAX_SLOTS];	/* events per tick, default 1 */
	int	pmis;		/* overflows with their interrupt enabled */
	unsigned int		nlog;
	struct sim_write	log[SIM_LOG_MAX];
	int	samples[4];	/* per pmc cookie */
	unsigned int		nthrottle;
	struct sim_throttle	throttle[SIM_THROTTLES_MAX];
} sim;

static int cookie[4] = { 0, 1, 2, 3 };

/* The interrupted context the NMI "handler" passes: the simulation itself. */
#define SIM_REGS	((struct pt_regs *)&sim)

static bool sim_intel(void)
{
	return sim.caps.kind == PMCLOG_PMU_INTEL_ARCH;
}

static bool sim_amd_v2(void)
{
	return sim.amd_v2;
}

static bool sim_global(void)
{
	return (sim_intel() && sim.caps.version >= 2) || sim_amd_v2();
}

/* Decode @msr into a GP (0..7) or fixed (8..11) counter, control or counter. */
static int sim_decode(u32 msr, bool *is_ctl, bool *fw)
{
	const struct pmclog_pmu_caps *c = &sim.caps;

	*fw = false;
	if (sim_intel()) {
		if (msr >= PMCLOG_MSR_P6_EVNTSEL0 && msr < PMCLOG_MSR_P6_EVNTSEL0 + (u32)c->ngp) {
			*is_ctl = true;
			return msr - PMCLOG_MSR_P6_EVNTSEL0;
		}
		if (msr >= PMCLOG_MSR_P6_PERFCTR0 && msr < PMCLOG_MSR_P6_PERFCTR0 + (u32)c->ngp) {
			*is_ctl = false;
			return msr - PMCLOG_MSR_P6_PERFCTR0;
		}
		if (c->full_width_write && msr >= PMCLOG_MSR_IA32_PMC0 &&
		    msr < PMCLOG_MSR_IA32_PMC0 + (u32)c->ngp) {
			*is_ctl = false;
			*fw = true;
			return msr - PMCLOG_MSR_IA32_PMC0;
		}
		if (c->version >= 2 && msr >= PMCLOG_MSR_FIXED_CTR0 &&
		    msr < PMCLOG_MSR_FIXED_CTR0 + PMCLOG_PMU_MAX_FIXED &&
		    (c->fixed_mask & (1U << (msr - PMCLOG_MSR_FIXED_CTR0)))) {
			*is_ctl = false;
			return PMCLOG_PMU_FIXED(msr - PMCLOG_MSR_FIXED_CTR0);
		}
		return -1;
	}
	if (c->kind == PMCLOG_PMU_AMD_CORE) {
		if (msr >= PMCLOG_MSR_F15H_PERF_CTL0 &&
		    msr < PMCLOG_MSR_F15H_PERF_CTL0 + 2 * c->ngp) {
			*is_ctl = !((msr - PMCLOG_MSR_F15H_PERF_CTL0) & 1);
			return (msr - PMCLOG_MSR_F15H_PERF_CTL0) / 2;
		}
		return -1;
	}
	if (msr >= PMCLOG_MSR_K7_EVNTSEL0 && msr < PMCLOG_MSR_K7_EVNTSEL0 + 4) {
		*is_ctl = true;
		return msr - PMCLOG_MSR_K7_EVNTSEL0;
	}
	if (msr >= PMCLOG_MSR_K7_PERFCTR0 && msr < PMCLOG_MSR_K7_PERFCTR0 + 4) {
		*is_ctl = false;
		return msr - PMCLOG_MSR_K7_PERFCTR0;
	}
	return -1;
}

u64 pmclog_x86_msr_read(u32 msr)
{
	bool is_ctl, fw;
	int i;

	if (sim.tcg)
		return 0;
	if (sim_intel() && sim_global() && msr == PMCLOG_MSR_GLOBAL_CTRL)
		return sim.gctrl;
	if (sim_intel() && sim_global() && msr == PMCLOG_MSR_GLOBAL_STATUS)
		return sim.gstatus;
	if (sim_amd_v2() && msr == PMCLOG_MSR_AMD_GLOBAL_CTL)
		return sim.gctrl;
	if (sim_amd_v2() && msr == PMCLOG_MSR_AMD_GLOBAL_STATUS)
		return sim.gstatus;
	if (sim_intel() && sim.caps.version >= 2 && msr == PMCLOG_MSR_FIXED_CTR_CTRL)
		return sim.fctl;
	i = sim_decode(msr, &is_ctl, &fw);
	if (i < 0 || fw)
		fail_msg("rdmsr of MSR %#x, which this PMU does not have", msr);
	if (PMCLOG_PMU_IS_FIXED(i))
		return sim.fctr[i - PMCLOG_PMU_MAX_GP];
	return is_ctl ? sim.ctl[i] : sim.ctr[i];
}

void pmclog_x86_msr_write(u32 msr, u64 val)
{
	bool is_ctl, fw;
	u64 mask;
	int i;

	if (sim.nlog < SIM_LOG_MAX)
		sim.log[sim.nlog++] = (struct sim_write){ msr, val };
	if (sim.tcg)
		return;
	if (sim_intel() && sim_global() && msr == PMCLOG_MSR_GLOBAL_CTRL) {
		sim.gctrl = val;
		return;
	}
	if (sim_intel() && sim_global() && msr == PMCLOG_MSR_GLOBAL_OVF_CTRL) {
		sim.gstatus &= ~val;
		return;
	}
	if (sim_amd_v2() && msr == PMCLOG_MSR_AMD_GLOBAL_CTL) {
		if (val & ~((1ULL << sim.caps.ngp) - 1))
			fail_msg("wrmsr PerfCntrGlobalCtl <- %#llx: no such counter (#GP)",
				 (unsigned long long)val);
		sim.gctrl = val;
		return;
	}
	if (sim_amd_v2() && msr == PMCLOG_MSR_AMD_GLOBAL_STATUS_CLR) {
		sim.gstatus &= ~val;
		return;
	}
	if (sim_amd_v2() && msr == PMCLOG_MSR_AMD_GLOBAL_STATUS_SET) {
		sim.gstatus |= val;
		return;
	}
	if (sim_intel() && sim.caps.version >= 2 && msr == PMCLOG_MSR_FIXED_CTR_CTRL) {
		sim.fctl = val;
		return;
	}
	i = sim_decode(msr, &is_ctl, &fw);
	if (i < 0)
		fail_msg("wrmsr %#x <- %#llx: no such MSR on this PMU", msr,
			 (unsigned long long)val);
	mask = pmclog_pmu_width_mask(&sim.caps, i);
	if (is_ctl) {
		sim.ctl[i] = val;
		return;
	}
	if (val & ~mask)
		fail_msg("wrmsr %#x <- %#llx: bits beyond the counter width (#GP)",
			 msr, (unsigned long long)val);
	if (sim_intel() && !PMCLOG_PMU_IS_FIXED(i) && !fw)
		val = (u64)(int64_t)(int32_t)(u32)val & mask;	/* 0xc1: sign-extended */
	if (PMCLOG_PMU_IS_FIXED(i))
		sim.fctr[i - PMCLOG_PMU_MAX_GP] = val;
	else
		sim.ctr[i] = val;
}

/* The twin of kmod/pmclog_sample.c: counts what the logic hands it. */
void pmclog_sample_take(struct pmclog_pmc *pmc, struct pt_regs *regs)
{
	assert_ptr_equal(regs, SIM_REGS);
	sim.samples[*(int *)pmc]++;
}

static void sim_throttle_event(struct pmclog_pmc *pmc, unsigned int reason,
			       u64 now, u64 stopped)
{
	assert_true(sim.nthrottle < SIM_THROTTLES_MAX);
	sim.throttle[sim.nthrottle++] = (struct sim_throttle){
		*(int *)pmc, reason, now, stopped,
	};
}

void pmclog_sample_throttle(struct pmclog_pmc *pmc, unsigned int reason, u64 now)
{
	sim_throttle_event(pmc, reason, now, ~0ULL);
}

void pmclog_sample_unthrottle(struct pmclog_pmc *pmc, unsigned int reason,
			      u64 now, u64 stopped_ns)
{
	sim_throttle_event(pmc, reason, now, stopped_ns);
}

/* Whether slot @i counts now, and whether its overflow interrupts. */
static bool sim_counting(unsigned int i, bool *irq)
{
	if (PMCLOG_PMU_IS_FIXED(i)) {
		u64 f = (sim.fctl >> (4 * (i - PMCLOG_PMU_MAX_GP))) & 0xf;

		*irq = f & PMCLOG_FIXED_PMI;
		return (f & 3) && (sim.gctrl & pmclog_pmu_global_bit(i));
	}
	*irq = sim.ctl[i] & PMCLOG_EVSEL_INT;
	if (!(sim.ctl[i] & PMCLOG_EVSEL_EN))
		return false;
	return !sim_global() || (sim.gctrl & pmclog_pmu_global_bit(i));
}

/* Let @n ticks of events happen. */
static void sim_advance(u64 n);

/* Let GP or fixed @slot (at rate 1) reach its overflow. */
static void sim_overflow(unsigned int slot)
{
	u64 c = PMCLOG_PMU_IS_FIXED(slot) ? sim.fctr[slot - PMCLOG_PMU_MAX_GP] :
					    sim.ctr[slot];

	sim_advance(pmclog_pmu_width_mask(&sim.caps, slot) + 1 - c);
}

/* Let @n ticks of events happen. */
static void sim_advance(u64 n)
{
	u32 slots = pmclog_pmu_slots(&sim.caps);
	unsigned int i;
	bool irq;

	for (i = 0; i < PMCLOG_PMU_MAX_SLOTS; i++) {
		u64 mask = pmclog_pmu_width_mask(&sim.caps, i);
		u64 *c, old;

		if (!(slots & (1U << i)) || !sim_counting(i, &irq))
			continue;
		c = PMCLOG_PMU_IS_FIXED(i) ? &sim.fctr[i - PMCLOG_PMU_MAX_GP] : &sim.ctr[i];
		old = *c;
		*c = (old + n * (sim.rate[i] ? sim.rate[i] : 1)) & mask;
		if (*c < old) {	/* wrapped */
			if (sim_global())
				sim.gstatus |= pmclog_pmu_global_bit(i);
			if (irq)
				sim.pmis++;
		}
	}
}

static void sim_reset(void)
{
	memset(&sim, 0, sizeof(sim));
}

static const char *sim_intel_pmu(unsigned int version, unsigned int ngp,
				 unsigned int width, unsigned int nfixed, bool fw)
{
	struct pmclog_pmu_cpuid id = {
		.vendor = PMCLOG_CPU_VENDOR_INTEL,
		.family = 6,
		.arch_perfmon = true,
		.a_eax = version | ngp << 8 | width << 16 | 7U << 24,
		.a_edx = nfixed | width << 5,
		.pdcm = fw,
		.perf_capabilities = fw ? 1ULL << 13 : 0,
		.hypervisor = true,
	};

	sim_reset();
	/* Reset value: the GP enables of GLOBAL_CTRL are set. */
	if (version >= 2)
		sim.gctrl = (1ULL << ngp) - 1;
	return pmclog_pmu_detect(&id, &sim.caps);
}

static void sim_amd_pmu(bool core, unsigned int family)
{
	struct pmclog_pmu_cpuid id = {
		.vendor = PMCLOG_CPU_VENDOR_AMD,
		.family = family,
		.perfctr_core = core,
	};

	sim_reset();
	assert_null(pmclog_pmu_detect(&id, &sim.caps));
}

/*
 * Zen 4 (family 19h, PerfMonV2) with @ngp core counters, as a CPU is once
 * Linux has brought it online: PerfCntrGlobalCtl 0 (amd_pmu_cpu_reset()).
 */
static void sim_amd_v2_pmu(unsigned int ngp)
{
	struct pmclog_pmu_cpuid id = {
		.vendor = PMCLOG_CPU_VENDOR_AMD,
		.family = 0x19,
		.perfctr_core = true,
		.perfmon_v2 = true,
		.ext_ebx = ngp | 0x10 << 4,	/* [9:4]: LBR stack, not ours */
	};

	sim_reset();
	sim.amd_v2 = true;
	assert_null(pmclog_pmu_detect(&id, &sim.caps));
	assert_int_equal(sim.gctrl, 0);
}

/* A slot template as the kernel fills it. */
static struct pmclog_pmu_slot slot_for(int c, u32 event, u64 period,
				       int *slot_out, u32 busy)
{
	struct pmclog_pmu_enc enc;
	struct pmclog_pmu_slot s = { .pmc = (struct pmclog_pmc *)&cookie[c], .period = period };
	int slot;

	assert_int_equal(pmclog_pmu_encode(&sim.caps, event, 0, PMCLOG_PMC_F_ALL, &enc), 0);
	slot = pmclog_pmu_pick(&sim.caps, &enc, busy);
	assert_true(slot >= 0);
	s.ctl = PMCLOG_PMU_IS_FIXED(slot) ? enc.fixed_field : enc.evtsel | PMCLOG_EVSEL_EN;
	*slot_out = slot;
	return s;
}

/* ---------------------------------------------------------------- */

static void test_detect_none(void **state)
{
	struct pmclog_pmu_cpuid tcg = {
		.vendor = PMCLOG_CPU_VENDOR_INTEL, .family = 6, .hypervisor = true,
	};
	struct pmclog_pmu_cpuid other = { .vendor = PMCLOG_CPU_VENDOR_UNKNOWN };
	struct pmclog_pmu_caps caps;
	struct pmclog_pmu_enc enc;
	const char *why;
	(void)state;

	/* QEMU/TCG: CPUID leaf 0xA all zeros, with or without the feature bit. */
	why = pmclog_pmu_detect(&tcg, &caps);
	assert_non_null(why);
	assert_non_null(strstr(why, "0xA"));
	assert_int_equal(caps.kind, PMCLOG_PMU_NONE);
	tcg.arch_perfmon = true;
	assert_non_null(pmclog_pmu_detect(&tcg, &caps));
	assert_int_equal(pmclog_pmu_events(&caps), 0);
	assert_int_equal(pmclog_pmu_encode(&caps, PMCLOG_EV_CYCLES, 0, 0, &enc), -ENODEV);
	assert_int_equal(pmclog_pmu_encode(&caps, PMCLOG_EV_RAW, 0xc0, 0, &enc), -ENODEV);
	assert_non_null(pmclog_pmu_detect(&other, &caps));
}

static void test_detect_intel_versions(void **state)
{
	struct pmclog_pmu_cpuid id = {
		.vendor = PMCLOG_CPU_VENDOR_INTEL, .family = 6, .arch_perfmon = true,
	};
	struct pmclog_pmu_caps caps;
	(void)state;

	/* v1: GP only, no fixed counters, no global control. */
	id.a_eax = 1 | 2 << 8 | 40 << 16 | 7U << 24;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_int_equal(caps.version, 1);
	assert_int_equal(caps.ngp, 2);
	assert_int_equal(caps.gp_width, 40);
	assert_int_equal(caps.fixed_mask, 0);

	/* v2 reporting no fixed counters: 3 on bare metal, 0 in a VM. */
	id.a_eax = 2 | 2 << 8 | 40 << 16 | 7U << 24;
	id.a_edx = 0;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_int_equal(caps.fixed_mask, 7);
	assert_int_equal(caps.fixed_width, 40);
	id.hypervisor = true;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_int_equal(caps.fixed_mask, 0);

	/* v4: 4 GP of 48 bits, 3 fixed of 48 bits, full-width writes. */
	id.a_eax = 4 | 4 << 8 | 48 << 16 | 7U << 24;
	id.a_edx = 3 | 48 << 5;
	id.pdcm = true;
	id.perf_capabilities = 1ULL << 13;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_int_equal(caps.fixed_mask, 7);
	assert_int_equal(caps.nfixed, 3);
	assert_true(caps.full_width_write);
	assert_int_equal(pmclog_pmu_slots(&caps), 0xf | 7 << PMCLOG_PMU_MAX_GP);

	/* v5: fixed counters from the ECX bitmap, possibly sparse. */
	id.a_eax = 5 | 8 << 8 | 48 << 16 | 7U << 24;
	id.a_ecx = 0x9;		/* fixed 0 and 3 */
	id.a_edx = 0 | 48 << 5;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_int_equal(caps.fixed_mask, 0x9);
	assert_int_equal(caps.nfixed, 4);
	assert_int_equal(caps.ngp, 8);

	/* A short EBX bit vector: events past it do not exist. */
	id.a_eax = 4 | 4 << 8 | 48 << 16 | 2U << 24;	/* cycles, instructions */
	id.a_edx = 0 | 48 << 5;
	id.a_ecx = 0;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_int_equal(pmclog_pmu_events(&caps),
			 1U << PMCLOG_EV_CYCLES | 1U << PMCLOG_EV_INSTRUCTIONS |
			 1U << PMCLOG_EV_RAW);
	/* An event marked unavailable in EBX. */
	id.a_eax = 4 | 4 << 8 | 48 << 16 | 7U << 24;
	id.a_ebx = 1U << 6;	/* branch mispredicts */
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_false(pmclog_pmu_events(&caps) & (1U << PMCLOG_EV_BRANCH_MISSES));
	assert_true(pmclog_pmu_events(&caps) & (1U << PMCLOG_EV_BRANCHES));
	/* ref-cycles exists only with fixed counter 2. */
	assert_false(pmclog_pmu_events(&caps) & (1U << PMCLOG_EV_REF_CYCLES));
	id.a_edx = 3 | 48 << 5;
	assert_null(pmclog_pmu_detect(&id, &caps));
	assert_true(pmclog_pmu_events(&caps) & (1U << PMCLOG_EV_REF_CYCLES));
}

static void test_detect_amd(void **state)
{
	struct pmclog_pmu_enc enc;
	(void)state;

	sim_amd_pmu(true, 0x19);
	assert_int_equal(sim.caps.kind, PMCLOG_PMU_AMD_CORE);
	assert_int_equal(sim.caps.ngp, 6);
	assert_int_equal(pmclog_pmu_ctl_msr(&sim.caps, 2), 0xc0010204);
	assert_int_equal(pmclog_pmu_ctr_msr(&sim.caps, 2), 0xc0010205);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_CACHE_MISSES, 0,
					   PMCLOG_PMC_F_USER, &enc), 0);
	assert_int_equal(enc.evtsel, 0x0964 | PMCLOG_EVSEL_USR | PMCLOG_EVSEL_INT);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_REF_CYCLES, 0, 0, &enc),
			 -ENODEV);

	/* Zen 3: perfctr_core without PerfMonV2, no global registers. */
	assert_int_equal(sim.caps.version, 0);

	/* Zen 4: PerfMonV2, the number of core counters from CPUID. */
	sim_amd_v2_pmu(6);
	assert_int_equal(sim.caps.kind, PMCLOG_PMU_AMD_CORE);
	assert_int_equal(sim.caps.version, 2);
	assert_int_equal(sim.caps.ngp, 6);
	assert_int_equal(pmclog_pmu_slots(&sim.caps), 0x3f);
	sim_amd_v2_pmu(4);
	assert_int_equal(sim.caps.ngp, 4);
	{
		struct pmclog_pmu_cpuid v2 = {
			.vendor = PMCLOG_CPU_VENDOR_AMD, .family = 0x19,
			.perfctr_core = true, .perfmon_v2 = true, .ext_ebx = 0,
		};
		struct pmclog_pmu_caps caps;

		assert_non_null(pmclog_pmu_detect(&v2, &caps));
		assert_int_equal(caps.kind, PMCLOG_PMU_NONE);
	}

	sim_amd_pmu(false, 0x10);
	assert_int_equal(sim.caps.kind, PMCLOG_PMU_AMD_K7);
	assert_int_equal(sim.caps.ngp, 4);
	assert_int_equal(pmclog_pmu_ctl_msr(&sim.caps, 3), 0xc0010003);
	assert_int_equal(pmclog_pmu_ctr_msr(&sim.caps, 3), 0xc0010007);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_CACHE_MISSES, 0,
					   PMCLOG_PMC_F_KERNEL, &enc), 0);
	assert_int_equal(enc.evtsel, 0x077e | PMCLOG_EVSEL_OS | PMCLOG_EVSEL_INT);
}

static void test_encode(void **state)
{
	struct pmclog_pmu_enc enc;
	(void)state;

	assert_null(sim_intel_pmu(4, 4, 48, 3, false));
	/* cycles: fixed counter 1 or any GP counter with 0x3c. */
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_CYCLES, 0,
					   PMCLOG_PMC_F_ALL, &enc), 0);
	assert_int_equal(enc.fixed, 1);
	assert_true(enc.gp);
	assert_int_equal(enc.evtsel, 0x3c | PMCLOG_EVSEL_USR | PMCLOG_EVSEL_OS |
				     PMCLOG_EVSEL_INT);
	assert_int_equal(enc.fixed_field, PMCLOG_FIXED_PMI | PMCLOG_FIXED_USR |
					  PMCLOG_FIXED_OS);
	/* ref-cycles: fixed counter 2 only. */
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_REF_CYCLES, 0,
					   PMCLOG_PMC_F_USER, &enc), 0);
	assert_int_equal(enc.fixed, 2);
	assert_false(enc.gp);
	assert_int_equal(enc.fixed_field, PMCLOG_FIXED_PMI | PMCLOG_FIXED_USR);
	/* Raw: r01c2:k; our own bits are refused. */
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_RAW, 0x01c2,
					   PMCLOG_PMC_F_KERNEL, &enc), 0);
	assert_int_equal(enc.evtsel, 0x01c2 | PMCLOG_EVSEL_OS | PMCLOG_EVSEL_INT);
	assert_int_equal(enc.fixed, -1);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_RAW,
					   0xc0 | PMCLOG_EVSEL_EN, 0, &enc), -EINVAL);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_RAW,
					   0x1c0ULL << 24 | 0xc0, 0, &enc), -EINVAL);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_RAW,
					   0x100000c0ULL | PMCLOG_EVSEL_INV, 0, &enc), 0);
	/* AMD's extended event bits are AMD's only. */
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_RAW,
					   0x100000000ULL, 0, &enc), -EINVAL);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_CPU_CLOCK, 0, 0, &enc),
			 -EINVAL);
	sim_amd_pmu(true, 0x17);
	assert_int_equal(pmclog_pmu_encode(&sim.caps, PMCLOG_EV_RAW,
					   0x100000000ULL, 0, &enc), 0);
}

static void test_pick_and_busy(void **state)
{
	struct pmclog_pmu_enc cyc, br;
	u32 busy;
	(void)state;

	assert_null(sim_intel_pmu(3, 4, 48, 3, false));
	/* The NMI watchdog through perf: GP0 counting, fixed 1 counting. */
	sim.ctl[0] = 0x3c | PMCLOG_EVSEL_EN | PMCLOG_EVSEL_INT | PMCLOG_EVSEL_OS;
	sim.fctl = 0xb << 4;
	sim.ctl[1] = 0x12c0;	/* programmed but disabled: free */
	busy = pmclog_pmu_busy(&sim.caps);
	assert_int_equal(busy, 1U << 0 | 1U << PMCLOG_PMU_FIXED(1));

	pmclog_pmu_encode(&sim.caps, PMCLOG_EV_CYCLES, 0, PMCLOG_PMC_F_ALL, &cyc);
	pmclog_pmu_encode(&sim.caps, PMCLOG_EV_BRANCHES, 0, PMCLOG_PMC_F_ALL, &br);
	assert_int_equal(pmclog_pmu_pick(&sim.caps, &cyc, busy), 1);
	assert_int_equal(pmclog_pmu_pick(&sim.caps, &cyc, busy & ~(1U << PMCLOG_PMU_FIXED(1))),
			 PMCLOG_PMU_FIXED(1));
	busy |= 0xe;	/* every GP counter taken */
	assert_int_equal(pmclog_pmu_pick(&sim.caps, &br, busy), -EBUSY);
	assert_int_equal(pmclog_pmu_pick(&sim.caps, &cyc, busy), -EBUSY);

	/* AMD: only event select enable bits say "busy". */
	sim_amd_pmu(true, 0x19);
	sim.ctl[3] = 0x76 | PMCLOG_EVSEL_EN;
	assert_int_equal(pmclog_pmu_busy(&sim.caps), 1U << 3);
	pmclog_pmu_encode(&sim.caps, PMCLOG_EV_CYCLES, 0, PMCLOG_PMC_F_ALL, &cyc);
	assert_int_equal(pmclog_pmu_pick(&sim.caps, &cyc, 0x3f & ~(1U << 4)), 4);
	assert_int_equal(pmclog_pmu_pick(&sim.caps, &cyc, 0x3f), -EBUSY);
}

static void test_reload_values(void **state)
{
	int slot;
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	(void)state;

	/* Intel without full-width writes: 0xc1, 32 bits sign-extended. */
	assert_null(sim_intel_pmu(2, 2, 48, 0, false));
	assert_int_equal(pmclog_pmu_max_period(&sim.caps, 0), (1ULL << 31) - 1);
	assert_int_equal(pmclog_pmu_reload(&sim.caps, 0, 1000), (1ULL << 48) - 1000);
	assert_int_equal(pmclog_pmu_reload(&sim.caps, 0, 1ULL << 40),
			 (1ULL << 48) - ((1ULL << 31) - 1));
	s = slot_for(0, PMCLOG_EV_INSTRUCTIONS, (1ULL << 31) - 1, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	assert_int_equal(sim.log[2].msr, PMCLOG_MSR_P6_PERFCTR0 + slot);
	assert_int_equal(sim.ctr[slot], (1ULL << 48) - ((1ULL << 31) - 1));
	sim_advance((1ULL << 31) - 2);
	assert_int_equal(sim.pmis, 0);
	sim_advance(1);
	assert_int_equal(sim.pmis, 1);

	/* Full-width writes: 0x4c1, up to half the width. */
	assert_null(sim_intel_pmu(4, 2, 48, 3, true));
	memset(&pc, 0, sizeof(pc));
	assert_int_equal(pmclog_pmu_max_period(&sim.caps, 0), (1ULL << 47) - 1);
	s = slot_for(0, PMCLOG_EV_BRANCHES, 1ULL << 40, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	assert_int_equal(sim.ctr[slot], (1ULL << 48) - (1ULL << 40));
	assert_true(sim.log[2].msr == PMCLOG_MSR_IA32_PMC0 + (u32)slot);

	/* Intel v1, 40 bits. */
	assert_null(sim_intel_pmu(1, 2, 40, 0, false));
	assert_int_equal(pmclog_pmu_reload(&sim.caps, 1, 1000), (1ULL << 40) - 1000);

	/* AMD: 48 bits. */
	sim_amd_pmu(true, 0x19);
	memset(&pc, 0, sizeof(pc));
	assert_int_equal(pmclog_pmu_max_period(&sim.caps, 0), (1ULL << 47) - 1);
	assert_int_equal(pmclog_pmu_reload(&sim.caps, 0, 0), (1ULL << 48) - 1);
}

/* Program, overflow at the width, handle, reload: one counter per layout. */
static void check_one_overflow(unsigned int width)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	int slot, ret, round;

	s = slot_for(0, PMCLOG_EV_BRANCHES, 5000, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	assert_int_equal(pc.active, 1U << slot);
	for (round = 1; round <= 3; round++) {
		sim_advance(4999);
		assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, round, SIM_REGS), 0);
		sim_advance(1);
		/* The counter wrapped at its width. */
		assert_int_equal(sim.ctr[slot], 0);
		assert_int_equal(sim.pmis, round);
		ret = pmclog_pmu_handle_nmi(&sim.caps, &pc, round, SIM_REGS);
		assert_int_equal(ret, 1);
		assert_int_equal(sim.samples[0], round);
		assert_int_equal(sim.ctr[slot], ((1ULL << width) - 5000));
		assert_int_equal(sim.gstatus, 0);
	}
	assert_int_equal(pc.handled, 3);
	assert_int_equal(pc.foreign, 3);
}

static void test_width_wrap(void **state)
{
	(void)state;
	assert_null(sim_intel_pmu(1, 2, 40, 0, false));
	check_one_overflow(40);
	assert_null(sim_intel_pmu(2, 4, 48, 3, false));
	check_one_overflow(48);
	assert_null(sim_intel_pmu(5, 8, 48, 4, true));
	check_one_overflow(48);
	sim_amd_pmu(true, 0x19);
	check_one_overflow(48);
	sim_amd_v2_pmu(6);
	check_one_overflow(48);
	sim_amd_pmu(false, 0x10);
	check_one_overflow(48);
}

/* Intel v1: no global registers at all (the model fails on any access). */
static void test_intel_v1_no_global(void **state)
{
	unsigned int i;
	(void)state;

	assert_null(sim_intel_pmu(1, 2, 40, 0, false));
	check_one_overflow(40);
	for (i = 0; i < sim.nlog; i++) {
		assert_int_not_equal(sim.log[i].msr, PMCLOG_MSR_GLOBAL_CTRL);
		assert_int_not_equal(sim.log[i].msr, PMCLOG_MSR_GLOBAL_OVF_CTRL);
	}
}

static void check_multi_overflow(void)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	u32 busy = 0;
	int slot, i;

	for (i = 0; i < 3; i++) {
		s = slot_for(i, i == 2 ? PMCLOG_EV_CYCLES : PMCLOG_EV_BRANCHES,
			     1000 * (i + 1), &slot, busy);
		busy |= 1U << slot;
		pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	}
	/* Counter 0 every 1000, 1 every 2000 at rate 2: both at tick 1000. */
	sim.rate[1] = 2;
	for (i = 0; i < PMCLOG_PMU_MAX_SLOTS; i++)
		if (busy & (1U << i) && i != 0 && i != 1)
			sim.rate[i] = 3;	/* cycles: 3000 at tick 1000 */
	sim_advance(1000);
	assert_int_equal(sim.pmis, 3);
	sim.nlog = 0;
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 1, SIM_REGS), 3);
	assert_int_equal(sim.samples[0], 1);
	assert_int_equal(sim.samples[1], 1);
	assert_int_equal(sim.samples[2], 1);
	assert_int_equal(sim.gstatus, 0);
	/* One acknowledgement with the three bits (Intel v2+, AMD v2). */
	if (sim_global()) {
		u32 ack = sim_intel() ? PMCLOG_MSR_GLOBAL_OVF_CTRL :
					PMCLOG_MSR_AMD_GLOBAL_STATUS_CLR;
		unsigned int acks = 0;

		for (i = 0; i < (int)sim.nlog; i++)
			if (sim.log[i].msr == ack) {
				acks++;
				assert_int_equal(__builtin_popcountll(sim.log[i].val), 3);
			}
		assert_int_equal(acks, 1);
	}
	/* Nothing left over for the next NMI. */
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 2, SIM_REGS), 0);
}

static void test_multi_overflow(void **state)
{
	(void)state;
	assert_null(sim_intel_pmu(2, 4, 48, 3, false));
	check_multi_overflow();
	assert_null(sim_intel_pmu(4, 4, 48, 3, true));
	check_multi_overflow();
	assert_null(sim_intel_pmu(5, 8, 48, 3, true));
	check_multi_overflow();
	sim_amd_pmu(true, 0x19);
	check_multi_overflow();
	sim_amd_v2_pmu(6);
	check_multi_overflow();
	sim_amd_pmu(false, 0x15);
	check_multi_overflow();
}

/* Overflows of counters that are not ours stay for their owner. */
static void test_foreign_nmi(void **state)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	int slot;
	(void)state;

	assert_null(sim_intel_pmu(4, 4, 48, 3, false));
	/* perf's counter 0 (the watchdog) and a PEBS/uncore status bit. */
	sim.ctl[0] = 0x3c | PMCLOG_EVSEL_EN | PMCLOG_EVSEL_INT;
	s = slot_for(1, PMCLOG_EV_BRANCHES, 1000, &slot, pmclog_pmu_busy(&sim.caps));
	assert_int_equal(slot, 1);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	sim.gstatus = 1ULL << 0 | 1ULL << 61;
	sim.nlog = 0;
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 1, SIM_REGS), 0);
	assert_int_equal(pc.foreign, 1);
	assert_int_equal(sim.nlog, 0);		/* nothing written, nothing acked */
	assert_int_equal(sim.gstatus, 1ULL << 0 | 1ULL << 61);
	/* Ours and theirs at once: ours handled, theirs left set. */
	sim_advance(1000);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 2, SIM_REGS), 1);
	assert_int_equal(sim.gstatus, 1ULL << 0 | 1ULL << 61);
	assert_int_equal(sim.samples[1], 1);
	/* While idle, the handler reads nothing. */
	pmclog_pmu_release(&sim.caps, &pc, slot, 3);
	sim.nlog = 0;
	sim.tcg = true;		/* any read would now return 0: none expected */
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 10000000, SIM_REGS), 0);
	assert_int_equal(pc.foreign, 1);
}

/* After release every MSR is what it was, whatever happened in between. */
static void check_restore(void)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	u64 ctl[PMCLOG_PMU_MAX_GP], ctr[PMCLOG_PMU_MAX_GP], fctl, fctr[4], gctrl;
	u32 busy = 0;
	int slot, i, taken[3];

	for (i = 0; i < PMCLOG_PMU_MAX_GP; i++) {
		sim.ctl[i] = i < sim.caps.ngp ? 0x1100 + i : 0;	/* disabled selects */
		sim.ctr[i] = i < sim.caps.ngp ? 0x12345 * (i + 1) : 0;
	}
	sim.fctr[1] = 0x777;
	memcpy(ctl, sim.ctl, sizeof(ctl));
	memcpy(ctr, sim.ctr, sizeof(ctr));
	memcpy(fctr, sim.fctr, sizeof(fctr));
	fctl = sim.fctl;
	gctrl = sim.gctrl;

	for (i = 0; i < 3; i++) {
		s = slot_for(i, i ? PMCLOG_EV_INSTRUCTIONS : PMCLOG_EV_CYCLES, 1000,
			     &slot, busy);
		busy |= 1U << slot;
		taken[i] = slot;
		pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	}
	sim_advance(999);
	pmclog_pmu_freeze(&sim.caps, &pc, busy, 5);
	pmclog_pmu_thaw(&sim.caps, &pc, busy, 6);
	sim_advance(5);		/* overflowed, not handled: release acks it */
	for (i = 0; i < 3; i++)
		pmclog_pmu_release(&sim.caps, &pc, taken[i], 7);
	assert_int_equal(pc.active, 0);
	assert_int_equal(pc.running, 0);
	assert_memory_equal(sim.ctl, ctl, sizeof(ctl));
	assert_memory_equal(sim.ctr, ctr, sizeof(ctr));
	assert_memory_equal(sim.fctr, fctr, sizeof(fctr));
	assert_int_equal(sim.fctl, fctl);
	assert_int_equal(sim.gctrl, gctrl);
	assert_int_equal(sim.gstatus, 0);
	/* Its late PMI is claimed once; the next one is foreign. */
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 8, SIM_REGS), 1);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 9, SIM_REGS), 0);
	assert_int_equal(sim.samples[0] + sim.samples[1] + sim.samples[2], 0);
	/* Nothing counts any more. */
	sim.pmis = 0;
	sim_advance(1ULL << 47);
	assert_int_equal(sim.pmis, 0);
}

static void test_restore_on_stop(void **state)
{
	(void)state;
	assert_null(sim_intel_pmu(2, 4, 48, 3, false));
	check_restore();
	assert_null(sim_intel_pmu(4, 4, 48, 3, true));
	sim.gctrl = 0x3;	/* someone cleared the enables of GP 2 and 3 */
	check_restore();
	assert_null(sim_intel_pmu(1, 4, 40, 0, false));
	check_restore();
	sim_amd_pmu(true, 0x19);
	check_restore();
	sim_amd_v2_pmu(6);
	check_restore();
	sim_amd_v2_pmu(6);
	sim.gctrl = 0x3f;	/* perf's enable_all left every bit set */
	check_restore();
	sim_amd_pmu(false, 0x10);
	check_restore();
}

/* Intel GP counts come back as 32 bits sign-extended without FW writes. */
static void test_restore_legacy_width(void **state)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	int slot;
	(void)state;

	assert_null(sim_intel_pmu(2, 2, 48, 0, false));
	sim.ctr[0] = 0x123456789aULL;	/* bit 31 clear */
	s = slot_for(0, PMCLOG_EV_BRANCHES, 1000, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	pmclog_pmu_release(&sim.caps, &pc, slot, 1);
	assert_int_equal(sim.ctr[0], 0x3456789aULL);
}

/* Process mode: counts only between thaw and freeze, and keeps its count. */
static void test_freeze_thaw(void **state)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	int slot;
	(void)state;

	assert_null(sim_intel_pmu(4, 4, 48, 3, false));
	s = slot_for(0, PMCLOG_EV_BRANCHES, 1000, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, false, 0);
	assert_int_equal(pc.running, 0);
	sim_advance(5000);		/* another task runs */
	assert_int_equal(sim.pmis, 0);
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, 1);
	sim_advance(600);
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << slot, 2);
	sim.ctr[slot] = 0;		/* someone else used the counter meanwhile */
	sim_advance(5000);
	assert_int_equal(sim.pmis, 0);
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, 3);
	assert_int_equal(sim.ctr[slot], (1ULL << 48) - 400);
	sim_advance(399);
	assert_int_equal(sim.pmis, 0);
	sim_advance(1);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 4, SIM_REGS), 1);
	/* An overflow at the moment of a freeze: reloaded, late NMI expected. */
	sim_advance(1000);
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << slot, 5);
	assert_int_equal(sim.gstatus, 0);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 6, SIM_REGS), 1);
	assert_int_equal(sim.samples[0], 1);
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, 7);
	assert_int_equal(sim.ctr[slot], (1ULL << 48) - 1000);
	/* Thawing a running slot or freezing a frozen one changes nothing. */
	sim.nlog = 0;
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, 8);
	assert_int_equal(sim.nlog, 0);
	pmclog_pmu_release(&sim.caps, &pc, slot, 9);
	sim.nlog = 0;
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << slot, 10);
	assert_int_equal(sim.nlog, 0);
}

/* The exact MSR sequence of a claim on Intel v2+: disable, load, enable. */
static void test_program_sequence(void **state)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	int slot;
	(void)state;

	assert_null(sim_intel_pmu(3, 4, 48, 3, false));
	s = slot_for(0, PMCLOG_EV_BRANCH_MISSES, 10000, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	assert_int_equal(sim.nlog, 5);
	assert_int_equal(sim.log[0].msr, PMCLOG_MSR_GLOBAL_CTRL);
	assert_int_equal(sim.log[0].val, 0xe);
	assert_int_equal(sim.log[1].msr, PMCLOG_MSR_P6_EVNTSEL0);
	assert_false(sim.log[1].val & PMCLOG_EVSEL_EN);
	assert_int_equal(sim.log[2].msr, PMCLOG_MSR_P6_PERFCTR0);
	assert_int_equal(sim.log[2].val, (1ULL << 48) - 10000);
	assert_int_equal(sim.log[3].msr, PMCLOG_MSR_P6_EVNTSEL0);
	assert_int_equal(sim.log[3].val, 0xc5 | PMCLOG_EVSEL_USR | PMCLOG_EVSEL_OS |
					 PMCLOG_EVSEL_INT | PMCLOG_EVSEL_EN);
	assert_int_equal(sim.log[4].msr, PMCLOG_MSR_GLOBAL_CTRL);
	assert_int_equal(sim.log[4].val, 0xf);

	/* A fixed counter: its field only, the others' fields untouched. */
	sim.fctl = 0xb00;		/* fixed 2 is someone's */
	s = slot_for(1, PMCLOG_EV_CYCLES, 10000, &slot, 1U << PMCLOG_PMU_FIXED(2));
	assert_int_equal(slot, PMCLOG_PMU_FIXED(1));
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	assert_int_equal(sim.fctl, 0xbb0);
	assert_int_equal(sim.gctrl, 0xf | 1ULL << 33);
	pmclog_pmu_release(&sim.caps, &pc, slot, 1);
	assert_int_equal(sim.fctl, 0xb00);
	assert_int_equal(sim.gctrl, 0xf);
}

/*
 * Zen 4: PerfCntrGlobalCtl gates every counter and Linux leaves it 0, so a
 * claim sets the slot's bit (and only its bit), overflow is read from
 * PerfCntrGlobalStatus and cleared through PerfCntrGlobalStatusClr, and a
 * release puts the register back as it was.
 */
static void test_amd_v2_global(void **state)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	unsigned int i;
	int slot;
	(void)state;

	/* The model: an enabled event select alone counts nothing. */
	sim_amd_v2_pmu(6);
	sim.ctl[5] = 0x76 | PMCLOG_EVSEL_EN | PMCLOG_EVSEL_INT;
	sim_advance(1ULL << 48);
	assert_int_equal(sim.ctr[5], 0);
	assert_int_equal(sim.pmis, 0);
	sim.ctl[5] = 0;

	s = slot_for(0, PMCLOG_EV_CYCLES, 5000, &slot, 0);
	assert_int_equal(slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	assert_int_equal(sim.gctrl, 1);
	/* Disable (select, then global bit), load, enable, global bit. */
	assert_int_equal(sim.log[0].msr, PMCLOG_MSR_AMD_GLOBAL_CTL);
	assert_int_equal(sim.log[0].val, 0);
	assert_int_equal(sim.log[1].msr, PMCLOG_MSR_F15H_PERF_CTL0);
	assert_int_equal(sim.log[2].msr, PMCLOG_MSR_F15H_PERF_CTL0 + 1);
	assert_int_equal(sim.log[2].val, (1ULL << 48) - 5000);
	assert_int_equal(sim.log[3].msr, PMCLOG_MSR_F15H_PERF_CTL0);
	assert_true(sim.log[3].val & PMCLOG_EVSEL_EN);
	assert_int_equal(sim.log[4].msr, PMCLOG_MSR_AMD_GLOBAL_CTL);
	assert_int_equal(sim.log[4].val, 1);

	sim_advance(5000);
	assert_int_equal(sim.pmis, 1);
	assert_int_equal(sim.gstatus, 1);
	sim.nlog = 0;
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 1, SIM_REGS), 1);
	assert_int_equal(sim.samples[0], 1);
	assert_int_equal(sim.gstatus, 0);
	for (i = 0; i < sim.nlog; i++)
		assert_int_not_equal(sim.log[i].msr, PMCLOG_MSR_GLOBAL_OVF_CTRL);
	/* Another counter's overflow (someone else's) is left for its owner. */
	sim.gstatus = 1U << 3;
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 2, SIM_REGS), 0);
	assert_int_equal(sim.gstatus, 1U << 3);
	sim.gstatus = 0;

	pmclog_pmu_release(&sim.caps, &pc, slot, 3);
	assert_int_equal(sim.gctrl, 0);
	sim.pmis = 0;
	sim_advance(1ULL << 47);
	assert_int_equal(sim.pmis, 0);

	/* Zen 3 has no global registers: the model fails on any access. */
	sim_amd_pmu(true, 0x19);
	check_one_overflow(48);
	for (i = 0; i < sim.nlog; i++)
		assert_true(sim.log[i].msr < PMCLOG_MSR_AMD_GLOBAL_STATUS ||
			    sim.log[i].msr > PMCLOG_MSR_AMD_GLOBAL_STATUS_SET);
}

/* HZ=250 as Debian's kernels, max_sample_rate 100000: 400 per tick. */
#define TICK_NS		4000000ULL

static const struct pmclog_pmu_limits perf_limits = {
	.tick_ns = TICK_NS, .max_per_tick = 400,
	.max_ns_per_tick = TICK_NS / 4,		/* cpu_time_max_percent 25 */
};

/*
 * The lock-up of issue #9: a counter whose period is shorter than its
 * NMI, here 1000 events at a rate of 10 per ns of a 2 us handler, is due
 * again as each NMI returns.  Without a limit it re-fires for ever; with
 * the limits, the 401st overflow of the tick throttles it and it stays
 * stopped (and silent) until the tick ends, then counts again.
 */
static void check_storm(void)
{
	struct pmclog_pmu_cpu pc = { .lim = perf_limits };
	struct pmclog_pmu_slot s;
	u64 now = 1000, start;
	int slot, nmis = 0, pmis;

	s = slot_for(0, PMCLOG_EV_BRANCHES, 1000, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, now);
	start = now;
	sim_advance(1000);
	while (sim.pmis > nmis && nmis < 10000) {
		nmis++;
		assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 1);
		pmclog_pmu_nmi_took(&pc, now, now + 2000);
		now += 2000;
		sim_advance(1000);	/* due again before it returns */
	}
	assert_int_equal(nmis, 401);
	assert_int_equal(sim.samples[0], 401);
	assert_int_equal(pc.throttled, 1U << slot);
	assert_int_equal(pc.throttles, 1);
	assert_int_equal(sim.nthrottle, 1);
	assert_int_equal(sim.throttle[0].pmc, 0);
	assert_int_equal(sim.throttle[0].reason, PMCLOG_THROTTLE_RATE);
	assert_int_equal(sim.throttle[0].stopped_ns, ~0ULL);
	/* Stopped: whatever happens, no interrupt, with a whole period loaded. */
	pmis = sim.pmis;
	sim_advance(1ULL << 40);
	assert_int_equal(sim.pmis, pmis);
	assert_int_equal((1ULL << sim.caps.gp_width) - sim.ctr[slot], 1000);
	if (sim_global())
		assert_int_equal(sim.gstatus, 0);

	/* Not before the tick ends; then it counts again, and says so. */
	assert_int_equal(pmclog_pmu_next_unthrottle(&pc), start + TICK_NS);
	assert_int_equal(pmclog_pmu_unthrottle(&sim.caps, &pc, start + TICK_NS - 1),
			 start + TICK_NS);
	assert_int_equal(pc.throttled, 1U << slot);
	assert_int_equal(sim.nthrottle, 1);
	now = start + TICK_NS;
	assert_int_equal(pmclog_pmu_unthrottle(&sim.caps, &pc, now), 0);
	assert_int_equal(pc.throttled, 0);
	assert_int_equal(pmclog_pmu_next_unthrottle(&pc), 0);
	assert_int_equal(sim.nthrottle, 2);
	assert_int_equal(sim.throttle[1].reason, PMCLOG_THROTTLE_RATE);
	assert_int_equal(sim.throttle[1].now, now);
	assert_int_equal(sim.throttle[1].stopped_ns, now - sim.throttle[0].now);
	sim_advance(999);
	assert_int_equal(sim.pmis, pmis);
	sim_advance(1);
	assert_int_equal(sim.pmis, pmis + 1);
	/* A new tick: a new budget. */
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now + 10, SIM_REGS), 1);
	assert_int_equal(pc.throttled, 0);
	assert_int_equal(sim.samples[0], 402);
	pmclog_pmu_release(&sim.caps, &pc, slot, now + 20);
}

static void test_throttle_storm(void **state)
{
	(void)state;
	assert_null(sim_intel_pmu(4, 4, 48, 3, true));
	check_storm();
	assert_null(sim_intel_pmu(1, 2, 40, 0, false));
	check_storm();
	sim_amd_v2_pmu(6);
	check_storm();
	sim_amd_pmu(true, 0x17);
	check_storm();
	sim_amd_pmu(false, 0x10);
	check_storm();
}

/*
 * At max_sample_rate, a tick holds max_per_tick overflows: no throttle;
 * a rate just above it is throttled at the first excess overflow.  The
 * window is per CPU, each slot's count its own.
 */
static void test_throttle_rate_limit(void **state)
{
	struct pmclog_pmu_cpu pc = { .lim = perf_limits };
	struct pmclog_pmu_slot s;
	u64 now = 0;
	int a, b, i;
	(void)state;

	assert_null(sim_intel_pmu(4, 4, 48, 3, true));
	s = slot_for(0, PMCLOG_EV_BRANCHES, 1000, &a, 0);
	pmclog_pmu_claim(&sim.caps, &pc, a, &s, true, 0);
	s = slot_for(1, PMCLOG_EV_INSTRUCTIONS, 1000, &b, 1U << a);
	pmclog_pmu_claim(&sim.caps, &pc, b, &s, true, 0);
	/* 100 kHz for 5 ticks: 10 us apart, both at once. */
	for (i = 0; i < 2000; i++) {
		sim_advance(1000);
		now = 1 + (u64)i * 10000;
		assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 2);
		pmclog_pmu_nmi_took(&pc, now, now + 1000);	/* 10% of the CPU */
	}
	assert_int_equal(pc.throttles, 0);
	assert_int_equal(sim.samples[0], 2000);
	/* Slot b only, 401 in the next tick: throttled; a is not. */
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << a, now);
	now += TICK_NS;
	for (i = 0; i < 401; i++) {
		sim_advance(1000);
		now += 9000;
		assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 1);
	}
	assert_int_equal(pc.throttled, 1U << b);
	assert_int_equal(sim.nthrottle, 1);
	assert_int_equal(sim.throttle[0].pmc, 1);
	/* The frozen slot is not touched by an unthrottle; b restarts. */
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << a, now);
	assert_int_equal(pmclog_pmu_unthrottle(&sim.caps, &pc, now + TICK_NS), 0);
	assert_int_equal(pc.running & pc.active, (1U << a) | (1U << b));
	sim.pmis = 0;
	sim_advance(1000);
	assert_int_equal(sim.pmis, 2);
}

/*
 * perf_cpu_time_max_percent: an NMI that is slow (a slow machine, a long
 * sample) eats the tick at a rate the count limit allows; once the
 * handler has spent a quarter of the window, the next overflow throttles.
 */
static void test_throttle_cpu_time(void **state)
{
	struct pmclog_pmu_cpu pc = { .lim = perf_limits };
	struct pmclog_pmu_slot s;
	u64 now = 100;
	int slot, i;
	(void)state;

	sim_amd_v2_pmu(6);
	s = slot_for(2, PMCLOG_EV_CYCLES, 1000000, &slot, 0);
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, now);
	for (i = 0; i < 5; i++) {
		sim_advance(1000000);
		assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 1);
		assert_int_equal(pc.throttled, 0);
		pmclog_pmu_nmi_took(&pc, now, now + 250000);	/* 250 us each */
		now += 260000;
	}
	assert_int_equal(pc.win_ns, 1250000);
	sim_advance(1000000);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 1);
	assert_int_equal(pc.throttled, 1U << slot);
	assert_int_equal(sim.samples[2], 6);
	assert_int_equal(sim.nthrottle, 1);
	assert_int_equal(sim.throttle[0].reason, PMCLOG_THROTTLE_CPU_TIME);
	assert_int_equal(sim.gctrl, 0);		/* its global bit is off */
	/* The time of an NMI of another window does not count in this one. */
	pmclog_pmu_nmi_took(&pc, now + TICK_NS, now + TICK_NS + 5);
	assert_int_equal(pc.win_ns, 1250000);
	assert_int_equal(pmclog_pmu_unthrottle(&sim.caps, &pc, 100 + TICK_NS), 0);
	assert_int_equal(sim.gctrl, 1U << slot);
	assert_int_equal(sim.throttle[1].reason, PMCLOG_THROTTLE_CPU_TIME);
	/* The next tick starts with nothing spent. */
	sim_advance(1000000);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 100 + TICK_NS + 1, SIM_REGS), 1);
	assert_int_equal(pc.win_ns, 0);
	assert_int_equal(pc.throttled, 0);
}

/*
 * Process mode and stop: a throttled slot that is switched out stays
 * stopped, its unthrottle only clears it, and the thaw that follows starts
 * it; released while throttled, its throttle ends there, the registers
 * put back.  In frequency mode the stopped time is no counting time.
 */
static void test_throttle_freeze_release(void **state)
{
	struct pmclog_pmu_cpu pc = { .lim = { .tick_ns = TICK_NS, .max_per_tick = 1 } };
	struct pmclog_pmu_slot s;
	u64 gctrl;
	int slot;
	(void)state;

	assert_null(sim_intel_pmu(4, 4, 48, 3, true));
	gctrl = sim.gctrl;
	s = slot_for(0, PMCLOG_EV_BRANCHES, 1000, &slot, 0);
	s.target_ns = 1000000;
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, 0);
	sim_overflow(slot);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 10, SIM_REGS), 1);
	sim_overflow(slot);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 20, SIM_REGS), 1);
	assert_int_equal(pc.throttled, 1U << slot);
	/* Switched out and in again while throttled: still stopped. */
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << slot, 30);
	assert_int_equal(pc.running, 0);
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, 40);
	assert_int_equal(pc.running, 1U << slot);
	sim.pmis = 0;
	sim_advance(1ULL << 40);
	assert_int_equal(sim.pmis, 0);
	/* Switched out at the end of the tick: cleared, not started. */
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << slot, 50);
	assert_int_equal(pmclog_pmu_unthrottle(&sim.caps, &pc, 10 + TICK_NS), 0);
	assert_int_equal(pc.throttled, 0);
	assert_int_equal(sim.nthrottle, 2);
	sim_advance(1ULL << 40);
	assert_int_equal(sim.pmis, 0);
	/* Switched in 1 ms later: counts, and its period sees 0 ns spent. */
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, 10 + TICK_NS + 1000000);
	assert_int_equal(pc.slot[slot].last_ns, 10 + TICK_NS + 1000000);
	sim_overflow(slot);
	assert_int_equal(sim.pmis, 1);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 10 + TICK_NS + 2000000, SIM_REGS), 1);

	/* Throttled again, then released: the throttle ends with the slot. */
	sim_overflow(slot);
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, 10 + TICK_NS + 2000010, SIM_REGS), 1);
	assert_int_equal(pc.throttled, 1U << slot);
	assert_int_equal(sim.nthrottle, 3);
	pmclog_pmu_release(&sim.caps, &pc, slot, 10 + TICK_NS + 2000110);
	assert_int_equal(pc.throttled, 0);
	assert_int_equal(sim.nthrottle, 4);
	assert_int_equal(sim.throttle[3].stopped_ns, 100);
	assert_int_equal(sim.gctrl, gctrl);
	assert_int_equal(sim.ctl[slot], 0);
	assert_int_equal(pmclog_pmu_next_unthrottle(&pc), 0);
	assert_int_equal(pmclog_pmu_unthrottle(&sim.caps, &pc, ~0ULL), 0);
	assert_int_equal(sim.nthrottle, 4);
}

static void test_freq_step(void **state)
{
	const u64 rate = 3;		/* events per ns: a 3 GHz cycle counter */
	const u64 target = 1000000;	/* 1 kHz */
	u64 p = 1000000;
	int i;
	(void)state;

	for (i = 0; i < 12; i++)
		p = pmclog_pmu_freq_step(p, p / rate, target, 1000, 1ULL << 47);
	assert_true(p > 2990000 && p < 3010000);
	/* A slow event: the period shrinks, never below the minimum. */
	for (i = 0; i < 40; i++)
		p = pmclog_pmu_freq_step(p, p * 1000, target, 1000, 1ULL << 47);
	assert_int_equal(p, 1000);
	/* No overflow with huge periods or gaps; the maximum holds. */
	p = pmclog_pmu_freq_step((1ULL << 47) - 1, 1, 1000000000, 1000, (1ULL << 47) - 1);
	assert_int_equal(p, (1ULL << 47) - 1);
	p = pmclog_pmu_freq_step(1ULL << 40, 0, 1000000000, 1000, (1ULL << 31) - 1);
	assert_int_equal(p, (1ULL << 31) - 1);
	p = pmclog_pmu_freq_step(5000, 1ULL << 60, 10000, 1000, 1ULL << 31);
	assert_int_equal(p, 1250);
}

/* Frequency mode through the NMI path: the period follows the rate. */
static void test_freq_nmi(void **state)
{
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_slot s;
	u64 now = 0, left;
	int slot, i;
	(void)state;

	sim_amd_pmu(true, 0x19);
	s = slot_for(0, PMCLOG_EV_CYCLES, 10000, &slot, 0);
	s.target_ns = 100000;		/* 10 kHz */
	pmclog_pmu_claim(&sim.caps, &pc, slot, &s, true, now);
	for (i = 0; i < 20; i++) {
		u64 left = ((1ULL << 48) - sim.ctr[slot]);

		sim_advance(left);	/* at 2 events per ns */
		now += left / 2;
		assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 1);
	}
	assert_true(pc.slot[slot].period > 199000 && pc.slot[slot].period < 201000);

	/* Process mode: time spent switched out is not time spent counting. */
	left = (1ULL << 48) - sim.ctr[slot];
	sim_advance(left / 2);
	pmclog_pmu_freeze(&sim.caps, &pc, 1U << slot, now + left / 4);
	now += left / 4 + 1000000000;
	pmclog_pmu_thaw(&sim.caps, &pc, 1U << slot, now);
	sim_advance(left - left / 2);
	now += (left - left / 2) / 2;
	assert_int_equal(pmclog_pmu_handle_nmi(&sim.caps, &pc, now, SIM_REGS), 1);
	assert_true(pc.slot[slot].period > 199000 && pc.slot[slot].period < 201000);
}

/*
 * Intel hybrid: each CPU kind has its own counters (leaf 0xA, and leaf
 * 0x23 from Meteor Lake on), read on the CPU itself.  Here a P-core with
 * 8 GP and fixed 0-3 and an E-core with 6 GP and fixed 0-2, which also
 * lacks an event.  Allocation uses what every CPU has; each CPU is
 * programmed with its own.
 */
static const struct pmclog_pmu_cpuid pcore_id = {
	.vendor = PMCLOG_CPU_VENDOR_INTEL, .family = 6, .arch_perfmon = true,
	.a_eax = 5 | 8 << 8 | 48 << 16 | 7U << 24,
	.a_ecx = 0xf, .a_edx = 4 | 48 << 5,
	.pdcm = true, .perf_capabilities = 1ULL << 13,
	.ext_counters = true, .ext_gp_mask = 0xff, .ext_fixed_mask = 0xf,
};

static const struct pmclog_pmu_cpuid ecore_id = {
	.vendor = PMCLOG_CPU_VENDOR_INTEL, .family = 6, .arch_perfmon = true,
	.a_eax = 5 | 6 << 8 | 48 << 16 | 7U << 24,
	.a_ebx = 1U << 4,	/* no architectural LLC-misses */
	.a_ecx = 0x7, .a_edx = 3 | 48 << 5,
	.pdcm = true, .perf_capabilities = 1ULL << 13,
	.ext_counters = true, .ext_gp_mask = 0x3f, .ext_fixed_mask = 0x7,
};

static void test_hybrid(void **state)
{
	struct pmclog_pmu_caps p, e, all;
	struct pmclog_pmu_cpuid id = pcore_id;
	struct pmclog_pmu_cpu pc = { 0 };
	struct pmclog_pmu_enc br;
	struct pmclog_pmu_slot s;
	int slot;
	(void)state;

	assert_null(pmclog_pmu_detect(&pcore_id, &p));
	assert_null(pmclog_pmu_detect(&ecore_id, &e));
	assert_int_equal(p.ngp, 8);
	assert_int_equal(p.fixed_mask, 0xf);
	assert_int_equal(e.ngp, 6);
	assert_int_equal(e.fixed_mask, 0x7);
	/* Leaf 0x23 wins over 0xA; a gap in its bitmap ends the GP slots. */
	id.a_eax = 5 | 4 << 8 | 48 << 16 | 7U << 24;
	id.ext_gp_mask = 0xf7;
	id.ext_fixed_mask = 0x5;
	assert_null(pmclog_pmu_detect(&id, &all));
	assert_int_equal(all.ngp, 3);
	assert_int_equal(all.fixed_mask, 0x5);
	id.ext_gp_mask = 0;
	assert_non_null(pmclog_pmu_detect(&id, &all));

	/* The boot CPU is a P-core: what it says is not what every CPU has. */
	all = p;
	assert_false(pmclog_pmu_caps_merge(&all, &p));
	assert_true(pmclog_pmu_caps_merge(&all, &e));
	assert_int_equal(all.kind, PMCLOG_PMU_INTEL_ARCH);
	assert_int_equal(all.ngp, 6);
	assert_int_equal(all.fixed_mask, 0x7);
	assert_int_equal(all.nfixed, 3);
	assert_true(all.full_width_write);
	assert_int_equal(pmclog_pmu_slots(&all), pmclog_pmu_slots(&e));
	assert_false(pmclog_pmu_events(&all) & (1U << PMCLOG_EV_CACHE_MISSES));
	assert_true(pmclog_pmu_events(&p) & (1U << PMCLOG_EV_CACHE_MISSES));
	/* Folding in either kind again changes nothing. */
	assert_true(pmclog_pmu_caps_merge(&all, &p));
	assert_false(pmclog_pmu_caps_merge(&all, &e));
	assert_int_equal(all.ngp, 6);

	/* GP 0-5 taken: the P-core alone would give GP 6, absent on E-cores. */
	assert_int_equal(pmclog_pmu_encode(&all, PMCLOG_EV_BRANCHES, 0,
					   PMCLOG_PMC_F_ALL, &br), 0);
	assert_int_equal(pmclog_pmu_pick(&p, &br, 0x3f), 6);
	assert_int_equal(pmclog_pmu_pick(&all, &br, 0x3f), -EBUSY);

	/* An E-core programs what allocation picked with its own caps. */
	sim_reset();
	sim.caps = e;
	sim.gctrl = 0x3f;
	s = slot_for(0, PMCLOG_EV_BRANCHES, 1000, &slot, 0);
	assert_true(pmclog_pmu_slots(&all) & (1U << slot));
	pmclog_pmu_claim(&e, &pc, slot, &s, true, 0);
	assert_int_equal(pmclog_pmu_busy(&e), 1U << slot);
	sim_advance(1000);
	assert_int_equal(pmclog_pmu_handle_nmi(&e, &pc, 1, SIM_REGS), 1);
	pmclog_pmu_release(&e, &pc, slot, 2);

	/* Another vendor, or a CPU without a PMU: nothing every CPU has. */
	all = p;
	sim_amd_pmu(true, 0x19);
	assert_true(pmclog_pmu_caps_merge(&all, &sim.caps));
	assert_int_equal(all.kind, PMCLOG_PMU_NONE);
}

static void test_probe_rw(void **state)
{
	(void)state;
	assert_null(sim_intel_pmu(2, 2, 48, 3, false));
	sim.ctr[0] = 0x42;
	assert_true(pmclog_pmu_probe_rw(&sim.caps));
	assert_int_equal(sim.ctr[0], 0x42);
	/* The counter in use is skipped. */
	sim.ctl[0] = PMCLOG_EVSEL_EN;
	sim.nlog = 0;
	assert_true(pmclog_pmu_probe_rw(&sim.caps));
	assert_int_equal(sim.log[0].msr, PMCLOG_MSR_P6_PERFCTR0 + 1);
	/* TCG: reads 0, drops writes. */
	sim.tcg = true;
	assert_false(pmclog_pmu_probe_rw(&sim.caps));
	sim_amd_pmu(false, 0x10);
	sim.tcg = true;
	assert_false(pmclog_pmu_probe_rw(&sim.caps));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_none),
		cmocka_unit_test(test_detect_intel_versions),
		cmocka_unit_test(test_detect_amd),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_pick_and_busy),
		cmocka_unit_test(test_reload_values),
		cmocka_unit_test(test_width_wrap),
		cmocka_unit_test(test_intel_v1_no_global),
		cmocka_unit_test(test_multi_overflow),
		cmocka_unit_test(test_foreign_nmi),
		cmocka_unit_test(test_restore_on_stop),
		cmocka_unit_test(test_restore_legacy_width),
		cmocka_unit_test(test_freeze_thaw),
		cmocka_unit_test(test_program_sequence),
		cmocka_unit_test(test_amd_v2_global),
		cmocka_unit_test(test_throttle_storm),
		cmocka_unit_test(test_throttle_rate_limit),
		cmocka_unit_test(test_throttle_cpu_time),
		cmocka_unit_test(test_throttle_freeze_release),
		cmocka_unit_test(test_freq_step),
		cmocka_unit_test(test_freq_nmi),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_probe_rw),
	};

	return cmocka_run_group_tests_name("pmu", tests, NULL, NULL);
}
