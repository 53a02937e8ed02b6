/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmclog(1)'s commands (cmd_*.c, as perf's tools/perf/builtin.h declares
 * its builtin-*.c) and what they share (util.c).  Not libpmclog: the
 * library's headers are lib/pmclog_*.h.
 */
#ifndef PMCLOG_BUILTIN_H
#define PMCLOG_BUILTIN_H

#include <stdarg.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"

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

struct pmclog_device;

/*
 * pmclog record on dev, which it closes; NULL: the device
 * pmclog_device__open() finds, opened once the options are checked.
 * (Tests hand it a device whose module is a stand-in.)
 */
int record_main(int argc, char **argv, struct pmclog_device *dev);

/* The <sysexits.h> status for a pmclog_device__open() that failed with err. */
int device_open_status(int err);

/* The libpmclog print callback of the tool: "pmclog: MESSAGE" on stderr. */
int print_libpmclog(enum pmclog_print_level level, const char *fmt, va_list ap);

#endif /* PMCLOG_BUILTIN_H */
