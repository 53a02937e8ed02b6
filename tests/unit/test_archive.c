// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog_archive (`pmclog record --archive DIR`) on real mappings of this
 * process: the file behind a mapping is copied as it was mapped, even
 * once its path names another file; each build once, under its path and
 * under .build-id, with the source's mode; a mapping already gone is
 * never looked for by its path; paths that would leave DIR, and the
 * kernel's maps, are not copied.
 *
 * And what another local user (uid 65534) can plant while root records
 * with --archive: a folder or a link inside DIR, a link where a mapped
 * file was, a FIFO, a huge sparse file, a file claiming another build's
 * id.  Those cases need root (map_files, chown) and are skipped without.
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
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "log_builder.h"
#include "print_capture.h"
#include "pmclog_archive.h"
#include "pmclog_internal.h"
#include "pmclog_reader.h"

#define NOBODY	65534

static char tmp[64];

static int setup(void **state)
{
	strcpy(tmp, "/tmp/pmclog-archive-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	return print_capture_start(state);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd);
}

/* The whole of path, malloc()ed, its size in *n. */
static unsigned char *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *p;

	if (fd < 0)
		return NULL;
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*n = (size_t)st.st_size;
	return p;
}

static void spit(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/* Every record of b's log after INITIALIZE, handed to the archive. */
static void deliver(struct pmclog_archive *a, struct logbuf *b)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;

	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b->data, b->len), 0);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);	/* INITIALIZE */
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_tool__deliver(pmclog_archive__tool(a), &rec), 0);
	pmclog_reader__free(r);
}

/* The MAP_IN of pid at [start, end) named path, handed to the archive. */
static void map_in(struct pmclog_archive *a, __u32 pid, __u64 start, __u64 end,
		   __u32 flags, const char *path)
{
	static struct logbuf b;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, pid, start, end, 0, flags, path);
	deliver(a, &b);
}

/* The same, with the BUILDID the module would write after it. */
static void map_in_id(struct pmclog_archive *a, __u64 start, const char *path,
		      const __u8 *id, int size)
{
	static struct logbuf b;
	size_t off;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, (__u32)getpid(), start, start + 4096, 0, 0, path);
	off = lb_buildid(&b, (__u32)getpid(), start, (__u8)size, 0);
	if (id)
		memcpy(b.data + off + offsetof(struct pmclog_buildid, build_id), id,
		       (size_t)size);
	deliver(a, &b);
}

/* path's first page, mapped executable; its address. */
static __u64 map_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *map;

	assert_true(fd >= 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	return (uintptr_t)map;
}

static void unmap(__u64 start)
{
	munmap((void *)(uintptr_t)start, 4096);
}

/* This test's own executable (an ELF file with a build-id), as dst. */
static void copy_self(const char *dst, mode_t mode)
{
	size_t n;
	unsigned char *p = slurp("/proc/self/exe", &n);

	assert_non_null(p);
	spit(dst, p, n, mode);
	free(p);
}

