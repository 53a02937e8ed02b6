// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog_archive (`pmclog record --archive DIR`) on real mappings of this
 * process: the file behind a mapping is copied as it was mapped, even
 * once its path names another file; each build once, under its path and
 * under .build-id; a file no longer mapped from its path; paths that would
 * leave DIR, and the kernel's maps, are not copied.
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

#include "log_builder.h"
#include "print_capture.h"
#include "pmclog_archive.h"
#include "pmclog_reader.h"

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

static void spit(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* Hand the MAP_IN of pid at [start, end) named path to the archive. */
static void map_in(struct pmclog_archive *a, __u32 pid, __u64 start, __u64 end,
		   __u32 flags, const char *path)
{
	static struct logbuf b;
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, pid, start, end, 0, flags, path);
	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b.data, b.len), 0);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);	/* INITIALIZE */
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(rec.type, PMCLOG_TYPE_MAP_IN);
	assert_int_equal(pmclog_tool__deliver(pmclog_archive__tool(a), &rec), 0);
	pmclog_reader__free(r);
}

/* The ELF build-id of this test's own executable, from readelf's view. */
static int own_build_id(char *hex, size_t len)
{
	char line[256];
	int found = 0;
	FILE *p;

	/* Our /proc/PID: the shell's own /proc/self is another program. */
	snprintf(line, sizeof(line), "readelf -n /proc/%d/exe 2>/dev/null", (int)getpid());
	p = popen(line, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " Build ID: %127s", hex) == 1)
			found = 1;
	pclose(p);
	(void)len;
	return found;
}

static void test_archive(void **state)
{
	char src[256], dir[256], path[512], hex[128], byid[1024];
	unsigned char *orig, *got, *other;
	size_t n_orig, n_got, n_other;
	const struct pmclog_archive_stats *st;
	struct pmclog_archive *a;
	bool by_map_files;
	struct stat s1, s2;
	void *map;
	__u64 start;
	int fd;
	(void)state;

	/* An ELF file with a build-id, mapped, then replaced on disk. */
	snprintf(src, sizeof(src), "%s/lib", tmp);
	assert_int_equal(mkdir(src, 0755), 0);
	snprintf(src, sizeof(src), "%s/lib/libx.so", tmp);
	orig = slurp("/proc/self/exe", &n_orig);
	assert_non_null(orig);
	spit(src, orig, n_orig);
	fd = open(src, O_RDONLY);
	assert_true(fd >= 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	start = (uintptr_t)map;
	snprintf(path, sizeof(path), "%s.new", src);
	spit(path, "not the library\n", 16);
	assert_int_equal(rename(path, src), 0);
	snprintf(path, sizeof(path), "/proc/self/map_files/%llx-%llx",
		 (unsigned long long)start, (unsigned long long)start + 4096);
	fd = open(path, O_RDONLY);
	by_map_files = fd >= 0;	/* CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE */
	if (fd >= 0)
		close(fd);

	snprintf(dir, sizeof(dir), "%s/arch/", tmp);
	a = pmclog_archive__new(dir, NULL);
	assert_non_null(a);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, src);
	map_in(a, (__u32)getpid(), start, start + 4096, 0, src);	/* once */
	st = pmclog_archive__stats(a);
	assert_int_equal(st->objects, 1);
	snprintf(path, sizeof(path), "%s/arch%s", tmp, src);
	got = slurp(path, &n_got);
	assert_non_null(got);
	if (by_map_files) {
		/* The file that was mapped, not the one the path names now. */
		assert_int_equal(st->from_path, 0);
		assert_int_equal(n_got, n_orig);
		assert_memory_equal(got, orig, n_orig);
		assert_true(own_build_id(hex, sizeof(hex)));
		snprintf(byid, sizeof(byid), "%s/arch/.build-id/%.2s/%s", tmp, hex, hex + 2);
		assert_int_equal(stat(byid, &s1), 0);
		assert_int_equal(stat(path, &s2), 0);
		assert_int_equal(s1.st_ino, s2.st_ino);	/* one copy, two names */
	} else {
		print_message("no /proc/self/map_files here: the copy is the path's\n");
		assert_int_equal(st->from_path, 1);
		assert_int_equal(n_got, 16);
	}
	free(got);

	/* No longer mapped (no such process): from its path, no build-id. */
	snprintf(path, sizeof(path), "%s/lib/notes.txt", tmp);
	spit(path, "plain text\n", 11);
	map_in(a, 0x7ffffff0, 0x10000, 0x11000, 0, path);
	assert_int_equal(st->objects, 2);
	assert_int_equal(st->from_path, by_map_files ? 1 : 2);
	snprintf(byid, sizeof(byid), "%s/arch%s", tmp, path);
	other = slurp(byid, &n_other);
	assert_non_null(other);
	assert_int_equal(n_other, 11);
	free(other);

	/* Neither mapped nor there: said once, counted once. */
	map_in(a, 0x7ffffff0, 0x20000, 0x21000, 0, "/nonexistent/libgone.so");
	map_in(a, 0x7ffffff0, 0x30000, 0x31000, 0, "/nonexistent/libgone.so");
	assert_int_equal(st->failed, 1);
	assert_non_null(strstr(said, "archive: cannot copy /nonexistent/libgone.so: No such file or directory"));
	assert_null(strstr(strstr(said, "libgone") + 1, "libgone.so:"));

	/* Not copied: a path that leaves DIR, anonymous code, the kernel. */
	map_in(a, 0x7ffffff0, 0x40000, 0x41000, 0, "/tmp/../etc/passwd");
	map_in(a, 0x7ffffff0, 0x50000, 0x51000, PMCLOG_MAP_F_ANON, "[vdso]");
	map_in(a, PMCLOG_PID_KERNEL, 0xffffffffc0000000ULL, 0xffffffffc0001000ULL,
	       PMCLOG_MAP_F_KMODULE, "ext4");
	assert_int_equal(st->objects, 2);
	assert_int_equal(st->failed, 1);
	snprintf(path, sizeof(path), "%s/arch/etc/passwd", tmp);
	assert_int_equal(access(path, F_OK), -1);
	pmclog_archive__free(a);
	munmap(map, 4096);
	free(orig);
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
	spit(dir, "x", 1);
	snprintf(dir, sizeof(dir), "%s/file/sub", tmp);
	errno = 0;
	assert_null(pmclog_archive__new(dir, NULL));
	assert_int_equal(errno, ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_archive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archive_bad_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
