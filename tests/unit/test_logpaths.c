// SPDX-License-Identifier: GPL-2.0
/*
 * What a log names, as root's report meets it (issue #42).  Any local
 * user can choose the paths of a log recorded system-wide, and put there
 * a FIFO, a device node, a symbolic link, a 64 GiB sparse file, or give
 * the file a name with terminal escapes and a newline in it:
 *
 *   - each such object is refused without being opened (a process
 *     blocked opening the FIFO to write is never let through) or read,
 *     quickly, said once on stderr; the report is made of the rest;
 *   - source lines come from the file the symbols were read from, not
 *     from what its path names by the time a line is asked;
 *   - the names reach the messages and the -M map escaped: no escape
 *     byte, and a line per message, a line per gmon file;
 *   - the gprof tree is made 0700 and its files 0600 whatever the umask,
 *     and nothing is written through a folder found in it that is a
 *     symbolic link or another user's (uid 65534: as root only).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

#define NOBODY	65534

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN	1
#endif
#endif

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

static void expect_refused(const struct report_run *rr, const char *path, const char *why)
{
	const struct pmclog_object *o = object_named(rr, path);
	char line[512];
	const char *at;

	assert_int_equal(pmclog_resolver__state(o), PMCLOG_OBJST_NOTFOUND);
	if (!strstr(pmclog_resolver__detail(o), why))
		fail_msg("%s: detail '%s', expected '%s'", path, pmclog_resolver__detail(o), why);
	/* Said on stderr, once. */
	snprintf(line, sizeof(line), "%s: %s", path, why);
	at = strstr(said, line);
	if (!at)
		fail_msg("no '%s' in what was said: %s", line, said);
	assert_null(strstr(at + 1, line));
}

/* ------------------------------------------------------------------ */
/* A process that opens a FIFO to write: let through only by a reader */

/* The writer, killed at the end should a failed test leave it waiting. */
static pid_t writer_pid;

static pid_t fifo_writer(const char *fifo)
{
	char path[64], line[256];
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(open(fifo, O_WRONLY) >= 0 ? 0 : 1);
	writer_pid = pid;
	/* Until it is blocked in that open(): its syscall, not "running". */
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		bool blocked = f && fgets(line, sizeof(line), f) &&
			       strtol(line, NULL, 10) == SYS_openat;

		if (f)
			fclose(f);
		if (blocked)
			return pid;
		usleep(10000);
	}
	fail_msg("the FIFO's writer never blocked in openat()");
	return pid;
}

/*
 * Whether the writer is still waiting, given time to leave had a reader
 * let it through; then it is let through and reaped.
 */
static bool fifo_writer_waited(pid_t pid, const char *fifo)
{
	bool waiting = true;
	int fd;

	for (int i = 0; i < 50 && waiting; i++) {
		waiting = waitpid(pid, NULL, WNOHANG) == 0;
		if (waiting)
			usleep(10000);
	}

	if (waiting) {
		fd = open(fifo, O_RDONLY | O_NONBLOCK);
		assert_true(fd >= 0);
		assert_int_equal(waitpid(pid, NULL, 0), pid);
		close(fd);
	}
	writer_pid = 0;
	return waiting;
}

/* ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A FIFO (a writer waiting on it), /dev/null, a symbolic link to a real
 * program and a 64 GiB sparse file, mapped beside the program itself:
 * the four refused in well under a second each, never opened, each said
 * once; the program's samples named.  (Before, the FIFO and the device
 * were opened before being looked at, the link followed, and the sparse
 * file read into memory to its 64 GiB end.)
 */
static void test_refused(void **state)
{
	char fifo[128], link[128], sparse[128], prog[128];
	const char *const paths[] = { fifo, "/dev/null", link, sparse, prog };
	struct rlimit was;
	struct report_run rr;
	static struct logbuf b;
	pid_t writer;
	double t;
	int fd;

	(void)state;
	listen();
	in_dir(fifo, sizeof(fifo), "fifo");
	in_dir(link, sizeof(link), "link");
	in_dir(sparse, sizeof(sparse), "sparse");
	in_dir(prog, sizeof(prog), "prog");
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink(prog, link), 0);
	fd = open(sparse, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64LL << 30), 0);
	close(fd);
	log_paths(&b, paths, 5, 5);
	writer = fifo_writer(fifo);

	/* What reading the 64 GiB would do, bounded (ASan's shadow is not). */
	getrlimit(RLIMIT_DATA, &was);
#ifndef UNDER_ASAN
	{
		struct rlimit cap = { 8ULL << 30, 8ULL << 30 };

		if (was.rlim_max < cap.rlim_max)
			cap = was;
		setrlimit(RLIMIT_DATA, &cap);
	}
