// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog record: configure a log on /dev/pmclog and save its records.
 *
 *   open -> ALLOCATE -> [fork CMD, held] -> ATTACH -> START -> [release CMD]
 *   -> copy records to the file until the target exits or a signal comes
 *   -> STOP -> copy until read(2) returns 0 (after CLOSELOG) -> close
 *
 * The command is forked before ATTACH but waits on a pipe until START has
 * returned, so that its first instruction is already sampled.  The
 * device is libpmclog's (pmclog_device.h), and so is the file: a
 * pmclog_writer saves the records as read, counts them for stderr, and
 * adds the kernel's symbols before CLOSELOG.  This file is the options,
 * the command and the loop.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "builtin.h"
#include "pmclog_archive.h"
#include "pmclog_device.h"
#include "pmclog_events.h"
#include "pmclog_file.h"
#include "pmclog_kallsyms.h"
#include "pmclog_writer.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434	/* the same on every architecture */
#endif

#define DEFAULT_OUTPUT	"pmclog.data"
#define DEFAULT_FREQ	1000
#define STR_(x)		#x
#define STR(x)		STR_(x)	/* DEFAULT_FREQ in the usage */
#define READ_BUF_SIZE	(256 * 1024)
#define TICK_MS		1000	/* live counts; liveness without a pidfd */
#define DRAIN_TIMEOUT_MS 5000	/* for CLOSELOG after STOP */
#define ARCHIVE_WAIT_MS	10000	/* for --archive's copies after CLOSELOG */
#define MAX_EVENTS	8	/* the module's PMCs per log */

struct record_opts {
	bool system;		/* -a */
	pid_t pid;		/* -p PID; 0 if none */
	char **cmd;		/* CMD ARGS...; NULL if none */
	const char *user;	/* --user: CMD runs as this user; NULL: as we run */
	char *events[MAX_EVENTS];	/* -e, each; strdup()ed */
	unsigned int nevents;
	struct pmclog_alloc allocs[MAX_EVENTS];	/* parsed, with -F or -c */
	/*
	 * -F / -c: each sets the rate of the -e events before it that have
	 * none yet (events[nrated..nevents)); those after the last one
	 * take it.  A second one that applies to no event is an error.
	 */
	struct event_rate {
		unsigned long long value;
		bool freq;		/* -F: value in Hz; -c: a period */
	} rates[MAX_EVENTS], last_rate;
	unsigned int nrated;		/* events given a rate so far */
	unsigned int nrate_opts;	/* -F and -c given */
	const char *idle_rate;		/* the first that applied to none, "-F 100" */
	char idle_rate_buf[48];
	bool inherit;		/* descendants too: the default; --no-inherit */
	const char *inherit_opt;	/* "-d" or "--no-inherit" if given */
	const char *output;	/* -o; "-" is standard output */
	int verbosity;		/* -1 for -q, 1 for -v */
	bool no_kallsyms;	/* --no-kallsyms */
	bool no_pack;		/* --no-pack */
	/* --bpf, --no-bpf: the collector; neither: the module, else BPF */
	bool bpf, no_bpf;
	const char *archive;	/* --archive DIR; NULL if none */
	bool callchain;		/* -g */
	unsigned int callchain_depth;	/* --callchain-depth; 0: the module's */
	/*
	 * zstd level of the saved log (-z, --compression-level); 0: none;
	 * -1 until given: Z_LEVEL with -g, else 0.
	 */
	int compression_level;
};

/*
 * -z, as perf record -z: level 1, fast and most of the gain.  The
 * default with -g only: the samples are packed (PCSAMPLES) without it, 5
 * to 8 bytes each, and zstd takes that down by a fifth for several
 * hundred instructions a sample (README, "Benchmark"); a stack is 32
 * bytes and 8 a frame, which zstd takes down to a few, for less than the
 * walk of the stack cost.
 */
#define Z_LEVEL	1

enum stop_reason {
	STOP_NONE,
	STOP_TARGET_EXITED,
	STOP_SIGNAL,
	STOP_LOG_ENDED,		/* read(2) returned 0 before STOP */
	STOP_ERROR,
};

struct recorder {
	const struct record_opts *opts;
	const char *out_name;	/* for messages */
	struct pmclog_device *dev;
	int out;		/* the log file */
	struct pmclog_writer *writer;	/* saves it; from START on */
	struct pmclog_archive *archive;	/* --archive: the writer's tool */
	bool archive_late;		/* its copies outlasted ARCHIVE_WAIT_MS */
	int sigfd;		/* SIGINT, SIGTERM, SIGHUP */
	int pidfd;		/* the target; -1 if none or unsupported */
	pid_t target;		/* whose exit ends the log; 0 if none */
	pid_t child;		/* CMD mode: the command */
	int go_fd;		/* CMD mode: write end that releases it */
	int exec_fd;		/* CMD mode: read end, carries exec's errno */
	bool child_reaped;
	bool exec_failed;	/* said so already; it exits 127 */
	int child_status;
	bool signals_set;	/* saved_mask and old_sigpipe hold what to restore */
	sigset_t saved_mask;
	void (*old_sigpipe)(int);
	enum stop_reason stop;
	int stop_signal;
	int status;		/* exit status so far */
	bool write_failed;	/* said so; records are read, no longer saved */
	bool live;		/* live counts on stderr */
	struct timespec last_live;
	unsigned char *buf;
	/*
	 * /proc/kallsyms, read beside the recording from START on (about a
	 * second under TCG: the command does not wait for it), then given
	 * to the writer (pmclog_writer__add_ksyms()).
	 */
	struct kallsyms_reader {
		pthread_t thread;
		bool running;		/* started, not joined */
		bool threaded;		/* else read in kallsyms_start() */
		int nice;		/* the recorder's, to go back to */
		/*
		 * tid, hurry, and done's store against the change of
		 * that tid's priority: the thread does not exit (freeing its
		 * tid) in between.
		 */
		pthread_mutex_t lock;
		pid_t tid;		/* the thread's, once out of the way; or 0 */
		bool hurry;		/* the recording is over: back to nice */
		atomic_bool done;	/* the thread has finished */
		struct pmclog_kallsyms *ks;
		int ret;
		long long ms;
	} kr;
	bool out_created;		/* we created the output file */
};

/* ------------------------------------------------------------------ */
/* Options                                                            */

static int parse_number(const char *opt, const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *v == 0 || s[0] == '-') {
		warnx("%s needs a positive number, not '%s'", opt, s);
		return -1;
	}
	return 0;
}

static int parse_pid(void *args, const char *s)
{
	struct record_opts *o = args;
	unsigned long long v;

	if (parse_number("-p", s, &v))
		return EX_USAGE;
	if (v > 0x7fffffff) {
		warnx("-p %s: not a process id", s);
		return EX_USAGE;
	}
	o->pid = (pid_t)v;
	return 0;
}

/* -F or -c VALUE: the rate of the events before it that have none. */
static int add_rate(struct record_opts *o, const char *opt, const char *arg, bool freq)
{
	struct event_rate r = { .freq = freq };

	if (parse_number(opt, arg, &r.value))
		return EX_USAGE;
	o->nrate_opts++;
	if (o->nrated == o->nevents && !o->idle_rate) {
		snprintf(o->idle_rate_buf, sizeof(o->idle_rate_buf), "%s %s", opt, arg);
		o->idle_rate = o->idle_rate_buf;
	}
	while (o->nrated < o->nevents)
		o->rates[o->nrated++] = r;
	o->last_rate = r;
	return 0;
}

/* The events after the last -F / -c take it, or the default rate. */
static void finish_rates(struct record_opts *o)
{
	if (!o->nrate_opts)
		o->last_rate = (struct event_rate){ .value = DEFAULT_FREQ, .freq = true };
	while (o->nrated < o->nevents)
		o->rates[o->nrated++] = o->last_rate;
}

