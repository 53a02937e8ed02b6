// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog script (pmclog_script.h): perf script's text of a log of a real
 * program (stack_log.h: two events, kernel, module and user frames, a
 * library dlclosed and opened again): the exact lines of a sample and of
 * the events; the fields of -F; and the text as FlameGraph's
 * stackcollapse-perf.pl parses it (its rules, written out below), whose
 * collapsed stacks must be --format folded's.
 */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "pmclog_callgraph.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_script.h"
#include "stack_log.h"

static int setup(void **state)
{
	(void)state;
	return stack_log_setup("/tmp/pmclog-script-XXXXXX");
}

static const struct pmclog_report_opts dso_sym = {
	.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2, .demangle = true,
};

/* The script of b with opts, and (folded non-NULL) its folded stacks of event. */
static char *script_of(const struct logbuf *b, const struct pmclog_script_opts *so,
		       const char *event, char **folded)
{
	struct pmclog_resolver_opts ro = { 0 };
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_replay *rp = pmclog_replay__new(st);
	struct pmclog_resolver *res = pmclog_resolver__new(st, &ro);
	struct pmclog_report *rep = pmclog_report__new(st, rp, res, &dso_sym);
	struct pmclog_callgraph *cg = pmclog_callgraph__new(rep);
	struct pmclog_script *sc = pmclog_script__new(rep, so);
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	assert_non_null(sc);
	assert_non_null(cg);
	assert_int_equal(pmclog_reader__feed(r, b->data, b->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	pmclog_reader__free(r);
	pmclog_replay__set_record_fn(rp, pmclog_script__record, sc);
	/* The script's samples, and the callgraph's through the report. */
	assert_int_equal(pmclog_replay__run(rp, pmclog_script__sample, sc), 0);
	f = open_memstream(&text, &size);
	assert_non_null(f);
	assert_int_equal(pmclog_script__print(sc, f), 0);
	fclose(f);
	if (folded) {
		/* A second replay, for folded (a replay runs once). */
		struct pmclog_replay *rp2 = pmclog_replay__new(st);
		struct pmclog_report *rep2 = pmclog_report__new(st, rp2, res, &dso_sym);
		struct pmclog_callgraph *cg2 = pmclog_callgraph__new(rep2);
		size_t fsize = 0;

		r = pmclog_reader__new(NULL);
		pmclog_reader__feed(r, b->data, b->len);
		pmclog_reader__feed_eof(r);
		while (pmclog_reader__next(r, &rec) == 1)
			assert_int_equal(pmclog_replay__add(rp2, &rec), 0);
		pmclog_reader__free(r);
		assert_int_equal(pmclog_replay__run(rp2, pmclog_callgraph__report_sample, cg2), 0);
		assert_int_equal(pmclog_report__select(rep2, event), 0);
		assert_int_equal(pmclog_report__finish(rep2), 0);
		assert_int_equal(pmclog_callgraph__finish(cg2), 0);
		*folded = NULL;
		f = open_memstream(folded, &fsize);
		pmclog_callgraph__print_folded(cg2, f);
		fclose(f);
		pmclog_callgraph__free(cg2);
		pmclog_report__free(rep2);
		pmclog_replay__free(rp2);
	}
	pmclog_script__free(sc);
	pmclog_callgraph__free(cg);
	pmclog_report__free(rep);
	pmclog_resolver__free(res);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
	return text;
}

/* The first paragraph of text that starts with prefix (up to its blank line). */
static char *paragraph(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix), *end;

	if (!p)
		fail_msg("no '%s' in:\n%s", prefix, text);
	end = strstr(p, "\n\n");
	return strndup(p, end ? (size_t)(end - p) + 2 : strlen(p));
}

/*
 * A sample with a stack: comm pid/tid [cpu] time: period event:, then
 * one frame a line, leaf first, addresses as perf prints them (the file's
 * for user code, return addresses as they are), then a blank line.
 */
static void test_sample_lines(void **state)
{
	static struct logbuf b;
	__u64 hot = nm_value("prog", "hot"), pa = nm_value("prog", "path_a");
	__u64 mn = nm_value("prog", "main"), lf = nm_value("libcg.so", "_Z6lib_fni");
	char *text, *got, want[2048];
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b);
	text = script_of(&b, NULL, NULL, NULL);
	/* The first sample: LB_TS_BASE + its offset, 1.000xxx s. */
	snprintf(want, sizeof(want),
		 "prog     3/3     [000]     1.%06llu:    1000000 cpu-clock: \n"
		 "\t%16llx hot+0x4 (%s/prog)\n"
		 "\t%16llx path_a+0x9 (%s/prog)\n"
		 "\t%16llx main+0x9 (%s/prog)\n\n",
		 (unsigned long long)(strstr(text, "prog     3/3     [000]     1.") ?
		 strtoull(strstr(text, "prog     3/3     [000]     1.") + 29, NULL, 10) : 0),
		 (unsigned long long)hot + 4, dir, (unsigned long long)pa + 9, dir,
		 (unsigned long long)mn + 9, dir);
	got = paragraph(text, "prog     3/3     [000]");
	assert_string_equal(got, want);
	free(got);
	/* Kernel then module frames, the kernel's at their addresses. */
	assert_non_null(strstr(text, "\t" "ffffffff81000210 ksys_read+0x10 ([kernel.kallsyms])\n"
				    "\t" "ffffffff81000120 do_syscall_64+0x20 ([kernel.kallsyms])\n"
				    "\t" "ffffffff81000040 entry_SYSCALL_64+0x40 ([kernel.kallsyms])\n"));
	assert_non_null(strstr(text, "\tffffffffc0000018 busy_fn+0x18 ([pm_test])\n"
				     "\tffffffff81000320 ksys_write+0x20 ([kernel.kallsyms])\n"));
	/* The C++ function demangled, before and after the dlclose; PMC 2's name. */
	snprintf(want, sizeof(want), "\t%16llx lib_fn(int)+0x4 (%s/libcg.so)\n",
		 (unsigned long long)lf + 4, dir);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, ":     100000    cycles: \n"));	/* %*s of the longest */
	/* The sample without a stack: one line, its PC itself. */
	snprintf(want, sizeof(want), " cpu-clock:  %16llx hot+0x4 (%s/prog)\n",
		 (unsigned long long)hot + 4, dir);
	assert_non_null(strstr(text, want));
	/* No events without --show-*-events. */
	assert_null(strstr(text, "PERF_RECORD"));
	free(text);
}