/* Whether /proc/PID/map_files opens here (CAP_SYS_ADMIN, CAP_CHECKPOINT_RESTORE). */
static bool have_map_files(void)
{
	char path[128];
	__u64 start;
	int fd;

	snprintf(path, sizeof(path), "%s/probe", tmp);
	copy_self(path, 0755);
	start = map_file(path);
	snprintf(path, sizeof(path), "/proc/self/map_files/%llx-%llx",
		 (unsigned long long)start, (unsigned long long)start + 4096);
	fd = open(path, O_RDONLY);
	unmap(start);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static struct pmclog_archive *new_archive(const char *name, __u64 max_bytes)
{
	struct pmclog_archive_opts opts = PMCLOG_ARCHIVE_OPTS_INIT;
	char dir[256];
	struct pmclog_archive *a;

	opts.max_bytes = max_bytes;
	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	a = pmclog_archive__new(dir, &opts);
	assert_non_null(a);
	return a;
}

static const struct pmclog_archive_stats *settled(struct pmclog_archive *a)
{
	assert_int_equal(pmclog_archive__flush(a, 10000), 0);
	return pmclog_archive__stats(a);
}

static void test_archive(void **state)
{
	char src[256], path[512], byid[1024];
	unsigned char *orig, *got;
	size_t n_orig, n_got;
	const struct pmclog_archive_stats *st;
	__u8 id[PMCLOG_BUILD_ID_MAX];
	struct pmclog_archive *a;
	struct stat s1, s2;
	__u64 start;
	int fd, size;
	(void)state;

	if (!have_map_files())
		skip();
	/* An ELF file with a build-id, mapped, then replaced on disk. */
	snprintf(src, sizeof(src), "%s/lib", tmp);
	assert_int_equal(mkdir(src, 0755), 0);
	snprintf(src, sizeof(src), "%s/lib/libx.so", tmp);
	copy_self(src, 0750);
	orig = slurp(src, &n_orig);
	start = map_file(src);
	snprintf(path, sizeof(path), "%s.new", src);
	spit(path, "not the library\n", 16, 0644);
	assert_int_equal(rename(path, src), 0);

	a = new_archive("arch/", 0);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, src);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, src);	/* once */
	st = settled(a);
	assert_int_equal(st->objects, 1);
	assert_int_equal(st->failed, 0);
	snprintf(path, sizeof(path), "%s/arch%s", tmp, src);
	got = slurp(path, &n_got);
	assert_non_null(got);
	/* The file that was mapped, not the one the path names now. */
	assert_int_equal(n_got, n_orig);
	assert_memory_equal(got, orig, n_orig);
	free(got);
	/* Its mode, never wider; DIR is the recorder's alone. */
	assert_int_equal(stat(path, &s2), 0);
	assert_int_equal(s2.st_mode & 07777, 0750);
	snprintf(byid, sizeof(byid), "%s/arch", tmp);
	assert_int_equal(stat(byid, &s1), 0);
	assert_int_equal(s1.st_mode & 07777, 0700);
	fd = open(path, O_RDONLY);
	size = pmclog_fd_build_id(fd, id);
	close(fd);
	assert_true(size > 0);
	assert_int_equal(pmclog_build_id_path(byid, sizeof(byid), path, id, (size_t)size), 0);
	snprintf(byid, sizeof(byid), "%s/arch", tmp);
	assert_int_equal(pmclog_build_id_path(path, sizeof(path), byid, id, (size_t)size), 0);
	assert_int_equal(stat(path, &s1), 0);
	snprintf(path, sizeof(path), "%s/arch%s", tmp, src);
	assert_int_equal(stat(path, &s2), 0);
	assert_int_equal(s1.st_ino, s2.st_ino);	/* one copy, two names */
	unmap(start);

	/* No longer mapped (no such process): never looked for by its path. */
	snprintf(path, sizeof(path), "%s/lib/libgone.so", tmp);
	copy_self(path, 0755);
	map_in(a, 0x7ffffff0, 0x10000, 0x11000, 0, path);
	st = settled(a);
	assert_int_equal(st->objects, 1);
	assert_int_equal(st->gone, 1);
	snprintf(byid, sizeof(byid), "%s/arch%s", tmp, path);
	assert_int_equal(access(byid, F_OK), -1);

	/* Mapped but not ELF: said once, counted once. */
	snprintf(path, sizeof(path), "%s/lib/notes.txt", tmp);
	spit(path, "plain text\n", 11, 0644);
	start = map_file(path);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, path);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, path);
	st = settled(a);
	assert_int_equal(st->failed, 1);
	assert_int_equal(st->refused, 1);
	assert_non_null(strstr(said, "notes.txt not copied: not an ELF file"));
	assert_null(strstr(strstr(said, "notes.txt") + 1, "notes.txt"));
	unmap(start);

	/* Not copied: a path that leaves DIR, anonymous code, the kernel. */
	map_in(a, 0x7ffffff0, 0x40000, 0x41000, 0, "/tmp/../etc/passwd");
	map_in(a, 0x7ffffff0, 0x50000, 0x51000, PMCLOG_MAP_F_ANON, "[vdso]");
	map_in(a, PMCLOG_PID_KERNEL, 0xffffffffc0000000ULL, 0xffffffffc0001000ULL,
	       PMCLOG_MAP_F_KMODULE, "ext4");
	st = settled(a);
	assert_int_equal(st->objects, 1);
	assert_int_equal(st->failed, 1);
	assert_int_equal(st->gone, 1);
	snprintf(path, sizeof(path), "%s/arch/etc/passwd", tmp);
	assert_int_equal(access(path, F_OK), -1);
	pmclog_archive__free(a);
	free(orig);
}

