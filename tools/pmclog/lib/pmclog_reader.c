// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog reader: validate a pmclog byte stream record by record.
 *
 * Bytes arrive in r->buf, from pmclog_reader__feed() (memory mode) or from
 * read(2) on r->fd (fd mode); [head, tail) is what is buffered and not yet
 * consumed.  A record is only consumed once it is whole, and is described
 * to the caller where it lies, r->rec: not copied again.  It is 8-byte
 * aligned there, for the typed structs: buf comes from realloc(), head is
 * 0 after every compaction (buf_reserve()) and only ever moves by the
 * length of a valid record, a multiple of 8.  The next call that may move
 * the buffer (feed, next, free) is where the record stops being valid, as
 * the API says.
 *
 * A log saved compressed (a zstd stream: pmclog record compresses by
 * default) is known by its first four bytes, the zstd frame magic, and
 * decompressed as it is read: the compressed bytes wait in r->z.in and
 * come out into buf a chunk at a time, so memory is the same as for a
 * plain log.  Offsets stay those of the log, decompressed.  A corrupt or
 * cut compressed stream is an error only once the records decompressed
 * before it have been returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pmclog_internal.h"

#define READ_CHUNK	(64 * 1024)

/* What the input is, known from its first bytes. */
enum reader_input {
	IN_UNKNOWN,		/* fewer than 4 bytes yet */
	IN_PLAIN,
	IN_ZSTD,
};

#define ZSTD_MAGIC_LE	0xFD2FB528U	/* the first 4 bytes of a zstd frame */

enum reader_state {
	RS_EXPECT_INITIALIZE,	/* nothing read yet */
	RS_RECORDS,		/* INITIALIZE accepted */
	RS_END,			/* CLOSELOG, or input ended at a boundary */
	RS_ERROR,		/* sticky: r->err, r->errmsg */
};

struct pmclog_reader {
	enum reader_state state;
	enum pmclog_reader_end end;
	int fd;			/* -1: memory mode */
	bool own_fd;		/* opened by open_file: close it on free */
	bool input_done;	/* read(2) returned 0, or feed_eof() */
	enum reader_input input;
	bool cut;		/* the input ended inside a record, or a frame */

	/* IN_ZSTD: the compressed bytes not decompressed yet */
	struct {
		ZSTD_DStream *ds;
		unsigned char *in;
		size_t pos, len, cap;	/* [pos, len) waits */
		__u64 consumed;		/* compressed bytes decompressed */
		bool in_frame;		/* a frame is begun and not ended */
		int err;		/* negative: decompression stopped */
		char msg[160];
	} z;

	unsigned char *buf;
	size_t cap;
	size_t head;		/* first byte not consumed */
	size_t tail;		/* first byte not filled */
	__u64 head_offset;	/* log offset of buf[head] */
	__u64 rec_offset;	/* log offset of the current record */

	int err;		/* negative errno in RS_ERROR, else 0 */
	char errmsg[256];
	pmclog_reader_log_fn log_fn;
	void *log_ctx;

	__u32 abi_version;	/* INITIALIZE's, even if refused */
	bool have_init;		/* init holds an accepted INITIALIZE */
	struct pmclog_initialize init;
	char cpu_id[sizeof(((struct pmclog_initialize *)0)->cpu_id) + 1];

	/* The current record, in buf. */
	const unsigned char *rec;

	/*
	 * A PCSAMPLES being returned as its PCSAMPLEs: the last one returned,
	 * and the deltas of the left ones (copied: buf moves under them).
	 */
	struct {
		struct pmclog_pcsample sample;
		__u64 offset;		/* the PCSAMPLES' */
		__u32 left;		/* samples not returned yet */
		unsigned char *deltas;
		size_t pos, size, cap;
	} pk;
};

/* Both tables from PMCLOG_RECORD_TYPES, the uapi header's one list. */
#define RECORD_MIN_SIZE(name, value, type)	[PMCLOG_TYPE_##name] = sizeof(type),
static const size_t record_min_size[] = {
	PMCLOG_RECORD_TYPES(RECORD_MIN_SIZE)
};
#undef RECORD_MIN_SIZE

