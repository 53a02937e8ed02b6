// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog report: the profile of a log, by object and function (pmcstat -R
 * with its -k, -r, -M, -g, -q, -v).  The work is libpmclog's: the records
 * go to a replay (pmclog_replay.h), its samples to a report
 * (pmclog_report.h) that names them through a resolver
 * (pmclog_resolve.h), and their stacks (-g logs) to a callgraph
 * (pmclog_callgraph.h: --format folded, -G; and the timeline of
 * --format chrome-trace) and to a pprof profile (pmclog_pprof.h:
 * --format pprof); this file parses options and says how the log ended.
 *
 * Exit status: how the log ended, as for dump (log_end_of(), util.c):
 * 0 for a complete log; EX_PROTOCOL when it is cut short (no CLOSELOG,
 * or a partial last record) and EX_DATAERR for a corrupt record, both
 * after the profile of what came before; EX_DATAERR with nothing but the
 * reason for a file that is not a log.  EX_NOINPUT also for a -k or -r
 * path that does not exist; EX_USAGE, EX_CANTCREAT, EX_OSERR as usual.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_callgraph.h"
#include "pmclog_pprof.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"

#define DEFAULT_INPUT	"pmclog.data"
#define MAX_PIDS	64

struct report_args {
	const char *input;	/* -i, -R or the operand; NULL until named */
	const char *format;	/* --format, --stdio; NULL until named */
	const char *gmon_dir;	/* -g */
	const char *mapfile;	/* -M */
	const char *event;	/* --event */
	const char *graph_file;	/* -G; "-": standard output */
	const char *output;	/* -o; NULL: standard output */
	bool format_given;	/* --format or --stdio */
	struct pmclog_resolver_opts ropts;	/* -r, -k */
	struct pmclog_report_opts opts;
	__u32 pids[MAX_PIDS];
	int verbosity;
};

static int parse_sort(void *args, const char *s)
{
	struct report_args *a = args;
	char *copy = strdup(s), *save = NULL, *tok;
	int ret = 0;

	if (!copy) {
		warn("--sort %s", s);
		return EX_OSERR;
	}
	a->opts.nkeys = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		enum pmclog_sort_key k;

		if (!strcmp(tok, "pid"))
			k = PMCLOG_SORT_PID;
		else if (!strcmp(tok, "dso") || !strcmp(tok, "object"))
			k = PMCLOG_SORT_DSO;
		else if (!strcmp(tok, "sym") || !strcmp(tok, "symbol"))
			k = PMCLOG_SORT_SYM;
		else if (!strcmp(tok, "srcline"))
			k = PMCLOG_SORT_SRCLINE;
		else
			ret = -1;
		for (size_t i = 0; !ret && i < a->opts.nkeys; i++)
			ret = a->opts.keys[i] == k ? -1 : 0;
		if (!ret && a->opts.nkeys == PMCLOG_SORT_MAX)
			ret = -1;
		if (!ret)
			a->opts.keys[a->opts.nkeys++] = k;
	}
	free(copy);
	if (ret || !a->opts.nkeys)
		warnx("--sort %s: expected a comma-separated list of pid, dso, sym, srcline, each once, at most %d",
		      s, PMCLOG_SORT_MAX);
	return ret || !a->opts.nkeys ? EX_USAGE : 0;
}

static int parse_time(void *args, const char *s)
{
	return parse_time_range(s, &((struct report_args *)args)->opts);
}

static int parse_pids(void *args, const char *s)
{
	struct report_args *a = args;

	return parse_pid_list(s, a->pids, MAX_PIDS, &a->opts);
}

/* Formats of the callgraph and of pmclog_pprof.h, not of the table's. */
#define FORMAT_CHROME_TRACE	"chrome-trace"
#define FORMAT_PPROF		"pprof"

static bool known_format(const char *name)
{
	if (!strcmp(name, FORMAT_CHROME_TRACE) || !strcmp(name, FORMAT_PPROF))
		return true;
	for (const char *const *f = pmclog_report__formats(); *f; f++)
		if (!strcmp(*f, name))
			return true;
	return false;
}

/* --format F, or --stdio (perf's): the one format, named once. */
static int set_format(struct report_args *a, const char *spelled, const char *name)
{
	if (a->format && strcmp(a->format, name)) {
		warnx("%s: the format is already %s (--format and --stdio choose one format)",
		      spelled, a->format);
		return EX_USAGE;
	}
	a->format = name;
	return 0;
}

