// SPDX-License-Identifier: GPL-2.0
/*
 * One table of options per subcommand (parse_options.h): getopt_long()'s
 * arguments built from it, each option applied as its entry says, and
 * the usage printed from it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "parse_options.h"

#define MAX_OPTIONS	64
#define HELP_COLUMN	22	/* where an option's help starts */
#define SYNOPSIS_WIDTH	79
#define LONG_BASE	256	/* getopt_long() value of entry i without a short name */

static size_t count_options(const struct cmd_option *opts)
{
	size_t n = 0;

	while (opts[n].type != CMD_OPTION_END)
		n++;
	return n;
}

/* "-i, --input FILE" or "    --sort KEYS" or "-q". */
static int option_left(const struct cmd_option *o, char *buf, size_t len)
{
	int n = 0;

	if (o->short_name)
		n += snprintf(buf + n, len - n, "-%c", o->short_name);
	else
		n += snprintf(buf + n, len - n, "    ");
	if (o->short_name && o->long_name)
		n += snprintf(buf + n, len - n, ", ");
	if (o->long_name)
		n += snprintf(buf + n, len - n, "--%s", o->long_name);
	if (o->argh)
		n += snprintf(buf + n, len - n, " %s", o->argh);
	return n;
}

/* "-i FILE" or "--sort KEYS": how the synopsis spells it. */
static int option_short_form(const struct cmd_option *o, char *buf, size_t len)
{
	int n;

	if (o->short_name)
		n = snprintf(buf, len, "-%c", o->short_name);
	else
		n = snprintf(buf, len, "--%s", o->long_name);
	if (o->argh && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s", o->argh);
	return n;
}

/*
 * One item of the synopsis, after a space; past SYNOPSIS_WIDTH on a
 * new line, under column indent.
 */
static void put_item(FILE *f, const char *item, int indent, int *col)
{
	int len = (int)strlen(item);

	if (*col > indent && *col + 1 + len > SYNOPSIS_WIDTH) {
		fprintf(f, "\n%*s", indent, "");
		*col = indent;
	} else {
		fputc(' ', f);
		(*col)++;
	}
	fputs(item, f);
	*col += len;
}

void cmd_synopsis_print(const struct cmd_usage *u, FILE *f, int indent)
{
	const struct cmd_option *opts = u->options;
	size_t n = count_options(opts);
	bool done[MAX_OPTIONS] = { false };
	char item[512];
	int col = indent;

	indent++;	/* under the first item, after its space */
	for (size_t i = 0; i < n && i < MAX_OPTIONS; i++) {
		size_t len = 0;

		if (done[i] || opts[i].flags & CMD_OPT_ALIAS)
			continue;
		item[len++] = '[';
		len += (size_t)option_short_form(&opts[i], item + len, sizeof(item) - len);
		for (size_t j = i + 1; opts[i].group && j < n && j < MAX_OPTIONS; j++) {
			if (opts[j].group != opts[i].group || opts[j].flags & CMD_OPT_ALIAS)
				continue;
			len += (size_t)snprintf(item + len, sizeof(item) - len, " | ");
			len += (size_t)option_short_form(&opts[j], item + len, sizeof(item) - len);
			done[j] = true;
		}
		snprintf(item + len, sizeof(item) - len, "]");
		put_item(f, item, indent, &col);
	}
	if (u->operands)
		put_item(f, u->operands, indent, &col);
}

static void print_help_lines(const char *help, int column, FILE *f)
{
	const char *p = help;

	for (;;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(f, "%.*s\n", len, p);
		if (!nl)
			break;
		p = nl + 1;
		fprintf(f, "%*s", column, "");
	}
}

static void print_option(const char *left, const char *help, FILE *f)
{
	int n = fprintf(f, "  %s", left);

	if (n + 2 > HELP_COLUMN) {
		fprintf(f, "\n");
		n = 0;
	}
	fprintf(f, "%*s", HELP_COLUMN - n, "");
	print_help_lines(help, HELP_COLUMN, f);
}

void cmd_usage_print(const struct cmd_usage *u, FILE *f)
{
	const struct cmd_option *o;
	char left[128];

	cmd_synopsis_print(u, f, fprintf(f, "usage: pmclog %s", u->name));
	fprintf(f, "\n\n%s\n\n", u->summary);
	for (o = u->options; o->type != CMD_OPTION_END; o++) {
		option_left(o, left, sizeof(left));
		print_option(left, o->help, f);
	}
	print_option("-h, --help", "print this usage and exit", f);
	if (u->notes)
		fprintf(f, "\n%s\n", u->notes);
}

int cmd_usage_error(const struct cmd_usage *u, const char *fmt, ...)
{
	va_list ap;
	int col;

	fprintf(stderr, "pmclog %s: ", u->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	col = fprintf(stderr, "\nusage: pmclog %s", u->name) - 1;
	cmd_synopsis_print(u, stderr, col);
	fprintf(stderr, "\n(pmclog %s --help says what each option does)\n", u->name);
	return EX_USAGE;
}

static int apply(const struct cmd_option *o, void *args, const char *arg)
{
	char *field = (char *)args + o->offset;

	switch (o->type) {
	case CMD_OPTION_STRING:
		*(const char **)field = arg;
		return 0;
	case CMD_OPTION_BOOL:
		*(bool *)field = o->value;
		return 0;
	case CMD_OPTION_INT:
		*(int *)field = o->value;
		return 0;
	case CMD_OPTION_CALLBACK:
		return o->callback(args, arg);
	case CMD_OPTION_END:
		break;
	}
	return EX_SOFTWARE;
}

/* "--no": ambiguous, naming the candidates; else unknown. */
static int unknown_long(const struct cmd_usage *u, const struct option *longs,
			const char *word)
{
	size_t len = strcspn(word + 2, "=");
	char names[256] = "";
	int n = 0, at = 0;

	for (const struct option *l = longs; l->name && len; l++)
		if (!strncmp(l->name, word + 2, len) && at < (int)sizeof(names)) {
			at += snprintf(names + at, sizeof(names) - (size_t)at, "%s--%s",
				       n ? ", " : "", l->name);
			n++;
		}
	if (n > 1)
		return cmd_usage_error(u, "ambiguous option '%s': %s?", word, names);
	if (n == 1 && word[2 + len] == '=')
		return cmd_usage_error(u, "option '--%s' takes no argument", names + 2);
	return cmd_usage_error(u, "unknown option '%s'", word);
}

int parse_options(const struct cmd_usage *u, int argc, char **argv, void *args,
		  int *operand)
{
	const struct cmd_option *opts = u->options;
	size_t n = count_options(opts), nlong = 0;
	struct option longs[MAX_OPTIONS + 2];
	char shorts[3 * MAX_OPTIONS + 8];
	size_t ns = 0;
	int opt, ret;

	if (n > MAX_OPTIONS)
		return EX_SOFTWARE;
	/* '+': stop at the first operand; ':': say which argument is missing. */
	if (u->stop_at_operand)
		shorts[ns++] = '+';
	shorts[ns++] = ':';
	for (size_t i = 0; i < n; i++) {
		const struct cmd_option *o = &opts[i];

		if (o->short_name) {
			shorts[ns++] = (char)o->short_name;
			if (o->argh)
				shorts[ns++] = ':';
		}
		if (o->long_name)
			longs[nlong++] = (struct option){
				.name = o->long_name,
				.has_arg = o->argh ? required_argument : no_argument,
				.val = o->short_name ? o->short_name : LONG_BASE + (int)i,
			};
	}
	shorts[ns++] = 'h';
	shorts[ns] = '\0';
	longs[nlong++] = (struct option){ .name = "help", .val = 'h' };
	longs[nlong] = (struct option){ 0 };

	optind = 0;	/* glibc: a new argv, and another optstring, from scratch */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cmd_option *o = NULL;

		if (opt == 'h') {
			cmd_usage_print(u, stdout);
			return fflush(stdout) ? EX_IOERR : PARSE_OPTIONS_HELP;
		}
		/* argv[optind - 1] is the word it stopped at: "--sort", "-qi". */
		if (opt == '?' && (!optopt || !strncmp(argv[optind - 1], "--", 2)))
			return unknown_long(u, longs, argv[optind - 1]);
		if (opt == '?')
			return cmd_usage_error(u, "unknown option '-%c'", optopt);
		if (opt == ':' && optopt > 0 && optopt < LONG_BASE &&
		    strncmp(argv[optind - 1], "--", 2))
			return cmd_usage_error(u, "option '-%c' needs an argument", optopt);
		if (opt == ':')
			return cmd_usage_error(u, "option '%s' needs an argument",
					       argv[optind - 1]);
		if (opt >= LONG_BASE)
			o = &opts[opt - LONG_BASE];
		for (size_t i = 0; !o && i < n; i++)
			if (opts[i].short_name == opt)
				o = &opts[i];
		if (!o)
			return EX_SOFTWARE;
		ret = apply(o, args, optarg);
		if (ret)
			return ret;
	}
	*operand = optind;
	return 0;
}