/*
 * The attacker makes the archive's folder, or a folder or a link inside
 * it: the archive is refused, or the map is, and nothing is written
 * where their link points (it was /etc/cron.d).
 */
static void test_archive_planted(void **state)
{
	char path[512], victim[256], job[256], link_to[600];
	const struct pmclog_archive_stats *st;
	struct pmclog_archive *a;
	__u64 start;
	(void)state;

	if (getuid() || !have_map_files())
		skip();
	snprintf(victim, sizeof(victim), "%s/cron.d", tmp);
	assert_int_equal(mkdir(victim, 0755), 0);
	snprintf(path, sizeof(path), "%s/home", tmp);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(job, sizeof(job), "%s/home/job", tmp);
	copy_self(job, 0755);
	start = map_file(job);

	/* Their DIR: refused whole, and said. */
	snprintf(path, sizeof(path), "%s/theirs", tmp);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	errno = 0;
	assert_null(pmclog_archive__new(path, NULL));
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(said, "another user's folder"));

	/* Their folder inside ours (made while ours was open to them). */
	a = new_archive("arch", 0);
	snprintf(path, sizeof(path), "mkdir -p %s/arch%s && chown -R %d %s/arch/tmp",
		 tmp, tmp, NOBODY, tmp);
	assert_int_equal(system(path), 0);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, job);
	st = settled(a);
	assert_int_equal(st->objects, 0);
	assert_int_equal(st->refused, 1);
	assert_non_null(strstr(said, "another user's, or others may write to it"));
	pmclog_archive__free(a);

	/* A link inside it, to the victim's folder: not followed. */
	a = new_archive("arch2", 0);
	snprintf(path, sizeof(path), "%s/arch2%s", tmp, tmp);
	snprintf(link_to, sizeof(link_to), "mkdir -p %s", path);
	assert_int_equal(system(link_to), 0);
	snprintf(path, sizeof(path), "%s/arch2%s/home", tmp, tmp);
	assert_int_equal(symlink(victim, path), 0);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, job);
	st = settled(a);
	assert_int_equal(st->objects, 0);
	assert_int_equal(st->refused, 1);
	assert_non_null(strstr(said, "a symbolic link, or a file, stands where its path needs a folder"));
	snprintf(path, sizeof(path), "%s/job", victim);
	assert_int_equal(access(path, F_OK), -1);
	pmclog_archive__free(a);
	unmap(start);
}

/*
 * A mapped file, unmapped and unlinked at once, its path now a link to a
 * secret: the archive never opens the path, so the secret stays out.
 */
static void test_archive_no_path_fallback(void **state)
{
	char path[512], secret[256], f[256];
	const struct pmclog_archive_stats *st;
	struct pmclog_archive *a;
	__u64 start;
	(void)state;

	snprintf(secret, sizeof(secret), "%s/shadow", tmp);
	copy_self(secret, 0600);
	snprintf(f, sizeof(f), "%s/f", tmp);
	copy_self(f, 0755);
	start = map_file(f);
	unmap(start);
	assert_int_equal(unlink(f), 0);
	snprintf(path, sizeof(path), "%s (deleted)", f);
	assert_int_equal(symlink(secret, path), 0);
	assert_int_equal(symlink(secret, f), 0);

	a = new_archive("arch", 0);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, f);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, path);
	/* A FIFO at the path of a map that is gone: not opened, no wait. */
	snprintf(path, sizeof(path), "%s/fifo", tmp);
	assert_int_equal(mkfifo(path, 0666), 0);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, path);
	st = settled(a);
	assert_int_equal(st->objects, 0);
	assert_int_equal(st->failed, 0);
	assert_int_equal(st->gone, 3);
	snprintf(path, sizeof(path), "%s/arch%s", tmp, f);
	assert_int_equal(access(path, F_OK), -1);
	pmclog_archive__free(a);
}

