// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog report: the profile of a log, by object and function (pmcstat -R
 * with its -k, -r, -M, -g, -q, -v).  The work is libpmclog's: the records
 * go to a replay (pmclog_replay.h), its samples to a report
 * (pmclog_report.h) that names them through a resolver
 * (pmclog_resolve.h), and their stacks (-g logs) to a callgraph
 * (pmclog_callgraph.h: --format folded, -G); this file parses options
 * and says how the log ended.
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
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_callgraph.h"
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

/* One side of --time: seconds, or empty for the log's edge (*ns kept). */
static int parse_seconds(const char *s, size_t len, __u64 *ns)
{
	char buf[64], *end;
	double v;

	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || v < 0 || v > 1e9)
		return -1;
	*ns = (__u64)(v * 1e9 + 0.5);
	return 0;
}

/* --time FROM,TO: seconds after INITIALIZE; FROM or TO may be empty. */
static int parse_time(void *args, const char *s)
{
	struct report_args *a = args;
	const char *comma = strchr(s, ',');

	a->opts.time_from = 0;
	a->opts.time_to = UINT64_MAX;
	if (!comma || parse_seconds(s, (size_t)(comma - s), &a->opts.time_from) ||
	    parse_seconds(comma + 1, strlen(comma + 1), &a->opts.time_to) ||
	    a->opts.time_from >= a->opts.time_to) {
		warnx("--time %s: expected FROM,TO in seconds after the log's start, FROM < TO (e.g. 1.5,3 or ,2)", s);
		return EX_USAGE;
	}
	a->opts.has_time = true;
	return 0;
}

static int parse_pids(void *args, const char *s)
{
	struct report_args *a = args;
	const char *p = s;
	char *end;

	while (*p) {
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > 0xffffffffUL || (*end && *end != ',') ||
		    a->opts.npids == MAX_PIDS) {
			warnx("--pid %s: expected up to %d comma-separated process ids", s, MAX_PIDS);
			return EX_USAGE;
		}
		a->pids[a->opts.npids++] = (__u32)v;
		p = *end ? end + 1 : end;
	}
	a->opts.pids = a->pids;
	return 0;
}

static bool known_format(const char *name)
{
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
		warnx("--format %s: expected text, json or folded", arg);
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
		OPT_CALLBACK(0, "format", "text|json|folded", parse_format,
			     "a table (the default), JSON profiles and\n"
			     "statistics, or folded rows (the samples' stacks\n"
			     "when the log was recorded with -g)"),
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

/*
 * -k and -r name files that must exist: a report without them would
 * name nothing from them, and say so only object by object.  As perf
 * report does for -k ("Invalid file"), that is an error.
 */
static int check_paths(const struct report_args *a)
{
	const char *root = a->ropts.root, *kernel = a->ropts.kernel;
	struct stat st;
	char path[4096];
	size_t n;

	if (root && *root) {
		if (stat(root, &st) < 0) {
			warn("-r %s", root);
			return EX_NOINPUT;
		}
		if (!S_ISDIR(st.st_mode)) {
			warnx("-r %s: not a directory (the root the objects' paths are under)", root);
			return EX_NOINPUT;
		}
	}
	if (!kernel)
		return 0;
	/* Where the resolver looks: ROOT (less its trailing slashes) + -k. */
	n = root ? strlen(root) : 0;
	while (n && root[n - 1] == '/')
		n--;
	if ((size_t)snprintf(path, sizeof(path), "%.*s%s", (int)n, root ? root : "",
			     kernel) >= sizeof(path)) {
		warnx("-k %s: path too long", kernel);
		return EX_USAGE;
	}
	if (stat(path, &st) < 0) {
		if (n)
			warnx("-k %s: %s (under -r %s: %s)", kernel, strerror(errno), root, path);
		else
			warn("-k %s", kernel);
		return EX_NOINPUT;
	}
	return 0;
}

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
	a->opts.full_paths = a->verbosity > 0;
	return check_paths(a);
}

/* ------------------------------------------------------------------ */
/* Reading                                                            */

