// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the symbolizer against ELF files this test builds with
 * cc: a PIE and a non-PIE program, a shared object, the same stripped to
 * its .dynsym, and an ET_REL object laid out as a kernel module (core
 * and .init text); the symbol tables themselves (zero-sized symbols,
 * aliases, System.map and its placeholder); and a whole report (replay ->
 * resolver -> rows, json, gprof files that binutils' gprof reads back).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "log_builder.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_internal.h"
#include "pmclog_symtab.h"


static const char source[] =
	"__attribute__((noinline)) int alpha(int x) { int i; for (i = 0; i < x; i++) __asm__ volatile(\"\"); return i; }\n"
	"__attribute__((noinline)) int beta(int x) { return alpha(x) + 1; }\n"
	"__attribute__((noinline)) static int gamma_local(int x) { return beta(x) * 2; }\n"
	"int (*keep)(int) = gamma_local;\n"
	"#ifdef MAIN\nint main(int argc, char **argv) { (void)argv; return keep(argc); }\n#endif\n"
	"#ifdef KMOD\n__attribute__((section(\".init.text\"), noinline)) int kinit(void) { return beta(3); }\n"
	"__attribute__((section(\".exit.text\"), noinline)) void kexit(void) { keep = 0; }\n#endif\n";


static int setup(void **state)
{
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmclog-symtab-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	f = fopen(strcat(strcpy((char[96]){ 0 }, dir), "/t.c"), "w");
	if (!f)
		return -1;
	fputs(source, f);
	fclose(f);
	run("cd %s && cc -O1 -g -DMAIN -fPIE -pie -o pie t.c", dir);
	run("cd %s && cc -O1 -g -DMAIN -fno-pie -no-pie -o nopie t.c", dir);
	run("cd %s && cc -O1 -g -fPIC -shared -o libt.so t.c", dir);
	run("cd %s && strip -o libt-stripped.so libt.so", dir);
	run("cd %s && cc -O1 -DKMOD -fno-pie -mcmodel=kernel -c -o kmod.ko t.c", dir);
	run("cd %s && xz -k kmod.ko", dir);
	return 0;
}



static struct pmclog_elf *load(struct pmclog_strings *st, const char *file)
{
	char path[256], err[256];
	struct pmclog_elf *e = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (pmclog_elf__load(path, st, &e, err, sizeof(err)))
		fail_msg("%s", err);
	return e;
}

static void expect_sym(const struct pmclog_symtab *t, __u64 addr, const char *name)
{
	const struct pmclog_sym *s = pmclog_symtab__lookup(t, addr);

	if (!s)
		fail_msg("no symbol at 0x%llx, expected %s", (unsigned long long)addr, name);
	assert_string_equal(s->name, name);
}

/* The file offset of vaddr, through e's segments (the inverse). */
static __u64 file_offset(const struct pmclog_elf *e, __u64 vaddr)
{
	for (size_t i = 0; i < e->nsegs; i++)
		if (vaddr >= e->segs[i].vaddr && vaddr - e->segs[i].vaddr < e->segs[i].filesz)
			return vaddr - e->segs[i].vaddr + e->segs[i].offset;
	fail_msg("0x%llx in no segment", (unsigned long long)vaddr);
	return 0;
}

static void check_program(const char *file, enum pmclog_elf_type type)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, file);
	__u64 a = nm_value(file, "alpha"), g = nm_value(file, "gamma_local"), v = 0;

	assert_int_equal(e->type, type);
	assert_true(e->has_symtab);
	expect_sym(e->text, a, "alpha");
	expect_sym(e->text, a + 1, "alpha");
	expect_sym(e->text, g, "gamma_local");
	expect_sym(e->text, nm_value(file, "beta"), "beta");
	/* What a MAP_IN offset goes through. */
	assert_true(pmclog_elf__offset_to_vaddr(e, file_offset(e, a + 2), &v));
	assert_int_equal(v, a + 2);
	/* Interned: one pointer per name. */
	assert_ptr_equal(pmclog_symtab__lookup(e->text, a)->name,
			 pmclog_strings__intern(st, "alpha"));
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

static void test_pie(void **state)
{
	(void)state;
	check_program("pie", PMCLOG_ELF_DYN);
}

static void test_nopie(void **state)
{
	(void)state;
	check_program("nopie", PMCLOG_ELF_EXEC);
}

static void test_shared(void **state)
{
	(void)state;
	check_program("libt.so", PMCLOG_ELF_DYN);
}

/* Stripped: .dynsym only; exported functions named, static ones not. */
static void test_stripped(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "libt-stripped.so");
	__u64 a = nm_value("libt.so", "alpha"), g = nm_value("libt.so", "gamma_local");
	const struct pmclog_sym *s;

	(void)state;
	assert_false(e->has_symtab);
	expect_sym(e->text, a, "alpha");
	/* gamma_local has no symbol: not named after a neighbour. */
	s = pmclog_symtab__lookup(e->text, g);
	assert_true(!s || strcmp(s->name, "gamma_local"));
	assert_true(!s || s->addr + s->size <= g || !strcmp(s->name, "beta") ||
		    !strcmp(s->name, "alpha") ? 1 : 0);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* ET_REL: core text offsets, .init.text in its own table; and .xz. */
static void check_kmod(const char *file)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, file);

	assert_int_equal(e->type, PMCLOG_ELF_REL);
	expect_sym(e->text, nm_value("kmod.ko", "alpha"), "alpha");
	expect_sym(e->text, nm_value("kmod.ko", "beta"), "beta");
	expect_sym(e->init, 0, "kinit");
	/* .exit.text is core text, laid out after .text. */
	assert_non_null(pmclog_symtab__lookup(e->text, e->text_size - 1));
	assert_true(e->init_size > 0);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

static void test_kmod(void **state)
{
	(void)state;
	check_kmod("kmod.ko");
	check_kmod("kmod.ko.xz");
}

