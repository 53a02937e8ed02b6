// SPDX-License-Identifier: GPL-2.0
/*
 * x86 PMU programming logic shared by the module and the unit tests; see
 * pmclog_pmu_logic.h.  Every function is bounded and lock-free; the ones
 * that touch MSRs run on the CPU whose counters they program, with
 * interrupts off or in NMI.
 *
 * Overflow.  Counters are loaded with -period (masked to their width), so
 * while they count towards an overflow their top bit is set.  A counter
 * whose top bit is clear has wrapped: that is how overflow is found on AMD
 * before PerfMonV2 and on Intel v1, and how a freeze or a release notices
 * an overflow whose interrupt has not been handled yet.  Intel v2+ says
 * which counters overflowed in GLOBAL_STATUS, acknowledged through
 * GLOBAL_OVF_CTRL (named GLOBAL_STATUS_RESET from v4, same address, same
 * meaning of our bits); AMD PerfMonV2 in PerfCntrGlobalStatus, cleared
 * through PerfCntrGlobalStatusClr.
 *
 * Global control.  On Intel v2+ and AMD PerfMonV2 a counter counts only
 * while its bit in the global control register is set too.  Linux clears
 * AMD's PerfCntrGlobalCtl when a CPU comes online and sets it only while
 * perf has events, so a counter enabled through its event select alone
 * counts nothing on Zen 4: each slot sets its own bit, and release puts
 * back what claim found.
 *
 * Throttling.  A counter whose period is shorter than the time its
 * interrupt takes overflows again before the NMI returns and would keep
 * its CPU in NMIs for ever (the NMI watchdog, which pmclog needs off, is
 * not there to say so).  As perf does in __perf_event_account_interrupt()
 * and perf_sample_event_took(), the handler counts each slot's overflows
 * and its own time per window of a tick (struct pmclog_pmu_limits) and
 * stops a slot over either limit until the window ends; the module's
 * timer calls pmclog_pmu_unthrottle() then.  A throttled slot keeps its
 * place and a whole period; process mode's freeze and thaw leave it
 * stopped, and the unthrottle starts it only if its target still runs.
 */
#include "pmclog_pmu_logic.h"

/* Keeps the compiler from moving slot writes past the publication of a mask. */
static inline void pmclog_pmu_barrier(void)
{
	__asm__ __volatile__("" : : : "memory");
}

/* The lowest slot of a non-empty *@mask, taken out of it. */
static inline unsigned int pmclog_pmu_pop(u32 *mask)
{
	unsigned int slot = __builtin_ctz(*mask);

	*mask &= *mask - 1;
	return slot;
}

static bool pmclog_pmu_has_global(const struct pmclog_pmu_caps *caps)
{
	return (caps->kind == PMCLOG_PMU_INTEL_ARCH ||
		caps->kind == PMCLOG_PMU_AMD_CORE) && caps->version >= 2;
}

static bool pmclog_pmu_amd(const struct pmclog_pmu_caps *caps)
{
	return caps->kind == PMCLOG_PMU_AMD_CORE;
}

/* The global registers of a PMU that has them (pmclog_pmu_has_global()). */
static u32 pmclog_pmu_global_ctl_msr(const struct pmclog_pmu_caps *caps)
{
	return pmclog_pmu_amd(caps) ? PMCLOG_MSR_AMD_GLOBAL_CTL :
				      PMCLOG_MSR_GLOBAL_CTRL;
}

static u32 pmclog_pmu_global_status_msr(const struct pmclog_pmu_caps *caps)
{
	return pmclog_pmu_amd(caps) ? PMCLOG_MSR_AMD_GLOBAL_STATUS :
				      PMCLOG_MSR_GLOBAL_STATUS;
}

static u32 pmclog_pmu_global_ack_msr(const struct pmclog_pmu_caps *caps)
{
	return pmclog_pmu_amd(caps) ? PMCLOG_MSR_AMD_GLOBAL_STATUS_CLR :
				      PMCLOG_MSR_GLOBAL_OVF_CTRL;
}