static int parse_freq(void *args, const char *s)
{
	return add_rate(args, "-F", s, true);
}

static int parse_count(void *args, const char *s)
{
	return add_rate(args, "-c", s, false);
}

/* -d (pmcstat's, now the default) and --no-inherit (perf's). */
static int set_inherit(struct record_opts *o, const char *opt, bool inherit)
{
	o->inherit = inherit;
	o->inherit_opt = opt;
	return 0;
}

static int parse_descendants(void *args, const char *s)
{
	(void)s;
	return set_inherit(args, "-d", true);
}

static int parse_no_inherit(void *args, const char *s)
{
	(void)s;
	return set_inherit(args, "--no-inherit", false);
}

/* --callchain-depth N: frames per part of a stack; implies -g. */
static int parse_callchain_depth(void *args, const char *s)
{
	struct record_opts *o = args;
	unsigned long long v;

	if (parse_number("--callchain-depth", s, &v))
		return EX_USAGE;
	if (v > PMCLOG_CALLCHAIN_DEPTH_LIMIT) {
		warnx("--callchain-depth %s: at most %u frames", s, PMCLOG_CALLCHAIN_DEPTH_LIMIT);
		return EX_USAGE;
	}
	o->callchain = true;
	o->callchain_depth = (unsigned int)v;
	return 0;
}

static int parse_compress(void *args, const char *s)
{
	struct record_opts *o = args;

	(void)s;
	o->compression_level = Z_LEVEL;
	return 0;
}

static int parse_compression_level(void *args, const char *s)
{
	struct record_opts *o = args;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' ||
	    v > (unsigned long long)ZSTD_maxCLevel()) {
		warnx("--compression-level %s: 0 (none) to %d", s, ZSTD_maxCLevel());
		return EX_USAGE;
	}
	o->compression_level = (int)v;
	return 0;
}

/* Combinations the table cannot tell: 0, or EX_USAGE (said). */
static int check_options(const struct record_opts *o)
{
	if (o->pid && (o->system || o->cmd))
		return cmd_usage_error(&record_usage, "-p cannot be combined with -a or a command");
	if (!o->system && !o->pid && !o->cmd)
		return cmd_usage_error(&record_usage, "say what to record: -a, -p PID, or a command");
	if (o->nrate_opts > 1 && o->idle_rate)
		return cmd_usage_error(&record_usage,
				       "%s sets the rate of no event: a -F or -c is for the -e events before it (-e cpu-clock -c 1000000 -e cycles -F 4000); give one per group of events",
				       o->idle_rate);
	if (o->bpf && o->no_bpf)
		return cmd_usage_error(&record_usage, "--bpf and --no-bpf exclude each other");
	if (o->inherit_opt && o->system)
		return cmd_usage_error(&record_usage,
				       "%s is for the descendants of -p PID or of a command; -a sees every process",
				       o->inherit_opt);
	if (o->user && !o->cmd)
		return cmd_usage_error(&record_usage,
				       "--user is whom the command runs as: give the command (pmclog record --user %s -- CMD)",
				       o->user);
	return 0;
}

/* getpwnam(3): these errors say "no such entry", as 0 does. */
static bool pw_missing(int err)
{
	return !err || err == ENOENT || err == ESRCH || err == EBADF || err == EPERM;
}

/*
 * The passwd entry of --user's USER: a name, else a numeric uid (as
 * runuser(1) and chown(1) take it).  0, or EX_NOUSER or EX_OSERR, said.
 * *pw is getpwnam()'s static entry: good until the next lookup.
 */
static int find_user(const char *user, struct passwd **pw)
{
	unsigned long long uid;
	char *end;
	int err;

	errno = 0;
	*pw = getpwnam(user);
	err = *pw ? 0 : errno;
	if (!*pw && pw_missing(err) && user[0] >= '0' && user[0] <= '9') {
		errno = 0;
		uid = strtoull(user, &end, 10);
		/* (uid_t)-1 is "no change" to setuid() and friends, never a user. */
		if (!errno && !*end && uid < (uid_t)-1) {
			*pw = getpwuid((uid_t)uid);
			err = *pw ? 0 : errno;
		}
	}
	if (*pw)
		return 0;
	if (!pw_missing(err)) {
		warnx("--user %s: cannot look the user up: %s", user, strerror(err));
		return EX_OSERR;
	}
	warnx("--user %s: no such user (getent passwd lists none by that name or uid); give the name or uid of an existing user",
	      user);
	return EX_NOUSER;
}

/* -e NAME[,NAME...], repeatable: each event its own PMC in the log. */
static int add_events(void *args, const char *arg)
{
	struct record_opts *o = args;
	char *list = strdup(arg), *save = NULL, *name;

	if (!list) {
		warn("-e %s", arg);
		return EX_OSERR;
	}
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (o->nevents == MAX_EVENTS) {
			warnx("at most %d events per recording", MAX_EVENTS);
			free(list);
			return EX_USAGE;
		}
		o->events[o->nevents] = strdup(name);
		if (!o->events[o->nevents]) {
			warn("-e %s", arg);
			free(list);
			return EX_OSERR;
		}
		o->nevents++;
	}
	free(list);
	return 0;
}

static void free_events(struct record_opts *o)
{
	while (o->nevents)
		free(o->events[--o->nevents]);
}

static int parse_events(struct record_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nevents; i++) {
		struct pmclog_alloc *alloc = &o->allocs[i];

		if (pmclog_event_parse(o->events[i], alloc)) {
			warnx("unknown event '%s'; known: cpu-clock, cycles, instructions, ref-cycles, branches, branch-misses, cache-references, cache-misses, rHEX, each with an optional :u or :k",
			      o->events[i]);
			return EX_USAGE;
		}
		alloc->period = o->rates[i].value;
		if (o->rates[i].freq)
			alloc->flags |= PMCLOG_PMC_F_FREQ;
		if (o->callchain) {
			alloc->flags |= PMCLOG_PMC_F_CALLCHAIN;
			alloc->callchain_depth = o->callchain_depth;
		}
	}
	return 0;
}

