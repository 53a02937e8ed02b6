// SPDX-License-Identifier: GPL-2.0
/*
 * Opening /dev/pmclog and asking it about the PMU, shared by the commands.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sysexits.h>
#include <unistd.h>

#include "pmclog.h"

const char *device_path(void)
{
	const char *path = getenv("PMCLOG_DEVICE");

	return path && *path ? path : PMCLOG_DEVICE_PATH;
}

static int open_failed(const char *path, int err, int quiet)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		if (!quiet)
			warnx("cannot open %s: %s; is the module loaded? (insmod pmclog.ko)",
			      path, strerror(err));
		return -EX_UNAVAILABLE;
	case EACCES:
	case EPERM:
		if (!quiet)
			warnx("cannot open %s: %s; profiling needs root or CAP_PERFMON",
			      path, strerror(err));
		return -EX_NOPERM;
	default:
		if (!quiet)
			warnx("cannot open %s: %s", path, strerror(err));
		return -EX_OSERR;
	}
}

int device_open(__u32 *abi_version, int quiet)
{
	const char *path = device_path();
	struct pmclog_version ver = { 0 };
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_failed(path, errno, quiet);
	if (ioctl(fd, PMCLOG_IOC_GET_VERSION, &ver) < 0) {
		err = errno;
		if (!quiet)
			warnx("%s: PMCLOG_IOC_GET_VERSION failed: %s; is %s a pmclog device?",
			      path, strerror(err), path);
		close(fd);
		return -EX_PROTOCOL;
	}
	*abi_version = ver.abi_version;
	if (PMCLOG_ABI_VERSION_MAJOR(ver.abi_version) != PMCLOG_ABI_MAJOR) {
		if (!quiet)
			warnx("%s: the module has ABI version %u.%u.%u; this pmclog speaks major %u only: build the tool and the module from the same tree",
			      path, PMCLOG_ABI_VERSION_MAJOR(ver.abi_version),
			      PMCLOG_ABI_VERSION_MINOR(ver.abi_version),
			      PMCLOG_ABI_VERSION_PATCH(ver.abi_version),
			      PMCLOG_ABI_MAJOR);
		close(fd);
		return -EX_PROTOCOL;
	}
	return fd;
}

int device_pmu_info(int fd, struct pmclog_pmu_info *info)
{
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, PMCLOG_IOC_GET_PMU, info) < 0) {
		int err = errno;

		if (err != ENOTTY)
			warnx("%s: PMCLOG_IOC_GET_PMU failed: %s", device_path(),
			      strerror(err));
		return -err;
	}
	info->reason[sizeof(info->reason) - 1] = '\0';
	return 0;
}
