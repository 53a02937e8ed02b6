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
 * its path now names another one or none.  DIR then holds:
 *
 *   DIR/PATH                  the first build of PATH that was mapped
 *   DIR/.build-id/NN/REST     each build, by its GNU build-id (NN: the
 *                             first byte in hex, REST: the others), as
 *                             in perf's ~/.debug and /usr/lib/debug
 *
 * so that `pmclog report -r DIR` finds every object by its path, and a
 * build that PATH no longer holds by its build-id.  Each build is copied
 * once; a file without a build-id once per path.
 *
 * The recorder runs as root and the paths are other users' to choose,
 * so the archive:
 *
 *   - opens a file only through map_files, never by its path: a mapping
 *     already gone is counted, not looked for (the path may now be a
 *     link to /etc/shadow, a FIFO, or another user's file);
 *   - copies only what map_files shows to be the MAP_IN's own file: a
 *     regular ELF file of at most max_bytes, max_total in all, still
 *     under the MAP_IN's path, and reads its build-id from the copy,
 *     which must be the one the log's BUILDID gave it, if any;
 *   - names a copy DIR/PATH only when PATH names that same file in the
 *     recorder's own view (a process in a mount namespace of its own
 *     may show any path), or it was root's and has since been deleted;
 *   - names a copy under .build-id only when it is root's, writable by
 *     nobody else, on a file system that honours set-id bits: a file's
 *     build-id is the file's own word, and another user's file could
 *     claim the build-id of a system library;
 *   - keeps each copy's mode bits as the source's, less set-id bits, in
 *     folders of mode 0700 of its own, made from unnamed files
 *     (O_TMPFILE): DIR is walked one component at a time, never through
 *     a link or a folder that another user owns or may write;
 *   - copies in a thread of its own, from a bounded queue, so that a
 *     slow file (FUSE, NFS) never holds up the recording or its signals.
 *     Its messages go through the print callback from that thread.
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
	/* Library 1.4 */
	__u64 max_bytes;	/* the largest file copied; 0: 1 GiB */
	__u64 max_total;	/* the bytes copied in all; 0: 4 GiB */
	unsigned int queue;	/* maps waiting to be copied at most; 0: 4096 */
	/* How long pmclog_archive__free() waits for copies; 0: 10 s. */
	unsigned int timeout_ms;
};
#define pmclog_archive_opts__last_field timeout_ms

#define PMCLOG_ARCHIVE_OPTS_INIT { .sz = sizeof(struct pmclog_archive_opts) }

struct pmclog_archive_stats {
	__u64 objects;		/* builds copied */
	__u64 bytes;		/* their bytes */
	__u64 gone;		/* maps no longer there when their turn came */
	__u64 failed;		/* maps of a file not copied (said once each) */
	/* Library 1.4 */
	__u64 refused;		/* of those, files the archive would not take */
	__u64 dropped;		/* maps not looked at: the queue was full */
};

/*
 * An archive in dir, made if needed.
 * Return: the archive, or NULL with errno set (ENOMEM, EINVAL for bad
 * opts, or why dir cannot be made).
 */
PMCLOG_API struct pmclog_archive *pmclog_archive__new(const char *dir,
						      const struct pmclog_archive_opts *opts);

/*
 * The archive's tool: deliver the log's records to it, as they come.  It
 * queues each map and returns at once; the copies are made in the
 * archive's thread.
 */
PMCLOG_API struct pmclog_tool *pmclog_archive__tool(struct pmclog_archive *a);

/*
 * Wait until every map delivered so far has been copied (or refused), for
 * at most timeout_ms.  From the thread that delivers the records.
 * Return: 0, or -ETIMEDOUT (errno set too).
 */
PMCLOG_API int pmclog_archive__flush(struct pmclog_archive *a, unsigned int timeout_ms);

/* What was copied so far: flush first for a final count. */
PMCLOG_API const struct pmclog_archive_stats *
pmclog_archive__stats(const struct pmclog_archive *a);

/*
 * Free the archive (NULL: no-op); what it copied stays.  The maps still
 * queued are copied first, for at most opts.timeout_ms; a copy still
 * blocked then (a FUSE file system that does not answer) is left to its
 * thread, which frees the archive once that copy returns.
 */
PMCLOG_API void pmclog_archive__free(struct pmclog_archive *a);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_ARCHIVE_H */
