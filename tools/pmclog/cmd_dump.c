// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog dump [-i FILE]: every record of a log, one line each, in the
 * format of lib/pmclog_format.h.  FILE "-" is standard input.
 *
 * A corrupt or truncated log prints what comes before the bad record,
 * then the reason on stderr, and exits EX_DATAERR.
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

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: pmclog dump [-i FILE]\n"
		"  -i FILE  the log to print (default %s; - for standard input)\n",
		DEFAULT_INPUT);
}

static struct pmclog_reader *open_input(const char *input, const char **name)
{
	if (strcmp(input, "-")) {
		*name = input;
		return pmclog_reader__open_file(input, NULL);
	}
	*name = "standard input";
	return pmclog_reader__open_fd(STDIN_FILENO, NULL);
}

/* The exit status and messages for the way the records ran out. */
static int dump_end(struct pmclog_reader *r, const char *name, int ret)
{
	int err = -ret;

	if (ret == 0) {
		if (pmclog_reader__end(r) == PMCLOG_READER_END_EOF)
			warnx("%s: no CLOSELOG at offset %llu: the recording was cut short; the records above are complete",
			      name, (unsigned long long)pmclog_reader__offset(r));
		return EX_OK;
	}
	warnx("%s: %s", name, pmclog_reader__errmsg(r));
	if (err == EBADMSG)
		warnx("%s: the records before offset %llu are printed above; nothing after it can be trusted",
		      name, (unsigned long long)pmclog_reader__offset(r));
	if (err == EBADMSG || err == EPROTONOSUPPORT)
		return EX_DATAERR;
	return err == ENOMEM ? EX_OSERR : EX_IOERR;
}

int cmd_dump(int argc, char **argv)
{
	const char *input = DEFAULT_INPUT, *name;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	int opt, ret, status;

	optind = 1;
	while ((opt = getopt(argc, argv, "i:h")) != -1) {
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 'h':
			dump_usage(stdout);
			return EX_OK;
		default:
			dump_usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind != argc) {
		dump_usage(stderr);
		return EX_USAGE;
	}

	r = open_input(input, &name);
	if (!r) {
		warn("cannot open %s", name);
		return errno == ENOMEM ? EX_OSERR : EX_NOINPUT;
	}
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		if (pmclog_format_record(stdout, &rec))
			break;
	if (fflush(stdout) || ferror(stdout)) {
		warnx("cannot write to standard output: %s", strerror(errno));
		status = EX_IOERR;
	} else {
		status = dump_end(r, name, ret);
	}
	pmclog_reader__free(r);
	return status;
}
