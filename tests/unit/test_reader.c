// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog reader: valid logs fed whole, split and byte by byte, from
 * memory and from files; every kind of corruption it must refuse, with
 * the right offset and message; and the record types it must skip.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "log_builder.h"
#include "pmclog_reader.h"

/* What a test remembers of one record. */
struct seen {
	__u64 type;	/* not narrower: the tests memcmp() these */
	__u64 offset;
};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

static struct pmclog_reader *reader_with(const struct logbuf *b, size_t len)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);

	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b->data, len), 0);
	return r;
}

/* Read records into seen[] until next() stops returning 1; return that. */
static int drain(struct pmclog_reader *r, struct seen *seen, size_t *n)
{
	struct pmclog_record rec;
	int ret;

	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		assert_true(*n < 64);
		seen[*n].type = rec.type;
		seen[*n].offset = rec.offset;
		(*n)++;
	}
	return ret;
}

/* Feed a whole log, say it ended, and return the first error. */
static int read_all(const struct logbuf *b, struct pmclog_reader **rp)
{
	struct seen seen[64];
	size_t n = 0;

	*rp = reader_with(b, b->len);
	assert_int_equal(pmclog_reader__feed_eof(*rp), 0);
	return drain(*rp, seen, &n);
}

static void assert_error(const struct logbuf *b, int err, __u64 offset,
			 const char *msg)
{
	struct pmclog_reader *r;
	struct pmclog_record rec;

	errno = 0;
	assert_int_equal(read_all(b, &r), -err);
	assert_int_equal(errno, err);
	assert_int_equal(pmclog_reader__error(r), -err);
	assert_int_equal(pmclog_reader__offset(r), offset);
	assert_string_equal(pmclog_reader__errmsg(r), msg);
	/* Sticky: the reader does not resume past an error. */
	assert_int_equal(pmclog_reader__next(r, &rec), -err);
	pmclog_reader__free(r);
}

static char *write_temp(const void *data, size_t len)
{
	char *path = strdup("/tmp/pmclog-test-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* ------------------------------------------------------------------ */
/* Valid logs                                                         */

static void test_full_log_fields(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	(void)state;

	lb_full_log(&b);
	r = reader_with(&b, b.len);

	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_NONE);
	assert_int_equal(pmclog_reader__abi_version(r), 0);
	assert_null(pmclog_reader__initialize(r));
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_INITIALIZE);
	assert_int_equal(rec.offset, 0);
	assert_int_equal(rec.length, 56);
	assert_int_equal(rec.tstamp, LB_TS_BASE);
	assert_int_equal(rec.rec.initialize->ncpus, 4);
	assert_string_equal(rec.name, "GenuineIntel");
	assert_null(rec.path);
	assert_int_equal(pmclog_reader__abi_version(r), PMCLOG_ABI_CURRENT);
	assert_non_null(pmclog_reader__initialize(r));
	assert_int_equal(pmclog_reader__initialize(r)->ncpus, 4);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_PMCALLOCATE);
	assert_int_equal(rec.offset, 56);
	assert_int_equal(rec.pmcid, 1);
	assert_int_equal(rec.rec.pmcallocate->period, 1000);
	assert_string_equal(rec.name, "cpu-clock");

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_MAP_IN);
	assert_int_equal(rec.offset, 128);
	assert_int_equal(rec.rec.map_in->pid, PMCLOG_PID_KERNEL);
	assert_int_equal(rec.rec.map_in->start, 0xffffffff81000000ULL);
	assert_string_equal(rec.path, "[kernel]");
	assert_int_equal(rec.length, 64);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_PROCEXEC);
	assert_string_equal(rec.path, "/usr/bin/true");
	assert_int_equal(rec.rec.procexec->pid, 42);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_MAP_IN);
	assert_int_equal(rec.rec.map_in->offset, 0x1000);
	assert_int_equal(rec.rec.map_in->flags, PMCLOG_MAP_F_INITIAL);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_BUILDID);
	assert_int_equal(rec.length, 56);
	assert_int_equal(rec.rec.buildid->pid, 42);
	assert_int_equal(rec.rec.buildid->start, 0x400000);
	assert_int_equal(rec.rec.buildid->size, 4);
	assert_int_equal(rec.rec.buildid->build_id[3], 0x44);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_PCSAMPLE);
	assert_int_equal(rec.cpu, 1);
	assert_int_equal(rec.flags, PMCLOG_HF_USER);
	assert_int_equal(rec.rec.pcsample->pid, 42);
	assert_int_equal(rec.rec.pcsample->tid, 43);
	assert_int_equal(rec.rec.pcsample->pc, 0x400123);
	/* The copy is aligned for the typed structures. */
	assert_int_equal((uintptr_t)rec.rec.pcsample % 8, 0);

	for (int i = 0; i < 5; i++)
		assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_PROCEXIT);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_KSYMBOL);
	assert_int_equal(rec.rec.ksymbol->start, 0xffffffffc0001000ULL);
	assert_int_equal(rec.rec.ksymbol->size, 0x120);
	assert_string_equal(rec.name, "ext4_readdir");
	assert_null(rec.path);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_THROTTLE);
	assert_int_equal(rec.length, 32);
	assert_int_equal(rec.cpu, 2);
	assert_int_equal(rec.pmcid, 1);
	assert_int_equal(rec.rec.throttle->reason, PMCLOG_THROTTLE_RATE);
	assert_int_equal(rec.rec.throttle->count, 1);
	assert_null(rec.name);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_UNTHROTTLE);
	assert_int_equal(rec.rec.throttle->reason, PMCLOG_THROTTLE_RATE);
	assert_int_equal(rec.rec.throttle->stopped_ns, 3999000);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_CLOSELOG);
	assert_int_equal(rec.rec.closelog->samples, 7);
	assert_int_equal(rec.offset + rec.length, b.len);
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);

	assert_int_equal(pmclog_reader__next(r, &rec), 0);
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);
	assert_int_equal(pmclog_reader__next(r, &rec), 0);
	assert_int_equal(pmclog_reader__error(r), 0);
	assert_string_equal(pmclog_reader__errmsg(r), "");
	pmclog_reader__free(r);
}