/* The maps, the modules and the processes as events between the samples. */
static void test_events(void **state)
{
	static struct logbuf b;
	struct pmclog_script_opts so = { .sz = sizeof(so), .mmap_events = true,
					 .task_events = true };
	char *text, want[512], *mmap, *unmap, *remap, *first_lib;
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b);
	b.len -= sizeof(struct pmclog_closelog);
	lb_procfork(&b, 3, 9);
	lb_procexit(&b, 9, 0);
	lb_map_out(&b, PMCLOG_PID_KERNEL, MBASE, MBASE + 0x1000);
	lb_closelog(&b, 51, 0, 0);
	text = script_of(&b, &so, NULL, NULL);
	assert_non_null(strstr(text, "PERF_RECORD_MMAP2 -1/0: [0xffffffff81000000(0x1000000) @ "
				     "0xffffffff81000000 00:00 0 0]: r-xp [kernel]\n"));
	assert_non_null(strstr(text, "PERF_RECORD_MMAP2 -1/0: [0xffffffffc0000000(0x1000) @ 0 "
				     "00:00 0 0]: r-xp [pm_test]\n"));
	assert_non_null(strstr(text, "prog     3/3     [000]     1."));
	assert_non_null(strstr(text, ": PERF_RECORD_COMM exec: prog:3/3\n"));
	snprintf(want, sizeof(want), ": PERF_RECORD_MMAP2 3/3: [0x7f0000000000(0x10000) @ 0 "
		 "00:00 0 0]: r-xp %s/libcg.so\n", dir);
	first_lib = strstr(text, want);
	assert_non_null(first_lib);
	/* dlclose and dlopen again: between the samples before and after. */
	unmap = strstr(text, ": PMCLOG_RECORD_MAP_OUT 3/3: [0x7f0000000000(0x10000)]\n");
	assert_non_null(unmap);
	remap = strstr(unmap, want);
	assert_non_null(remap);
	mmap = strstr(text, "lib_fn(int)");
	assert_true(mmap > first_lib && mmap < unmap);
	assert_non_null(strstr(remap, "lib_fn(int)"));
	/* A child that did not exec has its parent's name; its parent on EXIT. */
	assert_non_null(strstr(text, "prog     9/9     [000]     1."));
	assert_non_null(strstr(text, ": PERF_RECORD_FORK(9:9):(3:3)\n"));
	assert_non_null(strstr(text, ": PERF_RECORD_EXIT(9:9):(3:3)\n"));
	assert_non_null(strstr(text, ": PMCLOG_RECORD_MAP_OUT -1/0: [0xffffffffc0000000(0x1000)]\n"));
	free(text);
}

