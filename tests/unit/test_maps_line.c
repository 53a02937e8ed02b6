// SPDX-License-Identifier: GPL-2.0
/*
 * Lines of /proc/PID/maps (lib/pmclog_maps_line.c), as the BPF
 * collector's START snapshot reads them: whole lines or none, the
 * fields strictly, a path with its newlines given back.  The owner of
 * a mapping names its file, and the snapshot runs as root: a line must
 * never yield a mapping its owner wrote into the path.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pmclog_internal.h"

/* A line as show_map_vma() pads it, up to the path. */
#define PREFIX	"7f0000000000-7f0000002000 r-xp 00001000 fe:01 1234567                    "

/* The whole text's lines, each through pmclog_maps_line__next(). */
struct got {
	int ret[8];
	struct pmclog_maps_line l[8];
	char *path[8];		/* copies: the buffer is reused */
	size_t n;
};

static void read_all(const char *text, size_t len, struct got *g)
{
	FILE *f = fmemopen((void *)text, len, "r");
	char *buf = NULL;
	size_t cap = 0;
	int ret;

	assert_non_null(f);
	memset(g, 0, sizeof(*g));
	do {
		assert_true(g->n < 8);
		ret = pmclog_maps_line__next(f, &buf, &cap, &g->l[g->n]);
		g->ret[g->n] = ret;
		if (ret == 1)
			g->path[g->n] = strdup(g->l[g->n].path);
		g->n++;
	} while (ret);
	free(buf);
	fclose(f);
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->path[i]);
}

/* Parse one line (a copy: the parser writes into it). */
static int parse(const char *line, struct pmclog_maps_line *l, char *copy, size_t size)
{
	size_t len = strlen(line);

	assert_true(len < size);
	memcpy(copy, line, len + 1);
	return pmclog_maps_line__parse(copy, len, l);
}

static void test_fields(void **state)
{
	struct pmclog_maps_line l;
	char buf[256];

	(void)state;
	assert_int_equal(parse(PREFIX "/usr/lib/x86_64-linux-gnu/libc.so.6\n", &l, buf,
			       sizeof(buf)), 0);
	assert_int_equal(l.start, 0x7f0000000000ULL);
	assert_int_equal(l.end, 0x7f0000002000ULL);
	assert_string_equal(l.perms, "r-xp");
	assert_int_equal(l.offset, 0x1000);
	assert_int_equal(l.major, 0xfe);
	assert_int_equal(l.minor, 1);
	assert_int_equal(l.inode, 1234567);
	assert_string_equal(l.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");

	/* An anonymous mapping: nothing after the inode's space. */
	assert_int_equal(parse("7ffd1000-7ffd3000 rwxp 00000000 00:00 0 \n", &l, buf,
			       sizeof(buf)), 0);
	assert_string_equal(l.path, "");
	assert_int_equal(parse("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
			       "                  [vsyscall]\n", &l, buf, sizeof(buf)), 0);
	assert_string_equal(l.path, "[vsyscall]");
	/* What follows the padding is the path, its own spaces too. */
	assert_int_equal(parse(PREFIX "/tmp/a b  (deleted)\n", &l, buf, sizeof(buf)), 0);
	assert_string_equal(l.path, "/tmp/a b  (deleted)");
}

/* The kernel escapes only '\n' (as "\012"): other backslashes are the name's. */
static void test_newline_unescaped(void **state)
{
	struct pmclog_maps_line l;
	char buf[256];

	(void)state;
	assert_int_equal(parse(PREFIX "/tmp/a\\012b\\012\\012c\\01\\0123\\134\\\n", &l, buf,
			       sizeof(buf)), 0);
	assert_string_equal(l.path, "/tmp/a\nb\n\nc\\01\n3\\134\\");
}

static void test_not_lines(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		PREFIX "/bin/cut-short",				/* no newline */
		"7f00-7e00 r-xp 00000000 fe:01 1 /bin/x\n",		/* end before start */
		"7f00-7f00 r-xp 00000000 fe:01 1 /bin/x\n",		/* empty */
		"7f00 7f10 r-xp 00000000 fe:01 1 /bin/x\n",
		"7f00-7f10 r-xpx 00000000 fe:01 1 /bin/x\n",		/* 5 perms */
		"7f00-7f10 r-x 00000000 fe:01 1 /bin/x\n",
		"7f00-7f10 rxwp 00000000 fe:01 1 /bin/x\n",
		"7f00-7f10 r-xq 00000000 fe:01 1 /bin/x\n",
		"7f00-7f10  r-xp 00000000 fe:01 1 /bin/x\n",
		"-7f10 r-xp 00000000 fe:01 1 /bin/x\n",
		"0x7f00-7f10 r-xp 00000000 fe:01 1 /bin/x\n",
		"7f0g-7f10 r-xp 00000000 fe:01 1 /bin/x\n",
		"17f0000000000000a-17f0000000000000b r-xp 0 fe:01 1 /bin/x\n",	/* 17 digits */
		"7f00-7f10 r-xp 00000000 fe01 1 /bin/x\n",
		"7f00-7f10 r-xp 00000000 fe:01 x /bin/x\n",
		"7f00-7f10 r-xp 00000000 fe:01 18446744073709551616 /bin/x\n",	/* 2^64 */
		"7f00-7f10 r-xp 00000000 fe:01 1\n",			/* no space after inode */
		" 7f00-7f10 r-xp 00000000 fe:01 1 /bin/x\n",
	};
	struct pmclog_maps_line l;
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i]);

		memcpy(buf, bad[i], len + 1);
		if (pmclog_maps_line__parse(buf, len, &l) != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
	/* A NUL inside: not the kernel's. */
	memcpy(buf, "7f00-7f10 r-xp 00000000 fe:01 1 /bin/x\0y\n", 42);
	assert_int_equal(pmclog_maps_line__parse(buf, 41, &l), -EINVAL);
}

