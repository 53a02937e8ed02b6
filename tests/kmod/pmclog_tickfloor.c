// SPDX-License-Identifier: GPL-2.0
/*
 * A module for make bench (tests/bench/vm/10-bench.sh): a pinned hrtimer
 * at rate_hz that only counts its ticks, on CPU cpu (or on every online
 * CPU).  A program run there while it is loaded pays for the timer
 * interrupts alone, with no profiler's work in them: the floor under what
 * a sampling profiler's sample costs that program (under QEMU/TCG, most
 * of it).  One CPU, with the program pinned to it, is what a profiler of
 * one process costs: its timer runs only where the process runs.
 *
 * /sys/module/pmclog_tickfloor/parameters/ticks: the ticks since the
 * load.  Not for hotplug: a CPU that comes online later gets no timer.
 */
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

static unsigned int rate_hz = 1000;
module_param(rate_hz, uint, 0444);
MODULE_PARM_DESC(rate_hz, "Ticks per second on each ticking CPU, 100 to 20000");

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "The CPU that ticks, -1 (the default) for every online one");

static DEFINE_PER_CPU(struct hrtimer, tickfloor_timer);
static DEFINE_PER_CPU(unsigned long, tickfloor_ticks);
static ktime_t tickfloor_period;

static enum hrtimer_restart tickfloor_tick(struct hrtimer *t)
{
	__this_cpu_inc(tickfloor_ticks);
	hrtimer_forward_now(t, tickfloor_period);
	return HRTIMER_RESTART;
}

/* On the CPU that ticks, from the IPI: its timer, pinned to it. */
static void tickfloor_start(void *unused)
{
	hrtimer_start(this_cpu_ptr(&tickfloor_timer), tickfloor_period,
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int tickfloor_ticks_get(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	unsigned int i;

	for_each_possible_cpu(i)
		sum += READ_ONCE(per_cpu(tickfloor_ticks, i));
	return sysfs_emit(buf, "%lu\n", sum);
}

/* Read only, also on the insmod line: parse_one() calls .set unchecked. */
static int tickfloor_ticks_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops tickfloor_ticks_ops = {
	.set	= tickfloor_ticks_set,
	.get	= tickfloor_ticks_get,
};
module_param_cb(ticks, &tickfloor_ticks_ops, NULL, 0444);
MODULE_PARM_DESC(ticks, "Ticks since the load (read only)");

static int __init tickfloor_init(void)
{
	unsigned int i;
	int ret = 0;

	if (rate_hz < 100 || rate_hz > 20000 || cpu < -1 || cpu >= (int)nr_cpu_ids)
		return -EINVAL;
	tickfloor_period = ns_to_ktime(NSEC_PER_SEC / rate_hz);
	for_each_possible_cpu(i) {
		struct hrtimer *t = per_cpu_ptr(&tickfloor_timer, i);

		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->function = tickfloor_tick;
	}
	if (cpu < 0)
		on_each_cpu(tickfloor_start, NULL, 1);
	else
		ret = smp_call_function_single(cpu, tickfloor_start, NULL, 1);
	return ret;	/* -ENXIO: that CPU is offline */
}

static void __exit tickfloor_exit(void)
{
	unsigned int i;

	for_each_possible_cpu(i)
		hrtimer_cancel(per_cpu_ptr(&tickfloor_timer, i));
}

module_init(tickfloor_init);
module_exit(tickfloor_exit);
MODULE_DESCRIPTION("pmclog bench: timer interrupts that do nothing");
MODULE_LICENSE("GPL");
