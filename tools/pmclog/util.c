// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands share: how libpmclog's messages are printed, the
 * exit status of a device that did not open, how a log's records ran
 * out and the exit status each way gives (the table of pmclog(1)'s EXIT
 * STATUS, the same for dump and report), the one log they read (and its
 * replay, for report and flamegraph), the --pid and --time options of
 * both, and how their output files are made.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin.h"
#include "pmclog_file.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"

int print_libpmclog(enum pmclog_print_level level, const char *fmt, va_list ap)
{
	if (level == PMCLOG_DEBUG)
		return 0;
	fprintf(stderr, "%s: ", program_invocation_short_name);
	return vfprintf(stderr, fmt, ap);
}

int output_create(const char *opt, const char *path, bool *created)
{
	char why[PATH_MAX + 160];
	int fd = pmclog_file__create(path, 0600, 0, created, why, sizeof(why));

	if (fd >= 0)
		return fd;
	if (*why)
		warnx("%s: %s", opt, why);
	else
		warnx("%s %s: %s", opt, path, strerror(-fd));
	return -1;
}

FILE *output_fopen(const char *opt, const char *path, bool *created)
{
	int fd = output_create(opt, path, created);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (fd >= 0 && !f) {
		warn("%s %s", opt, path);
		close(fd);
	}
	return f;
}

int device_open_status(int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return EX_UNAVAILABLE;
	case EACCES:
	case EPERM:
		return EX_NOPERM;
	case EPROTO:
	case EPROTONOSUPPORT:
		return EX_PROTOCOL;
	default:
		return EX_OSERR;
	}
}

/* The exit status of each way a log ends (pmclog(1), EXIT STATUS). */
static const int log_end_status[] = {
	[LOG_END_COMPLETE]	= EX_OK,
	[LOG_END_NO_CLOSELOG]	= EX_PROTOCOL,
	[LOG_END_TRUNCATED]	= EX_PROTOCOL,
	[LOG_END_CORRUPT]	= EX_DATAERR,
	[LOG_END_NOT_A_LOG]	= EX_DATAERR,
	[LOG_END_UNSUPPORTED]	= EX_DATAERR,
	[LOG_END_READ_ERROR]	= EX_IOERR,
	[LOG_END_NO_MEMORY]	= EX_OSERR,
};

/*
 * Did the bad record at offset run into the end of the input (a log cut
 * short) rather than hold bad bytes?  Only a regular file can say: a
 * named one, or standard input redirected from one.
 */
static bool cut_short(const char *input, int fd, __u64 offset)
{
	struct pmclog_header h;
	struct stat st;
	bool cut = false, own = strcmp(input, "-") != 0;

	if (own)
		fd = open(input, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (__u64)st.st_size >= offset) {
		__u64 left = (__u64)st.st_size - offset;

		/* Nothing left is a clean end, or an empty file: not a cut. */
		cut = (left && left < sizeof(h)) ||
		      (pread(fd, &h, sizeof(h), (off_t)offset) == sizeof(h) &&
		       h.magic == PMCLOG_HEADER_MAGIC && h.length > left);
	}
	if (own)
		close(fd);
	return cut;
}

