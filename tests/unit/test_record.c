// SPDX-License-Identifier: GPL-2.0
/*
 * `pmclog record` itself (record_main()), on a stand-in for the module:
 * the device's ioctls answered by a pmclog_device_ops, its records
 * written into the pipe the device reads.  How events turn into
 * ALLOCATEs, what ATTACH is asked, that a recorder whose ATTACH is
 * refused exits at once instead of waiting for the command it holds,
 * the message of a rate above the module's limit, and whole recordings:
 * the file is the module's records, the summary their counts, a log the
 * module did not end is an error; --user runs the command as that user.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "log_builder.h"
#include "builtin.h"
#include "pmclog_internal.h"
#include "pmclog_reader.h"

#define MAX_ALLOCS	16

/* How the stand-in module answers the next run_record(). */
struct fake_cfg {
	__u32 max_rate;			/* GET_PMU's max_sample_rate; ERANGE above */
	int attach_errno;		/* 0: ATTACH succeeds */
	bool no_closelog;		/* STOP ends the log without CLOSELOG */
	bool old_alloc;			/* a module before ABI 1.3: no names */
	__u32 abi_minor;		/* GET_VERSION's minor; 0: the current one */
	__u32 max_depth;		/* callchain_max_depth; EOVERFLOW above */
};

static struct fake_cfg cfg = { .max_rate = 100000, .max_depth = 127 };

/* The stand-in module: what it was asked. */
struct fake {
	struct fake_cfg cfg;
	struct pmclog_alloc allocs[MAX_ALLOCS];	/* name "-": none came */
	unsigned int nallocs;
	struct pmclog_attach attach;
	bool attached, started, stopped;
	int wr;				/* the pipe the device reads */
	struct logbuf log;		/* what START and STOP wrote */
};

static struct fake fake;

static void fake_emit(struct fake *f, size_t from)
{
	assert_int_equal(write(f->wr, f->log.data + from, f->log.len - from),
			 (ssize_t)(f->log.len - from));
}

static int fake_allocate(struct fake *f, struct pmclog_alloc *a, size_t size)
{
	if (size != PMCLOG_ALLOC_SIZE_VER0 &&
	    (f->cfg.old_alloc || size != sizeof(*a))) {
		errno = E2BIG;
		return -1;
	}
	if (a->flags & PMCLOG_PMC_F_FREQ && a->period > f->cfg.max_rate) {
		errno = ERANGE;
		return -1;
	}
	if (a->callchain_depth > f->cfg.max_depth) {
		errno = EOVERFLOW;
		return -1;
	}
	assert_true(f->nallocs < MAX_ALLOCS);
	a->pmcid = (__u32)f->nallocs + 1;
	f->allocs[f->nallocs] = *a;
	if (size == PMCLOG_ALLOC_SIZE_VER0)
		strcpy(f->allocs[f->nallocs].name, "-");
	f->nallocs++;
	return 0;
}

static int fake_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct fake *f = ctx;
	size_t from = f->log.len;

	(void)fd;
	/* ALLOCATE of either size, as copy_struct_from_user() sees it. */
	if (_IOC_TYPE(req) == PMCLOG_IOC_MAGIC &&
	    _IOC_NR(req) == _IOC_NR(PMCLOG_IOC_ALLOCATE))
		return fake_allocate(f, arg, _IOC_SIZE(req));
	switch (req) {
	case PMCLOG_IOC_GET_VERSION:
		((struct pmclog_version *)arg)->abi_version = f->cfg.abi_minor ?
			PMCLOG_ABI_VERSION(PMCLOG_ABI_MAJOR, f->cfg.abi_minor, 0) :
			PMCLOG_ABI_CURRENT;
		return 0;
	case PMCLOG_IOC_GET_PMU:
		*(struct pmclog_pmu_info *)arg = (struct pmclog_pmu_info){
			.pmu = PMCLOG_PMU_NONE, .max_sample_rate = f->cfg.max_rate,
		};
		return 0;
	case PMCLOG_IOC_ATTACH:
		if (f->cfg.attach_errno) {
			errno = f->cfg.attach_errno;
			return -1;
		}
		f->attach = *(const struct pmclog_attach *)arg;
		f->attached = true;
		return 0;
	case PMCLOG_IOC_START:
		f->started = true;
		lb_initialize(&f->log);
		for (unsigned int i = 0; i < f->nallocs; i++)
			lb_pmcallocate(&f->log, (__u8)(i + 1), f->allocs[i].event,
				       f->allocs[i].flags, f->allocs[i].period,
				       f->allocs[i].name);
		lb_pcsample(&f->log, 0, 7, 7, 0x401000, 1);
		lb_pcsample(&f->log, 0, 7, 7, 0x401010, 1);	/* a run: packed */
		fake_emit(f, from);
		return 0;
	case PMCLOG_IOC_STOP:
		f->stopped = true;
		if (!f->cfg.no_closelog)
			lb_closelog(&f->log, 2, 0, 0);
		fake_emit(f, from);
		close(f->wr);	/* read(2) returns 0: the log is over */
		f->wr = -1;
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}

