// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog flamegraph: the stacks of a log recorded with -g as one
 * self-contained HTML file, an interactive flame graph (perf script
 * report flamegraph's flamegraph.html, without its network fetch of
 * d3).  The stacks are report --format folded's: the same replay, report
 * and callgraph (pmclog_callgraph.h), written as JSON
 * (pmclog_callgraph__print_flame_json()) into the page flamegraph.html,
 * which is part of this binary (flamegraph_html.S).
 *
 * Exit status: as report's, for how the log ended; EX_DATAERR, and no
 * file, for a log without stacks; EX_CANTCREAT / EX_IOERR when the page
 * cannot be written.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_callgraph.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"

#define DEFAULT_INPUT	"pmclog.data"
#define DEFAULT_OUTPUT	"flamegraph.html"
#define MAX_PIDS	64
#define DATA_MARKER	"@PMCLOG_FLAMEGRAPH_DATA@"

extern const char pmclog_flamegraph_html[], pmclog_flamegraph_html_end[];

struct flamegraph_args {
	const char *input;	/* -i or the operand; NULL until named */
	const char *output;	/* -o; "-": standard output */
	const char *event;	/* --event */
	struct pmclog_resolver_opts ropts;	/* -r, -k */
	struct pmclog_report_opts opts;
	__u32 pids[MAX_PIDS];
	int verbosity;
};

static int parse_input(void *args, const char *arg)
{
	return set_input(&flamegraph_usage, &((struct flamegraph_args *)args)->input, arg);
}

static int parse_kernel(void *args, const char *arg)
{
	((struct flamegraph_args *)args)->ropts.kernel = arg;
	return 0;
}

static int parse_root(void *args, const char *arg)
{
	((struct flamegraph_args *)args)->ropts.root = arg;
	return 0;
}

static int parse_pids(void *args, const char *s)
{
	struct flamegraph_args *a = args;

	return parse_pid_list(s, a->pids, MAX_PIDS, &a->opts);
}

static int parse_time(void *args, const char *s)
{
	return parse_time_range(s, &((struct flamegraph_args *)args)->opts);
}

const struct cmd_usage flamegraph_usage = {
	.name = "flamegraph",
	.summary = "the stacks of a -g log as an interactive flame graph (HTML)",
	.operands = "[FILE]",
	.options = (const struct cmd_option[]){
		OPT_CALLBACK('i', "input", "FILE", parse_input,
			     "the log (default " DEFAULT_INPUT "; - for standard\n"
			     "input); also the operand FILE"),
		OPT_STRING('o', "output", "FILE", struct flamegraph_args, output,
			   "the page to write (default " DEFAULT_OUTPUT "; - for\n"
			   "standard output)"),
		OPT_CALLBACK('k', NULL, "DIR|FILE", parse_kernel,
			     "where the kernel and its modules are, as for report"),
		OPT_CALLBACK('r', NULL, "ROOT", parse_root,
			     "prefix of every object path (and of -k), as for\n"
			     "report"),
		OPT_STRING(0, "event", "EVENT", struct flamegraph_args, event,
			   "only this event's stacks: its PMC id, its name as\n"
			   "recorded, or its label (NAME#ID); default: every\n"
			   "event, switched between in the page"),
		OPT_CALLBACK(0, "pid", "PIDS", parse_pids,
			     "only these processes' samples (PID[,PID...])"),
		OPT_CALLBACK(0, "time", "FROM,TO", parse_time,
			     "only samples taken FROM to TO seconds after the log\n"
			     "started"),
		OPT_BOOL(0, "demangle", struct flamegraph_args, opts.demangle, true, 1,
			 "demangle C++ and Rust names (the default)"),
		OPT_BOOL(0, "no-demangle", struct flamegraph_args, opts.demangle, false, 1,
			 "C++ and Rust names as in the symbol table"),
		OPT_INT('q', NULL, struct flamegraph_args, verbosity, -1, 2,
			"nothing on stderr but errors"),
		OPT_INT('v', NULL, struct flamegraph_args, verbosity, 1, 2,
			"the report's statistics on stderr"),
		OPT_END(),
	},
	.notes = "The page loads nothing: its script, styles and data are in the file.\n"
		 "The frames are those of report --format folded.",
};

static int parse_args(int argc, char **argv, struct flamegraph_args *a)
{
	int ret, first;

	/* Frames are named by object and function, as folded names them. */
	a->opts.keys[0] = PMCLOG_SORT_DSO;
	a->opts.keys[1] = PMCLOG_SORT_SYM;
	a->opts.nkeys = 2;
	a->opts.demangle = true;
	ret = parse_options(&flamegraph_usage, argc, argv, a, &first);
	if (ret)
		return ret;
	if (argc - first > 1)
		return cmd_usage_error(&flamegraph_usage,
				       "unexpected argument '%s': flamegraph reads one log",
				       argv[first + 1]);
	if (first < argc && (ret = set_input(&flamegraph_usage, &a->input, argv[first])))
		return ret;
	if (!a->input)
		a->input = DEFAULT_INPUT;
	if (!a->output)
		a->output = DEFAULT_OUTPUT;
	if (!*a->output)
		return cmd_usage_error(&flamegraph_usage, "-o: expected a file name (or -)");
	return resolver_paths_exist(a->ropts.root, a->ropts.kernel);
}