const struct cmd_usage record_usage = {
	.name = "record",
	.summary = "sample a command, a process or the whole system into a log file",
	.operands = "[--] [CMD [ARGS...]]",
	.stop_at_operand = true,	/* CMD's options are its own */
	.options = (const struct cmd_option[]){
		OPT_BOOL('a', NULL, struct record_opts, system, true, 1,
			 "the whole system (with CMD: while CMD runs)"),
		OPT_CALLBACK_GROUP('p', NULL, "PID", parse_pid, 1,
				   "process PID, until it exits or SIGINT"),
		OPT_CALLBACK('e', NULL, "EVENT", add_events,
			     "cpu-clock (default), cycles, instructions,\n"
			     "ref-cycles, branches, branch-misses,\n"
			     "cache-references, cache-misses, or rHEX (raw event\n"
			     "select); :u or :k for one mode only; several as a\n"
			     "comma-separated list, or -e again"),
		OPT_CALLBACK_GROUP('F', NULL, "HZ", parse_freq, 2,
				   "samples per second per CPU (default " STR(DEFAULT_FREQ) "), for\n"
				   "the -e events before it without a rate; the\n"
				   "events after the last -F or -c take that one"),
		OPT_CALLBACK_GROUP('c', NULL, "COUNT", parse_count, 2,
				   "one sample every COUNT events (ns for cpu-clock),\n"
				   "for the -e events before it, as -F"),
		OPT_CALLBACK_GROUP('d', NULL, NULL, parse_descendants, 3,
				   "with -p or CMD: the descendants too, the default\n"
				   "(pmcstat's -d, kept for its users)"),
		OPT_CALLBACK_GROUP(0, "no-inherit", NULL, parse_no_inherit, 3,
				   "with -p or CMD: that process only, not those it\n"
				   "starts (perf's --no-inherit)"),
		OPT_STRING(0, "user", "USER", struct record_opts, user,
			   "run CMD as USER (a name or a uid): its uid, group,\n"
			   "groups, HOME, USER and LOGNAME, set once sampling\n"
			   "has started; without it CMD runs as pmclog does,\n"
			   "as root with root's environment under sudo"),
		OPT_STRING('o', NULL, "FILE", struct record_opts, output,
			   "the log (default " DEFAULT_OUTPUT "; - for standard\n"
			   "output, then CMD's goes to standard error)"),
		OPT_STRING(0, "archive", "DIR", struct record_opts, archive,
			   "copy the objects the log maps into DIR while they\n"
			   "are mapped, for report -r DIR elsewhere or later"),
		OPT_BOOL('g', NULL, struct record_opts, callchain, true, 0,
			 "the stack of each sample too (CALLCHAIN): kernel\n"
			 "frames from the kernel's unwinder, user frames\n"
			 "from frame pointers"),
		OPT_CALLBACK(0, "callchain-depth", "N", parse_callchain_depth,
			     "with -g: at most N kernel and N user frames per\n"
			     "stack (default: the module's callchain_max_depth,\n"
			     "127); implies -g"),
		OPT_CALLBACK('z', NULL, NULL, parse_compress,
			     "save the log compressed (zstd, level " STR(Z_LEVEL) "; the\n"
			     "default with -g); report and dump read it as it is"),
		OPT_CALLBACK(0, "compression-level", "N", parse_compression_level,
			     "zstd level N of the saved log, 1 (fast, as -z)\n"
			     "to 22 (small); 0: uncompressed (the default\n"
			     "without -g)"),
		OPT_BOOL(0, "no-pack", struct record_opts, no_pack, true, 0,
			 "save each sample as the module wrote it, a 32-byte\n"
			 "PCSAMPLE, not runs of them packed into PCSAMPLES\n"
			 "(ABI 1.7): a log for readers before libpmclog 1.3"),
		OPT_BOOL(0, "bpf", struct record_opts, bpf, true, 0,
			 "record through BPF programs, not the module (for\n"
			 "kernels that refuse it: Secure Boot's lockdown);\n"
			 "the default when /dev/pmclog does not exist"),
		OPT_BOOL(0, "no-bpf", struct record_opts, no_bpf, true, 0,
			 "the module only: fail if /dev/pmclog does not exist"),
		OPT_BOOL(0, "no-kallsyms", struct record_opts, no_kallsyms, true, 0,
			 "do not save the kernel's symbols (/proc/kallsyms)\n"
			 "in the log; a report then needs -k to name kernel\n"
			 "functions"),
		OPT_INT('q', NULL, struct record_opts, verbosity, -1, 4,
			"no counts on stderr"),
		OPT_INT('v', NULL, struct record_opts, verbosity, 1, 4,
			"say more"),
		OPT_END(),
	},
	.notes = "CMD, or -p PID, is followed into the processes it forks (as perf record\n"
		 "does); --no-inherit samples it alone.  CMD runs as the user pmclog runs\n"
		 "as, root's environment and all: sudo pmclog record --user \"$SUDO_USER\"\n"
		 "-- CMD runs it as the user who typed it.",
};

static int parse_options_record(int argc, char **argv, struct record_opts *o)
{
	int ret, first;

	o->output = DEFAULT_OUTPUT;
	o->inherit = true;
	o->compression_level = -1;
	ret = parse_options(&record_usage, argc, argv, o, &first);
	if (ret)
		return ret;
	if (o->compression_level < 0)
		o->compression_level = o->callchain ? Z_LEVEL : 0;
	if (first < argc)
		o->cmd = argv + first;
	ret = check_options(o);
	if (ret)
		return ret;
	/* Looked up again before the fork; here to refuse it before the device. */
	if (o->user) {
		struct passwd *pw;

		ret = find_user(o->user, &pw);
		if (ret)
			return ret;
	}
	if (!o->nevents && add_events(o, "cpu-clock"))
		return EX_OSERR;
	finish_rates(o);
	return parse_events(o);
}

/* ------------------------------------------------------------------ */
/* Configuring the log                                                */

/* The module parameter, as /sys shows it, for messages; "?" if unknown. */
static const char *callchain_max_depth(void)
{
	static char buf[32];
	FILE *f = fopen("/sys/module/pmclog/parameters/callchain_max_depth", "r");

	strcpy(buf, "?");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			strcpy(buf, "?");
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}

/* Allocate the PMC of event @i into @alloc (pmcid filled in). */
static int allocate_pmc(struct recorder *rec, unsigned int i,
			struct pmclog_alloc *alloc)
{
	const struct record_opts *o = rec->opts;
	const char *event = o->events[i];
	bool freq = o->rates[i].freq;
	struct pmclog_pmu_info pmu = { 0 };
	int err;

	*alloc = o->allocs[i];
	if (o->callchain &&
	    PMCLOG_ABI_VERSION_MINOR(pmclog_device__abi_version(rec->dev)) < 5) {
		__u32 abi = pmclog_device__abi_version(rec->dev);

		warnx("-g: the loaded pmclog module (ABI %u.%u) takes no stacks; they need ABI 1.5: load this pmclog's module",
		      PMCLOG_ABI_VERSION_MAJOR(abi), PMCLOG_ABI_VERSION_MINOR(abi));
		return EX_UNAVAILABLE;
	}
	err = -pmclog_device__allocate(rec->dev, alloc);
	if (!err)
		return 0;
	switch (err) {
	case EOVERFLOW:
		/* ABI 1.5: deeper than the module's callchain_max_depth. */
		if (!strcmp(pmclog_device__path(rec->dev), PMCLOG_BPF_DEVICE_NAME)) {
			warnx("--callchain-depth %u is deeper than the BPF collector takes (127 frames, kernel.perf_event_max_stack's default); ask for less",
			      o->callchain_depth);
			return EX_USAGE;
		}
		warnx("--callchain-depth %u is deeper than the module allows (its callchain_max_depth parameter, %s); ask for less, or load pmclog with a higher callchain_max_depth",
		      o->callchain_depth, callchain_max_depth());
		return EX_USAGE;
	case ENODEV:
		if (pmclog_device__pmu_info(rec->dev, &pmu) == 0 && pmu.pmu == PMCLOG_PMU_NONE)
			warnx("event %s is unavailable: no hardware PMU: %s; use -e cpu-clock",
			      event, pmu.reason);
		else if (pmu.pmu != PMCLOG_PMU_NONE)
			warnx("event %s is unavailable: this machine's PMU does not count it (see pmclog list); use -e cpu-clock",
			      event);
		else
			warnx("event %s needs a hardware PMU: the module found none it can use on this machine (virtual machines often expose none; see dmesg); use -e cpu-clock",
			      event);
		return EX_UNAVAILABLE;
	case EBUSY:
		if (pmclog_device__pmu_info(rec->dev, &pmu) == 0 && pmu.reserved)
			warnx("event %s: every counter that can count it is taken; perf holds the PMU (the NMI watchdog or another perf user: sysctl kernel.nmi_watchdog=0 frees it); or use -e cpu-clock",
			      event);
		else if (pmu.busy)
			warnx("event %s: every counter that can count it is taken (enabled by another user of the PMU, not registered with the kernel; see pmclog list); use -e cpu-clock",
			      event);
		else
			warnx("event %s: every hardware counter is taken (by perf, a watchdog or another pmclog); free one or use -e cpu-clock",
			      event);
		return EX_TEMPFAIL;
	case ERANGE:
		/* ABI 1.2: faster than the module's max_sample_rate. */
		if (pmclog_device__pmu_info(rec->dev, &pmu) == 0 && pmu.max_sample_rate)
			warnx("event %s with %s %llu samples faster than the module allows: at most %u per second per CPU (its max_sample_rate parameter, as perf's kernel.perf_event_max_sample_rate); use a lower -F or a longer -c, or load pmclog with a higher max_sample_rate",
			      event, freq ? "-F" : "-c",
			      (unsigned long long)alloc->period, pmu.max_sample_rate);
		else
			warnx("event %s with %s %llu samples faster than the module allows (its max_sample_rate parameter); use a lower -F or a longer -c",
			      event, freq ? "-F" : "-c",
			      (unsigned long long)alloc->period);
		return EX_USAGE;
	case EINVAL:
		warnx("the module refused event %s with %s %llu: %s", event,
		      freq ? "-F" : "-c", (unsigned long long)alloc->period,
		      strerror(err));
		return EX_USAGE;
	default:
		if (err == ENOMEM && o->callchain)
			warnx("event %s: the module has no memory for the stacks of -g (nsamples x 16 bytes x the depth, per CPU, charged to this process's memory cgroup); use a smaller --callchain-depth, or give the cgroup more (memory.max)",
			      event);
		else
			warnx("%s: PMCLOG_IOC_ALLOCATE of %s failed: %s",
			      pmclog_device__path(rec->dev), event, strerror(err));
		return EX_OSERR;
	}
}