/* The records, by offset and type, that reading b whole gives. */
static size_t expected_records(const struct logbuf *b, struct seen *seen)
{
	struct pmclog_reader *r = reader_with(b, b->len);
	size_t n = 0;

	assert_int_equal(drain(r, seen, &n), 0);
	assert_int_equal(n, LB_FULL_LOG_RECORDS);
	pmclog_reader__free(r);
	return n;
}

static void test_split_at_every_byte(void **state)
{
	struct logbuf b = { 0 };
	struct seen want[64], got[64];
	size_t nwant;
	(void)state;

	lb_full_log(&b);
	nwant = expected_records(&b, want);
	for (size_t cut = 0; cut <= b.len; cut++) {
		struct pmclog_reader *r = pmclog_reader__new(NULL);
		size_t n = 0, whole = 0;

		/* Records that end at or before the cut come out first. */
		while (whole < nwant && want[whole].offset < cut &&
		       (whole + 1 == nwant ? b.len : want[whole + 1].offset) <= cut)
			whole++;
		assert_int_equal(pmclog_reader__feed(r, b.data, cut), 0);
		assert_int_equal(drain(r, got, &n), cut == b.len ? 0 : -EAGAIN);
		assert_int_equal(n, whole);
		assert_int_equal(pmclog_reader__feed(r, b.data + cut, b.len - cut), 0);
		assert_int_equal(drain(r, got, &n), 0);
		assert_int_equal(n, nwant);
		assert_memory_equal(got, want, nwant * sizeof(want[0]));
		assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);
		pmclog_reader__free(r);
	}
}

static void test_one_byte_at_a_time(void **state)
{
	struct logbuf b = { 0 };
	struct seen want[64], got[64];
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	size_t nwant, n = 0;
	int ret = -EAGAIN;
	(void)state;

	lb_full_log(&b);
	nwant = expected_records(&b, want);
	for (size_t i = 0; i < b.len; i++) {
		assert_int_equal(ret, -EAGAIN);
		assert_int_equal(pmclog_reader__feed(r, b.data + i, 1), 0);
		ret = drain(r, got, &n);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, nwant);
	assert_memory_equal(got, want, nwant * sizeof(want[0]));
	pmclog_reader__free(r);
}

static void test_eagain_sets_errno_and_is_not_sticky(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	(void)state;

	lb_initialize(&b);
	r = reader_with(&b, 10);
	errno = 0;
	assert_int_equal(pmclog_reader__next(r, &rec), -EAGAIN);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(pmclog_reader__error(r), 0);
	assert_int_equal(pmclog_reader__feed(r, b.data + 10, b.len - 10), 0);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(pmclog_reader__next(r, &rec), -EAGAIN);
	pmclog_reader__free(r);
}

static void test_file_reader(void **state)
{
	struct logbuf b = { 0 };
	struct seen want[64], got[64];
	struct pmclog_reader *r;
	size_t nwant, n = 0;
	char *path;
	(void)state;

	lb_full_log(&b);
	nwant = expected_records(&b, want);
	path = write_temp(b.data, b.len);
	r = pmclog_reader__open_file(path, NULL);
	assert_non_null(r);
	assert_int_equal(drain(r, got, &n), 0);
	assert_int_equal(n, nwant);
	assert_memory_equal(got, want, nwant * sizeof(want[0]));
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);
	assert_int_equal(pmclog_reader__feed(r, b.data, 8), -EINVAL);
	pmclog_reader__free(r);
	unlink(path);
	free(path);
}

