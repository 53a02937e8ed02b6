// SPDX-License-Identifier: GPL-2.0
/*
 * MSR access for the x86 PMU logic (pmclog_pmu_logic.c), the one place the
 * module reads or writes a PMU register.  tests/unit/test_pmu.c defines the
 * same two functions over a simulated PMU, so the logic is tested as it
 * runs here.
 *
 * Any context, NMI included; on the CPU whose registers they touch.
 */
#include <linux/types.h>
#include <asm/msr.h>

#include "pmclog_pmu_logic.h"

/* A hypervisor may fault on what CPUID promised: such a read gives 0. */
u64 pmclog_x86_msr_read(u32 msr)
{
	u64 v;

	if (rdmsrl_safe(msr, &v))
		return 0;
	return v;
}

/* A write that faults (a hypervisor refusing it) is dropped. */
void pmclog_x86_msr_write(u32 msr, u64 val)
{
	wrmsrl_safe(msr, val);
}
