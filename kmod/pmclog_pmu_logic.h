/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 PMU programming logic that needs no kernel: CPUID decoding, event
 * select encoding, counter choice, reload arithmetic, the programming
 * sequences (claim, program, freeze, thaw, release), overflow handling and
 * the interrupt limits (throttle, unthrottle).
 *
 * It is compiled into the module and into tests/unit/test_pmu.c.  It
 * calls down, never back into its caller: kmod/pmclog_x86_pmu.c calls it,
 * it reaches the MSRs through kmod/pmclog_x86_msr.c and hands samples and
 * throttles to kmod/pmclog_sample.c, all link-time functions, which the
 * test replaces with a simulated PMU.  The NMI path reads
 * pmclog_x86_pmu_nmi() -> pmclog_pmu_handle_nmi() -> pmclog_x86_msr_*(),
 * pmclog_sample_take().  No indirect calls on it, no locks, no allocation
 * anywhere in here.
 *
 * Counters are numbered by "slot": general-purpose counter i is slot i,
 * Intel fixed counter j is slot PMCLOG_PMU_FIXED(j).  A u32 mask of slots
 * is how every function here names sets of counters.
 */
#ifndef _PMCLOG_PMU_LOGIC_H
#define _PMCLOG_PMU_LOGIC_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
/* The kernel's names, for the unit tests' build of the same code. */
typedef __s8 s8;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;
#define BIT_ULL(n)	(1ULL << (n))
#endif

#include "../include/uapi/linux/pmclog.h"

struct pmclog_pmc;	/* kmod/pmclog_kern.h; opaque here */
struct pt_regs;

#define PMCLOG_PMU_MAX_GP	8
#define PMCLOG_PMU_MAX_FIXED	4
#define PMCLOG_PMU_MAX_SLOTS	(PMCLOG_PMU_MAX_GP + PMCLOG_PMU_MAX_FIXED)
#define PMCLOG_PMU_FIXED(j)	(PMCLOG_PMU_MAX_GP + (j))
#define PMCLOG_PMU_IS_FIXED(s)	((s) >= PMCLOG_PMU_MAX_GP)

/* Intel architectural perfmon MSRs. */
#define PMCLOG_MSR_P6_EVNTSEL0		0x186
#define PMCLOG_MSR_P6_PERFCTR0		0xc1
#define PMCLOG_MSR_IA32_PMC0		0x4c1	/* full-width writes */
#define PMCLOG_MSR_FIXED_CTR0		0x309
#define PMCLOG_MSR_PERF_CAPABILITIES	0x345
#define PMCLOG_MSR_FIXED_CTR_CTRL	0x38d
#define PMCLOG_MSR_GLOBAL_STATUS	0x38e
#define PMCLOG_MSR_GLOBAL_CTRL		0x38f
#define PMCLOG_MSR_GLOBAL_OVF_CTRL	0x390	/* v4+: GLOBAL_STATUS_RESET */
/* AMD. */
#define PMCLOG_MSR_K7_EVNTSEL0		0xc0010000
#define PMCLOG_MSR_K7_PERFCTR0		0xc0010004
#define PMCLOG_MSR_F15H_PERF_CTL0	0xc0010200	/* CTL i at +2i, CTR i at +2i+1 */
/* AMD PerfMonV2 (Zen 4 and later): counter i is bit i of each. */
#define PMCLOG_MSR_AMD_GLOBAL_STATUS	0xc0000300	/* PerfCntrGlobalStatus, read-only */
#define PMCLOG_MSR_AMD_GLOBAL_CTL	0xc0000301	/* PerfCntrGlobalCtl */
#define PMCLOG_MSR_AMD_GLOBAL_STATUS_CLR 0xc0000302	/* write 1s: clear status bits */
#define PMCLOG_MSR_AMD_GLOBAL_STATUS_SET 0xc0000303	/* write 1s: set status bits */

/* AMD's extended performance monitoring leaf (PerfMonV2, counters). */
#define PMCLOG_CPUID_AMD_PERFMON	0x80000022