/*
 * A huge sparse file mapped: over the limit, refused unread; under a
 * limit that takes it, copied as sparse as it was.
 */
static void test_archive_sparse(void **state)
{
	char path[256], copy[512];
	const struct pmclog_archive_stats *st;
	struct pmclog_archive *a;
	struct stat s;
	__u64 start;
	int fd;
	(void)state;

	if (!have_map_files())
		skip();
	snprintf(path, sizeof(path), "%s/sparse.so", tmp);
	copy_self(path, 0755);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 2LL << 30), 0);
	close(fd);
	start = map_file(path);

	a = new_archive("small", 0);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, path);
	st = settled(a);
	assert_int_equal(st->objects, 0);
	assert_int_equal(st->refused, 1);
	assert_non_null(strstr(said, "larger than the archive's limit of 1073741824 bytes"));
	pmclog_archive__free(a);

	a = new_archive("big", 4ULL << 30);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, path);
	st = settled(a);
	assert_int_equal(st->objects, 1);
	snprintf(copy, sizeof(copy), "%s/big%s", tmp, path);
	assert_int_equal(stat(copy, &s), 0);
	assert_int_equal(s.st_size, 2LL << 30);
	assert_true(s.st_blocks * 512 < (64LL << 20));	/* the holes stayed holes */
	pmclog_archive__free(a);
	unmap(start);
}

/*
 * Builds and their ids: a file whose build-id is not the BUILDID the log
 * gave its map is refused; another user's file claiming a build-id first
 * does not keep root's build of that id out of .build-id.
 */
static void test_archive_build_ids(void **state)
{
	char fake[256], real[256], path[512], dir[256], byid[512];
	const struct pmclog_archive_stats *st;
	__u8 id[PMCLOG_BUILD_ID_MAX];
	unsigned char *p, *got;
	struct pmclog_archive *a;
	size_t n, n_got;
	__u64 s1, s2;
	int fd, size;
	(void)state;

	if (getuid() || !have_map_files())
		skip();
	snprintf(real, sizeof(real), "%s/libc.so.6", tmp);
	copy_self(real, 0755);
	fd = open(real, O_RDONLY);
	size = pmclog_fd_build_id(fd, id);
	close(fd);
	assert_true(size > 0);
	/* Theirs: the same build-id, other bytes. */
	snprintf(fake, sizeof(fake), "%s/fake.so", tmp);
	p = slurp(real, &n);
	p[n - 1] ^= 0xff;
	spit(fake, p, n, 0755);
	free(p);
	assert_int_equal(chown(fake, NOBODY, NOBODY), 0);
	s1 = map_file(fake);
	s2 = map_file(real);

	a = new_archive("arch", 0);
	map_in_id(a, s1, fake, NULL, 8);	/* a BUILDID of another build */
	st = settled(a);
	assert_int_equal(st->refused, 1);
	assert_non_null(strstr(said, "fake.so not copied: its build-id is not the one the log mapped"));
	pmclog_archive__free(a);

	/* Theirs under its own path, never under the build-id it claims. */
	a = new_archive("arch2", 0);
	map_in_id(a, s1, fake, id, size);
	st = settled(a);
	assert_int_equal(st->objects, 1);
	snprintf(dir, sizeof(dir), "%s/arch2", tmp);
	assert_int_equal(pmclog_build_id_path(path, sizeof(path), dir, id, (size_t)size), 0);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(byid, sizeof(byid), "%s%s", dir, fake);
	assert_int_equal(access(byid, F_OK), 0);
	/* Root's build of that id takes the name. */
	map_in_id(a, s2, real, id, size);
	st = settled(a);
	assert_int_equal(st->objects, 2);
	got = slurp(path, &n_got);
	p = slurp(real, &n);
	assert_non_null(got);
	assert_int_equal(n_got, n);
	assert_memory_equal(got, p, n);
	free(got);
	free(p);
	pmclog_archive__free(a);
	unmap(s1);
	unmap(s2);
}

