/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer targets share: reading a log from the input, a
 * scratch directory for the files a report opens, and failing loudly
 * when the library breaks a promise (an abort is a crash to libFuzzer,
 * which saves the input).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmclog_common.h"
#include "pmclog_reader.h"
#include "pmclog_symtab.h"

__attribute__((format(printf, 1, 2), noreturn))
static inline void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: broken promise: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define FZ_CHECK(cond, ...) do { if (!(cond)) fz_fail(__VA_ARGS__); } while (0)

/*
 * The library's warnings since fz_listen(), kept (not printed) for a
 * check that a failure said why: fz_said()[0].
 */
static char fz_said_buf[512];

static inline int fz_print(enum pmclog_print_level level, const char *fmt,
			   va_list ap)
{
	size_t n = strlen(fz_said_buf);

	if (level != PMCLOG_WARN || n + 1 >= sizeof(fz_said_buf))
		return 0;
	return vsnprintf(fz_said_buf + n, sizeof(fz_said_buf) - n, fmt, ap);
}

static inline void fz_listen(void)
{
	fz_said_buf[0] = '\0';
	pmclog_set_print(fz_print);
}

static inline const char *fz_said(void)
{
	return fz_said_buf;
}

static inline FILE *fz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		fz_fail("cannot open /dev/null: %s", strerror(errno));
	return f;
}

/*
 * A directory the target may write into, removed when it exits: in
 * $TMPDIR, else in /dev/shm (memory: a file written and read per input
 * costs little there), else in /tmp.  $PMCLOG_FUZZ_SCRATCH names it
 * instead: run.sh's fixed-seed runs need the same paths in every run,
 * as the comparisons libFuzzer traces (a path against another) steer
 * its mutations.
 */
static char fz_scratch[4096];

static int fz_rm_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* rm -rf path */
static inline void fz_rm_tree(const char *path)
{
	nftw(path, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void fz_rm_scratch(void)
{
	if (fz_scratch[0])
		fz_rm_tree(fz_scratch);
}

static inline const char *fz_scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *fixed = getenv("PMCLOG_FUZZ_SCRATCH");

	if (fz_scratch[0])
		return fz_scratch;
	if (fixed && *fixed) {
		if (strlen(fixed) >= sizeof(fz_scratch))
			fz_fail("PMCLOG_FUZZ_SCRATCH is too long");
		strcpy(fz_scratch, fixed);
		fz_rm_tree(fz_scratch);
		if (mkdir(fz_scratch, 0700))
			fz_fail("mkdir %s: %s", fz_scratch, strerror(errno));
		atexit(fz_rm_scratch);
		return fz_scratch;
	}
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(fz_scratch, sizeof(fz_scratch), "%s/pmclog-fuzz-XXXXXX", tmp);
	if (!mkdtemp(fz_scratch))
		fz_fail("mkdtemp %s: %s", fz_scratch, strerror(errno));
	atexit(fz_rm_scratch);
	return fz_scratch;
}

/* path := data[0..len), replacing what was there. */
static inline void fz_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || close(fd))
		fz_fail("cannot write %s: %s", path, strerror(errno));
}

static inline void fz_mkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		fz_fail("mkdir %s: %s", path, strerror(errno));
}

/*
 * What the reader promises of every record it accepts (fuzz_reader checks
 * these; the other targets rely on them).
 */
static inline void fz_check_record(const struct pmclog_record *rec)
{
	FZ_CHECK(rec->length >= sizeof(struct pmclog_header) &&
		 rec->length % PMCLOG_RECORD_ALIGN == 0 &&
		 rec->length >= pmclog_record_min_size(rec->type),
		 "record of type %u at offset %llu accepted with length %u",
		 rec->type, (unsigned long long)rec->offset, rec->length);
	FZ_CHECK(rec->type != PMCLOG_TYPE_INITIALIZE || rec->offset == 0,
		 "an INITIALIZE accepted at offset %llu",
		 (unsigned long long)rec->offset);
	if (rec->type == PMCLOG_TYPE_MAP_IN || rec->type == PMCLOG_TYPE_PROCEXEC)
		FZ_CHECK(rec->path, "%s at offset %llu without a path",
			 pmclog_type_name(rec->type), (unsigned long long)rec->offset);
	if (rec->type == PMCLOG_TYPE_KSYMBOL || rec->type == PMCLOG_TYPE_PMCALLOCATE)
		FZ_CHECK(rec->name, "%s at offset %llu without a name",
			 pmclog_type_name(rec->type), (unsigned long long)rec->offset);
}

