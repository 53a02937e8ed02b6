// SPDX-License-Identifier: GPL-2.0
/*
 * The log writer behind `pmclog record` (pmclog_writer.h), on logs built
 * with log_builder.h: the file holds the bytes as the device gave them,
 * however they were split, with the kernel's symbols just before
 * CLOSELOG (or at the end of a log without it); the counts are the
 * records'; what cannot be decoded is saved all the same, and said.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "log_builder.h"
#include "print_capture.h"
#include "rec_list.h"
#include "pmclog_common.h"
#include "pmclog_reader.h"
#include "pmclog_writer.h"

/* realloc() fails once this many more calls have succeeded; -1: never. */
static int reallocs_until_failure = -1;
/* The same for calloc(): the writer's packing runs. */
static int callocs_until_failure = -1;

void *__real_realloc(void *p, size_t size);
void *__real_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	if (callocs_until_failure >= 0 && !callocs_until_failure--) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (reallocs_until_failure >= 0 && !reallocs_until_failure--) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, size);
}

#define KTEXT	0xffffffff91000000ULL
#define MTEXT	0xffffffffc0001000ULL

static const char kallsyms[] =
	"ffffffff91000000 T _stext\n"
	"ffffffff91000040 t helper\n"
	"ffffffff91000100 W weak_fn\n"
	"ffffffff91000180 D some_data\n"
	"ffffffffc0001000 t mod_fn\t[testmod]\n"
	"ffffffffc0001080 t mod_fn2\t[testmod]\n";

static int setup(void **state)
{
	return print_capture_start(state);
}

static struct pmclog_kallsyms *read_kallsyms(void)
{
	struct pmclog_kallsyms *ks = NULL;
	FILE *f = fmemopen((void *)kallsyms, sizeof(kallsyms) - 1, "r");

	assert_non_null(f);
	assert_int_equal(pmclog_kallsyms__read(f, &ks), 0);
	fclose(f);
	return ks;
}

static struct pmclog_writer *new_writer(int fd, bool ksyms)
{
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	struct pmclog_writer *w;

	opts.name = "test.pmclog";
	opts.ksyms = ksyms ? read_kallsyms() : NULL;
	w = pmclog_writer__new(fd, &opts);
	assert_non_null(w);
	return w;
}

static int new_file(void)
{
	int fd = memfd_create("pmclog-writer", MFD_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* What fd holds, in out (at most sizeof(out->data)). */
static void file_contents(int fd, struct logbuf *out)
{
	ssize_t n = pread(fd, out->data, sizeof(out->data), 0);

	assert_true(n >= 0);
	out->len = (size_t)n;
}

/* Hand b to w in pieces of step bytes (the last one shorter). */
static void write_in_steps(struct pmclog_writer *w, const struct logbuf *b,
			   size_t step)
{
	for (size_t off = 0; off < b->len; off += step) {
		size_t n = b->len - off < step ? b->len - off : step;

		assert_int_equal(pmclog_writer__write(w, b->data + off, n), 0);
	}
}

/* A log with kernel samples in helper, mod_fn2, and a user one. */
static void sampled_log(struct logbuf *b, size_t *closelog)
{
	size_t off;

	lb_initialize(b);
	lb_header(b, 0)->cpu = 2;
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000, "cpu-clock");
	lb_map_in(b, PMCLOG_PID_KERNEL, KTEXT, KTEXT + 0x200, 0xffffffff81000000ULL,
		  PMCLOG_MAP_F_INITIAL, "[kernel]");
	lb_pcsample(b, 0, 7, 7, KTEXT + 0x50, 0);	/* helper */
	lb_pcsample(b, 1, 7, 7, KTEXT + 0x60, 0);	/* helper again */
	lb_pcsample(b, 1, 7, 7, KTEXT + 0x110, 1);	/* user mode: not a kernel pc */
	lb_pcsample(b, 3, 7, 7, MTEXT + 0xf0, 0);	/* mod_fn2 */
	lb_dropnotify(b, 1, 2, 1);
	off = lb_closelog(b, 6, 2, 1);
	if (closelog)
		*closelog = off;
}

/* Without symbols: the file is the input, byte for byte, however split. */
static void test_copy_as_given(void **state)
{
	static struct logbuf b, out;
	static const size_t steps[] = { 1, 7, 8, 16, 33, 100, 16384 };
	(void)state;

	memset(&b, 0, sizeof(b));
	lb_full_log(&b);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int fd = new_file();
		struct pmclog_writer *w = new_writer(fd, false);
		const struct pmclog_stats *st;

		write_in_steps(w, &b, steps[i]);
		assert_int_equal(pmclog_writer__finish(w), 0);
		file_contents(fd, &out);
		assert_int_equal(out.len, b.len);
		assert_memory_equal(out.data, b.data, b.len);
		assert_int_equal(pmclog_writer__written(w), b.len);
		st = pmclog_writer__stats(w);
		assert_int_equal(st->records, LB_FULL_LOG_RECORDS);
		assert_int_equal(st->bytes, b.len);
		assert_int_equal(st->samples, 2);
		assert_true(st->closelog);
		assert_int_equal(pmclog_writer__error(w), 0);
		pmclog_writer__free(w);
		close(fd);
	}
	assert_string_equal(said, "");
}

/* The records of the file out, as the reader returns them, in recs. */
static size_t read_back(const struct logbuf *out, struct logbuf *names,
			struct pmclog_record *recs, size_t max)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;
	size_t n = 0;
	int ret;

	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, out->data, out->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	names->len = 0;
	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		assert_true(n < max);
		recs[n] = rec;
		/* The names outlive the reader: copied. */
		if (rec.name && rec.type == PMCLOG_TYPE_KSYMBOL) {
			recs[n].name = (const char *)names->data + names->len;
			memcpy(names->data + names->len, rec.name, strlen(rec.name) + 1);
			names->len += strlen(rec.name) + 1;
		}
		recs[n].rec.header = NULL;
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);
	pmclog_reader__free(r);
	return n;
}

