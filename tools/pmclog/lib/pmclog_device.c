// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog device: /dev/pmclog's ioctls and read(2).  See pmclog_device.h.
 *
 * The ioctls go through dev->ops, ioctl(2) itself unless a stand-in for
 * the module is there (pmclog_device__new()): a test's, or the BPF
 * collector (pmclog_bpf.c); read(2) and poll(2) are always the file's
 * own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmclog_device.h"
#include "pmclog_internal.h"

struct pmclog_device {
	int fd;
	char *path;
	__u32 abi_version;
	bool abi_ok;		/* the major is this library's */
	const struct pmclog_device_ops *ops;
	void *ctx;
};

static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	return ioctl(fd, req, arg);
}

static const struct pmclog_device_ops sys_ops = { .ioctl = sys_ioctl };

/* An ioctl of a device whose ABI this library speaks: 0 or -errno. */
static int dev_ioctl(struct pmclog_device *dev, unsigned long req, void *arg)
{
	if (!dev->abi_ok)
		return pmclog_err(EPROTONOSUPPORT);
	if (dev->ops->ioctl(dev->ctx, dev->fd, req, arg) < 0)
		return pmclog_err(errno);
	return 0;
}

static void say_open_failed(const char *path, int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		pr_warn("cannot open %s: %s; is the module loaded? (insmod pmclog.ko)\n",
			path, strerror(err));
		break;
	case EACCES:
	case EPERM:
		pr_warn("cannot open %s: %s; profiling needs root or CAP_PERFMON\n",
			path, strerror(err));
		break;
	default:
		pr_warn("cannot open %s: %s\n", path, strerror(err));
		break;
	}
}

struct pmclog_device *pmclog_device__new(int fd, const char *path,
					 const struct pmclog_device_ops *ops,
					 void *ctx, bool any_abi)
{
	struct pmclog_version ver = { 0 };
	struct pmclog_device *dev;
	int err;

	dev = calloc(1, sizeof(*dev));
	if (!dev || !(dev->path = strdup(path))) {
		free(dev);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	dev->fd = fd;
	dev->ops = ops ? ops : &sys_ops;
	dev->ctx = ctx;
	if (dev->ops->ioctl(ctx, fd, PMCLOG_IOC_GET_VERSION, &ver) < 0) {
		err = errno;
		pr_warn("%s: PMCLOG_IOC_GET_VERSION failed: %s; is %s a pmclog device?\n",
			path, strerror(err), path);
		err = EPROTO;
		goto err_close;
	}
	dev->abi_version = ver.abi_version;
	dev->abi_ok = PMCLOG_ABI_VERSION_MAJOR(ver.abi_version) == PMCLOG_ABI_MAJOR;
	if (!dev->abi_ok) {
		pr_warn("%s: the module has ABI version %u.%u.%u; this pmclog speaks major %u only: build the tool and the module from the same tree\n",
			path, PMCLOG_ABI_VERSION_MAJOR(ver.abi_version),
			PMCLOG_ABI_VERSION_MINOR(ver.abi_version),
			PMCLOG_ABI_VERSION_PATCH(ver.abi_version), PMCLOG_ABI_MAJOR);
		if (!any_abi) {
			err = EPROTONOSUPPORT;
			goto err_close;
		}
	}
	return dev;
err_close:
	pmclog_device__close(dev);
	errno = err;
	return NULL;
}

struct pmclog_device *pmclog_device__open(const struct pmclog_device_opts *opts)
{
	const char *path = OPTS_GET(opts, path, NULL);
	const char *env = getenv("PMCLOG_DEVICE");
	int fd;

	if (!OPTS_VALID(opts, pmclog_device_opts__last_field)) {
		errno = EINVAL;
		return NULL;
	}
	if (!path)
		path = env && *env ? env : PMCLOG_DEVICE_PATH;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		say_open_failed(path, err);
		errno = err;
		return NULL;
	}
	return pmclog_device__new(fd, path, NULL, NULL, OPTS_GET(opts, any_abi, false));
}

void pmclog_device__close(struct pmclog_device *dev)
{
	int saved = errno;

	if (!dev)
		return;
	if (dev->ops->free)
		dev->ops->free(dev->ctx);
	close(dev->fd);
	free(dev->path);
	free(dev);
	errno = saved;
}

int pmclog_device__fd(const struct pmclog_device *dev)
{
	return dev->fd;
}

const char *pmclog_device__path(const struct pmclog_device *dev)
{
	return dev->path;
}

__u32 pmclog_device__abi_version(const struct pmclog_device *dev)
{
	return dev->abi_version;
}

int pmclog_device__pmu_info(struct pmclog_device *dev,
			    struct pmclog_pmu_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	ret = dev_ioctl(dev, PMCLOG_IOC_GET_PMU, info);
	info->reason[sizeof(info->reason) - 1] = '\0';
	return ret;
}

/* ALLOCATE with only the ABI 1.0 part of struct pmclog_alloc (no name). */
#define PMCLOG_IOC_ALLOCATE_VER0 \
	_IOC(_IOC_READ | _IOC_WRITE, PMCLOG_IOC_MAGIC, _IOC_NR(PMCLOG_IOC_ALLOCATE), \
	     PMCLOG_ALLOC_SIZE_VER0)

int pmclog_device__allocate(struct pmclog_device *dev,
			    struct pmclog_alloc *alloc)
{
	int ret = dev_ioctl(dev, PMCLOG_IOC_ALLOCATE, alloc);

	/*
	 * A module before ABI 1.3 refuses the longer structure (E2BIG, from
	 * copy_struct_from_user()): ask it again in the one it knows, as
	 * perf does with perf_event_attr.size.  It then names the event its
	 * own way.
	 */
	if (ret == -E2BIG)
		ret = dev_ioctl(dev, PMCLOG_IOC_ALLOCATE_VER0, alloc);
	return ret;
}

int pmclog_device__attach(struct pmclog_device *dev,
			  const struct pmclog_attach *at)
{
	struct pmclog_attach copy = *at;	/* _IOW: the kernel only reads it */

	return dev_ioctl(dev, PMCLOG_IOC_ATTACH, &copy);
}

int pmclog_device__start(struct pmclog_device *dev)
{
	return dev_ioctl(dev, PMCLOG_IOC_START, NULL);
}

int pmclog_device__stop(struct pmclog_device *dev)
{
	return dev_ioctl(dev, PMCLOG_IOC_STOP, NULL);
}

ssize_t pmclog_device__read(struct pmclog_device *dev, void *buf, size_t len)
{
	ssize_t n;

	if (!dev->abi_ok)
		return pmclog_err(EPROTONOSUPPORT);
	do
		n = read(dev->fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? pmclog_err(errno) : n;
}
