// SPDX-License-Identifier: GPL-2.0
/*
 * What INITIALIZE says about the machine: CPU identity and which hardware
 * PMU, if any, the sampling sources could drive (found by pmclog_x86_pmu.c).
 */
#include <linux/string.h>
#include <asm/processor.h>

#include "pmclog.h"

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