static const struct pmclog_device_ops fake_ops = { .ioctl = fake_ioctl };

static char out_path[] = "/tmp/pmclog-record-XXXXXX";
static char err_path[] = "/tmp/pmclog-record-err-XXXXXX";

/*
 * record_main() with args (NULL-terminated) after "record", on a fresh
 * stand-in, stderr to err_path; its exit status.
 */
static int run_record(double *seconds, ...)
{
	const char *argv[32] = { "record" };
	struct pmclog_device *dev;
	struct timespec t0, t1;
	int argc = 1, p[2], saved_err, status;
	const char *a;
	va_list ap;

	va_start(ap, seconds);
	while ((a = va_arg(ap, const char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;

	memset(&fake, 0, sizeof(fake));
	fake.cfg = cfg;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fake.wr = p[1];
	dev = pmclog_device__new(p[0], "/dev/fake", &fake_ops, &fake, false);
	assert_non_null(dev);

	fflush(stderr);
	saved_err = dup(STDERR_FILENO);
	assert_true(saved_err >= 0);
	assert_non_null(freopen(err_path, "w", stderr));
	alarm(10);	/* a hang fails the test */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = record_main(argc, (char **)argv, dev);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	fflush(stderr);
	dup2(saved_err, STDERR_FILENO);
	close(saved_err);
	if (fake.wr >= 0)
		close(fake.wr);
	*seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return status;
}

static char *read_file(const char *path)
{
	static char buf[16384];	/* two --help outputs */
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int setup(void **state)
{
	int fd = mkstemp(out_path);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	fd = mkstemp(err_path);
	if (fd < 0)
		return -1;
	close(fd);
	pmclog_set_print(print_libpmclog);
	return 0;
}

static int teardown(void **state)
{
	char old[sizeof(out_path) + 4];

	(void)state;
	snprintf(old, sizeof(old), "%s.old", out_path);
	unlink(old);
	unlink(out_path);
	unlink(err_path);
	return 0;
}

static void assert_alloc(unsigned int i, __u32 event, __u32 flags,
			 __u64 period, __u64 config, const char *name)
{
	assert_true(i < fake.nallocs);
	assert_string_equal(fake.allocs[i].name, name);
	assert_int_equal(fake.allocs[i].event, event);
	assert_int_equal(fake.allocs[i].flags, flags);
	assert_int_equal(fake.allocs[i].period, period);
	assert_int_equal(fake.allocs[i].config, config);
}

/* -e repeated and comma lists: one ALLOCATE each, in order. */
static void test_several_events(void **state)
{
	struct stat st;
	double secs;
	(void)state;

	cfg.attach_errno = EOPNOTSUPP;
	/* ATTACH is refused: EX_OSERR, and at once (the command was held). */
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-F", "500",
				    "-e", "cycles,instructions", "-e", "r01c2:u",
				    "--", "sleep", "5", NULL), 71);
	assert_true(secs < 3);
	cfg.attach_errno = 0;
	/* A failed start removes only a log it created: not -o /dev/null. */
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(fake.nallocs, 3);
	/* Each with its name as given, which the module writes (ABI 1.3). */
	assert_alloc(0, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_FREQ, 500, 0, "cycles");
	assert_alloc(1, PMCLOG_EV_INSTRUCTIONS, PMCLOG_PMC_F_FREQ, 500, 0, "instructions");
	assert_alloc(2, PMCLOG_EV_RAW, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_USER, 500, 0x1c2,
		     "r01c2:u");
	assert_false(fake.started);
	assert_non_null(strstr(read_file(err_path), "/dev/fake: cannot attach to process "));
}

/*
 * A module before ABI 1.3 refuses the name (E2BIG): ALLOCATE is asked
 * again in the structure it knows, and recording goes on.
 */
static void test_module_without_names(void **state)
{
	double secs;
	(void)state;

	cfg.old_alloc = true;
	cfg.attach_errno = EOPNOTSUPP;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-F", "500",
				    "-e", "cycles,r01c2:u", "--", "true", NULL), 71);
	cfg.old_alloc = false;
	cfg.attach_errno = 0;
	assert_int_equal(fake.nallocs, 2);
	assert_alloc(0, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_FREQ, 500, 0, "-");
	assert_alloc(1, PMCLOG_EV_RAW, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_USER, 500, 0x1c2, "-");
	assert_null(strstr(read_file(err_path), "ALLOCATE"));
}