/* A pipe delivers a log in pieces; the fd reader must put them together. */
static void test_fd_reader_on_pipe(void **state)
{
	struct logbuf b = { 0 };
	struct seen got[64];
	struct pmclog_reader *r;
	size_t n = 0;
	int fds[2];
	(void)state;

	lb_full_log(&b);
	assert_int_equal(pipe(fds), 0);
	/* The whole log fits in the pipe buffer: write it in odd pieces. */
	for (size_t off = 0; off < b.len; off += 7) {
		size_t len = b.len - off < 7 ? b.len - off : 7;

		assert_int_equal(write(fds[1], b.data + off, len), (ssize_t)len);
	}
	close(fds[1]);
	r = pmclog_reader__open_fd(fds[0], NULL);
	assert_non_null(r);
	assert_int_equal(drain(r, got, &n), 0);
	assert_int_equal(n, LB_FULL_LOG_RECORDS);
	pmclog_reader__free(r);
	/* open_fd does not own the fd: still open after free. */
	assert_int_equal(close(fds[0]), 0);
}

/* ------------------------------------------------------------------ */
/* Compressed logs                                                    */

/* A log of n samples (many, so that zstd makes several blocks). */
static size_t big_log(unsigned char **out)
{
	static struct logbuf b;
	unsigned char *all;
	size_t len = 0, cap = 1 << 20;

	all = malloc(cap);
	assert_non_null(all);
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	memcpy(all, b.data, b.len);
	len = b.len;
	for (unsigned int i = 0; len + 4096 < cap - 64; i++) {
		memset(&b, 0, sizeof(b));
		for (int k = 0; k < 100; k++)
			lb_pcsample(&b, 0, 42, 42, 0x400000 + (i * 7919 + k * 104729) % 65536, 1);
		memcpy(all + len, b.data, b.len);
		len += b.len;
	}
	memset(&b, 0, sizeof(b));
	lb_closelog(&b, 0, 0, 0);
	memcpy(all + len, b.data, b.len);
	len += b.len;
	*out = all;
	return len;
}

static size_t zcompress(const void *in, size_t len, unsigned char **out)
{
	size_t cap = ZSTD_compressBound(len), n;

	*out = malloc(cap);
	assert_non_null(*out);
	n = ZSTD_compress(*out, cap, in, len, 1);
	assert_false(ZSTD_isError(n));
	return n;
}

/* Records and offsets of a whole memory reader of len bytes fed in pieces. */
static size_t count_records(const unsigned char *p, size_t len, size_t piece,
			    int *ret, struct pmclog_reader **rp)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;
	size_t n = 0, off = 0;

	assert_non_null(r);
	for (;;) {
		while ((*ret = pmclog_reader__next(r, &rec)) == 1)
			n++;
		if (*ret != -EAGAIN)
			break;
		if (off == len) {
			assert_int_equal(pmclog_reader__feed_eof(r), 0);
			continue;
		}
		assert_int_equal(pmclog_reader__feed(r, p + off, len - off < piece ?
						     len - off : piece), 0);
		off += len - off < piece ? len - off : piece;
	}
	*rp = r;
	return n;
}

/*
 * A zstd log (pmclog record's default) is read as the plain one is: the
 * same records at the same offsets, fed in pieces of any size or read
 * from a file, and known as compressed.
 */
static void test_compressed_log(void **state)
{
	unsigned char *plain, *z;
	size_t len = big_log(&plain), zlen = zcompress(plain, len, &z), n, want;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	int ret;
	char *path;
	(void)state;

	want = count_records(plain, len, len, &ret, &r);
	assert_int_equal(ret, 0);
	assert_false(pmclog_reader__compressed(r));
	pmclog_reader__free(r);
	assert_true(zlen < len / 4);
	for (size_t piece = 1; piece <= zlen; piece = piece * 7 + 1) {
		n = count_records(z, zlen, piece, &ret, &r);
		assert_int_equal(ret, 0);
		assert_int_equal(n, want);
		assert_true(pmclog_reader__compressed(r));
		assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);
		assert_int_equal(pmclog_reader__offset(r), len - sizeof(struct pmclog_closelog));
		pmclog_reader__free(r);
	}
	path = write_temp(z, zlen);
	r = pmclog_reader__open_file(path, NULL);
	assert_non_null(r);
	for (n = 0; (ret = pmclog_reader__next(r, &rec)) == 1; n++)
		if (n == 1)
			assert_int_equal(rec.offset, sizeof(struct pmclog_initialize));
	assert_int_equal(ret, 0);
	assert_int_equal(n, want);
	pmclog_reader__free(r);
	unlink(path);
	free(path);
	free(plain);
	free(z);
}

/*
 * A compressed log cut short (a recorder killed): every record before
 * the cut is read, then a truncation error that says so; a damaged one:
 * the records before the damage, then an error.  Neither is a clean end.
 */
