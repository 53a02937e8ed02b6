// SPDX-License-Identifier: GPL-2.0
/*
 * sigdfl CMD ARGS...: exec CMD with every signal at its default
 * disposition and unblocked.  A non-interactive (busybox) shell starts
 * background jobs with SIGINT and SIGQUIT ignored, and 'trap - INT' cannot
 * undo that; a scenario that stops a background recorder with SIGINT
 * starts it through this.
 */
#include <signal.h>
#include <unistd.h>
#include "common.h"

int main(int argc, char **argv)
{
	sigset_t none;
	int sig;

	if (argc < 2) {
		fprintf(stderr, "usage: sigdfl CMD ARGS...\n");
		return 64;
	}
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);	/* fails harmlessly for KILL, STOP, ... */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "sigdfl: exec %s: %s\n", argv[1], strerror(errno));
	return 127;
}