/*
 * -g asks each PMC for stacks (ABI 1.5), --callchain-depth for a depth
 * too; a depth above the module's parameter is refused with its name, and
 * a module without stacks is told before any ALLOCATE.
 */
static void test_callchain(void **state)
{
	double secs;
	(void)state;

	cfg.attach_errno = EOPNOTSUPP;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-g", "-e",
				    "cpu-clock", "--", "true", NULL), 71);
	assert_alloc(0, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		     1000, 0, "cpu-clock");
	assert_int_equal(fake.allocs[0].callchain_depth, 0);	/* the module's */
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "--callchain-depth",
				    "16", "-e", "cycles,instructions", "--", "true", NULL), 71);
	assert_int_equal(fake.nallocs, 2);
	for (unsigned int i = 0; i < 2; i++) {
		assert_true(fake.allocs[i].flags & PMCLOG_PMC_F_CALLCHAIN);
		assert_int_equal(fake.allocs[i].callchain_depth, 16);
	}
	cfg.attach_errno = 0;

	cfg.max_depth = 8;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "--callchain-depth",
				    "16", "--", "true", NULL), 64);
	cfg.max_depth = 127;
	assert_non_null(strstr(read_file(err_path),
			       "--callchain-depth 16 is deeper than the module allows (its callchain_max_depth parameter"));

	cfg.abi_minor = 4;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-g", "--", "true", NULL), 69);
	cfg.abi_minor = 0;
	assert_int_equal(fake.nallocs, 0);
	assert_non_null(strstr(read_file(err_path),
			       "-g: the loaded pmclog module (ABI 1.4) takes no stacks"));

	assert_int_equal(run_record(&secs, "--callchain-depth", "0", "--", "true", NULL), 64);
	assert_int_equal(run_record(&secs, "--callchain-depth", "1025", "--", "true", NULL), 64);
	assert_non_null(strstr(read_file(err_path), "--callchain-depth 1025: at most 1024 frames"));
	assert_false(fake.started);
}

static void test_default_event(void **state)
{
	double secs;
	(void)state;

	cfg.attach_errno = EOPNOTSUPP;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-c", "250000",
				    "--", "true", NULL), 71);
	cfg.attach_errno = 0;
	assert_int_equal(fake.nallocs, 1);
	assert_alloc(0, PMCLOG_EV_CPU_CLOCK, 0, 250000, 0, "cpu-clock");	/* period */
}

/*
 * Each -F / -c sets the rate of the -e events before it; those after the
 * last one take it: two cpu-clocks at different periods, and a hardware
 * event at a rate of its own.  (Before, one -F or -c was every event's,
 * and a second cpu-clock was refused.)
 */
