// SPDX-License-Identifier: GPL-2.0
/*
 * The module's log (kmod/pmclog_log.c, with pmclog_record.c), compiled
 * as is for userland against tests/kshim (one CPU, no interrupts, locks
 * that never wait), driven as STOP and read(2) drive it: how a log ends.
 *
 * A log ends with the pending DROPNOTIFYs and CLOSELOG.  When STOP finds
 * the log too full for them (a reader asleep or slow behind a storm of
 * records), they go in as read(2) makes room, so that a log read to its
 * end always ends with CLOSELOG's totals and the DROPNOTIFYs add up to
 * them; writers are refused from STOP on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pmclog_kern.h"

#define LOG_SIZE	4096U

/* A PROCFORK (24 bytes): the smallest record a hook writes. */
static int write_fork(struct pmclog_log *log, u32 pid)
{
	struct pmclog_procfork r;

	pmclog_rec_procfork(&r, 1, pid, 0, pmclog_clock());
	return pmclog_log_write(log, &r);
}

static int setup(void **state)
{
	struct pmclog_log *log = calloc(1, sizeof(*log));

	if (!log || pmclog_log_init(log, LOG_SIZE)) {
		free(log);
		return -1;
	}
	*state = log;
	return 0;
}

static int teardown(void **state)
{
	struct pmclog_log *log = *state;

	pmclog_log_destroy(log);
	free(log);
	return 0;
}

/* What a reader saw, record by record. */
struct seen {
	unsigned int	forks;
	unsigned int	dropnotifies;
	u64		drop_samples;
	u64		drop_records;
	unsigned int	closelogs;
	struct pmclog_closelog	closelog;
	bool		after_closelog;	/* a record after CLOSELOG */
};

/*
 * One read(2) of @count bytes, its records walked into @seen.  Returns
 * what read returned.
 */
static ssize_t read_some(struct pmclog_log *log, size_t count,
			 struct seen *seen)
{
	static char buf[LOG_SIZE];
	ssize_t n = pmclog_log_read(log, buf, count, true);

	for (ssize_t off = 0; off < n;) {
		const struct pmclog_header *h = (const void *)(buf + off);

		assert_int_equal(h->magic, PMCLOG_HEADER_MAGIC);
		assert_true(h->length >= sizeof(*h) && off + h->length <= n);
		if (seen->closelogs)
			seen->after_closelog = true;
		switch (h->type) {
		case PMCLOG_TYPE_PROCFORK:
			seen->forks++;
			break;
		case PMCLOG_TYPE_DROPNOTIFY: {
			const struct pmclog_dropnotify *d = (const void *)h;

			seen->dropnotifies++;
			seen->drop_samples += d->samples;
			seen->drop_records += d->records;
			break;
		}
		case PMCLOG_TYPE_CLOSELOG:
			seen->closelogs++;
			memcpy(&seen->closelog, h, sizeof(seen->closelog));
			break;
		default:
			fail_msg("record of type %u", h->type);
		}
		off += h->length;
	}
	return n;
}

/* Read to the end in reads of @count bytes: read(2) returns 0 at last. */
static void read_to_end(struct pmclog_log *log, size_t count,
			struct seen *seen)
{
	unsigned int reads = 0;
	ssize_t n;

	while ((n = read_some(log, count, seen)) > 0)
		assert_true(++reads < 10 * LOG_SIZE);	/* no endless log */
	assert_int_equal(n, 0);
	/* And again: an ended log stays ended. */
	assert_int_equal(read_some(log, count, seen), 0);
}

/*
 * What every log read to its end has: the @forks written, then its end,
 * CLOSELOG last, once, whose records_dropped the DROPNOTIFYs add up to.
 */
static void assert_ended(const struct seen *seen, unsigned int forks,
			 u64 records_dropped)
{
	assert_int_equal(seen->forks, forks);
	assert_int_equal(seen->drop_records, records_dropped);
	assert_int_equal(seen->closelogs, 1);
	assert_false(seen->after_closelog);
	assert_int_equal(seen->closelog.records_dropped, records_dropped);
}

/* Fill the log with PROCFORKs until @drops of them found no room. */
static unsigned int fill(struct pmclog_log *log, unsigned int drops)
{
	unsigned int written = 0, dropped = 0;

	while (dropped < drops) {
		int ret = write_fork(log, 1000 + written + dropped);

		if (ret == -ENOSPC)
			dropped++;
		else if (ret == 0)
			written++;
		else
			fail_msg("write: %d", ret);
	}
	return written;
}

/* Room at STOP: DROPNOTIFYs, CLOSELOG, then the end; nothing after. */
static void test_close_with_room(void **state)
{
	struct pmclog_log *log = *state;
	struct seen seen = { 0 };

	assert_int_equal(write_fork(log, 2), 0);
	assert_int_equal(write_fork(log, 3), 0);
	pmclog_log_add_record_drops(log, 0, 2);
	pmclog_log_close(log, 100, 7);
	assert_int_equal(write_fork(log, 4), -EPIPE);
	/* Not counted: CLOSELOG's totals are those at STOP. */
	pmclog_log_add_record_drops(log, 0, 5);
	read_to_end(log, LOG_SIZE, &seen);
	assert_ended(&seen, 2, 2);
	assert_int_equal(seen.dropnotifies, 1);
	assert_int_equal(seen.closelog.samples, 100);
	assert_int_equal(seen.closelog.samples_dropped, 7);
}

/*
 * No room at STOP, not even for the DROPNOTIFY: the first read makes
 * room for it, the next one for CLOSELOG.  Each read returns what was
 * there when it looked; what it made room for comes at the next.
 */
static void test_close_full(void **state)
{
	struct pmclog_log *log = *state;
	struct seen seen = { 0 };
	unsigned int written = fill(log, 3);

	/* Less room left than a record: nothing of the end fits. */
	assert_true(LOG_SIZE - written * sizeof(struct pmclog_procfork) <
		    sizeof(struct pmclog_procfork));
	pmclog_log_close(log, 50, 0);
	assert_int_equal(write_fork(log, 9), -EPIPE);

	/* One record out: room for the DROPNOTIFY (32), not for both. */
	assert_int_equal(read_some(log, 2 * sizeof(struct pmclog_procfork), &seen),
			 2 * sizeof(struct pmclog_procfork));
	assert_int_equal(seen.closelogs, 0);

	read_to_end(log, LOG_SIZE, &seen);
	assert_ended(&seen, written, 3);
	assert_int_equal(seen.dropnotifies, 1);
	assert_int_equal(seen.closelog.samples, 50);
}

/* A full log read one record at a time, as a reader with a small buffer. */
static void test_close_full_small_reads(void **state)
{
	struct pmclog_log *log = *state;
	struct seen seen = { 0 };
	unsigned int written = fill(log, 5);

	pmclog_log_add_record_drops(log, 0, 4);	/* the deferred hooks' */
	pmclog_log_close(log, 0, 0);
	read_to_end(log, sizeof(struct pmclog_closelog), &seen);
	assert_ended(&seen, written, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_close_with_room, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_full_small_reads, setup, teardown),
	};

	return cmocka_run_group_tests_name("kmod_log", tests, NULL, NULL);
}
