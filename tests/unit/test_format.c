// SPDX-License-Identifier: GPL-2.0
/*
 * The `pmclog dump` line of every record type, exactly: the VM tests and
 * users' scripts parse these lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "log_builder.h"
#include "pmclog_format.h"
#include "pmclog_reader.h"

static struct pmclog_reader *reader_with_log(const struct logbuf *b)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);

	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b->data, b->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	return r;
}

/* Read b and return the dump of every record, one line each. */
static char *dump(const struct logbuf *b)
{
	struct pmclog_reader *r = reader_with_log(b);
	struct pmclog_record rec;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int ret;

	assert_non_null(f);
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		assert_int_equal(pmclog_format_record(f, &rec), 0);
	assert_int_equal(ret, 0);
	fclose(f);
	pmclog_reader__free(r);
	return text;
}

/* The dump of b without its INITIALIZE line. */
static void assert_dump_after_init(const struct logbuf *b, const char *want)
{
	char *text = dump(b);
	char *rest = strchr(text, '\n');

	assert_non_null(rest);
	assert_string_equal(rest + 1, want);
	free(text);
}

static void test_full_log(void **state)
{
	struct logbuf b = { 0 };
	char *text;
	(void)state;

	lb_full_log(&b);
	text = dump(&b);
	assert_string_equal(text,
		"INITIALIZE cpu=0 ts=1000000000 abi=1.7.0 ncpus=4 clock=monotonic vendor=intel family=6 model=85 stepping=4 pmu=none cpuid=GenuineIntel\n"
		"PMCALLOCATE cpu=0 ts=1000000056 pmc=1 event=cpu-clock flags=0x1 config=0x0 period=1000 freq=1 name=cpu-clock\n"
		"MAP_IN cpu=0 ts=1000000128 pid=-1 start=0xffffffff81000000 end=0xffffffff82000000 offset=0x0 flags=0x0 path=[kernel]\n"
		"PROCEXEC cpu=0 ts=1000000192 pid=42 path=/usr/bin/true\n"
		"MAP_IN cpu=0 ts=1000000232 pid=42 start=0x400000 end=0x401000 offset=0x1000 flags=0x4 path=/usr/bin/true\n"
		"BUILDID cpu=0 ts=1000000296 pid=42 start=0x400000 synth=0 build_id=11223344\n"
		"PCSAMPLE cpu=1 ts=1000000352 pmc=1 pid=42 tid=43 pc=0x400123 mode=user\n"
		"PCSAMPLE cpu=2 ts=1000000384 pmc=1 pid=42 tid=43 pc=0xffffffff81000010 mode=kernel\n"
		"PROCFORK cpu=0 ts=1000000416 ppid=42 pid=44\n"
		"DROPNOTIFY cpu=3 ts=1000000440 samples=5 records=1\n"
		"MAP_OUT cpu=0 ts=1000000472 pid=42 start=0x400000 end=0x401000\n"
		"PROCEXIT cpu=0 ts=1000000512 pid=42 status=0\n"
		"KSYMBOL cpu=0 ts=1000000536 pid=-1 start=0xffffffffc0001000 size=288 synth=0 name=ext4_readdir\n"
		"THROTTLE cpu=2 ts=1000000592 pmc=1 reason=rate count=1\n"
		"UNTHROTTLE cpu=2 ts=1000000624 pmc=1 reason=rate count=1 stopped_ns=3999000\n"
		"CLOSELOG cpu=0 ts=1000000656 samples=7 samples_dropped=5 records_dropped=1\n");
	free(text);
}

static void test_raw_event_and_kernel_map_out(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_pmcallocate *pa;
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_pmcallocate(&b, 2, PMCLOG_EV_RAW, PMCLOG_PMC_F_USER, 100003,
			     "r01c2:u");
	pa = (struct pmclog_pmcallocate *)(b.data + off);
	pa->config = 0x1c2;
	lb_map_out(&b, PMCLOG_PID_KERNEL, 0xffffffffc0000000ULL,
		   0xffffffffc0010000ULL);
	lb_procexit(&b, 9, 0x8b00);
	lb_ksymbol(&b, 0xffffffff81234560ULL, 0, 1, "do_sys_open");
	assert_dump_after_init(&b,
		"PMCALLOCATE cpu=0 ts=1000000056 pmc=2 event=raw flags=0x2 config=0x1c2 period=100003 freq=0 name=r01c2:u\n"
		"MAP_OUT cpu=0 ts=1000000128 pid=-1 start=0xffffffffc0000000 end=0xffffffffc0010000\n"
		"PROCEXIT cpu=0 ts=1000000168 pid=9 status=35584\n"
		"KSYMBOL cpu=0 ts=1000000192 pid=-1 start=0xffffffff81234560 size=0 synth=1 name=do_sys_open\n");
}

