// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog(1): record and decode pmclog sampling logs.
 *
 * Each subcommand is a row of the table below: a thin layer that parses
 * its options and calls libpmclog.  A new one (report) is a new row.
 */
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "builtin.h"

static const struct pmclog_command commands[] = {
	{ "record", cmd_record,
	  "[-a | -p PID | [--] CMD [ARGS...]] [-e EVENT] [-F HZ | -c COUNT] [-d] [-o FILE] [--no-kallsyms] [-q | -v]",
	  "sample a command, a process or the whole system into a log file" },
	{ "report", cmd_report,
	  "[-i FILE] [-k KERNELDIR] [-r ROOT] [-g DIR [-M MAPFILE]] [--sort KEYS] [--pid PIDS] [--format text|json|folded] [-q | -v]",
	  "the profile of a log: samples by object and function" },
	{ "dump", cmd_dump, "[-i FILE]",
	  "print every record of a log, one line each" },
	{ "list", cmd_list, "",
	  "list the events and which of them this machine's PMU counts" },
	{ "version", cmd_version, "",
	  "print the ABI versions of this tool and of the loaded module" },
	{ "help", cmd_help, "",
	  "print this help" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: pmclog COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  pmclog %s%s%s\n", commands[i].name,
			*commands[i].synopsis ? " " : "", commands[i].synopsis);
	fprintf(f, "\nThe device is %s (set PMCLOG_DEVICE to use another).\n",
		PMCLOG_DEVICE_PATH);
}

int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return EX_OK;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	pmclog_set_print(print_libpmclog);

	if (!name) {
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return cmd_help(argc - 1, argv + 1);
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "pmclog: unknown command '%s'; try 'pmclog help'\n", name);
	return EX_USAGE;
}