/*
 * The KSYMBOLs of the sampled kernel functions, and only those, go just
 * before CLOSELOG, stamped as INITIALIZE; the rest is the input.  Also
 * when CLOSELOG arrives in two pieces.
 */
static void test_ksymbols_before_closelog(void **state)
{
	static struct logbuf b, out, names;
	static const size_t steps[] = { 16384, 8, 5 };
	struct pmclog_record recs[32];
	size_t closelog;
	(void)state;

	memset(&b, 0, sizeof(b));
	sampled_log(&b, &closelog);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int fd = new_file();
		struct pmclog_writer *w = new_writer(fd, true);
		const struct pmclog_stats *st;
		size_t n, ksym_len;

		write_in_steps(w, &b, steps[i]);
		assert_int_equal(pmclog_writer__finish(w), 0);
		file_contents(fd, &out);
		ksym_len = out.len - b.len;
		/* Two KSYMBOLs of 40 + name bytes, rounded up to 8. */
		assert_int_equal(ksym_len, PMCLOG_RECORD_LEN(40 + sizeof("helper")) +
					   PMCLOG_RECORD_LEN(40 + sizeof("mod_fn2")));
		assert_memory_equal(out.data, b.data, closelog);
		assert_memory_equal(out.data + closelog + ksym_len, b.data + closelog,
				    b.len - closelog);
		n = read_back(&out, &names, recs, 32);
		assert_int_equal(n, 11);
		/* Each object's symbols together: the module's, the kernel's. */
		assert_int_equal(recs[8].type, PMCLOG_TYPE_KSYMBOL);
		assert_string_equal(recs[8].name, "mod_fn2");
		assert_int_equal(recs[9].type, PMCLOG_TYPE_KSYMBOL);
		assert_string_equal(recs[9].name, "helper");
		for (size_t k = 8; k <= 9; k++) {
			assert_int_equal(recs[k].flags, PMCLOG_HF_SYNTH);
			assert_int_equal(recs[k].tstamp, LB_TS_BASE);	/* INITIALIZE's */
			assert_int_equal(recs[k].cpu, 2);
		}
		assert_int_equal(recs[10].type, PMCLOG_TYPE_CLOSELOG);
		/* The counts include the records the writer added. */
		st = pmclog_writer__stats(w);
		assert_int_equal(st->records, 11);
		assert_int_equal(st->bytes, out.len);
		assert_int_equal(st->samples, 4);
		assert_int_equal(pmclog_writer__written(w), out.len);
		pmclog_writer__free(w);
		close(fd);
	}
	assert_string_equal(said, "");
}

/*
 * ksyms_later: the symbols come while the log is being written (the
 * recorder reads /proc/kallsyms beside it); the kernel samples given
 * before are marked then, so the file is the one a writer that had them
 * from the start saves.  Given twice, after CLOSELOG or without
 * ksyms_later, they are refused (and freed).
 */
static void test_ksymbols_later(void **state)
{
	static struct logbuf b, want, out;
	size_t closelog;
	(void)state;

	memset(&b, 0, sizeof(b));
	sampled_log(&b, &closelog);
	{
		int fd = new_file();
		struct pmclog_writer *w = new_writer(fd, true);

		write_in_steps(w, &b, 16384);
		assert_int_equal(pmclog_writer__finish(w), 0);
		file_contents(fd, &want);
		pmclog_writer__free(w);
		close(fd);
	}
	for (size_t at = 0; at < closelog; at += 8) {
		struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
		struct pmclog_writer *w;
		int fd = new_file();

		opts.name = "test.pmclog";
		opts.ksyms_later = true;
		w = pmclog_writer__new(fd, &opts);
		assert_non_null(w);
		/* The samples before at, then the symbols, then the rest. */
		assert_int_equal(pmclog_writer__write(w, b.data, at), 0);
		assert_int_equal(pmclog_writer__add_ksyms(w, read_kallsyms()), 0);
		assert_int_equal(pmclog_writer__add_ksyms(w, read_kallsyms()), -EINVAL);
		assert_int_equal(pmclog_writer__write(w, b.data + at, b.len - at), 0);
		assert_int_equal(pmclog_writer__finish(w), 0);
		file_contents(fd, &out);
		assert_int_equal(out.len, want.len);
		assert_memory_equal(out.data, want.data, want.len);
		assert_int_equal(pmclog_writer__add_ksyms(w, read_kallsyms()), -EINVAL);
		pmclog_writer__free(w);
		close(fd);
	}
	{
		int fd = new_file();
		struct pmclog_writer *w = new_writer(fd, false);

		assert_int_equal(pmclog_writer__add_ksyms(w, read_kallsyms()), -EINVAL);
		pmclog_writer__free(w);
		close(fd);
	}
	assert_string_equal(said, "");
}

