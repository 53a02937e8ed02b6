// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls [-p PIDFILE] [SECONDS]: read(2) /dev/zero in a loop, in
 * syscall_loop(), for SECONDS (forever without it): a workload whose
 * samples are mostly in the kernel.
 */
#include <fcntl.h>
#include <unistd.h>
#include "common.h"

__attribute__((noinline)) unsigned long syscall_loop(int fd, double seconds)
{
	static char buf[4096];
	double end = now_s() + seconds;
	unsigned long calls = 0;
	int i;

	for (;;) {
		for (i = 0; i < 256; i++, calls++) {
			if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
				perror("syscalls: read /dev/zero");
				exit(74);	/* EX_IOERR */
			}
		}
		if (seconds > 0 && now_s() >= end)
			return calls;
	}
}

int main(int argc, char **argv)
{
	double seconds = 0;
	int opt, fd;

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		switch (opt) {
		case 'p':
			write_pid("syscalls", optarg, getpid());
			break;
		default:
			fprintf(stderr, "usage: syscalls [-p PIDFILE] [SECONDS]\n");
			return 64;
		}
	}
	if (optind < argc)
		seconds = parse_seconds("syscalls", argv[optind]);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("syscalls: open /dev/zero");
		return 66;	/* EX_NOINPUT */
	}
	syscall_loop(fd, seconds);
	return 0;
}
