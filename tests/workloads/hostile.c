// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: another local user, as 97-hostile plays them against root's
 * `pmclog record` and `pmclog report`.  It first becomes UID (no groups),
 * then does one of:
 *
 *   hold SRC FILE SECS     copy the ELF file SRC to FILE (0755), map its
 *                          first page executable and hold it SECS seconds
 *   sparse SRC FILE SIZE SECS
 *                          the same, FILE then grown to SIZE bytes (a
 *                          hole): a huge file that costs nothing
 *   swap SRC FILE TARGET SECS
 *                          for SECS seconds: copy SRC to FILE, map it
 *                          executable, unmap it, remove it, and put a
 *                          symbolic link to TARGET at FILE and at
 *                          "FILE (deleted)" (how the kernel names it now),
 *                          or a FIFO where TARGET is "fifo"; prints
 *                          rounds=N
 *   run PROG ARGS...       exec PROG
 *
 * and, but for run, writes "ready" to standard output once the first
 * mapping is made.
 */
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common.h"

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "hostile: %s %s: %s\n", what, arg, strerror(errno));
	exit(71);	/* EX_OSERR */
}

static void copy(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		die("open", src);
	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (out < 0)
		die("create", dst);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			die("write", dst);
	close(in);
	if (fchmod(out, 0755) || close(out))
		die("close", dst);
}

static void *map_exec(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		die("open", path);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap", path);
	close(fd);
	return p;
}

static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 4) {
		fprintf(stderr, "usage: hostile UID hold|sparse|swap|run ...\n");
		return 64;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		die("become uid", argv[1]);
	if (!setuid(0)) {
		fprintf(stderr, "hostile: still root\n");
		return 71;
	}

	if (!strcmp(argv[2], "run")) {
		execv(argv[3], argv + 3);
		die("exec", argv[3]);
	}
	if (!strcmp(argv[2], "hold") && argc == 6) {
		copy(argv[3], argv[4]);
		map_exec(argv[4]);
		ready();
		usleep((useconds_t)(parse_seconds("hostile", argv[5]) * 1e6));
		return 0;
	}
	if (!strcmp(argv[2], "sparse") && argc == 7) {
		copy(argv[3], argv[4]);
		if (truncate(argv[4], strtoll(argv[5], NULL, 0)))
			die("truncate", argv[4]);
		map_exec(argv[4]);
		ready();
		usleep((useconds_t)(parse_seconds("hostile", argv[6]) * 1e6));
		return 0;
	}
	if (!strcmp(argv[2], "swap") && argc == 7) {
		double end = now_s() + parse_seconds("hostile", argv[6]);
		bool fifo = !strcmp(argv[5], "fifo");
		char deleted[4200];
		long rounds = 0;

		snprintf(deleted, sizeof(deleted), "%s (deleted)", argv[4]);
		do {
			void *p;

			unlink(argv[4]);
			unlink(deleted);
			copy(argv[3], argv[4]);
			p = map_exec(argv[4]);
			munmap(p, 4096);
			unlink(argv[4]);
			if (fifo) {
				if (mkfifo(argv[4], 0666) || mkfifo(deleted, 0666))
					die("mkfifo", argv[4]);
			} else if (symlink(argv[5], argv[4]) || symlink(argv[5], deleted)) {
				die("symlink", argv[4]);
			}
			if (!rounds++)
				ready();
			usleep(20000);
		} while (now_s() < end);
		printf("rounds=%ld\n", rounds);
		return 0;
	}
	fprintf(stderr, "hostile: bad arguments\n");
	return 64;
}