/* A log that stops without CLOSELOG gets its symbols at the end. */
static void test_ksymbols_without_closelog(void **state)
{
	static struct logbuf b, out;
	size_t closelog;
	int fd = new_file();
	struct pmclog_writer *w = new_writer(fd, true);
	(void)state;

	memset(&b, 0, sizeof(b));
	sampled_log(&b, &closelog);
	b.len = closelog;
	assert_int_equal(pmclog_writer__write(w, b.data, b.len), 0);
	assert_false(pmclog_writer__stats(w)->closelog);
	assert_int_equal(pmclog_writer__finish(w), 0);
	/* Once: a second finish adds nothing, a write after it is refused. */
	assert_int_equal(pmclog_writer__finish(w), 0);
	assert_int_equal(pmclog_writer__write(w, b.data, 16), -EINVAL);
	file_contents(fd, &out);
	assert_memory_equal(out.data, b.data, b.len);
	/* What follows the input: the two KSYMBOLs, nothing else. */
	assert_int_equal(out.len - b.len, PMCLOG_RECORD_LEN(40 + sizeof("helper")) +
					  PMCLOG_RECORD_LEN(40 + sizeof("mod_fn2")));
	assert_int_equal(lb_header(&out, b.len)->type, PMCLOG_TYPE_KSYMBOL);
	assert_string_equal((const char *)out.data + b.len + 40, "mod_fn2");
	assert_int_equal(pmclog_writer__stats(w)->records, 10);
	pmclog_writer__free(w);
	close(fd);
	assert_string_equal(said, "");
}

/*
 * A malformed record: everything is saved as given, the counts stop
 * before it, and the message names its offset.  No INITIALIZE, no
 * symbols, and that is said too.
 */
static void test_undecodable(void **state)
{
	static struct logbuf b, out;
	size_t bad;
	int fd = new_file();
	struct pmclog_writer *w = new_writer(fd, true);
	(void)state;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, KTEXT + 0x50, 0);
	bad = lb_pcsample(&b, 0, 1, 1, 0x10, 1);
	lb_pcsample(&b, 0, 1, 1, 0x10, 1);
	lb_closelog(&b, 3, 0, 0);
	lb_header(&b, bad)->magic = 0x55;
	write_in_steps(w, &b, 24);
	assert_int_equal(pmclog_writer__finish(w), 0);
	file_contents(fd, &out);
	/* CLOSELOG was not seen: the symbols come at the very end. */
	assert_true(out.len > b.len);
	assert_memory_equal(out.data, b.data, b.len);
	/* INITIALIZE, the first PCSAMPLE, and helper's KSYMBOL. */
	assert_int_equal(pmclog_writer__stats(w)->records, 3);
	assert_false(pmclog_writer__stats(w)->closelog);
	assert_non_null(strstr(said, "test.pmclog: bad record magic 0x55 at offset 88"));
	assert_non_null(strstr(said, "saved as read from there on, but not counted"));
	pmclog_writer__free(w);
	close(fd);

	said[0] = '\0';
	fd = new_file();
	w = new_writer(fd, true);
	assert_int_equal(pmclog_writer__write(w, b.data + bad, b.len - bad), 0);
	assert_int_equal(pmclog_writer__finish(w), 0);
	file_contents(fd, &out);
	assert_int_equal(out.len, b.len - bad);
	assert_non_null(strstr(said, "cannot add the kernel's symbols and build-ids to test.pmclog: the log has no INITIALIZE"));
	pmclog_writer__free(w);
	close(fd);
}

/* Records after CLOSELOG, which ends a log: saved, not counted, said. */
static void test_after_closelog(void **state)
{
	static struct logbuf b, out;
	int fd = new_file();
	struct pmclog_writer *w = new_writer(fd, false);
	(void)state;

	memset(&b, 0, sizeof(b));
	lb_full_log(&b);
	lb_dropnotify(&b, 0, 2, 3);
	assert_int_equal(pmclog_writer__write(w, b.data, b.len), 0);
	assert_int_equal(pmclog_writer__finish(w), 0);
	file_contents(fd, &out);
	assert_int_equal(out.len, b.len);
	assert_int_equal(pmclog_writer__stats(w)->records, LB_FULL_LOG_RECORDS);
	assert_int_equal(pmclog_writer__stats(w)->samples_dropped, 5);
	assert_non_null(strstr(said, "test.pmclog: bytes after CLOSELOG (offset "));
	pmclog_writer__free(w);
	close(fd);
}

/* A log cut inside a record: held back until the end, then saved as is. */
static void test_cut_record(void **state)
{
	static struct logbuf b, out;
	int fd = new_file();
	struct pmclog_writer *w = new_writer(fd, false);
	(void)state;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, 0x10, 1);
	assert_int_equal(pmclog_writer__write(w, b.data, b.len - 8), 0);
	/* Only whole records are saved before the end. */
	assert_int_equal(pmclog_writer__written(w), sizeof(struct pmclog_initialize));
	assert_int_equal(pmclog_writer__finish(w), 0);
	file_contents(fd, &out);
	assert_int_equal(out.len, b.len - 8);
	assert_int_equal(pmclog_writer__stats(w)->records, 1);
	assert_non_null(strstr(said, "the log ends inside a record at offset 56"));
	pmclog_writer__free(w);
	close(fd);
}

/* A failed write(2) is returned once, then sticky; counting goes on. */
static void test_write_error(void **state)
{
	static struct logbuf b;
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	struct pmclog_writer *w;
	size_t half;
	(void)state;

	assert_true(fd >= 0);
	w = new_writer(fd, true);
	memset(&b, 0, sizeof(b));
	sampled_log(&b, NULL);
	half = sizeof(struct pmclog_initialize) + sizeof(struct pmclog_pmcallocate);
	assert_int_equal(pmclog_writer__write(w, b.data, half), -ENOSPC);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(pmclog_writer__write(w, b.data + half, b.len - half), 0);
	assert_int_equal(pmclog_writer__error(w), -ENOSPC);
	assert_int_equal(pmclog_writer__stats(w)->records, 9 + 2);
	assert_int_equal(pmclog_writer__finish(w), -ENOSPC);
	assert_int_equal(pmclog_writer__written(w), 0);
	pmclog_writer__free(w);
	close(fd);
}

