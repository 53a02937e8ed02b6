/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog: read the records of a pmclog log.
 *
 * A reader turns a byte stream (a file, a pipe, or buffers handed to it)
 * into validated records, one per pmclog_reader__next() call.  It is an
 * explicit state machine, in the manner of FreeBSD's pmclog(3):
 *
 *   EXPECT_INITIALIZE -> RECORDS -> END
 *            \              \
 *             `-------------`--> ERROR
 *
 * The first record must be INITIALIZE, the only one, and carry an ABI
 * major this library knows; CLOSELOG, or the end of a file exactly at a record boundary, ends
 * the log.  Any malformed record moves the reader to ERROR, where it stays:
 * every later call returns the same error.
 *
 * Every function that can fail returns a negative errno and also sets
 * errno (libbpf style); functions returning a pointer return NULL and set
 * errno.  A reader does not warn: a bad record is the caller's to report,
 * and pmclog_reader__errmsg() names its byte offset and what was
 * expected (the print callback gets the same at PMCLOG_DEBUG).
 *
 * Errors:
 *   EBADMSG          a malformed or truncated record
 *   EPROTONOSUPPORT  INITIALIZE has an ABI major other than PMCLOG_ABI_MAJOR
 *   EAGAIN           (memory mode) more bytes are needed; not sticky
 *   EINVAL           misuse of the API (feeding a file reader, ...)
 *   ENOMEM, EIO...   allocation and read(2) failures
 */
#ifndef PMCLOG_READER_H
#define PMCLOG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_reader;

/*
 * Called once with the message when a reader enters the error state.
 * Kept for callers built against ABI 1.0 of the library; the print
 * callback (pmclog_common.h) is the one way the library speaks.
 */
typedef void (*pmclog_reader_log_fn)(void *ctx, const char *msg);

/*
 * Options for the pmclog_reader constructors; may be NULL for defaults.
 * Set sz to sizeof(struct pmclog_reader_opts): fields are only appended,
 * and a caller built against an older, shorter structure keeps working.
 * Bytes past the fields this library knows must be zero (else EINVAL).
 */
struct pmclog_reader_opts {
	size_t sz;
	pmclog_reader_log_fn log_fn;	/* NULL: no callback */
	void *log_ctx;			/* passed to log_fn */
};
#define pmclog_reader_opts__last_field log_ctx

#define PMCLOG_READER_OPTS_INIT { .sz = sizeof(struct pmclog_reader_opts) }

/*
 * One record, as returned by pmclog_reader__next().  Everything it points
 * to belongs to the reader and stays valid until the next call to
 * pmclog_reader__next(), pmclog_reader__feed() or pmclog_reader__free().
 *
 * rec points to an 8-byte-aligned copy of the whole record (length bytes),
 * so the typed member for type may be used directly.  Records of a type
 * above PMCLOG_TYPE_MAX_KNOWN (written by a newer module of the same ABI
 * major) are returned with only the header validated; use rec.header.
 * Bytes past the structure of a known type (fields a newer minor version
 * appended) are present in the copy and may be ignored.
 *
 * A PCSAMPLES record (ABI 1.7: a run of samples the recorder packed) is
 * never returned as such: it is unpacked, and its samples are returned
 * one a call, each a 32-byte PCSAMPLE with the PCSAMPLES' offset, as if
 * the run were in the log as it came from the module.
 */
struct pmclog_record {
	__u32 type;		/* header.type: enum pmclog_type or newer */
	__u32 length;		/* header.length: bytes, header included */
	__u32 cpu;		/* header.cpu */
	__u32 flags;		/* header.flags: PMCLOG_HF_* */
	__u32 pmcid;		/* header.pmcid */
	__u64 tstamp;		/* header.tstamp, ns on INITIALIZE's clock */
	__u64 offset;		/* byte offset of the record in the log */
	union {
		const struct pmclog_header *header;
		const struct pmclog_initialize *initialize;
		const struct pmclog_closelog *closelog;
		const struct pmclog_pmcallocate *pmcallocate;
		const struct pmclog_pcsample *pcsample;
		const struct pmclog_map_in *map_in;
		const struct pmclog_map_out *map_out;
		const struct pmclog_procexec *procexec;
		const struct pmclog_procfork *procfork;
		const struct pmclog_procexit *procexit;
		const struct pmclog_dropnotify *dropnotify;
		const struct pmclog_ksymbol *ksymbol;
		const struct pmclog_throttle *throttle;	/* and UNTHROTTLE */
		const struct pmclog_buildid *buildid;
		const struct pmclog_callchain *callchain;	/* ABI 1.5 */
	} rec;
	/*
	 * MAP_IN, PROCEXEC: the path, checked to be NUL-terminated inside
	 * the record.  NULL for other types.
	 */
	const char *path;
	/*
	 * PMCALLOCATE: the event name; KSYMBOL: the function name; both
	 * checked to be NUL-terminated inside the record.
	 * INITIALIZE: the CPUID vendor string (NUL-terminated copy of
	 * cpu_id, which the ABI only promises to be NUL-padded).
	 * NULL for other types.
	 */
	const char *name;
};

