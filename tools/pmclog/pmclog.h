/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmclog(1) internals: the subcommands and what they share.
 */
#ifndef PMCLOG_H
#define PMCLOG_H

#include <linux/pmclog.h>

/*
 * A subcommand: argv[0] is its name, options follow.  Returns an exit
 * status from <sysexits.h>.
 */
struct pmclog_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;	/* options, after "pmclog NAME " */
	const char *summary;	/* one line for `pmclog help` */
};

int cmd_dump(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* The pmclog device: $PMCLOG_DEVICE, else PMCLOG_DEVICE_PATH. */
const char *device_path(void);

/*
 * Open the device read-only and check that the module speaks ABI major
 * PMCLOG_ABI_MAJOR.  On success return the fd and store the module's
 * packed ABI version in *abi_version.  On failure print why and what to
 * do (unless quiet), and return minus a <sysexits.h> status.
 */
int device_open(__u32 *abi_version, int quiet);

/*
 * The module's view of the hardware PMU (PMCLOG_IOC_GET_PMU), reason
 * NUL-terminated.  Return 0, -ENOTTY from a module older than ABI 1.1, or
 * another negative errno (printed).
 */
int device_pmu_info(int fd, struct pmclog_pmu_info *info);

#endif /* PMCLOG_H */