static int parse_format(void *args, const char *arg)
{
	if (!known_format(arg)) {
		warnx("--format %s: expected text, json, folded, pprof or chrome-trace", arg);
		return EX_USAGE;
	}
	return set_format(args, "--format", arg);
}

static int parse_stdio(void *args, const char *arg)
{
	(void)arg;
	return set_format(args, "--stdio", "text");
}

static int parse_input(void *args, const char *arg)
{
	return set_input(&report_usage, &((struct report_args *)args)->input, arg);
}

static int parse_kernel(void *args, const char *arg)
{
	((struct report_args *)args)->ropts.kernel = arg;
	return 0;
}

static int parse_root(void *args, const char *arg)
{
	((struct report_args *)args)->ropts.root = arg;
	return 0;
}

const struct cmd_usage report_usage = {
	.name = "report",
	.summary = "the profile of a log: samples by object and function",
	.operands = "[FILE]",
	.options = (const struct cmd_option[]){
		OPT_CALLBACK('i', "input", "FILE", parse_input,
			     "the log (default " DEFAULT_INPUT "; - for standard\n"
			     "input); also the operand FILE"),
		OPT_ALIAS_CALLBACK('R', NULL, "FILE", parse_input,
				   "the same as -i (pmcstat's -R)"),
		OPT_CALLBACK('k', NULL, "DIR|FILE", parse_kernel,
			     "where the kernel (vmlinux, System.map) and its\n"
			     "modules (.ko, .ko.xz, .ko.zst) are, searched below\n"
			     "DIR; a kernel file also works.  Used for kernel\n"
			     "objects the log carries no symbols for"),
		OPT_CALLBACK('r', NULL, "ROOT", parse_root,
			     "prefix of every object path (and of -k): a copy\n"
			     "of the machine or container the log comes from"),
		OPT_STRING('g', NULL, "DIR", struct report_args, gmon_dir,
			   "also write a gprof(1) gmon.out profile per object\n"
			   "and event into DIR/EVENT"),
		OPT_STRING('M', NULL, "MAPFILE", struct report_args, mapfile,
			   "with -g: write \"GMONFILE OBJECT\" lines into MAPFILE"),
		OPT_STRING('G', NULL, "FILE", struct report_args, graph_file,
			   "write pmcstat's callgraph tree of a log recorded\n"
			   "with -g into FILE (- for standard output, instead\n"
			   "of the table)"),
		OPT_CALLBACK(0, "sort", "KEYS", parse_sort,
			     "comma-separated from pid, dso (object), sym (symbol),\n"
			     "srcline (file:line, DWARF); up to three; default\n"
			     "dso,sym"),
		OPT_CALLBACK(0, "pid", "PIDS", parse_pids,
			     "only these processes' samples (PID[,PID...])"),
		OPT_CALLBACK(0, "time", "FROM,TO", parse_time,
			     "only samples taken FROM to TO seconds after the log\n"
			     "started (decimals allowed; either may be empty)"),
		OPT_STRING(0, "event", "EVENT", struct report_args, event,
			   "only the profile of this event: its PMC id, its name\n"
			   "as recorded, or its label (NAME#ID); default: one\n"
			   "profile per event"),
		OPT_CALLBACK(0, "format", "text|json|folded|pprof|chrome-trace", parse_format,
			     "a table (the default), JSON profiles and\n"
			     "statistics, folded rows (the samples' stacks\n"
			     "when the log was recorded with -g), a pprof\n"
			     "profile (gzipped profile.proto, for go tool pprof,\n"
			     "Pyroscope, Parca); chrome-trace: the samples and\n"
			     "maps over time, a Chrome trace (JSON) for\n"
			     "Perfetto or chrome://tracing"),
		OPT_STRING('o', "output", "FILE", struct report_args, output,
			   "write the profile into FILE instead of standard\n"
			   "output"),
		OPT_CALLBACK(0, "stdio", NULL, parse_stdio,
			     "the table on standard output, as perf's --stdio:\n"
			     "--format text"),
		OPT_BOOL(0, "demangle", struct report_args, opts.demangle, true, 1,
			 "demangle C++ and Rust names (the default)"),
		OPT_BOOL(0, "no-demangle", struct report_args, opts.demangle, false, 1,
			 "C++ and Rust names as in the symbol table"),
		OPT_INT('q', NULL, struct report_args, verbosity, -1, 2,
			"no statistics on stderr"),
		OPT_INT('v', NULL, struct report_args, verbosity, 1, 2,
			"more statistics, objects by full path, and where\n"
			"each object's names came from"),
		OPT_END(),
	},
	.notes = "A -k or -r path that does not exist is an error (EX_NOINPUT), as perf\n"
		 "report's -k is.",
};