/* -F: perf's fields, in perf's formats, alone. */
static void test_fields(void **state)
{
	static struct logbuf b;
	struct pmclog_script_opts so = { .sz = sizeof(so) };
	char *text, want[256];
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b);
	so.fields = pmclog_script__field("tid") | pmclog_script__field("sym");
	assert_int_equal(pmclog_script__field("nosuch"), 0);
	text = script_of(&b, &so, NULL, NULL);
	snprintf(want, sizeof(want), "    3 \n\t hot\n\t path_a\n\t main\n\n");
	assert_int_equal(strncmp(text, want, strlen(want)), 0);
	free(text);
	so.fields = pmclog_script__field("comm") | pmclog_script__field("time");
	text = script_of(&b, &so, NULL, NULL);
	assert_int_equal(strncmp(text, "            prog     1.", 23), 0);
	assert_null(strstr(text, "hot"));
	free(text);
}

/* ------------------------------------------------------------------ */
/* stackcollapse-perf.pl                                              */

struct collapsed {
	char *lines[128];
	long long counts[128];
	size_t n;
};

static void add_stack(struct collapsed *c, const char *stack)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->lines[i], stack)) {
			c->counts[i]++;
			return;
		}
	assert_true(c->n < 128);
	c->lines[c->n] = strdup(stack);
	c->counts[c->n++] = 1;
}

/*
 * FlameGraph's stackcollapse-perf.pl (its parsing, as of 2023) with
 * --kernel, on text, into c: an event line matches
 * /^(\S.+?)\s+(\d+)\/ *(\d+)*\s+/ (without the space: comm, pid, tid),
 * a frame line /^\s*(\w+)\s*(.+) \((\S*)\)/ (pc, function, module), the
 * function less /\+0x[\da-f]+$/; "[unknown]" is the module's basename in
 * brackets; a module in brackets (not [unknown]) or a vmlinux marks a
 * kernel function "_[k]"; a blank line ends the sample, whose stack is
 * comm then the frames outermost first.  Lines that are neither (the
 * events' "PERF_RECORD" lines) it skips.
 */
