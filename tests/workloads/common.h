/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the test workloads. */
#ifndef WORKLOADS_COMMON_H
#define WORKLOADS_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Parse a non-negative number of seconds (fractions allowed), or exit 64. */
static inline double parse_seconds(const char *prog, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "%s: '%s' is not a number of seconds\n", prog, s);
		exit(64);	/* EX_USAGE */
	}
	return v;
}

/*
 * Append our pid to path ("-" is stdout), for scenarios that check whose
 * samples they got.  Appending lets several runs share one file.
 */
static inline void write_pid(const char *prog, const char *path, long pid)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "a") : stdout;

	if (!f || fprintf(f, "%ld\n", pid) < 0 || fflush(f)) {
		fprintf(stderr, "%s: cannot write pid to %s: %s\n", prog, path, strerror(errno));
		exit(73);	/* EX_CANTCREAT */
	}
	if (f != stdout)
		fclose(f);
}

#endif
