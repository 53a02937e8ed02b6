// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog version: the ABI this tool reads, and the loaded module's.
 *
 *   tool abi=1.0.0
 *   module abi=1.0.0 device=/dev/pmclog
 *
 * The second line is missing, with the reason on stderr, when the device
 * does not open; that is not an error of this command.  `pmclog
 * --version` is this command.
 */
#include <stdio.h>
#include <sysexits.h>

#include "builtin.h"
#include "pmclog_device.h"

static void print_abi(const char *who, __u32 v)
{
	printf("%s abi=%u.%u.%u", who, PMCLOG_ABI_VERSION_MAJOR(v),
	       PMCLOG_ABI_VERSION_MINOR(v), PMCLOG_ABI_VERSION_PATCH(v));
}

const struct cmd_usage version_usage = {
	.name = "version",
	.summary = "print the ABI versions of this tool and of the loaded module",
	.options = (const struct cmd_option[]){ OPT_END() },
	.notes = "'pmclog --version' is the same command.",
};

int cmd_version(int argc, char **argv)
{
	struct pmclog_device_opts opts = PMCLOG_DEVICE_OPTS_INIT;
	struct pmclog_device *dev;
	int ret, first;

	ret = parse_options(&version_usage, argc, argv, NULL, &first);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	if (first != argc)
		return cmd_usage_error(&version_usage, "unexpected argument '%s'", argv[first]);
	print_abi("tool", PMCLOG_ABI_CURRENT);
	printf("\n");
	fflush(stdout);
	/* A major this tool does not speak is said, and still shown. */
	opts.any_abi = true;
	dev = pmclog_device__open(&opts);
	if (dev) {
		print_abi("module", pmclog_device__abi_version(dev));
		printf(" device=%s\n", pmclog_device__path(dev));
		pmclog_device__close(dev);
	}
	return fflush(stdout) ? EX_IOERR : EX_OK;
}