static void test_event_rates(void **state)
{
	const char *err;
	double secs;
	(void)state;

	cfg.attach_errno = EOPNOTSUPP;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null",
				    "-e", "cpu-clock", "-c", "1000000",
				    "-e", "cpu-clock:u", "-c", "3000000",
				    "-e", "cycles,instructions", "-F", "4000",
				    "-e", "branches", "--", "true", NULL), 71);
	assert_int_equal(fake.nallocs, 5);
	assert_alloc(0, PMCLOG_EV_CPU_CLOCK, 0, 1000000, 0, "cpu-clock");
	assert_alloc(1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_USER, 3000000, 0, "cpu-clock:u");
	assert_alloc(2, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_FREQ, 4000, 0, "cycles");
	assert_alloc(3, PMCLOG_EV_INSTRUCTIONS, PMCLOG_PMC_F_FREQ, 4000, 0, "instructions");
	assert_alloc(4, PMCLOG_EV_BRANCHES, PMCLOG_PMC_F_FREQ, 4000, 0, "branches");
	/* One -F before the events is all of theirs, as before. */
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-c", "2000000",
				    "-e", "cpu-clock", "-e", "cpu-clock", "--", "true", NULL), 71);
	assert_int_equal(fake.nallocs, 2);
	assert_alloc(1, PMCLOG_EV_CPU_CLOCK, 0, 2000000, 0, "cpu-clock");
	cfg.attach_errno = 0;

	/* With several, one that sets no event's rate is a usage error. */
	assert_int_equal(run_record(&secs, "-e", "cycles", "-F", "100", "-c", "200",
				    "--", "true", NULL), 64);
	assert_int_equal(fake.nallocs, 0);
	err = read_file(err_path);
	assert_non_null(strstr(err, "-c 200 sets the rate of no event"));
	assert_int_equal(run_record(&secs, "-F", "100", "-e", "cycles", "-c", "200",
				    "-e", "instructions", "--", "true", NULL), 64);
	assert_non_null(strstr(read_file(err_path), "-F 100 sets the rate of no event"));
	assert_int_equal(run_record(&secs, "-F", "100", "-c", "200", "--", "true", NULL), 64);
	assert_int_equal(fake.nallocs, 0);
}

static void test_bad_events(void **state)
{
	double secs;
	(void)state;

	assert_int_equal(run_record(&secs, "-e", "no-such-event", "--", "true", NULL), 64);
	assert_int_equal(fake.nallocs, 0);
	assert_int_equal(run_record(&secs, "-e", "a,b,c,d,e,f,g,h,i", "--", "true", NULL), 64);
	assert_int_equal(fake.nallocs, 0);
}

/*
 * -F above the module's max_sample_rate: ERANGE from ALLOCATE, a usage
 * error naming the limit and how to change it; at the limit it goes on.
 */
static void test_rate_above_limit(void **state)
{
	const char *err;
	double secs;
	(void)state;

	cfg.max_rate = 5000;
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-F", "5001",
				    "-e", "cycles", "--", "true", NULL), 64);
	err = read_file(err_path);
	assert_non_null(strstr(err, "event cycles with -F 5001 samples faster than the module allows: at most 5000 per second per CPU"));
	assert_non_null(strstr(err, "max_sample_rate"));
	assert_int_equal(fake.nallocs, 0);
	/* At the limit: ALLOCATE succeeds, and the recording with it. */
	assert_int_equal(run_record(&secs, "-q", "-o", "/dev/null", "-F", "5000",
				    "-e", "cycles", "--", "true", NULL), 0);
	assert_int_equal(fake.nallocs, 1);
	assert_alloc(0, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_FREQ, 5000, 0, "cycles");
	cfg.max_rate = 100000;
}

/* The record types of the file at out_path, in order, in types. */
static size_t file_types(unsigned int *types, size_t max, enum pmclog_reader_end *end)
{
	struct pmclog_reader *r = pmclog_reader__open_file(out_path, NULL);
	struct pmclog_record rec;
	size_t n = 0;
	int ret;

	assert_non_null(r);
	while ((ret = pmclog_reader__next(r, &rec)) == 1 && n < max)
		types[n++] = rec.type;
	assert_int_equal(ret, 0);
	*end = pmclog_reader__end(r);
	pmclog_reader__free(r);
	return n;
}

/* Whether the file at out_path is a zstd stream (its frame magic). */
static bool file_is_zstd(void)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	unsigned char b[4] = { 0 };
	FILE *f = fopen(out_path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(b, 1, sizeof(b), f), sizeof(b));
	fclose(f);
	return !memcmp(b, magic, sizeof(b));
}