/* Write n bytes of p to dir/rel, making the folders on the way. */
static void put_file(const char *dir, const char *rel, const void *p, size_t n)
{
	char path[512], *slash;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* An ELF note: name "GNU" or "Xen", type, desc of n bytes first, first+1... */
static size_t make_note(unsigned char *p, const char *name, __u32 type,
			__u32 n, unsigned char first)
{
	__u32 hdr[3] = { 4, n, type };

	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + 12, name, 4);
	for (__u32 i = 0; i < n; i++)
		p[16 + i] = (unsigned char)(first + i);
	return 16 + ((n + 3) & ~3U);
}

/*
 * START's maps of the kernel and of its modules get the build-ids that
 * sysfs shows, as synthetic BUILDIDs before CLOSELOG; a module loaded
 * later (its own BUILDID is the kernel's to write), one sysfs does not
 * show, and a name that is not one are left out.
 */
static void test_buildids_from_sysfs(void **state)
{
	static struct logbuf b, out, names;
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	struct pmclog_record recs[32];
	unsigned char notes[128];
	char dir[] = "/tmp/pmclog-sysfs-XXXXXX";
	struct pmclog_writer *w;
	size_t n, closelog;
	int fd = new_file();
	(void)state;

	assert_non_null(mkdtemp(dir));
	/* The kernel's notes: a Xen note, then the build-id. */
	n = make_note(notes, "Xen", 6, 8, 0xa0);
	n += make_note(notes + n, "GNU", 3, 20, 0x10);
	put_file(dir, "kernel/notes", notes, n);
	n = make_note(notes, "GNU", 3, 20, 0x40);
	put_file(dir, "module/testmod/notes/.note.gnu.build-id", notes, n);
	put_file(dir, "module/late/notes/.note.gnu.build-id", notes, n);
	/* Not a build-id: type 1. */
	n = make_note(notes, "GNU", 1, 16, 0x70);
	put_file(dir, "module/other/notes/.note.gnu.build-id", notes, n);

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_header(&b, 0)->cpu = 2;
	lb_map_in(&b, PMCLOG_PID_KERNEL, KTEXT, KTEXT + 0x200, 0xffffffff81000000ULL,
		  PMCLOG_MAP_F_INITIAL, "[kernel]");
	lb_map_in(&b, PMCLOG_PID_KERNEL, MTEXT, MTEXT + 0x1000, 0,
		  PMCLOG_MAP_F_INITIAL | PMCLOG_MAP_F_KMODULE, "testmod");
	lb_map_in(&b, PMCLOG_PID_KERNEL, MTEXT + 0x10000, MTEXT + 0x11000, 0,
		  PMCLOG_MAP_F_INITIAL | PMCLOG_MAP_F_KMODULE, "gone");
	lb_map_in(&b, PMCLOG_PID_KERNEL, MTEXT + 0x20000, MTEXT + 0x21000, 0,
		  PMCLOG_MAP_F_INITIAL | PMCLOG_MAP_F_KMODULE, "other");
	lb_map_in(&b, PMCLOG_PID_KERNEL, MTEXT + 0x30000, MTEXT + 0x31000, 0,
		  PMCLOG_MAP_F_INITIAL | PMCLOG_MAP_F_KMODULE, "../kernel");
	lb_map_in(&b, PMCLOG_PID_KERNEL, MTEXT + 0x40000, MTEXT + 0x41000, 0,
		  PMCLOG_MAP_F_KMODULE, "late");
	closelog = lb_closelog(&b, 0, 0, 0);

	opts.name = "test.pmclog";
	opts.sysfs = dir;
	w = pmclog_writer__new(fd, &opts);
	assert_non_null(w);
	write_in_steps(w, &b, 24);
	assert_int_equal(pmclog_writer__finish(w), 0);
	file_contents(fd, &out);
	assert_int_equal(out.len, b.len + 2 * sizeof(struct pmclog_buildid));
	assert_memory_equal(out.data, b.data, closelog);
	n = read_back(&out, &names, recs, 32);
	assert_int_equal(n, 10);
	for (size_t k = 7; k <= 8; k++) {
		const struct pmclog_buildid *bid =
			(const void *)(out.data + closelog + (k - 7) * sizeof(*bid));

		assert_int_equal(recs[k].type, PMCLOG_TYPE_BUILDID);
		assert_int_equal(recs[k].flags, PMCLOG_HF_SYNTH);
		assert_int_equal(recs[k].tstamp, LB_TS_BASE);	/* INITIALIZE's */
		assert_int_equal(recs[k].cpu, 2);
		assert_int_equal(bid->pid, PMCLOG_PID_KERNEL);
		assert_int_equal(bid->size, 20);
		assert_int_equal(bid->start, k == 7 ? KTEXT : MTEXT);
		assert_int_equal(bid->build_id[0], k == 7 ? 0x10 : 0x40);
		assert_int_equal(bid->build_id[19], k == 7 ? 0x23 : 0x53);
	}
	assert_int_equal(recs[9].type, PMCLOG_TYPE_CLOSELOG);
	assert_int_equal(pmclog_writer__stats(w)->records, 10);
	pmclog_writer__free(w);
	close(fd);
	assert_string_equal(said, "");
	assert_int_equal(system("rm -rf /tmp/pmclog-sysfs-??????"), 0);
}

/*
 * compression_level: the file is one zstd stream (with a checksum) that
 * decompresses to what the writer saves uncompressed, the kernel's
 * symbols before CLOSELOG included, whatever the pieces, and holds all
 * that was given before the end (flushed at each write); written counts
 * the file, saved the log.  A level zstd does not have is refused.
 */
