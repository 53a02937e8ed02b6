// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog(1): record and decode pmclog sampling logs.
 *
 * Each subcommand is a row of the table below: a thin layer that parses
 * its options (its cmd_usage, parse_options.h) and calls libpmclog.  A
 * new one is a new row.  `pmclog --version` is `pmclog version`, and
 * `pmclog help CMD` is `pmclog CMD --help`, as in perf.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "builtin.h"

static const struct pmclog_command commands[] = {
	{ &record_usage, cmd_record },
	{ &report_usage, cmd_report },
	{ &flamegraph_usage, cmd_flamegraph },
	{ &script_usage, cmd_script },
	{ &dump_usage, cmd_dump },
	{ &list_usage, cmd_list },
	{ &version_usage, cmd_version },
	{ &help_usage, cmd_help },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct pmclog_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].usage->name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pmclog COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].usage->name, commands[i].usage->summary);
	fprintf(f, "\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct cmd_usage *u = commands[i].usage;

		cmd_synopsis_print(u, f, fprintf(f, "  pmclog %s", u->name));
		fprintf(f, "\n");
	}
	fprintf(f, "\n'pmclog COMMAND --help' says what its options do; 'pmclog --version' is\n"
		"'pmclog version'.  The device is %s (set PMCLOG_DEVICE to use\n"
		"another).\n", PMCLOG_DEVICE_PATH);
}

const struct cmd_usage help_usage = {
	.name = "help",
	.summary = "print this help, or with COMMAND that command's usage",
	.operands = "[COMMAND]",
	.options = (const struct cmd_option[]){ OPT_END() },
};

int cmd_help(int argc, char **argv)
{
	const struct pmclog_command *c;
	int ret, first;

	ret = parse_options(&help_usage, argc, argv, NULL, &first);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	if (argc - first > 1)
		return cmd_usage_error(&help_usage, "one command at most");
	if (first == argc) {
		usage(stdout);
	} else {
		c = find_command(argv[first]);
		if (!c)
			return cmd_usage_error(&help_usage, "unknown command '%s'", argv[first]);
		cmd_usage_print(c->usage, stdout);
	}
	return fflush(stdout) ? EX_IOERR : EX_OK;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct pmclog_command *c;

	pmclog_set_print(print_libpmclog);

	if (!name) {
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(name, "--version"))
		return cmd_version(argc - 1, argv + 1);
	c = find_command(name);
	if (c)
		return c->run(argc - 1, argv + 1);
	warnx("unknown command '%s'; try 'pmclog help'", name);
	return EX_USAGE;
}