static int parse_args(int argc, char **argv, struct report_args *a)
{
	int ret, first;

	a->opts.keys[0] = PMCLOG_SORT_DSO;
	a->opts.keys[1] = PMCLOG_SORT_SYM;
	a->opts.nkeys = 2;
	a->opts.demangle = true;
	ret = parse_options(&report_usage, argc, argv, a, &first);
	if (ret)
		return ret;
	if (argc - first > 1)
		return cmd_usage_error(&report_usage, "unexpected argument '%s': report reads one log",
				       argv[first + 1]);
	if (first < argc && (ret = set_input(&report_usage, &a->input, argv[first])))
		return ret;
	if (!a->input)
		a->input = DEFAULT_INPUT;
	a->format_given = a->format;
	if (!a->format)
		a->format = "text";
	if (a->graph_file && !strcmp(a->graph_file, "-") && a->format_given)
		return cmd_usage_error(&report_usage,
				       "-G - prints the callgraph on standard output, where --format would print the profile: give -G a FILE");
	if (a->mapfile && !a->gmon_dir)
		return cmd_usage_error(&report_usage,
				       "-M MAPFILE goes with -g DIR (the map names the files written there)");
	if (a->graph_file && !strcmp(a->graph_file, "-") && a->output)
		return cmd_usage_error(&report_usage,
				       "-G - prints the callgraph on standard output and -o names a file for the profile: give -G a FILE");
	/* A gzip stream is no text for a terminal (go tool pprof reads it). */
	if (!strcmp(a->format, FORMAT_PPROF) && !a->output && isatty(STDOUT_FILENO))
		return cmd_usage_error(&report_usage,
				       "--format pprof writes a gzipped profile: redirect standard output or give -o FILE");
	a->opts.full_paths = a->verbosity > 0;
	return resolver_paths_exist(a->ropts.root, a->ropts.kernel);
}

/* ------------------------------------------------------------------ */

struct report_ctx {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
	struct pmclog_callgraph *cg;
	struct pmclog_pprof *pp;	/* --format pprof */
};

static void ctx_free(struct report_ctx *c)
{
	pmclog_pprof__free(c->pp);
	pmclog_callgraph__free(c->cg);
	pmclog_report__free(c->rep);
	pmclog_resolver__free(c->res);
	pmclog_replay__free(c->replay);
	pmclog_strings__free(c->strings);
}

/* Each sample to the report, the callgraph and the pprof profile. */
static int report_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct report_ctx *c = ctx;
	int ret = pmclog_callgraph__report_sample(c->cg, s);

	return ret || !c->pp ? ret : pmclog_pprof__sample(c->pp, s);
}

static int ctx_init(struct report_ctx *c, const struct report_args *a)
{
	c->strings = pmclog_strings__new();
	c->replay = c->strings ? pmclog_replay__new(c->strings) : NULL;
	c->res = c->replay ? pmclog_resolver__new(c->strings, &a->ropts) : NULL;
	c->rep = c->res ? pmclog_report__new(c->strings, c->replay, c->res, &a->opts) : NULL;
	c->cg = c->rep ? pmclog_callgraph__new(c->rep) : NULL;
	if (c->cg && !strcmp(a->format, FORMAT_PPROF))
		c->pp = pmclog_pprof__new(c->rep);
	/* Replayed as read: memory is the sort window's, not the log's. */
	if (c->cg && (c->pp || strcmp(a->format, FORMAT_PPROF)) &&
	    !pmclog_replay__stream(c->replay, report_sample, c))
		return 0;
	warnx("out of memory");
	return EX_OSERR;
}

