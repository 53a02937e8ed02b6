/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog archive: copy the objects a log maps while they are mapped,
 * so that the log can be reported on another machine, or after they were
 * rebuilt, replaced or deleted (`pmclog record --archive DIR`, as perf's
 * build-id cache and `perf archive`).
 *
 * A pmclog_tool: given the records as they are recorded (the writer's
 * opts.tool), it copies the file behind each MAP_IN of a process from
 * /proc/PID/map_files/START-END, which is the mapped file itself even if
 * its path now names another one or none, or from its path once the
 * mapping is gone.  DIR then holds:
 *
 *   DIR/PATH                  the first build of PATH that was mapped
 *   DIR/.build-id/NN/REST     each build, by its GNU build-id (NN: the
 *                             first byte in hex, REST: the others), as
 *                             in perf's ~/.debug and /usr/lib/debug
 *
 * so that `pmclog report -r DIR` finds every object by its path, and a
 * build that PATH no longer holds by its build-id.  Each build is copied
 * once; a file without a build-id once per path.
 */
#ifndef PMCLOG_ARCHIVE_H
#define PMCLOG_ARCHIVE_H

#include <stddef.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"
#include "pmclog_tool.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_archive;

struct pmclog_archive_opts {
	size_t sz;		/* sizeof(struct pmclog_archive_opts) */
	const char *procfs;	/* where proc is mounted; NULL: "/proc" */
};
#define pmclog_archive_opts__last_field procfs

#define PMCLOG_ARCHIVE_OPTS_INIT { .sz = sizeof(struct pmclog_archive_opts) }

struct pmclog_archive_stats {
	__u64 objects;		/* builds copied */
	__u64 bytes;		/* their bytes */
	__u64 from_path;	/* of them, copied from the path: no longer mapped */
	__u64 failed;		/* maps of a file not copied (said once each) */
};

/*
 * An archive in dir, made if needed.
 * Return: the archive, or NULL with errno set (ENOMEM, EINVAL for bad
 * opts, or why dir cannot be made).
 */
PMCLOG_API struct pmclog_archive *pmclog_archive__new(const char *dir,
						      const struct pmclog_archive_opts *opts);

/* The archive's tool: deliver the log's records to it, as they come. */
PMCLOG_API struct pmclog_tool *pmclog_archive__tool(struct pmclog_archive *a);

PMCLOG_API const struct pmclog_archive_stats *
pmclog_archive__stats(const struct pmclog_archive *a);

/* Free the archive (NULL: no-op); what it copied stays. */
PMCLOG_API void pmclog_archive__free(struct pmclog_archive *a);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_ARCHIVE_H */