/* Event select bits (same low half on Intel and AMD). */
#define PMCLOG_EVSEL_EVENT	0x000000ffULL
#define PMCLOG_EVSEL_UMASK	0x0000ff00ULL
#define PMCLOG_EVSEL_USR	BIT_ULL(16)
#define PMCLOG_EVSEL_OS		BIT_ULL(17)
#define PMCLOG_EVSEL_EDGE	BIT_ULL(18)
#define PMCLOG_EVSEL_INT	BIT_ULL(20)
#define PMCLOG_EVSEL_EN		BIT_ULL(22)
#define PMCLOG_EVSEL_INV	BIT_ULL(23)
#define PMCLOG_EVSEL_CMASK	0xff000000ULL
#define PMCLOG_EVSEL_AMD_EVENT_HI	0xf00000000ULL	/* event bits 11:8 */

/* Bits a raw event (r<hex>) may set; the mode and enable bits are ours. */
#define PMCLOG_EVSEL_RAW_INTEL	(PMCLOG_EVSEL_EVENT | PMCLOG_EVSEL_UMASK | \
				 PMCLOG_EVSEL_EDGE | PMCLOG_EVSEL_INV | \
				 PMCLOG_EVSEL_CMASK)
#define PMCLOG_EVSEL_RAW_AMD	(PMCLOG_EVSEL_RAW_INTEL | PMCLOG_EVSEL_AMD_EVENT_HI)

/* Fixed counter control: a 4-bit field per counter. */
#define PMCLOG_FIXED_OS		0x1ULL
#define PMCLOG_FIXED_USR	0x2ULL
#define PMCLOG_FIXED_PMI	0x8ULL
#define PMCLOG_FIXED_FIELD(j)	(0xfULL << (4 * (j)))

/* A period below this would turn the machine into an NMI storm. */
#define PMCLOG_PMU_MIN_PERIOD	1000ULL
#define PMCLOG_PMU_NSEC_PER_SEC	1000000000ULL
/* An NMI that finds nothing this soon after a release may be its late PMI. */
#define PMCLOG_PMU_LATE_NS	1000000ULL
/* With a global status: rounds of "read status, handle, ack" in one NMI. */
#define PMCLOG_PMU_MAX_ROUNDS	8

/* Intel's architectural perfmon extension leaf (counters per CPU kind). */
#define PMCLOG_CPUID_INTEL_PERFMON_EXT	0x23

/*
 * What the kernel (or a test) read from CPUID and MSRs for detection, on
 * one CPU: on Intel hybrid parts leaves 0xA and 0x23 differ by CPU kind.
 */
struct pmclog_pmu_cpuid {
	u8	vendor;		/* PMCLOG_CPU_VENDOR_* */
	u8	family;
	bool	hypervisor;	/* CPUID.1:ECX[31] */
	bool	arch_perfmon;	/* Intel: CPUID.1... X86_FEATURE_ARCH_PERFMON */
	u32	a_eax, a_ebx, a_ecx, a_edx;	/* Intel: CPUID leaf 0xA */
	bool	ext_counters;	/* Intel: CPUID 0x23.0:EAX[1], sub-leaf 1 valid */
	u32	ext_gp_mask;	/* Intel: CPUID 0x23.1:EAX, GP counter bitmap */
	u32	ext_fixed_mask;	/* Intel: CPUID 0x23.1:EBX, fixed counter bitmap */
	bool	pdcm;		/* Intel: PERF_CAPABILITIES exists */
	u64	perf_capabilities;
	bool	perfctr_core;	/* AMD: CPUID 0x80000001 ECX[23] */
	bool	perfmon_v2;	/* AMD: CPUID 0x80000022 EAX[0] */
	u32	ext_ebx;	/* AMD: CPUID 0x80000022 EBX; [3:0] core counters */
};

/* The PMU of this machine.  Filled once by pmclog_pmu_detect(). */
struct pmclog_pmu_caps {
	u16	kind;		/* PMCLOG_PMU_* */
	u8	version;	/* Intel perfmon version; AMD: 2 with PerfMonV2, else 0 */
	u8	ngp;
	u8	nfixed;		/* highest fixed counter + 1 */
	u8	gp_width;
	u8	fixed_width;
	bool	full_width_write;
	bool	zen;		/* AMD family 17h and later: other cache events */
	u32	fixed_mask;	/* fixed counters that exist */
	u32	arch_unavail;	/* Intel: architectural events not available */
};