static unsigned int pmclog_pmu_fls(u32 x)
{
	unsigned int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

#define PMCLOG_WHY_NO_ARCH_PERFMON \
	"CPUID leaf 0xA reports no architectural perfmon (a virtual machine without a virtual PMU?)"

const char *pmclog_pmu_detect(const struct pmclog_pmu_cpuid *id,
			      struct pmclog_pmu_caps *caps)
{
	unsigned int ngp, width, len, nfixed;

	*caps = (struct pmclog_pmu_caps){ .kind = PMCLOG_PMU_NONE };
	switch (id->vendor) {
	case PMCLOG_CPU_VENDOR_INTEL:
		if (!id->arch_perfmon || !(id->a_eax & 0xff))
			return PMCLOG_WHY_NO_ARCH_PERFMON;
		ngp = (id->a_eax >> 8) & 0xff;
		width = (id->a_eax >> 16) & 0xff;
		len = id->a_eax >> 24;
		if (!ngp || width < 32 || width > 64)
			return "CPUID leaf 0xA reports no usable general-purpose counter";
		caps->version = id->a_eax & 0xff;
		caps->ngp = ngp < PMCLOG_PMU_MAX_GP ? ngp : PMCLOG_PMU_MAX_GP;
		caps->gp_width = width;
		/* Events past the length of the EBX bit vector do not exist. */
		caps->arch_unavail = id->a_ebx | (len < 32 ? ~0U << len : 0);
		if (caps->version >= 2) {
			nfixed = id->a_edx & 0x1f;
			if (caps->version >= 5) {
				/* Fixed counter j: ECX[j] or EDX[4:0] > j. */
				caps->fixed_mask = id->a_ecx |
					((nfixed < 32 ? 1U << nfixed : 0) - 1);
			} else {
				/* Early v2 parts report 0; trust that in a VM only. */
				if (nfixed < 3 && !id->hypervisor)
					nfixed = 3;
				caps->fixed_mask = (1U << nfixed) - 1;
			}
			caps->fixed_mask &= (1U << PMCLOG_PMU_MAX_FIXED) - 1;
			caps->nfixed = pmclog_pmu_fls(caps->fixed_mask);
			caps->fixed_width = (id->a_edx >> 5) & 0xff;
			if (caps->fixed_width < 32 || caps->fixed_width > 64)
				caps->fixed_width = width;
		}
		/*
		 * Leaf 0x23 (hybrid parts since Meteor Lake) says which
		 * counters this CPU kind has; the slots here are GP 0..ngp-1,
		 * so a gap ends them.
		 */
		if (id->ext_counters) {
			for (ngp = 0; ngp < 32 && id->ext_gp_mask & (1U << ngp); ngp++)
				;
			if (!ngp)
				return "CPUID leaf 0x23 reports no general-purpose counter 0";
			caps->ngp = ngp < PMCLOG_PMU_MAX_GP ? ngp : PMCLOG_PMU_MAX_GP;
			if (caps->version >= 2) {
				caps->fixed_mask = id->ext_fixed_mask &
					((1U << PMCLOG_PMU_MAX_FIXED) - 1);
				caps->nfixed = pmclog_pmu_fls(caps->fixed_mask);
			}
		}
		caps->full_width_write = id->pdcm &&
					 (id->perf_capabilities & (1ULL << 13));
		caps->kind = PMCLOG_PMU_INTEL_ARCH;
		return NULL;
	case PMCLOG_CPU_VENDOR_AMD:
		if (id->family < 6)
			return "AMD CPU older than K7: no supported PMU";
		caps->kind = id->perfctr_core ? PMCLOG_PMU_AMD_CORE : PMCLOG_PMU_AMD_K7;
		caps->ngp = id->perfctr_core ? 6 : 4;
		caps->gp_width = 48;
		caps->zen = id->family >= 0x17;
		/* As arch/x86/events/amd/core.c: the count is CPUID's, 6 or not. */
		if (id->perfctr_core && id->perfmon_v2) {
			ngp = id->ext_ebx & 0xf;
			if (!ngp) {
				caps->kind = PMCLOG_PMU_NONE;
				return "CPUID 0x80000022 reports PerfMonV2 without core counters";
			}
			caps->version = 2;
			caps->ngp = ngp < PMCLOG_PMU_MAX_GP ? ngp : PMCLOG_PMU_MAX_GP;
		}
		return NULL;
	default:
		return "unknown CPU vendor: no supported PMU";
	}
}

u32 pmclog_pmu_ctl_msr(const struct pmclog_pmu_caps *caps, unsigned int slot)
{
	switch (caps->kind) {
	case PMCLOG_PMU_INTEL_ARCH:
		if (PMCLOG_PMU_IS_FIXED(slot))
			return PMCLOG_MSR_FIXED_CTR_CTRL;
		return PMCLOG_MSR_P6_EVNTSEL0 + slot;
	case PMCLOG_PMU_AMD_CORE:
		return PMCLOG_MSR_F15H_PERF_CTL0 + 2 * slot;
	default:
		return PMCLOG_MSR_K7_EVNTSEL0 + slot;
	}
}

u32 pmclog_pmu_ctr_msr(const struct pmclog_pmu_caps *caps, unsigned int slot)
{
	switch (caps->kind) {
	case PMCLOG_PMU_INTEL_ARCH:
		if (PMCLOG_PMU_IS_FIXED(slot))
			return PMCLOG_MSR_FIXED_CTR0 + slot - PMCLOG_PMU_MAX_GP;
		return PMCLOG_MSR_P6_PERFCTR0 + slot;
	case PMCLOG_PMU_AMD_CORE:
		return PMCLOG_MSR_F15H_PERF_CTL0 + 2 * slot + 1;
	default:
		return PMCLOG_MSR_K7_PERFCTR0 + slot;
	}
}

/* Intel GP counters written through 0xc1 keep bits 31:0, sign-extended. */
static u32 pmclog_pmu_ctr_write_msr(const struct pmclog_pmu_caps *caps,
				    unsigned int slot)
{
	if (caps->kind == PMCLOG_PMU_INTEL_ARCH && !PMCLOG_PMU_IS_FIXED(slot) &&
	    caps->full_width_write)
		return PMCLOG_MSR_IA32_PMC0 + slot;
	return pmclog_pmu_ctr_msr(caps, slot);
}

u32 pmclog_pmu_slots(const struct pmclog_pmu_caps *caps)
{
	return ((1U << caps->ngp) - 1) | (caps->fixed_mask << PMCLOG_PMU_MAX_GP);
}

u64 pmclog_pmu_width_mask(const struct pmclog_pmu_caps *caps,
			  unsigned int slot)
{
	unsigned int w = PMCLOG_PMU_IS_FIXED(slot) ? caps->fixed_width :
						     caps->gp_width;

	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

u64 pmclog_pmu_global_bit(unsigned int slot)
{
	if (PMCLOG_PMU_IS_FIXED(slot))
		return 1ULL << (32 + slot - PMCLOG_PMU_MAX_GP);
	return 1ULL << slot;
}

static u64 pmclog_pmu_top_bit(const struct pmclog_pmu_caps *caps,
			      unsigned int slot)
{
	return (pmclog_pmu_width_mask(caps, slot) >> 1) + 1;
}

struct pmclog_pmu_evmap {
	u32	arch_bit;	/* Intel: CPUID.0xA EBX bit */
	u16	intel;		/* Intel GP encoding, 0: fixed counter only */
	s8	fixed;		/* Intel fixed counter, -1: none */
	u16	amd;		/* AMD encoding, 0: none */
	u16	zen;		/* AMD family 17h+, 0: same as amd */
};

/* As perf's intel_perfmon_event_map, amd_perfmon_event_map and the Zen map. */
static const struct pmclog_pmu_evmap pmclog_pmu_evmap[PMCLOG_EV_RAW] = {
	[PMCLOG_EV_CYCLES]	     = { 0, 0x003c,  1, 0x0076, 0 },
	[PMCLOG_EV_INSTRUCTIONS]     = { 1, 0x00c0,  0, 0x00c0, 0 },
	[PMCLOG_EV_REF_CYCLES]	     = { 2, 0,	     2, 0,	0 },
	[PMCLOG_EV_CACHE_REFERENCES] = { 3, 0x4f2e, -1, 0x077d, 0xff60 },
	[PMCLOG_EV_CACHE_MISSES]     = { 4, 0x412e, -1, 0x077e, 0x0964 },
	[PMCLOG_EV_BRANCHES]	     = { 5, 0x00c4, -1, 0x00c2, 0 },
	[PMCLOG_EV_BRANCH_MISSES]    = { 6, 0x00c5, -1, 0x00c3, 0 },
};

/*
 * How to count @event (PMCLOG_EV_*, @config for PMCLOG_EV_RAW) in the modes
 * of @flags (PMCLOG_PMC_F_USER/KERNEL).  -ENODEV: not on this PMU;
 * -EINVAL: not a PMU event, or a raw select with bits that are ours.
 */
int pmclog_pmu_encode(const struct pmclog_pmu_caps *caps, u32 event,
		      u64 config, u32 flags, struct pmclog_pmu_enc *enc)
{
	bool intel = caps->kind == PMCLOG_PMU_INTEL_ARCH;
	const struct pmclog_pmu_evmap *m;
	u64 mode = PMCLOG_EVSEL_INT, code;

	*enc = (struct pmclog_pmu_enc){ .fixed = -1, .fixed_field = PMCLOG_FIXED_PMI };
	if (flags & PMCLOG_PMC_F_USER) {
		mode |= PMCLOG_EVSEL_USR;
		enc->fixed_field |= PMCLOG_FIXED_USR;
	}
	if (flags & PMCLOG_PMC_F_KERNEL) {
		mode |= PMCLOG_EVSEL_OS;
		enc->fixed_field |= PMCLOG_FIXED_OS;
	}
	if (event < PMCLOG_EV_CYCLES || event > PMCLOG_EV_RAW)
		return -EINVAL;
	if (caps->kind == PMCLOG_PMU_NONE)
		return -ENODEV;
	if (event == PMCLOG_EV_RAW) {
		if (config & ~(intel ? PMCLOG_EVSEL_RAW_INTEL : PMCLOG_EVSEL_RAW_AMD))
			return -EINVAL;
		enc->evtsel = config | mode;
		enc->gp = true;
		return 0;
	}
	m = &pmclog_pmu_evmap[event];
	if (intel) {
		code = m->intel;
		enc->gp = code && !(caps->arch_unavail & (1U << m->arch_bit));
		if (m->fixed >= 0 && (caps->fixed_mask & (1U << m->fixed)))
			enc->fixed = m->fixed;
	} else {
		code = caps->zen && m->zen ? m->zen : m->amd;
		enc->gp = code != 0;
	}
	if (!enc->gp && enc->fixed < 0)
		return -ENODEV;
	enc->evtsel = code | mode;
	return 0;
}

/* The PMCLOG_EV_* this PMU can count, as a mask of (1 << event). */
u32 pmclog_pmu_events(const struct pmclog_pmu_caps *caps)
{
	struct pmclog_pmu_enc enc;
	u32 ev, mask = 0;

	for (ev = PMCLOG_EV_CYCLES; ev <= PMCLOG_EV_RAW; ev++)
		if (!pmclog_pmu_encode(caps, ev, 0, PMCLOG_PMC_F_ALL, &enc))
			mask |= 1U << ev;
	return mask;
}

/* A free slot for @enc: its fixed counter first, else the lowest GP one. */
int pmclog_pmu_pick(const struct pmclog_pmu_caps *caps,
		    const struct pmclog_pmu_enc *enc, u32 busy)
{
	unsigned int i;

	if (enc->fixed >= 0 &&
	    !(busy & (1U << PMCLOG_PMU_FIXED(enc->fixed))))
		return PMCLOG_PMU_FIXED(enc->fixed);
	if (enc->gp)
		for (i = 0; i < caps->ngp; i++)
			if (!(busy & (1U << i)))
				return i;
	return -EBUSY;
}

/*
 * The longest period @slot can count with its top bit set all along.
 * Intel without full-width writes loads 32 bits sign-extended.
 */
u64 pmclog_pmu_max_period(const struct pmclog_pmu_caps *caps,
			  unsigned int slot)
{
	if (caps->kind == PMCLOG_PMU_INTEL_ARCH && !caps->full_width_write)
		return (1ULL << 31) - 1;
	return pmclog_pmu_width_mask(caps, slot) >> 1;
}

/* The counter value that overflows after @period events. */
u64 pmclog_pmu_reload(const struct pmclog_pmu_caps *caps, unsigned int slot,
		      u64 period)
{
	u64 max = pmclog_pmu_max_period(caps, slot);

	if (period > max)
		period = max;
	if (!period)
		period = 1;
	return (0 - period) & pmclog_pmu_width_mask(caps, slot);
}

/*
 * Adaptive frequency: the last @period events took @dt_ns; the period that
 * would take @target_ns at the same rate, moved three quarters of the way
 * from @period, within [@min, @max].  No 128-bit arithmetic: @dt_ns is
 * capped at 2^33 ns (8.6 s) and @target_ns is at most 1e9 (< 2^30).
 */
u64 pmclog_pmu_freq_step(u64 period, u64 dt_ns, u64 target_ns, u64 min,
			 u64 max)
{
	u64 q, ideal, next;

	if (!dt_ns)
		dt_ns = 1;
	if (dt_ns > (1ULL << 33))
		dt_ns = 1ULL << 33;
	q = period / dt_ns;
	if (target_ns && q > max / target_ns)
		ideal = max;
	else
		ideal = q * target_ns + (period % dt_ns) * target_ns / dt_ns;
	if (ideal > max)
		ideal = max;
	if (period > max)
		period = max;
	next = (period + 3 * ideal) / 4;
	if (next < min)
		next = min;
	return next > max ? max : next;
}

static u8 pmclog_pmu_min8(u8 a, u8 b)
{
	return a < b ? a : b;
}

bool pmclog_pmu_caps_merge(struct pmclog_pmu_caps *all,
			   const struct pmclog_pmu_caps *cpu)
{
	struct pmclog_pmu_caps m = *all;
	bool differ;

	if (cpu->kind != all->kind) {
		*all = (struct pmclog_pmu_caps){ .kind = PMCLOG_PMU_NONE };
		return true;
	}
	differ = cpu->version != all->version || cpu->ngp != all->ngp ||
		 cpu->gp_width != all->gp_width ||
		 cpu->fixed_mask != all->fixed_mask ||
		 cpu->fixed_width != all->fixed_width ||
		 cpu->full_width_write != all->full_width_write ||
		 cpu->zen != all->zen || cpu->arch_unavail != all->arch_unavail;
	m.version = pmclog_pmu_min8(all->version, cpu->version);
	m.ngp = pmclog_pmu_min8(all->ngp, cpu->ngp);
	m.gp_width = pmclog_pmu_min8(all->gp_width, cpu->gp_width);
	m.fixed_mask = all->fixed_mask & cpu->fixed_mask;
	m.nfixed = pmclog_pmu_fls(m.fixed_mask);
	m.fixed_width = pmclog_pmu_min8(all->fixed_width, cpu->fixed_width);
	m.full_width_write = all->full_width_write && cpu->full_width_write;
	m.zen = all->zen && cpu->zen;
	m.arch_unavail = all->arch_unavail | cpu->arch_unavail;
	*all = m;
	return differ;
}

/* Write-read-restore on a free GP counter, as perf's check_hw_exists(). */
bool pmclog_pmu_probe_rw(const struct pmclog_pmu_caps *caps)
{
	const u64 magic = 0xabcd;
	unsigned int i;
	u64 old, got;

	for (i = 0; i < caps->ngp; i++) {
		if (pmclog_x86_msr_read(pmclog_pmu_ctl_msr(caps, i)) & PMCLOG_EVSEL_EN)
			continue;
		old = pmclog_x86_msr_read(pmclog_pmu_ctr_msr(caps, i));
		pmclog_x86_msr_write(pmclog_pmu_ctr_write_msr(caps, i), magic);
		got = pmclog_x86_msr_read(pmclog_pmu_ctr_msr(caps, i));
		pmclog_x86_msr_write(pmclog_pmu_ctr_write_msr(caps, i),
				     old & pmclog_pmu_width_mask(caps, i));
		return got == magic;
	}
	return true;	/* every counter is counting: something drives a PMU */
}

/* Slots someone enabled: GP event selects with EN, fixed fields with an enable. */
u32 pmclog_pmu_busy(const struct pmclog_pmu_caps *caps)
{
	u32 busy = 0;
	unsigned int i;
	u64 fctl;

	for (i = 0; i < caps->ngp; i++)
		if (pmclog_x86_msr_read(pmclog_pmu_ctl_msr(caps, i)) & PMCLOG_EVSEL_EN)
			busy |= 1U << i;
	if (!caps->fixed_mask)
		return busy;
	fctl = pmclog_x86_msr_read(PMCLOG_MSR_FIXED_CTR_CTRL);
	for (i = 0; i < PMCLOG_PMU_MAX_FIXED; i++)
		if ((caps->fixed_mask & (1U << i)) &&
		    (fctl >> (4 * i)) & (PMCLOG_FIXED_OS | PMCLOG_FIXED_USR))
			busy |= 1U << PMCLOG_PMU_FIXED(i);
	return busy;
}

static void pmclog_pmu_set_fixed(unsigned int slot, u64 field)
{
	unsigned int sh = 4 * (slot - PMCLOG_PMU_MAX_GP);
	u64 v = pmclog_x86_msr_read(PMCLOG_MSR_FIXED_CTR_CTRL);

	v = (v & ~(0xfULL << sh)) | ((field & 0xf) << sh);
	pmclog_x86_msr_write(PMCLOG_MSR_FIXED_CTR_CTRL, v);
}

static void pmclog_pmu_set_global(const struct pmclog_pmu_caps *caps,
				  unsigned int slot, bool on)
{
	u32 msr = pmclog_pmu_global_ctl_msr(caps);
	u64 v;

	if (!pmclog_pmu_has_global(caps))
		return;
	v = pmclog_x86_msr_read(msr);
	if (on)
		v |= pmclog_pmu_global_bit(slot);
	else
		v &= ~pmclog_pmu_global_bit(slot);
	pmclog_x86_msr_write(msr, v);
}

static void pmclog_pmu_enable(const struct pmclog_pmu_caps *caps,
			      const struct pmclog_pmu_slot *s, unsigned int slot)
{
	if (PMCLOG_PMU_IS_FIXED(slot))
		pmclog_pmu_set_fixed(slot, s->ctl);
	else
		pmclog_x86_msr_write(pmclog_pmu_ctl_msr(caps, slot), s->ctl);
	pmclog_pmu_set_global(caps, slot, true);
}

static void pmclog_pmu_disable(const struct pmclog_pmu_caps *caps,
			       const struct pmclog_pmu_slot *s, unsigned int slot)
{
	pmclog_pmu_set_global(caps, slot, false);
	if (PMCLOG_PMU_IS_FIXED(slot))
		pmclog_pmu_set_fixed(slot, 0);
	else
		pmclog_x86_msr_write(pmclog_pmu_ctl_msr(caps, slot),
				     s->ctl & ~PMCLOG_EVSEL_EN);
}

static void pmclog_pmu_load(const struct pmclog_pmu_caps *caps,
			    unsigned int slot, u64 val)
{
	pmclog_x86_msr_write(pmclog_pmu_ctr_write_msr(caps, slot),
			     val & pmclog_pmu_width_mask(caps, slot));
}

/* Whether @slot overflowed and its interrupt is not handled yet. */
static bool pmclog_pmu_slot_overflowed(const struct pmclog_pmu_caps *caps,
				       unsigned int slot)
{
	if (pmclog_pmu_has_global(caps))
		return pmclog_x86_msr_read(pmclog_pmu_global_status_msr(caps)) &
		       pmclog_pmu_global_bit(slot);
	return !(pmclog_x86_msr_read(pmclog_pmu_ctr_msr(caps, slot)) &
		 pmclog_pmu_top_bit(caps, slot));
}

static void pmclog_pmu_ack(const struct pmclog_pmu_caps *caps, u64 gbits)
{
	if (pmclog_pmu_has_global(caps) && gbits)
		pmclog_x86_msr_write(pmclog_pmu_global_ack_msr(caps), gbits);
}

/*
 * Take @slot on this CPU for the counter described by @init (pmc, ctl with
 * its enable bits, period, target_ns): save its MSRs, load -period, and
 * start it when @run (else it waits, frozen, for pmclog_pmu_thaw()).  The
 * caller made sure the slot is free (pmclog_pmu_busy(), reservations).
 */
void pmclog_pmu_claim(const struct pmclog_pmu_caps *caps,
		      struct pmclog_pmu_cpu *pc, unsigned int slot,
		      const struct pmclog_pmu_slot *init, bool run, u64 now)
{
	struct pmclog_pmu_slot *s = &pc->slot[slot];
	u32 bit = 1U << slot;
	u64 reload;

	*s = *init;
	if (PMCLOG_PMU_IS_FIXED(slot))
		s->saved.ctl = (pmclog_x86_msr_read(PMCLOG_MSR_FIXED_CTR_CTRL) >>
				(4 * (slot - PMCLOG_PMU_MAX_GP))) & 0xf;
	else
		s->saved.ctl = pmclog_x86_msr_read(pmclog_pmu_ctl_msr(caps, slot));
	s->saved.count = pmclog_x86_msr_read(pmclog_pmu_ctr_msr(caps, slot));
	s->saved.global_en = pmclog_pmu_has_global(caps) &&
		(pmclog_x86_msr_read(pmclog_pmu_global_ctl_msr(caps)) &
		 pmclog_pmu_global_bit(slot));

	pmclog_pmu_disable(caps, s, slot);
	reload = pmclog_pmu_reload(caps, slot, s->period);
	pmclog_pmu_load(caps, slot, reload);
	s->frozen_count = reload;
	s->frozen_ns = 0;
	s->last_ns = now;
	pc->throttled &= ~bit;
	pmclog_pmu_barrier();
	pc->active |= bit;
	pmclog_pmu_barrier();
	if (run) {
		pmclog_pmu_enable(caps, s, slot);
		pc->running |= bit;
	}
}

/*
 * Stop the running slots of @mask and keep their counts (process mode: the
 * target leaves this CPU).  An overflow not yet handled is dropped, its
 * counter reloaded, and its late NMI expected.
 */
void pmclog_pmu_freeze(const struct pmclog_pmu_caps *caps,
		       struct pmclog_pmu_cpu *pc, u32 mask, u64 now)
{
	unsigned int slot;

	mask &= pc->running;
	while (mask) {
		struct pmclog_pmu_slot *s;

		slot = pmclog_pmu_pop(&mask);
		s = &pc->slot[slot];

		/* Stopped, with a whole period, until its unthrottle. */
		if (pc->throttled & (1U << slot)) {
			pc->running &= ~(1U << slot);
			continue;
		}
		pmclog_pmu_disable(caps, s, slot);
		pc->running &= ~(1U << slot);
		if (pmclog_pmu_slot_overflowed(caps, slot)) {
			s->frozen_count = pmclog_pmu_reload(caps, slot, s->period);
			pmclog_pmu_load(caps, slot, s->frozen_count);
			pmclog_pmu_ack(caps, pmclog_pmu_global_bit(slot));
			pc->late_until = now + PMCLOG_PMU_LATE_NS;
		} else {
			s->frozen_count = pmclog_x86_msr_read(pmclog_pmu_ctr_msr(caps, slot));
		}
		s->frozen_ns = now - s->last_ns;
	}
}

/* Restart the frozen slots of @mask where they stopped. */
void pmclog_pmu_thaw(const struct pmclog_pmu_caps *caps,
		     struct pmclog_pmu_cpu *pc, u32 mask, u64 now)
{
	unsigned int slot;

	mask &= pc->active & ~pc->running;
	while (mask) {
		struct pmclog_pmu_slot *s;

		slot = pmclog_pmu_pop(&mask);
		s = &pc->slot[slot];

		/* Its unthrottle starts it. */
		if (pc->throttled & (1U << slot)) {
			pc->running |= 1U << slot;
			continue;
		}
		pmclog_pmu_load(caps, slot, s->frozen_count);
		s->last_ns = now - s->frozen_ns;
		pmclog_pmu_enable(caps, s, slot);
		pc->running |= 1U << slot;
	}
}

/*
 * Give @slot back: stop it, acknowledge an overflow it left, and put back
 * every MSR value pmclog_pmu_claim() found.  Without full-width writes an
 * Intel GP count comes back as its low 32 bits sign-extended: the most
 * the hardware allows.
 */
void pmclog_pmu_release(const struct pmclog_pmu_caps *caps,
			struct pmclog_pmu_cpu *pc, unsigned int slot, u64 now)
{
	struct pmclog_pmu_slot *s = &pc->slot[slot];
	u32 bit = 1U << slot;

	if (!(pc->active & bit))
		return;
	pmclog_pmu_disable(caps, s, slot);
	if (pmclog_pmu_slot_overflowed(caps, slot)) {
		pmclog_pmu_ack(caps, pmclog_pmu_global_bit(slot));
		pc->late_until = now + PMCLOG_PMU_LATE_NS;
	}
	pc->running &= ~bit;
	pmclog_pmu_barrier();
	pc->active &= ~bit;
	pmclog_pmu_barrier();
	/* No NMI throttles it now: its throttle, if any, ends here. */
	if (pc->throttled & bit) {
		pc->throttled &= ~bit;
		pmclog_sample_unthrottle(s->pmc, s->throttle_reason, now,
					 now - s->throttled_at);
	}

	pmclog_pmu_load(caps, slot, s->saved.count);
	if (PMCLOG_PMU_IS_FIXED(slot))
		pmclog_pmu_set_fixed(slot, s->saved.ctl);
	else
		pmclog_x86_msr_write(pmclog_pmu_ctl_msr(caps, slot), s->saved.ctl);
	pmclog_pmu_set_global(caps, slot, s->saved.global_en);
}

/* The active slots of this CPU that overflowed. */
u32 pmclog_pmu_overflowed(const struct pmclog_pmu_caps *caps,
			  const struct pmclog_pmu_cpu *pc)
{
	u32 mask = 0, active = pc->active;
	unsigned int slot;
	u64 st = 0;

	if (pmclog_pmu_has_global(caps) && active)
		st = pmclog_x86_msr_read(pmclog_pmu_global_status_msr(caps));
	while (active) {
		slot = pmclog_pmu_pop(&active);
		if (pmclog_pmu_has_global(caps)) {
			if (st & pmclog_pmu_global_bit(slot))
				mask |= 1U << slot;
		} else if (!(pmclog_x86_msr_read(pmclog_pmu_ctr_msr(caps, slot)) &
			     pmclog_pmu_top_bit(caps, slot))) {
			mask |= 1U << slot;
		}
	}
	return mask;
}

/* The window @now falls in: the current one, or a new one after it ended. */
static void pmclog_pmu_window(struct pmclog_pmu_cpu *pc, u64 now)
{
	if (pc->win_seq && now - pc->win_start < pc->lim.tick_ns)
		return;
	pc->win_start = now;
	pc->win_seq++;
	pc->win_ns = 0;
}

/* Count an overflow of @s; the limit it goes over, or 0. */
static unsigned int pmclog_pmu_over_limit(struct pmclog_pmu_cpu *pc,
					  struct pmclog_pmu_slot *s)
{
	if (s->win_seq != pc->win_seq) {
		s->win_seq = pc->win_seq;
		s->overflows = 0;
	}
	s->overflows++;
	if (pc->lim.max_per_tick && s->overflows > pc->lim.max_per_tick)
		return PMCLOG_THROTTLE_RATE;
	if (pc->lim.max_ns_per_tick && pc->win_ns > pc->lim.max_ns_per_tick)
		return PMCLOG_THROTTLE_CPU_TIME;
	return 0;
}

/*
 * Stop @slot, just reloaded and acknowledged, until the window ends.  One
 * that overflowed again since has its interrupt acknowledged and its late
 * NMI expected; it restarts with a whole period.  In NMI.
 */
static void pmclog_pmu_throttle(const struct pmclog_pmu_caps *caps,
				struct pmclog_pmu_cpu *pc, unsigned int slot,
				unsigned int reason, u64 now)
{
	struct pmclog_pmu_slot *s = &pc->slot[slot];

	pmclog_pmu_disable(caps, s, slot);
	if (pmclog_pmu_slot_overflowed(caps, slot)) {
		pmclog_pmu_ack(caps, pmclog_pmu_global_bit(slot));
		pc->late_until = now + PMCLOG_PMU_LATE_NS;
	}
	s->frozen_count = pmclog_pmu_reload(caps, slot, s->period);
	pmclog_pmu_load(caps, slot, s->frozen_count);
	s->frozen_ns = 0;
	s->throttle_reason = reason;
	s->throttled_at = now;
	s->throttled_until = pc->win_start + pc->lim.tick_ns;
	pc->throttled |= 1U << slot;
	pc->throttles++;
	pmclog_sample_throttle(s->pmc, reason, now);
}

/*
 * The NMI handler's work: sample (pmclog_sample_take(pmc, @regs)) and reload
 * every overflowed slot, then acknowledge them; with a global status (Intel
 * v2+, AMD PerfMonV2) again while it shows new overflows, a bounded number
 * of rounds.  A slot over the interrupt limits is sampled, then throttled.
 * Returns how many overflows it handled; 0 means the NMI was not ours
 * (counted in pc->foreign), unless it is the late PMI of a counter that
 * went away.  The caller unmasks the LVT and, when it handled some,
 * reports the handler's time (pmclog_pmu_nmi_took()).
 */
int pmclog_pmu_handle_nmi(const struct pmclog_pmu_caps *caps,
			  struct pmclog_pmu_cpu *pc, u64 now,
			  struct pt_regs *regs)
{
	unsigned int round, slot, reason;
	int handled = 0;
	u32 mask, over;
	u64 gbits;

	if (!pc->active && !pc->late_until)
		return 0;
	pmclog_pmu_window(pc, now);
	for (round = 0; round < PMCLOG_PMU_MAX_ROUNDS; round++) {
		mask = pmclog_pmu_overflowed(caps, pc);
		if (!mask)
			break;
		gbits = 0;
		over = 0;
		while (mask) {
			struct pmclog_pmu_slot *s;

			slot = pmclog_pmu_pop(&mask);
			s = &pc->slot[slot];
			pmclog_sample_take(s->pmc, regs);
			if (s->target_ns) {
				u64 max = pmclog_pmu_max_period(caps, slot);

				s->period = pmclog_pmu_freq_step(s->period,
								 now - s->last_ns,
								 s->target_ns,
								 PMCLOG_PMU_MIN_PERIOD,
								 max);
				s->last_ns = now;
			}
			s->frozen_count = pmclog_pmu_reload(caps, slot, s->period);
			pmclog_pmu_load(caps, slot, s->frozen_count);
			gbits |= pmclog_pmu_global_bit(slot);
			handled++;
			reason = pmclog_pmu_over_limit(pc, s);
			if (reason) {
				s->throttle_reason = reason;
				over |= 1U << slot;
			}
		}
		pmclog_pmu_ack(caps, gbits);
		/* After the ack, so that only a new overflow shows. */
		while (over) {
			slot = pmclog_pmu_pop(&over);
			pmclog_pmu_throttle(caps, pc, slot,
					    pc->slot[slot].throttle_reason, now);
		}
		if (!pmclog_pmu_has_global(caps))
			break;
	}
	if (handled) {
		pc->handled += handled;
		return handled;
	}
	if (pc->late_until && now < pc->late_until) {
		pc->late_until = 0;
		return 1;
	}
	pc->foreign++;
	return 0;
}

/*
 * An NMI that handled overflows ran from @start to @end: its time counts
 * against the window's max_ns_per_tick.
 */
void pmclog_pmu_nmi_took(struct pmclog_pmu_cpu *pc, u64 start, u64 end)
{
	if (pc->win_seq && start - pc->win_start < pc->lim.tick_ns &&
	    end > start)
		pc->win_ns += end - start;
}

/* When the first throttled slot of this CPU may restart; 0: none is. */
u64 pmclog_pmu_next_unthrottle(const struct pmclog_pmu_cpu *pc)
{
	u32 mask = pc->throttled & pc->active;
	u64 next = 0;

	while (mask) {
		u64 until = pc->slot[pmclog_pmu_pop(&mask)].throttled_until;

		if (!next || until < next)
			next = until;
	}
	return next;
}

/*
 * Restart the throttled slots whose window ended by @now (those whose
 * target is switched out only stop being throttled), telling
 * pmclog_sample_unthrottle() first.  Returns when the next one may restart,
 * 0 if none is left.  With interrupts off; an NMI may come in between,
 * and throttle a slot again once it counts.
 */
u64 pmclog_pmu_unthrottle(const struct pmclog_pmu_caps *caps,
			  struct pmclog_pmu_cpu *pc, u64 now)
{
	u32 mask = pc->throttled & pc->active;
	unsigned int slot;
	u64 next = 0;

	while (mask) {
		struct pmclog_pmu_slot *s;
		bool run;
		u32 bit;

		slot = pmclog_pmu_pop(&mask);
		s = &pc->slot[slot];
		bit = 1U << slot;
		if (s->throttled_until > now) {
			if (!next || s->throttled_until < next)
				next = s->throttled_until;
			continue;
		}
		run = pc->running & bit;
		if (run) {
			pmclog_pmu_load(caps, slot, s->frozen_count);
			s->last_ns = now - s->frozen_ns;
		}
		pc->throttled &= ~bit;
		pmclog_sample_unthrottle(s->pmc, s->throttle_reason, now,
					 now - s->throttled_at);
		pmclog_pmu_barrier();
		if (run)
			pmclog_pmu_enable(caps, s, slot);
	}
	return next;
}