static void test_compressed_cut_and_corrupt(void **state)
{
	unsigned char *plain, *z;
	size_t len = big_log(&plain), zlen = zcompress(plain, len, &z), all, n;
	struct pmclog_reader *r;
	int ret;
	(void)state;

	all = count_records(z, zlen, zlen, &ret, &r);
	pmclog_reader__free(r);
	n = count_records(z, zlen / 2, 4096, &ret, &r);
	assert_int_equal(ret, -EBADMSG);
	assert_true(pmclog_reader__truncated(r));
	assert_true(n > all / 4 && n < all);
	assert_non_null(strstr(pmclog_reader__errmsg(r),
			       "the compressed log ends inside a zstd frame"));
	pmclog_reader__free(r);

	z[zlen / 2] ^= 0xff;
	z[zlen / 2 + 1] ^= 0x5a;
	n = count_records(z, zlen, zlen, &ret, &r);
	assert_int_equal(ret, -EBADMSG);
	assert_false(pmclog_reader__truncated(r));
	assert_true(n > 0 && n < all);
	pmclog_reader__free(r);

	/* Plain logs: truncated is the end of the input inside a record. */
	n = count_records(plain, len - 8, len, &ret, &r);
	assert_int_equal(ret, -EBADMSG);
	assert_true(pmclog_reader__truncated(r));
	pmclog_reader__free(r);
	free(plain);
	free(z);
}

static void test_eof_without_closelog(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct seen got[64];
	size_t n = 0;
	char *path;
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	path = write_temp(b.data, b.len);
	r = pmclog_reader__open_file(path, NULL);
	assert_non_null(r);
	assert_int_equal(drain(r, got, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_EOF);
	assert_int_equal(pmclog_reader__error(r), 0);
	pmclog_reader__free(r);
	unlink(path);
	free(path);
}

static void test_open_missing_file(void **state)
{
	(void)state;
	errno = 0;
	assert_null(pmclog_reader__open_file("/nonexistent/pmclog.data", NULL));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(pmclog_reader__open_fd(-1, NULL));
	assert_int_equal(errno, EBADF);
}

/* ------------------------------------------------------------------ */
/* Truncation                                                         */

static void test_truncated_file(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	size_t off;
	char *path;
	(void)state;

	lb_initialize(&b);
	off = lb_map_in(&b, 42, 0x1000, 0x2000, 0, 0, "/lib/libc.so.6");
	path = write_temp(b.data, b.len - 20);
	r = pmclog_reader__open_file(path, NULL);
	assert_non_null(r);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	errno = 0;
	assert_int_equal(pmclog_reader__next(r, &rec), -EBADMSG);
	assert_int_equal(errno, EBADMSG);
	assert_int_equal(pmclog_reader__offset(r), off);
	assert_string_equal(pmclog_reader__errmsg(r),
			    "truncated record at offset 56: header says 64 bytes, only 44 present");
	assert_int_equal(pmclog_reader__next(r, &rec), -EBADMSG);
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_NONE);
	pmclog_reader__free(r);
	unlink(path);
	free(path);
}

static void test_truncated_header(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	b.len -= 27;
	assert_error(&b, EBADMSG, 56,
		     "truncated record at offset 56: only 5 bytes of a 16-byte header present");
}

static void test_truncated_in_memory(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	b.len -= 8;
	assert_error(&b, EBADMSG, 56,
		     "truncated record at offset 56: header says 32 bytes, only 24 present");
}

static void test_empty_log(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	assert_error(&b, EBADMSG, 0,
		     "log is empty: expected an INITIALIZE record at offset 0");
}

/* ------------------------------------------------------------------ */
/* Corruption                                                         */

static void test_bad_magic(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	lb_closelog(&b, 1, 0, 0);
	lb_header(&b, off)->magic = 0x12;
	assert_error(&b, EBADMSG, off,
		     "bad record magic 0x12 at offset 56: expected 0xee (not a pmclog log, or a corrupt one)");
}

static void test_type_zero(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	off = lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	lb_header(&b, off)->type = 0;
	assert_error(&b, EBADMSG, off,
		     "record type 0 at offset 88: expected a type from 1 up (corrupt log)");
}

static void test_length_not_multiple_of_8(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	lb_header(&b, off)->length = 33;
	assert_error(&b, EBADMSG, off,
		     "bad record length 33 at offset 56: expected a multiple of 8, at least 16");
}

static void test_length_below_fixed_size(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	lb_header(&b, off)->length = 24;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLE record at offset 56 is 24 bytes: expected at least 32");
}

/* A THROTTLE cut to the header's size is refused, for both types. */
static void test_throttle_too_short(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_throttle(&b, PMCLOG_TYPE_UNTHROTTLE, 0, 1, PMCLOG_THROTTLE_RATE, 1, 5);
	lb_header(&b, off)->length = 24;
	assert_error(&b, EBADMSG, off,
		     "UNTHROTTLE record at offset 56 is 24 bytes: expected at least 32");
}

/* A BUILDID says how many of its bytes are the build-id: 1 to 20. */
static void test_buildid_size(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_buildid(&b, 42, 0x400000, 0, 0);
	assert_error(&b, EBADMSG, off,
		     "BUILDID record at offset 56 has size 0: expected 1 to 20");
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	off = lb_buildid(&b, 42, 0x400000, PMCLOG_BUILD_ID_MAX + 1, 0);
	assert_error(&b, EBADMSG, off,
		     "BUILDID record at offset 56 has size 21: expected 1 to 20");
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	off = lb_buildid(&b, 42, 0x400000, PMCLOG_BUILD_ID_MAX, 0);
	lb_header(&b, off)->length = 48;
	assert_error(&b, EBADMSG, off,
		     "BUILDID record at offset 56 is 48 bytes: expected at least 56");
}

