// SPDX-License-Identifier: GPL-2.0
/*
 * What kshim.h declares and the kernel would define: one CPU, a task, a
 * boot CPU for INITIALIZE and no PMU (pmclog_x86_pmu.c's answers when
 * there is none).  Linked with each userland build of the module's code.
 */
#include "pmclog_kern.h"

unsigned int nr_cpu_ids = 1;
unsigned long jiffies;
u64 kshim_ns;
struct apic *apic;
struct cpuinfo_x86 boot_cpu_data = { .x86 = 6, .x86_model = 85, .x86_stepping = 4 };
static struct task_struct task = { .tgid = 100, .pid = 101 };
struct task_struct *current = &task;

u16 pmclog_x86_pmu_kind(void) { return PMCLOG_PMU_NONE; }
u8 pmclog_x86_pmu_vendor(void) { return PMCLOG_CPU_VENDOR_INTEL; }
