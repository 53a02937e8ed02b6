/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog writer: save a log as the device hands it over, and complete
 * it as the ABI says a recorder does.
 *
 * The bytes are saved as they come, except that with opts.pack each run
 * of one thread's PCSAMPLEs is saved as a PCSAMPLES, which readers turn
 * back into the same PCSAMPLEs.  The writer decodes them as it goes (a
 * memory pmclog_reader for all but those samples, which it checks as
 * the reader would) to keep the counts (pmclog_stats) and to place the
 * records the recorder adds
 * (PMCLOG_HF_SYNTH): the KSYMBOLs of the kernel functions the samples
 * fell in, and the BUILDIDs of the kernel and of the modules loaded at
 * START, go just before CLOSELOG, with INITIALIZE's tstamp and cpu, or
 * at the end of a log that stops without CLOSELOG.
 *
 *   w = pmclog_writer__new(fd, &opts);
 *   while ((n = pmclog_device__read(dev, buf, sizeof(buf))) > 0)
 *           pmclog_writer__write(w, buf, n);
 *   pmclog_writer__finish(w);
 *   pmclog_writer__free(w);
 *
 * Errors are negative errnos (also in errno).  A write(2) failure is
 * sticky: the writer goes on counting what it is given, saves nothing
 * more, and pmclog_writer__error() returns it.  Bytes it cannot decode
 * (a malformed record, anything after CLOSELOG) are saved all the same,
 * not counted, and said once through the print callback.
 */
#ifndef PMCLOG_WRITER_H
#define PMCLOG_WRITER_H

#include <stddef.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"
#include "pmclog_kallsyms.h"
#include "pmclog_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_writer;

struct pmclog_writer_opts {
	size_t sz;		/* sizeof(struct pmclog_writer_opts) */
	const char *name;	/* the log, in messages; NULL: "the log" */
	/*
	 * The kernel's symbols, read when the log started; the writer's
	 * from now on (it frees them).  NULL: no KSYMBOLs are added.
	 */
	struct pmclog_kallsyms *ksyms;
	/*
	 * Where sysfs is mounted ("/sys"): the build-ids of the kernel
	 * (kernel/notes) and of each module that START's MAP_INs show
	 * (module/NAME/notes/.note.gnu.build-id) are read there when the
	 * writer sees those MAP_INs, as the log is being recorded.  NULL:
	 * no BUILDIDs are added.
	 */
	const char *sysfs;
	/*
	 * Also gets every record the writer decodes, after the counts, as
	 * it comes (a pmclog_archive's tool); its return is ignored.  NULL:
	 * none.
	 */
	struct pmclog_tool *tool;
	/*
	 * 0: the log is saved as it comes.  1 to ZSTD_maxCLevel() (22):
	 * saved compressed, as one zstd stream at that level (with a
	 * checksum), which pmclog_reader reads as it reads a plain log.
	 * Since version 1.1.0 of the library.
	 */
	int compression_level;
	/*
	 * With ksyms NULL: the kernel's symbols come later, through
	 * pmclog_writer__add_ksyms(), while the log is being recorded (the
	 * recorder reads /proc/kallsyms beside it, not before the command
	 * runs); the kernel PCs of the records until then are kept, to be
	 * marked then.  Since version 1.1.0 of the library.
	 */
	bool ksyms_later;
	/*
	 * Runs of PCSAMPLEs of one thread (same cpu, PMC, mode, pid and
	 * tid, one after the other) are saved as PCSAMPLES records (ABI
	 * 1.7), 4 to 6 bytes a sample instead of 32; pmclog_reader returns
	 * them as the PCSAMPLEs they were.  false: every record is saved as
	 * it comes, for readers older than library 1.3.0.  Since version
	 * 1.3.0 of the library.
	 */
	bool pack;
};
#define pmclog_writer_opts__last_field pack

#define PMCLOG_WRITER_OPTS_INIT { .sz = sizeof(struct pmclog_writer_opts) }

/*
 * A writer of the log to fd, which stays the caller's (never closed).
 * Return: the writer, or NULL with errno set (ENOMEM, EINVAL for bad opts);
 * opts->ksyms is freed either way.
 */
PMCLOG_API struct pmclog_writer *pmclog_writer__new(int fd,
						    const struct pmclog_writer_opts *opts);

/*
 * Save len bytes of the log, the next ones: whole records, as read(2)
 * from the device returns them (a record split between two calls is
 * saved when it is whole).
 * Return: 0, or the negative errno of a write(2) that failed in this
 * call (the error is then sticky).
 */
PMCLOG_API int pmclog_writer__write(struct pmclog_writer *w, const void *buf, size_t len);

/*
 * The log has ended: save what is held back (an incomplete last record)
 * and, for a log without CLOSELOG, the synthetic records.
 * Return: 0, or the writer's error.  Further writes fail with EINVAL.
 */
PMCLOG_API int pmclog_writer__finish(struct pmclog_writer *w);

/* The counts of the records given so far, and of the synthetic ones. */
PMCLOG_API const struct pmclog_stats *pmclog_writer__stats(const struct pmclog_writer *w);
/*
 * The kernel's symbols of a writer made with opts.ksyms_later, read when
 * the log started (the writer's from now on; NULL: there are none): the
 * kernel functions the samples given so far fell in are marked in them,
 * and those of later samples as they come.  Before CLOSELOG, or
 * pmclog_writer__finish(); -EINVAL after, or without ksyms_later (ks is
 * freed either way).  Since version 1.1.0 of the library.
 */
PMCLOG_API int pmclog_writer__add_ksyms(struct pmclog_writer *w, struct pmclog_kallsyms *ks);

/* Bytes saved in the file (compressed, when compressing). */
PMCLOG_API __u64 pmclog_writer__written(const struct pmclog_writer *w);
/* Bytes of log saved, before compression.  Since library 1.1.0. */
PMCLOG_API __u64 pmclog_writer__saved(const struct pmclog_writer *w);
/* The sticky write(2) error, as a negative errno; 0 if none. */
PMCLOG_API int pmclog_writer__error(const struct pmclog_writer *w);

/* Free the writer (NULL: no-op); fd stays open. */
PMCLOG_API void pmclog_writer__free(struct pmclog_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_WRITER_H */