/*
 * A PCSAMPLES is returned as its samples, each a PCSAMPLE at the
 * PCSAMPLES' offset, whatever the deltas: negative (an NMI's sample
 * stamped before the one it interrupted), zero, from a user PC to a
 * kernel one and back (flags stay the run's: the ABI packs one mode),
 * and wrapping around 2^64.  Fed whole and a byte at a time.
 */
static void test_pcsamples_unpacked(void **state)
{
	static const __u64 ts[] = {
		1000000100, 1000000200, 1000000150, 1000000150, 2000000000,
		0xffffffffffffff00ULL, 5,
	};
	static const __u64 pc[] = {
		0x401000, 0x401004, 0xffffffff81000010ULL, 0x401000,
		0x7f0000001234ULL, 0, 0xffffffffffffffffULL,
	};
	const unsigned int n = sizeof(ts) / sizeof(ts[0]);
	struct logbuf b = { 0 };
	size_t packed, single, close;
	(void)state;

	lb_initialize(&b);
	packed = lb_pcsamples(&b, 3, 42, 43, 1, ts, pc, n);
	single = lb_pcsample(&b, 3, 42, 43, 0x401008, 1);
	close = lb_closelog(&b, n + 1, 0, 0);
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		struct pmclog_reader *r = pmclog_reader__new(NULL);
		struct pmclog_record rec;
		unsigned int got = 0;
		size_t fed = 0;
		int ret;

		assert_non_null(r);
		if (!bytewise)
			assert_int_equal(pmclog_reader__feed(r, b.data, b.len), 0);
		for (;;) {
			ret = pmclog_reader__next(r, &rec);
			if (ret == -EAGAIN && fed < b.len) {
				assert_int_equal(pmclog_reader__feed(r, b.data + fed++, 1), 0);
				continue;
			}
			assert_int_equal(ret, 1);
			if (rec.type == PMCLOG_TYPE_INITIALIZE)
				continue;
			if (got < n) {
				const struct pmclog_pcsample *s = rec.rec.pcsample;

				assert_int_equal(rec.type, PMCLOG_TYPE_PCSAMPLE);
				assert_int_equal(rec.length, sizeof(*s));
				assert_int_equal(rec.offset, packed);
				assert_int_equal(pmclog_reader__offset(r), packed);
				assert_int_equal(rec.cpu, 3);
				assert_int_equal(rec.pmcid, 1);
				assert_int_equal(rec.flags, PMCLOG_HF_USER);
				assert_int_equal(rec.tstamp, ts[got]);
				assert_int_equal(s->header.magic, PMCLOG_HEADER_MAGIC);
				assert_int_equal(s->header.type, PMCLOG_TYPE_PCSAMPLE);
				assert_int_equal(s->header.length, sizeof(*s));
				assert_int_equal(s->header.tstamp, ts[got]);
				assert_int_equal(s->pid, 42);
				assert_int_equal(s->tid, 43);
				assert_int_equal(s->pc, pc[got]);
			} else if (got == n) {
				assert_int_equal(rec.type, PMCLOG_TYPE_PCSAMPLE);
				assert_int_equal(rec.offset, single);
				assert_int_equal(rec.rec.pcsample->pc, 0x401008);
			} else {
				assert_int_equal(rec.type, PMCLOG_TYPE_CLOSELOG);
				assert_int_equal(rec.offset, close);
				break;
			}
			got++;
		}
		assert_int_equal(pmclog_reader__next(r, &rec), 0);
		pmclog_reader__free(r);
	}
}

/*
 * A log of a PCSAMPLES of two samples whose deltas are the size bytes at
 * d, as they are, and CLOSELOG: the PCSAMPLES' offset.
 */
static size_t pcsamples_raw(struct logbuf *b, const unsigned char *d, __u32 size)
{
	struct pmclog_pcsamples r = {
		.header.pmcid = 1, .header.flags = PMCLOG_HF_USER,
		.pid = 42, .tid = 42, .pc = 0x401000, .count = 2, .size = size,
	};
	size_t off;

	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	off = lb_put(b, PMCLOG_TYPE_PCSAMPLES, PMCLOG_RECORD_LEN(sizeof(r) + size),
		     &r, sizeof(r));
	memcpy(b->data + off + sizeof(r), d, size);
	lb_closelog(b, 2, 0, 0);
	return off;
}