static int attach_target(struct recorder *rec)
{
	const struct record_opts *o = rec->opts;
	struct pmclog_attach at = { 0 };
	int err;

	if (o->system) {
		at.mode = PMCLOG_ATTACH_SYSTEM;
	} else {
		at.mode = PMCLOG_ATTACH_PROCESS;
		at.pid = (__u32)rec->target;
		at.flags = o->inherit ? PMCLOG_ATTACH_F_CHILDREN : 0;
	}
	err = -pmclog_device__attach(rec->dev, &at);
	if (!err)
		return 0;
	if (err == ESRCH) {
		warnx("no process %d to attach to", (int)rec->target);
		return EX_NOINPUT;
	}
	if (o->system)
		warnx("%s: cannot attach to the whole system: %s",
		      pmclog_device__path(rec->dev), strerror(err));
	else
		warnx("%s: cannot attach to process %d: %s",
		      pmclog_device__path(rec->dev), (int)rec->target, strerror(err));
	return err == EPERM || err == EACCES ? EX_NOPERM : EX_OSERR;
}

static int open_output(struct recorder *rec)
{
	const char *path = rec->opts->output;
	char why[PATH_MAX + 160];
	int fd;

	if (!strcmp(path, "-")) {
		rec->out = STDOUT_FILENO;
		rec->out_name = "standard output";
		return 0;
	}
	rec->out_name = path;
	/*
	 * 0600: the log holds kernel addresses (as perf.data does).  An
	 * existing log is kept as PATH.old, as perf keeps perf.data.old: a
	 * file another user made (or linked) at PATH is never written into.
	 * Whether we created it decides whether a failed start may remove
	 * it: never an existing file (-o /dev/null!).
	 */
	fd = pmclog_file__create(path, 0600, PMCLOG_FILE_KEEP_OLD, &rec->out_created, why,
				 sizeof(why));
	if (fd >= 0) {
		rec->out = fd;
		return 0;
	}
	if (*why)
		warnx("%s", why);
	else
		warnx("cannot create %s: %s", path, strerror(-fd));
	return fd == -EPERM && *why ? EX_NOPERM : EX_CANTCREAT;
}

/*
 * Route SIGINT, SIGTERM and SIGHUP to a signalfd, to end the log cleanly,
 * and turn SIGPIPE into EPIPE, so that `-o - | head` still stops the log.
 */
static int setup_signals(struct recorder *rec)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, &rec->saved_mask) < 0)
		goto fail;
	rec->old_sigpipe = signal(SIGPIPE, SIG_IGN);
	rec->signals_set = true;
	rec->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (rec->sigfd >= 0)
		return 0;
fail:
	warn("cannot set up signal handling");
	return EX_OSERR;
}

/* ------------------------------------------------------------------ */
/* The command                                                        */

/*
 * --user: whom the command becomes just before exec, all of it looked up
 * in the parent before the fork, so that the child makes system calls
 * only, what fork(2) allows a child of a process that may have threads:
 * the lookups go through NSS (files, sss, LDAP), which locks, allocates
 * and may open sockets, as initgroups() does.
 */
struct run_as {
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* what initgroups() sets: getgrouplist()'s */
	int ngroups;
	char **envp;		/* ours, with HOME, USER and LOGNAME the user's */
	char *env[3];		/* those three, malloc'd */
};

/* What failed in the child: exec, or a step of becoming the user. */
enum child_step {
	CHILD_EXEC,
	CHILD_SETGROUPS,
	CHILD_SETGID,
	CHILD_SETUID,
	CHILD_STILL_ROOT,	/* the drop could be undone */
};

/* What the child sends back through exec_fd, which exec would have closed. */
struct child_failure {
	int step;		/* enum child_step */
	int err;		/* its errno */
};

static const char *const child_step_name[] = {
	[CHILD_SETGROUPS] = "setgroups",
	[CHILD_SETGID] = "setgid",
	[CHILD_SETUID] = "setuid",
};

static void run_as_free(struct run_as *ra)
{
	free(ra->groups);
	free(ra->envp);
	for (size_t i = 0; i < 3; i++)
		free(ra->env[i]);
}

/* Whether the environment entry e sets var. */
static bool env_sets(const char *e, const char *var)
{
	size_t n = strlen(var);

	return !strncmp(e, var, n) && e[n] == '=';
}

/* ra (zeroed) for --user USER; 0, or an exit status, said.  run_as_free() after. */
static int run_as_prepare(struct run_as *ra, const char *user)
{
	static const char *const vars[] = { "HOME", "USER", "LOGNAME" };
	const char *vals[3];
	struct passwd *pw;
	const char *name;
	size_t n, k = 0;
	int ret, max = 16, want;

	ret = find_user(user, &pw);
	if (ret)
		return ret;
	ra->uid = pw->pw_uid;
	ra->gid = pw->pw_gid;
	vals[0] = pw->pw_dir;
	vals[1] = vals[2] = pw->pw_name;
	for (size_t i = 0; i < 3; i++) {
		if (asprintf(&ra->env[i], "%s=%s", vars[i], vals[i]) < 0) {
			ra->env[i] = NULL;
			goto nomem;
		}
	}
	/* The group lookups may reuse getpwnam()'s entry: the name is kept in USER=. */
	name = ra->env[1] + strlen("USER=");
	for (;;) {
		gid_t *g = realloc(ra->groups, (size_t)max * sizeof(*g));

		if (!g)
			goto nomem;
		ra->groups = g;
		want = max;
		if (getgrouplist(name, ra->gid, g, &want) >= 0) {
			ra->ngroups = want;
			break;
		}
		/* glibc says how many there are; a libc that does not, twice as many. */
		want = want > max ? want : 2 * max;
		if (want > 65536) {	/* the kernel's NGROUPS_MAX */
			warnx("--user %s: in more groups than the kernel allows (65536)", user);
			return EX_CONFIG;
		}
		max = want;
	}
	for (n = 0; environ[n]; n++)
		;
	ra->envp = calloc(n + 4, sizeof(*ra->envp));
	if (!ra->envp)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		if (!env_sets(environ[i], vars[0]) && !env_sets(environ[i], vars[1]) &&
		    !env_sets(environ[i], vars[2]))
			ra->envp[k++] = environ[i];
	}
	for (size_t i = 0; i < 3; i++)
		ra->envp[k++] = ra->env[i];
	ra->envp[k] = NULL;
	return 0;
