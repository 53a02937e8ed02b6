// SPDX-License-Identifier: GPL-2.0
/*
 * mmaploop -o FILE [-n N] MAPPED: map the first page of the file MAPPED
 * executable (PROT_READ | PROT_EXEC, MAP_PRIVATE) and unmap it again, N
 * times (20000), and append "mmap ops=N wall_ns=T block=K best_ns=B" to
 * FILE: the loop's time on CLOCK_MONOTONIC, and that of the fastest of
 * its blocks of K (BLOCK) iterations, 0 to K - 1, K to 2K - 1, ... (0
 * with fewer than K).  What a profiler adds to each mmap and munmap
 * of an executable mapping (a MAP_IN and a MAP_OUT for pmclog, an MMAP2
 * for perf) is the loop's time under it less the bare loop's, over N;
 * under TCG the host's hiccups (its scheduler, QEMU flushing translated
 * code) move whole loops by a third, and the fastest block is the same
 * figure without them, but also without what a profiler does in batches
 * less often than once a block (pmclog resolves the paths of its MAP_INs
 * every 10 ms, in a kworker).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define BLOCK	100

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	unsigned long long t0, t1, tb, best = 0;
	unsigned long n = 20000, i;
	long pg = sysconf(_SC_PAGESIZE);
	char *end;
	int opt, fd;
	FILE *f;

	while ((opt = getopt(argc, argv, "o:n:")) != -1) {
		switch (opt) {
		case 'o':
			path = optarg;
			break;
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || !n)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (!path || optind != argc - 1)
		goto usage;
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mmaploop: %s: %s\n", argv[optind], strerror(errno));
		return 66;
	}
	t0 = tb = mono_ns();
	for (i = 0; i < n; i++) {
		void *p;

		if (i && i % BLOCK == 0) {
			unsigned long long now = mono_ns();

			if (!best || now - tb < best)
				best = now - tb;
			tb = now;
		}
		p = mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED || munmap(p, pg)) {
			fprintf(stderr, "mmaploop: %s: %s\n",
				p == MAP_FAILED ? "mmap" : "munmap", strerror(errno));
			return 71;
		}
	}
	t1 = mono_ns();
	if (n % BLOCK == 0 && (!best || t1 - tb < best))
		best = t1 - tb;
	close(fd);
	f = fopen(path, "a");
	if (!f || fprintf(f, "mmap ops=%lu wall_ns=%llu block=%d best_ns=%llu\n",
			    n, t1 - t0, BLOCK, best) < 0 || fclose(f)) {
		fprintf(stderr, "mmaploop: %s: %s\n", path, strerror(errno));
		return 74;
	}
	return 0;
usage:
	fprintf(stderr, "usage: mmaploop -o FILE [-n N] MAPPED\n");
	return 64;
}
