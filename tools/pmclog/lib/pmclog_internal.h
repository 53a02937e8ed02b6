/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog internals, shared by the library's files and nobody else
 * (libbpf's libbpf_internal.h): options structures that grow, the print
 * callback's helpers, and the one description of a validated record that
 * the reader and the replay share.
 */
#ifndef PMCLOG_INTERNAL_H
#define PMCLOG_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "pmclog_device.h"
#include "pmclog_print.h"
#include "pmclog_reader.h"

#ifndef offsetofend
#define offsetofend(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))
#endif

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * Options structures start with their size (libbpf's OPTS_VALID, OPTS_GET):
 * a caller built against an older, shorter one keeps working, and bytes
 * past the fields this library knows must be zero.
 */
bool pmclog_opts_valid(const void *opts, size_t known);

#define OPTS_VALID(opts, last_field) \
	pmclog_opts_valid((opts), offsetofend(typeof(*(opts)), last_field))
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetofend(typeof(*(opts)), field))
#define OPTS_GET(opts, field, fallback) \
	(OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/* Return -err with errno set to err (libbpf's libbpf_err()). */
static inline int pmclog_err(int err)
{
	errno = err;
	return -err;
}

__attribute__((format(printf, 2, 3)))
void pmclog_print(enum pmclog_print_level level, const char *fmt, ...);

#define pr_warn(fmt, ...)	pmclog_print(PMCLOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	pmclog_print(PMCLOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	pmclog_print(PMCLOG_DEBUG, fmt, ##__VA_ARGS__)

/*
 * Describe in *ev the record at raw (8-byte aligned), which a reader has
 * validated, found at byte offset in its log: the header fields, the
 * typed pointer, and path or name where the type has one.  INITIALIZE's
 * name (the CPUID vendor, which the ABI does not promise to be
 * NUL-terminated) is left NULL; the reader sets it to its own copy.
 */
void pmclog_record__describe(struct pmclog_record *ev, const void *raw,
			     __u64 offset);

/*
 * What a pmclog_device issues its ioctls through: ioctl(2) (ops NULL), or
 * a test's stand-in for a module it cannot reach, on a file (a pipe) that
 * it fills with the records read(2) then returns.
 */
struct pmclog_device_ops {
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);	/* -1, errno */
};

/*
 * A device on fd, which it owns from now on (closed on failure too),
 * known as path; the rest as pmclog_device__open().
 */
struct pmclog_device *pmclog_device__new(int fd, const char *path,
					 const struct pmclog_device_ops *ops,
					 void *ctx, bool any_abi);

#endif /* PMCLOG_INTERNAL_H */
