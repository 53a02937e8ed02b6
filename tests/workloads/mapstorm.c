// SPDX-License-Identifier: GPL-2.0
/*
 * mapstorm [-t THREADS] [-r ROUNDS] [-g GOFILE] [-m FILE2] FILE: THREADS
 * threads (default 4), released together, each change executable mappings
 * of FILE ROUNDS times (default 100), and count the MAP_IN and MAP_OUT
 * records the module owes for what they did (kmod/pmclog_vma.c's table).
 * Prints
 *
 *   mapstorm: pid=P threads=T rounds=R syscalls=N map_in=I map_out=O
 *
 * and with -m, " grow_in=I grow_out=O" at the end of that line.
 *
 * One round, pg the page size:
 *
 *   p = mmap(3 pg, R|X, FILE at 0)     MAP_IN        a new executable mapping
 *   mmap(p, 3 pg, R|X, MAP_FIXED)      MAP_OUT, MAP_IN   it is replaced
 *   mprotect(p + pg, pg, R)            MAP_OUT       PROT_EXEC removed (a split)
 *   mprotect(p + pg, pg, R|X)          MAP_IN        and added back
 *   munmap of each of the 3 pages      3 MAP_OUT
 *   q = mmap(pg, R, FILE at 0)         -             not executable
 *   mprotect(q, pg, R|X)               MAP_IN
 *   munmap(q, pg)                      MAP_OUT
 *
 * 4 MAP_IN and 6 MAP_OUT a round, whatever the kernel merges: every range
 * named lies inside one vma, so each call logs one record (or none).
 * FILE is always mapped from offset 0, so that no mapping of one thread
 * can merge with the 3-page mapping of another (that would need a
 * neighbour at file page 3, or before file page 0).
 *
 * -m FILE2: then the main thread alone resizes a mapping of FILE2 in place
 * (no other thread can take the page freed in between, so it grows back
 * where it was), counted as grow_in and grow_out.  Growing owes a MAP_IN
 * by the record's definition ("[start, end) now holds executable code",
 * include/uapi/linux/pmclog.h), though pmclog_vma.c's table names no hook
 * for it:
 *
 *   p = mmap(3 pg, R|X, FILE2 at 0)    MAP_IN
 *   mremap(p, 3 pg, 2 pg, 0)           MAP_OUT       the last page unmapped
 *   mremap(p, 2 pg, 3 pg, 0)           MAP_IN        grown in place: [p + 2 pg,
 *                                                    p + 3 pg) holds code again
 *   munmap(p, 3 pg)                    MAP_OUT
 *
 * -g GOFILE: wait until GOFILE exists before the threads start, so that
 * a recorder can attach (-p) to a process that has not begun yet.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include "common.h"

struct counts {
	long syscalls, map_in, map_out;
};

static int fd;		/* FILE, then FILE2 */
static long pg, rounds;
static pthread_barrier_t start;

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "mapstorm: %s: %s\n", what, strerror(errno));
	exit(71);	/* EX_OSERR */
}

static void *map(struct counts *c, void *at, long len, int prot, int flags,
		 int in)
{
	void *p = mmap(at, len, prot, MAP_PRIVATE | flags, fd, 0);

	if (p == MAP_FAILED || (at && p != at))
		die("mmap");
	c->syscalls++;
	c->map_in += in;
	c->map_out += (flags & MAP_FIXED) != 0;
	return p;
}

static void prot(struct counts *c, char *p, long len, int prot, int in, int out)
{
	if (mprotect(p, len, prot))
		die("mprotect");
	c->syscalls++;
	c->map_in += in;
	c->map_out += out;
}

static void unmap(struct counts *c, char *p, long len)
{
	if (munmap(p, len))
		die("munmap");
	c->syscalls++;
	c->map_out++;	/* every range unmapped here is executable */
}

/* Resize @p in place (no MREMAP_MAYMOVE): it fails rather than move. */
static void resize(struct counts *c, char *p, long from, long to)
{
	if (mremap(p, from, to, 0) != p)
		die("mremap in place");
	c->syscalls++;
	c->map_in += to > from;
	c->map_out += to < from;
}

static void *storm(void *arg)
{
	struct counts *c = arg;
	char *p, *q;
	long r;

	pthread_barrier_wait(&start);
	for (r = 0; r < rounds; r++) {
		p = map(c, NULL, 3 * pg, PROT_READ | PROT_EXEC, 0, 1);
		map(c, p, 3 * pg, PROT_READ | PROT_EXEC, MAP_FIXED, 1);
		prot(c, p + pg, pg, PROT_READ, 0, 1);
		prot(c, p + pg, pg, PROT_READ | PROT_EXEC, 1, 0);
		unmap(c, p + 2 * pg, pg);
		unmap(c, p, pg);
		unmap(c, p + pg, pg);
		q = map(c, NULL, pg, PROT_READ, 0, 0);
		prot(c, q, pg, PROT_READ | PROT_EXEC, 1, 0);
		unmap(c, q, pg);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct counts *c, sum = { 0 }, g = { 0 };
	const char *go = NULL, *grow = NULL;
	pthread_t *tids;
	char *p;
	long nthreads = 4, i;
	int opt, err;

	rounds = 100;
	while ((opt = getopt(argc, argv, "t:r:g:m:")) != -1) {
		switch (opt) {
		case 't':
			nthreads = strtol(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtol(optarg, NULL, 0);
			break;
		case 'g':
			go = optarg;
			break;
		case 'm':
			grow = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || nthreads < 1 || nthreads > 64 || rounds < 0)
		goto usage;
	pg = sysconf(_SC_PAGESIZE);
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(argv[optind]);
	if (lseek(fd, 0, SEEK_END) < 3 * pg) {
		fprintf(stderr, "mapstorm: %s: shorter than 3 pages\n", argv[optind]);
		return 66;	/* EX_NOINPUT */
	}
	while (go && access(go, F_OK))
		usleep(10000);

	c = calloc(nthreads, sizeof(*c));
	tids = calloc(nthreads, sizeof(*tids));
	if (!c || !tids)
		die("calloc");
	pthread_barrier_init(&start, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&tids[i], NULL, storm, &c[i]);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		sum.syscalls += c[i].syscalls;
		sum.map_in += c[i].map_in;
		sum.map_out += c[i].map_out;
	}
	printf("mapstorm: pid=%ld threads=%ld rounds=%ld syscalls=%ld map_in=%ld map_out=%ld",
	       (long)getpid(), nthreads, rounds, sum.syscalls, sum.map_in,
	       sum.map_out);
	if (grow) {
		fd = open(grow, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(grow);
		p = map(&g, NULL, 3 * pg, PROT_READ | PROT_EXEC, 0, 1);
		resize(&g, p, 3 * pg, 2 * pg);
		resize(&g, p, 2 * pg, 3 * pg);
		unmap(&g, p, 3 * pg);
		printf(" grow_in=%ld grow_out=%ld", g.map_in, g.map_out);
	}
	printf("\n");
	return 0;

usage:
	fprintf(stderr, "usage: mapstorm [-t THREADS] [-r ROUNDS] [-g GOFILE] [-m FILE2] FILE\n");
	return 64;	/* EX_USAGE */
}