/* Every throttle reason by name, and a newer one by number. */
static void test_throttle_reasons(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	lb_initialize(&b);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 3, 2, PMCLOG_THROTTLE_CPU_TIME, 2, 0);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 1, 1, PMCLOG_THROTTLE_BUSY, 1, 0);
	lb_throttle(&b, PMCLOG_TYPE_UNTHROTTLE, 1, 1, PMCLOG_THROTTLE_ABSENT, 1, 7);
	lb_throttle(&b, PMCLOG_TYPE_THROTTLE, 0, 1, 99, 1, 0);
	assert_dump_after_init(&b,
		"THROTTLE cpu=3 ts=1000000056 pmc=2 reason=cpu-time count=2\n"
		"THROTTLE cpu=1 ts=1000000088 pmc=1 reason=busy count=1\n"
		"UNTHROTTLE cpu=1 ts=1000000120 pmc=1 reason=absent count=1 stopped_ns=7\n"
		"THROTTLE cpu=0 ts=1000000152 pmc=1 reason=99 count=1\n");
}

/* Control bytes and backslashes are escaped: one record, one line. */
static void test_path_escaping(void **state)
{
	struct logbuf b = { 0 };
	(void)state;

	lb_initialize(&b);
	lb_procexec(&b, 5, "/tmp/a b\\c\nd\x7f");
	assert_dump_after_init(&b,
		"PROCEXEC cpu=0 ts=1000000056 pid=5 path=/tmp/a b\\x5cc\\x0ad\\x7f\n");
}

/* CALLCHAIN (ABI 1.5): its flags by name, each part's frames innermost first. */
static void test_callchain(void **state)
{
	static const __u64 k[] = { 0xffffffff81000010ULL, 0xffffffff81000200ULL };
	static const __u64 u[] = { 0x401136, 0x401180 };
	struct logbuf b = { 0 };
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_pcsample(&b, 1, 42, 43, k[0], 0);
	lb_callchain(&b, lb_header(&b, off)->tstamp, 1, 42, 43, 0,
		     PMCLOG_CC_F_KERNEL_TRUNC | PMCLOG_CC_F_USER_BADFRAME, k, 2, u, 2);
	off = lb_pcsample(&b, 0, 42, 42, u[0], 1);
	lb_callchain(&b, lb_header(&b, off)->tstamp, 0, 42, 42, 1, 0, NULL, 0, u, 1);
	assert_dump_after_init(&b,
		"PCSAMPLE cpu=1 ts=1000000056 pmc=1 pid=42 tid=43 pc=0xffffffff81000010 mode=kernel\n"
		"CALLCHAIN cpu=1 ts=1000000056 pmc=1 pid=42 tid=43 mode=kernel flags=0x9(kernel-truncated,user-badframe) kernel=0xffffffff81000010,0xffffffff81000200 user=0x401136,0x401180\n"
		"PCSAMPLE cpu=0 ts=1000000152 pmc=1 pid=42 tid=42 pc=0x401136 mode=user\n"
		"CALLCHAIN cpu=0 ts=1000000152 pmc=1 pid=42 tid=42 mode=user flags=0x0 kernel=- user=0x401136\n");
}

static void test_unknown_type_and_values(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_initialize *in;
	char *text;
	(void)state;

	lb_initialize(&b);
	in = (struct pmclog_initialize *)b.data;
	in->clock = 7;
	in->cpu_vendor = 9;
	in->pmu = PMCLOG_PMU_AMD_CORE;
	memcpy(in->cpu_id, "0123456789abcdef", 16);	/* no NUL */
	lb_future(&b, 200);
	lb_pmcallocate(&b, 1, 77, 0, 10, "future-event");
	text = dump(&b);
	assert_string_equal(text,
		"INITIALIZE cpu=0 ts=1000000000 abi=1.7.0 ncpus=4 clock=7 vendor=9 family=6 model=85 stepping=4 pmu=amd-core cpuid=0123456789abcdef\n"
		"UNKNOWN cpu=0 ts=1000000056 type=200 length=32\n"
		"PMCALLOCATE cpu=0 ts=1000000088 pmc=1 event=77 flags=0x0 config=0x0 period=10 freq=0 name=future-event\n");
	free(text);
}

static void test_output_error(void **state)
{
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	FILE *f = fopen("/dev/full", "w");
	(void)state;

	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	lb_initialize(&b);
	r = reader_with_log(&b);
	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(pmclog_format_record(f, &rec), -1);
	pmclog_reader__free(r);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_log),
		cmocka_unit_test(test_raw_event_and_kernel_map_out),
		cmocka_unit_test(test_path_escaping),
		cmocka_unit_test(test_throttle_reasons),
		cmocka_unit_test(test_callchain),
		cmocka_unit_test(test_unknown_type_and_values),
		cmocka_unit_test(test_output_error),
	};

	return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
