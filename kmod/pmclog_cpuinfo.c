// SPDX-License-Identifier: GPL-2.0
/*
 * What INITIALIZE says about the machine: CPU identity and which hardware
 * PMU, if any, the sampling sources could drive.
 */
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "pmclog.h"

/*
 * The PMU is detected through CPUID, never by probing MSRs: under QEMU/TCG
 * every PMU MSR reads 0 and accepts writes without a fault, so "no #GP"
 * proves nothing.  The AMD legacy block has no CPUID bit at all and is only
 * claimed together with perfctr_core's absence on families that have it.
 */
static u16 pmclog_pmu_kind(void)
{
	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
	case X86_VENDOR_ZHAOXIN:
		if (boot_cpu_has(X86_FEATURE_ARCH_PERFMON) &&
		    (cpuid_eax(0xa) & 0xff))
			return PMCLOG_PMU_INTEL_ARCH;
		return PMCLOG_PMU_NONE;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		if (boot_cpu_has(X86_FEATURE_PERFCTR_CORE))
			return PMCLOG_PMU_AMD_CORE;
		return PMCLOG_PMU_NONE;
	default:
		return PMCLOG_PMU_NONE;
	}
}

/* For the load message: what the module found, and why nothing if so. */
const char *pmclog_pmu_describe(void)
{
	switch (pmclog_pmu_kind()) {
	case PMCLOG_PMU_INTEL_ARCH:
		return "Intel architectural perfmon";
	case PMCLOG_PMU_AMD_CORE:
		return "AMD core performance counters";
	}
	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
	case X86_VENDOR_ZHAOXIN:
		return "none (CPUID leaf 0xA reports no architectural perfmon: a VM without vPMU?)";
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		return "none (CPUID reports no perfctr_core: a VM without vPMU?)";
	default:
		return "none (unknown CPU vendor)";
	}
}

void pmclog_cpuinfo_fill(struct pmclog_initialize *init)
{
	const struct cpuinfo_x86 *c = &boot_cpu_data;

	switch (c->x86_vendor) {
	case X86_VENDOR_INTEL:
		init->cpu_vendor = PMCLOG_CPU_VENDOR_INTEL;
		break;
	case X86_VENDOR_AMD:
		init->cpu_vendor = PMCLOG_CPU_VENDOR_AMD;
		break;
	default:
		init->cpu_vendor = PMCLOG_CPU_VENDOR_UNKNOWN;
		break;
	}
	init->cpu_family = c->x86;
	init->cpu_model = c->x86_model;
	init->cpu_stepping = c->x86_stepping;
	init->pmu = pmclog_pmu_kind();
	memset(init->cpu_id, 0, sizeof(init->cpu_id));
	strscpy(init->cpu_id, c->x86_vendor_id, sizeof(init->cpu_id));
}