static void test_compressed(void **state)
{
	static struct logbuf b, plain, out, names;
	static const size_t steps[] = { 16384, 8 };
	struct pmclog_record recs[32];
	size_t closelog;
	(void)state;

	memset(&b, 0, sizeof(b));
	sampled_log(&b, &closelog);
	{
		int fd = new_file();
		struct pmclog_writer *w = new_writer(fd, true);

		write_in_steps(w, &b, 16384);
		assert_int_equal(pmclog_writer__finish(w), 0);
		file_contents(fd, &plain);
		pmclog_writer__free(w);
		close(fd);
	}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
		int fd = new_file();
		struct pmclog_writer *w;
		unsigned long long size;
		size_t n;

		opts.name = "test.pmclog";
		opts.ksyms = read_kallsyms();
		opts.compression_level = 3;
		w = pmclog_writer__new(fd, &opts);
		assert_non_null(w);
		write_in_steps(w, &b, steps[i]);
		/* Before the end, the file holds all that was saved (flushed). */
		file_contents(fd, &out);
		{
			ZSTD_DCtx *d = ZSTD_createDCtx();
			ZSTD_inBuffer zin = { out.data, out.len, 0 };
			ZSTD_outBuffer zout = { names.data, sizeof(names.data), 0 };

			assert_false(ZSTD_isError(ZSTD_decompressStream(d, &zout, &zin)));
			assert_int_equal(zin.pos, out.len);
			assert_int_equal(zout.pos, pmclog_writer__saved(w));
			assert_memory_equal(names.data, plain.data, zout.pos);
			ZSTD_freeDCtx(d);
		}
		assert_int_equal(pmclog_writer__finish(w), 0);
		file_contents(fd, &out);
		assert_int_equal(pmclog_writer__written(w), out.len);
		assert_int_equal(pmclog_writer__saved(w), plain.len);
		size = ZSTD_getFrameContentSize(out.data, out.len);
		assert_true(size == ZSTD_CONTENTSIZE_UNKNOWN || size == plain.len);
		n = ZSTD_decompress(names.data, sizeof(names.data), out.data, out.len);
		assert_false(ZSTD_isError(n));
		assert_int_equal(n, plain.len);
		assert_memory_equal(names.data, plain.data, plain.len);
		/* The frame's checksum is there: 4 bytes a damaged log fails. */
		out.data[out.len - 1] ^= 1;
		assert_true(ZSTD_isError(ZSTD_decompress(names.data, sizeof(names.data),
							 out.data, out.len)));
		out.data[out.len - 1] ^= 1;
		/* And read as it is. */
		n = read_back(&out, &names, recs, 32);
		assert_int_equal(n, 11);
		assert_int_equal(recs[10].type, PMCLOG_TYPE_CLOSELOG);
		pmclog_writer__free(w);
		close(fd);
	}
	{
		struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;

		opts.compression_level = ZSTD_maxCLevel() + 1;
		assert_null(pmclog_writer__new(1, &opts));
		assert_int_equal(errno, EINVAL);
	}
	assert_string_equal(said, "");
	/*
	 * What the device gives is never compressed: zstd bytes are saved as
	 * they come, undecoded, not decompressed (its reader did, and saved
	 * past the end of its input; found by fuzz_reader).
	 */
	{
		int fd = new_file();
		struct pmclog_writer *w = new_writer(fd, false);
		size_t n = ZSTD_compress(out.data, sizeof(out.data), b.data, b.len, 1);

		assert_false(ZSTD_isError(n));
		assert_int_equal(pmclog_writer__write(w, out.data, n), 0);
		assert_int_equal(pmclog_writer__finish(w), 0);
		assert_int_equal(pmclog_writer__written(w), n);
		file_contents(fd, &plain);
		assert_int_equal(plain.len, n);
		assert_memory_equal(plain.data, out.data, n);
		assert_non_null(strstr(said, "test.pmclog: bad record magic 0x28 at offset 0"));
		pmclog_writer__free(w);
		close(fd);
	}
}

/* ------------------------------------------------------------------ */
/* Packing                                                            */

struct bigbuf {
	unsigned char *data;
	size_t len, cap;
};

static void big_put(struct bigbuf *big, struct logbuf *b)
{
	if (big->len + b->len > big->cap) {
		big->cap = (big->len + b->len) * 2;
		big->data = realloc(big->data, big->cap);
		assert_non_null(big->data);
	}
	memcpy(big->data + big->len, b->data, b->len);
	big->len += b->len;
	b->len = 0;
}

/*
 * A log of 3600 samples, most in runs that pack, and all that must end
 * a run: another mode, tid, PMC or CPU, a CALLCHAIN or any other record
 * between two samples; time going back (an NMI's sample); PCs near each
 * other (a delta of 1 or 2 bytes), then anywhere (10 bytes: a PCSAMPLES
 * fills before its run ends).
 */