#define RECORD_TYPE_NAME(name, value, type)	[PMCLOG_TYPE_##name] = #name,
static const char *const record_type_name[] = {
	PMCLOG_RECORD_TYPES(RECORD_TYPE_NAME)
};
#undef RECORD_TYPE_NAME

_Static_assert(sizeof(record_min_size) / sizeof(record_min_size[0]) ==
	       PMCLOG_TYPE_MAX_KNOWN + 1, "a size for every known type");
_Static_assert(sizeof(record_type_name) / sizeof(record_type_name[0]) ==
	       PMCLOG_TYPE_MAX_KNOWN + 1, "a name for every known type");

size_t pmclog_record_min_size(unsigned int type)
{
	return type <= PMCLOG_TYPE_MAX_KNOWN ? record_min_size[type] : 0;
}

const char *pmclog_type_name(unsigned int type)
{
	return type <= PMCLOG_TYPE_MAX_KNOWN ? record_type_name[type] : NULL;
}

/* ------------------------------------------------------------------ */
/* Errors                                                             */

/* Enter the sticky error state with err (negative) and a message. */
__attribute__((format(printf, 3, 4)))
static int reader_fail(struct pmclog_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	r->state = RS_ERROR;
	r->err = err;
	/* The caller decides whether this is worth a warning: debug here. */
	pr_debug("reader: %s\n", r->errmsg);
	if (r->log_fn)
		r->log_fn(r->log_ctx, r->errmsg);
	return pmclog_err(-err);
}

/* ------------------------------------------------------------------ */
/* Construction                                                       */

static struct pmclog_reader *reader_alloc(int fd,
					  const struct pmclog_reader_opts *opts)
{
	struct pmclog_reader *r;

	if (!OPTS_VALID(opts, pmclog_reader_opts__last_field)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	r->state = RS_EXPECT_INITIALIZE;
	r->log_fn = OPTS_GET(opts, log_fn, NULL);
	r->log_ctx = OPTS_GET(opts, log_ctx, NULL);
	return r;
}

struct pmclog_reader *pmclog_reader__new(const struct pmclog_reader_opts *opts)
{
	return reader_alloc(-1, opts);
}

struct pmclog_reader *pmclog_reader__open_fd(int fd,
					     const struct pmclog_reader_opts *opts)
{
	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	return reader_alloc(fd, opts);
}

struct pmclog_reader *pmclog_reader__open_file(const char *path,
					       const struct pmclog_reader_opts *opts)
{
	struct pmclog_reader *r;
	int fd, saved;

	if (!OPTS_VALID(opts, pmclog_reader_opts__last_field)) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	r = reader_alloc(fd, opts);
	if (!r) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	r->own_fd = true;
	return r;
}

void pmclog_reader__free(struct pmclog_reader *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->fd);
	ZSTD_freeDStream(r->z.ds);
	free(r->z.in);
	free(r->buf);
	free(r->pk.deltas);
	free(r);
}

/* ------------------------------------------------------------------ */
/* Buffering                                                          */

static size_t buffered(const struct pmclog_reader *r)
{
	return r->tail - r->head;
}