struct flamegraph_ctx {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
	struct pmclog_callgraph *cg;
};

static void ctx_free(struct flamegraph_ctx *c)
{
	pmclog_callgraph__free(c->cg);
	pmclog_report__free(c->rep);
	pmclog_resolver__free(c->res);
	pmclog_replay__free(c->replay);
	pmclog_strings__free(c->strings);
}

static int ctx_init(struct flamegraph_ctx *c, const struct flamegraph_args *a)
{
	c->strings = pmclog_strings__new();
	c->replay = c->strings ? pmclog_replay__new(c->strings) : NULL;
	c->res = c->replay ? pmclog_resolver__new(c->strings, &a->ropts) : NULL;
	c->rep = c->res ? pmclog_report__new(c->strings, c->replay, c->res, &a->opts) : NULL;
	c->cg = c->rep ? pmclog_callgraph__new(c->rep) : NULL;
	/* Replayed as read: memory is the sort window's, not the log's. */
	if (c->cg && !pmclog_replay__stream(c->replay, pmclog_callgraph__report_sample, c->cg))
		return 0;
	warnx("out of memory");
	return EX_OSERR;
}

/* The page with the data in place of its marker (which mark points to). */
static void write_page(const struct pmclog_callgraph *cg, const char *mark, FILE *f)
{
	size_t len = (size_t)(pmclog_flamegraph_html_end - pmclog_flamegraph_html);
	size_t head = (size_t)(mark - pmclog_flamegraph_html);
	size_t tail = head + sizeof(DATA_MARKER) - 1;

	fwrite(pmclog_flamegraph_html, 1, head, f);
	pmclog_callgraph__print_flame_json(cg, f);
	fwrite(pmclog_flamegraph_html + tail, 1, len - tail, f);
}

static int write_output(const struct flamegraph_ctx *c, const struct flamegraph_args *a)
{
	size_t len = (size_t)(pmclog_flamegraph_html_end - pmclog_flamegraph_html);
	const char *mark = memmem(pmclog_flamegraph_html, len, DATA_MARKER,
				  sizeof(DATA_MARKER) - 1);
	bool to_stdout = !strcmp(a->output, "-"), created = false;
	FILE *f;

	if (!mark) {
		warnx("this pmclog was built with a flamegraph.html without its data marker");
		return EX_SOFTWARE;
	}
	f = to_stdout ? stdout : output_fopen("-o", a->output, &created);
	if (!f)
		return EX_CANTCREAT;
	write_page(c->cg, mark, f);
	if (to_stdout ? fflush(f) || ferror(f) : ferror(f) | fclose(f)) {
		warn("%s: cannot write the flame graph", to_stdout ? "standard output" : a->output);
		/* Only a file made here: not /dev/null, nor the caller's FIFO. */
		if (created)
			unlink(a->output);
		return EX_IOERR;
	}
	if (a->verbosity >= 0 && !to_stdout)
		fprintf(stderr, "pmclog: wrote %s: %llu samples with stacks\n", a->output,
			(unsigned long long)pmclog_callgraph__samples(c->cg));
	return 0;
}

static int produce(struct flamegraph_ctx *c, const struct flamegraph_args *a)
{
	if (pmclog_replay__run(c->replay, pmclog_callgraph__report_sample, c->cg)) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
	if (a->event && pmclog_report__select(c->rep, a->event))
		return errno == ENOMEM ? EX_OSERR : EX_USAGE;
	if (pmclog_report__finish(c->rep) || pmclog_callgraph__finish(c->cg)) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
	if (!pmclog_callgraph__samples(c->cg)) {
		warnx("%s has no stacks (CALLCHAIN records)%s: record it with pmclog record -g",
		      a->input, a->opts.npids || a->opts.has_time ? " that --pid and --time keep" : "");
		return EX_DATAERR;
	}
	if (a->verbosity > 0)
		pmclog_report__print_stats(c->rep, stderr, a->verbosity);
	return write_output(c, a);
}

int cmd_flamegraph(int argc, char **argv)
{
	struct flamegraph_args a = { 0 };
	struct log_end end = { .status = EX_OK };
	struct flamegraph_ctx c = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	ret = ctx_init(&c, &a);
	if (!ret)
		ret = replay_log(a.input, c.replay, "in the flame graph", &end);
	if (!ret)
		ret = produce(&c, &a);
	if (end.msg[0])
		warnx("%s", end.msg);
	ctx_free(&c);
	return ret ? ret : end.status;
}