/* The type of the record at offset off of the file at out_path, as it lies. */
static unsigned int file_type_at(size_t off)
{
	struct pmclog_header h = { 0 };
	FILE *f = fopen(out_path, "rb");

	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fread(&h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
	return h.type;
}

static size_t file_size(void)
{
	struct stat st;

	assert_int_equal(stat(out_path, &st), 0);
	return (size_t)st.st_size;
}

/*
 * A command recorded to its end: the module is asked for the command's
 * process and its descendants (the default, as perf's inherit), started,
 * stopped when the command exits, and the file holds its records,
 * CLOSELOG last, the two samples of one thread packed into a PCSAMPLES
 * by default, as read back; the summary counts them.  --no-pack saves
 * the log as it came; -z compresses it (zstd), --compression-level 0
 * not again; -g compresses by default.
 */
static void test_whole_recording(void **state)
{
	unsigned int types[16];
	enum pmclog_reader_end end;
	char want[256];
	size_t packed;
	double secs;
	(void)state;

	assert_int_equal(run_record(&secs, "--no-kallsyms", "-o", out_path,
				    "--", "true", NULL), 0);
	assert_true(fake.attached && fake.started && fake.stopped);
	assert_int_equal(fake.attach.mode, PMCLOG_ATTACH_PROCESS);
	assert_int_equal(fake.attach.flags, PMCLOG_ATTACH_F_CHILDREN);
	assert_true(fake.attach.pid > 0 && fake.attach.pid != (__u32)getpid());
	assert_int_equal(file_types(types, 16, &end), 5);
	assert_int_equal(types[0], PMCLOG_TYPE_INITIALIZE);
	assert_int_equal(types[1], PMCLOG_TYPE_PMCALLOCATE);
	assert_int_equal(types[2], PMCLOG_TYPE_PCSAMPLE);
	assert_int_equal(types[3], PMCLOG_TYPE_PCSAMPLE);
	assert_int_equal(types[4], PMCLOG_TYPE_CLOSELOG);
	assert_int_equal(end, PMCLOG_READER_END_CLOSELOG);
	assert_false(file_is_zstd());
	assert_int_equal(file_type_at(sizeof(struct pmclog_initialize) +
				      sizeof(struct pmclog_pmcallocate)),
			 PMCLOG_TYPE_PCSAMPLES);
	packed = file_size();
	assert_true(packed < fake.log.len);
	snprintf(want, sizeof(want),
		 "pmclog: 5 records, 2 samples, 0 samples dropped, 0 records dropped, %zu bytes written to %s\n",
		 packed, out_path);
	assert_string_equal(read_file(err_path), want);

	/* Unpacked: the log as the module wrote it, byte for byte. */
	assert_int_equal(run_record(&secs, "--no-kallsyms", "--no-pack",
				    "-o", out_path, "--", "true", NULL), 0);
	assert_int_equal(file_types(types, 16, &end), 5);
	assert_int_equal(file_size(), fake.log.len);
	assert_int_equal(file_type_at(sizeof(struct pmclog_initialize) +
				      sizeof(struct pmclog_pmcallocate)),
			 PMCLOG_TYPE_PCSAMPLE);
	assert_memory_equal(read_file(out_path), fake.log.data, fake.log.len);

	assert_int_equal(run_record(&secs, "--no-kallsyms", "-z", "-o", out_path,
				    "--", "true", NULL), 0);
	assert_int_equal(file_types(types, 16, &end), 5);
	assert_true(file_is_zstd());
	snprintf(want, sizeof(want),
		 "bytes written to %s (zstd level 1: %zu bytes of log)\n",
		 out_path, packed);
	assert_non_null(strstr(read_file(err_path), want));
	assert_int_equal(run_record(&secs, "--no-kallsyms", "-z", "--compression-level", "0",
				    "-o", out_path, "--", "true", NULL), 0);
	assert_false(file_is_zstd());
	assert_int_equal(run_record(&secs, "--no-kallsyms", "--compression-level", "0",
				    "-z", "-o", out_path, "--", "true", NULL), 0);
	assert_true(file_is_zstd());
	/* With -g, compressed unless told otherwise: stacks are what zstd is for. */
	assert_int_equal(run_record(&secs, "--no-kallsyms", "-g", "-o", out_path,
				    "--", "true", NULL), 0);
	assert_true(file_is_zstd());
	assert_int_equal(fake.allocs[0].flags & PMCLOG_PMC_F_CALLCHAIN, PMCLOG_PMC_F_CALLCHAIN);
	assert_int_equal(run_record(&secs, "--no-kallsyms", "--compression-level", "0", "-g",
				    "-o", out_path, "--", "true", NULL), 0);
	assert_false(file_is_zstd());
	assert_int_equal(run_record(&secs, "--compression-level", "23", "-o", out_path,
				    "--", "true", NULL), 64);
	assert_non_null(strstr(read_file(err_path), "--compression-level 23: 0 (none) to 22"));
}

/*
 * Descendants: followed by default, with -d (pmcstat's spelling of it)
 * too; --no-inherit asks for the process alone; the last one given
 * wins; with -a, which sees every process, either is a usage error.
 */
static void test_inherit(void **state)
{
	double secs;
	(void)state;

	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--no-inherit", "--", "true", NULL), 0);
	assert_int_equal(fake.attach.mode, PMCLOG_ATTACH_PROCESS);
	assert_int_equal(fake.attach.flags, 0);
	assert_true(fake.stopped);

	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "-d", "--", "true", NULL), 0);
	assert_int_equal(fake.attach.flags, PMCLOG_ATTACH_F_CHILDREN);
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "-d", "--no-inherit", "--", "true", NULL), 0);
	assert_int_equal(fake.attach.flags, 0);
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--no-inherit", "-d", "--", "true", NULL), 0);
	assert_int_equal(fake.attach.flags, PMCLOG_ATTACH_F_CHILDREN);
	/* CMD's own options are CMD's: its --no-inherit is not ours. */
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "true", "--no-inherit", NULL), 0);
	assert_int_equal(fake.attach.flags, PMCLOG_ATTACH_F_CHILDREN);

	assert_int_equal(run_record(&secs, "-a", "--no-inherit", "--", "true", NULL), 64);
	assert_false(fake.attached);
	assert_non_null(strstr(read_file(err_path),
			       "--no-inherit is for the descendants of -p PID or of a command; -a sees every process"));
	assert_int_equal(run_record(&secs, "-a", "-d", "--", "true", NULL), 64);
	assert_false(fake.attached);
}

