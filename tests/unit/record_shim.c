// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD stand-in for /dev/pmclog's ioctls, for test_record: the
 * version and ALLOCATE succeed (each ALLOCATE appended to $SHIM_LOG as
 * "event flags period config"), ATTACH fails with EOPNOTSUPP as a module
 * too old for the request would.  Nothing is ever read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/pmclog.h>

int ioctl(int fd, unsigned long req, ...)
{
	static unsigned int pmcs;
	const char *log = getenv("SHIM_LOG");
	va_list ap;
	void *arg;
	FILE *f;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == PMCLOG_IOC_GET_VERSION) {
		((struct pmclog_version *)arg)->abi_version = PMCLOG_ABI_CURRENT;
		return 0;
	}
	if (req == PMCLOG_IOC_ALLOCATE) {
		struct pmclog_alloc *a = arg;

		a->pmcid = ++pmcs;
		f = log ? fopen(log, "a") : NULL;
		if (f) {
			fprintf(f, "%u %#x %llu %#llx\n", a->event, a->flags,
				(unsigned long long)a->period,
				(unsigned long long)a->config);
			fclose(f);
		}
		return 0;
	}
	errno = req == PMCLOG_IOC_ATTACH ? EOPNOTSUPP : ENOTTY;
	return -1;
}