/* How an event is counted: a GP event select, a fixed counter, or both. */
struct pmclog_pmu_enc {
	u64	evtsel;		/* GP event select with mode and INT bits, no EN */
	int	fixed;		/* fixed counter that counts it, or -1 */
	bool	gp;		/* a GP counter can count it */
	u64	fixed_field;	/* the fixed counter's 4-bit control (unshifted) */
};

/* The MSRs of one counter as found before it was claimed. */
struct pmclog_pmu_saved {
	u64	ctl;		/* GP event select, or the fixed control field */
	u64	count;
	bool	global_en;	/* its global control bit (Intel v2+, AMD v2) */
};

/* One claimed counter on one CPU.  Written by the owner of the slot. */
struct pmclog_pmu_slot {
	struct pmclog_pmc	*pmc;		/* for pmclog_sample_*() */
	u64			ctl;		/* control value with enables */
	u64			period;		/* current; adapted in freq mode */
	u64			target_ns;	/* freq mode: 1e9 / Hz, else 0 */
	u64			last_ns;	/* freq mode: last overflow */
	u64			frozen_ns;	/* freq mode: ran before a freeze */
	u64			frozen_count;	/* counter value at freeze */
	u64			win_seq;	/* the window @overflows are of */
	u32			overflows;	/* in that window */
	u32			throttle_reason; /* PMCLOG_THROTTLE_*, if throttled */
	u64			throttled_at;
	u64			throttled_until; /* the end of that window */
	struct pmclog_pmu_saved	saved;
};

/*
 * The interrupt limits, as perf's max_samples_per_tick and
 * perf_cpu_time_max_percent.  Time on a CPU is cut in windows of a tick,
 * each opened by the first overflow after the last one ended.  A slot
 * that overflows more than @max_per_tick times in a window, or overflows
 * after the handler spent more than @max_ns_per_tick of it, is stopped
 * (throttled) until the window ends; pmclog_pmu_unthrottle() restarts it.
 * 0 turns a limit off; the module sets both.
 */
struct pmclog_pmu_limits {
	u64	tick_ns;		/* the window */
	u64	max_ns_per_tick;	/* handler time per window */
	u32	max_per_tick;		/* overflows of a slot per window */
};

/*
 * Per CPU.  Touched only on its CPU: by the NMI handler, and by code that
 * runs there with interrupts off (IPIs, hotplug callbacks, the scheduler
 * hook, the unthrottle timer).  @active is published last when a slot is
 * added and cleared first when one is removed, so an NMI sees only
 * complete slots.  A slot counts while it is running and not throttled.
 */
struct pmclog_pmu_cpu {
	u32			active;		/* slots claimed and programmed */
	u32			running;	/* active slots the target wants */
	u32			throttled;	/* active slots the limits stopped */
	u64			foreign;	/* NMIs that were not ours */
	u64			handled;	/* counter overflows handled */
	u64			throttles;	/* slots throttled, in all */
	u64			late_until;	/* see PMCLOG_PMU_LATE_NS */
	struct pmclog_pmu_limits lim;		/* set before the first claim */
	u64			win_start;	/* the current window */
	u64			win_seq;	/* windows opened; 0: none yet */
	u64			win_ns;		/* handler time in it */
	struct pmclog_pmu_slot	slot[PMCLOG_PMU_MAX_SLOTS];
};

/*
 * MSR access, in kmod/pmclog_x86_msr.c (its twin in tests/unit/test_pmu.c
 * simulates a PMU).  NMI-safe; a read that faults returns 0.
 */
u64 pmclog_x86_msr_read(u32 msr);
void pmclog_x86_msr_write(u32 msr, u64 val);

/*
 * Where samples and throttles go: kmod/pmclog_sample.c (declared there too,
 * in pmclog_kern.h; the test counts them instead).  pmclog_sample_take()
 * and pmclog_sample_throttle() run in NMI; pmclog_sample_unthrottle() with
 * interrupts off, when a throttled slot restarts or is released after
 * @stopped_ns.
 */