static int read_log(const struct report_args *a, struct pmclog_replay *rp,
		    struct log_end *end)
{
	bool stdin_input = !strcmp(a->input, "-");
	const char *name = stdin_input ? "standard input" : a->input;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	int ret;

	r = stdin_input ? pmclog_reader__open_fd(STDIN_FILENO, NULL) :
			  pmclog_reader__open_file(a->input, NULL);
	if (!r) {
		warn("cannot open %s", name);
		return errno == ENOMEM ? EX_OSERR : EX_NOINPUT;
	}
	/* Replayed as read: memory is the sort window's, not the log's. */
	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		if (pmclog_replay__add(rp, &rec)) {
			pmclog_reader__free(r);
			warnx("%s: out of memory at offset %llu", name,
			      (unsigned long long)rec.offset);
			return EX_OSERR;
		}
	}
	log_end_of(r, ret, a->input, STDIN_FILENO, name, "in the profile above", end);
	pmclog_reader__free(r);
	if (!end->readable) {
		/* Not a log, or nothing of it can be read: no empty profile. */
		warnx("%s", end->msg);
		end->msg[0] = '\0';
		return end->status;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

struct report_ctx {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
	struct pmclog_callgraph *cg;
};

static void ctx_free(struct report_ctx *c)
{
	pmclog_callgraph__free(c->cg);
	pmclog_report__free(c->rep);
	pmclog_resolver__free(c->res);
	pmclog_replay__free(c->replay);
	pmclog_strings__free(c->strings);
}

static int ctx_init(struct report_ctx *c, const struct report_args *a)
{
	c->strings = pmclog_strings__new();
	c->replay = c->strings ? pmclog_replay__new(c->strings) : NULL;
	c->res = c->replay ? pmclog_resolver__new(c->strings, &a->ropts) : NULL;
	c->rep = c->res ? pmclog_report__new(c->strings, c->replay, c->res, &a->opts) : NULL;
	c->cg = c->rep ? pmclog_callgraph__new(c->rep) : NULL;
	if (c->cg && !pmclog_replay__stream(c->replay, pmclog_callgraph__report_sample, c->cg))
		return 0;
	warnx("out of memory");
	return EX_OSERR;
}

/* -G FILE: the callgraph tree there; "-" is standard output. */
static int write_graph(struct report_ctx *c, const struct report_args *a)
{
	bool to_stdout = !strcmp(a->graph_file, "-");
	FILE *f = to_stdout ? stdout : fopen(a->graph_file, "w");

	if (!pmclog_callgraph__samples(c->cg))
		warnx("-G %s: %s has no stacks (CALLCHAIN records): record it with pmclog record -g",
		      a->graph_file, a->input);
	if (!f) {
		warn("-G %s", a->graph_file);
		return EX_CANTCREAT;
	}
	pmclog_callgraph__print_tree(c->cg, f);
	if (to_stdout)
		return 0;
	if (ferror(f) | fclose(f)) {
		warn("-G %s: cannot write the callgraph", a->graph_file);
		return EX_IOERR;
	}
	return 0;
}

static int produce(struct report_ctx *c, const struct report_args *a)
{
	int ret;

	if (pmclog_replay__run(c->replay, pmclog_callgraph__report_sample, c->cg)) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
	/* The library says which events the log has. */
	if (a->event && pmclog_report__select(c->rep, a->event))
		return errno == ENOMEM ? EX_OSERR : EX_USAGE;
	if (pmclog_report__finish(c->rep) || pmclog_callgraph__finish(c->cg)) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
	if (a->graph_file && (ret = write_graph(c, a)))
		return ret;
	if (a->graph_file && !strcmp(a->graph_file, "-"))
		;	/* the callgraph is the output */
	else if (!strcmp(a->format, "folded") && pmclog_callgraph__samples(c->cg))
		pmclog_callgraph__print_folded(c->cg, stdout);
	else
		pmclog_report__print(c->rep, a->format, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		warn("cannot write the report to standard output");
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
	if (!ret)
		ret = read_log(&a, c.replay, &end);
	if (!ret)
		ret = produce(&c, &a);
	if (end.msg[0])
		warnx("%s", end.msg);
	ctx_free(&c);
	return ret ? ret : end.status;
}