/* -G FILE: the callgraph tree there; "-" is standard output. */
static int write_graph(struct report_ctx *c, const struct report_args *a)
{
	bool to_stdout = !strcmp(a->graph_file, "-");
	FILE *f;

	if (!pmclog_callgraph__samples(c->cg))
		warnx("-G %s: %s has no stacks (CALLCHAIN records): record it with pmclog record -g",
		      a->graph_file, a->input);
	f = to_stdout ? stdout : output_fopen("-G", a->graph_file, NULL);
	if (!f)
		return EX_CANTCREAT;
	pmclog_callgraph__print_tree(c->cg, f);
	if (to_stdout)
		return 0;
	if (ferror(f) | fclose(f)) {
		warn("-G %s: cannot write the callgraph", a->graph_file);
		return EX_IOERR;
	}
	return 0;
}

/* The replay's samples to the report, the callgraph and the profile. */
/* --format pprof: the profile into -o FILE or standard output. */
static int write_pprof(struct report_ctx *c, const struct report_args *a)
{
	FILE *f = a->output ? output_fopen("-o", a->output, NULL) : stdout;
	const char *name = a->output ? a->output : "standard output";

	if (!f)
		return EX_CANTCREAT;
	if (pmclog_pprof__write(c->pp, f)) {
		int err = errno;

		warnx("cannot write the pprof profile to %s: %s", name, strerror(err));
		if (a->output)
			fclose(f);
		return err == ENOMEM ? EX_OSERR : EX_IOERR;
	}
	if (a->output && fclose(f)) {
		warn("cannot write the pprof profile to %s", name);
		return EX_IOERR;
	}
	return 0;
}

/* Any other format into -o FILE: standard output becomes it. */
static int open_output(const struct report_args *a)
{
	int fd;

	if (!a->output || !strcmp(a->format, FORMAT_PPROF))
		return 0;
	fd = output_create("-o", a->output, NULL);
	if (fd < 0)
		return EX_CANTCREAT;
	if (fflush(stdout) || dup2(fd, STDOUT_FILENO) < 0) {
		warn("-o %s", a->output);
		close(fd);
		return EX_CANTCREAT;
	}
	close(fd);
	/* A file, not the terminal it may have been: not a write per line. */
	setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
	return 0;
}

static int produce(struct report_ctx *c, const struct report_args *a)
{
	int ret;

	if (pmclog_replay__run(c->replay, report_sample, c)) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
	/* The library says which events the log has. */
	if (a->event && pmclog_report__select(c->rep, a->event))
		return errno == ENOMEM ? EX_OSERR : EX_USAGE;
	if (pmclog_report__finish(c->rep) || pmclog_callgraph__finish(c->cg) ||
	    (c->pp && pmclog_pprof__finish(c->pp))) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
	if (a->graph_file && (ret = write_graph(c, a)))
		return ret;
	if ((ret = open_output(a)))
		return ret;
	if (a->graph_file && !strcmp(a->graph_file, "-"))
		;	/* the callgraph is the output */
	else if (!strcmp(a->format, FORMAT_CHROME_TRACE))
		pmclog_callgraph__print_chrome_trace(c->cg, stdout);
	else if (c->pp && (ret = write_pprof(c, a)))
		return ret;
	else if (c->pp)
		;
	else if (!strcmp(a->format, "folded") && pmclog_callgraph__samples(c->cg))
		pmclog_callgraph__print_folded(c->cg, stdout);
	else
		pmclog_report__print(c->rep, a->format, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		warn("cannot write the report to %s", a->output ? a->output : "standard output");
		return EX_IOERR;
	}
	/* What could not be written, the library has said. */
	if (a->gmon_dir && pmclog_report__write_gmon(c->rep, a->gmon_dir, a->mapfile))
		return EX_CANTCREAT;
	pmclog_report__print_stats(c->rep, stderr, a->verbosity);
	return EX_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct log_end end = { .status = EX_OK };
	struct report_ctx c = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	ret = ctx_init(&c, &a);
	if (!ret && !strcmp(a.format, FORMAT_CHROME_TRACE))
		pmclog_callgraph__keep_timeline(c.cg);
	if (!ret)
		ret = replay_log(a.input, c.replay, "in the profile above", &end);
	if (!ret)
		ret = produce(&c, &a);
	if (end.msg[0])
		warnx("%s", end.msg);
	ctx_free(&c);
	return ret ? ret : end.status;
}