#endif
	alarm(120);
	t = now();
	report_of(&rr, &b, NULL);
	t = now() - t;
	alarm(0);
	setrlimit(RLIMIT_DATA, &was);

	assert_true(fifo_writer_waited(writer, fifo));
	if (t > 10)
		fail_msg("the report took %.1f s", t);
	expect_refused(&rr, fifo, "not a regular file (a device, a FIFO or a socket): not opened");
	expect_refused(&rr, "/dev/null", "not a regular file (a device, a FIFO or a socket): not opened");
	expect_refused(&rr, link, "a symbolic link, which pmclog does not follow");
	expect_refused(&rr, sparse, "larger than 2 GiB: not a program, not read");
	/* The report of the rest. */
	assert_int_equal(pmclog_resolver__state(object_named(&rr, prog)), PMCLOG_OBJST_LOADED);
	/* The program's 2 samples in alpha; the others' at their 2 addresses each. */
	assert_int_equal(pmclog_report__nrows(rr.rep), 1 + 4 * 2);
	for (size_t i = 0; i < 1 + 4 * 2; i++) {
		const struct pmclog_row *row = pmclog_report__row(rr.rep, i);

		if (!strcmp(row->path, prog)) {
			assert_string_equal(row->symbol, "alpha");
			assert_int_equal(row->samples, 2);
		} else {
			assert_int_equal(strncmp(row->symbol, "0x", 2), 0);
			assert_int_equal(row->samples, 1);
		}
	}
	report_free(&rr);
	stop_listening();
}

/*
 * Source lines are read lazily, long after the symbols: a path replaced
 * by a FIFO in between is not opened (its writer still waits), and says
 * so; the file that is still the one read gives its lines.  (Before, the
 * path was opened again, whatever it named.)
 */
static void test_srcline_same_file(void **state)
{
	static const struct pmclog_report_opts sym = {
		.keys = { PMCLOG_SORT_SYM }, .nkeys = 1,
	};
	char victim[128], old[128], renew[128], prog[128];
	const char *paths[1];
	struct report_run rr;
	static struct logbuf b;
	const char *line;
	pid_t writer;

	(void)state;
	listen();
	in_dir(prog, sizeof(prog), "prog");
	in_dir(victim, sizeof(victim), "victim");
	in_dir(old, sizeof(old), "victim.old");
	in_dir(renew, sizeof(renew), "victim.new");
	copy_file(prog, victim);

	/* Unchanged: the line addr2line gives. */
	paths[0] = prog;
	log_paths(&b, paths, 1, 1);
	report_of(&rr, &b, &sym);
	line = pmclog_resolver__srcline(rr.res, object_named(&rr, prog), alpha_off);
	assert_non_null(line);
	assert_int_equal(strncmp(line, "t.c:", 4), 0);
	report_free(&rr);

	/* Replaced by a FIFO after the symbols were read. */
	paths[0] = victim;
	log_paths(&b, paths, 1, 1);
	report_of(&rr, &b, &sym);
	assert_int_equal(pmclog_resolver__state(object_named(&rr, victim)), PMCLOG_OBJST_LOADED);
	assert_int_equal(rename(victim, old), 0);
	assert_int_equal(mkfifo(victim, 0644), 0);
	writer = fifo_writer(victim);
	alarm(60);
	assert_null(pmclog_resolver__srcline(rr.res, object_named(&rr, victim), alpha_off));
	alarm(0);
	assert_true(fifo_writer_waited(writer, victim));
	assert_non_null(strstr(said, "victim: no longer the file its symbols were read from"));
	report_free(&rr);

	/*
	 * Replaced by another copy of the same program: another file all the
	 * same (made before the first goes, so that it is another inode).
	 */
	said[0] = '\0';
	unlink(victim);
	copy_file(prog, victim);
	report_of(&rr, &b, &sym);
	copy_file(prog, renew);
	assert_int_equal(rename(renew, victim), 0);
	assert_null(pmclog_resolver__srcline(rr.res, object_named(&rr, victim), alpha_off));
	assert_non_null(strstr(said, "victim: no longer the file its symbols were read from (another file now)"));
	report_free(&rr);
	stop_listening();
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
 * Names with terminal escapes and a newline: a symbolic link (refused),
 * a copy of the program (read: a gmon file), another copy of another
 * build by the log's build-id (not used).  What is said and what -M
 * writes holds no escape byte and no line of the name's making.
 */
static void test_escaped(void **state)
{
	static const char name_link[] = "evil\x1b[2J\nlink";
	static const char name_prog[] = "evil\x1b]0;owned\x07\nprog";
	static const char name_other[] = "evil\x1b[1m\nother";
	char link[128], prog[128], other[128], src[128], gdir[128], map[160];
	char want[1024], gmon[256];
	const char *const paths[] = { link, prog, other };
	struct report_run rr;
	static struct logbuf b;
	struct stat st;
	char *text;

	(void)state;
	listen();
	in_dir(src, sizeof(src), "prog");
	in_dir(link, sizeof(link), name_link);
	in_dir(prog, sizeof(prog), name_prog);
	in_dir(other, sizeof(other), name_other);
	assert_int_equal(symlink(src, link), 0);
	copy_file(src, prog);
	copy_file(src, other);
	log_paths(&b, paths, 3, 2);
	report_of(&rr, &b, NULL);
	assert_int_equal(pmclog_resolver__state(object_named(&rr, prog)), PMCLOG_OBJST_LOADED);

	in_dir(gdir, sizeof(gdir), "gmon-esc");
	snprintf(map, sizeof(map), "%s.map", gdir);
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, map), 0);

	/* Two messages, two lines, escaped. */
	assert_null(strchr(said, '\x1b'));
	assert_int_equal(count_of(said, '\n'), 2);
	snprintf(want, sizeof(want), "%s/evil\\x1b[2J\\x0alink: a symbolic link", dir);
	assert_non_null(strstr(said, want));
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