/* Make room for at least room more bytes after tail. */
static int buf_reserve(struct pmclog_reader *r, size_t room)
{
	size_t need, cap;
	unsigned char *buf;

	if (r->head) {
		memmove(r->buf, r->buf + r->head, buffered(r));
		r->tail -= r->head;
		r->head = 0;
	}
	if (room > SIZE_MAX - r->tail)
		return -ENOMEM;
	need = r->tail + room;
	if (need <= r->cap)
		return 0;
	cap = r->cap ? r->cap : READ_CHUNK;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	buf = realloc(r->buf, cap);
	if (!buf)
		return -ENOMEM;
	r->buf = buf;
	r->cap = cap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Compressed input                                                   */

/* Keep len more compressed bytes, after those waiting. */
static int z_append(struct pmclog_reader *r, const void *p, size_t len)
{
	if (r->z.pos) {
		memmove(r->z.in, r->z.in + r->z.pos, r->z.len - r->z.pos);
		r->z.len -= r->z.pos;
		r->z.pos = 0;
	}
	if (PMCLOG_GROW(r->z.in, r->z.cap, r->z.len + len))
		return -ENOMEM;
	memcpy(r->z.in + r->z.len, p, len);
	r->z.len += len;
	return 0;
}

/*
 * What the first bytes say: a zstd stream's move from buf to r->z.in.
 * Undecided (IN_UNKNOWN) while fewer than 4 bytes came and more may.
 */
static int detect_input(struct pmclog_reader *r)
{
	__u32 magic;

	if (buffered(r) < sizeof(magic) && !r->input_done)
		return 0;
	r->input = IN_PLAIN;
	if (buffered(r) < sizeof(magic))
		return 0;
	memcpy(&magic, r->buf + r->head, sizeof(magic));
	if (magic != ZSTD_MAGIC_LE)
		return 0;
	r->input = IN_ZSTD;
	r->z.ds = ZSTD_createDStream();
	if (!r->z.ds || z_append(r, r->buf + r->head, buffered(r)))
		return -ENOMEM;
	r->tail = r->head;
	return 0;
}

/*
 * Decompress what waits into buf, a chunk at most.  Return: 1 when bytes
 * came out or went in, 0 when nothing can move without more input (or
 * after an error, kept in r->z.err), -ENOMEM.
 */
static int z_step(struct pmclog_reader *r)
{
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	size_t ret;

	if (r->z.err)
		return 0;
	if (r->z.pos == r->z.len && !r->z.in_frame)
		return 0;
	if (buf_reserve(r, READ_CHUNK))
		return -ENOMEM;
	in = (ZSTD_inBuffer){ r->z.in, r->z.len, r->z.pos };
	out = (ZSTD_outBuffer){ r->buf + r->tail, r->cap - r->tail, 0 };
	ret = ZSTD_decompressStream(r->z.ds, &out, &in);
	r->z.consumed += in.pos - r->z.pos;
	if (ZSTD_isError(ret)) {
		r->z.err = -EBADMSG;
		snprintf(r->z.msg, sizeof(r->z.msg),
			 "corrupt compressed log at byte %llu of the file (zstd: %s)",
			 (unsigned long long)r->z.consumed, ZSTD_getErrorName(ret));
		return 0;
	}
	r->tail += out.pos;
	if (in.pos != r->z.pos || out.pos) {
		r->z.in_frame = ret != 0;
		r->z.pos = in.pos;
		return 1;
	}
	r->z.pos = in.pos;
	return 0;
}

/*
 * No more compressed input: one frame unfinished is a cut log (the
 * recorder stopped before it ended the stream).
 */
static void z_ended(struct pmclog_reader *r)
{
	if (r->z.err || !r->z.in_frame || r->z.pos != r->z.len)
		return;
	r->z.err = -EBADMSG;
	r->cut = true;
	snprintf(r->z.msg, sizeof(r->z.msg),
		 "the compressed log ends inside a zstd frame, at byte %llu of the file (the recorder stopped before it finished the log)",
		 (unsigned long long)r->z.consumed);
}

int pmclog_reader__feed(struct pmclog_reader *r, const void *buf, size_t len)
{
	if (!r || r->fd >= 0 || r->input_done || (!buf && len))
		return pmclog_err(EINVAL);
	if (!len)
		return 0;
	if (r->input == IN_ZSTD)
		return z_append(r, buf, len) ? pmclog_err(ENOMEM) : 0;
	if (buf_reserve(r, len))
		return pmclog_err(ENOMEM);
	memcpy(r->buf + r->tail, buf, len);
	r->tail += len;
	return 0;
}

int pmclog_reader__feed_eof(struct pmclog_reader *r)
{
	if (!r || r->fd >= 0)
		return pmclog_err(EINVAL);
	r->input_done = true;
	return 0;
}

/* fd mode: read(2) once, into buf or, compressed, r->z.in. */
static int fd_read(struct pmclog_reader *r)
{
	unsigned char *to;
	ssize_t n;

	if (r->input == IN_ZSTD) {
		if (z_append(r, "", 0) || PMCLOG_GROW(r->z.in, r->z.cap, r->z.len + READ_CHUNK))
			return reader_fail(r, -ENOMEM, "out of memory reading at offset %llu",
					   (unsigned long long)r->head_offset);
		to = r->z.in + r->z.len;
	} else {
		if (buf_reserve(r, READ_CHUNK))
			return reader_fail(r, -ENOMEM, "out of memory reading at offset %llu",
					   (unsigned long long)r->head_offset);
		to = r->buf + r->tail;
	}
	do
		n = read(r->fd, to, READ_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return reader_fail(r, -errno, "read error at offset %llu: %s",
				   (unsigned long long)(r->head_offset + buffered(r)),
				   strerror(errno));
	if (n == 0)
		r->input_done = true;
	if (r->input == IN_ZSTD)
		r->z.len += (size_t)n;
	else
		r->tail += (size_t)n;
	return 0;
}

/*
 * Have want bytes buffered at head: read (fd mode) and decompress as
 * needed.
 * Return: 0; -ENODATA when the input ended first; -EAGAIN when a memory
 * reader needs more; another negative errno after a read error, or when
 * a compressed log stops being readable (after what came before it).
 */
static int buf_want(struct pmclog_reader *r, size_t want)
{
	int err;

	while (r->input == IN_UNKNOWN || buffered(r) < want) {
		if (r->input == IN_UNKNOWN && (err = detect_input(r)))
			return reader_fail(r, err, "out of memory reading at offset %llu",
					   (unsigned long long)r->head_offset);
		if (r->input != IN_UNKNOWN && buffered(r) >= want)
			break;
		if (r->input == IN_ZSTD) {
			err = z_step(r);
			if (err < 0)
				return reader_fail(r, err, "out of memory decompressing at offset %llu",
						   (unsigned long long)r->head_offset);
			if (err)
				continue;
			if (r->z.err)
				break;
		}
		if (r->input_done || r->fd < 0)
			break;
		if ((err = fd_read(r)))
			return err;
	}
	if (buffered(r) >= want && r->input != IN_UNKNOWN)
		return 0;
	if (r->input == IN_ZSTD && r->input_done)
		z_ended(r);
	if (r->z.err)
		return reader_fail(r, r->z.err, "%s", r->z.msg);
	return r->input_done ? -ENODATA : -EAGAIN;
}

static void buf_consume(struct pmclog_reader *r, size_t len)
{
	r->head += len;
	r->head_offset += len;
}

/* ------------------------------------------------------------------ */
/* Validation                                                         */

static unsigned long long offset_of(const struct pmclog_reader *r)
{
	return (unsigned long long)r->rec_offset;
}

static int check_header(struct pmclog_reader *r, const struct pmclog_header *h)
{
	size_t min = pmclog_record_min_size(h->type);

	if (h->magic != PMCLOG_HEADER_MAGIC)
		return reader_fail(r, -EBADMSG,
				   "bad record magic 0x%02x at offset %llu: expected 0x%02x (not a pmclog log, or a corrupt one)",
				   h->magic, offset_of(r), PMCLOG_HEADER_MAGIC);
	if (r->state == RS_EXPECT_INITIALIZE && h->type == PMCLOG_TYPE_INITIALIZE &&
	    h->length != sizeof(struct pmclog_initialize) &&
	    __builtin_bswap16(h->length) == sizeof(struct pmclog_initialize))
		return reader_fail(r, -EBADMSG,
				   "log at offset %llu is in the other byte order: it was written on a machine of the other endianness, which this pmclog cannot read",
				   offset_of(r));
	if (h->type == 0)
		return reader_fail(r, -EBADMSG,
				   "record type 0 at offset %llu: expected a type from 1 up (corrupt log)",
				   offset_of(r));
	if (h->length < sizeof(*h) || h->length % PMCLOG_RECORD_ALIGN)
		return reader_fail(r, -EBADMSG,
				   "bad record length %u at offset %llu: expected a multiple of %u, at least %zu",
				   h->length, offset_of(r), PMCLOG_RECORD_ALIGN, sizeof(*h));
	if (h->length < min)
		return reader_fail(r, -EBADMSG,
				   "%s record at offset %llu is %u bytes: expected at least %zu",
				   pmclog_type_name(h->type), offset_of(r), h->length, min);
	if (r->state == RS_EXPECT_INITIALIZE && h->type != PMCLOG_TYPE_INITIALIZE)
		return reader_fail(r, -EBADMSG,
				   "record at offset %llu has type %u: expected INITIALIZE first (not the start of a pmclog log)",
				   offset_of(r), h->type);
	/*
	 * A second one would change ncpus under the records already checked,
	 * and the time origin of the report (whichever sorts last).
	 */
	if (r->state != RS_EXPECT_INITIALIZE && h->type == PMCLOG_TYPE_INITIALIZE)
		return reader_fail(r, -EBADMSG,
				   "INITIALIZE record at offset %llu: expected only one, at offset 0 (two logs run together, or a corrupt one)",
				   offset_of(r));
	if (r->have_init && h->cpu >= r->init.ncpus)
		return reader_fail(r, -EBADMSG,
				   "record at offset %llu has cpu %u: expected below INITIALIZE's ncpus=%u",
				   offset_of(r), h->cpu, r->init.ncpus);
	return 0;
}

/*
 * Whether a NUL-terminated string starts at byte off of the current
 * record and ends before byte end.
 */
static bool record_string(const struct pmclog_reader *r, size_t off, size_t end)
{
	return off < end && memchr((const char *)r->rec + off, '\0', end - off);
}

static int check_initialize(struct pmclog_reader *r)
{
	const struct pmclog_initialize *in = (const void *)r->rec;
	__u32 v = in->abi_version;

	r->abi_version = v;
	if (PMCLOG_ABI_VERSION_MAJOR(v) != PMCLOG_ABI_MAJOR)
		return reader_fail(r, -EPROTONOSUPPORT,
				   "log has ABI version %u.%u.%u; this pmclog reads major %u only",
				   PMCLOG_ABI_VERSION_MAJOR(v), PMCLOG_ABI_VERSION_MINOR(v),
				   PMCLOG_ABI_VERSION_PATCH(v), PMCLOG_ABI_MAJOR);
	if (in->header.cpu >= in->ncpus)
		return reader_fail(r, -EBADMSG,
				   "INITIALIZE at offset %llu has cpu %u and ncpus %u: expected cpu below ncpus",
				   offset_of(r), in->header.cpu, in->ncpus);
	return 0;
}

/*
 * The string that follows the fixed part of MAP_IN, PROCEXEC and KSYMBOL:
 * what, "path" or "name", must end with a NUL before the record does.
 */
static int check_tail_string(struct pmclog_reader *r, const struct pmclog_record *ev,
			     const char *what)
{
	size_t off = pmclog_record_min_size(ev->type);

	if (!record_string(r, off, ev->length))
		return reader_fail(r, -EBADMSG,
				   "%s record at offset %llu: expected a NUL-terminated %s in bytes %zu..%u",
				   pmclog_type_name(ev->type), offset_of(r), what, off,
				   ev->length);
	return 0;
}

static int check_buildid(struct pmclog_reader *r)
{
	const struct pmclog_buildid *b = (const void *)r->rec;

	if (!b->size || b->size > PMCLOG_BUILD_ID_MAX)
		return reader_fail(r, -EBADMSG,
				   "BUILDID record at offset %llu has size %u: expected 1 to %u",
				   offset_of(r), b->size, PMCLOG_BUILD_ID_MAX);
	return 0;
}

/* Its frames fill it: nkernel + nuser of them, and at most 7 bytes more. */
static int check_callchain(struct pmclog_reader *r, const struct pmclog_record *ev)
{
	const struct pmclog_callchain *c = (const void *)r->rec;
	size_t n = (size_t)c->nkernel + c->nuser;

	if (sizeof(*c) + n * sizeof(c->pc[0]) != ev->length)
		return reader_fail(r, -EBADMSG,
				   "CALLCHAIN record at offset %llu is %u bytes with %u kernel and %u user frames: expected %zu",
				   offset_of(r), ev->length, c->nkernel, c->nuser,
				   sizeof(*c) + n * sizeof(c->pc[0]));
	if (c->nkernel && c->header.flags & PMCLOG_HF_USER)
		return reader_fail(r, -EBADMSG,
				   "CALLCHAIN record at offset %llu of a user sample has %u kernel frames: expected none",
				   offset_of(r), c->nkernel);
	return 0;
}

/*
 * count - 1 pairs of deltas fill size bytes exactly, and NULs the rest:
 * a record that cannot be unpacked is an error before any of its samples
 * is returned.
 */
static int check_pcsamples(struct pmclog_reader *r, const struct pmclog_record *ev)
{
	const struct pmclog_pcsamples *ps = (const void *)r->rec;
	const unsigned char *p = ps->deltas, *end;
	__u64 v = 0;

	if (ps->count < 2)
		return reader_fail(r, -EBADMSG,
				   "PCSAMPLES record at offset %llu has count %u: expected 2 or more",
				   offset_of(r), ps->count);
	if (ps->size > ev->length - sizeof(*ps) ||
	    PMCLOG_RECORD_LEN(sizeof(*ps) + ps->size) != ev->length)
		return reader_fail(r, -EBADMSG,
				   "PCSAMPLES record at offset %llu is %u bytes with %u bytes of deltas: expected %zu",
				   offset_of(r), ev->length, ps->size,
				   PMCLOG_RECORD_LEN(sizeof(*ps) + (size_t)ps->size));
	end = p + ps->size;
	for (__u32 i = 1; i < ps->count; i++) {
		size_t t = pmclog_delta_get(p, end, &v), n = t ? pmclog_delta_get(p + t, end, &v) : 0;

		if (!n)
			return reader_fail(r, -EBADMSG,
					   "PCSAMPLES record at offset %llu: the deltas of sample %u of %u are cut or malformed at byte %zu",
					   offset_of(r), i + 1, ps->count,
					   (size_t)(p - r->rec) + t);
		p += t + n;
	}
	if (p != end)
		return reader_fail(r, -EBADMSG,
				   "PCSAMPLES record at offset %llu: %zu bytes of deltas after its %u samples",
				   offset_of(r), (size_t)(end - p), ps->count);
	for (; p < r->rec + ev->length; p++)
		if (*p)
			return reader_fail(r, -EBADMSG,
					   "PCSAMPLES record at offset %llu: byte %zu of its padding is 0x%02x, expected NUL",
					   offset_of(r), (size_t)(p - r->rec), *p);
	return 0;
}

static int check_pmcallocate(struct pmclog_reader *r)
{
	size_t off = offsetof(struct pmclog_pmcallocate, name);

	if (!record_string(r, off, off + sizeof(((struct pmclog_pmcallocate *)0)->name)))
		return reader_fail(r, -EBADMSG,
				   "PMCALLOCATE record at offset %llu: expected a NUL-terminated event name",
				   offset_of(r));
	return 0;
}

/* Type-specific checks of a whole record in r->rec. */
static int check_body(struct pmclog_reader *r, const struct pmclog_record *ev)
{
	switch (ev->type) {
	case PMCLOG_TYPE_INITIALIZE:
		return check_initialize(r);
	case PMCLOG_TYPE_PMCALLOCATE:
		return check_pmcallocate(r);
	case PMCLOG_TYPE_MAP_IN:
	case PMCLOG_TYPE_PROCEXEC:
		return check_tail_string(r, ev, "path");
	case PMCLOG_TYPE_KSYMBOL:
		return check_tail_string(r, ev, "name");
	case PMCLOG_TYPE_BUILDID:
		return check_buildid(r);
	case PMCLOG_TYPE_CALLCHAIN:
		return check_callchain(r, ev);
	case PMCLOG_TYPE_PCSAMPLES:
		return check_pcsamples(r, ev);
	default:
		/* Fixed-size records, and types of a newer minor version. */
		return 0;
	}
}

/* The next sample of the PCSAMPLES being unpacked, in *ev. */
static int unpack_next(struct pmclog_reader *r, struct pmclog_record *ev)
{
	struct pmclog_pcsample *s = &r->pk.sample;
	const unsigned char *end = r->pk.deltas + r->pk.size;

	/* Checked when the record came: neither read can fail. */
	r->pk.pos += pmclog_delta_get(r->pk.deltas + r->pk.pos, end, &s->header.tstamp);
	r->pk.pos += pmclog_delta_get(r->pk.deltas + r->pk.pos, end, &s->pc);
	r->pk.left--;
	r->rec_offset = r->pk.offset;
	pmclog_record__describe(ev, s, r->pk.offset);
	return 1;
}

/*
 * A valid PCSAMPLES in r->rec: its first sample in *ev, the others at the
 * next calls.
 */
static int unpack_first(struct pmclog_reader *r, struct pmclog_record *ev)
{
	const struct pmclog_pcsamples *ps = (const void *)r->rec;

	if (PMCLOG_GROW(r->pk.deltas, r->pk.cap, ps->size))
		return reader_fail(r, -ENOMEM, "out of memory unpacking the PCSAMPLES record at offset %llu",
				   offset_of(r));
	memcpy(r->pk.deltas, ps->deltas, ps->size);
	r->pk.size = ps->size;
	r->pk.pos = 0;
	r->pk.left = ps->count - 1;
	r->pk.offset = r->rec_offset;
	r->pk.sample = (struct pmclog_pcsample){
		.header = ps->header,
		.pid = ps->pid,
		.tid = ps->tid,
		.pc = ps->pc,
	};
	r->pk.sample.header.type = PMCLOG_TYPE_PCSAMPLE;
	r->pk.sample.header.length = sizeof(r->pk.sample);
	pmclog_record__describe(ev, &r->pk.sample, r->pk.offset);
	return 1;
}

/*
 * Check the whole record in r->rec and describe it in *ev; 1 when it is
 * valid.  Its type moves the state machine on.
 */
static int decode_record(struct pmclog_reader *r, struct pmclog_record *ev)
{
	int ret = check_body(r, ev);

	if (ret)
		return ret;
	if (ev->type == PMCLOG_TYPE_PCSAMPLES)
		return unpack_first(r, ev);
	pmclog_record__describe(ev, r->rec, r->rec_offset);
	if (ev->type == PMCLOG_TYPE_INITIALIZE) {
		r->init = *ev->rec.initialize;
		r->have_init = true;
		memcpy(r->cpu_id, r->init.cpu_id, sizeof(r->init.cpu_id));
		r->cpu_id[sizeof(r->init.cpu_id)] = '\0';
		ev->name = r->cpu_id;
		r->state = RS_RECORDS;
	} else if (ev->type == PMCLOG_TYPE_CLOSELOG) {
		r->state = RS_END;
		r->end = PMCLOG_READER_END_CLOSELOG;
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* The state machine                                                  */

/*
 * The input ended before the record at head was whole; h is its header if
 * that much arrived.  Ending exactly at a record boundary ends the log.
 */
static int input_ended(struct pmclog_reader *r, const struct pmclog_header *h)
{
	size_t left = buffered(r);

	if (!left && r->state == RS_EXPECT_INITIALIZE)
		return reader_fail(r, -EBADMSG,
				   "log is empty: expected an INITIALIZE record at offset 0");
	if (!left) {
		r->state = RS_END;
		r->end = PMCLOG_READER_END_EOF;
		return 0;
	}
	r->cut = true;
	if (!h)
		return reader_fail(r, -EBADMSG,
				   "truncated record at offset %llu: only %zu bytes of a %zu-byte header present",
				   offset_of(r), left, sizeof(struct pmclog_header));
	return reader_fail(r, -EBADMSG,
			   "truncated record at offset %llu: header says %u bytes, only %zu present",
			   offset_of(r), h->length, left);
}

static int want_or_end(struct pmclog_reader *r, size_t want,
		       const struct pmclog_header *h)
{
	int err = buf_want(r, want);

	if (err == -ENODATA)
		return input_ended(r, h);
	if (err == -EAGAIN)
		return pmclog_err(EAGAIN);
	return err ? err : 1;
}

int pmclog_reader__next(struct pmclog_reader *r, struct pmclog_record *ev)
{
	struct pmclog_header h;
	int ret;

	if (!r || !ev)
		return pmclog_err(EINVAL);
	if (r->state == RS_ERROR)
		return pmclog_err(-r->err);
	if (r->state == RS_END)
		return 0;
	if (r->pk.left)
		return unpack_next(r, ev);

	r->rec_offset = r->head_offset;
	ret = want_or_end(r, sizeof(h), NULL);
	if (ret <= 0)
		return ret;
	memcpy(&h, r->buf + r->head, sizeof(h));
	ret = check_header(r, &h);
	if (ret)
		return ret;
	ret = want_or_end(r, h.length, &h);
	if (ret <= 0)
		return ret;

	r->rec = r->buf + r->head;
	buf_consume(r, h.length);

	*ev = (struct pmclog_record){ .type = h.type, .length = h.length };
	return decode_record(r, ev);
}

void pmclog_record__describe(struct pmclog_record *ev, const void *raw,
			     __u64 offset)
{
	const struct pmclog_header *h = raw;

	*ev = (struct pmclog_record){
		.type = h->type, .length = h->length, .cpu = h->cpu,
		.flags = h->flags, .pmcid = h->pmcid, .tstamp = h->tstamp,
		.offset = offset, .rec.header = h,
	};
	switch (h->type) {
	case PMCLOG_TYPE_MAP_IN:
	case PMCLOG_TYPE_PROCEXEC:
		ev->path = (const char *)raw + pmclog_record_min_size(h->type);
		break;
	case PMCLOG_TYPE_KSYMBOL:
		ev->name = (const char *)raw + pmclog_record_min_size(h->type);
		break;
	case PMCLOG_TYPE_PMCALLOCATE:
		ev->name = ev->rec.pmcallocate->name;
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Accessors                                                          */

enum pmclog_reader_end pmclog_reader__end(const struct pmclog_reader *r)
{
	return r->end;
}

__u64 pmclog_reader__offset(const struct pmclog_reader *r)
{
	return r->rec_offset;
}

void pmclog_reader__plain(struct pmclog_reader *r)
{
	r->input = IN_PLAIN;
}

int pmclog_reader__skip(struct pmclog_reader *r, size_t n)
{
	if (r->fd >= 0 || r->input == IN_ZSTD || r->state != RS_RECORDS ||
	    r->pk.left || buffered(r) || n % PMCLOG_RECORD_ALIGN)
		return pmclog_err(EINVAL);
	r->head_offset += n;
	return 0;
}

bool pmclog_reader__truncated(const struct pmclog_reader *r)
{
	return r->cut;
}

bool pmclog_reader__compressed(const struct pmclog_reader *r)
{
	return r->input == IN_ZSTD;
}

int pmclog_reader__error(const struct pmclog_reader *r)
{
	return r->err;
}

const char *pmclog_reader__errmsg(const struct pmclog_reader *r)
{
	return r->errmsg;
}

__u32 pmclog_reader__abi_version(const struct pmclog_reader *r)
{
	return r->abi_version;
}

const struct pmclog_initialize *
pmclog_reader__initialize(const struct pmclog_reader *r)
{
	return r->have_init ? &r->init : NULL;
}
