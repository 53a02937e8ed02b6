/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark's generators' random numbers: xorshift64 from a fixed
 * seed, so that every run writes the same log.
 */
#ifndef BENCH_XORSHIFT_H
#define BENCH_XORSHIFT_H

#include <linux/types.h>

static __u64 rng = 0x9e3779b97f4a7c15ULL;

static __u64 next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#endif /* BENCH_XORSHIFT_H */