/* A PCSAMPLES that cannot be unpacked is refused before any sample. */
static void test_pcsamples_malformed(void **state)
{
	static const __u64 ts[] = { 1000, 1100, 1200 };
	static const __u64 pc[] = { 0x401000, 0x401010, 0x401020 };
	struct pmclog_pcsamples *ps;
	struct logbuf b;
	size_t off;
	(void)state;

#define PCSAMPLES_LOG(n)						\
	do {								\
		memset(&b, 0, sizeof(b));				\
		lb_initialize(&b);					\
		off = lb_pcsamples(&b, 0, 42, 42, 1, ts, pc, (n));	\
		lb_closelog(&b, (n), 0, 0);				\
		ps = (struct pmclog_pcsamples *)(b.data + off);		\
	} while (0)

	PCSAMPLES_LOG(2);
	ps->count = 1;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56 has count 1: expected 2 or more");

	/* 6 bytes of deltas in 48: size must say so. */
	PCSAMPLES_LOG(3);
	ps->size = 9;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56 is 48 bytes with 9 bytes of deltas: expected 56");
	PCSAMPLES_LOG(3);
	ps->size = 0xffffffff;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56 is 48 bytes with 4294967295 bytes of deltas: expected 4294967336");

	/* Three samples need four deltas; the size holds one and a half. */
	PCSAMPLES_LOG(3);
	ps->size = 2;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56: the deltas of sample 2 of 3 are cut or malformed at byte 42");

	/* A delta longer than 64 bits: 10 bytes, the last above 1. */
	{
		static const unsigned char d[] = {
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
		};

		off = pcsamples_raw(&b, d, sizeof(d));
		assert_error(&b, EBADMSG, off,
			     "PCSAMPLES record at offset 56: the deltas of sample 2 of 2 are cut or malformed at byte 40");
	}
	/* ... and 11 bytes. */
	{
		static const unsigned char d[] = {
			0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			0x01, 0x01,
		};

		off = pcsamples_raw(&b, d, sizeof(d));
		assert_error(&b, EBADMSG, off,
			     "PCSAMPLES record at offset 56: the deltas of sample 2 of 2 are cut or malformed at byte 40");
	}

	/* Deltas left over after the last sample. */
	PCSAMPLES_LOG(2);
	ps->size = 4;
	ps->deltas[3] = 0x05;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56: 1 bytes of deltas after its 2 samples");

	/* Padding that is not NULs. */
	PCSAMPLES_LOG(2);
	b.data[off + 47] = 0x01;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56: byte 47 of its padding is 0x01, expected NUL");

	/* Shorter than its fixed part. */
	PCSAMPLES_LOG(2);
	lb_header(&b, off)->length = 32;
	assert_error(&b, EBADMSG, off,
		     "PCSAMPLES record at offset 56 is 32 bytes: expected at least 40");
#undef PCSAMPLES_LOG
}

/* Length 0 must be refused, not read as an endless run of empty records. */
static void test_length_zero(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	size_t off;
	char *path;
	(void)state;

	lb_initialize(&b);
	off = lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	lb_header(&b, off)->length = 0;
	assert_error(&b, EBADMSG, off,
		     "bad record length 0 at offset 56: expected a multiple of 8, at least 16");

	path = write_temp(b.data, b.len);
	r = pmclog_reader__open_file(path, NULL);
	assert_non_null(r);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(pmclog_reader__next(r, &rec), -EBADMSG);
	assert_int_equal(pmclog_reader__offset(r), off);
	pmclog_reader__free(r);
	unlink(path);
	free(path);
}

static void test_initialize_too_short(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	lb_initialize(&b);
	lb_header(&b, 0)->length = 48;
	assert_error(&b, EBADMSG, 0,
		     "INITIALIZE record at offset 0 is 48 bytes: expected at least 56");
}

static void test_map_in_path_without_nul(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_map_in(&b, 42, 0x1000, 0x2000, 0, 0, "/bin/sh");
	/* "/bin/sh" + NUL is exactly 8 bytes: overwrite the NUL. */
	b.data[off + 48 + 7] = 'X';
	assert_error(&b, EBADMSG, off,
		     "MAP_IN record at offset 56: expected a NUL-terminated path in bytes 48..56");
}