nomem:
	warn("--user %s", user);
	return EX_OSERR;
}

/*
 * In the child, just before exec: become ra's user for good, as runuser
 * does.  Groups, then gid, then uid: each step but the last needs the
 * root that the last gives up.  CHILD_EXEC when done (on to exec), else
 * the step that failed, errno set.
 */
static enum child_step become_user(const struct run_as *ra)
{
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;

	if (setgroups((size_t)ra->ngroups, ra->groups))
		return CHILD_SETGROUPS;
	if (setgid(ra->gid))
		return CHILD_SETGID;
	if (setuid(ra->uid))
		return CHILD_SETUID;
	/*
	 * Root's setuid() sets the real, effective and saved ids alike; one
	 * left at 0 (a kernel or a seccomp filter that lied), or a setuid(0)
	 * that works, would let the command take root back.
	 */
	if (getresuid(&ruid, &euid, &suid) || getresgid(&rgid, &egid, &sgid) ||
	    ruid != ra->uid || euid != ra->uid || suid != ra->uid ||
	    rgid != ra->gid || egid != ra->gid || sgid != ra->gid ||
	    (ra->uid != 0 && setuid(0) == 0)) {
		errno = EPERM;
		return CHILD_STILL_ROOT;
	}
	return CHILD_EXEC;
}

/*
 * In the child: wait for the parent to start the log, become --user's
 * user if given, then exec.  A failure goes back to the parent through
 * exec_fd, which exec would have closed.
 */
