// SPDX-License-Identifier: GPL-2.0
/*
 * Event specifications (`pmclog record -e`) and the record counting
 * (a pmclog_tool) behind record's live counts and summary.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "log_builder.h"
#include "pmclog_events.h"
#include "pmclog_stats.h"

/* Deliver every record of b to a fresh pmclog_stats; the walk's result. */
static int count_log(const struct logbuf *b, struct pmclog_stats *st)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	int ret;

	assert_non_null(r);
	pmclog_stats__init(st);
	assert_int_equal(pmclog_reader__feed(r, b->data, b->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	ret = pmclog_tool__process(&st->tool, r);
	pmclog_reader__free(r);
	return ret;
}

static struct pmclog_alloc parse_ok(const char *spec)
{
	struct pmclog_alloc a = { .flags = PMCLOG_PMC_F_FREQ, .period = 99 };

	assert_int_equal(pmclog_event_parse(spec, &a), 0);
	/* Only event, config, the mode flags and the name are the parser's. */
	assert_true(a.flags & PMCLOG_PMC_F_FREQ);
	assert_int_equal(a.period, 99);
	/* The spec as given, for PMCALLOCATE; NUL-padded, as the module wants. */
	assert_string_equal(a.name, spec);
	for (size_t i = strlen(spec); i < sizeof(a.name); i++)
		assert_int_equal(a.name[i], 0);
	return a;
}

static void test_named_events(void **state)
{
	static const struct {
		const char *name;
		__u32 event;
	} names[] = {
		{ "cpu-clock", PMCLOG_EV_CPU_CLOCK },
		{ "cycles", PMCLOG_EV_CYCLES },
		{ "instructions", PMCLOG_EV_INSTRUCTIONS },
		{ "ref-cycles", PMCLOG_EV_REF_CYCLES },
		{ "branches", PMCLOG_EV_BRANCHES },
		{ "branch-misses", PMCLOG_EV_BRANCH_MISSES },
		{ "cache-references", PMCLOG_EV_CACHE_REFERENCES },
		{ "cache-misses", PMCLOG_EV_CACHE_MISSES },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct pmclog_alloc a = parse_ok(names[i].name);

		assert_int_equal(a.event, names[i].event);
		assert_int_equal(a.config, 0);
		assert_int_equal(a.flags, PMCLOG_PMC_F_FREQ);
		assert_string_equal(pmclog_event_name(a.event), names[i].name);
	}
	assert_false(pmclog_event_needs_pmu(PMCLOG_EV_CPU_CLOCK));
	assert_true(pmclog_event_needs_pmu(PMCLOG_EV_CYCLES));
	assert_null(pmclog_event_name(0));
	assert_null(pmclog_event_name(PMCLOG_EV_MAX_KNOWN + 1));
}

static void test_modifiers(void **state)
{
	struct pmclog_alloc a;
	(void)state;

	a = parse_ok("cycles:u");
	assert_int_equal(a.event, PMCLOG_EV_CYCLES);
	assert_int_equal(a.flags, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_USER);
	a = parse_ok("instructions:k");
	assert_int_equal(a.flags, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_KERNEL);
	a = parse_ok("cpu-clock:uk");
	assert_int_equal(a.flags, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_USER |
				  PMCLOG_PMC_F_KERNEL);
}

static void test_raw_events(void **state)
{
	struct pmclog_alloc a;
	(void)state;

	a = parse_ok("r1c2");
	assert_int_equal(a.event, PMCLOG_EV_RAW);
	assert_int_equal(a.config, 0x1c2);
	a = parse_ok("r01C2:u");
	assert_int_equal(a.config, 0x1c2);
	assert_int_equal(a.flags, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_USER);
	a = parse_ok("rffffffffffffffff");
	assert_int_equal(a.config, ~0ULL);
}

static void test_bad_events(void **state)
{
	static const char *const bad[] = {
		"", "cycle", "cyclesx", "Cycles", "r", "rxyz", "r12g",
		"r0x12", "r11111111111111111", "cycles:", "cycles:x",
		"cycles:uu", "cycles:u:k", "r12:", ":u", "-1",
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pmclog_alloc a = { .event = 77 };

		assert_int_equal(pmclog_event_parse(bad[i], &a), -EINVAL);
		assert_int_equal(a.event, 77);
	}
}

static void count_name(const char *name, void *ctx)
{
	(void)name;
	(*(int *)ctx)++;
}

static void test_foreach(void **state)
{
	int n = 0;
	(void)state;

	pmclog_event_foreach(count_name, &n);
	assert_int_equal(n, PMCLOG_EV_MAX_KNOWN - 1);
}

static void test_stats_full_log(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_stats st;
	(void)state;

	lb_full_log(&b);
	assert_int_equal(count_log(&b, &st), 0);
	assert_int_equal(st.records, LB_FULL_LOG_RECORDS);
	assert_int_equal(st.bytes, b.len);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.samples_dropped, 5);
	assert_int_equal(st.records_dropped, 1);
	assert_true(st.closelog);
	assert_int_equal(st.close.samples, 7);
	assert_int_equal(st.close.samples_dropped, 5);
	assert_int_equal(st.close.records_dropped, 1);
	assert_int_equal(st.throttles, 1);
	assert_int_equal(st.cpus_skipped, 0);
}

