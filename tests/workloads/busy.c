// SPDX-License-Identifier: GPL-2.0
/*
 * busy [-p PIDFILE] [SECONDS]: spin in user mode, in busy_loop(), for
 * SECONDS of wall-clock time (forever without it).  -p appends the pid to
 * PIDFILE ("-" for stdout) before spinning, for scenarios that check
 * whose samples they got.
 */
#include <unistd.h>
#include "common.h"

/* Global, like the loop functions, so that reports find them by name. */
/* Read and written so the compiler keeps the loop; never shared. */
static volatile unsigned long spins;

/*
 * All the user time goes here.  The clock is read every 2^20 iterations
 * only, so that nearly every sample lands in this function, not in the
 * vDSO.
 */
__attribute__((noinline)) unsigned long busy_loop(double seconds)
{
	double end = now_s() + seconds;
	unsigned long i;

	for (;;) {
		for (i = 0; i < (1UL << 20); i++)
			spins++;
		if (seconds > 0 && now_s() >= end)
			return spins;
	}
}

int main(int argc, char **argv)
{
	double seconds = 0;
	int opt;

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		switch (opt) {
		case 'p':
			write_pid("busy", optarg, getpid());
			break;
		default:
			fprintf(stderr, "usage: busy [-p PIDFILE] [SECONDS]\n");
			return 64;
		}
	}
	if (optind < argc)
		seconds = parse_seconds("busy", argv[optind]);
	busy_loop(seconds);
	return 0;
}