static void packable_log(struct bigbuf *big)
{
	static struct logbuf b;
	static const __u64 kpc[] = { KTEXT + 0x50, KTEXT + 0x104 };
	__u64 seed = 12345, ts = LB_TS_BASE;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000, "cpu-clock");
	lb_pmcallocate(&b, 2, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000, "cpu-clock");
	lb_map_in(&b, PMCLOG_PID_KERNEL, KTEXT, KTEXT + 0x200, 0xffffffff81000000ULL,
		  PMCLOG_MAP_F_INITIAL, "[kernel]");
	big_put(big, &b);
	for (unsigned int i = 1; i <= 3600; i++) {
		struct pmclog_pcsample s = {
			.header.cpu = 2, .header.pmcid = 1,
			.header.flags = PMCLOG_HF_USER,
			.pid = 42, .tid = 43,
		};

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		ts += 100000 + (seed >> 40) % 5000;
		s.header.tstamp = i % 257 ? ts : ts - 50;
		s.pc = i < 2000 ? 0x401000 + (seed >> 33) % 4096 : seed;
		if (i % 97 == 0) {
			s.header.flags = 0;
			s.pc = KTEXT + 0x50;
		}
		if (i % 131 == 0)
			s.tid = 44;
		if (i % 173 == 0)
			s.header.pmcid = 2;
		if (i % 211 == 0)
			s.header.cpu = 1;
		lb_put(&b, PMCLOG_TYPE_PCSAMPLE, sizeof(s), &s, sizeof(s));
		if (i % 307 == 0)
			lb_callchain(&b, s.header.tstamp, s.header.cpu, s.pid, s.tid,
				     !!s.header.flags, 0, s.header.flags ? NULL : kpc,
				     s.header.flags ? 0 : 2, NULL, 0);
		if (i % 401 == 0)
			lb_map_in(&b, 42, 0x500000, 0x501000, 0, 0, "/usr/lib/libx.so");
		if (b.len > sizeof(b.data) - 1024)
			big_put(big, &b);
	}
	lb_dropnotify(&b, 1, 2, 1);
	lb_closelog(&b, 3602, 2, 1);
	big_put(big, &b);
}

/* opts.tool: what it was given, and the kernel PCs of the samples summed. */
struct observed {
	struct pmclog_tool tool;
	__u64 records, samples, kernel_pcs;
};

static int observe_record(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	((struct observed *)tool)->records++;
	(void)rec;
	return 0;
}

static int observe_sample(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct observed *o = (struct observed *)tool;

	assert_int_equal(rec->length, sizeof(struct pmclog_pcsample));
	o->samples++;
	if (!(rec->flags & PMCLOG_HF_USER))
		o->kernel_pcs += rec->rec.pcsample->pc;
	return 0;
}

/* What callocs_until_failure is while write_log() writes. */
static int write_log_calloc_fails = -1;

/*
 * The log in big through a new writer (pack, zstd level): the file, the
 * counts, and what its opts.tool saw.
 */
static void write_log(const struct bigbuf *in, size_t step, bool pack, int level,
		      struct bigbuf *out, struct pmclog_stats *st,
		      struct observed *seen)
{
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	int fd = new_file();
	struct pmclog_writer *w;
	struct stat sb;

	*seen = (struct observed){
		.tool = { .record = observe_record, .pcsample = observe_sample },
	};
	opts.tool = &seen->tool;
	opts.name = "test.pmclog";
	opts.ksyms = read_kallsyms();
	opts.pack = pack;
	opts.compression_level = level;
	w = pmclog_writer__new(fd, &opts);
	assert_non_null(w);
	callocs_until_failure = write_log_calloc_fails;
	for (size_t off = 0; off < in->len; off += step) {
		size_t n = in->len - off < step ? in->len - off : step;

		assert_int_equal(pmclog_writer__write(w, in->data + off, n), 0);
	}
	callocs_until_failure = -1;
	assert_int_equal(pmclog_writer__finish(w), 0);
	*st = *pmclog_writer__stats(w);
	assert_int_equal(fstat(fd, &sb), 0);
	assert_int_equal(pmclog_writer__written(w), sb.st_size);
	out->len = out->cap = (size_t)sb.st_size;
	out->data = malloc(out->len);
	assert_non_null(out->data);
	assert_int_equal(pread(fd, out->data, out->len, 0), (ssize_t)out->len);
	pmclog_writer__free(w);
	close(fd);
}

/* Records of each type in a plain (uncompressed) file, as it lies. */
static void count_types(const struct bigbuf *f, size_t *n)
{
	for (size_t off = 0; off < f->len;) {
		const struct pmclog_header *h = (const void *)(f->data + off);

		assert_true(h->length >= sizeof(*h) && off + h->length <= f->len);
		n[h->type <= PMCLOG_TYPE_MAX_KNOWN ? h->type : 0]++;
		off += h->length;
	}
}