/* max_total: what was copied in all; the file past it is not. */
static void test_archive_budget(void **state)
{
	struct pmclog_archive_opts opts = PMCLOG_ARCHIVE_OPTS_INIT;
	const struct pmclog_archive_stats *st;
	char one[256], dir[256];
	struct pmclog_archive *a;
	__u64 m1;
	(void)state;

	if (!have_map_files())
		skip();
	snprintf(one, sizeof(one), "%s/one", tmp);
	copy_self(one, 0755);
	m1 = map_file(one);
	opts.max_total = 1;
	snprintf(dir, sizeof(dir), "%s/arch2", tmp);
	a = pmclog_archive__new(dir, &opts);
	assert_non_null(a);
	map_in(a, (__u32)getpid(), m1, m1 + 4096, 0, one);
	st = settled(a);
	assert_int_equal(st->objects, 0);
	assert_int_equal(st->refused, 1);
	assert_non_null(strstr(said, "its limit: the files mapped from now on are not copied"));
	pmclog_archive__free(a);
	unmap(m1);
}

/*
 * A process in a mount namespace of its own maps its file under a path it
 * made name it (a bind mount over root's file): the kernel shows that
 * path, which names another file here.  Their file is not put there.
 */
static void test_archive_namespace_claim(void **state)
{
	char fake[256], claimed[256], path[512];
	const struct pmclog_archive_stats *st;
	struct pmclog_archive *a;
	int go[2], ready[2];
	unsigned long long start;
	pid_t kid;
	(void)state;

	if (getuid() || !have_map_files())
		skip();
	snprintf(claimed, sizeof(claimed), "%s/libc.so.6", tmp);
	copy_self(claimed, 0755);
	snprintf(fake, sizeof(fake), "%s/evil.so", tmp);
	copy_self(fake, 0755);
	assert_int_equal(chown(fake, NOBODY, NOBODY), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (!kid) {
		char c;
		int fd;
		void *p;

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount(fake, claimed, NULL, MS_BIND, NULL))
			_exit(1);
		fd = open(claimed, O_RDONLY);
		p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			_exit(2);
		start = (uintptr_t)p;
		if (write(ready[1], &start, sizeof(start)) != sizeof(start))
			_exit(3);
		if (read(go[0], &c, 1) < 0)
			_exit(4);
		_exit(0);
	}
	if (read(ready[0], &start, sizeof(start)) != sizeof(start)) {
		int status;

		waitpid(kid, &status, 0);
		print_message("no mount namespace here (status %d)\n", status);
		skip();
	}
	a = new_archive("arch", 0);
	map_in(a, (__u32)kid, start, start + 4096, 0, claimed);
	st = settled(a);
	assert_int_equal(st->objects, 0);
	assert_int_equal(st->refused, 1);
	snprintf(path, sizeof(path), "%s/arch%s", tmp, claimed);
	assert_int_equal(access(path, F_OK), -1);
	pmclog_archive__free(a);
	assert_int_equal(write(go[1], "x", 1), 1);
	waitpid(kid, NULL, 0);
}

/* A folder that cannot be made is refused, with errno. */
static void test_archive_bad_dir(void **state)
{
	char dir[256];
	(void)state;

	errno = 0;
	assert_null(pmclog_archive__new("", NULL));
	assert_int_equal(errno, EINVAL);
	snprintf(dir, sizeof(dir), "%s/file", tmp);
	spit(dir, "x", 1, 0644);
	snprintf(dir, sizeof(dir), "%s/file/sub", tmp);
	errno = 0;
	assert_null(pmclog_archive__new(dir, NULL));
	assert_int_equal(errno, ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_planted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_no_path_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_sparse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_build_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_namespace_claim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_bad_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
