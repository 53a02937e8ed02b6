// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog version: the ABI this tool reads, and the loaded module's.
 *
 *   tool abi=1.0.0
 *   module abi=1.0.0 device=/dev/pmclog
 *
 * The second line is missing, with the reason on stderr, when the device
 * does not open; that is not an error of this command.
 */
#include <stdio.h>
#include <sysexits.h>
#include <unistd.h>

#include "pmclog.h"

static void print_abi(const char *who, __u32 v)
{
	printf("%s abi=%u.%u.%u", who, PMCLOG_ABI_VERSION_MAJOR(v),
	       PMCLOG_ABI_VERSION_MINOR(v), PMCLOG_ABI_VERSION_PATCH(v));
}

int cmd_version(int argc, char **argv)
{
	__u32 module_abi = 0;
	int fd;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: pmclog version\n");
		return EX_USAGE;
	}
	print_abi("tool", PMCLOG_ABI_CURRENT);
	printf("\n");
	fflush(stdout);
	fd = device_open(&module_abi, 0);
	if (fd >= 0) {
		print_abi("module", module_abi);
		printf(" device=%s\n", device_path());
		close(fd);
	} else if (module_abi) {
		/* Opened, but a major this tool does not speak: still say it. */
		print_abi("module", module_abi);
		printf(" device=%s\n", device_path());
	}
	return fflush(stdout) ? EX_IOERR : EX_OK;
}