void pmclog_sample_take(struct pmclog_pmc *pmc, struct pt_regs *regs);
void pmclog_sample_throttle(struct pmclog_pmc *pmc, unsigned int reason,
			    u64 tstamp);
void pmclog_sample_unthrottle(struct pmclog_pmc *pmc, unsigned int reason,
			      u64 tstamp, u64 stopped_ns);

/* Detection; returns NULL, or why there is no usable PMU. */
const char *pmclog_pmu_detect(const struct pmclog_pmu_cpuid *id,
			      struct pmclog_pmu_caps *caps);
/* Whether the probed counter keeps what is written (a real PMU does). */
bool pmclog_pmu_probe_rw(const struct pmclog_pmu_caps *caps);
/*
 * Fold one CPU's @cpu into @all, the counters and events every CPU so far
 * has; returns whether they differed (CPUs of different kinds).
 */
bool pmclog_pmu_caps_merge(struct pmclog_pmu_caps *all,
			   const struct pmclog_pmu_caps *cpu);

/* MSR addresses. */
u32 pmclog_pmu_ctl_msr(const struct pmclog_pmu_caps *caps, unsigned int slot);
u32 pmclog_pmu_ctr_msr(const struct pmclog_pmu_caps *caps, unsigned int slot);
u32 pmclog_pmu_slots(const struct pmclog_pmu_caps *caps);
u64 pmclog_pmu_width_mask(const struct pmclog_pmu_caps *caps,
			  unsigned int slot);
u64 pmclog_pmu_global_bit(unsigned int slot);

/* Events. */
int pmclog_pmu_encode(const struct pmclog_pmu_caps *caps, u32 event,
		      u64 config, u32 flags, struct pmclog_pmu_enc *enc);
u32 pmclog_pmu_events(const struct pmclog_pmu_caps *caps);
int pmclog_pmu_pick(const struct pmclog_pmu_caps *caps,
		    const struct pmclog_pmu_enc *enc, u32 busy);

/* Periods. */
u64 pmclog_pmu_max_period(const struct pmclog_pmu_caps *caps,
			  unsigned int slot);
u64 pmclog_pmu_reload(const struct pmclog_pmu_caps *caps, unsigned int slot,
		      u64 period);
u64 pmclog_pmu_freq_step(u64 period, u64 dt_ns, u64 target_ns, u64 min,
			 u64 max);

/* Sequences, on the CPU whose counters they program. */
u32 pmclog_pmu_busy(const struct pmclog_pmu_caps *caps);
void pmclog_pmu_claim(const struct pmclog_pmu_caps *caps,
		      struct pmclog_pmu_cpu *pc, unsigned int slot,
		      const struct pmclog_pmu_slot *init, bool run, u64 now);
void pmclog_pmu_freeze(const struct pmclog_pmu_caps *caps,
		       struct pmclog_pmu_cpu *pc, u32 mask, u64 now);
void pmclog_pmu_thaw(const struct pmclog_pmu_caps *caps,
		     struct pmclog_pmu_cpu *pc, u32 mask, u64 now);
void pmclog_pmu_release(const struct pmclog_pmu_caps *caps,
			struct pmclog_pmu_cpu *pc, unsigned int slot, u64 now);
u32 pmclog_pmu_overflowed(const struct pmclog_pmu_caps *caps,
			  const struct pmclog_pmu_cpu *pc);
int pmclog_pmu_handle_nmi(const struct pmclog_pmu_caps *caps,
			  struct pmclog_pmu_cpu *pc, u64 now,
			  struct pt_regs *regs);

/* Throttling, on the CPU whose counters it programs. */
void pmclog_pmu_nmi_took(struct pmclog_pmu_cpu *pc, u64 start, u64 end);
u64 pmclog_pmu_next_unthrottle(const struct pmclog_pmu_cpu *pc);
u64 pmclog_pmu_unthrottle(const struct pmclog_pmu_caps *caps,
			  struct pmclog_pmu_cpu *pc, u64 now);

#endif /* _PMCLOG_PMU_LOGIC_H */
