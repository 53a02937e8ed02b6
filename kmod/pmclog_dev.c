// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pmclog: the misc device, its file operations and the marshalling of
 * ioctl arguments.  The logic behind each ioctl is in pmclog_owner.c.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "pmclog_kern.h"

/* Opens of /dev/pmclog, each with its own log; at most pmclog_maxlogs. */
static atomic_t pmclog_nr_open = ATOMIC_INIT(0);

/*
 * Root, or CAP_PERFMON, as for system-wide perf events.  Each open holds
 * a log buffer of logbuffersize KiB, per CPU a ring of nsamples and, with
 * -g, their stacks (nsamples x 16 bytes x the depth), all charged to the
 * opener's memory cgroup, so that a container's recorder stays inside its
 * limit (-ENOMEM); past maxlogs opens, -EBUSY.
 */
static int pmclog_open(struct inode *inode, struct file *file)
{
	struct pmclog_owner *o;

	if (!perfmon_capable())
		return -EPERM;
	if (atomic_inc_return(&pmclog_nr_open) > pmclog_maxlogs) {
		atomic_dec(&pmclog_nr_open);
		return -EBUSY;
	}
	o = pmclog_owner_create(file);
	if (IS_ERR(o)) {
		atomic_dec(&pmclog_nr_open);
		return PTR_ERR(o);
	}
	file->private_data = o;
	return stream_open(inode, file);
}

static int pmclog_release(struct inode *inode, struct file *file)
{
	pmclog_owner_destroy(file->private_data);
	atomic_dec(&pmclog_nr_open);
	return 0;
}

static ssize_t pmclog_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct pmclog_owner *o = file->private_data;

	return pmclog_log_read(&o->log, buf, count,
			       file->f_flags & O_NONBLOCK);
}

static __poll_t pmclog_poll(struct file *file, poll_table *wait)
{
	struct pmclog_owner *o = file->private_data;

	poll_wait(file, &o->log.wait, wait);
	return pmclog_log_readable(&o->log) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Copy an argument in: the caller's structure is _IOC_SIZE(cmd) bytes,
 * older ones shorter, newer ones longer (copy_struct_from_user() zero-fills
 * the first and refuses the second unless its extra bytes are zero).
 */
static int pmclog_arg_in(void *karg, size_t ksize, unsigned int cmd,
			 unsigned long uarg)
{
	return copy_struct_from_user(karg, ksize, (void __user *)uarg,
				     _IOC_SIZE(cmd));
}

static int pmclog_arg_out(unsigned long uarg, unsigned int cmd,
			  const void *karg, size_t ksize)
{
	if (copy_to_user((void __user *)uarg, karg,
			 min_t(size_t, ksize, _IOC_SIZE(cmd))))
		return -EFAULT;
	return 0;
}

static long pmclog_ioctl_locked(struct pmclog_owner *o, unsigned int cmd,
				unsigned long uarg)
{
	union {
		struct pmclog_version	version;
		struct pmclog_alloc	alloc;
		struct pmclog_attach	attach;
		struct pmclog_pmu_info	pmu;
	} a;
	int ret;

	memset(&a, 0, sizeof(a));
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(PMCLOG_IOC_GET_VERSION):
		if (_IOC_DIR(cmd) != _IOC_READ)
			return -ENOTTY;
		a.version.abi_version = PMCLOG_ABI_CURRENT;
		return pmclog_arg_out(uarg, cmd, &a.version, sizeof(a.version));

	case _IOC_NR(PMCLOG_IOC_ALLOCATE):
		if (_IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
			return -ENOTTY;
		ret = pmclog_arg_in(&a.alloc, sizeof(a.alloc), cmd, uarg);
		if (ret)
			return ret;
		ret = pmclog_owner_allocate_locked(o, &a.alloc);
		if (ret)
			return ret;
		return pmclog_arg_out(uarg, cmd, &a.alloc, sizeof(a.alloc));

	case _IOC_NR(PMCLOG_IOC_ATTACH):
		if (_IOC_DIR(cmd) != _IOC_WRITE)
			return -ENOTTY;
		ret = pmclog_arg_in(&a.attach, sizeof(a.attach), cmd, uarg);
		if (ret)
			return ret;
		return pmclog_owner_attach_locked(o, &a.attach);

	case _IOC_NR(PMCLOG_IOC_GET_PMU):
		if (_IOC_DIR(cmd) != _IOC_READ)
			return -ENOTTY;
		pmclog_x86_pmu_info_fill(&a.pmu);
		return pmclog_arg_out(uarg, cmd, &a.pmu, sizeof(a.pmu));

	case _IOC_NR(PMCLOG_IOC_START):
		if (cmd != PMCLOG_IOC_START)
			return -ENOTTY;
		return pmclog_owner_start_locked(o);

	case _IOC_NR(PMCLOG_IOC_STOP):
		if (cmd != PMCLOG_IOC_STOP)
			return -ENOTTY;
		return pmclog_owner_stop_locked(o);

	default:
		return -ENOTTY;
	}
}

static long pmclog_ioctl(struct file *file, unsigned int cmd,
			 unsigned long uarg)
{
	struct pmclog_owner *o = file->private_data;
	long ret;

	if (_IOC_TYPE(cmd) != PMCLOG_IOC_MAGIC)
		return -ENOTTY;
	if (mutex_lock_interruptible(&o->lock))
		return -ERESTARTSYS;
	ret = pmclog_ioctl_locked(o, cmd, uarg);
	mutex_unlock(&o->lock);
	return ret;
}

static const struct file_operations pmclog_fops = {
	.owner		= THIS_MODULE,
	.open		= pmclog_open,
	.release	= pmclog_release,
	.read		= pmclog_read,
	.poll		= pmclog_poll,
	.unlocked_ioctl	= pmclog_ioctl,
	/* Every argument is made of fixed-size fields: no translation. */
	.compat_ioctl	= compat_ptr_ioctl,
	/* No .llseek: stream_open() clears FMODE_LSEEK, so lseek is -ESPIPE. */
};

static struct miscdevice pmclog_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pmclog",
	.fops	= &pmclog_fops,
	.mode	= 0600,
};

int pmclog_dev_register(void)
{
	return misc_register(&pmclog_miscdev);
}

void pmclog_dev_unregister(void)
{
	misc_deregister(&pmclog_miscdev);
}
