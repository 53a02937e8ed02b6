// SPDX-License-Identifier: GPL-2.0
/*
 * What a log names, as root's report meets it (issue #42).  Any local
 * user can choose the paths of a log recorded system-wide, and give the
 * file a name with terminal escapes and a newline in it: the names reach
 * the messages and the -M map escaped, no escape byte, and a line per
 * message, a line per gmon file.
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "log_builder.h"
#include "print_capture.h"
#include "pmclog_internal.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_symtab.h"

static const char source[] =
	"__attribute__((noinline)) int alpha(int x) { int i; for (i = 0; i < x; i++) __asm__ volatile(\"\"); return i; }\n"
	"int main(int argc, char **argv) { (void)argv; return alpha(argc); }\n";

/* The file offset of alpha in prog: where the log's samples are. */
static __u64 alpha_off;

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

static const char *in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

static int setup(void **state)
{
	struct pmclog_strings *st;
	struct pmclog_elf *e = NULL;
	char path[128], err[256];
	__u64 a;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmclog-logpaths-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("t.c", source);
	run("cd %s && cc -O1 -g -fno-pie -no-pie -Wl,--build-id=sha1 -o prog t.c", dir);
	/* alpha's vaddr, through prog's segments, to the offset a MAP_IN gives. */
	a = nm_value("prog", "alpha");
	st = pmclog_strings__new();
	if (!st || pmclog_elf__load(in_dir(path, sizeof(path), "prog"), st, &e, err, sizeof(err)))
		return -1;
	for (size_t i = 0; i < e->nsegs; i++)
		if (a >= e->segs[i].vaddr && a - e->segs[i].vaddr < e->segs[i].filesz)
			alpha_off = a - e->segs[i].vaddr + e->segs[i].offset;
	pmclog_elf__free(e);
	pmclog_strings__free(st);
	return alpha_off ? 0 : -1;
}

/* What the library says, into said[] (print_capture.h); the old callback back. */
static pmclog_print_fn_t old_print;

static void listen(void)
{
	said[0] = '\0';
	old_print = pmclog_set_print(print_capture);
}

static void stop_listening(void)
{
	pmclog_set_print(old_print);
}

/* ------------------------------------------------------------------ */
/* A report of a log that maps each of paths                          */

#define BASE	0x10000000ULL
#define SPAN	0x1000000ULL

struct report_run {
	struct pmclog_strings *st;
	struct pmclog_replay *rp;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
};

/*
 * paths[i] mapped at BASE + i * SPAN, 2 samples at its alpha; the log's
 * build-id of paths[other] is one no file has (n: none).
 */
static void log_paths(struct logbuf *b, const char *const *paths, size_t n, size_t other)
{
	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000, "cpu-clock");
	for (size_t i = 0; i < n; i++) {
		__u64 at = BASE + i * SPAN;

		lb_map_in(b, 3, at, at + 0x100000, 0, 0, paths[i]);
		if (i == other) {
			size_t off = lb_buildid(b, 3, at, PMCLOG_BUILD_ID_MAX, 0);

			memset(((struct pmclog_buildid *)(b->data + off))->build_id, 0x33,
			       PMCLOG_BUILD_ID_MAX);
		}
		lb_pcsample(b, 0, 3, 3, at + alpha_off, 1);
		lb_pcsample(b, 1, 3, 3, at + alpha_off + 1, 1);
	}
	lb_closelog(b, 2 * n, 0, 0);
}

static void report_of(struct report_run *rr, const struct logbuf *b,
		      const struct pmclog_report_opts *o)
{
	static const struct pmclog_report_opts dso_sym = {
		.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
	};
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;

	rr->st = pmclog_strings__new();
	rr->rp = pmclog_replay__new(rr->st);
	rr->res = pmclog_resolver__new(rr->st, NULL);
	rr->rep = pmclog_report__new(rr->st, rr->rp, rr->res, o ? o : &dso_sym);
	assert_non_null(rr->rep);
	pmclog_reader__feed(r, b->data, b->len);
	pmclog_reader__feed_eof(r);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(rr->rp, &rec), 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(rr->rp, pmclog_report__sample, rr->rep), 0);
	assert_int_equal(pmclog_report__finish(rr->rep), 0);
}

static void report_free(struct report_run *rr)
{
	pmclog_report__free(rr->rep);
	pmclog_resolver__free(rr->res);
	pmclog_replay__free(rr->rp);
	pmclog_strings__free(rr->st);
}

static struct pmclog_object *object_named(const struct report_run *rr, const char *path)
{
	for (size_t i = 0; i < pmclog_replay__nobjects(rr->rp); i++) {
		struct pmclog_object *o = pmclog_replay__object(rr->rp, i);

		if (!strcmp(o->path, path))
			return o;
	}
	fail_msg("no object %s", path);
	return NULL;
}

/* The bytes of file, NUL-terminated, malloc'd. */
static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m = open_memstream(&text, &len);
	int c;

	assert_non_null(f);
	assert_non_null(m);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return text;
}

static size_t count_of(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/*
 * Names with terminal escapes and a newline: a copy of the program (read:
 * a gmon file), another copy of another build by the log's build-id (not
 * used).  What is said and what -M writes holds no escape byte and no
 * line of the name's making.  (Before, both went out as they were.)
 */
static void test_escaped(void **state)
{
	static const char name_prog[] = "evil\x1b]0;owned\x07\nprog";
	static const char name_other[] = "evil\x1b[1m\nother";
	char prog[128], other[128], src[128], gdir[128], map[160];
	char want[1024], gmon[256];
	const char *const paths[] = { prog, other };
	struct report_run rr;
	static struct logbuf b;
	struct stat st;
	char *text;

	(void)state;
	listen();
	in_dir(src, sizeof(src), "prog");
	in_dir(prog, sizeof(prog), name_prog);
	in_dir(other, sizeof(other), name_other);
	copy_file(src, prog);
	copy_file(src, other);
	log_paths(&b, paths, 2, 1);
	report_of(&rr, &b, NULL);
	assert_int_equal(pmclog_resolver__state(object_named(&rr, prog)), PMCLOG_OBJST_LOADED);

	in_dir(gdir, sizeof(gdir), "gmon-esc");
	snprintf(map, sizeof(map), "%s.map", gdir);
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, map), 0);

	/* One message, one line, escaped. */
	assert_null(strchr(said, '\x1b'));
	assert_int_equal(count_of(said, '\n'), 1);
	snprintf(want, sizeof(want), "%s/evil\\x1b[1m\\x0aother: not the build the log mapped", dir);
	assert_non_null(strstr(said, want));

	/* One gmon file, one line, its name escaped as the object's. */
	text = slurp(map);
	snprintf(want, sizeof(want),
		 "%s/cpu-clock/evil\\x1b]0;owned\\x07\\x0aprog.gmon %s/evil\\x1b]0;owned\\x07\\x0aprog\n",
		 gdir, dir);
	assert_string_equal(text, want);
	free(text);
	/* The file itself has the object's name. */
	snprintf(gmon, sizeof(gmon), "%s/cpu-clock/%s.gmon", gdir, name_prog);
	assert_int_equal(stat(gmon, &st), 0);
	report_free(&rr);
	stop_listening();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaped),
	};

	return cmocka_run_group_tests_name("logpaths", tests, setup, teardown);
}