void log_end_of(struct pmclog_reader *r, int ret, const char *input, int fd,
		const char *name, const char *shown, struct log_end *e)
{
	unsigned long long off = (unsigned long long)pmclog_reader__offset(r);
	const char *why = pmclog_reader__errmsg(r);

	e->readable = pmclog_reader__initialize(r) != NULL;
	e->msg[0] = '\0';
	if (ret == 0 && pmclog_reader__end(r) == PMCLOG_READER_END_CLOSELOG)
		e->kind = LOG_END_COMPLETE;
	else if (ret == 0)
		e->kind = LOG_END_NO_CLOSELOG;
	else if (ret == -EBADMSG && (pmclog_reader__truncated(r) || cut_short(input, fd, off)))
		e->kind = LOG_END_TRUNCATED;
	else if (ret == -EBADMSG && !e->readable)
		e->kind = LOG_END_NOT_A_LOG;
	else if (ret == -EBADMSG)
		e->kind = LOG_END_CORRUPT;
	else if (ret == -EPROTONOSUPPORT)
		e->kind = LOG_END_UNSUPPORTED;
	else if (ret == -ENOMEM)
		e->kind = LOG_END_NO_MEMORY;
	else
		e->kind = LOG_END_READ_ERROR;
	e->status = log_end_status[e->kind];

	switch (e->kind) {
	case LOG_END_COMPLETE:
		break;
	case LOG_END_NO_CLOSELOG:
		snprintf(e->msg, sizeof(e->msg),
			 "%s: the log stops at offset %llu without CLOSELOG: the recording was cut short (the recorder was killed, or the module did not end the log); the records before it are complete, %s",
			 name, off, shown);
		break;
	case LOG_END_TRUNCATED:
		if (e->readable)
			snprintf(e->msg, sizeof(e->msg),
				 "%s: truncated at offset %llu: %s; the records before it are complete, %s",
				 name, off, why, shown);
		else
			snprintf(e->msg, sizeof(e->msg),
				 "%s: truncated at offset %llu: %s; nothing of the log is left",
				 name, off, why);
		break;
	case LOG_END_CORRUPT:
		snprintf(e->msg, sizeof(e->msg),
			 "%s: corrupt record at offset %llu: %s; the records before it are %s, nothing after it can be trusted",
			 name, off, why, shown);
		break;
	case LOG_END_NOT_A_LOG:
		snprintf(e->msg, sizeof(e->msg), "%s: not a pmclog log: %s", name, why);
		break;
	case LOG_END_UNSUPPORTED:
	case LOG_END_READ_ERROR:
	case LOG_END_NO_MEMORY:
		snprintf(e->msg, sizeof(e->msg), "%s: %s", name, why[0] ? why : strerror(-ret));
		break;
	}
}

int set_input(const struct cmd_usage *u, const char **input, const char *arg)
{
	if (*input && strcmp(*input, arg))
		return cmd_usage_error(u, "two logs named, '%s' and '%s': pmclog %s reads one",
				       *input, arg, u->name);
	*input = arg;
	return 0;
}

int replay_log(const char *input, struct pmclog_replay *rp, const char *shown,
	       struct log_end *end)
{
	bool stdin_input = !strcmp(input, "-");
	const char *name = stdin_input ? "standard input" : input;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	int ret;

	r = stdin_input ? pmclog_reader__open_fd(STDIN_FILENO, NULL) :
			  pmclog_reader__open_file(input, NULL);
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
	log_end_of(r, ret, input, STDIN_FILENO, name, shown, end);
	pmclog_reader__free(r);
	if (!end->readable) {
		/* Not a log, or nothing of it can be read: no empty output. */
		warnx("%s", end->msg);
		end->msg[0] = '\0';
		return end->status;
	}
	return 0;
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

int parse_time_range(const char *s, struct pmclog_report_opts *o)
{
	const char *comma = strchr(s, ',');

	o->time_from = 0;
	o->time_to = UINT64_MAX;
	if (!comma || parse_seconds(s, (size_t)(comma - s), &o->time_from) ||
	    parse_seconds(comma + 1, strlen(comma + 1), &o->time_to) ||
	    o->time_from >= o->time_to) {
		warnx("--time %s: expected FROM,TO in seconds after the log's start, FROM < TO (e.g. 1.5,3 or ,2)", s);
		return EX_USAGE;
	}
	o->has_time = true;
	return 0;
}

int parse_pid_list(const char *s, __u32 *pids, size_t max, struct pmclog_report_opts *o)
{
	const char *p = s;
	char *end;

	while (*p) {
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > 0xffffffffUL || (*end && *end != ',') ||
		    o->npids == max) {
			warnx("--pid %s: expected up to %zu comma-separated process ids", s, max);
			return EX_USAGE;
		}
		pids[o->npids++] = (__u32)v;
		p = *end ? end + 1 : end;
	}
	o->pids = pids;
	return 0;
}

/*
 * -k and -r name files that must exist: a report without them would
 * name nothing from them, and say so only object by object.  As perf
 * report does for -k ("Invalid file"), that is an error (report and
 * script).
 */
int resolver_paths_exist(const char *root, const char *kernel)
{
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
