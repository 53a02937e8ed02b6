// SPDX-License-Identifier: GPL-2.0
/*
 * A module for the VM tests of pmclog: loaded and unloaded while a log
 * runs, it gives the kernel-object tracking something to find.
 *
 * Writing a number N to /proc/pmclog_testmod spins N milliseconds in
 * pmclog_testmod_busy(); init_spin_ms=N spins in the init function, so
 * that samples land in .init.text too.
 *
 * rebuilt/ builds the same module again with PMCLOG_TESTMOD_REBUILT: its
 * busy function is pmclog_testmod_spin(), and its build-id another, as a
 * module rebuilt and reloaded in the middle of a run would be.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

static unsigned int init_spin_ms;
module_param(init_spin_ms, uint, 0444);
MODULE_PARM_DESC(init_spin_ms, "Milliseconds to spin in the init function");

#ifdef PMCLOG_TESTMOD_REBUILT
#define pmclog_testmod_busy pmclog_testmod_spin
#endif

static noinline void pmclog_testmod_busy(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end))
		cpu_relax();
}

static noinline void __init pmclog_testmod_init_busy(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end))
		cpu_relax();
}

static ssize_t pmclog_testmod_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, count, 10, &ms);
	if (ret)
		return ret;
	if (ms > 60000)
		return -EINVAL;
	pmclog_testmod_busy(ms);
	return count;
}

static const struct proc_ops pmclog_testmod_ops = {
	.proc_write	= pmclog_testmod_write,
};

static int __init pmclog_testmod_init(void)
{
	if (!proc_create("pmclog_testmod", 0200, NULL, &pmclog_testmod_ops))
		return -ENOMEM;
	pmclog_testmod_init_busy(init_spin_ms);
	return 0;
}

static void __exit pmclog_testmod_exit(void)
{
	remove_proc_entry("pmclog_testmod", NULL);
}

module_init(pmclog_testmod_init);
module_exit(pmclog_testmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pmclog VM test module: a busy function to sample");
