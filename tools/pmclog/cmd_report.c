// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog report: the profile of a log, by object and function (pmcstat -R
 * with its -k, -r, -M, -g, -q, -v).  The work is libpmclog's: the records
 * go to a replay (pmclog_replay.h), its samples to a report
 * (pmclog_report.h) that names them through a resolver
 * (pmclog_resolve.h); this file parses options and says how the log
 * ended.
 *
 * Exit status: 0 for a complete log; EX_PROTOCOL when the log is cut
 * short (no CLOSELOG, or a partial last record): the profile of what
 * came before is printed; EX_DATAERR for a corrupt record (the same);
 * EX_NOINPUT, EX_USAGE, EX_CANTCREAT, EX_OSERR as usual.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"

#define DEFAULT_INPUT	"pmclog.data"
#define MAX_PIDS	64

struct report_args {
	const char *input;
	const char *format;
	const char *gmon_dir;	/* -g */
	const char *mapfile;	/* -M */
	struct pmclog_resolver_opts ropts;	/* -r, -k */
	struct pmclog_report_opts opts;
	__u32 pids[MAX_PIDS];
	int verbosity;
};

enum { OPT_SORT = 256, OPT_PID, OPT_TIME, OPT_FORMAT, OPT_DEMANGLE, OPT_NO_DEMANGLE };

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "demangle", no_argument, NULL, OPT_DEMANGLE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: pmclog report [-i FILE] [-k KERNELDIR|KERNELFILE] [-r ROOT] [-g DIR [-M MAPFILE]]\n"
		"                     [--sort KEYS] [--pid PID[,PID...]] [--time FROM,TO]\n"
		"                     [--format text|json|folded]\n"
		"                     [--no-demangle] [-q | -v]\n"
		"  -i FILE     the log (default %s; - for standard input)\n"
		"  -k DIR      where the kernel (vmlinux, System.map) and its modules (.ko,\n"
		"              .ko.xz, .ko.zst) are, searched below DIR; a kernel file also\n"
		"              works.  Used for kernel objects the log carries no symbols for\n"
		"  -r ROOT     prefix of every object path (and of -k): a copy of the\n"
		"              machine or container the log comes from\n"
		"  -g DIR      also write a gprof(1) gmon.out profile per object into DIR\n"
		"  -M MAPFILE  with -g: write \"GMONFILE OBJECT\" lines into MAPFILE\n"
		"  --sort KEYS comma-separated from pid, dso (object), sym (symbol),\n"
		"              srcline (file:line, DWARF); up to three; default dso,sym\n"
		"  --pid PIDS  only these processes' samples\n"
		"  --time FROM,TO  only samples taken FROM to TO seconds after the log\n"
		"              started (decimals allowed; either may be empty)\n"
		"  --format F  text (default), json (rows and statistics), folded\n"
		"  --no-demangle  C++ and Rust names as in the symbol table\n"
		"  -q          no statistics on stderr;  -v  more, and objects by full path\n",
		DEFAULT_INPUT);
}

static int parse_sort(struct report_args *a, const char *s)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -1;
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
	return ret || !a->opts.nkeys ? -1 : 0;
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
static int parse_time(struct report_args *a, const char *s)
{
	const char *comma = strchr(s, ',');

	a->opts.time_from = 0;
	a->opts.time_to = UINT64_MAX;
	if (!comma || parse_seconds(s, (size_t)(comma - s), &a->opts.time_from) ||
	    parse_seconds(comma + 1, strlen(comma + 1), &a->opts.time_to) ||
	    a->opts.time_from >= a->opts.time_to) {
		warnx("--time %s: expected FROM,TO in seconds after the log's start, FROM < TO (e.g. 1.5,3 or ,2)", s);
		return -1;
	}
	a->opts.has_time = true;
	return 0;
}