static void test_map_in_without_path(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_map_in r = { .pid = 1 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_put(&b, PMCLOG_TYPE_MAP_IN, sizeof(r), &r, sizeof(r));
	assert_error(&b, EBADMSG, off,
		     "MAP_IN record at offset 56: expected a NUL-terminated path in bytes 48..48");
}

static void test_procexec_path_without_nul(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_procexec(&b, 42, "/usr/bin/yes");
	memset(b.data + off + 24, 'a', lb_header(&b, off)->length - 24);
	assert_error(&b, EBADMSG, off,
		     "PROCEXEC record at offset 56: expected a NUL-terminated path in bytes 24..40");
}

static void test_ksymbol_name_without_nul(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_ksymbol(&b, 0xffffffff81000000ULL, 16, 1, "_stext");
	b.data[off + 40 + 6] = '_';
	b.data[off + 40 + 7] = '_';
	assert_error(&b, EBADMSG, off,
		     "KSYMBOL record at offset 56: expected a NUL-terminated name in bytes 40..48");
}

static void test_pmcallocate_name_without_nul(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_pmcallocate *pa;
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_pmcallocate(&b, 1, PMCLOG_EV_CYCLES, 0, 100000, "cycles");
	pa = (struct pmclog_pmcallocate *)(b.data + off);
	memset(pa->name, 'x', sizeof(pa->name));
	assert_error(&b, EBADMSG, off,
		     "PMCALLOCATE record at offset 56: expected a NUL-terminated event name");
}

static void test_first_record_not_initialize(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	lb_pcsample(&b, 0, 1, 1, 0x1000, 1);
	lb_initialize(&b);
	assert_error(&b, EBADMSG, 0,
		     "record at offset 0 has type 4: expected INITIALIZE first (not the start of a pmclog log)");
}

/*
 * One INITIALIZE, at offset 0: a second one (found by fuzz_reader) would
 * change ncpus under the records before it, and the report's time origin.
 */
static void test_second_initialize(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 3, 1, 1, 0x1000, 1);
	off = lb_initialize_abi(&b, PMCLOG_ABI_CURRENT, 64);
	lb_pcsample(&b, 40, 1, 1, 0x1000, 1);
	lb_closelog(&b, 2, 0, 0);
	assert_error(&b, EBADMSG, off,
		     "INITIALIZE record at offset 88: expected only one, at offset 0 (two logs run together, or a corrupt one)");
}

static void test_cpu_beyond_ncpus(void **state)
{
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 3, 1, 1, 0x1000, 1);
	off = lb_pcsample(&b, 4, 1, 1, 0x1000, 1);
	assert_error(&b, EBADMSG, off,
		     "record at offset 88 has cpu 4: expected below INITIALIZE's ncpus=4");
}

/* ------------------------------------------------------------------ */
/* Versions                                                           */

static void test_abi_major_2_refused(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	(void)state;

	lb_initialize_abi(&b, PMCLOG_ABI_VERSION(2, 1, 3), 4);
	lb_closelog(&b, 0, 0, 0);
	assert_error(&b, EPROTONOSUPPORT, 0,
		     "log has ABI version 2.1.3; this pmclog reads major 1 only");

	assert_int_equal(read_all(&b, &r), -EPROTONOSUPPORT);
	assert_int_equal(pmclog_reader__abi_version(r), PMCLOG_ABI_VERSION(2, 1, 3));
	assert_null(pmclog_reader__initialize(r));
	pmclog_reader__free(r);
}

/* A log from a machine of the other byte order is named as such. */
static void test_other_byte_order(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_header *h = (void *)b.data;
	(void)state;

	lb_initialize_abi(&b, PMCLOG_ABI_CURRENT, 4);
	lb_closelog(&b, 0, 0, 0);
	h->length = __builtin_bswap16(h->length);
	assert_error(&b, EBADMSG, 0,
		     "log at offset 0 is in the other byte order: it was written on a machine of the other endianness, which this pmclog cannot read");
}

/* A newer minor: new types are skipped, longer records accepted. */
static void test_newer_minor_accepted(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_pcsample ps = { .pid = 7, .tid = 7, .pc = 0x1234 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	size_t future, longer;
	(void)state;

	lb_initialize_abi(&b, PMCLOG_ABI_VERSION(PMCLOG_ABI_MAJOR, 9, 1), 4);
	future = lb_future(&b, 200);
	longer = lb_put(&b, PMCLOG_TYPE_PCSAMPLE, sizeof(ps) + 8, &ps, sizeof(ps));
	lb_future(&b, PMCLOG_TYPE_MAX_KNOWN + 1);
	lb_closelog(&b, 1, 0, 0);

	r = reader_with(&b, b.len);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, 200);
	assert_int_equal(rec.length, 32);
	assert_int_equal(rec.offset, future);
	assert_null(rec.path);
	assert_null(rec.name);
	assert_int_equal(rec.rec.header->type, 200);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_PCSAMPLE);
	assert_int_equal(rec.offset, longer);
	assert_int_equal(rec.length, 40);
	assert_int_equal(rec.rec.pcsample->pc, 0x1234);

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_MAX_KNOWN + 1);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_CLOSELOG);
	assert_int_equal(pmclog_reader__next(r, &rec), 0);
	pmclog_reader__free(r);
}

/* ------------------------------------------------------------------ */
/* API                                                                */

struct log_capture {
	int calls;
	char msg[256];
};

static void capture_log(void *ctx, const char *msg)
{
	struct log_capture *c = ctx;

	c->calls++;
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
}

static void test_log_callback(void **state)
{
	struct log_capture cap = { 0 };
	struct pmclog_reader_opts opts = PMCLOG_READER_OPTS_INIT;
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	(void)state;

	opts.log_fn = capture_log;
	opts.log_ctx = &cap;
	lb_initialize(&b);
	lb_header(&b, 0)->magic = 0;
	r = pmclog_reader__new(&opts);
	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b.data, b.len), 0);
	assert_int_equal(pmclog_reader__next(r, &rec), -EBADMSG);
	assert_int_equal(pmclog_reader__next(r, &rec), -EBADMSG);
	assert_int_equal(cap.calls, 1);
	assert_string_equal(cap.msg, pmclog_reader__errmsg(r));
	pmclog_reader__free(r);
}