/* The mode bits of path, which must be there. */
static unsigned int mode_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		fail_msg("%s: %s", path, strerror(errno));
	return st.st_mode & 07777;
}

/* Whether folder path holds nothing. */
static bool empty_folder(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return !n;
}

/*
 * -g DIR -M MAP with a umask of 022: DIR and its event folders 0700, the
 * files 0600, the map 0600; written again over the files of a first run.
 * A folder of the tree that is a symbolic link, or another user's, is
 * not written through.  (Before: 0755 and 0644, and both written through.)
 */
static void test_gmon_tree(void **state)
{
	char prog[128], gdir[128], map[160], path[256], away[128];
	const char *const paths[] = { prog };
	struct report_run rr;
	static struct logbuf b;
	mode_t umask_was;

	(void)state;
	listen();
	in_dir(prog, sizeof(prog), "prog");
	log_paths(&b, paths, 1, 1);
	report_of(&rr, &b, NULL);

	umask_was = umask(022);
	in_dir(gdir, sizeof(gdir), "gmon-tree");
	snprintf(map, sizeof(map), "%s/map", dir);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, map), 0);
		assert_int_equal(mode_of(gdir), 0700);
		snprintf(path, sizeof(path), "%s/cpu-clock", gdir);
		assert_int_equal(mode_of(path), 0700);
		snprintf(path, sizeof(path), "%s/cpu-clock/prog.gmon", gdir);
		assert_int_equal(mode_of(path), 0600);
		assert_int_equal(mode_of(map), 0600);
	}

	/* The event's folder, a symbolic link to a folder elsewhere. */
	in_dir(away, sizeof(away), "away");
	assert_int_equal(mkdir(away, 0755), 0);
	in_dir(gdir, sizeof(gdir), "gmon-link");
	assert_int_equal(mkdir(gdir, 0700), 0);
	snprintf(path, sizeof(path), "%s/cpu-clock", gdir);
	assert_int_equal(symlink(away, path), 0);
	said[0] = '\0';
	assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, NULL), -ELOOP);
	assert_true(empty_folder(away));
	assert_non_null(strstr(said, "cpu-clock/prog.gmon: "));

	/* The event's folder, another user's. */
	if (geteuid() == 0) {
		in_dir(gdir, sizeof(gdir), "gmon-nobody");
		assert_int_equal(mkdir(gdir, 0700), 0);
		snprintf(path, sizeof(path), "%s/cpu-clock", gdir);
		assert_int_equal(mkdir(path, 0755), 0);
		assert_int_equal(chown(path, NOBODY, NOBODY), 0);
		assert_int_equal(pmclog_report__write_gmon(rr.rep, gdir, NULL), -EPERM);
		assert_true(empty_folder(path));
	} else {
		printf("# skip: a folder of uid %d in the tree needs root\n", NOBODY);
	}
	umask(umask_was);
	report_free(&rr);
	stop_listening();
}

static int finish(void **state)
{
	if (writer_pid) {
		kill(writer_pid, SIGKILL);
		waitpid(writer_pid, NULL, 0);
	}
	return teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_srcline_same_file),
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_gmon_tree),
	};

	return cmocka_run_group_tests_name("logpaths", tests, setup, finish);
}