static int parse_pids(struct report_args *a, const char *s)
{
	const char *p = s;
	char *end;

	while (*p) {
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > 0xffffffffUL || (*end && *end != ',') ||
		    a->opts.npids == MAX_PIDS) {
			warnx("--pid %s: expected up to %d comma-separated process ids", s, MAX_PIDS);
			return -1;
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

static int parse_one(struct report_args *a, int opt)
{
	switch (opt) {
	case 'i': a->input = optarg; return 0;
	case 'k': a->ropts.kernel = optarg; return 0;
	case 'r': a->ropts.root = optarg; return 0;
	case 'g': a->gmon_dir = optarg; return 0;
	case 'M': a->mapfile = optarg; return 0;
	case 'q': a->verbosity = -1; return 0;
	case 'v': a->verbosity = 1; return 0;
	case OPT_SORT: return parse_sort(a, optarg) ? EX_USAGE : 0;
	case OPT_PID: return parse_pids(a, optarg) ? EX_USAGE : 0;
	case OPT_TIME: return parse_time(a, optarg) ? EX_USAGE : 0;
	case OPT_FORMAT:
		a->format = optarg;
		if (known_format(optarg))
			return 0;
		warnx("--format %s: expected text, json or folded", optarg);
		return EX_USAGE;
	case OPT_DEMANGLE: a->opts.demangle = true; return 0;
	case OPT_NO_DEMANGLE: a->opts.demangle = false; return 0;
	case 'h': report_usage(stdout); return -1;
	default: report_usage(stderr); return EX_USAGE;
	}
}

static int parse_args(int argc, char **argv, struct report_args *a)
{
	int opt, ret;

	a->input = DEFAULT_INPUT;
	a->format = "text";
	a->opts.keys[0] = PMCLOG_SORT_DSO;
	a->opts.keys[1] = PMCLOG_SORT_SYM;
	a->opts.nkeys = 2;
	a->opts.demangle = true;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "i:k:r:g:M:qvh", long_options, NULL)) != -1) {
		ret = parse_one(a, opt);
		if (ret)
			return ret;
	}
	if (optind != argc) {
		warnx("unexpected argument '%s'", argv[optind]);
		report_usage(stderr);
		return EX_USAGE;
	}
	if (a->mapfile && !a->gmon_dir) {
		warnx("-M MAPFILE goes with -g DIR (the map names the files written there)");
		return EX_USAGE;
	}
	a->opts.full_paths = a->verbosity > 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                            */

/*
 * Was the bad record at offset cut short by the end of the file (rather
 * than corrupt)?  Only a regular file can say.
 */
static bool cut_short(const char *input, __u64 offset)
{
	struct pmclog_header h;
	struct stat st;
	bool cut = false;
	int fd;

	if (!strcmp(input, "-"))
		return false;
	fd = open(input, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && (__u64)st.st_size >= offset) {
		__u64 left = (__u64)st.st_size - offset;

		cut = left < sizeof(h) ||
		      (pread(fd, &h, sizeof(h), (off_t)offset) == sizeof(h) &&
		       h.magic == PMCLOG_HEADER_MAGIC && h.length > left);
	}
	close(fd);
	return cut;
}

struct read_result {
	int status;		/* EX_OK, EX_PROTOCOL, EX_DATAERR, ... */
	char msg[512];		/* what to say after the report */
};

static void read_end(struct pmclog_reader *r, const struct report_args *a,
		     const char *name, int ret, struct read_result *res)
{
	unsigned long long off = (unsigned long long)pmclog_reader__offset(r);

	if (ret == 0 && pmclog_reader__end(r) == PMCLOG_READER_END_CLOSELOG)
		return;
	if (ret == 0) {
		snprintf(res->msg, sizeof(res->msg),
			 "%s: the log stops at offset %llu without CLOSELOG (the recording was cut short); the profile covers the records before it",
			 name, off);
		res->status = EX_PROTOCOL;
	} else if (-ret == EBADMSG && cut_short(a->input, off)) {
		snprintf(res->msg, sizeof(res->msg),
			 "%s: truncated at offset %llu: %s; the profile covers the records before it",
			 name, off, pmclog_reader__errmsg(r));
		res->status = EX_PROTOCOL;
	} else {
		snprintf(res->msg, sizeof(res->msg),
			 "%s: corrupt record at offset %llu: %s; the profile covers the records before it, nothing after it",
			 name, off, pmclog_reader__errmsg(r));
		res->status = -ret == EBADMSG || -ret == EPROTONOSUPPORT ?
			      EX_DATAERR : -ret == ENOMEM ? EX_OSERR : EX_IOERR;
	}
}

static int read_log(const struct report_args *a, struct pmclog_replay *rp,
		    struct read_result *res)
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
	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		if (pmclog_replay__add(rp, &rec)) {
			pmclog_reader__free(r);
			warnx("%s: out of memory at offset %llu", name,
			      (unsigned long long)rec.offset);
			return EX_OSERR;
		}
	}
	read_end(r, a, name, ret, res);
	pmclog_reader__free(r);
	if (ret == -EPROTONOSUPPORT) {
		/* Nothing of it can be read: no empty profile. */
		warnx("%s", res->msg);
		res->msg[0] = '\0';
		return EX_DATAERR;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

struct report_ctx {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
};

static void ctx_free(struct report_ctx *c)
{
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
	if (c->rep)
		return 0;
	warnx("out of memory");
	return EX_OSERR;
}

static int produce(struct report_ctx *c, const struct report_args *a)
{

	if (pmclog_replay__run(c->replay, pmclog_report__sample, c->rep) ||
	    pmclog_report__finish(c->rep)) {
		warnx("out of memory while replaying %s", a->input);
		return EX_OSERR;
	}
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
	struct read_result rr = { .status = EX_OK };
	struct report_ctx c = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret < 0 ? EX_OK : ret;
	ret = ctx_init(&c, &a);
	if (!ret)
		ret = read_log(&a, c.replay, &rr);
	if (!ret)
		ret = produce(&c, &a);
	if (rr.msg[0])
		warnx("%s", rr.msg);
	ctx_free(&c);
	return ret ? ret : rr.status;
}
