/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog device: a log on /dev/pmclog, driven through the module's
 * ioctls (include/uapi/linux/pmclog.h), as libpmc wraps hwpmc's:
 *
 *   dev = pmclog_device__open(NULL);        GET_VERSION: the ABI major checked
 *   pmclog_device__allocate(dev, &alloc);   one or more PMCs
 *   pmclog_device__attach(dev, &at);        the whole system, or a process
 *   pmclog_device__start(dev);
 *   while ((n = pmclog_device__read(dev, buf, len)) > 0)   whole records
 *           ...;                            (poll pmclog_device__fd() for POLLIN)
 *   pmclog_device__stop(dev);               then read on: CLOSELOG, then 0
 *   pmclog_device__close(dev);
 *
 * Every function that can fail returns a negative errno, also in errno.
 * pmclog_device__open() says why it failed, and what to do, through the
 * print callback (pmclog_common.h); the others do not print: their caller
 * knows what it asked for, and the errors the ABI documents for each
 * ioctl tell it why.
 */
#ifndef PMCLOG_DEVICE_H
#define PMCLOG_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_device;

struct pmclog_device_opts {
	size_t sz;		/* sizeof(struct pmclog_device_opts) */
	/* The device; NULL: $PMCLOG_DEVICE if set, else PMCLOG_DEVICE_PATH. */
	const char *path;
	/*
	 * Open a module of any ABI major (the mismatch is still said): only
	 * pmclog_device__abi_version() and the accessors may then be used,
	 * for a program that reports versions.
	 */
	bool any_abi;
};
#define pmclog_device_opts__last_field any_abi

#define PMCLOG_DEVICE_OPTS_INIT { .sz = sizeof(struct pmclog_device_opts) }

/*
 * Open the device read-only and check that the module speaks ABI major
 * PMCLOG_ABI_MAJOR.
 * Return: the device, or NULL with errno: open(2)'s (ENOENT, ENXIO,
 * ENODEV: no module; EACCES, EPERM: not root nor CAP_PERFMON), EPROTO
 * when the file is not a pmclog device, EPROTONOSUPPORT for another ABI
 * major, ENOMEM, EINVAL for bad opts.
 */
PMCLOG_API struct pmclog_device *pmclog_device__open(const struct pmclog_device_opts *opts);

/* The path of a device made by pmclog_device__open_bpf(), for messages. */
#define PMCLOG_BPF_DEVICE_NAME	"the BPF collector"

/*
 * A device without the module: the BPF collector (pmclog record --bpf).
 * The same ioctls and the same records, from BPF programs that hook what
 * the module hooks (tools/pmclog/bpf/pmclog.bpf.c), read from a pipe;
 * its INITIALIZE carries PMCLOG_HF_BPF.  It needs a kernel with BTF,
 * root (or CAP_BPF and CAP_PERFMON) and no lockdown=confidentiality; the
 * programs are loaded at START, where those failures are said, through
 * the print callback.  Stacks (PMCLOG_PMC_F_CALLCHAIN) are at most 127
 * frames a part, kernel.perf_event_max_stack's default: deeper fails
 * ALLOCATE with EOVERFLOW.  opts: as for
 * pmclog_device__open(); path is not used.
 * Return: the device, or NULL with errno set.  Since library 1.2.0.
 */
PMCLOG_API struct pmclog_device *pmclog_device__open_bpf(const struct pmclog_device_opts *opts);

/* Close the file: sampling stops and the log is freed.  NULL: no-op. */
PMCLOG_API void pmclog_device__close(struct pmclog_device *dev);

/* The file descriptor, for poll(2); it stays the device's. */
PMCLOG_API int pmclog_device__fd(const struct pmclog_device *dev);
/* The path it was opened as, for messages. */
PMCLOG_API const char *pmclog_device__path(const struct pmclog_device *dev);
/* The module's packed ABI version (PMCLOG_ABI_VERSION()). */
PMCLOG_API __u32 pmclog_device__abi_version(const struct pmclog_device *dev);

/*
 * PMCLOG_IOC_GET_PMU, reason NUL-terminated.  -ENOTTY from a module older
 * than ABI 1.1.
 */
PMCLOG_API int pmclog_device__pmu_info(struct pmclog_device *dev,
				       struct pmclog_pmu_info *info);

/*
 * PMCLOG_IOC_ALLOCATE: alloc->pmcid is set on success.  A module before
 * ABI 1.3 is asked again without alloc->name (it names the event itself).
 */
PMCLOG_API int pmclog_device__allocate(struct pmclog_device *dev,
				       struct pmclog_alloc *alloc);

/* PMCLOG_IOC_ATTACH. */
PMCLOG_API int pmclog_device__attach(struct pmclog_device *dev,
				     const struct pmclog_attach *at);

/* PMCLOG_IOC_START, PMCLOG_IOC_STOP. */
PMCLOG_API int pmclog_device__start(struct pmclog_device *dev);
PMCLOG_API int pmclog_device__stop(struct pmclog_device *dev);

/*
 * read(2) whole records into buf (EINTR is retried).
 * Return: the bytes read; 0 once the log ended (after CLOSELOG); a
 * negative errno (-EAGAIN: nothing waiting, on a non-blocking file).
 */
PMCLOG_API ssize_t pmclog_device__read(struct pmclog_device *dev, void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_DEVICE_H */
