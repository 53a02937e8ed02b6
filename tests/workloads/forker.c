// SPDX-License-Identifier: GPL-2.0
/*
 * forker [-n COUNT] [CMD ARGS...]: fork and exec a child COUNT times
 * (default 10), one after the other, waiting for each.  The child runs
 * CMD (default: this program with -c, which exits at once), giving
 * PROCFORK, PROCEXEC, MAP_IN and PROCEXIT records to check.
 * Exits 0 only when every child exited 0.
 */
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

__attribute__((noinline)) int fork_exec_wait(char **cmd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("forker: fork");
		return -1;
	}
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "forker: exec %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("forker: waitpid");
		return -1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char *self[] = { argv[0], "-c", NULL };
	char **cmd = self;
	long count = 10, i, failed = 0;
	int opt;

	while ((opt = getopt(argc, argv, "+cn:")) != -1) {
		switch (opt) {
		case 'c':
			return 0;	/* the default child */
		case 'n':
			count = strtol(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: forker [-n COUNT] [CMD ARGS...]\n");
			return 64;
		}
	}
	if (optind < argc)
		cmd = argv + optind;
	for (i = 0; i < count; i++)
		failed += fork_exec_wait(cmd) != 0;
	if (failed)
		fprintf(stderr, "forker: %ld of %ld children failed\n", failed, count);
	return failed ? 1 : 0;
}