static void stackcollapse(const char *text, struct collapsed *c)
{
	regex_t ev, fr;
	regmatch_t m[4];
	char *copy = strdup(text), *stack[64], comm[256] = "";
	size_t depth = 0;
	bool in_sample = false;

	assert_int_equal(regcomp(&ev, "^([^[:space:]].+[^[:space:]])[[:space:]]+([0-9]+)/*([0-9]+)*[[:space:]]+",
				 REG_EXTENDED), 0);
	assert_int_equal(regcomp(&fr, "^[[:space:]]*([[:alnum:]_]+)[[:space:]]*(.+) \\(([^[:space:]]*)\\)$",
				 REG_EXTENDED), 0);
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line) {
			if (in_sample && depth) {
				char buf[4096];
				size_t len;

				len = (size_t)snprintf(buf, sizeof(buf), "%s", comm);
				for (size_t i = depth; i-- > 0;)
					len += (size_t)snprintf(buf + len, sizeof(buf) - len, ";%s", stack[i]);
				add_stack(c, buf);
			}
			for (size_t i = 0; i < depth; i++)
				free(stack[i]);
			depth = 0;
			in_sample = false;
			continue;
		}
		/* As the script: an event line starts a sample (lost if no blank line ends it). */
		if (!regexec(&ev, line, 4, m, 0)) {
			/* perl's non-greedy (\S.+?) before the pid: the comm. */
			char *sp = line;

			while (*sp && *sp == ' ')
				sp++;
			snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(sp, " "), sp);
			for (size_t i = 0; i < depth; i++)
				free(stack[i]);
			depth = 0;
			in_sample = true;
			continue;
		}
		if (in_sample && !regexec(&fr, line, 4, m, 0)) {
			char func[1100], mod[1024], *plus;

			snprintf(func, sizeof(func), "%.*s", (int)(m[2].rm_eo - m[2].rm_so),
				 line + m[2].rm_so);
			snprintf(mod, sizeof(mod), "%.*s", (int)(m[3].rm_eo - m[3].rm_so),
				 line + m[3].rm_so);
			plus = strstr(func, "+0x");
			if (plus && strspn(plus + 3, "0123456789abcdef") == strlen(plus + 3))
				*plus = '\0';
			if (!strcmp(func, "[unknown]")) {
				const char *base = strrchr(mod, '/');

				snprintf(func, sizeof(func), "[%s]",
					 strcmp(mod, "[unknown]") ? (base ? base + 1 : mod) : "unknown");
			} else if ((mod[0] == '[' && strcmp(mod, "[unknown]")) ||
				   (strlen(mod) >= 7 && !strcmp(mod + strlen(mod) - 7, "vmlinux"))) {
				strcat(func, "_[k]");
			}
			assert_true(depth < 64);
			stack[depth++] = strdup(func);
		}
	}
	for (size_t i = 0; i < depth; i++)
		free(stack[i]);
	regfree(&ev);
	regfree(&fr);
	free(copy);
}

/* c as folded lines, sorted by name as folded prints them. */
static char *collapsed_text(struct collapsed *c)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	for (size_t i = 0; i < c->n; i++)
		for (size_t j = i + 1; j < c->n; j++)
			if (strcmp(c->lines[j], c->lines[i]) < 0) {
				char *l = c->lines[i];
				long long n = c->counts[i];

				c->lines[i] = c->lines[j];
				c->counts[i] = c->counts[j];
				c->lines[j] = l;
				c->counts[j] = n;
			}
	for (size_t i = 0; i < c->n; i++) {
		fprintf(f, "%s %lld\n", c->lines[i], c->counts[i]);
		free(c->lines[i]);
	}
	fclose(f);
	return text;
}

/*
 * stackcollapse-perf.pl's stacks of the script, with the events shown
 * too (it skips them), are folded's, event by event (-F without event,
 * with --pid's filter there too).
 */
static void test_stackcollapse(void **state)
{
	static struct logbuf b, one;
	struct pmclog_script_opts so = { .sz = sizeof(so), .mmap_events = true,
					 .task_events = true };
	struct collapsed c = { 0 };
	char *text, *folded, *got;
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b);
	/* The cpu-clock samples only: a copy of the log without PMC 2's. */
	memset(&one, 0, sizeof(one));
	for (size_t off = 0; off < b.len; off += lb_header(&b, off)->length)
		if (lb_header(&b, off)->pmcid != 2 ||
		    lb_header(&b, off)->type == PMCLOG_TYPE_PMCALLOCATE) {
			memcpy(one.data + one.len, b.data + off, lb_header(&b, off)->length);
			one.len += lb_header(&b, off)->length;
		}
	text = script_of(&one, &so, "cpu-clock", &folded);
	stackcollapse(text, &c);
	got = collapsed_text(&c);
	assert_string_equal(got, folded);
	assert_non_null(strstr(got, "prog;main;path_a;hot 20\n"));
	free(got);
	free(folded);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_lines),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_stackcollapse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
