/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmclog(1)'s commands (cmd_*.c, as perf's tools/perf/builtin.h declares
 * its builtin-*.c) and what they share (util.c).  Not libpmclog: the
 * library's headers are lib/pmclog_*.h.
 */
#ifndef PMCLOG_BUILTIN_H
#define PMCLOG_BUILTIN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"
#include "parse_options.h"

struct pmclog_reader;

/*
 * A subcommand: argv[0] is its name, options follow.  Returns an exit
 * status from <sysexits.h>, as pmclog(1) lists them (EXIT STATUS).
 * Its name, summary and options are its cmd_usage (parse_options.h),
 * which `pmclog help` and `pmclog NAME --help` print.
 */
struct pmclog_command {
	const struct cmd_usage *usage;
	int (*run)(int argc, char **argv);
};

extern const struct cmd_usage dump_usage, list_usage, record_usage,
	report_usage, version_usage, help_usage;
extern const struct cmd_usage flamegraph_usage;
extern const struct cmd_usage script_usage;

int cmd_dump(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_script(int argc, char **argv);
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

/*
 * How a log read by dump or report ended, and the exit status each way
 * gives: one table (util.c) for every command that reads a log.
 */
enum log_end_kind {
	LOG_END_COMPLETE,	/* CLOSELOG: 0 */
	LOG_END_NO_CLOSELOG,	/* stops at a record boundary: EX_PROTOCOL */
	LOG_END_TRUNCATED,	/* a partial last record: EX_PROTOCOL */
	LOG_END_CORRUPT,	/* a malformed record: EX_DATAERR */
	LOG_END_NOT_A_LOG,	/* empty, or not INITIALIZE first: EX_DATAERR */
	LOG_END_UNSUPPORTED,	/* an ABI major this tool does not read: EX_DATAERR */
	LOG_END_READ_ERROR,	/* read(2) failed: EX_IOERR */
	LOG_END_NO_MEMORY,	/* EX_OSERR */
};

struct log_end {
	enum log_end_kind kind;
	int status;		/* the exit status of kind */
	bool readable;		/* INITIALIZE was read: there is something to show */
	char msg[640];		/* what to say on stderr; "" when complete */
};

/*
 * Classify how r's records ran out: ret is pmclog_reader__next()'s last
 * return, input the path ("-" for standard input, fd), name what to call
 * it in messages, shown what the records before the damage became
 * ("printed above", "in the profile above").
 */
void log_end_of(struct pmclog_reader *r, int ret, const char *input, int fd,
		const char *name, const char *shown, struct log_end *e);

/*
 * report's and script's -r ROOT (a directory) and -k KERNEL (under ROOT)
 * exist: 0, else EX_NOINPUT (EX_USAGE for a path too long), said on stderr.
 */
int resolver_paths_exist(const char *root, const char *kernel);

/*
 * Make the output file path, named by option opt (-o, -G), as
 * pmclog_file__create() makes it: mode 0600, an existing file of the
 * caller's replaced, never written through another user's link or into
 * another user's file; /dev/null and the caller's FIFO are written to.
 * *created (may be NULL): whether the file is new.  Return: a descriptor
 * (O_WRONLY | O_CLOEXEC), or -1 said on stderr (EX_CANTCREAT).
 */
int output_create(const char *opt, const char *path, bool *created);

/* The same as a stdio stream; NULL said on stderr. */
FILE *output_fopen(const char *opt, const char *path, bool *created);

/* Set *input to the log named by arg, unless one already was (EX_USAGE). */
int set_input(const struct cmd_usage *u, const char **input, const char *arg);

struct pmclog_replay;

/*
 * Read the log input ("-": standard input) into replay rp: 0, with how it
 * ended in *end (shown: what the message says the records before a bad
 * end are in, "in the profile above"); or the exit status, said on
 * stderr, when it cannot be opened or read at all.
 */
int replay_log(const char *input, struct pmclog_replay *rp, const char *shown,
	       struct log_end *end);

struct pmclog_report_opts;

/*
 * --time FROM,TO (seconds after INITIALIZE, either may be empty) and
 * --pid PID[,PID...] (into pids, at most max) into the report's options;
 * EX_USAGE, said on stderr, for a bad one.
 */
int parse_time_range(const char *s, struct pmclog_report_opts *o);
int parse_pid_list(const char *s, __u32 *pids, size_t max, struct pmclog_report_opts *o);

/* The libpmclog print callback of the tool: "pmclog: MESSAGE" on stderr. */
int print_libpmclog(enum pmclog_print_level level, const char *fmt, va_list ap);

#endif /* PMCLOG_BUILTIN_H */