static void test_opts_size(void **state)
{
	struct {
		struct pmclog_reader_opts opts;
		long newer_field;
	} bigger = { .opts.sz = sizeof(bigger) };
	struct pmclog_reader_opts older = { .sz = sizeof(size_t) };
	struct pmclog_reader *r;
	(void)state;

	/* Unknown trailing fields are fine while zero... */
	r = pmclog_reader__new(&bigger.opts);
	assert_non_null(r);
	pmclog_reader__free(r);
	/* ...and refused once set. */
	bigger.newer_field = 1;
	errno = 0;
	assert_null(pmclog_reader__new(&bigger.opts));
	assert_int_equal(errno, EINVAL);
	/* An older, shorter structure is fine. */
	r = pmclog_reader__new(&older);
	assert_non_null(r);
	pmclog_reader__free(r);
	older.sz = 0;
	assert_null(pmclog_reader__new(&older));
	assert_null(pmclog_reader__open_file("/dev/null", &older));
}

static void test_feed_misuse(void **state)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	(void)state;

	assert_int_equal(pmclog_reader__feed(r, NULL, 8), -EINVAL);
	assert_int_equal(pmclog_reader__feed(r, NULL, 0), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	errno = 0;
	assert_int_equal(pmclog_reader__feed(r, "x", 1), -EINVAL);
	assert_int_equal(errno, EINVAL);
	pmclog_reader__free(r);
	pmclog_reader__free(NULL);
}

static void test_min_sizes_and_names(void **state)
{
	(void)state;
	assert_int_equal(pmclog_record_min_size(0), 0);
	assert_int_equal(pmclog_record_min_size(PMCLOG_TYPE_PCSAMPLE), 32);
	assert_int_equal(pmclog_record_min_size(PMCLOG_TYPE_MAP_IN), 48);
	assert_int_equal(pmclog_record_min_size(200), 0);
	assert_null(pmclog_type_name(0));
	assert_string_equal(pmclog_type_name(PMCLOG_TYPE_DROPNOTIFY), "DROPNOTIFY");
	assert_int_equal(pmclog_record_min_size(PMCLOG_TYPE_THROTTLE), 32);
	assert_int_equal(pmclog_record_min_size(PMCLOG_TYPE_UNTHROTTLE), 32);
	assert_string_equal(pmclog_type_name(PMCLOG_TYPE_THROTTLE), "THROTTLE");
	assert_string_equal(pmclog_type_name(PMCLOG_TYPE_UNTHROTTLE), "UNTHROTTLE");
	assert_null(pmclog_type_name(PMCLOG_TYPE_MAX_KNOWN + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_log_fields),
		cmocka_unit_test(test_split_at_every_byte),
		cmocka_unit_test(test_one_byte_at_a_time),
		cmocka_unit_test(test_eagain_sets_errno_and_is_not_sticky),
		cmocka_unit_test(test_file_reader),
		cmocka_unit_test(test_fd_reader_on_pipe),
		cmocka_unit_test(test_eof_without_closelog),
		cmocka_unit_test(test_compressed_log),
		cmocka_unit_test(test_compressed_cut_and_corrupt),
		cmocka_unit_test(test_open_missing_file),
		cmocka_unit_test(test_truncated_file),
		cmocka_unit_test(test_truncated_header),
		cmocka_unit_test(test_truncated_in_memory),
		cmocka_unit_test(test_empty_log),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_type_zero),
		cmocka_unit_test(test_length_not_multiple_of_8),
		cmocka_unit_test(test_length_below_fixed_size),
		cmocka_unit_test(test_length_zero),
		cmocka_unit_test(test_throttle_too_short),
		cmocka_unit_test(test_buildid_size),
		cmocka_unit_test(test_pcsamples_unpacked),
		cmocka_unit_test(test_pcsamples_malformed),
		cmocka_unit_test(test_initialize_too_short),
		cmocka_unit_test(test_map_in_path_without_nul),
		cmocka_unit_test(test_map_in_without_path),
		cmocka_unit_test(test_procexec_path_without_nul),
		cmocka_unit_test(test_pmcallocate_name_without_nul),
		cmocka_unit_test(test_ksymbol_name_without_nul),
		cmocka_unit_test(test_first_record_not_initialize),
		cmocka_unit_test(test_second_initialize),
		cmocka_unit_test(test_cpu_beyond_ncpus),
		cmocka_unit_test(test_abi_major_2_refused),
		cmocka_unit_test(test_other_byte_order),
		cmocka_unit_test(test_newer_minor_accepted),
		cmocka_unit_test(test_log_callback),
		cmocka_unit_test(test_opts_size),
		cmocka_unit_test(test_feed_misuse),
		cmocka_unit_test(test_min_sizes_and_names),
	};

	return cmocka_run_group_tests_name("reader", tests, NULL, NULL);
}