static void test_not_elf(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = NULL;
	char path[256], err[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/t.c", dir);
	assert_int_equal(pmclog_elf__load(path, st, &e, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "t.c"));
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(pmclog_elf__load(path, st, &e, err, sizeof(err)), -ENOENT);
	/*
	 * Only regular files: a device (which a process may map executable)
	 * would be read without end, a FIFO would block the open.
	 */
	assert_int_equal(pmclog_elf__load("/dev/null", st, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "cannot read /dev/null: not a regular file (a device, a FIFO or a socket): not opened");
	assert_int_equal(pmclog_elf__load(dir, st, &e, err, sizeof(err)), -EISDIR);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	run("mkfifo %s", path);
	assert_int_equal(pmclog_elf__load(path, st, &e, err, sizeof(err)), -EINVAL);
	pmclog_strings__free(st);
}

static void test_symtab_sizes(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_symtab *t = pmclog_symtab__new();

	(void)state;
	pmclog_symtab__add(t, 0x100, 0, pmclog_strings__intern(st, "a"), PMCLOG_SYM_GLOBAL);
	pmclog_symtab__add(t, 0x200, 0x10, pmclog_strings__intern(st, "b"), PMCLOG_SYM_GLOBAL);
	pmclog_symtab__add(t, 0x200, 0x10, pmclog_strings__intern(st, "b_alias"), PMCLOG_SYM_WEAK);
	pmclog_symtab__add(t, 0x300, 0, pmclog_strings__intern(st, "c"), PMCLOG_SYM_LOCAL);
	pmclog_symtab__finish(t, 0x380);
	assert_int_equal(pmclog_symtab__count(t), 3);
	expect_sym(t, 0x1ff, "a");		/* zero-sized: up to b */
	expect_sym(t, 0x20f, "b");		/* the global of the aliases */
	assert_null(pmclog_symtab__lookup(t, 0x210));	/* past b's size */
	expect_sym(t, 0x37f, "c");		/* the last: up to the limit */
	assert_null(pmclog_symtab__lookup(t, 0x380));
	assert_null(pmclog_symtab__lookup(t, 0xff));
	pmclog_symtab__free(t);
	pmclog_strings__free(st);
}

static void test_sysmap(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_symtab *t = NULL;
	char path[256], err[256];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/System.map", dir);
	f = fopen(path, "w");
	fprintf(f, "ffffffffffffffff B The real System.map is in the linux-image-6.1-dbg package\n");
	fclose(f);
	assert_int_equal(pmclog_sysmap__load(path, st, &t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "placeholder"));
	f = fopen(path, "w");
	for (int i = 0; i < 200; i++)
		fprintf(f, "%llx %c fn%d\n", 0xffffffff81000000ULL + i * 0x40, i % 2 ? 't' : 'T', i);
	fprintf(f, "ffffffff82000000 D some_data\n");
	fclose(f);
	assert_int_equal(pmclog_sysmap__load(path, st, &t, err, sizeof(err)), 0);
	assert_int_equal(pmclog_symtab__count(t), 200);
	expect_sym(t, 0xffffffff81000045ULL, "fn1");
	pmclog_symtab__free(t);
	pmclog_strings__free(st);
}

/*
 * A line longer than any symbol's is one line still: what follows its
 * first 1023 bytes is no symbol of its own.
 */
static void test_sysmap_long_line(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_symtab *t = NULL;
	char path[256], err[256];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/System.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fprintf(f, "%llx T fn%d\n", 0xffffffff81000000ULL + i * 0x40, i);
	/* 1023 bytes, then a symbol. */
	fprintf(f, "ffffffff82000000 T long_%0999d", 0);
	fprintf(f, "ffffffff81000100 T forged\n");
	fclose(f);
	assert_int_equal(pmclog_sysmap__load(path, st, &t, err, sizeof(err)), 0);
	assert_int_equal(pmclog_symtab__count(t), 201);
	expect_sym(t, 0xffffffff81000100ULL, "fn4");
	pmclog_symtab__free(t);
	pmclog_strings__free(st);
}

/* A System.map of n text symbols fn0.., 0x40 apart from base. */
static void write_sysmap(const char *path, __u64 base, int n, const char *prefix)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%llx T %s%d\n", (unsigned long long)(base + i * 0x40), prefix, i);
	fclose(f);
}

struct kernel_resolve {
	struct pmclog_resolver *res;
	const char *symbol;
};

static int resolve_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct kernel_resolve *kr = ctx;
	struct pmclog_resolved out;

	assert_non_null(s->obj);
	assert_int_equal(pmclog_resolver__resolve(kr->res, s->obj, s->objaddr, &out), 0);
	kr->symbol = out.symbol;
	return 0;
}

/*
 * -k FILE is the kernel, whatever its name: a System.map called
 * vmlinux-* was taken for an ELF vmlinux by the search of its directory
 * (for modules), failed as one, and its failure was then returned from
 * the cache for the System.map it is (found by fuzz_elf).  Another
 * System.map beside it is not used either.
 */
static void test_kernel_file(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_resolver_opts ro = { 0 };
	struct kernel_resolve kr = { 0 };
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_replay *rp = pmclog_replay__new(st);
	struct pmclog_record rec;
	char kdir[128], kfile[160], decoy[160];

	(void)state;
	snprintf(kdir, sizeof(kdir), "%s/kfile", dir);
	run("mkdir -p %s", kdir);
	snprintf(kfile, sizeof(kfile), "%s/vmlinux-6.1.map", kdir);
	snprintf(decoy, sizeof(decoy), "%s/System.map-decoy", kdir);
	write_sysmap(kfile, 0xffffffff81000000ULL, 200, "fn");
	write_sysmap(decoy, 0xffffffff81000000ULL, 200, "decoy");
	ro.kernel = kfile;
	kr.res = pmclog_resolver__new(st, &ro);

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff82000000ULL,
		  0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]");
	lb_pcsample(&b, 0, 1, 1, 0xffffffff81000085ULL, 0);
	lb_closelog(&b, 1, 0, 0);
	pmclog_reader__feed(r, b.data, b.len);
	pmclog_reader__feed_eof(r);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	assert_int_equal(pmclog_replay__run(rp, resolve_sample, &kr), 0);
	assert_non_null(kr.symbol);
	assert_string_equal(kr.symbol, "fn2");
	assert_string_equal(pmclog_resolver__file(pmclog_replay__object(rp, 0)), kfile);

	pmclog_reader__free(r);
	pmclog_replay__free(rp);
	pmclog_resolver__free(kr.res);
	pmclog_strings__free(st);
}

/* ------------------------------------------------------------------ */
/* A whole report, and gprof                                          */

#define BASE	0x555555554000ULL

struct report_run {
	struct pmclog_strings *st;
	struct pmclog_replay *rp;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
};

/* The log of @b replayed into a report, not finished (--event comes now). */
static void report_replay(struct report_run *rr, struct logbuf *b,
			  const struct pmclog_resolver_opts *ro,
			  const struct pmclog_report_opts *o)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;

	rr->st = pmclog_strings__new();
	rr->rp = pmclog_replay__new(rr->st);
	rr->res = pmclog_resolver__new(rr->st, ro);
	rr->rep = pmclog_report__new(rr->st, rr->rp, rr->res, o);
	pmclog_reader__feed(r, b->data, b->len);
	pmclog_reader__feed_eof(r);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(rr->rp, &rec), 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(rr->rp, pmclog_report__sample, rr->rep), 0);
}

static void report_run_ro(struct report_run *rr, struct logbuf *b,
			  const struct pmclog_resolver_opts *ro,
			  const struct pmclog_report_opts *o)
{
	report_replay(rr, b, ro, o);
	assert_int_equal(pmclog_report__finish(rr->rep), 0);
}

