/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of pmclog's subcommands, one table each (after perf's
 * tools/lib/subcmd/parse-options.h): the table is what getopt_long()
 * is given, what `pmclog CMD --help` and `pmclog help` print, and what
 * tests/man/check-options.sh holds pmclog(1) to.  Adding an option is
 * adding an entry:
 *
 *	OPT_STRING('o', "output", "FILE", struct record_opts, output,
 *		   "the log (default pmclog.data)"),
 *	OPT_CALLBACK(0, "sort", "KEYS", parse_sort,
 *		     "comma-separated from pid, dso, sym"),
 *
 * then its item in pmclog(1).  Every subcommand takes -h and --help
 * without an entry: its usage on standard output, exit status 0.
 */
#ifndef PMCLOG_PARSE_OPTIONS_H
#define PMCLOG_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum cmd_option_type {
	CMD_OPTION_END,
	CMD_OPTION_STRING,	/* const char * = the argument */
	CMD_OPTION_BOOL,	/* bool = value */
	CMD_OPTION_INT,		/* int = value */
	CMD_OPTION_CALLBACK,	/* callback(args, argument) */
};

/* In the synopsis, options of one group show as alternatives: [-q | -v]. */
#define CMD_OPT_ALIAS	0x1U	/* another spelling: in --help, not in the synopsis */

struct cmd_option {
	enum cmd_option_type type;
	int short_name;		/* 'o', or 0: long only */
	const char *long_name;	/* "output", or NULL: short only */
	const char *argh;	/* "FILE"; NULL: takes no argument */
	const char *help;	/* lines of --help, split at '\n' */
	size_t offset;		/* STRING, BOOL, INT: the field in the args */
	int value;		/* BOOL, INT: what the option sets */
	/* CALLBACK: 0, or the exit status to stop with (it said why). */
	int (*callback)(void *args, const char *arg);
	int group;		/* nonzero: alternatives in the synopsis */
	unsigned int flags;	/* CMD_OPT_* */
};

/*
 * The field must have the type the option writes: a compile error
 * otherwise (a negative array size), not a write of the wrong width.
 */
#define CMD_OPT_FIELD(stype, field, ftype)					\
	(offsetof(stype, field) +						\
	 0 * sizeof(char[__builtin_types_compatible_p(				\
		__typeof__(((stype *)0)->field), ftype) ? 1 : -1]))

#define OPT_STRING(s, l, a, stype, field, h)					\
	{ .type = CMD_OPTION_STRING, .short_name = (s), .long_name = (l),	\
	  .argh = (a), .help = (h),						\
	  .offset = CMD_OPT_FIELD(stype, field, const char *) }
#define OPT_BOOL(s, l, stype, field, v, g, h)					\
	{ .type = CMD_OPTION_BOOL, .short_name = (s), .long_name = (l),	\
	  .help = (h), .offset = CMD_OPT_FIELD(stype, field, bool),		\
	  .value = (v), .group = (g) }
#define OPT_INT(s, l, stype, field, v, g, h)					\
	{ .type = CMD_OPTION_INT, .short_name = (s), .long_name = (l),		\
	  .help = (h), .offset = CMD_OPT_FIELD(stype, field, int),		\
	  .value = (v), .group = (g) }
#define OPT_CALLBACK(s, l, a, cb, h)						\
	{ .type = CMD_OPTION_CALLBACK, .short_name = (s), .long_name = (l),	\
	  .argh = (a), .help = (h), .callback = (cb) }
/* A callback option shown as an alternative of its group. */
#define OPT_CALLBACK_GROUP(s, l, a, cb, g, h)					\
	{ .type = CMD_OPTION_CALLBACK, .short_name = (s), .long_name = (l),	\
	  .argh = (a), .help = (h), .callback = (cb), .group = (g) }
#define OPT_ALIAS_CALLBACK(s, l, a, cb, h)					\
	{ .type = CMD_OPTION_CALLBACK, .short_name = (s), .long_name = (l),	\
	  .argh = (a), .help = (h), .callback = (cb), .flags = CMD_OPT_ALIAS }
#define OPT_END() { .type = CMD_OPTION_END }

/* A subcommand's line in `pmclog help`, and its options. */
struct cmd_usage {
	const char *name;	/* "report" */
	const char *summary;	/* one line for `pmclog help` */
	const char *operands;	/* after the options in the synopsis, or NULL */
	const struct cmd_option *options;
	/* Options stop at the first operand, which starts a command of its own. */
	bool stop_at_operand;
	const char *notes;	/* printed after the options, or NULL */
};

/*
 * Parse argv[1..argc-1] (argv[0] is the subcommand) into args through
 * u's table.  On return *operand is the index of the first operand.
 *
 * Return: 0; PARSE_OPTIONS_HELP after printing the usage for -h or
 * --help (the command then exits 0); or an exit status from
 * <sysexits.h>, the reason said on stderr.
 */
#define PARSE_OPTIONS_HELP	(-1)
int parse_options(const struct cmd_usage *u, int argc, char **argv, void *args,
		  int *operand);

/* "usage: pmclog NAME [OPTIONS] OPERANDS" and a line per option. */
void cmd_usage_print(const struct cmd_usage *u, FILE *f);
/*
 * The synopsis alone, " [-i FILE] [-k DIR|FILE] ... [FILE]", without the
 * name: from column indent on (where the caller left it), each item
 * after a space, lines wrapped under the first.
 */
void cmd_synopsis_print(const struct cmd_usage *u, FILE *f, int indent);
/* A usage error: "pmclog NAME: MESSAGE", then "try 'pmclog NAME --help'". */
int cmd_usage_error(const struct cmd_usage *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PMCLOG_PARSE_OPTIONS_H */