/* -h and --help: the usage, from the table, on stdout; exit 0, nothing asked. */
static void test_help(void **state)
{
	char out_file[] = "/tmp/pmclog-record-help-XXXXXX";
	const char *help;
	int fd, saved_out;
	double secs;
	(void)state;

	fd = mkstemp(out_file);
	assert_true(fd >= 0);
	fflush(stdout);
	saved_out = dup(STDOUT_FILENO);
	assert_true(dup2(fd, STDOUT_FILENO) >= 0);
	close(fd);
	assert_int_equal(run_record(&secs, "--help", NULL), 0);
	assert_int_equal(run_record(&secs, "-h", "--", "true", NULL), 0);
	fflush(stdout);
	dup2(saved_out, STDOUT_FILENO);
	close(saved_out);
	assert_false(fake.attached);
	help = read_file(out_file);
	unlink(out_file);
	assert_non_null(strstr(help, "usage: pmclog record [-a | -p PID]"));
	assert_non_null(strstr(help, "\n      --no-inherit    with -p or CMD: that process only"));
	assert_non_null(strstr(help, "\n  -d                  with -p or CMD: the descendants too, the default"));
	/* Twice: once for each call. */
	assert_non_null(strstr(strstr(help, "-h, --help") + 1, "-h, --help"));
	assert_string_equal(read_file(err_path), "");
}

/* -a with a command: the whole system, while the command runs. */
static void test_system_while_command(void **state)
{
	double secs;
	(void)state;

	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-a", "-o", out_path,
				    "--", "true", NULL), 0);
	assert_int_equal(fake.attach.mode, PMCLOG_ATTACH_SYSTEM);
	assert_int_equal(fake.attach.pid, 0);
	assert_true(fake.stopped);
	assert_string_equal(read_file(err_path), "");
}

/* A module that ends the log without CLOSELOG: saved, but EX_PROTOCOL. */
static void test_no_closelog(void **state)
{
	unsigned int types[16];
	enum pmclog_reader_end end;
	double secs;
	(void)state;

	cfg.no_closelog = true;
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--", "true", NULL), 76);
	cfg.no_closelog = false;
	assert_int_equal(file_types(types, 16, &end), 4);
	assert_int_equal(end, PMCLOG_READER_END_EOF);
	assert_non_null(strstr(read_file(err_path), "ended without CLOSELOG"));
}