static void report_run_opts(struct report_run *rr, struct logbuf *b,
			    const char *root, const struct pmclog_report_opts *o)
{
	struct pmclog_resolver_opts ro = { .root = root };

	report_run_ro(rr, b, &ro, o);
}

static void report_run(struct report_run *rr, struct logbuf *b, const char *root)
{
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
	};

	report_run_opts(rr, b, root, &o);
}

static void report_free(struct report_run *rr)
{
	pmclog_report__free(rr->rep);
	pmclog_resolver__free(rr->res);
	pmclog_replay__free(rr->rp);
	pmclog_strings__free(rr->st);
}

/*
 * A log of the nopie program mapped whole at BASE: 30 alpha, then 10 beta.
 * Returns the offset of the first beta sample (its tstamp is the builder's
 * base plus that offset, INITIALIZE's the base).
 */
static size_t program_log(struct logbuf *b, const char *path, struct pmclog_elf *e)
{
	__u64 a = file_offset(e, nm_value("nopie", "alpha"));
	__u64 bt = file_offset(e, nm_value("nopie", "beta"));
	size_t first_beta;

	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000, "cpu-clock");
	lb_map_in(b, 3, BASE, BASE + 0x100000, 0, 0, path);
	lb_map_in(b, 3, BASE + 0x200000, BASE + 0x201000, 0, 0, "/no/such/lib.so");
	for (int i = 0; i < 30; i++)
		lb_pcsample(b, i % 2, 3, 3, BASE + a + (i % 3), 1);
	first_beta = b->len;
	for (int i = 0; i < 10; i++)
		lb_pcsample(b, 0, 3, 3, BASE + bt, 1);
	lb_pcsample(b, 0, 3, 3, BASE + 0x200010, 1);
	lb_pcsample(b, 0, 3, 3, 0x1234, 1);
	lb_closelog(b, 42, 0, 0);
	return first_beta;
}

/* --time: only the samples in the window, counted as left out otherwise. */
static void test_report_time(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
		.has_time = true,
	};
	struct report_run rr;
	size_t beta;

	(void)state;
	memset(&b, 0, sizeof(b));
	beta = program_log(&b, "/nopie", e);
	/* The ten beta samples, 32 bytes (and so 32 ns) apart. */
	o.time_from = beta;
	o.time_to = beta + 10 * sizeof(struct pmclog_pcsample);
	report_run_opts(&rr, &b, dir, &o);
	assert_int_equal(pmclog_report__nrows(rr.rep), 1);
	assert_string_equal(pmclog_report__row(rr.rep, 0)->symbol, "beta");
	assert_int_equal(pmclog_report__row(rr.rep, 0)->samples, 10);
	assert_int_equal(pmclog_report__stats(rr.rep)->filtered_out, 32);
	report_free(&rr);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

static void test_report_rows(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	struct report_run rr;
	const struct pmclog_row *row;
	char path[256];

	(void)state;
	memset(&b, 0, sizeof(b));
	snprintf(path, sizeof(path), "/nopie");
	program_log(&b, path, e);
	report_run(&rr, &b, dir);	/* -r dir: /nopie is dir/nopie */
	assert_int_equal(pmclog_report__nrows(rr.rep), 4);
	row = pmclog_report__row(rr.rep, 0);
	assert_int_equal(row->samples, 30);
	assert_string_equal(row->object, "nopie");
	assert_string_equal(row->symbol, "alpha");
	assert_false(row->kernel);
	row = pmclog_report__row(rr.rep, 1);
	assert_string_equal(row->symbol, "beta");
	/* Not found: path and offset; no map: [unknown] and the pc. */
	row = pmclog_report__row(rr.rep, 2);
	assert_string_equal(row->object, "[unknown]");
	assert_string_equal(row->symbol, "0x1234");
	assert_int_equal(row->objstate, PMCLOG_OBJST_UNTRIED);
	assert_null(row->path);
	assert_true(row->has_addr);
	assert_int_equal(row->addr, 0x1234);
	/* Not found is the row's state, not words in the object's name. */
	row = pmclog_report__row(rr.rep, 3);
	assert_string_equal(row->object, "lib.so");
	assert_string_equal(row->path, "/no/such/lib.so");
	assert_int_equal(row->objstate, PMCLOG_OBJST_NOTFOUND);
	assert_string_equal(row->symbol, "0x10");
	assert_true(row->has_addr);
	assert_int_equal(row->addr, 0x10);
	row = pmclog_report__row(rr.rep, 0);
	assert_int_equal(row->objstate, PMCLOG_OBJST_LOADED);
	assert_string_equal(row->path, "/nopie");
	assert_false(row->has_addr);
	assert_int_equal(row->pmcid, 1);
	assert_int_equal(pmclog_report__nprofiles(rr.rep), 1);
	assert_int_equal(pmclog_report__profile(rr.rep, 0)->nrows, 4);
	assert_string_equal(pmclog_report__profile(rr.rep, 0)->label, "cpu-clock");
	assert_int_equal(pmclog_report__stats(rr.rep)->resolved, 40);
	assert_int_equal(pmclog_report__stats(rr.rep)->no_object, 1);
	assert_int_equal(pmclog_report__stats(rr.rep)->no_function, 1);
	assert_int_equal(pmclog_report__stats(rr.rep)->objects_not_found, 1);
	assert_int_equal(pmclog_report__print(rr.rep, "yaml", stdout), -EINVAL);
	report_free(&rr);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* What rep prints in format (or the statistics, for NULL), as a string. */
static char *report_text(const struct pmclog_report *rep, const char *format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	if (format)
		assert_int_equal(pmclog_report__print(rep, format, f), 0);
	else
		pmclog_report__print_stats(rep, f, 0);
	fclose(f);
	return text;
}

/*
 * The kernel's throttles are counted in the header, the statistics and
 * the JSON: by reason, the time without samples that their UNTHROTTLEs
 * add up to, those still open at the end, and the CPUs a PMC did not
 * start on, apart.
 */
static void test_report_throttles(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	__u64 a = file_offset(e, nm_value("nopie", "alpha"));
	const struct pmclog_replay_stats *rs;
	struct report_run rr;
	char *text;

	(void)state;
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CYCLES, 0, 1000, "cycles");
	lb_map_in(&b, 3, BASE, BASE + 0x100000, 0, 0, "/nopie");
	for (int i = 0; i < 5; i++)
		lb_pcsample(&b, 1, 3, 3, BASE + a, 1);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 1, 1, PMCLOG_THROTTLE_RATE, 1, 0);
	lb_throttle(&b, PMCLOG_TYPE_UNTHROTTLE, 1, 1, PMCLOG_THROTTLE_RATE, 1, 3000000);
	/* A late drain: two throttles in one record, then one more, open. */
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 0, 1, PMCLOG_THROTTLE_RATE, 2, 0);
	lb_throttle(&b, PMCLOG_TYPE_UNTHROTTLE, 0, 1, PMCLOG_THROTTLE_RATE, 2, 8000000);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 0, 1, PMCLOG_THROTTLE_CPU_TIME, 1, 0);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 3, 1, PMCLOG_THROTTLE_BUSY, 1, 0);
	lb_throttle(&b, PMCLOG_TYPE_UNTHROTTLE, 3, 1, PMCLOG_THROTTLE_BUSY, 1, 90000000);
	lb_closelog(&b, 5, 0, 0);
	report_run(&rr, &b, dir);

	rs = pmclog_replay__stats(rr.rp);
	assert_int_equal(rs->throttles[PMCLOG_THROTTLE_RATE], 3);
	assert_int_equal(rs->unthrottles[PMCLOG_THROTTLE_RATE], 3);
	assert_int_equal(rs->stopped_ns[PMCLOG_THROTTLE_RATE], 11000000);
	assert_int_equal(rs->throttles[PMCLOG_THROTTLE_CPU_TIME], 1);
	assert_int_equal(rs->throttles[PMCLOG_THROTTLE_BUSY], 1);
	assert_int_equal(pmclog_report__stats(rr.rep)->samples, 5);

	text = report_text(rr.rep, "text");
	assert_non_null(strstr(text,
		"\n# throttled by the kernel: 4 times (3 interrupt rate, 1 CPU time), 11.000 ms without samples, 1 still throttled at the end; PMCs did not start on 1 CPU (1 counter busy, 0 counter absent)\n"));
	free(text);
	text = report_text(rr.rep, "json");
	assert_non_null(strstr(text,
		"\"throttles\": {\"total\": 4, \"rate\": 3, \"cpu_time\": 1, \"stopped_ns\": 11000000, \"open\": 1},"));
	assert_non_null(strstr(text,
		"\"cpus_skipped\": {\"total\": 1, \"busy\": 1, \"absent\": 0, \"stopped_ns\": 90000000},"));
	free(text);
	text = report_text(rr.rep, NULL);
	assert_non_null(strstr(text,
		"pmclog report: throttled by the kernel: 4 times (3 interrupt rate, 1 CPU time), 11.000 ms without samples, 1 still throttled at the end; PMCs did not start on 1 CPU"));
	assert_non_null(strstr(text, " THROTTLE 4 UNTHROTTLE 3"));
	free(text);
	report_free(&rr);

	/* No throttle: no header line, zeros in the statistics. */
	memset(&b, 0, sizeof(b));
	program_log(&b, "/nopie", e);
	report_run(&rr, &b, dir);
	text = report_text(rr.rep, "text");
	assert_null(strstr(text, "throttled"));
	free(text);
	text = report_text(rr.rep, NULL);
	assert_non_null(strstr(text,
		"pmclog report: throttled by the kernel: 0 times (0 interrupt rate, 0 CPU time), 0.000 ms without samples\n"));
	free(text);
	report_free(&rr);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/*
 * A descendant that a -d log could not follow is a loss the report
 * says, in the header, the statistics and the JSON; none, no word.
 */