static void __attribute__((noreturn))
child_exec(struct recorder *rec, const struct run_as *ra, int go_rd, int exec_wr)
{
	struct child_failure f = { CHILD_EXEC, 0 };
	char c;

	signal(SIGPIPE, rec->old_sigpipe);	/* ignored stays ignored across exec */
	sigprocmask(SIG_SETMASK, &rec->saved_mask, NULL);
	/* With -o -, standard output carries the log: not for the command. */
	if (rec->out == STDOUT_FILENO && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(127);
	if (read(go_rd, &c, 1) != 1)
		_exit(127);	/* the parent gave up before START */
	if (ra)
		f.step = become_user(ra);
	if (f.step == CHILD_EXEC)
		execvpe(rec->opts->cmd[0], rec->opts->cmd, ra ? ra->envp : environ);
	f.err = errno;
	if (write(exec_wr, &f, sizeof(f)) != sizeof(f))
		_exit(127);
	_exit(127);
}

static int spawn_command(struct recorder *rec)
{
	struct run_as ra = { 0 };
	int go[2], exec_status[2], ret;

	if (rec->opts->user) {
		ret = run_as_prepare(&ra, rec->opts->user);
		if (ret) {
			run_as_free(&ra);
			return ret;
		}
	}
	if (pipe2(go, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(exec_status, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	fflush(NULL);
	rec->child = fork();
	if (rec->child < 0) {
		close(go[0]);
		close(go[1]);
		close(exec_status[0]);
		close(exec_status[1]);
		goto fail;
	}
	if (rec->child == 0) {
		/* Else the held child keeps the go pipe open and never sees EOF. */
		close(go[1]);
		close(exec_status[0]);
		child_exec(rec, rec->opts->user ? &ra : NULL, go[0], exec_status[1]);
	}
	run_as_free(&ra);
	close(go[0]);
	close(exec_status[1]);
	rec->go_fd = go[1];
	rec->exec_fd = exec_status[0];
	return 0;
fail:
	warn("cannot start %s", rec->opts->cmd[0]);
	run_as_free(&ra);
	return EX_OSERR;
}

/*
 * Let the command exec.  Return 0 once it has, or an exit status after
 * saying why it could not; it then exits 127 and ends the log.
 */
static int release_command(struct recorder *rec)
{
	const struct record_opts *o = rec->opts;
	struct child_failure f;
	ssize_t n;

	if (write(rec->go_fd, "g", 1) != 1)
		warn("cannot release %s", o->cmd[0]);
	close(rec->go_fd);
	rec->go_fd = -1;
	do
		n = read(rec->exec_fd, &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	close(rec->exec_fd);
	rec->exec_fd = -1;
	if (n != sizeof(f))
		return 0;
	rec->exec_failed = true;
	switch (f.step) {
	case CHILD_EXEC:
		warnx("cannot execute %s: %s", o->cmd[0], strerror(f.err));
		return EX_UNAVAILABLE;
	case CHILD_STILL_ROOT:
		warnx("%s not run: as user %s it could still have become root again (its user or group ids were not all %s's after setuid)",
		      o->cmd[0], o->user, o->user);
		return EX_OSERR;
	default:
		warnx("cannot run %s as user %s: %s: %s%s", o->cmd[0], o->user,
		      f.step > CHILD_EXEC && f.step < CHILD_STILL_ROOT ? child_step_name[f.step] : "?",
		      strerror(f.err),
		      f.err == EPERM ? "; --user needs pmclog to run as root (CAP_SETUID and CAP_SETGID)" : "");
		return f.err == EPERM ? EX_NOPERM : EX_OSERR;
	}
}

static void reap_command(struct recorder *rec, int options)
{
	pid_t p;

	if (!rec->child || rec->child_reaped)
		return;
	do
		p = waitpid(rec->child, &rec->child_status, options);
	while (p < 0 && errno == EINTR);
	if (p == rec->child)
		rec->child_reaped = true;
}

static void report_command_exit(const struct recorder *rec)
{
	int st = rec->child_status;

	if (!rec->child_reaped || rec->exec_failed)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st))
		warnx("%s exited with status %d", rec->opts->cmd[0],
		      WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		warnx("%s was killed by signal %d (%s)%s", rec->opts->cmd[0],
		      WTERMSIG(st), strsignal(WTERMSIG(st)),
		      WCOREDUMP(st) ? ", core dumped" : "");
}

/* ------------------------------------------------------------------ */
/* The kernel's symbols                                               */

static long long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000LL + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

#define KALLSYMS	"/proc/kallsyms"

/*
 * Put the calling thread @tid out of the way of everything else: SCHED_IDLE
 * (beside one busy thread on its CPU it gets 0.3% of it, where nice 19
 * gets 1.5%), or nice 19 when the thread could not come back from
 * SCHED_IDLE.  The kernel lets a thread leave SCHED_IDLE only
 * as far as it may lower its nice value (RLIMIT_NICE, CAP_SYS_NICE in the
 * initial namespace); that is asked of the kernel itself, by going from
 * nice 19 back down to @nice first, or to 18 when @nice is 19 already
 * (a stricter test than the kernel's, which a thread at 19 that may go to
 * 18 passes).
 */
static void kallsyms_idle(pid_t tid, int nice)
{
	struct sched_param sp = { .sched_priority = 0 };

	setpriority(PRIO_PROCESS, (id_t)tid, 19);
	if (setpriority(PRIO_PROCESS, (id_t)tid, nice < 19 ? nice : 18))
		return;		/* at 19, which it may not leave */
	setpriority(PRIO_PROCESS, (id_t)tid, nice);
	if (sched_setscheduler(tid, SCHED_IDLE, &sp))
		setpriority(PRIO_PROCESS, (id_t)tid, 19);
}

/*
 * Back to the recorder's priority, from either: SCHED_OTHER keeps the
 * nice value (a no-op at nice 19), and the nice is the recorder's already
 * after SCHED_IDLE.  kr->lock held, kr->tid set.
 */
static void kallsyms_unidle(struct kallsyms_reader *kr)
{
	struct sched_param sp = { .sched_priority = 0 };

	sched_setscheduler(kr->tid, SCHED_OTHER, &sp);
	setpriority(PRIO_PROCESS, (id_t)kr->tid, kr->nice);
}

/*
 * The kernel's text symbols, each module's ending with its core
 * (pmclog_kallsyms__bound()): the thread of kallsyms_start().  At the
 * lowest priority, so that a command on every CPU is not slowed by it.
 */
static void *kallsyms_thread(void *arg)
{
	struct kallsyms_reader *kr = arg;
	struct timespec t0;
	FILE *f;

	/*
	 * Out of the workload's way while it runs; kallsyms_collect() puts
	 * it back once the recording has stopped and only it is waited for.
	 * Read in kallsyms_start() itself, before the command is released,
	 * it yields to nothing.
	 */
	if (kr->threaded) {
		pid_t tid = (pid_t)syscall(SYS_gettid);

		kallsyms_idle(tid, kr->nice);
		pthread_mutex_lock(&kr->lock);
		kr->tid = tid;
		if (kr->hurry)
			kallsyms_unidle(kr);
		pthread_mutex_unlock(&kr->lock);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	f = fopen(KALLSYMS, "re");
	kr->ret = f ? pmclog_kallsyms__read(f, &kr->ks) : -errno;
	if (f)
		fclose(f);
	f = kr->ret ? NULL : fopen("/proc/modules", "re");
	if (f) {
		kr->ret = pmclog_kallsyms__bound(kr->ks, f);
		fclose(f);
	}
	if (kr->ret) {
		pmclog_kallsyms__free(kr->ks);
		kr->ks = NULL;
	}
	kr->ms = ms_since(&t0);
	pthread_mutex_lock(&kr->lock);
	atomic_store(&kr->done, true);
	pthread_mutex_unlock(&kr->lock);
	return NULL;
}

/*
 * Read the kernel's symbols beside the recording, started just after
 * START, and the command does not wait for them.  They are the kernel of
 * when the thread reads them: at the latest just after STOP, so a module
 * unloaded before may be missing (its samples then need report -k).
 * Without a thread they are read here, before the command is released.
 */
static void kallsyms_start(struct recorder *rec)
{
	struct kallsyms_reader *kr = &rec->kr;
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);	/* this thread's */
	kr->nice = errno ? 0 : nice;
	kr->tid = 0;
	kr->hurry = false;
	atomic_init(&kr->done, false);
	pthread_mutex_init(&kr->lock, NULL);
	kr->threaded = true;
	kr->running = true;
	if (!pthread_create(&kr->thread, NULL, kallsyms_thread, kr))
		return;
	kr->threaded = false;
	kallsyms_thread(kr);
}

/*
 * Hand the symbols to the writer once read: at once when wait (after
 * STOP, before the rest of the log is copied: the writer places them
 * before CLOSELOG), else only if the thread is done.  Without them a
 * report needs the kernel's files (-k): a failure is said, not fatal.
 */
static void kallsyms_collect(struct recorder *rec, bool wait)
{
	struct kallsyms_reader *kr = &rec->kr;
	struct pmclog_kallsyms *ks;

	if (!kr->running || (!wait && !atomic_load(&kr->done)))
		return;
	if (kr->threaded) {
		/*
		 * At the lowest priority beside busy CPUs the thread may not
		 * have run yet: the recording is over, nothing is left to
		 * yield to.  Back to the recorder's priority: from SCHED_IDLE
		 * it may, else if it may (CAP_SYS_NICE or RLIMIT_NICE), or it
		 * finishes at nice 19, sampling stopped at least.
		 */
		pthread_mutex_lock(&kr->lock);
		kr->hurry = true;
		if (kr->tid && !atomic_load(&kr->done))
			kallsyms_unidle(kr);
		pthread_mutex_unlock(&kr->lock);
		pthread_join(kr->thread, NULL);
	}
	pthread_mutex_destroy(&kr->lock);
	kr->running = false;
	if (kr->ret == -EPERM)
		warnx("%s shows every address as 0 (kernel.kptr_restrict, or no CAP_SYSLOG): no kernel symbols saved; report -k DIR can name kernel functions",
		      KALLSYMS);
	else if (kr->ret)
		warnx("cannot read %s: %s: kernel functions will need report -k", KALLSYMS,
		      strerror(-kr->ret));
	else if (rec->opts->verbosity > 0)
		fprintf(stderr, "pmclog: %zu kernel text symbols from %s in %lld ms, beside the recording\n",
			pmclog_kallsyms__count(kr->ks), KALLSYMS, kr->ms);
	ks = kr->ks;
	kr->ks = NULL;
	if (!rec->writer)
		pmclog_kallsyms__free(ks);
	else if (pmclog_writer__add_ksyms(rec->writer, ks) && ks)
		/* The log ended without our STOP, and its CLOSELOG went by. */
		warnx("the log ended before the kernel's symbols were read: none saved; report -k DIR can name kernel functions");
}

/* ------------------------------------------------------------------ */
/* Copying records                                                    */

static void set_error(struct recorder *rec, int status)
{
	if (rec->status == EX_OK)
		rec->status = status;
	rec->stop = STOP_ERROR;
}

/* The writer failed: say it once; records are still read, and counted. */
static void write_failed(struct recorder *rec, int err)
{
	if (rec->write_failed)
		return;
	warnx("cannot write %s: %s", rec->out_name, strerror(-err));
	rec->write_failed = true;
	set_error(rec, EX_IOERR);
}

/*
 * One read(2) of whole records, handed to the writer.
 * Return: bytes read, 0 at the end of the log, -1 on an error (reported).
 */
static ssize_t copy_records(struct recorder *rec)
{
	ssize_t n = pmclog_device__read(rec->dev, rec->buf, READ_BUF_SIZE);
	int ret;

	if (n < 0) {
		warnx("cannot read %s: %s", pmclog_device__path(rec->dev),
		      strerror((int)-n));
		set_error(rec, EX_IOERR);
		return -1;
	}
	if (n == 0)
		return 0;
	ret = pmclog_writer__write(rec->writer, rec->buf, (size_t)n);
	if (ret) {
		write_failed(rec, ret);
		return -1;
	}
	kallsyms_collect(rec, false);
	return n;
}

static void show_live(struct recorder *rec)
{
	const struct pmclog_stats *st;
	struct timespec now;
	long long ms;

	if (!rec->live)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - rec->last_live.tv_sec) * 1000LL +
	     (now.tv_nsec - rec->last_live.tv_nsec) / 1000000;
	if (ms < TICK_MS)
		return;
	rec->last_live = now;
	st = pmclog_writer__stats(rec->writer);
	fprintf(stderr, "\rpmclog: %llu samples, %llu dropped\033[K",
		(unsigned long long)st->samples,
		(unsigned long long)(pmclog_stats__samples_dropped(st) +
				     pmclog_stats__records_dropped(st)));
}

/* ------------------------------------------------------------------ */
/* The loop                                                           */

static bool target_gone(struct recorder *rec)
{
	if (rec->child) {
		reap_command(rec, WNOHANG);
		return rec->child_reaped;
	}
	return kill(rec->target, 0) < 0 && errno == ESRCH;
}

static void handle_signal(struct recorder *rec)
{
	struct signalfd_siginfo si;

	if (read(rec->sigfd, &si, sizeof(si)) != sizeof(si))
		return;
	rec->stop = STOP_SIGNAL;
	rec->stop_signal = (int)si.ssi_signo;
	/*
	 * The command ends with the log.  A signal from the terminal
	 * (SI_KERNEL) already reached it, being in our process group; one
	 * sent to pmclog alone is passed on.
	 */
	if (rec->child && !rec->child_reaped && si.ssi_code != SI_KERNEL)
		kill(rec->child, (int)si.ssi_signo);
}

/* Copy records until the target exits, a signal comes or an error. */
static void record_loop(struct recorder *rec)
{
	struct pollfd pfd[3] = {
		{ .fd = pmclog_device__fd(rec->dev), .events = POLLIN },
		{ .fd = rec->sigfd, .events = POLLIN },
		{ .fd = rec->pidfd, .events = POLLIN },
	};
	nfds_t nfds = rec->pidfd >= 0 ? 3 : 2;

	while (rec->stop == STOP_NONE) {
		if (poll(pfd, nfds, TICK_MS) < 0) {
			if (errno == EINTR)
				continue;
			warn("poll");
			set_error(rec, EX_OSERR);
			break;
		}
		if (pfd[0].revents) {
			ssize_t n = copy_records(rec);

			if (n == 0)
				rec->stop = STOP_LOG_ENDED;
			if (n <= 0)
				break;
		}
		if (pfd[1].revents & POLLIN)
			handle_signal(rec);
		else if (nfds == 3 && (pfd[2].revents & POLLIN))
			rec->stop = STOP_TARGET_EXITED;
		else if (rec->target && rec->pidfd < 0 && target_gone(rec))
			rec->stop = STOP_TARGET_EXITED;
		show_live(rec);
	}
}

/* After STOP: copy what is left, up to CLOSELOG and read(2)'s 0. */
static void drain_log(struct recorder *rec)
{
	struct pollfd pfd = { .fd = pmclog_device__fd(rec->dev), .events = POLLIN };
	int n;

	for (;;) {
		do
			n = poll(&pfd, 1, DRAIN_TIMEOUT_MS);
		while (n < 0 && errno == EINTR);
		if (n == 0) {
			warnx("%s did not end the log within %d s of STOP; %s lacks CLOSELOG",
			      pmclog_device__path(rec->dev), DRAIN_TIMEOUT_MS / 1000,
			      rec->out_name);
			set_error(rec, EX_PROTOCOL);
			return;
		}
		if (n < 0 || copy_records(rec) <= 0)
			return;
	}
}

static void stop_and_drain(struct recorder *rec)
{
	int ret;

	/*
	 * STOP before waiting for the kernel's symbols: a kallsyms thread
	 * that the workload kept from running reads them now, neither
	 * sampled nor filling the log while nobody copies it.  They go
	 * before CLOSELOG: the writer has them before the rest is copied.
	 */
	if (rec->stop != STOP_LOG_ENDED) {
		ret = pmclog_device__stop(rec->dev);
		if (ret) {
			warnx("%s: PMCLOG_IOC_STOP: %s", pmclog_device__path(rec->dev),
			      strerror(-ret));
			set_error(rec, EX_OSERR);
		}
	}
	kallsyms_collect(rec, true);
	if (rec->stop != STOP_LOG_ENDED)
		drain_log(rec);
	/* What is held back, and the symbols of a log without CLOSELOG. */
	ret = pmclog_writer__finish(rec->writer);
	if (ret)
		write_failed(rec, ret);
	if (rec->status == EX_OK && !pmclog_writer__stats(rec->writer)->closelog) {
		warnx("the log in %s ended without CLOSELOG", rec->out_name);
		rec->status = EX_PROTOCOL;
	}
}

static void print_summary(struct recorder *rec)
{
	const struct pmclog_stats *st = pmclog_writer__stats(rec->writer);

	if (rec->live)
		fprintf(stderr, "\r\033[K");
	if (rec->opts->verbosity < 0)
		return;
	if (rec->opts->verbosity > 0 && rec->stop == STOP_SIGNAL)
		warnx("stopped by %s", strsignal(rec->stop_signal));
	fprintf(stderr, "pmclog: %llu records, %llu samples, %llu samples dropped, %llu records dropped, %llu bytes written to %s",
		(unsigned long long)st->records, (unsigned long long)st->samples,
		(unsigned long long)pmclog_stats__samples_dropped(st),
		(unsigned long long)pmclog_stats__records_dropped(st),
		(unsigned long long)pmclog_writer__written(rec->writer), rec->out_name);
	if (rec->opts->compression_level)
		fprintf(stderr, " (zstd level %d: %llu bytes of log)", rec->opts->compression_level,
			(unsigned long long)pmclog_writer__saved(rec->writer));
	fputc('\n', stderr);
	/* Missing samples, not lost ones: said apart, and only when so. */
	if (st->throttles || st->cpus_skipped)
		fprintf(stderr, "pmclog: the kernel throttled sampling %llu times (too many overflow interrupts per tick) and did not start it on %llu CPUs (counter busy or absent); pmclog report says how long\n",
			(unsigned long long)st->throttles,
			(unsigned long long)st->cpus_skipped);
	if (st->procs_unfollowed)
		fprintf(stderr, "pmclog: %llu descendants were not followed (the kernel's table of followed processes was full): their samples and maps are not in the log\n",
			(unsigned long long)st->procs_unfollowed);
	if (rec->archive) {
		const struct pmclog_archive_stats *as = pmclog_archive__stats(rec->archive);

		if (rec->archive_late)
			fprintf(stderr, "pmclog: the archive's copies did not end in %u s: what is still being copied is left out\n",
				ARCHIVE_WAIT_MS / 1000);
		fprintf(stderr, "pmclog: %llu objects (%llu bytes) archived in %s, %llu maps gone before they could be copied, %llu objects not copied; report with -r %s\n",
			(unsigned long long)as->objects, (unsigned long long)as->bytes,
			rec->opts->archive, (unsigned long long)as->gone,
			(unsigned long long)as->failed, rec->opts->archive);
		if (as->dropped)
			fprintf(stderr, "pmclog: %llu maps came faster than the archive could copy them, and were not looked at\n",
				(unsigned long long)as->dropped);
	}
}

/* ------------------------------------------------------------------ */
/* Setup and teardown                                                 */

static int open_target_pidfd(struct recorder *rec)
{
	rec->pidfd = (int)syscall(SYS_pidfd_open, rec->target, 0);
	if (rec->pidfd >= 0 || errno == ENOSYS)
		return 0;	/* without pidfds: polled every TICK_MS */
	if (errno == ESRCH) {
		warnx("no process %d", (int)rec->target);
		return EX_NOINPUT;
	}
	warn("pidfd_open(%d)", (int)rec->target);
	return EX_OSERR;
}

static void say_what(const struct recorder *rec,
		     const struct pmclog_alloc *allocs)
{
	const struct record_opts *o = rec->opts;
	__u32 abi = pmclog_device__abi_version(rec->dev);
	unsigned int i;

	if (o->verbosity <= 0)
		return;
	fprintf(stderr, "pmclog: %s ABI %u.%u.%u; ",
		strcmp(pmclog_device__path(rec->dev), PMCLOG_BPF_DEVICE_NAME) ? "module" :
		PMCLOG_BPF_DEVICE_NAME,
		PMCLOG_ABI_VERSION_MAJOR(abi), PMCLOG_ABI_VERSION_MINOR(abi),
		PMCLOG_ABI_VERSION_PATCH(abi));
	for (i = 0; i < o->nevents; i++)
		fprintf(stderr, "%s as pmc %u, %s %llu%s; ", o->events[i],
			allocs[i].pmcid, o->rates[i].freq ? "at" : "every",
			(unsigned long long)allocs[i].period,
			o->rates[i].freq ? " Hz" :
			allocs[i].event == PMCLOG_EV_CPU_CLOCK ? " ns" : " events");
	if (o->system)
		fprintf(stderr, "the whole system");
	else
		fprintf(stderr, "process %d%s", (int)rec->target,
			o->inherit ? " and its descendants" : "");
	fprintf(stderr, " -> %s\n", rec->out_name);
}

/* What /sys/kernel/security/lockdown selects ("integrity"), or "". */
static void lockdown_mode(char *buf, size_t size)
{
	char line[128], *l, *r;
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (l = strchr(line, '[')) && (r = strchr(l, ']'))) {
		*r = '\0';
		snprintf(buf, size, "%s", l + 1);
	}
	fclose(f);
}

/*
 * The module's device, or the BPF collector: with --bpf, or by itself
 * when the device does not exist (no module: none built for this
 * kernel, or a kernel that refuses it), saying so in one line.
 */
static struct pmclog_device *open_collector(const struct record_opts *o)
{
	const char *env = getenv("PMCLOG_DEVICE");
	const char *path = env && *env ? env : PMCLOG_DEVICE_PATH;
	char lockdown[32];

	if (o->bpf)
		return pmclog_device__open_bpf(NULL);
	if (o->no_bpf || access(path, F_OK) == 0 || errno != ENOENT)
		return pmclog_device__open(NULL);
	lockdown_mode(lockdown, sizeof(lockdown));
	if (strcmp(lockdown, "none") && *lockdown)
		fprintf(stderr, "pmclog: %s does not exist and this kernel is locked down (%s), which refuses unsigned modules: recording through BPF instead (--bpf)\n",
			path, lockdown);
	else
		fprintf(stderr, "pmclog: %s does not exist (the pmclog module is not loaded): recording through BPF instead (--bpf); --no-bpf insists on the module\n",
			path);
	return pmclog_device__open_bpf(NULL);
}

/* Everything up to a started log; on failure an exit status, reported. */
static int start_recording(struct recorder *rec)
{
	const struct record_opts *o = rec->opts;
	struct pmclog_alloc allocs[MAX_EVENTS];
	struct pmclog_writer_opts wopts = PMCLOG_WRITER_OPTS_INIT;
	unsigned int i;
	int ret = 0;

	if (!rec->dev)
		rec->dev = open_collector(o);
	if (!rec->dev)
		return device_open_status(errno);
	for (i = 0; i < o->nevents && !ret; i++)
		ret = allocate_pmc(rec, i, &allocs[i]);
	if (!ret)
		ret = open_output(rec);
	if (!ret && o->archive) {
		/* record_main() waits for the copies itself, before the summary. */
		struct pmclog_archive_opts aopts = { .sz = sizeof(aopts), .timeout_ms = 1 };

		rec->archive = pmclog_archive__new(o->archive, &aopts);
		if (!rec->archive) {
			warn("cannot make the archive %s", o->archive);
			ret = EX_CANTCREAT;
		}
	}
	if (!ret)
		ret = setup_signals(rec);
	if (!ret && o->cmd)
		ret = spawn_command(rec);
	if (ret)
		return ret;
	rec->target = o->cmd ? rec->child : o->pid;
	if (rec->target)
		ret = open_target_pidfd(rec);
	if (!ret)
		ret = attach_target(rec);
	if (ret)
		return ret;
	say_what(rec, allocs);
	ret = pmclog_device__start(rec->dev);
	if (ret) {
		warnx("%s: PMCLOG_IOC_START: %s", pmclog_device__path(rec->dev),
		      strerror(-ret));
		/* The BPF collector's refusals: lockdown, capabilities, no BTF. */
		return ret == -EPERM || ret == -EACCES ? EX_NOPERM :
		       ret == -ENOENT || ret == -ENODEV ? EX_UNAVAILABLE : EX_OSERR;
	}
	wopts.name = rec->out_name;
	wopts.ksyms_later = !o->no_kallsyms;
	/* The kernel's and START's modules' build-ids, as START's MAP_INs come. */
	wopts.sysfs = "/sys";
	wopts.tool = rec->archive ? pmclog_archive__tool(rec->archive) : NULL;
	wopts.compression_level = o->compression_level;
	wopts.pack = !o->no_pack;
	rec->writer = pmclog_writer__new(rec->out, &wopts);
	if (!rec->writer) {
		warn("cannot save %s", rec->out_name);
		return EX_OSERR;
	}
	if (!o->no_kallsyms)
		kallsyms_start(rec);
	if (o->cmd)
		rec->status = release_command(rec);
	return 0;
}

/*
 * Close what start_recording() opened.  A command still held on the go
 * pipe (the setup failed) sees it close and exits without exec.
 */
static void teardown(struct recorder *rec)
{
	if (rec->go_fd >= 0)
		close(rec->go_fd);
	if (rec->exec_fd >= 0)
		close(rec->exec_fd);
	reap_command(rec, 0);
	if (rec->pidfd >= 0)
		close(rec->pidfd);
	if (rec->sigfd >= 0)
		close(rec->sigfd);
	if (rec->signals_set) {
		signal(SIGPIPE, rec->old_sigpipe);
		sigprocmask(SIG_SETMASK, &rec->saved_mask, NULL);
	}
	pmclog_device__close(rec->dev);
	free(rec->buf);
	pmclog_kallsyms__free(rec->kr.ks);
}

static void close_output(struct recorder *rec)
{
	if (rec->out < 0 || rec->out == STDOUT_FILENO)
		return;
	/* close(2) is where NFS and some full disks report write errors. */
	if (close(rec->out) < 0 && rec->status == EX_OK) {
		warn("cannot write %s", rec->out_name);
		rec->status = EX_IOERR;
	}
	rec->out = -1;
}

/* Setup failed: remove the empty log rather than leave it behind. */
static void discard_output(struct recorder *rec)
{
	struct stat made, now;

	if (rec->out < 0 || rec->out == STDOUT_FILENO)
		return;
	/* Only the file we made: the name may since have been given another. */
	if (rec->out_created && !fstat(rec->out, &made) &&
	    !lstat(rec->out_name, &now) && now.st_dev == made.st_dev &&
	    now.st_ino == made.st_ino)
		unlink(rec->out_name);
	close(rec->out);
	rec->out = -1;
}

int record_main(int argc, char **argv, struct pmclog_device *dev)
{
	struct record_opts opts = { 0 };
	struct recorder rec = {
		.opts = &opts, .dev = dev, .out = -1, .sigfd = -1, .pidfd = -1,
		.go_fd = -1, .exec_fd = -1,
	};
	int ret;

	ret = parse_options_record(argc, argv, &opts);
	if (ret) {
		pmclog_device__close(dev);
		free_events(&opts);
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	}
	rec.buf = malloc(READ_BUF_SIZE);
	if (!rec.buf) {
		warn("cannot allocate the read buffer");
		pmclog_device__close(dev);
		free_events(&opts);
		return EX_OSERR;
	}
	ret = start_recording(&rec);
	if (ret) {
		kallsyms_collect(&rec, true);
		pmclog_writer__free(rec.writer);
		pmclog_archive__free(rec.archive);
		teardown(&rec);
		discard_output(&rec);
		free_events(&opts);
		return ret;
	}
	rec.live = opts.verbosity >= 0 && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &rec.last_live);

	record_loop(&rec);
	stop_and_drain(&rec);
	if (rec.archive && pmclog_archive__flush(rec.archive, ARCHIVE_WAIT_MS))
		rec.archive_late = true;
	close_output(&rec);
	teardown(&rec);
	print_summary(&rec);
	report_command_exit(&rec);
	pmclog_writer__free(rec.writer);
	pmclog_archive__free(rec.archive);
	free_events(&opts);
	return rec.status;
}

int cmd_record(int argc, char **argv)
{
	return record_main(argc, argv, NULL);
}