/*
 * A line of total bytes whose path has newlines ("\012": 4 bytes each)
 * and, 4223 bytes in, a directory named like a line of maps: a fgets()
 * into PATH_MAX + 128 bytes stops there and reads the rest as a mapping
 * of /etc/shadow (of /etc/shadow/y... when the line goes on).  text gets
 * the line, then two more, the last cut short; want the path as the
 * file has it.
 */
#define SPLIT	(PATH_MAX + 128 - 1)
#define FORGED	"1000-2000 r-xp 00000000 00:00 0 /etc/shadow"

static size_t long_line(char *text, char *want, size_t total)
{
	size_t len, wlen;

	len = sprintf(text, PREFIX "/home/user/");
	wlen = sprintf(want, "/home/user/");
	while (len < SPLIT - 1) {
		if (SPLIT - 1 - len >= 4) {
			memcpy(text + len, "\\012", 4);
			len += 4;
			want[wlen++] = '\n';
		} else {
			text[len++] = 'x';
			want[wlen++] = 'x';
		}
	}
	text[len++] = want[wlen++] = '/';
	assert_int_equal(len, SPLIT);
	len += sprintf(text + len, FORGED);
	wlen += sprintf(want + wlen, FORGED);
	/* Names of 200 bytes, as far as total. */
	for (size_t i = 0; len < total - 1; i++)
		text[len++] = want[wlen++] = i % 201 ? 'y' : '/';
	text[len++] = '\n';
	want[wlen] = '\0';
	assert_int_equal(len, total);
	len += sprintf(text + len, "7f0000100000-7f0000101000 r-xp 00000000 fe:01 7 %s\n",
		       "/usr/lib/libm.so.6");
	len += sprintf(text + len, "7f0000200000-7f0000201000 r-xp 00000000 fe:01 8 %s",
		       "/usr/lib/libcut.so");
	return len;
}

static void long_line_not_split(size_t total)
{
	static char text[8192], want[8192];
	size_t len = long_line(text, want, total);
	struct got g;

	read_all(text, len, &g);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.ret[0], 1);
	assert_int_equal(g.l[0].start, 0x7f0000000000ULL);
	assert_int_equal(g.l[0].end, 0x7f0000002000ULL);
	assert_string_equal(g.path[0], want);
	assert_int_equal(g.ret[1], 1);
	assert_int_equal(g.l[1].start, 0x7f0000100000ULL);
	assert_string_equal(g.path[1], "/usr/lib/libm.so.6");
	assert_int_equal(g.ret[2], -EINVAL);	/* no newline: cut short */
	assert_int_equal(g.ret[3], 0);
	got_free(&g);
}

/* One mapping comes of it, with the path as the file has it. */
static void test_long_line_not_split(void **state)
{
	(void)state;
	long_line_not_split(5000);
	long_line_not_split(SPLIT + strlen(FORGED) + 1);
}

/* A bad line is passed over, and the next read on. */
static void test_bad_line_passed_over(void **state)
{
	static const char text[] = "garbage\n" PREFIX "/bin/true\n";
	struct got g;

	(void)state;
	read_all(text, sizeof(text) - 1, &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.ret[0], -EINVAL);
	assert_int_equal(g.ret[1], 1);
	assert_string_equal(g.path[1], "/bin/true");
	assert_int_equal(g.ret[2], 0);
	got_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_newline_unescaped),
		cmocka_unit_test(test_not_lines),
		cmocka_unit_test(test_long_line_not_split),
		cmocka_unit_test(test_bad_line_passed_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