/*
 * -o never writes into a file that another user made: the attacker's
 * 0666 pmclog.data in /tmp is kept aside as PATH.old and the log is a new
 * file of ours, 0600; their symbolic link or FIFO is refused (EX_NOPERM)
 * and what the link names is left as it was.  An existing log of ours is
 * kept as PATH.old, as perf keeps perf.data.old.
 */
static void test_output_not_theirs(void **state)
{
	char old[sizeof(out_path) + 4], other[] = "/tmp/pmclog-record-victim-XXXXXX";
	struct stat st;
	double secs;
	int fd;

	(void)state;
	snprintf(old, sizeof(old), "%s.old", out_path);
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--", "true", NULL), 0);
	assert_int_equal(stat(old, &st), 0);
	assert_int_equal(stat(out_path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true(st.st_size > 0);
	if (geteuid() != 0)
		skip();

	assert_int_equal(unlink(old), 0);
	assert_int_equal(chown(out_path, 65534, 65534), 0);
	assert_int_equal(chmod(out_path, 0666), 0);
	assert_int_equal(truncate(out_path, 0), 0);
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--", "true", NULL), 0);
	assert_int_equal(stat(out_path, &st), 0);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true(st.st_size > 0);
	assert_int_equal(stat(old, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_size, 0);

	/* Their link to a file of root's: refused, the file untouched. */
	fd = mkstemp(other);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "root's", 6), 6);
	close(fd);
	assert_int_equal(unlink(out_path), 0);
	assert_int_equal(symlink(other, out_path), 0);
	assert_int_equal(lchown(out_path, 65534, 65534), 0);
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--", "true", NULL), EX_NOPERM);
	assert_non_null(strstr(read_file(err_path), "is a symbolic link of uid 65534"));
	assert_string_equal(read_file(other), "root's");
	assert_int_equal(unlink(other), 0);

	/* Their FIFO would stream the log to them: refused, without waiting. */
	assert_int_equal(unlink(out_path), 0);
	assert_int_equal(mkfifo(out_path, 0666), 0);
	assert_int_equal(chown(out_path, 65534, 65534), 0);
	assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
				    "--", "true", NULL), EX_NOPERM);
	assert_non_null(strstr(read_file(err_path), "is a FIFO of uid 65534"));
	assert_false(fake.started);
	assert_int_equal(unlink(out_path), 0);
}

/* test_user()'s command: who it runs as, into DIR/whoami (DIR its $0). */
#define WHOAMI	"exec >\"$0/whoami\"; id -u; id -ru; id -g; id -rg; id -G; " \
		"printf '%s\\n' \"$HOME\" \"$USER\" \"$LOGNAME\" \"$PMCLOG_TEST_KEPT\"; " \
		"grep -E '^Cap(Prm|Eff|Amb):' /proc/self/status"

/*
 * --user, as root: the command runs as that user, by uid or by name:
 * its uid, gid and groups (none of root's), its HOME, USER and LOGNAME
 * (root's as we pass them replaced, the rest of the environment kept),
 * and no capability left to take root back with.  nobody (65534) is the
 * user; the test is skipped where it does not exist or we are not root.
 */
