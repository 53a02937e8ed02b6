// SPDX-License-Identifier: GPL-2.0
/*
 * The shared objects that dlswap loads one after the other: built twice,
 * as libhot_a.so with HOT_FN=hot_a and libhot_b.so with HOT_FN=hot_b, so
 * that each has one hot function of its own name.
 */
#include <time.h>

static volatile unsigned long spins;

static double hot_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long HOT_FN(double seconds)
{
	double end = hot_now() + seconds;
	unsigned long i;

	do {
		for (i = 0; i < (1UL << 20); i++)
			spins++;
	} while (hot_now() < end);
	return spins;
}