static void test_report_unfollowed(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	struct report_run rr;
	size_t off;
	char *text;

	(void)state;
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, 3, BASE, BASE + 0x100000, 0, 0, "/nopie");
	lb_procfork(&b, 3, 4);
	off = lb_procfork(&b, 3, 5);
	lb_header(&b, off)->flags |= PMCLOG_HF_UNFOLLOWED;
	lb_pcsample(&b, 1, 4, 4, BASE + 0x10, 1);
	lb_closelog(&b, 1, 0, 0);
	report_run(&rr, &b, dir);
	assert_int_equal(pmclog_replay__stats(rr.rp)->procs_unfollowed, 1);
	text = report_text(rr.rep, "text");
	assert_non_null(strstr(text,
		"\n# 1 descendants not followed (table full): their samples are missing\n"));
	free(text);
	text = report_text(rr.rep, "json");
	assert_non_null(strstr(text, "\"processes_unfollowed\": 1,"));
	free(text);
	text = report_text(rr.rep, NULL);
	assert_non_null(strstr(text, "pmclog report: 1 descendants not followed"));
	free(text);
	report_free(&rr);

	memset(&b, 0, sizeof(b));
	program_log(&b, "/nopie", e);
	report_run(&rr, &b, dir);
	text = report_text(rr.rep, "text");
	assert_null(strstr(text, "not followed"));
	free(text);
	report_free(&rr);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/*
 * Paths in a log are opened under ROOT only as the kernel writes them:
 * absolute, without . or .. (which led out of ROOT), and not cut short
 * by the length of ROOT.
 */
static void test_report_odd_paths(void **state)
{
	static const char *const odd[] = {
		"/sub/../nopie", "/./nopie", "nopie", "/..",
	};
	static struct logbuf b;
	struct report_run rr;
	char longpath[4200];
	size_t n;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	lb_initialize(&b);
	lb_map_in(&b, 3, 0x10000, 0x20000, 0, 0, "/nopie");
	lb_pcsample(&b, 0, 3, 3, 0x10100, 1);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		lb_map_in(&b, 3, 0x100000 * (i + 1), 0x100000 * (i + 1) + 0x1000, 0, 0, odd[i]);
		lb_pcsample(&b, 0, 3, 3, 0x100000 * (i + 1) + 0x10, 1);
	}
	lb_map_in(&b, 3, 0x900000, 0x901000, 0, 0, longpath);
	lb_pcsample(&b, 0, 3, 3, 0x900010, 1);
	lb_closelog(&b, 6, 0, 0);
	report_run(&rr, &b, dir);
	n = pmclog_replay__nobjects(rr.rp);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		const struct pmclog_object *o = pmclog_replay__object(rr.rp, i);

		if (!strcmp(o->path, "/nopie")) {
			assert_int_equal(pmclog_resolver__state(o), PMCLOG_OBJST_LOADED);
			continue;
		}
		assert_int_equal(pmclog_resolver__state(o), PMCLOG_OBJST_NOTFOUND);
		assert_string_equal(pmclog_resolver__detail(o),
				    o->path == pmclog_strings__intern(rr.st, longpath) ?
				    "ROOT and the path are too long" :
				    "not a path as the kernel writes them (absolute, no . or ..): not looked for");
	}
	report_free(&rr);
}

/* fmt's output of rr in a malloc'd string. */
static char *printed(const struct report_run *rr, const char *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pmclog_report__print(rr->rep, fmt, f), 0);
	fclose(f);
	return buf;
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * Names from a log may hold any byte but NUL: a newline in one split the
 * row it named, and in the folded output a ';' added a frame, so that a
 * log could forge rows (found by fuzz_report, with an event name).  The
 * line formats escape them as pmclog dump does; JSON as JSON does.
 */
