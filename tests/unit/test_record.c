// SPDX-License-Identifier: GPL-2.0
/*
 * `pmclog record` against a stand-in device (record_shim.so, preloaded):
 * how events turn into ALLOCATEs, and that a recorder whose ATTACH is
 * refused exits at once instead of waiting for the command it holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TOOL	"../../tools/pmclog/pmclog"

static char shim_log[] = "/tmp/pmclog-shim-XXXXXX";
static char err_log[] = "/tmp/pmclog-shim-err-XXXXXX";
/* The shim's max_sample_rate for the next run_record(); NULL: none. */
static const char *shim_max_rate;
/* The shim behaves as a module before ABI 1.3 in the next run_record(). */
static bool shim_old_alloc;

/* Run the tool with args (NULL-terminated); its exit status, or -1. */
static int run_record(double *seconds, ...)
{
	const char *argv[32] = { TOOL, "record", "-q", "-o", "/dev/null" };
	struct timespec t0, t1;
	int argc = 5, status;
	const char *a;
	va_list ap;
	pid_t pid;

	va_start(ap, seconds);
	while ((a = va_arg(ap, const char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("PMCLOG_DEVICE", "/dev/null", 1);
		setenv("LD_PRELOAD", "./record_shim.so", 1);
		setenv("SHIM_LOG", shim_log, 1);
		if (shim_max_rate)
			setenv("SHIM_MAX_RATE", shim_max_rate, 1);
		if (shim_old_alloc)
			setenv("SHIM_OLD_ALLOC", "1", 1);
		if (!freopen(err_log, "w", stderr))
			_exit(126);
		alarm(10);	/* a hang fails the test, not the suite */
		execv(TOOL, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *read_file(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static char *read_log(void)
{
	return read_file(shim_log);
}

static int setup(void **state)
{
	int fd = mkstemp(shim_log);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	fd = mkstemp(err_log);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(shim_log);
	unlink(err_log);
	return 0;
}

static void clear_log(void)
{
	FILE *f = fopen(shim_log, "w");

	assert_non_null(f);
	fclose(f);
}

/* -e repeated and comma lists: one ALLOCATE each, in order. */
static void test_several_events(void **state)
{
	struct stat st;
	double secs;
	(void)state;

	clear_log();
	/* ATTACH is refused: EX_OSERR, and at once (the command was held). */
	assert_int_equal(run_record(&secs, "-F", "500", "-e", "cycles,instructions",
				    "-e", "r01c2:u", "--", "sleep", "5", NULL), 71);
	assert_true(secs < 3);
	/* A failed start removes only a log it created: not -o /dev/null. */
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* Each with its name as given, which the module writes (ABI 1.3). */
	assert_string_equal(read_log(),
			    "2 0x1 500 0 cycles\n"		/* FREQ */
			    "3 0x1 500 0 instructions\n"
			    "9 0x3 500 0x1c2 r01c2:u\n");	/* raw, FREQ|USER */
}

/*
 * A module before ABI 1.3 refuses the name (E2BIG): ALLOCATE is asked
 * again in the structure it knows, and recording goes on.
 */
static void test_module_without_names(void **state)
{
	double secs;
	(void)state;

	clear_log();
	shim_old_alloc = true;
	assert_int_equal(run_record(&secs, "-F", "500", "-e", "cycles,r01c2:u",
				    "--", "true", NULL), 71);
	shim_old_alloc = false;
	assert_string_equal(read_log(),
			    "2 0x1 500 0 -\n"
			    "9 0x3 500 0x1c2 -\n");
	assert_null(strstr(read_file(err_log), "ALLOCATE"));
}

static void test_default_event(void **state)
{
	double secs;
	(void)state;

	clear_log();
	assert_int_equal(run_record(&secs, "-c", "250000", "--", "true", NULL), 71);
	assert_string_equal(read_log(), "1 0 250000 0 cpu-clock\n");	/* period */
}

static void test_bad_events(void **state)
{
	double secs;
	(void)state;

	clear_log();
	assert_int_equal(run_record(&secs, "-e", "cpu-clock", "-e", "cycles,cpu-clock",
				    "--", "true", NULL), 64);
	assert_int_equal(run_record(&secs, "-e", "no-such-event", "--", "true", NULL), 64);
	assert_int_equal(run_record(&secs, "-e", "a,b,c,d,e,f,g,h,i", "--", "true", NULL), 64);
	assert_string_equal(read_log(), "");	/* refused before the device */
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

	clear_log();
	shim_max_rate = "5000";
	assert_int_equal(run_record(&secs, "-F", "5001", "-e", "cycles", "--", "true", NULL), 64);
	err = read_file(err_log);
	assert_non_null(strstr(err, "event cycles with -F 5001 samples faster than the module allows: at most 5000 per second per CPU"));
	assert_non_null(strstr(err, "max_sample_rate"));
	assert_string_equal(read_log(), "");
	/* At the limit: ALLOCATE succeeds (ATTACH is the shim's failure). */
	assert_int_equal(run_record(&secs, "-F", "5000", "-e", "cycles", "--", "true", NULL), 71);
	assert_string_equal(read_log(), "2 0x1 5000 0 cycles\n");
	shim_max_rate = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_several_events),
		cmocka_unit_test(test_module_without_names),
		cmocka_unit_test(test_default_event),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_rate_above_limit),
	};

	if (access(TOOL, X_OK) || access("./record_shim.so", R_OK)) {
		fprintf(stderr, "test_record: needs %s and ./record_shim.so (make)\n", TOOL);
		return 1;
	}
	return cmocka_run_group_tests_name("record", tests, setup, teardown);
}
