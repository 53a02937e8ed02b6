// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog_file: what another local user can plant at a path that pmclog
 * opens as root -- a symbolic link, a FIFO, a device node, a huge sparse
 * file, a file of their own, a folder of their own -- is refused or
 * replaced, never read from or written through.  The other user is uid
 * 65534 (nobody); the cases that need to give it a file are skipped when
 * the test does not run as root.
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

#include "pmclog_file.h"

#define NOBODY	65534

static char tmp[64];
static char p[512], q[512];

static int setup(void **state)
{
	(void)state;
	strcpy(tmp, "/tmp/pmclog-file-XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd);
}

static const char *at(char *buf, const char *name)
{
	snprintf(buf, 512, "%s/%s", tmp, name);
	return buf;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void expect(const char *path, const char *text)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static bool root(void)
{
	return geteuid() == 0;
}

static void test_open_read(void **state)
{
	struct stat st;
	char buf[8];
	int fd;

	(void)state;
	put(at(p, "obj"), "ELF!");
	fd = pmclog_file__open_read(AT_FDCWD, p, 0, 0, &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(read(fd, buf, sizeof(buf)), 4);
	close(fd);

	/* A link at the end: refused, unless the caller asks to follow. */
	assert_int_equal(symlink(p, at(q, "link")), 0);
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, q, 0, 0, NULL), -ELOOP);
	fd = pmclog_file__open_read(AT_FDCWD, q, PMCLOG_FILE_FOLLOW, 0, NULL);
	assert_true(fd >= 0);
	close(fd);

	/* A FIFO with no writer: refused at once, not opened (it would block). */
	assert_int_equal(mkfifo(at(q, "fifo"), 0644), 0);
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, q, 0, 0, NULL), -EINVAL);
	/* A device: its driver's open() is never called. */
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, "/dev/null", 0, 0, NULL), -EINVAL);
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, tmp, 0, 0, NULL), -EISDIR);

	/* A sparse file of 64 GiB: refused by its size, nothing read. */
	fd = open(at(q, "sparse"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64LL << 30), 0);
	close(fd);
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, q, 0, 0, NULL), -EFBIG);
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, p, 0, 3, NULL), -EFBIG);
	assert_int_equal(pmclog_file__open_read(AT_FDCWD, at(q, "none"), 0, 0, NULL), -ENOENT);
}

static void test_create_new_and_replace(void **state)
{
	struct stat st, old;
	bool created;
	int fd;

	(void)state;
	umask(022);
	fd = pmclog_file__create(at(p, "out"), 0600, 0, &created, NULL, 0);
	assert_true(fd >= 0);
	assert_true(created);
	assert_int_equal(write(fd, "one", 3), 3);
	close(fd);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	/* An existing file is replaced by a new one, never written into. */
	assert_int_equal(link(p, at(q, "hardlink")), 0);
	fd = pmclog_file__create(p, 0600, 0, &created, NULL, 0);
	assert_true(fd >= 0);
	assert_true(created);
	assert_int_equal(write(fd, "two", 3), 3);
	close(fd);
	expect(p, "two");
	expect(q, "one");

	/* As perf.data: the one there is kept as PATH.old. */
	assert_int_equal(stat(p, &old), 0);
	fd = pmclog_file__create(p, 0600, PMCLOG_FILE_KEEP_OLD, &created, NULL, 0);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "three", 5), 5);
	close(fd);
	expect(p, "three");
	assert_int_equal(stat(at(q, "out.old"), &st), 0);
	assert_int_equal(st.st_ino, old.st_ino);
	expect(q, "two");

	/* A character device is written to, and was not made by us. */
	fd = pmclog_file__create("/dev/null", 0600, 0, &created, NULL, 0);
	assert_true(fd >= 0);
	assert_false(created);
	close(fd);
}

static void test_create_refuses_links(void **state)
{
	char why[1024];
	bool created;
	int fd;

	(void)state;
	/*
	 * A link to a file, even our own: refused, the file untouched.  A
	 * link of ours may name another user's link on to anything.
	 */
	put(at(q, "target"), "secret");
	assert_int_equal(symlink(q, at(p, "mine")), 0);
	fd = pmclog_file__create(p, 0600, 0, &created, why, sizeof(why));
	assert_int_equal(fd, -EPERM);
	assert_non_null(strstr(why, "symbolic link to a file"));
	expect(q, "secret");
	/* Our link to a device is followed: /dev/stdout's way. */
	assert_int_equal(symlink("/dev/null", at(p, "null")), 0);
	fd = pmclog_file__create(p, 0600, 0, &created, why, sizeof(why));
	assert_true(fd >= 0);
	assert_false(created);
	close(fd);

	if (!root())
		skip();
	/* Another user's link (protected_symlinks off, or not in /tmp). */
	put(q, "secret");
	assert_int_equal(symlink(q, at(p, "theirs")), 0);
	assert_int_equal(lchown(p, NOBODY, NOBODY), 0);
	fd = pmclog_file__create(p, 0600, PMCLOG_FILE_KEEP_OLD, &created, why, sizeof(why));
	assert_int_equal(fd, -EPERM);
	assert_non_null(strstr(why, "symbolic link of uid 65534"));
	expect(q, "secret");

	/* Their FIFO would stream the log to them: refused, without blocking. */
	assert_int_equal(mkfifo(at(p, "fifo"), 0666), 0);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(pmclog_file__create(p, 0600, 0, NULL, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "FIFO of uid 65534"));
}