/* Why pmclog_reader__next() returned 0. */
enum pmclog_reader_end {
	PMCLOG_READER_END_NONE = 0,	/* not at the end (yet) */
	PMCLOG_READER_END_CLOSELOG,	/* CLOSELOG seen: the log is complete */
	PMCLOG_READER_END_EOF,		/* input ended at a record boundary
					 * without CLOSELOG: the recorder
					 * stopped early */
};

/*
 * pmclog_reader__new() - a reader fed from memory with pmclog_reader__feed().
 * pmclog_reader__open_fd() - a reader that read(2)s fd as it goes; fd must
 *	stay open until pmclog_reader__free(), which does not close it.
 * pmclog_reader__open_file() - a reader of the file at path, which it opens
 *	and closes itself.
 *
 * Return: the reader, or NULL with errno set (ENOMEM, EINVAL for bad opts,
 * or open(2)'s errno).
 */
PMCLOG_API struct pmclog_reader *pmclog_reader__new(const struct pmclog_reader_opts *opts);
PMCLOG_API struct pmclog_reader *pmclog_reader__open_fd(int fd,
							const struct pmclog_reader_opts *opts);
PMCLOG_API struct pmclog_reader *pmclog_reader__open_file(const char *path,
							  const struct pmclog_reader_opts *opts);

/*
 * pmclog_reader__feed() - append len bytes of log to a memory reader.
 * The bytes are copied; buf may be reused on return.  Feeds may split
 * records anywhere.  pmclog_reader__feed_eof() says no more bytes will
 * come, so that a partial record left over is reported as truncated
 * rather than as -EAGAIN.
 *
 * Return: 0, or -EINVAL (a file reader, or after feed_eof), -ENOMEM.
 */
PMCLOG_API int pmclog_reader__feed(struct pmclog_reader *r, const void *buf, size_t len);
PMCLOG_API int pmclog_reader__feed_eof(struct pmclog_reader *r);

/*
 * pmclog_reader__next() - validate the next record and describe it in *ev.
 *
 * Return:
 *   1        *ev holds a record
 *   0        end of the log; pmclog_reader__end() says which kind
 *   -EAGAIN  memory reader: feed more bytes and call again
 *   <0       another negative errno: the log is corrupt or unreadable;
 *            the reader stays in the error state, and
 *            pmclog_reader__errmsg() / pmclog_reader__offset() say why
 *            and where.
 */
PMCLOG_API int pmclog_reader__next(struct pmclog_reader *r, struct pmclog_record *ev);

/*
 * Why the log ended: PMCLOG_READER_END_CLOSELOG as soon as CLOSELOG was
 * returned, PMCLOG_READER_END_EOF once pmclog_reader__next() returned 0
 * at the end of the input; PMCLOG_READER_END_NONE before, and after an
 * error.
 */
PMCLOG_API enum pmclog_reader_end pmclog_reader__end(const struct pmclog_reader *r);

/*
 * Byte offset of the record last returned by pmclog_reader__next(), or of
 * the record it failed on.  0 before the first call.
 */
PMCLOG_API __u64 pmclog_reader__offset(const struct pmclog_reader *r);

/*
 * The error of a reader in the error state, as a negative errno (0 when
 * there is none), and a message naming the offset and what was expected,
 * e.g. "truncated record at offset 96: header says 48 bytes, only 20
 * present".  The message is "" when there is no error; it lives as long
 * as the reader.
 */
PMCLOG_API int pmclog_reader__error(const struct pmclog_reader *r);
PMCLOG_API const char *pmclog_reader__errmsg(const struct pmclog_reader *r);

/*
 * Whether the reader's error is the input ending too soon: inside a
 * record, or inside the zstd frame of a compressed log (a log cut short,
 * not one with bad bytes).  Since version 1.1.0 of the library.
 */
PMCLOG_API bool pmclog_reader__truncated(const struct pmclog_reader *r);

/*
 * Whether the log is compressed (a zstd stream, which the reader
 * decompresses as it reads: the records and their offsets are those of
 * the log decompressed).  Known once the first record was asked for.
 * Since version 1.1.0 of the library.
 */
PMCLOG_API bool pmclog_reader__compressed(const struct pmclog_reader *r);

/*
 * The packed ABI version (PMCLOG_ABI_VERSION()) of the module that wrote
 * the log, from its INITIALIZE record; 0 until that record was read.
 * pmclog_reader__initialize() returns a copy of that record, or NULL.
 */
PMCLOG_API __u32 pmclog_reader__abi_version(const struct pmclog_reader *r);
PMCLOG_API const struct pmclog_initialize *
pmclog_reader__initialize(const struct pmclog_reader *r);

/* Free the reader and everything it returned; NULL is a no-op. */
PMCLOG_API void pmclog_reader__free(struct pmclog_reader *r);

/* "INITIALIZE", "PCSAMPLE", ...; NULL for type 0 and unknown types. */
PMCLOG_API const char *pmclog_type_name(unsigned int type);

/*
 * The fixed size of a record type: the smallest length its records may
 * have (for MAP_IN, PROCEXEC and KSYMBOL, without the string).  0 for type 0 and for
 * types above PMCLOG_TYPE_MAX_KNOWN.
 */
PMCLOG_API size_t pmclog_record_min_size(unsigned int type);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_READER_H */
