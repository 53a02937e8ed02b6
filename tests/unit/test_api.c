// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog as a program outside the tree sees it: built against the
 * headers `make install` puts in include/pmclog/ (and <linux/pmclog.h>),
 * linked against the installed libpmclog.so, so that what the library
 * exports and installs is enough.  A log is counted through a
 * pmclog_tool, written through a pmclog_writer, and the device's message
 * comes through the print callback.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <pmclog/pmclog_device.h>
#include <pmclog/pmclog_format.h>
#include <pmclog/pmclog_reader.h>
#include <pmclog/pmclog_replay.h>
#include <pmclog/pmclog_stats.h>
#include <pmclog/pmclog_tool.h>
#include <pmclog/pmclog_writer.h>

#include "log_builder.h"
#include "print_capture.h"

struct counter {
	struct pmclog_tool tool;
	unsigned int samples, maps;
};

static int count_sample(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	(void)rec;
	((struct counter *)tool)->samples++;
	return 0;
}

static int count_map(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	assert_non_null(rec->path);
	((struct counter *)tool)->maps++;
	return 0;
}

static void test_tool(void **state)
{
	static struct logbuf b;
	struct counter c = {
		.tool = { .pcsample = count_sample, .map_in = count_map },
	};
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	(void)state;

	lb_full_log(&b);
	assert_non_null(r);
	/* CLOSELOG's last 8 bytes missing: more wanted, then the end. */
	assert_int_equal(pmclog_reader__feed(r, b.data, b.len - 8), 0);
	assert_int_equal(pmclog_tool__process(&c.tool, r), -EAGAIN);
	assert_int_equal(pmclog_reader__feed(r, b.data + b.len - 8, 8), 0);
	assert_int_equal(pmclog_tool__process(&c.tool, r), 0);
	assert_int_equal(pmclog_reader__end(r), PMCLOG_READER_END_CLOSELOG);
	assert_int_equal(c.samples, 2);
	assert_int_equal(c.maps, 2);
	pmclog_reader__free(r);
}

static void test_writer(void **state)
{
	static struct logbuf b;
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	int fd = memfd_create("api", 0);
	struct pmclog_writer *w;
	(void)state;

	lb_full_log(&b);
	assert_true(fd >= 0);
	w = pmclog_writer__new(fd, &opts);
	assert_non_null(w);
	assert_int_equal(pmclog_writer__write(w, b.data, b.len), 0);
	assert_int_equal(pmclog_writer__finish(w), 0);
	assert_int_equal(pmclog_writer__written(w), b.len);
	assert_int_equal(pmclog_writer__stats(w)->samples, 2);
	assert_int_equal(pmclog_stats__samples_dropped(pmclog_writer__stats(w)), 5);
	pmclog_writer__free(w);
	close(fd);
}

static void test_device_message(void **state)
{
	struct pmclog_device_opts opts = PMCLOG_DEVICE_OPTS_INIT;
	(void)state;

	opts.path = "/nonexistent/pmclog";
	assert_null(pmclog_device__open(&opts));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(said, "is the module loaded?"));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(pmclog_type_name(PMCLOG_TYPE_MAP_IN), "MAP_IN");
	assert_string_equal(pmclog_pmu_name(PMCLOG_PMU_INTEL_ARCH), "intel-arch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tool),
		cmocka_unit_test(test_writer),
		cmocka_unit_test_setup(test_device_message, print_capture_start),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