static void test_create_their_file(void **state)
{
	struct stat st;
	bool created;
	int fd;

	(void)state;
	if (!root())
		skip();
	/* Their 0666 file in a sticky folder: moved aside, the log is ours. */
	assert_int_equal(chmod(tmp, 01777), 0);
	put(at(p, "pmclog.data"), "");
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(chmod(p, 0666), 0);
	fd = pmclog_file__create(p, 0600, PMCLOG_FILE_KEEP_OLD, &created, NULL, 0);
	assert_true(fd >= 0);
	assert_true(created);
	assert_int_equal(write(fd, "log", 3), 3);
	close(fd);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	expect(at(q, "pmclog.data.old"), "");
	assert_int_equal(chmod(tmp, 0700), 0);
}

static void test_create_shared_folder(void **state)
{
	char why[1024];

	(void)state;
	/* A folder anyone may write to, not sticky: the file could be swapped. */
	assert_int_equal(mkdir(at(q, "shared"), 0777), 0);
	assert_int_equal(chmod(q, 0777), 0);
	assert_int_equal(pmclog_file__create(at(p, "shared/out"), 0600, 0, NULL, why,
					     sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not sticky"));
	assert_int_equal(chmod(q, 01777), 0);
	close(pmclog_file__create(p, 0600, 0, NULL, why, sizeof(why)));
	assert_int_equal(access(p, F_OK), 0);
}

static void test_tree(void **state)
{
	const char *base;
	char name[32];
	int root_fd, dir, fd;

	(void)state;
	root_fd = pmclog_file__open_tree(at(p, "arch"), 0700, NULL, 0);
	assert_true(root_fd >= 0);
	dir = pmclog_file__mkdirs_at(root_fd, "usr/lib/libc.so.6", 0755, &base);
	assert_true(dir >= 0);
	assert_string_equal(base, "libc.so.6");
	fd = pmclog_file__tmpfile_at(dir, name, sizeof(name));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "elf", 3), 3);
	assert_int_equal(pmclog_file__link_new(fd, dir, name, dir, base), 0);
	close(fd);
	expect(at(q, "arch/usr/lib/libc.so.6"), "elf");
	/* Never over an existing name. */
	fd = pmclog_file__tmpfile_at(dir, name, sizeof(name));
	assert_true(fd >= 0);
	assert_int_equal(pmclog_file__link_new(fd, dir, name, dir, base), -EEXIST);
	close(fd);
	expect(q, "elf");
	close(dir);

	/* A link on the way: refused, nothing made where it points. */
	assert_int_equal(mkdir(at(q, "elsewhere"), 0700), 0);
	assert_int_equal(symlink(q, at(p, "arch/home")), 0);
	assert_int_equal(pmclog_file__mkdirs_at(root_fd, "home/att/job", 0755, &base), -ELOOP);
	assert_int_equal(access(at(q, "elsewhere/att"), F_OK), -1);
	assert_int_equal(pmclog_file__mkdirs_at(root_fd, "usr/../etc/x", 0755, &base), -EINVAL);
	assert_int_equal(pmclog_file__mkdirs_at(root_fd, "usr/lib/", 0755, &base), -EINVAL);

	/* A folder writable by others. */
	assert_int_equal(mkdir(at(p, "arch/tmp"), 0777), 0);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(pmclog_file__mkdirs_at(root_fd, "tmp/x", 0755, &base), -EPERM);
	if (root()) {
		/* Another user's folder, however closed. */
		assert_int_equal(mkdir(at(p, "arch/var"), 0755), 0);
		assert_int_equal(chown(p, NOBODY, NOBODY), 0);
		assert_int_equal(pmclog_file__mkdirs_at(root_fd, "var/x", 0755, &base), -EPERM);
	}
	close(root_fd);

	/* The tree itself: not a link, not a shared folder. */
	assert_int_equal(symlink(q, at(p, "archlink")), 0);
	assert_int_equal(pmclog_file__open_tree(p, 0700, NULL, 0), -EPERM);
	assert_int_equal(mkdir(at(p, "open"), 0777), 0);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(pmclog_file__open_tree(p, 0700, NULL, 0), -EPERM);
	if (root()) {
		char why[1024];

		/* Theirs, however closed: they may rename what is in it. */
		assert_int_equal(mkdir(at(p, "theirs"), 0755), 0);
		assert_int_equal(chown(p, NOBODY, NOBODY), 0);
		assert_int_equal(pmclog_file__open_tree(p, 0700, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "another user's folder"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_new_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_refuses_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_their_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_shared_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
