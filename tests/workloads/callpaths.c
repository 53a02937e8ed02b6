// SPDX-License-Identifier: GPL-2.0
/*
 * callpaths [-n ROUNDS] [SECONDS]: main() calls path_a() and path_b() in
 * turn, and each calls the same hot(), path_a() with twice path_b()'s
 * work: a profile with stacks shows hot() under both paths, about 2:1.
 * For SECONDS (default 2), or ROUNDS rounds: a fixed amount of work, whose
 * time it prints ("callpaths: rounds=N ms=T"), to measure what sampling
 * costs the sampled program.
 *
 * callpaths -r SECONDS: read(2) /dev/zero in read_loop() instead, whose
 * samples are in the kernel, below read_loop()'s frames.
 *
 * Built -O0 -fno-omit-frame-pointer (the Makefile): every function keeps
 * its frame, so a frame-pointer walk sees each caller.
 */
#include <fcntl.h>
#include <unistd.h>
#include "common.h"

#define CHUNK	100000UL	/* hot()'s iterations for path_b() */

__attribute__((noinline)) unsigned long hot(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i;
	return x;
}

__attribute__((noinline)) unsigned long path_a(void)
{
	return hot(2 * CHUNK);
}

__attribute__((noinline)) unsigned long path_b(void)
{
	return hot(CHUNK);
}

__attribute__((noinline)) unsigned long read_loop(int fd, double seconds)
{
	static char buf[4096];
	double end = now_s() + seconds;
	unsigned long calls = 0;

	do {
		for (int i = 0; i < 64; i++, calls++) {
			if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
				perror("callpaths: read /dev/zero");
				exit(74);	/* EX_IOERR */
			}
		}
	} while (now_s() < end);
	return calls;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0, sum = 0;
	double seconds = 2, end, t0;
	int opt, fd, reads = 0;
	char *stop;

	while ((opt = getopt(argc, argv, "n:r")) != -1) {
		switch (opt) {
		case 'n':
			rounds = strtoul(optarg, &stop, 10);
			if (!rounds || *stop) {
				fprintf(stderr, "callpaths: -n needs a positive number of rounds\n");
				return 64;
			}
			break;
		case 'r':
			reads = 1;
			break;
		default:
			fprintf(stderr, "usage: callpaths [-r] [-n ROUNDS] [SECONDS]\n");
			return 64;
		}
	}
	if (optind < argc)
		seconds = parse_seconds("callpaths", argv[optind]);
	if (reads) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0) {
			perror("callpaths: open /dev/zero");
			return 66;	/* EX_NOINPUT */
		}
		read_loop(fd, seconds);
		return 0;
	}
	t0 = now_s();
	end = t0 + seconds;
	for (unsigned long r = 0; rounds ? r < rounds : now_s() < end; r++) {
		sum += path_a();
		sum += path_b();
	}
	if (rounds)
		printf("callpaths: rounds=%lu ms=%.0f\n", rounds, (now_s() - t0) * 1e3);
	return sum == 1;	/* keep the work */
}