/* A file's records as a reader returns them, to its CLOSELOG. */
static void read_records(const struct bigbuf *f, struct rec_list *l)
{
	struct pmclog_reader *rd = pmclog_reader__new(NULL);

	assert_non_null(rd);
	assert_int_equal(pmclog_reader__feed(rd, f->data, f->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(rd), 0);
	assert_int_equal(rec_list_read(rd, l), 0);
	assert_int_equal(pmclog_reader__end(rd), PMCLOG_READER_END_CLOSELOG);
	pmclog_reader__free(rd);
}

/* out has ref's records in an order that packing keeps (rec_list.h). */
static void assert_same_records(const struct rec_list *ref, const struct rec_list *out)
{
	size_t at;
	const char *why = rec_list_packed_diff(ref, out, &at);

	if (why)
		fail_msg("record %zu: %s", at, why);
}

/*
 * Packed, the log reads back as the same records, byte for byte, as the
 * log saved unpacked, in the order packing keeps (a lone sample of CPU 1
 * moves out of the run of CPU 2 around it; the recorder's KSYMBOLs
 * included: the packed
 * samples mark their kernel functions too), with the same counts, in a
 * third of the bytes or less (a sample of the first 2000 takes 4 to 6
 * bytes, of the last 1600 about 14); however the input was split,
 * compressed or not.
 */
static void test_packed(void **state)
{
	static const size_t steps[] = { 7, 100, 4096, 1 << 20 };
	struct bigbuf in = { 0 }, ref;
	struct rec_list ref_recs;
	struct pmclog_stats ref_st;
	struct observed ref_seen;
	size_t ref_types[PMCLOG_TYPE_MAX_KNOWN + 1] = { 0 };
	(void)state;

	packable_log(&in);
	write_log(&in, 1 << 20, false, 0, &ref, &ref_st, &ref_seen);
	/* The tool sees the input's records, not the recorder's KSYMBOL. */
	assert_int_equal(ref_seen.records, ref_st.records - 1);
	assert_int_equal(ref_seen.samples, 3600);
	count_types(&ref, ref_types);
	assert_int_equal(ref_types[PMCLOG_TYPE_PCSAMPLE], 3600);
	assert_int_equal(ref_types[PMCLOG_TYPE_PCSAMPLES], 0);
	assert_int_equal(ref_types[PMCLOG_TYPE_KSYMBOL], 1);
	assert_int_equal(ref_st.samples, 3600);
	read_records(&ref, &ref_recs);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		for (int level = 0; level <= 3; level += 3) {
			struct rec_list out_recs;
			struct pmclog_stats st;
			struct observed seen;
			struct bigbuf out;

			write_log(&in, steps[i], true, level, &out, &st, &seen);
			assert_int_equal(seen.records, ref_seen.records);
			assert_int_equal(seen.samples, ref_seen.samples);
			assert_int_equal(seen.kernel_pcs, ref_seen.kernel_pcs);
			assert_int_equal(st.records, ref_st.records);
			assert_int_equal(st.bytes, ref_st.bytes);
			assert_int_equal(st.samples, ref_st.samples);
			assert_int_equal(st.samples_dropped, ref_st.samples_dropped);
			assert_true(st.closelog);
			if (!level) {
				size_t types[PMCLOG_TYPE_MAX_KNOWN + 1] = { 0 };

				count_types(&out, types);
				/* Every write(2) ends the run it packs. */
				if (steps[i] >= 4096) {
					assert_true(types[PMCLOG_TYPE_PCSAMPLES] > 20);
					assert_true(out.len * 3 < ref.len);
				}
				assert_int_equal(types[PMCLOG_TYPE_KSYMBOL], 1);
				assert_int_equal(types[PMCLOG_TYPE_CALLCHAIN], 11);
			}
			read_records(&out, &out_recs);
			assert_int_equal(out_recs.n, ref_st.records);
			assert_same_records(&ref_recs, &out_recs);
			rec_list_free(&out_recs);
			free(out.data);
		}
	}
	rec_list_free(&ref_recs);
	free(ref.data);
	free(in.data);
	assert_string_equal(said, "");
}

/*
 * Two CPUs' samples in turn, as the BPF collector's one ring gives them
 * (CPU 0's thread at even 50 us, CPU 1's at odd), for 1 s, with a MAP_IN
 * every 2000 samples.
 */
static void interleaved_log(struct bigbuf *big)
{
	static struct logbuf b;
	__u64 seed = 777;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 10000, "cpu-clock");
	big_put(big, &b);
	for (unsigned int i = 0; i < 20000; i++) {
		struct pmclog_pcsample s = {
			.header.cpu = i % 2, .header.pmcid = 1,
			.header.flags = PMCLOG_HF_USER,
			.header.tstamp = LB_TS_BASE + 50000ULL * i,
			.pid = 100 + i % 2, .tid = 100 + i % 2,
		};

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		s.pc = 0x401000 + (seed >> 33) % 4096;
		lb_put(&b, PMCLOG_TYPE_PCSAMPLE, sizeof(s), &s, sizeof(s));
		if (i % 2000 == 1999)
			lb_map_in(&b, 100, 0x500000, 0x501000, 0, 0, "/usr/lib/libx.so");
		if (b.len > sizeof(b.data) - 1024)
			big_put(big, &b);
	}
	lb_closelog(&b, 20000, 0, 0);
	big_put(big, &b);
}

/*
 * Samples of two CPUs in turn pack as well as one CPU's (a run of each),
 * under 6 bytes a sample against 32; no sample comes after one stamped
 * more than 100 ms later (the writer's PACK_SPAN_NS); none crosses the
 * MAP_INs.  One sample a run, as the writer packed them at 479e839, took
 * 32 bytes a sample.
 */
static void test_packed_cpus(void **state)
{
	struct bigbuf in = { 0 }, ref, out;
	struct rec_list ref_recs, out_recs;
	struct pmclog_stats ref_st, st;
	struct observed ref_seen, seen;
	size_t types[PMCLOG_TYPE_MAX_KNOWN + 1] = { 0 };
	__u64 newest = 0;
	(void)state;

	interleaved_log(&in);
	write_log(&in, 1 << 20, false, 0, &ref, &ref_st, &ref_seen);
	write_log(&in, 1 << 20, true, 0, &out, &st, &seen);
	assert_int_equal(st.samples, 20000);
	assert_int_equal(st.records, ref_st.records);
	assert_int_equal(seen.samples, 20000);
	count_types(&out, types);
	assert_int_equal(types[PMCLOG_TYPE_PCSAMPLE], 0);
	/* A run of each CPU between two MAP_INs, 100 ms apart. */
	assert_int_equal(types[PMCLOG_TYPE_PCSAMPLES], 40);
	assert_true(out.len < 20000 * 6);
	read_records(&ref, &ref_recs);
	read_records(&out, &out_recs);
	assert_same_records(&ref_recs, &out_recs);
	for (size_t i = 0; i < out_recs.n; i++) {
		const struct pmclog_header *h = (const void *)out_recs.r[i].bytes;

		if (h->type != PMCLOG_TYPE_PCSAMPLE)
			continue;
		if (h->tstamp > newest)
			newest = h->tstamp;
		assert_true(newest - h->tstamp <= 100000000);
	}
	rec_list_free(&ref_recs);
	rec_list_free(&out_recs);
	free(ref.data);
	free(out.data);
	free(in.data);
	assert_string_equal(said, "");
}

