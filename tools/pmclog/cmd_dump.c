// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog dump [-i FILE | FILE]: every record of a log, one line each,
 * in the format of lib/pmclog_format.h.  FILE "-" is standard input.
 *
 * A log that ends badly prints the records before the damage, then the
 * reason on stderr, with the exit status report gives for the same log
 * (log_end_of(), util.c); a file that is not a log prints nothing but
 * the reason.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_format.h"
#include "pmclog_reader.h"

#define DEFAULT_INPUT "pmclog.data"

struct dump_args {
	const char *input;	/* NULL until named */
};

static int dump_input(void *args, const char *arg)
{
	return set_input(&dump_usage, &((struct dump_args *)args)->input, arg);
}

const struct cmd_usage dump_usage = {
	.name = "dump",
	.summary = "print every record of a log, one line each",
	.operands = "[FILE]",
	.options = (const struct cmd_option[]){
		OPT_CALLBACK('i', "input", "FILE", dump_input,
			     "the log (default " DEFAULT_INPUT "; - for standard\n"
			     "input); also the operand FILE"),
		OPT_END(),
	},
};

static struct pmclog_reader *open_input(const char *input, const char **name)
{
	if (strcmp(input, "-")) {
		*name = input;
		return pmclog_reader__open_file(input, NULL);
	}
	*name = "standard input";
	return pmclog_reader__open_fd(STDIN_FILENO, NULL);
}

int cmd_dump(int argc, char **argv)
{
	struct dump_args a = { 0 };
	const char *name;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	struct log_end end;
	int ret, first, status;

	ret = parse_options(&dump_usage, argc, argv, &a, &first);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	if (argc - first > 1)
		return cmd_usage_error(&dump_usage, "unexpected argument '%s': dump reads one log",
				       argv[first + 1]);
	if (first < argc && (ret = set_input(&dump_usage, &a.input, argv[first])))
		return ret;
	if (!a.input)
		a.input = DEFAULT_INPUT;

	r = open_input(a.input, &name);
	if (!r) {
		warn("cannot open %s", name);
		return errno == ENOMEM ? EX_OSERR : EX_NOINPUT;
	}
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		if (pmclog_format_record(stdout, &rec))
			break;
	if (fflush(stdout) || ferror(stdout) || ret == 1) {
		warnx("cannot write to standard output: %s", strerror(errno));
		status = EX_IOERR;
	} else {
		log_end_of(r, ret, a.input, STDIN_FILENO, name, "printed above", &end);
		if (end.msg[0])
			warnx("%s", end.msg);
		status = end.status;
	}
	pmclog_reader__free(r);
	return status;
}
