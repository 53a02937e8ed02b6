// SPDX-License-Identifier: GPL-2.0
/*
 * The module's drain (kmod/pmclog_sample.c, with pmclog_log.c and
 * pmclog_record.c), compiled as is for userland against tests/kshim (one
 * CPU, no interrupts, locks that never wait): what a CPU's samples become
 * in the log.
 *
 * A drain builds its PCSAMPLEs in a run on its stack and writes each run
 * with one copy (pmclog_log_write_run_locked()) when the log takes it
 * whole; else one by one, as every drain did before.  Either way the log
 * gets the same records: every sample in order, each CALLCHAIN just after
 * its sample, and, when the log fills, the first samples that fit and a
 * count of the others.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pmclog_kern.h"

/*
 * The stacks (pmclog_callchain.c needs the kernel's unwinder): with
 * pc->cc set, every slot that is 3 modulo 7 has one, of one frame, the
 * sample's PC.  The parameters at their defaults, every task a target:
 * tests/kshim/kshim_sample.c.
 */

void pmclog_callchain_take(struct pmclog_cpu *pc, unsigned long slot,
			   const struct pmclog_pmc *pmc, struct pt_regs *regs)
{
	fail_msg("a stack taken for a PMC without -g");
}

const struct pmclog_callchain *
pmclog_callchain_record(struct pmclog_cpu *pc, unsigned long slot,
			const struct pmclog_sample *s)
{
	static union {
		struct pmclog_callchain c;
		unsigned char b[sizeof(struct pmclog_callchain) + sizeof(__u64)];
	} r;

	assert_non_null(pc->cc);
	if (slot % 7 != 3)
		return NULL;
	memset(&r, 0, sizeof(r));
	r.c.nuser = 1;
	r.c.pc[0] = s->pc;
	pmclog_rec_callchain(&r.c, s, pc->cpu);
	return &r.c;
}

struct drain {
	struct pmclog_owner *o;
	struct pmclog_pmc pmc;
	struct pmclog_cpu *pc;
};

static int setup_log(void **state, size_t log_size)
{
	struct drain *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->o = kzalloc(sizeof(*d->o), GFP_KERNEL);
	assert_non_null(d->o);
	assert_int_equal(pmclog_log_init(&d->o->log, log_size), 0);
	assert_int_equal(pmclog_owner_alloc_cpus(d->o), 0);
	d->o->npmcs = 1;
	d->pmc = (struct pmclog_pmc){ .owner = d->o, .id = 1 };
	d->pc = d->o->cpus[0];
	*state = d;
	return 0;
}

static int setup(void **state)
{
	return setup_log(state, 64 * 1024);
}

/* 4 KiB: 128 PCSAMPLEs. */
static int setup_small(void **state)
{
	return setup_log(state, 4096);
}

static int teardown(void **state)
{
	struct drain *d = *state;

	pmclog_owner_free_cpus(d->o);
	pmclog_log_destroy(&d->o->log);
	kfree(d->o);
	free(d);
	return 0;
}

/* @n samples, the i-th of PC 0x401000 + 16 * (first + i), not drained. */
static void take(struct drain *d, unsigned int first, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct pt_regs regs = { .ip = 0x401000 + 16 * (first + i), .user = 1 };

		pmclog_sample_take(&d->pmc, &regs);
	}
}

static void drain(struct drain *d)
{
	struct irq_work *works[] = { &d->pc->drain_now, &d->pc->drain_work };

	for (unsigned int i = 0; i < ARRAY_SIZE(works); i++) {
		if (works[i]->pending) {
			works[i]->pending = 0;
			works[i]->func(works[i]);
		}
	}
}

/* What a reader gets, record by record, checked as it goes. */
struct seen {
	unsigned int samples;	/* the next PC is 0x401000 + 16 * samples */
	unsigned int callchains;
	unsigned int dropnotifies;
	u64 drop_records;
	u64 last_tstamp;
	int last_type;
};

static void read_all(struct drain *d, struct seen *seen)
{
	static char buf[64 * 1024];
	ssize_t n = pmclog_log_read(&d->o->log, buf, sizeof(buf), true);

	assert_true(n >= 0);
	for (ssize_t off = 0; off < n;) {
		const struct pmclog_header *h = (const void *)(buf + off);

		assert_int_equal(h->magic, PMCLOG_HEADER_MAGIC);
		assert_true(h->length >= sizeof(*h) && off + h->length <= n);
		switch (h->type) {
		case PMCLOG_TYPE_PCSAMPLE: {
			const struct pmclog_pcsample *s = (const void *)h;

			assert_int_equal(h->length, sizeof(*s));
			assert_int_equal(s->pc, 0x401000 + 16 * seen->samples);
			assert_true(h->tstamp >= seen->last_tstamp);
			seen->last_tstamp = h->tstamp;
			seen->samples++;
			break;
		}
		case PMCLOG_TYPE_CALLCHAIN: {
			const struct pmclog_callchain *c = (const void *)h;

			/* Just after its sample, whose PC it starts with. */
			assert_int_equal(seen->last_type, PMCLOG_TYPE_PCSAMPLE);
			assert_int_equal(h->tstamp, seen->last_tstamp);
			assert_int_equal(c->pc[0], 0x401000 + 16 * (seen->samples - 1));
			seen->callchains++;
			break;
		}
		case PMCLOG_TYPE_DROPNOTIFY:
			seen->dropnotifies++;
			seen->drop_records += ((const struct pmclog_dropnotify *)h)->records;
			break;
		default:
			fail_msg("record of type %u", h->type);
		}
		seen->last_type = h->type;
		off += h->length;
	}
}