/*
 * Out of memory for the runs (the CPUs' table, or the first sample's run,
 * or the second's): that sample is saved as it came, after every run, the
 * next ones are packed (their runs made then), and the log reads back
 * whole.
 */
static void test_packed_runs_out_of_memory(void **state)
{
	struct bigbuf in = { 0 }, ref;
	struct rec_list ref_recs;
	struct pmclog_stats ref_st;
	struct observed ref_seen;
	(void)state;

	interleaved_log(&in);
	write_log(&in, 1 << 20, false, 0, &ref, &ref_st, &ref_seen);
	read_records(&ref, &ref_recs);
	/* The table of runs, its list of CPUs, CPU 0's run, CPU 1's. */
	for (int fail = 0; fail < 4; fail++) {
		size_t types[PMCLOG_TYPE_MAX_KNOWN + 1] = { 0 };
		struct rec_list out_recs;
		struct pmclog_stats st;
		struct observed seen;
		struct bigbuf out;

		write_log_calloc_fails = fail;
		write_log(&in, 1 << 20, true, 0, &out, &st, &seen);
		write_log_calloc_fails = -1;
		assert_int_equal(st.samples, 20000);
		assert_int_equal(st.records, ref_st.records);
		count_types(&out, types);
		/* Also CPU 0's run of one, saved before CPU 1's first sample. */
		assert_int_equal(types[PMCLOG_TYPE_PCSAMPLE], fail == 3 ? 2 : 1);
		assert_int_equal(types[PMCLOG_TYPE_PCSAMPLES], 40);
		read_records(&out, &out_recs);
		assert_same_records(&ref_recs, &out_recs);
		rec_list_free(&out_recs);
		free(out.data);
	}
	rec_list_free(&ref_recs);
	free(ref.data);
	free(in.data);
	assert_string_equal(said, "");
}

/*
 * Out of memory for the start of a record that a write(2) leaves
 * incomplete: that start, and all after it, is saved as it came, after
 * the run being packed that came before it (the file once had the
 * PCSAMPLES after those bytes, where no reader found it).
 */
static void test_packed_out_of_memory(void **state)
{
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	static struct logbuf b, out;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	struct pmclog_writer *w;
	int fd = new_file();
	size_t s1, end;
	(void)state;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	s1 = lb_pcsample(&b, 0, 7, 7, 0x401000, 1);
	lb_pcsample(&b, 0, 7, 7, 0x401010, 1);
	end = b.len;
	memset(b.data + end, 0xee, 10);		/* a record's first 10 bytes */
	opts.name = "test.pmclog";
	opts.pack = true;
	w = pmclog_writer__new(fd, &opts);
	assert_non_null(w);
	assert_int_equal(pmclog_writer__write(w, b.data, s1), 0);
	/* The next realloc() is the one for the 10 bytes held back. */
	reallocs_until_failure = 0;
	assert_int_equal(pmclog_writer__write(w, b.data + s1, end + 10 - s1), 0);
	reallocs_until_failure = -1;
	assert_int_equal(pmclog_writer__finish(w), 0);
	assert_non_null(strstr(said, "test.pmclog: out of memory: the log is saved as read from offset 120 on, but not counted"));
	file_contents(fd, &out);
	assert_int_equal(out.len, s1 + PMCLOG_RECORD_LEN(sizeof(struct pmclog_pcsamples) + 4) + 10);
	assert_memory_equal(out.data + out.len - 10, b.data + end, 10);
	r = pmclog_reader__new(NULL);
	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, out.data, out.len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_INITIALIZE);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pmclog_reader__next(r, &rec), 1);
		assert_int_equal(rec.type, PMCLOG_TYPE_PCSAMPLE);
		assert_int_equal(rec.rec.pcsample->pc, 0x401000 + 16 * i);
	}
	assert_int_equal(pmclog_reader__next(r, &rec), -EBADMSG);
	assert_true(pmclog_reader__truncated(r));
	pmclog_reader__free(r);
	pmclog_writer__free(w);
	close(fd);
}

/* Options that a newer library would know are refused; ksyms freed. */
static void test_bad_opts(void **state)
{
	struct {
		struct pmclog_writer_opts o;
		long newer;
	} big = { .o = { .sz = sizeof(big) }, .newer = 1 };
	(void)state;

	big.o.ksyms = read_kallsyms();
	assert_null(pmclog_writer__new(1, &big.o));
	assert_int_equal(errno, EINVAL);
	assert_null(pmclog_writer__new(-1, NULL));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_copy_as_given, setup),
		cmocka_unit_test_setup(test_ksymbols_before_closelog, setup),
		cmocka_unit_test_setup(test_ksymbols_without_closelog, setup),
		cmocka_unit_test_setup(test_ksymbols_later, setup),
		cmocka_unit_test_setup(test_buildids_from_sysfs, setup),
		cmocka_unit_test_setup(test_undecodable, setup),
		cmocka_unit_test_setup(test_after_closelog, setup),
		cmocka_unit_test_setup(test_cut_record, setup),
		cmocka_unit_test_setup(test_write_error, setup),
		cmocka_unit_test_setup(test_compressed, setup),
		cmocka_unit_test_setup(test_packed, setup),
		cmocka_unit_test_setup(test_packed_cpus, setup),
		cmocka_unit_test_setup(test_packed_runs_out_of_memory, setup),
		cmocka_unit_test_setup(test_packed_out_of_memory, setup),
		cmocka_unit_test_setup(test_bad_opts, setup),
	};

	return cmocka_run_group_tests_name("writer", tests, NULL, NULL);
}
