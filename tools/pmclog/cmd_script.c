// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog script: the samples of a log, with their stacks, in the text of
 * perf script (speedscope, the Firefox Profiler, stackcollapse-perf.pl
 * read it unchanged); with --show-mmap-events and --show-task-events the
 * maps and the processes' lives between them.  libpmclog's script
 * (pmclog_script.h) does the work, on a replay named through the report's
 * resolver; this file parses options and says how the log ended.
 *
 * Exit status: as report's (how the log ended, log_end_of(), util.c;
 * EX_NOINPUT for a -k or -r path that does not exist).
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_script.h"

#define DEFAULT_INPUT	"pmclog.data"
#define MAX_PIDS	64

struct script_args {
	const char *input;
	struct pmclog_resolver_opts ropts;
	struct pmclog_report_opts opts;
	struct pmclog_script_opts sopts;
	__u32 pids[MAX_PIDS];
};

static int parse_input(void *args, const char *arg)
{
	return set_input(&script_usage, &((struct script_args *)args)->input, arg);
}

static int parse_kernel(void *args, const char *arg)
{
	((struct script_args *)args)->ropts.kernel = arg;
	return 0;
}

static int parse_root(void *args, const char *arg)
{
	((struct script_args *)args)->ropts.root = arg;
	return 0;
}

static int parse_pids(void *args, const char *s)
{
	struct script_args *a = args;

	return parse_pid_list(s, a->pids, MAX_PIDS, &a->opts);
}

/* -F comm,tid,time,...: perf script's field names. */
static int parse_fields(void *args, const char *s)
{
	struct script_args *a = args;
	char *copy = strdup(s), *save = NULL, *tok;
	__u32 fields = 0;

	if (!copy) {
		warn("-F %s", s);
		return EX_OSERR;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		__u32 f = pmclog_script__field(tok);

		if (!f) {
			warnx("-F %s: unknown field '%s': expected comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso",
			      s, tok);
			free(copy);
			return EX_USAGE;
		}
		fields |= f;
	}
	free(copy);
	if (!fields) {
		warnx("-F %s: no field named", s);
		return EX_USAGE;
	}
	a->sopts.fields = fields;
	return 0;
}

const struct cmd_usage script_usage = {
	.name = "script",
	.summary = "the samples of a log and their stacks, as perf script prints them",
	.operands = "[FILE]",
	.options = (const struct cmd_option[]){
		OPT_CALLBACK('i', "input", "FILE", parse_input,
			     "the log (default " DEFAULT_INPUT "; - for standard\n"
			     "input); also the operand FILE"),
		OPT_CALLBACK('k', NULL, "DIR|FILE", parse_kernel,
			     "where the kernel and its modules are, as for\n"
			     "pmclog report -k"),
		OPT_CALLBACK('r', NULL, "ROOT", parse_root,
			     "prefix of every object path, as for pmclog report -r"),
		OPT_CALLBACK('F', "fields", "FIELDS", parse_fields,
			     "comma-separated from comm, pid, tid, cpu, time,\n"
			     "period, event, ip, sym, symoff, dso (default: all)"),
		OPT_CALLBACK(0, "pid", "PIDS", parse_pids,
			     "only these processes' samples and events (PID[,PID...])"),
		OPT_BOOL(0, "show-mmap-events", struct script_args, sopts.mmap_events, true, 0,
			 "also the maps (MAP_IN, MAP_OUT), modules loaded and\n"
			 "unloaded included"),
		OPT_BOOL(0, "show-task-events", struct script_args, sopts.task_events, true, 0,
			 "also the processes' exec, fork and exit"),
		OPT_BOOL(0, "demangle", struct script_args, opts.demangle, true, 1,
			 "demangle C++ and Rust names (the default)"),
		OPT_BOOL(0, "no-demangle", struct script_args, opts.demangle, false, 1,
			 "C++ and Rust names as in the symbol table"),
		OPT_END(),
	},
	.notes = "The text is perf script's; pmclog(1) says where it differs.",
};

static int run(const struct script_args *a, struct log_end *end)
{
	struct pmclog_strings *strings = pmclog_strings__new();
	struct pmclog_replay *rp = strings ? pmclog_replay__new(strings) : NULL;
	struct pmclog_resolver *res = rp ? pmclog_resolver__new(strings, &a->ropts) : NULL;
	struct pmclog_report *rep = res ? pmclog_report__new(strings, rp, res, &a->opts) : NULL;
	struct pmclog_script *sc = rep ? pmclog_script__new(rep, &a->sopts) : NULL;
	int ret;

	if (!sc) {
		warnx("out of memory");
		ret = EX_OSERR;
		goto out;
	}
	/*
	 * Replayed as read, the other records between the samples (stream
	 * fails only after the first add).
	 */
	pmclog_replay__set_record_fn(rp, pmclog_script__record, sc);
	pmclog_replay__stream(rp, pmclog_script__sample, sc);
	ret = replay_log(a->input, rp, "printed above", end);
	if (ret)
		goto out;
	if (pmclog_replay__run(rp, pmclog_script__sample, sc)) {
		warnx("out of memory while replaying %s", a->input);
		ret = EX_OSERR;
		goto out;
	}
	if (pmclog_script__print(sc, stdout)) {
		warn("cannot write to standard output");
		ret = errno == ENOMEM ? EX_OSERR : EX_IOERR;
	}
out:
	pmclog_script__free(sc);
	pmclog_report__free(rep);
	pmclog_resolver__free(res);
	pmclog_replay__free(rp);
	pmclog_strings__free(strings);
	return ret;
}

int cmd_script(int argc, char **argv)
{
	struct script_args a = { .sopts.sz = sizeof(a.sopts) };
	struct log_end end = { .status = EX_OK };
	int ret, first;

	a.opts.keys[0] = PMCLOG_SORT_DSO;
	a.opts.keys[1] = PMCLOG_SORT_SYM;
	a.opts.nkeys = 2;
	a.opts.demangle = true;
	ret = parse_options(&script_usage, argc, argv, &a, &first);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	if (argc - first > 1)
		return cmd_usage_error(&script_usage, "unexpected argument '%s': script reads one log",
				       argv[first + 1]);
	if (first < argc && (ret = set_input(&script_usage, &a.input, argv[first])))
		return ret;
	if (!a.input)
		a.input = DEFAULT_INPUT;
	ret = resolver_paths_exist(a.ropts.root, a.ropts.kernel);
	if (ret)
		return ret;
	ret = run(&a, &end);
	if (end.msg[0])
		warnx("%s", end.msg);
	return ret ? ret : end.status;
}