static void test_report_names_escaped(void **state)
{
	static struct logbuf b;
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_PID, PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 3,
	};
	struct report_run rr;
	char *out, *stats = NULL;
	size_t stats_len = 0;
	FILE *f;

	(void)state;
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, 0, 1000, "cpu\n-clock");
	lb_procexec(&b, 5, "/bin/a\nb;c");
	lb_map_in(&b, 5, 0x1000, 0x2000, 0, 0, "/no/such\n 99.00%      1  evil;lib.so");
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff82000000ULL,
		  0, 0, "[kernel]");
	lb_ksymbol(&b, 0xffffffff81000100ULL, 0x100, 1, "ks\\ym;\n\x7f");
	lb_pcsample(&b, 0, 5, 5, 0x1100, 1);
	lb_pcsample(&b, 0, 5, 5, 0xffffffff81000110ULL, 0);
	lb_closelog(&b, 2, 0, 0);
	report_run_opts(&rr, &b, NULL, &o);
	assert_int_equal(pmclog_report__nrows(rr.rep), 2);

	out = printed(&rr, "text");
	assert_int_equal(lines(out), 4 + 2);
	assert_non_null(strstr(out, "event 'cpu\\x0a-clock'"));
	assert_non_null(strstr(out, "5:a\\x0ab;c"));
	assert_non_null(strstr(out, "such\\x0a 99.00%"));
	assert_non_null(strstr(out, "ks\\x5cym;\\x0a\\x7f"));
	free(out);

	out = printed(&rr, "folded");
	assert_int_equal(lines(out), 2);
	assert_non_null(strstr(out, "a\\x0ab\\x3bc-5;such\\x0a 99.00%      1  evil\\x3blib.so;0x100 1\n"));
	assert_non_null(strstr(out, "a\\x0ab\\x3bc-5;[kernel];ks\\x5cym\\x3b\\x0a\\x7f 1\n"));
	free(out);

	/* Backslash as the text \x5c, control characters as JSON's \u00NN. */
	out = printed(&rr, "json");
	assert_non_null(strstr(out, "\"symbol\": \"ks\\\\x5cym;\\u000a\\u007f\""));
	free(out);

	f = open_memstream(&stats, &stats_len);
	pmclog_report__print_stats(rr.rep, f, 1);
	fclose(f);
	assert_non_null(strstr(stats, "event cpu\\x0a-clock\n"));
	assert_null(strstr(stats, "such\n"));
	free(stats);
	report_free(&rr);

	/*
	 * With a second event, its label is the first frame of its stacks,
	 * escaped as the others: still one line per stack.
	 */
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, 0, 1000, "cpu\n-clock");
	lb_pmcallocate(&b, 2, PMCLOG_EV_CPU_CLOCK, 0, 2000, "a;b\tc");
	lb_procexec(&b, 5, "/bin/a\nb;c");
	lb_map_in(&b, 5, 0x1000, 0x2000, 0, 0, "/no/such\n 99.00%      1  evil;lib.so");
	lb_pcsample_pmc(&b, 1, 0, 5, 5, 0x1100, 1);
	lb_pcsample_pmc(&b, 2, 0, 5, 5, 0x1100, 1);
	lb_closelog(&b, 2, 0, 0);
	report_run_opts(&rr, &b, NULL, &o);
	out = printed(&rr, "folded");
	assert_int_equal(lines(out), 2);
	assert_non_null(strstr(out, "cpu\\x0a-clock;a\\x0ab\\x3bc-5;such\\x0a 99.00%      1  evil\\x3blib.so;0x100 1\n"));
	assert_non_null(strstr(out, "\na\\x3bb\\x09c;a\\x0ab\\x3bc-5;such\\x0a 99.00%      1  evil\\x3blib.so;0x100 1\n"));
	free(out);
	out = printed(&rr, "text");
	assert_non_null(strstr(out, "\n# event 'a;b\\x09c' (PMC 2, every 2000 ns): 1 samples\n"));
	free(out);
	report_free(&rr);
}

/*
 * JSON is valid UTF-8 whatever bytes the names hold: a path with byte
 * 0xE9 (Latin-1), a truncated and an overlong sequence and control
 * characters; python3 parses it, and the bytes come back from the \xNN.
 * A valid UTF-8 name stays as it is.  (Before, the bytes went through
 * and python3 refused the text.)
 */
static void test_report_json_utf8(void **state)
{
	static struct logbuf b;
	static const char path[] = "/opt/caf\xe9/bad\xe2\x82\x01\xc0\xaf\ttab\nnl\"q\\b/lib.so";
	struct report_run rr;
	char *out, *py, want[256];

	(void)state;
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000, "cpu-clock");
	lb_procexec(&b, 5, "/bin/\xff\xfe");
	lb_map_in(&b, 5, 0x1000, 0x2000, 0, 0, path);
	lb_map_in(&b, 5, 0x3000, 0x4000, 0, 0, "/usr/lib/\xc3\xa9t\xc3\xa9.so");
	lb_pcsample(&b, 0, 5, 5, 0x1100, 1);
	lb_pcsample(&b, 0, 5, 5, 0x3100, 1);
	lb_pcsample(&b, 0, 5, 5, 0x3100, 1);
	lb_closelog(&b, 3, 0, 0);
	{
		struct pmclog_report_opts o = {
			.keys = { PMCLOG_SORT_PID, PMCLOG_SORT_DSO, PMCLOG_SORT_SYM },
			.nkeys = 3, .full_paths = true,
		};

		report_run_opts(&rr, &b, NULL, &o);
	}
	out = printed(&rr, "json");
	py = python_json(out,
		"rows = d['profiles'][0]['rows']\n"
		"w = sys.stdout.buffer.write\n"
		"w(raw(rows[1]['path']) + b'|' + raw(rows[1]['object']) + b'|')\n"
		"w(('%s %s %s %s %s %d' % (rows[0]['object'], rows[1]['found'], rows[1]['symbol'],\n"
		"  rows[1]['address'], raw(rows[0]['command']).hex(), d['version'])).encode())\n");
	if (!py)
		fail_msg("python3 refused the JSON:\n%s", out);
	snprintf(want, sizeof(want), "%s|%s|/usr/lib/\xc3\xa9t\xc3\xa9.so False None 0x100 2f62696e2ffffe 2",
		 path, path);
	assert_string_equal(py, want);
	/* The text and the valid name as they are in the JSON text. */
	assert_non_null(strstr(out, "\"object\": \"/usr/lib/\xc3\xa9t\xc3\xa9.so\""));
	assert_non_null(strstr(out, "caf\\\\xe9/bad\\\\xe2\\\\x82\\u0001\\\\xc0\\\\xaf\\u0009tab\\u000anl\\\"q\\\\x5cb/"));
	free(py);
	free(out);
	report_free(&rr);
}

/*
 * Two cpu-clock PMCs at different periods (as `record -e cpu-clock -c
 * 1000000 -e cpu-clock -c 3000000` makes them) and a third event, with
 * samples of each in nopie: 24 alpha + 6 beta for PMC 1, 2 alpha + 8 beta
 * for PMC 2, 5 beta for PMC 3 (cycles).  Returns the log's length.
 */
