// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog: sampling profiler with tracking of dynamically loaded objects,
 * after FreeBSD's hwpmc(4).  Module parameters, load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "pmclog_kern.h"

unsigned int pmclog_nsamples = 512;
module_param_named(nsamples, pmclog_nsamples, uint, 0444);
MODULE_PARM_DESC(nsamples,
		 "Samples each CPU buffers between drains (1-65536, default 512)");

/* A quarter: 20 kHz per CPU needs no early drain at HZ=250 (pmclog_sample.c). */
unsigned int pmclog_drain_watermark = 25;
module_param_named(drain_watermark, pmclog_drain_watermark, uint, 0444);
MODULE_PARM_DESC(drain_watermark,
		 "Percent of nsamples waiting on a CPU at which it drains at once, not at its next tick (0-100, 0: at the tick only; default 25)");

/* As perf's kernel.perf_event_max_sample_rate, and with its default. */
unsigned int pmclog_max_sample_rate = 100000;
module_param_named(max_sample_rate, pmclog_max_sample_rate, uint, 0444);
MODULE_PARM_DESC(max_sample_rate,
		 "Highest sampling rate of a PMC on a CPU, Hz: ALLOCATE refuses more, the PMU source throttles more (1-1000000, default 100000)");

/* As perf's kernel.perf_cpu_time_max_percent, and with its default. */
unsigned int pmclog_cpu_time_max_percent = 25;
module_param_named(cpu_time_max_percent, pmclog_cpu_time_max_percent, uint, 0444);
MODULE_PARM_DESC(cpu_time_max_percent,
		 "Share of a tick a CPU may spend in the PMU overflow handler before its PMCs are throttled to the next tick (1-100, 100: no limit; default 25)");

/* As perf's kernel.perf_event_max_stack, and with its default. */
unsigned int pmclog_callchain_max_depth = 127;
module_param_named(callchain_max_depth, pmclog_callchain_max_depth, uint, 0444);
MODULE_PARM_DESC(callchain_max_depth,
		 "Most kernel frames, and most user frames, of a sample's CALLCHAIN (-g): ALLOCATE refuses a deeper callchain_depth (1-1024, default 127)");

unsigned int pmclog_logbuffersize = 1024;
module_param_named(logbuffersize, pmclog_logbuffersize, uint, 0444);
MODULE_PARM_DESC(logbuffersize,
		 "Log buffer of each open, in KiB, rounded up to a power of two (64-262144, default 1024)");

unsigned int pmclog_maxlogs = 16;
module_param_named(maxlogs, pmclog_maxlogs, uint, 0444);
MODULE_PARM_DESC(maxlogs,
		 "Opens of /dev/pmclog at once, each with its own log buffer (1-1024, default 16)");

/* Is parameter @name's @val in [lo, hi]?  If not, says so. */
static bool __init pmclog_param_ok(const char *name, unsigned int val,
				   unsigned int lo, unsigned int hi,
				   const char *unit)
{
	if (val >= lo && val <= hi)
		return true;
	pr_err("%s=%u%s is out of range %u-%u\n", name, val, unit, lo, hi);
	return false;
}

static int __init pmclog_init(void)
{
	int ret;

	if (!pmclog_param_ok("nsamples", pmclog_nsamples, 1, 65536, "") ||
	    !pmclog_param_ok("drain_watermark", pmclog_drain_watermark,
			     0, 100, "%") ||
	    !pmclog_param_ok("maxlogs", pmclog_maxlogs, 1, 1024, "") ||
	    !pmclog_param_ok("max_sample_rate", pmclog_max_sample_rate,
			     1, 1000000, " Hz") ||
	    !pmclog_param_ok("cpu_time_max_percent",
			     pmclog_cpu_time_max_percent, 1, 100, "") ||
	    !pmclog_param_ok("logbuffersize", pmclog_logbuffersize,
			     64, 262144, " KiB") ||
	    !pmclog_param_ok("callchain_max_depth", pmclog_callchain_max_depth,
			     1, PMCLOG_CALLCHAIN_DEPTH_LIMIT, ""))
		return -EINVAL;
	ret = pmclog_scratch_init();
	if (ret)
		return ret;
	ret = pmclog_defer_init();
	if (ret)
		goto err_scratch;
	pmclog_buildid_init();
	ret = pmclog_kobj_init();
	if (ret)
		goto err_defer;
	ret = pmclog_vma_init();
	if (ret)
		goto err_kobj;
	ret = pmclog_proc_init();
	if (ret)
		goto err_vma;
	ret = pmclog_hrtimer_init();
	if (ret) {
		pr_err("cannot set up the cpu-clock source: %d\n", ret);
		goto err_proc;
	}
	ret = pmclog_x86_pmu_init();
	if (ret) {
		pr_err("cannot set up the hardware PMU source: %d\n", ret);
		goto err_hrtimer;
	}
	ret = pmclog_dev_register();
	if (ret) {
		pr_err("cannot register /dev/pmclog: %d\n", ret);
		goto err_pmu;
	}
	pr_info("ABI %u.%u.%u, nsamples=%u, drain_watermark=%u%%, logbuffersize=%u KiB, maxlogs=%u, max_sample_rate=%u Hz\n",
		PMCLOG_ABI_MAJOR, PMCLOG_ABI_MINOR, PMCLOG_ABI_PATCH,
		pmclog_nsamples, pmclog_drain_watermark, pmclog_logbuffersize,
		pmclog_maxlogs, pmclog_max_sample_rate);
	if (pmclog_x86_pmu_kind() == PMCLOG_PMU_NONE)
		pr_info("hardware PMU: none, %s; sampling with cpu-clock only\n",
			pmclog_x86_pmu_describe());
	else
		pr_info("hardware PMU: %s\n", pmclog_x86_pmu_describe());
	return 0;

err_pmu:
	pmclog_x86_pmu_exit();
err_hrtimer:
	pmclog_hrtimer_exit();
err_proc:
	pmclog_proc_exit_hooks();
err_vma:
	pmclog_vma_exit();
err_kobj:
	pmclog_kobj_exit();
err_defer:
	pmclog_buildid_exit();
	pmclog_defer_exit();
err_scratch:
	pmclog_scratch_free();
	return ret;
}

static void __exit pmclog_exit(void)
{
	pmclog_dev_unregister();
	pmclog_x86_pmu_exit();
	pmclog_hrtimer_exit();
	pmclog_proc_exit_hooks();
	pmclog_vma_exit();
	pmclog_kobj_exit();
	pmclog_buildid_exit();
	pmclog_defer_exit();
	pmclog_scratch_free();
}

module_init(pmclog_init);
module_exit(pmclog_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pmclog: sampling profiler with dynamically loaded object tracking");
MODULE_AUTHOR("The pmclog developers");