typedef void (*fz_record_fn)(void *ctx, const struct pmclog_record *rec);

/*
 * Read the log in data (fed whole, then EOF), calling fn for each record;
 * return what pmclog_reader__next() returned last (0 or a negative errno).
 */
static inline int fz_read_log(const uint8_t *data, size_t size, fz_record_fn fn,
			      void *ctx)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;
	int ret;

	if (!r)
		fz_fail("pmclog_reader__new: %s", strerror(errno));
	if (pmclog_reader__feed(r, data, size) || pmclog_reader__feed_eof(r))
		fz_fail("feeding the reader: %s", strerror(errno));
	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		fz_check_record(&rec);
		fn(ctx, &rec);
	}
	FZ_CHECK(ret != -EAGAIN, "EAGAIN after feed_eof");
	pmclog_reader__free(r);
	return ret;
}

/* A finished table: sorted, one symbol per address, none empty. */
static inline void fz_check_symtab(const struct pmclog_symtab *t, const char *what)
{
	size_t n = pmclog_symtab__count(t);

	for (size_t i = 0; i < n; i++) {
		const struct pmclog_sym *s = pmclog_symtab__at(t, i);

		FZ_CHECK(s->size, "%s: symbol %s at 0x%llx has size 0", what, s->name,
			 (unsigned long long)s->addr);
		FZ_CHECK(!i || pmclog_symtab__at(t, i - 1)->addr < s->addr,
			 "%s: symbols out of order at %zu", what, i);
		FZ_CHECK(pmclog_symtab__lookup(t, s->addr) == s,
			 "%s: lookup of 0x%llx does not find %s", what,
			 (unsigned long long)s->addr, s->name);
	}
}

/*
 * A -M line's GMONFILE, as pmclog_gmon.c escapes it (\xNN), made the
 * file's name again, in place.
 */
static inline void fz_unescape(char *s)
{
	char *out = s;
	unsigned int c;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &c) == 1) {
			*out++ = (char)c;
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/*
 * A gmon.out file as pmclog_gmon.c writes it: the 20-byte header, then
 * one histogram record (tag 0, low_pc, high_pc, hist_size, prof_rate,
 * 15 + 1 bytes of dimension), then hist_size 16-bit bins; the range
 * holds hist_size bins of a power-of-two size, 2 bytes or more.
 */
static inline void fz_check_gmon(const char *path)
{
	unsigned char buf[61];
	__u64 low, high, binsz;
	__u32 nbins, version;
	struct stat st;
	FILE *f = fopen(path, "re");

	if (!f || fstat(fileno(f), &st) || fread(buf, 1, sizeof(buf), f) != sizeof(buf))
		fz_fail("%s: not a gmon file that can be read", path);
	fclose(f);
	memcpy(&version, buf + 4, 4);
	memcpy(&low, buf + 21, 8);
	memcpy(&high, buf + 29, 8);
	memcpy(&nbins, buf + 37, 4);
	FZ_CHECK(!memcmp(buf, "gmon", 4) && version == 1 && buf[20] == 0,
		 "%s: not a gmon version 1 histogram", path);
	FZ_CHECK((__u64)st.st_size == sizeof(buf) + 2ULL * nbins,
		 "%s: %lld bytes for %u bins", path, (long long)st.st_size, nbins);
	FZ_CHECK(nbins && high > low, "%s: %u bins over [0x%llx, 0x%llx)", path, nbins,
		 (unsigned long long)low, (unsigned long long)high);
	binsz = (high - low) / nbins;
	FZ_CHECK(binsz >= 2 && !(binsz & (binsz - 1)) && binsz * nbins == high - low,
		 "%s: [0x%llx, 0x%llx) is not %u bins of a power of two", path,
		 (unsigned long long)low, (unsigned long long)high, nbins);
}

#endif /* FUZZ_COMMON_H */