static void events_log(struct logbuf *b, struct pmclog_elf *e)
{
	__u64 a = file_offset(e, nm_value("nopie", "alpha"));
	__u64 bt = file_offset(e, nm_value("nopie", "beta"));

	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, 0, 1000000, "cpu-clock");
	lb_pmcallocate(b, 2, PMCLOG_EV_CPU_CLOCK, 0, 3000000, "cpu-clock");
	lb_pmcallocate(b, 3, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_FREQ, 4000, "cycles:u");
	lb_map_in(b, 3, BASE, BASE + 0x100000, 0, 0, "/nopie");
	for (int i = 0; i < 30; i++)
		lb_pcsample_pmc(b, 1, 0, 3, 3, BASE + (i < 24 ? a : bt), 1);
	for (int i = 0; i < 10; i++)
		lb_pcsample_pmc(b, 2, 1, 3, 3, BASE + (i < 2 ? a : bt), 1);
	for (int i = 0; i < 5; i++)
		lb_pcsample_pmc(b, 3, 1, 3, 3, BASE + bt, 1);
	lb_throttle(b, PMCLOG_TYPE_THROTTLE, 1, 3, PMCLOG_THROTTLE_RATE, 2, 0);
	lb_throttle(b, PMCLOG_TYPE_UNTHROTTLE, 1, 3, PMCLOG_THROTTLE_RATE, 2, 5000000);
	lb_closelog(b, 45, 0, 0);
}

static const struct pmclog_row *profile_row(const struct report_run *rr, size_t p,
					    const char *symbol)
{
	const struct pmclog_profile *prof = pmclog_report__profile(rr->rep, p);

	for (size_t i = 0; i < prof->nrows; i++) {
		const struct pmclog_row *r = pmclog_report__row(rr->rep, prof->first_row + i);

		if (!strcmp(r->symbol, symbol))
			return r;
	}
	fail_msg("profile %zu has no row for %s", p, symbol);
	return NULL;
}

/*
 * One profile per PMC, headed by its event: each its own samples, rows,
 * percents and totals, in every format; -g a directory per event;
 * pmclog_report__select() keeps one, by id, name or label.  (Before, the
 * samples of every PMC went into one profile named after the last
 * PMCALLOCATE.)
 */
static void test_report_events(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	const struct pmclog_profile *p;
	struct report_run rr;
	char *out, *py, gdir[128], cmd[512], line[512];
	int pct[2] = { -1, -1 };
	FILE *f;

	(void)state;
	memset(&b, 0, sizeof(b));
	events_log(&b, e);
	report_run(&rr, &b, dir);
	assert_int_equal(pmclog_replay__npmcs(rr.rp), 3);
	assert_int_equal(pmclog_replay__pmc(rr.rp, 1)->period, 3000000);
	assert_int_equal(pmclog_report__nprofiles(rr.rep), 3);
	p = pmclog_report__profile(rr.rep, 0);
	assert_int_equal(p->pmcid, 1);
	assert_string_equal(p->label, "cpu-clock#1");
	assert_int_equal(p->pmc->period, 1000000);
	assert_int_equal(p->stats.samples, 30);
	assert_int_equal(p->stats.resolved, 30);
	assert_int_equal(p->nrows, 2);
	assert_int_equal(profile_row(&rr, 0, "alpha")->samples, 24);
	assert_int_equal(profile_row(&rr, 0, "beta")->samples, 6);
	assert_string_equal(pmclog_report__row(rr.rep, p->first_row)->symbol, "alpha");
	p = pmclog_report__profile(rr.rep, 1);
	assert_string_equal(p->label, "cpu-clock#2");
	assert_int_equal(p->stats.samples, 10);
	assert_int_equal(profile_row(&rr, 1, "alpha")->samples, 2);
	assert_int_equal(profile_row(&rr, 1, "beta")->samples, 8);
	assert_int_equal(profile_row(&rr, 1, "beta")->pmcid, 2);
	assert_string_equal(pmclog_report__row(rr.rep, p->first_row)->symbol, "beta");
	p = pmclog_report__profile(rr.rep, 2);
	assert_string_equal(p->label, "cycles:u");
	assert_int_equal(p->stats.samples, 5);
	assert_int_equal(p->nrows, 1);
	assert_null(pmclog_report__profile(rr.rep, 3));
	assert_int_equal(pmclog_report__nrows(rr.rep), 5);
	assert_int_equal(pmclog_report__stats(rr.rep)->samples, 45);
	assert_int_equal(pmclog_report__stats(rr.rep)->resolved, 45);
	assert_int_equal(pmclog_report__stats(rr.rep)->objects, 1);

	out = printed(&rr, "text");
	assert_non_null(strstr(out, "# pmclog report: 45 samples of 3 events, sorted by dso,sym\n"));
	assert_non_null(strstr(out, "\n# event 'cpu-clock#1' (PMC 1, every 1000000 ns): 30 samples\n"));
	assert_non_null(strstr(out, "\n# event 'cpu-clock#2' (PMC 2, every 3000000 ns): 10 samples\n"));
	assert_non_null(strstr(out,
		"\n# event 'cycles:u' (PMC 3, 4000 Hz): 5 samples\n# throttled by the kernel: 2 times (2 interrupt rate, 0 CPU time), 5.000 ms without samples\n"));
	assert_non_null(strstr(out, "   80.00%       24  nopie   [.] alpha\n"));
	assert_non_null(strstr(out, "   80.00%        8  nopie   [.] beta\n"));
	assert_non_null(strstr(out, "  100.00%        5  nopie   [.] beta\n"));
	/* The throttles are PMC 3's, not PMC 1's. */
	assert_null(strstr(out, "30 samples\n# throttled"));
	free(out);

	out = printed(&rr, "folded");
	assert_string_equal(out,
		"cpu-clock#1;nopie;alpha 24\ncpu-clock#1;nopie;beta 6\n"
		"cpu-clock#2;nopie;beta 8\ncpu-clock#2;nopie;alpha 2\n"
		"cycles:u;nopie;beta 5\n");
	free(out);

	out = printed(&rr, "json");
	py = python_json(out,
		"for p in d['profiles']:\n"
		"    print(p['pmc'], p['event'], p['label'], p['type'], p['period'], p['freq'],\n"
		"          p['stats']['samples'], p['stats']['throttles']['total'],\n"
		"          ' '.join('%s:%d:%.1f' % (r['symbol'], r['samples'], r['percent']) for r in p['rows']))\n"
		"print(d['stats']['samples'], 'event' in d['stats'], d['stats']['throttles']['total'])\n");
	if (!py)
		fail_msg("python3 refused the JSON:\n%s", out);
	assert_string_equal(py,
		"1 cpu-clock cpu-clock#1 cpu-clock 1000000 False 30 0 alpha:24:80.0 beta:6:20.0\n"
		"2 cpu-clock cpu-clock#2 cpu-clock 3000000 False 10 0 beta:8:80.0 alpha:2:20.0\n"
		"3 cycles:u cycles:u cycles 4000 True 5 2 beta:5:100.0\n"
		"45 False 2\n");
	free(py);
	free(out);

	/* The statistics: a line per event, then the totals. */
	out = report_text(rr.rep, NULL);
	assert_non_null(strstr(out, ", 3 events\n"));
	assert_non_null(strstr(out, "pmclog report: event 'cpu-clock#2' (PMC 2, every 3000000 ns): 10 samples: 10 resolved,"));
	assert_non_null(strstr(out, "pmclog report: in all, 45 samples: 45 resolved,"));
	free(out);

	/* -g: DIR/EVENT/OBJECT.gmon, each with its event's samples. */
	snprintf(gdir, sizeof(gdir), "%s/gmon-events", dir);
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, NULL), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "gprof -b -p %s/nopie %s/cpu-clock#%d/nopie.gmon",
			 dir, gdir, i + 1);
		f = popen(cmd, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			float v;
			char name[64];

			if (sscanf(line, "%f %*f %*f %63s", &v, name) == 2 && !strcmp(name, "alpha"))
				pct[i] = (int)(v + 0.5f);
		}
		assert_int_equal(pclose(f), 0);
	}
	assert_int_equal(pct[0], 80);
	assert_int_equal(pct[1], 20);
	snprintf(cmd, sizeof(cmd), "test -f %s/cycles:u/nopie.gmon", gdir);
	assert_int_equal(system(cmd), 0);
	report_free(&rr);

	/* One event: by id, by a label, by a name that is one PMC's. */
	{
		static const struct { const char *spec; __u32 pmcid; __u64 samples; } sel[] = {
			{ "2", 2, 10 }, { "cpu-clock#1", 1, 30 }, { "cycles:u", 3, 5 },
		};

		for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++) {
			struct pmclog_report_opts o = {
				.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
			};
			struct pmclog_resolver_opts ro = { .root = dir };

			report_replay(&rr, &b, &ro, &o);
			if (i == 0) {
				assert_int_equal(pmclog_report__select(rr.rep, "cpu-clock"), -ENOTUNIQ);
				assert_int_equal(pmclog_report__select(rr.rep, "instructions"), -ENOENT);
				assert_int_equal(pmclog_report__select(rr.rep, "7"), -ENOENT);
			}
			assert_int_equal(pmclog_report__select(rr.rep, sel[i].spec), 0);
			assert_int_equal(pmclog_report__finish(rr.rep), 0);
			assert_int_equal(pmclog_report__nprofiles(rr.rep), 1);
			p = pmclog_report__profile(rr.rep, 0);
			assert_int_equal(p->pmcid, sel[i].pmcid);
			assert_int_equal(pmclog_report__stats(rr.rep)->samples, sel[i].samples);
			assert_int_equal(pmclog_report__stats(rr.rep)->other_events, 45 - sel[i].samples);
			/* One event: the table and folded stacks as for a one-PMC log. */
			out = printed(&rr, "folded");
			assert_null(strstr(out, "cpu-clock"));
			assert_null(strstr(out, "cycles"));
			free(out);
			out = printed(&rr, "text");
			assert_true(!strncmp(out, "# pmclog report: ", 17));
			assert_non_null(strstr(out, " samples of event '"));
			free(out);
			report_free(&rr);
		}
	}
	/*
	 * One event, and --pid of a process with no samples: every sample is
	 * left out by it, those of the other events too, which are not
	 * "of other events" (the script, which keeps --pid, prints none).
	 */
	{
		static const __u32 nobody = 99999;
		struct pmclog_report_opts o = {
			.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
			.pids = &nobody, .npids = 1,
		};
		struct pmclog_resolver_opts ro = { .root = dir };

		report_replay(&rr, &b, &ro, &o);
		assert_int_equal(pmclog_report__select(rr.rep, "2"), 0);
		assert_int_equal(pmclog_report__finish(rr.rep), 0);
		assert_int_equal(pmclog_report__stats(rr.rep)->samples, 0);
		assert_int_equal(pmclog_report__stats(rr.rep)->other_events, 0);
		assert_int_equal(pmclog_report__stats(rr.rep)->filtered_out, 45);
		report_free(&rr);
	}
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/*
 * Labels never empty: a PMCALLOCATE without a name (no module writes
 * one; fuzz_report did) and samples of a PMC none announced are pmcID,
 * the unannounced after the announced; every sample is in a profile.
 */