/* 500 samples, drained at the watermark and at the tick: all, in order. */
static void test_drain_in_order(void **state)
{
	struct drain *d = *state;
	struct seen seen = { 0 };

	for (unsigned int i = 0; i < 500; i += 50) {
		take(d, i, 50);
		drain(d);
	}
	read_all(d, &seen);
	assert_int_equal(seen.samples, 500);
	assert_int_equal(seen.callchains, 0);
	assert_int_equal(seen.dropnotifies, 0);
	assert_int_equal(d->o->log.records_dropped, 0);
}

/* Stacks in the middle of runs: each just after its sample. */
static void test_drain_callchains(void **state)
{
	struct drain *d = *state;
	struct seen seen = { 0 };

	d->pc->cc = kvzalloc_node(1, GFP_KERNEL, 0);
	assert_non_null(d->pc->cc);
	take(d, 0, 100);
	drain(d);
	take(d, 100, 100);
	drain(d);
	read_all(d, &seen);
	assert_int_equal(seen.samples, 200);
	/* Slots 3, 10, ... 199 */
	assert_int_equal(seen.callchains, 29);
	assert_int_equal(d->o->log.records_dropped, 0);
}

/*
 * A log with room for 127 of 200 samples (a PROCFORK before them): the
 * first 127 in it, the 73 others counted and told in the DROPNOTIFY that
 * comes before the next samples.
 */
static void test_drain_log_full(void **state)
{
	struct drain *d = *state;
	struct pmclog_procfork f;
	struct seen seen = { 0 };
	static char buf[64];

	pmclog_rec_procfork(&f, 1, 2, 0, pmclog_clock());
	assert_int_equal(pmclog_log_write(&d->o->log, &f), 0);
	assert_int_equal(pmclog_log_read(&d->o->log, buf, sizeof(buf), true), sizeof(f));
	assert_int_equal(pmclog_log_write(&d->o->log, &f), 0);
	take(d, 0, 200);
	drain(d);
	assert_int_equal(d->o->log.records_dropped, 73);
	assert_int_equal(pmclog_log_read(&d->o->log, buf, sizeof(f), true), sizeof(f));
	read_all(d, &seen);
	assert_int_equal(seen.samples, 127);
	assert_int_equal(seen.dropnotifies, 0);
	/* Samples 200 on would follow 126: read with the loss told. */
	seen.samples = 200;
	seen.last_type = 0;
	take(d, 200, 10);
	drain(d);
	read_all(d, &seen);
	assert_int_equal(seen.dropnotifies, 1);
	assert_int_equal(seen.drop_records, 73);
	assert_int_equal(seen.samples, 210);
}

/*
 * pmclog_log_write_run_locked() writes nothing, and counts nothing, when
 * the records must go one by one: losses to tell first, or no room for
 * them all.
 */
static void test_run_refused(void **state)
{
	struct drain *d = *state;
	struct pmclog_log *log = &d->o->log;
	struct pmclog_procfork f[2];
	u64 head = log->head;

	pmclog_rec_procfork(&f[0], 1, 2, 0, pmclog_clock());
	f[1] = f[0];
	raw_spin_lock(&log->lock);
	/* More than the log holds (f is not read then). */
	assert_int_equal(pmclog_log_write_run_locked(log, f, log->size + 8), -ENOSPC);
	assert_int_equal(log->head, head);
	assert_int_equal(log->records_dropped, 0);
	raw_spin_unlock(&log->lock);
	pmclog_log_add_record_drops(log, 0, 1);
	raw_spin_lock(&log->lock);
	assert_int_equal(pmclog_log_write_run_locked(log, f, sizeof(f)), -ENOSPC);
	assert_int_equal(log->head, head);
	assert_int_equal(log->records_dropped, 1);
	/* Told first by the one-by-one write, which then writes the record. */
	assert_int_equal(pmclog_log_write_locked(log, &f[0]), 0);
	assert_int_equal(pmclog_log_write_run_locked(log, f, sizeof(f)), 0);
	raw_spin_unlock(&log->lock);
	assert_int_equal(log->head,
			 head + sizeof(struct pmclog_dropnotify) + 3 * sizeof(f[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_drain_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_callchains, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_log_full, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_run_refused, setup_small, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