static void test_user(void **state)
{
	char dir[] = "/tmp/pmclog-record-user-XXXXXX", path[64], want[1024], gids[256];
	static const char *const vars[] = { "HOME", "USER", "LOGNAME" };
	char name[64], home[256], uid_s[16], *saved[3];
	struct passwd *pw;
	gid_t gid, g[64], old_groups[256], root_groups[] = { 0 };
	int ng = 64, k = 0, nold;
	double secs;
	(void)state;

	pw = getpwuid(65534);
	if (geteuid() != 0 || !pw) {
		print_message("--user needs root and a user 65534: skipped\n");
		skip();
	}
	snprintf(name, sizeof(name), "%s", pw->pw_name);
	snprintf(home, sizeof(home), "%s", pw->pw_dir);
	gid = pw->pw_gid;
	assert_true(getgrouplist(name, gid, g, &ng) >= 0);
	/* id -G: the gid, then the other groups in the kernel's order (sorted). */
	for (int i = 1; i < ng; i++)
		for (int j = i; j > 0 && g[j - 1] > g[j]; j--) {
			gid_t t = g[j];

			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	k = snprintf(gids, sizeof(gids), "%u", (unsigned int)gid);
	for (int i = 0; i < ng; i++) {
		assert_int_not_equal(g[i], 0);	/* else root's group proves nothing */
		if (g[i] != gid)
			k += snprintf(gids + k, sizeof(gids) - (size_t)k, " %u", (unsigned int)g[i]);
	}
	snprintf(want, sizeof(want),
		 "65534\n65534\n%u\n%u\n%s\n%s\n%s\n%s\nkept\n"
		 "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapAmb:\t0000000000000000\n",
		 (unsigned int)gid, (unsigned int)gid, gids, home, name, name);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);	/* the user writes there */
	snprintf(path, sizeof(path), "%s/whoami", dir);
	for (int i = 0; i < 3; i++) {
		saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
		setenv(vars[i], i ? "root" : "/root", 1);
	}
	setenv("PMCLOG_TEST_KEPT", "kept", 1);
	/* Root's group as a supplementary one too, which the command must not keep. */
	nold = getgroups(256, old_groups);
	assert_true(nold >= 0);
	assert_int_equal(setgroups(1, root_groups), 0);

	snprintf(uid_s, sizeof(uid_s), "%u", 65534U);
	for (int by_name = 0; by_name < 2; by_name++) {
		unlink(path);
		assert_int_equal(run_record(&secs, "-q", "--no-kallsyms", "-o", out_path,
					    "--user", by_name ? name : uid_s,
					    "--", "sh", "-c", WHOAMI, dir, NULL), 0);
		assert_true(fake.started && fake.stopped);
		assert_string_equal(read_file(err_path), "");
		assert_string_equal(read_file(path), want);
	}
	assert_int_equal(setgroups((size_t)nold, old_groups), 0);
	for (int i = 0; i < 3; i++) {
		if (saved[i])
			setenv(vars[i], saved[i], 1);
		else
			unsetenv(vars[i]);
		free(saved[i]);
	}
	unsetenv("PMCLOG_TEST_KEPT");
	unlink(path);
	rmdir(dir);
}

/*
 * --user without a command, and a user that does not exist, by name or
 * uid: refused before the module is asked anything (EX_USAGE, EX_NOUSER).
 */
static void test_user_refused(void **state)
{
	const char *err;
	double secs;
	(void)state;

	assert_int_equal(run_record(&secs, "-a", "--user", "nobody", NULL), 64);
	assert_int_equal(fake.nallocs, 0);
	assert_non_null(strstr(read_file(err_path),
			       "--user is whom the command runs as: give the command"));
	assert_int_equal(run_record(&secs, "-p", "1", "--user", "nobody", NULL), 64);
	assert_int_equal(fake.nallocs, 0);

	assert_int_equal(run_record(&secs, "--user", "pmclog-no-such-user", "--", "true", NULL), 67);
	assert_int_equal(fake.nallocs, 0);
	err = read_file(err_path);
	assert_non_null(strstr(err, "--user pmclog-no-such-user: no such user"));
	if (!getpwuid(2147483646)) {
		assert_int_equal(run_record(&secs, "--user", "2147483646", "--", "true", NULL), 67);
		assert_int_equal(fake.nallocs, 0);
	}
	/* (uid_t)-1 is no uid, whatever the passwd file says. */
	assert_int_equal(run_record(&secs, "--user", "4294967295", "--", "true", NULL), 67);
	assert_int_equal(run_record(&secs, "--user", "", "--", "true", NULL), 67);
	assert_false(fake.started);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_several_events),
		cmocka_unit_test(test_module_without_names),
		cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_default_event),
		cmocka_unit_test(test_event_rates),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_rate_above_limit),
		cmocka_unit_test(test_whole_recording),
		cmocka_unit_test(test_output_not_theirs),
		cmocka_unit_test(test_inherit),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_system_while_command),
		cmocka_unit_test(test_no_closelog),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_user_refused),
	};

	return cmocka_run_group_tests_name("record", tests, setup, teardown);
}