static void test_report_event_labels(void **state)
{
	static struct logbuf b;
	struct report_run rr;
	char *out;

	(void)state;
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_pmcallocate(&b, 3, PMCLOG_EV_CYCLES, 0, 100000, "");
	lb_map_in(&b, 3, 0x10000, 0x20000, 0, 0, "/no/such/prog");
	lb_pcsample_pmc(&b, 5, 0, 3, 3, 0x10100, 1);
	lb_pcsample_pmc(&b, 3, 0, 3, 3, 0x10100, 1);
	lb_pcsample_pmc(&b, 5, 0, 3, 3, 0x10100, 1);
	lb_closelog(&b, 3, 0, 0);
	report_run(&rr, &b, NULL);
	assert_int_equal(pmclog_report__nprofiles(rr.rep), 2);
	assert_string_equal(pmclog_report__profile(rr.rep, 0)->label, "pmc3");
	assert_int_equal(pmclog_report__profile(rr.rep, 0)->stats.samples, 1);
	assert_string_equal(pmclog_report__profile(rr.rep, 1)->label, "pmc5");
	assert_null(pmclog_report__profile(rr.rep, 1)->pmc);
	assert_int_equal(pmclog_report__profile(rr.rep, 1)->stats.samples, 2);
	out = printed(&rr, "text");
	assert_non_null(strstr(out, "\n# event 'pmc3' (PMC 3, every 100000 events): 1 samples\n"));
	assert_non_null(strstr(out, "\n# event 'pmc5' (PMC 5, no PMCALLOCATE in the log): 2 samples\n"));
	free(out);
	report_free(&rr);
}

/*
 * "[not found]" is nobody's name: an object whose file is missing is
 * named alone in every format; the table says so in a column after the
 * names, JSON in "found" (before, " [not found]" was glued to the name
 * in all three).
 */
