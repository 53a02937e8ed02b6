// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD stand-in for /dev/pmclog's ioctls, for test_record: the
 * version and ALLOCATE succeed (each ALLOCATE appended to $SHIM_LOG as
 * "event flags period config name"), ATTACH fails with EOPNOTSUPP as a
 * module too old for the request would.  Nothing is ever read.  With
 * $SHIM_MAX_RATE, a frequency above it fails with ERANGE, as the module
 * does above its max_sample_rate, and GET_PMU says that limit.  With
 * $SHIM_OLD_ALLOC, ALLOCATE takes only the ABI 1.0 structure, as a module
 * before ABI 1.3 does: a longer one fails with E2BIG (the tool's has a
 * name), and the name logged is "-".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/pmclog.h>

int ioctl(int fd, unsigned long req, ...)
{
	static unsigned int pmcs;
	const char *log = getenv("SHIM_LOG");
	const char *max_rate = getenv("SHIM_MAX_RATE");
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
	if (req == PMCLOG_IOC_GET_PMU) {
		struct pmclog_pmu_info *p = arg;

		*p = (struct pmclog_pmu_info){ .pmu = PMCLOG_PMU_NONE };
		p->max_sample_rate = max_rate ? (__u32)strtoul(max_rate, NULL, 0) : 100000;
		return 0;
	}
	if (_IOC_NR(req) == _IOC_NR(PMCLOG_IOC_ALLOCATE) &&
	    _IOC_TYPE(req) == PMCLOG_IOC_MAGIC) {
		struct pmclog_alloc *a = arg;
		bool old = getenv("SHIM_OLD_ALLOC");
		size_t size = _IOC_SIZE(req);

		/* As copy_struct_from_user() in a module of either kind. */
		if (size != PMCLOG_ALLOC_SIZE_VER0 && (old || size != sizeof(*a))) {
			errno = E2BIG;
			return -1;
		}

		if (max_rate && a->flags & PMCLOG_PMC_F_FREQ &&
		    a->period > strtoull(max_rate, NULL, 0)) {
			errno = ERANGE;
			return -1;
		}

		a->pmcid = ++pmcs;
		f = log ? fopen(log, "a") : NULL;
		if (f) {
			fprintf(f, "%u %#x %llu %#llx %.*s\n", a->event, a->flags,
				(unsigned long long)a->period,
				(unsigned long long)a->config,
				size > PMCLOG_ALLOC_SIZE_VER0 ? (int)sizeof(a->name) : 1,
				size > PMCLOG_ALLOC_SIZE_VER0 ? a->name : "-");
			fclose(f);
		}
		return 0;
	}
	errno = req == PMCLOG_IOC_ATTACH ? EOPNOTSUPP : ENOTTY;
	return -1;
}