/*
 * The drops said: CLOSELOG's totals once it came (they include what no
 * DROPNOTIFY could tell), the DROPNOTIFY sums before.
 */
static void test_stats_drops(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_stats st;
	(void)state;

	lb_initialize(&b);
	lb_dropnotify(&b, 0, 2, 3);
	lb_dropnotify(&b, 1, 4, 0);
	assert_int_equal(count_log(&b, &st), 0);
	assert_false(st.closelog);
	assert_int_equal(pmclog_stats__samples_dropped(&st), 6);
	assert_int_equal(pmclog_stats__records_dropped(&st), 3);
	lb_closelog(&b, 20, 7, 9);
	assert_int_equal(count_log(&b, &st), 0);
	assert_int_equal(pmclog_stats__samples_dropped(&st), 7);
	assert_int_equal(pmclog_stats__records_dropped(&st), 9);
}

/* The recorder's totals: throttles apart from CPUs a PMC did not start on. */
static void test_stats_throttles(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_stats st;
	(void)state;

	lb_initialize(&b);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 1, 1, PMCLOG_THROTTLE_RATE, 3, 0);
	lb_throttle(&b, PMCLOG_TYPE_UNTHROTTLE, 1, 1, PMCLOG_THROTTLE_RATE, 3, 12000000);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 0, 1, PMCLOG_THROTTLE_CPU_TIME, 1, 0);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 3, 2, PMCLOG_THROTTLE_BUSY, 1, 0);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 2, 2, PMCLOG_THROTTLE_ABSENT, 1, 0);
	assert_int_equal(count_log(&b, &st), 0);
	assert_int_equal(st.throttles, 4);
	assert_int_equal(st.cpus_skipped, 2);
}

/* Descendants that a -d log could not follow are counted apart. */
static void test_stats_unfollowed(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_stats st;
	size_t off;
	(void)state;

	lb_initialize(&b);
	lb_procfork(&b, 42, 43);
	off = lb_procfork(&b, 42, 44);
	lb_header(&b, off)->flags |= PMCLOG_HF_UNFOLLOWED;
	assert_int_equal(count_log(&b, &st), 0);
	assert_int_equal(st.procs_unfollowed, 1);
}

/*
 * Counting stops at what is not a record: the walk returns the reader's
 * error, and what came before is counted.  Types newer than the library
 * are counted as records.
 */
static void test_stats_stops_at_garbage(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_stats st;
	size_t bad;
	(void)state;

	lb_initialize(&b);
	lb_pcsample(&b, 0, 1, 1, 0x10, 1);
	lb_future(&b, PMCLOG_TYPE_MAX_KNOWN + 1);
	bad = lb_pcsample(&b, 0, 1, 1, 0x10, 1);
	lb_pcsample(&b, 0, 1, 1, 0x10, 1);
	lb_header(&b, bad)->length = 0;
	assert_int_equal(count_log(&b, &st), -EBADMSG);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.bytes, bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_events),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_raw_events),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_stats_full_log),
		cmocka_unit_test(test_stats_drops),
		cmocka_unit_test(test_stats_throttles),
		cmocka_unit_test(test_stats_unfollowed),
		cmocka_unit_test(test_stats_stops_at_garbage),
	};

	return cmocka_run_group_tests_name("events", tests, NULL, NULL);
}