static void test_report_not_found(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	struct report_run rr;
	char *out;

	(void)state;
	memset(&b, 0, sizeof(b));
	program_log(&b, "/nopie", e);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff82000000ULL,
		  0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]");
	report_run(&rr, &b, dir);
	for (const char *const *f = pmclog_report__formats(); *f; f++) {
		out = printed(&rr, *f);
		assert_null(strstr(out, "[not found]"));
		if (!strcmp(*f, "text"))
			assert_non_null(strstr(out, "  lib.so     [.] 0x10  (object not found)\n"));
		else if (!strcmp(*f, "folded"))
			assert_non_null(strstr(out, "\nlib.so;0x10 1\n"));
		else
			assert_non_null(strstr(out,
				"\"object\": \"lib.so\", \"path\": \"/no/such/lib.so\", \"symbol\": null, \"address\": \"0x10\", \"found\": false, \"mode\": \"user\""));
		free(out);
	}
	out = printed(&rr, "json");
	assert_non_null(strstr(out,
		"\"object\": \"nopie\", \"path\": \"/nopie\", \"symbol\": \"alpha\", \"address\": null, \"found\": true,"));
	assert_non_null(strstr(out,
		"\"object\": \"[unknown]\", \"path\": null, \"symbol\": null, \"address\": \"0x1234\", \"found\": null,"));
	free(out);
	report_free(&rr);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* The profile gprof prints from the files -g writes. */
static void test_gprof(void **state)
{
	static struct logbuf b;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "nopie");
	char path[128], gdir[128], map[128], line[512];
	struct report_run rr;
	int alpha_pct = -1, beta_pct = -1;
	FILE *p;

	(void)state;
	memset(&b, 0, sizeof(b));
	snprintf(path, sizeof(path), "%s/nopie", dir);
	program_log(&b, path, e);
	report_run(&rr, &b, NULL);
	snprintf(gdir, sizeof(gdir), "%s/gmon", dir);
	snprintf(map, sizeof(map), "%s/gmon.map", dir);
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, map), 0);
	/* A directory per event, named by it, as pmcstat -g makes them. */
	snprintf(line, sizeof(line), "gprof -b -p %s %s/cpu-clock/nopie.gmon", path, gdir);
	p = popen(line, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		float pct;
		char name[64];

		if (sscanf(line, "%f %*f %*f %63s", &pct, name) != 2)
			continue;
		if (!strcmp(name, "alpha"))
			alpha_pct = (int)(pct + 0.5f);
		else if (!strcmp(name, "beta"))
			beta_pct = (int)(pct + 0.5f);
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(alpha_pct, 75);
	assert_int_equal(beta_pct, 25);
	p = fopen(map, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	fclose(p);
	assert_non_null(strstr(line, "/gmon/cpu-clock/nopie.gmon "));
	assert_non_null(strstr(line, path));
	report_free(&rr);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* The histogram header of a gmon file: low_pc, high_pc, hist_size. */
static void gmon_header(const char *path, __u64 *low, __u64 *high, __u32 *nbins)
{
	unsigned char h[61];
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_int_equal(fread(h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
	memcpy(low, h + 21, 8);
	memcpy(high, h + 29, 8);
	memcpy(nbins, h + 37, 4);
}

/*
 * Samples at the top of the address space: the last bin would end at
 * 2^64, and high_pc wrapped to 0 (caught by fuzz_report's check of the
 * gmon files, on an input made for it).  That bin is left out, and said so.
 */
static void test_gprof_top(void **state)
{
	static struct logbuf b;
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
	};
	struct pmclog_resolver_opts ro = { 0 };
	char kernel[128], gdir[128], path[160];
	struct report_run rr;
	__u64 low, high;
	__u32 nbins;

	(void)state;
	snprintf(kernel, sizeof(kernel), "%s/nopie", dir);
	ro.kernel = kernel;	/* an ELF file: taken for the vmlinux */
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff81001000ULL,
		  0xfffffffffffff000ULL, 0, "[kernel]");
	lb_pcsample(&b, 0, 1, 1, 0xffffffff81000000ULL, 0);	/* 0xfffffffffffff000 */
	lb_pcsample(&b, 0, 1, 1, 0xffffffff81000fffULL, 0);	/* 0xffffffffffffffff */
	lb_closelog(&b, 2, 0, 0);
	report_run_ro(&rr, &b, &ro, &o);
	snprintf(gdir, sizeof(gdir), "%s/gmon-top", dir);
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, NULL), 0);
	snprintf(path, sizeof(path), "%s/pmc1/kernel.gmon", gdir);	/* no PMCALLOCATE */
	gmon_header(path, &low, &high, &nbins);
	assert_int_equal(low, 0xfffffffffffff000ULL);
	assert_int_equal(high, 0xfffffffffffffffeULL);
	assert_int_equal(nbins, 0x7ff);
	report_free(&rr);
}

/*
 * The kernel's profile is kernel.gmon; so was that of a program called
 * kernel, which overwrote it: names were told apart by the last part of
 * the objects' paths, not by the names written (caught by fuzz_report's
 * check that -M names each file once, on an input made for it).
 */
static void test_gprof_names(void **state)
{
	static struct logbuf b;
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
	};
	struct pmclog_resolver_opts ro = { .root = dir, .kernel = "/nopie" };
	char gdir[128], map[160], line[512];
	struct report_run rr;
	int kernel = 0, prog = 0;
	FILE *f;

	(void)state;
	run("mkdir -p %s/sub && cp %s/nopie %s/sub/kernel", dir, dir, dir);
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff81100000ULL,
		  0x400000, 0, "[kernel]");
	lb_map_in(&b, 3, 0x400000, 0x500000, 0, 0, "/sub/kernel");
	lb_pcsample(&b, 0, 3, 3, 0xffffffff81001010ULL, 0);
	lb_pcsample(&b, 0, 3, 3, 0x401010, 1);
	lb_closelog(&b, 2, 0, 0);
	report_run_ro(&rr, &b, &ro, &o);
	snprintf(gdir, sizeof(gdir), "%s/gmon-names", dir);
	snprintf(map, sizeof(map), "%s/gmon-names.map", dir);
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, map), 0);
	f = fopen(map, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		kernel += strstr(line, "/kernel.gmon ") != NULL;
		prog += strstr(line, "/kernel~1.gmon ") && strstr(line, "/sub/kernel\n");
	}
	fclose(f);
	assert_int_equal(kernel, 1);
	assert_int_equal(prog, 1);
	report_free(&rr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_kmod),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_symtab_sizes),
		cmocka_unit_test(test_sysmap),
		cmocka_unit_test(test_sysmap_long_line),
		cmocka_unit_test(test_kernel_file),
		cmocka_unit_test(test_report_rows),
		cmocka_unit_test(test_report_time),
		cmocka_unit_test(test_report_throttles),
		cmocka_unit_test(test_report_unfollowed),
		cmocka_unit_test(test_report_names_escaped),
		cmocka_unit_test(test_report_odd_paths),
		cmocka_unit_test(test_report_json_utf8),
		cmocka_unit_test(test_report_events),
		cmocka_unit_test(test_report_event_labels),
		cmocka_unit_test(test_report_not_found),
		cmocka_unit_test(test_gprof),
		cmocka_unit_test(test_gprof_top),
		cmocka_unit_test(test_gprof_names),
	};

	return cmocka_run_group_tests_name("symtab", tests, setup, teardown);
}
