// SPDX-License-Identifier: GPL-2.0
/*
 * timeit -o FILE [-t TAG] -- COMMAND [ARG...]: run COMMAND and append
 * "TAG wall_ns=N user_ns=N sys_ns=N status=S" to FILE: its wall-clock time
 * on CLOCK_MONOTONIC from fork to wait, and the CPU time of it and its
 * waited-for descendants.  Exits with COMMAND's status (128 + signal).
 *
 * The benchmark (tests/bench) runs it around a whole command
 * (`pmclog record -- ...`, `perf record -- ...`) and, inside, around the
 * profiled program alone, so that both times come from the same clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static unsigned long long ns_of(const struct timeval *tv)
{
	return (unsigned long long)tv->tv_sec * 1000000000ULL + (unsigned long long)tv->tv_usec * 1000ULL;
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *path = NULL, *tag = "run";
	unsigned long long t0, t1;
	struct rusage ru;
	int opt, st, rc;
	pid_t pid;
	FILE *f;

	while ((opt = getopt(argc, argv, "+o:t:")) != -1) {
		switch (opt) {
		case 'o': path = optarg; break;
		case 't': tag = optarg; break;
		default: goto usage;
		}
	}
	if (!path || optind >= argc)
		goto usage;
	t0 = mono_ns();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "timeit: fork: %s\n", strerror(errno));
		return 71;
	}
	if (!pid) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "timeit: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "timeit: wait4: %s\n", strerror(errno));
			return 71;
		}
	}
	t1 = mono_ns();
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	f = fopen(path, "a");
	if (!f || fprintf(f, "%s wall_ns=%llu user_ns=%llu sys_ns=%llu status=%d\n", tag,
			  t1 - t0, ns_of(&ru.ru_utime), ns_of(&ru.ru_stime), rc) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "timeit: %s: %s\n", path, strerror(errno));
		return 74;
	}
	return rc;
usage:
	fprintf(stderr, "usage: timeit -o FILE [-t TAG] -- COMMAND [ARG...]\n");
	return 64;
}
