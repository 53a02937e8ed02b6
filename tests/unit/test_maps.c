// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the map replay: interval maps (insert over, remove,
 * split), per-pid maps (fork copies, exec resets, exit keeps), and the
 * replay of logs built with log_builder.h: samples attributed with the
 * maps in force at their time, also when the stream is out of order,
 * an address reused by a second object, KSYMBOLs before their MAP_IN;
 * the sort window, streaming, records later than the window.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "log_builder.h"
#include "pmclog_kallsyms.h"
#include "pmclog_internal.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"

static int A, B, C;	/* objects: only their addresses matter */

static void test_insert_find(void **state)
{
	struct pmclog_addrmap m;
	const struct pmclog_map *e;

	(void)state;
	pmclog_addrmap__init(&m);
	assert_int_equal(pmclog_addrmap__insert(&m, 0x2000, 0x3000, 0x1000, &A), 0);
	assert_int_equal(pmclog_addrmap__insert(&m, 0x1000, 0x2000, 0, &B), 0);
	assert_int_equal(m.count, 2);
	e = pmclog_addrmap__find(&m, 0x2fff);
	assert_non_null(e);
	assert_ptr_equal(e->obj, &A);
	assert_ptr_equal(pmclog_addrmap__find(&m, 0x1000)->obj, &B);
	assert_null(pmclog_addrmap__find(&m, 0x3000));
	assert_null(pmclog_addrmap__find(&m, 0xfff));
	assert_int_equal(pmclog_addrmap__insert(&m, 0x3000, 0x3000, 0, &A), -EINVAL);
	pmclog_addrmap__clear(&m);
}

static void test_remove_split(void **state)
{
	struct pmclog_addrmap m;
	const struct pmclog_map *e;

	(void)state;
	pmclog_addrmap__init(&m);
	/* Nothing there yet (no array either): nothing to do. */
	assert_int_equal(pmclog_addrmap__remove(&m, 0x10000, 0x20000), 0);
	assert_int_equal(m.count, 0);
	pmclog_addrmap__insert(&m, 0x10000, 0x20000, 0x5000, &A);
	/* A hole in the middle: two pieces, the right one's base moved. */
	assert_int_equal(pmclog_addrmap__remove(&m, 0x14000, 0x15000), 0);
	assert_int_equal(m.count, 2);
	assert_null(pmclog_addrmap__find(&m, 0x14800));
	e = pmclog_addrmap__find(&m, 0x15000);
	assert_non_null(e);
	assert_int_equal(e->start, 0x15000);
	assert_int_equal(e->base, 0x5000 + 0x5000);
	assert_int_equal(pmclog_addrmap__find(&m, 0x13fff)->end, 0x14000);
	/* Across both pieces' edges: trims the left, cuts the right's head. */
	pmclog_addrmap__remove(&m, 0x12000, 0x16000);
	assert_int_equal(pmclog_addrmap__find(&m, 0x11000)->end, 0x12000);
	e = pmclog_addrmap__find(&m, 0x16000);
	assert_int_equal(e->start, 0x16000);
	assert_int_equal(e->base, 0x5000 + 0x6000);
	/* All of it. */
	pmclog_addrmap__remove(&m, 0, 0x100000);
	assert_int_equal(m.count, 0);
	pmclog_addrmap__clear(&m);
}

static void test_insert_replaces(void **state)
{
	struct pmclog_addrmap m;

	(void)state;
	pmclog_addrmap__init(&m);
	pmclog_addrmap__insert(&m, 0x1000, 0x5000, 0, &A);
	pmclog_addrmap__insert(&m, 0x2000, 0x3000, 0, &B);
	assert_int_equal(m.count, 3);
	assert_ptr_equal(pmclog_addrmap__find(&m, 0x1fff)->obj, &A);
	assert_ptr_equal(pmclog_addrmap__find(&m, 0x2000)->obj, &B);
	assert_ptr_equal(pmclog_addrmap__find(&m, 0x3000)->obj, &A);
	assert_int_equal(pmclog_addrmap__find(&m, 0x3000)->base, 0x2000);
	pmclog_addrmap__insert(&m, 0, 0x10000, 0, &C);
	assert_int_equal(m.count, 1);
	pmclog_addrmap__clear(&m);
}

static void test_procmaps(void **state)
{
	struct pmclog_procmaps *pm = pmclog_procmaps__new();
	struct pmclog_addrmap *m;

	(void)state;
	assert_non_null(pm);
	m = pmclog_procmaps__get(pm, 10, true);
	pmclog_addrmap__insert(m, 0x1000, 0x2000, 0, &A);
	assert_int_equal(pmclog_procmaps__fork(pm, 10, 11), 0);
	m = pmclog_procmaps__get(pm, 11, false);
	assert_ptr_equal(pmclog_addrmap__find(m, 0x1800)->obj, &A);
	/* The child's exec forgets, the parent keeps. */
	pmclog_procmaps__exec(pm, 11);
	assert_null(pmclog_addrmap__find(pmclog_procmaps__get(pm, 11, false), 0x1800));
	assert_non_null(pmclog_addrmap__find(pmclog_procmaps__get(pm, 10, false), 0x1800));
	/*
	 * A fork of itself (corrupt: found by fuzz_replay) keeps them; it
	 * copied the maps onto themselves, emptied first.
	 */
	assert_int_equal(pmclog_procmaps__fork(pm, 10, 10), 0);
	assert_non_null(pmclog_addrmap__find(pmclog_procmaps__get(pm, 10, false), 0x1800));
	/* Exit keeps the maps. */
	assert_true(pmclog_procmaps__exit(pm, 10));
	assert_true(pmclog_procmaps__exited(pm, 10));
	assert_non_null(pmclog_addrmap__find(pmclog_procmaps__get(pm, 10, false), 0x1800));
	/* Many pids: the table grows and keeps them all. */
	for (__u32 pid = 100; pid < 1100; pid++)
		assert_int_equal(pmclog_procmaps__fork(pm, 10, pid), 0);
	assert_ptr_equal(pmclog_addrmap__find(pmclog_procmaps__get(pm, 777, false), 0x1000)->obj, &A);
	pmclog_procmaps__free(pm);
}

/* ------------------------------------------------------------------ */
/* Replay of whole logs                                               */

#define MAX_SEEN 64

struct seen {
	size_t n;
	struct pmclog_sample_loc s[MAX_SEEN];
};

static int collect(void *ctx, const struct pmclog_sample_loc *s)
{
	struct seen *seen = ctx;

	assert_true(seen->n < MAX_SEEN);
	seen->s[seen->n++] = *s;
	return 0;
}

static struct pmclog_replay *replay_log(struct logbuf *b,
					struct pmclog_strings *strings,
					struct seen *seen)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_replay *rp = pmclog_replay__new(strings);
	struct pmclog_record rec;
	int ret;

	assert_non_null(r);
	assert_non_null(rp);
	pmclog_reader__feed(r, b->data, b->len);
	pmclog_reader__feed_eof(r);
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	assert_int_equal(ret, 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(rp, collect, seen), 0);
	return rp;
}

/* Set the tstamp of the record at off (the builder numbers by offset). */
/* A pmclog_kallsyms_record_fn: the record appended to the logbuf ctx. */
static int append_record(void *ctx, const struct pmclog_ksymbol *rec)
{
	struct logbuf *b = ctx;

	assert_true(b->len + rec->header.length <= sizeof(b->data));
	memcpy(b->data + b->len, rec, rec->header.length);
	b->len += rec->header.length;
	return 0;
}

static void at(struct logbuf *b, size_t off, __u64 ts)
{
	lb_header(b, off)->tstamp = ts;
}

static const char *obj_path(const struct pmclog_sample_loc *s)
{
	return s->obj ? s->obj->path : "(none)";
}

/* dlopen A, dlclose, dlopen B at the same address: each sample its own. */
static void test_replay_reuse(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_replay *rp;

	(void)state;
	lb_initialize(&b);
	at(&b, lb_map_in(&b, 7, 0x7f0000001000, 0x7f0000002000, 0x1000, 0, "/lib/liba.so"), 10);
	at(&b, lb_pcsample(&b, 0, 7, 7, 0x7f0000001010, 1), 20);
	at(&b, lb_map_out(&b, 7, 0x7f0000000000, 0x7f0000003000), 30);
	at(&b, lb_pcsample(&b, 0, 7, 7, 0x7f0000001010, 1), 35);
	at(&b, lb_map_in(&b, 7, 0x7f0000001000, 0x7f0000002000, 0x1000, 0, "/lib/libb.so"), 40);
	at(&b, lb_pcsample(&b, 0, 7, 7, 0x7f0000001020, 1), 50);
	lb_closelog(&b, 3, 0, 0);
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 3);
	assert_string_equal(obj_path(&seen.s[0]), "/lib/liba.so");
	assert_int_equal(seen.s[0].objaddr, 0x1010);
	assert_null(seen.s[1].obj);
	assert_string_equal(obj_path(&seen.s[2]), "/lib/libb.so");
	assert_int_equal(seen.s[2].objaddr, 0x1020);
	assert_int_equal(pmclog_replay__stats(rp)->samples_no_object, 1);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * Samples written late (per-CPU buffers): in the stream after the
 * MAP_OUT, in time before it.  The sort puts them back.
 */
static void test_replay_late_samples(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_replay *rp;

	(void)state;
	lb_initialize(&b);
	at(&b, lb_map_in(&b, 7, 0x1000, 0x2000, 0, 0, "/bin/a"), 10);
	at(&b, lb_map_out(&b, 7, 0x1000, 0x2000), 30);
	at(&b, lb_procexit(&b, 7, 0), 31);
	at(&b, lb_pcsample(&b, 1, 7, 7, 0x1100, 1), 20);	/* before MAP_OUT */
	at(&b, lb_pcsample(&b, 1, 7, 7, 0x1100, 1), 40);	/* after it */
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 2);
	assert_string_equal(obj_path(&seen.s[0]), "/bin/a");
	assert_null(seen.s[1].obj);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/* fork copies, exec resets (before the new image's MAP_INs), exit keeps. */
static void test_replay_fork_exec_exit(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_replay *rp;

	(void)state;
	lb_initialize(&b);
	at(&b, lb_map_in(&b, 5, 0x400000, 0x401000, 0, PMCLOG_MAP_F_INITIAL, "/bin/sh"), 10);
	at(&b, lb_procfork(&b, 5, 6), 20);
	at(&b, lb_pcsample(&b, 0, 6, 6, 0x400100, 1), 25);	/* the child, in sh */
	at(&b, lb_procexec(&b, 6, "/bin/busy"), 30);
	at(&b, lb_pcsample(&b, 0, 6, 6, 0x400100, 1), 31);	/* between: none */
	at(&b, lb_map_in(&b, 6, 0x400000, 0x402000, 0, 0, "/bin/busy"), 32);
	at(&b, lb_pcsample(&b, 0, 6, 6, 0x400100, 1), 40);
	at(&b, lb_procexit(&b, 6, 0), 50);
	at(&b, lb_pcsample(&b, 1, 6, 6, 0x401100, 1), 49);	/* late, before exit */
	at(&b, lb_pcsample(&b, 1, 5, 5, 0x400100, 1), 60);	/* parent: still sh */
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 5);
	assert_string_equal(obj_path(&seen.s[0]), "/bin/sh");
	assert_null(seen.s[1].obj);
	assert_string_equal(obj_path(&seen.s[2]), "/bin/busy");
	assert_string_equal(obj_path(&seen.s[3]), "/bin/busy");
	assert_int_equal(seen.s[3].objaddr, 0x1100);
	assert_string_equal(obj_path(&seen.s[4]), "/bin/sh");
	assert_string_equal(pmclog_replay__comm(rp, 6), "/bin/busy");
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * Kernel: recorder KSYMBOLs (after INITIALIZE, before the MAP_INs of
 * START) wait for their map; module KSYMBOLs follow their MAP_IN; a
 * module loaded twice at different addresses is one object whose
 * symbols are offsets; pc 0 is "address hidden".
 */
static void test_replay_kernel(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_replay *rp;
	const struct pmclog_sym *sym;

	(void)state;
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_ksymbol(&b, 0xffffffff91000000ULL, 0x100, 1, "_stext"), 1);
	at(&b, lb_ksymbol(&b, 0xffffffff91000100ULL, 0x100, 1, "do_work"), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 0xffffffff92000000ULL,
			 0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]"), 5);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0xffffffff91000180ULL, 0), 6);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0, 0), 7);
	/* Load 1 at 0xc0001000, load 2 at 0xc0009000. */
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "testmod"), 10);
	at(&b, lb_ksymbol(&b, 0xffffffffc0001040ULL, 0x40, 0, "testmod_busy"), 10);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc0001050ULL, 0), 11);
	at(&b, lb_map_out(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL), 12);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0009000ULL, 0xffffffffc000a000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "testmod"), 20);
	at(&b, lb_ksymbol(&b, 0xffffffffc0009040ULL, 0x40, 0, "testmod_busy"), 20);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc0009060ULL, 0), 21);
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 4);
	assert_string_equal(obj_path(&seen.s[0]), "[kernel]");
	assert_int_equal(seen.s[0].objaddr, 0xffffffff81000180ULL);
	sym = pmclog_symtab__lookup(seen.s[0].obj->logsyms, seen.s[0].objaddr);
	assert_non_null(sym);
	assert_string_equal(sym->name, "do_work");
	assert_true(seen.s[1].hidden);
	assert_ptr_equal(seen.s[2].obj, seen.s[3].obj);
	assert_int_equal(seen.s[2].objaddr, 0x50);
	assert_int_equal(seen.s[3].objaddr, 0x60);
	sym = pmclog_symtab__lookup(seen.s[3].obj->logsyms, 0x60);
	assert_non_null(sym);
	assert_string_equal(sym->name, "testmod_busy");
	assert_int_equal(pmclog_symtab__count(seen.s[3].obj->logsyms), 1);
	assert_int_equal(pmclog_replay__stats(rp)->samples_hidden, 1);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * A recorder KSYMBOL that no map of START holds waits in vain: a module
 * loaded later at that address does not adopt it.  Seen on the debug
 * kernel: /proc/kallsyms still listed pmclog's freed init function at
 * START, the test module was loaded over it, and its samples were named
 * pmclog_init instead of pmclog_testmod_busy.
 */
static void test_replay_kernel_stale_ksymbol(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_replay *rp;
	const struct pmclog_sym *sym;

	(void)state;
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_ksymbol(&b, 0xffffffffc009e03bULL, 0, 1, "pmclog_init"), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc006d000ULL, 0xffffffffc0089000ULL,
			 0, PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INITIAL, "pmclog"), 5);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc009e000ULL, 0xffffffffc009f000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "pmclog_testmod"), 10);
	at(&b, lb_ksymbol(&b, 0xffffffffc009e000ULL, 248, 0, "pmclog_testmod_busy"), 11);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc009e050ULL, 0), 12);
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 1);
	assert_string_equal(obj_path(&seen.s[0]), "pmclog_testmod");
	sym = pmclog_symtab__lookup(seen.s[0].obj->logsyms, seen.s[0].objaddr);
	assert_non_null(sym);
	assert_string_equal(sym->name, "pmclog_testmod_busy");
	assert_int_equal(pmclog_symtab__count(seen.s[0].obj->logsyms), 1);
	assert_int_equal(pmclog_replay__stats(rp)->ksymbols_unmapped, 1);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/* A reader of the log, and rp streaming to seen with window w. */
static struct pmclog_reader *stream_log(struct logbuf *b, struct pmclog_replay *rp,
					__u64 w, struct seen *seen)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);

	assert_non_null(r);
	assert_int_equal(pmclog_replay__set_window(rp, w), 0);
	assert_int_equal(pmclog_replay__stream(rp, collect, seen), 0);
	pmclog_reader__feed(r, b->data, b->len);
	pmclog_reader__feed_eof(r);
	return r;
}

static void add_next(struct pmclog_reader *r, struct pmclog_replay *rp)
{
	struct pmclog_record rec;

	assert_int_equal(pmclog_reader__next(r, &rec), 1);
	assert_int_equal(pmclog_replay__add(rp, &rec), 0);
}

/*
 * The window: a record is replayed once one newer than it by the window
 * has come, from inside pmclog_replay__add(), so the replay holds the
 * window and not the log; out of order within the window is sorted; a
 * record later than the window is replayed where it comes, against the
 * maps as they are then, and counted.  Settings after the first record
 * are refused.
 */
static void test_replay_window(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_replay *rp = pmclog_replay__new(st);
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_reader *r;

	(void)state;
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_map_in(&b, 7, 0x1000, 0x2000, 0, 0, "/bin/a"), 10);
	at(&b, lb_map_out(&b, 7, 0x1000, 0x2000), 40);
	at(&b, lb_pcsample(&b, 1, 7, 7, 0x1100, 1), 20);	/* late, in the window */
	at(&b, lb_pcsample(&b, 1, 7, 7, 0x1200, 1), 120);	/* limit 20: nothing yet */
	at(&b, lb_pcsample(&b, 1, 7, 7, 0x1300, 1), 500);	/* limit 400 */
	at(&b, lb_pcsample(&b, 0, 7, 7, 0x1400, 1), 30);	/* later than the window */
	lb_closelog(&b, 4, 0, 0);
	r = stream_log(&b, rp, 100, &seen);
	for (int i = 0; i < 5; i++)
		add_next(r, rp);
	assert_int_equal(seen.n, 0);
	add_next(r, rp);		/* ts 500: the first three go */
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.s[0].pc, 0x1100);
	assert_string_equal(obj_path(&seen.s[0]), "/bin/a");
	assert_int_equal(seen.s[1].pc, 0x1200);
	assert_null(seen.s[1].obj);
	add_next(r, rp);		/* ts 30, after MAP_OUT (40) was replayed */
	assert_int_equal(seen.n, 2);	/* a sample waits for its CALLCHAIN */
	assert_int_equal(pmclog_replay__set_window(rp, 5), -EBUSY);
	assert_int_equal(pmclog_replay__stream(rp, collect, &seen), -EBUSY);
	add_next(r, rp);		/* CLOSELOG (not one; much later): ts 30 goes first */
	assert_int_equal(seen.n, 4);
	assert_int_equal(seen.s[2].pc, 0x1400);
	assert_null(seen.s[2].obj);
	assert_int_equal(seen.s[3].pc, 0x1300);
	assert_int_equal(pmclog_replay__stats(rp)->records_late, 1);
	assert_int_equal(pmclog_replay__run(rp, NULL, NULL), -EINVAL);	/* not its fn */
	pmclog_reader__free(r);
	pmclog_replay__free(rp);

	/* run() with the same fn replays what the window holds. */
	rp = pmclog_replay__new(st);
	memset(&seen, 0, sizeof(seen));
	r = stream_log(&b, rp, 100, &seen);
	for (int i = 0; i < 6; i++)
		add_next(r, rp);
	assert_int_equal(seen.n, 2);
	assert_int_equal(pmclog_replay__run(rp, collect, &seen), 0);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.s[2].pc, 0x1300);
	assert_int_equal(pmclog_replay__stats(rp)->records_late, 0);
	assert_int_equal(pmclog_replay__stats(rp)->sort_window_ns, 100);
	pmclog_reader__free(r);
	pmclog_replay__free(rp);

	/* Held until run(), the same log goes through the same window. */
	memset(&seen, 0, sizeof(seen));
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 4);
	assert_int_equal(pmclog_replay__stats(rp)->records_late, 0);	/* 1 s window */
	assert_int_equal(seen.s[1].pc, 0x1400);
	assert_string_equal(obj_path(&seen.s[1]), "/bin/a");
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * The recorder's KSYMBOLs come before CLOSELOG with INITIALIZE's time:
 * later than any window.  They still go to the kernel map of START that
 * held their address, as a full sort would have them adopted, not to a
 * module loaded there since, and are not counted late.
 */
static void test_replay_window_synth_ksymbols(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_replay *rp = pmclog_replay__new(st);
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	const struct pmclog_sym *sym;
	struct pmclog_record rec;
	int ret;

	(void)state;
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc006d000ULL, 0xffffffffc0089000ULL,
			 0, PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INITIAL, "pmclog"), 5);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0xffffffffc0070010ULL, 0), 6);
	at(&b, lb_map_out(&b, PMCLOG_PID_KERNEL, 0xffffffffc006d000ULL, 0xffffffffc0089000ULL), 20);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc006d000ULL, 0xffffffffc006e000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "other"), 30);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0070000ULL, 0xffffffffc0071000ULL,
			 0x3000, PMCLOG_MAP_F_KMODULE, "other"), 31);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0xffffffffc0070010ULL, 0), 40);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0, 0), 5000);
	at(&b, lb_ksymbol(&b, 0xffffffffc0070000ULL, 0x100, 1, "pmclog_fn"), 1);
	at(&b, lb_ksymbol(&b, 0xffffffffc0200000ULL, 0x100, 1, "nowhere"), 1);
	lb_closelog(&b, 3, 0, 0);
	r = stream_log(&b, rp, 100, &seen);
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(pmclog_replay__run(rp, collect, &seen), 0);
	assert_int_equal(seen.n, 3);
	assert_string_equal(obj_path(&seen.s[0]), "pmclog");
	assert_string_equal(obj_path(&seen.s[1]), "other");
	assert_int_equal(seen.s[1].objaddr, 0x3010);
	assert_non_null(seen.s[0].obj->logsyms);
	sym = pmclog_symtab__lookup(seen.s[0].obj->logsyms, seen.s[0].objaddr);
	assert_non_null(sym);
	assert_string_equal(sym->name, "pmclog_fn");
	assert_null(seen.s[1].obj->logsyms);
	assert_int_equal(pmclog_replay__stats(rp)->records_late, 0);
	assert_int_equal(pmclog_replay__stats(rp)->ksymbols_unmapped, 1);
	pmclog_reader__free(r);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * Through the window, as in the full sort: a PCSAMPLE goes with the
 * CALLCHAIN right after it in the log when it is its, waiting in the
 * window or late (held for the next record); one of another CPU is an
 * orphan.  The recorder's BUILDID of START's [kernel], which comes last
 * with INITIALIZE's time, gives its build-id in place to the object that
 * already has the samples, as its KSYMBOL names them, and neither is
 * counted late.
 */
static void test_replay_window_buildid_callchain(void **state)
{
	static const __u64 kpc[] = { 0xffffffff91000200ULL, 0xffffffff91000300ULL };
	const __u64 k = 0xffffffff91000000ULL, pcs[] = { k + 0x180, k + 0x190,
							 k + 0x1a0, k + 0x1b0 };
	const __u64 ts[] = { 6, 300, 50, 60 };
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_replay *rp = pmclog_replay__new(st);
	const struct pmclog_replay_stats *stats;
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_reader *r;
	const struct pmclog_sym *sym;
	struct pmclog_record rec;
	int ret;

	(void)state;
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, k, k + 0x1000000, 0xffffffff81000000ULL,
			 PMCLOG_MAP_F_INITIAL, "[kernel]"), 5);
	for (int i = 0; i < 4; i++) {
		at(&b, lb_pcsample(&b, 0, 9, 9, pcs[i], 0), ts[i]);
		/* The last one's is another CPU's. */
		lb_callchain(&b, ts[i], i == 3 ? 1 : 0, 9, 9, 0, 0, kpc, 2, NULL, 0);
		if (i == 1)	/* replays those before 400: 50 and 60 are late */
			at(&b, lb_pcsample(&b, 0, 9, 9, k + 0x1c0, 0), 500);
	}
	at(&b, lb_buildid(&b, PMCLOG_PID_KERNEL, k, 20, 1), 1);
	at(&b, lb_ksymbol(&b, k + 0x100, 0x100, 1, "do_work"), 1);
	at(&b, lb_closelog(&b, 5, 0, 0), 510);
	r = stream_log(&b, rp, 100, &seen);
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(pmclog_replay__run(rp, collect, &seen), 0);
	assert_int_equal(seen.n, 5);
	for (int i = 0; i < 4; i++)	/* the late ones where read */
		assert_int_equal(seen.s[i].pc, pcs[i]);
	assert_int_equal(seen.s[4].pc, k + 0x1c0);
	assert_int_equal(seen.s[0].nframes, 2);	/* its kernel frames */
	assert_int_equal(seen.s[1].nframes, 2);
	assert_int_equal(seen.s[2].nframes, 2);
	assert_int_equal(seen.s[3].nframes, 0);
	assert_int_equal(seen.s[4].nframes, 0);
	stats = pmclog_replay__stats(rp);
	assert_int_equal(stats->callchains, 3);
	assert_int_equal(stats->callchains_orphan, 1);
	assert_int_equal(stats->records_late, 4);	/* 2 samples, 2 CALLCHAINs */
	assert_int_equal(stats->buildids_unmapped, 0);
	for (int i = 0; i < 5; i++)
		assert_ptr_equal(seen.s[i].obj, seen.s[0].obj);
	assert_string_equal(obj_path(&seen.s[0]), "[kernel]");
	assert_int_equal(seen.s[0].obj->build_id_size, 20);
	assert_int_equal(seen.s[0].obj->build_id[0], 0x11);
	sym = pmclog_symtab__lookup(seen.s[0].obj->logsyms, seen.s[0].objaddr);
	assert_non_null(sym);
	assert_string_equal(sym->name, "do_work");
	pmclog_reader__free(r);
	pmclog_replay__free(rp);

	/* Within the window, the full sort: the same build and stacks. */
	memset(&seen, 0, sizeof(seen));
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 5);
	assert_int_equal(seen.s[1].pc, pcs[2]);	/* sorted: 50 before 300 */
	assert_int_equal(seen.s[0].obj->build_id_size, 20);
	assert_int_equal(seen.s[0].obj->build_id[0], 0x11);
	assert_int_equal(pmclog_replay__stats(rp)->callchains, 3);
	assert_int_equal(pmclog_replay__stats(rp)->records_late, 0);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * Build-ids: a module rebuilt and reloaded at the same address is two
 * objects, each named by its own KSYMBOLs (without BUILDIDs the second
 * build's symbol landed in the first one's table, and one of the loads
 * was named wrongly); a reload of the same build is the same object; the
 * recorder's BUILDID of [kernel] waits for START's MAP_IN; one of no map
 * is counted.
 */
static void test_replay_buildid(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct seen seen = { 0 };
	struct logbuf b = { 0 };
	struct pmclog_replay *rp;
	const struct pmclog_sym *sym;
	const __u64 mod = 0xffffffffc0001000ULL;
	size_t off;

	(void)state;
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_buildid(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 20, 1), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 0xffffffff92000000ULL,
			 0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]"), 5);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0xffffffff91000180ULL, 0), 6);
	/* Build A, build B, build A again, all at mod. */
	for (int load = 0; load < 3; load++) {
		__u64 t = 10 + 10 * (__u64)load;

		at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, mod, mod + 0x1000, 0,
				 PMCLOG_MAP_F_KMODULE, "testmod"), t);
		off = lb_buildid(&b, PMCLOG_PID_KERNEL, mod, 20, 0);
		at(&b, off, t);
		if (load == 1)	/* build B: another build-id */
			((struct pmclog_buildid *)(b.data + off))->build_id[0] = 0xbb;
		at(&b, lb_ksymbol(&b, mod + 0x40, 0x40, 0,
				  load == 1 ? "testmod_spin" : "testmod_busy"), t);
		at(&b, lb_pcsample(&b, 1, 9, 9, mod + 0x50, 0), t + 1);
		at(&b, lb_map_out(&b, PMCLOG_PID_KERNEL, mod, mod + 0x1000), t + 2);
	}
	at(&b, lb_buildid(&b, 9, 0x400000, 20, 0), 50);
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 4);
	assert_string_equal(obj_path(&seen.s[0]), "[kernel]");
	assert_int_equal(seen.s[0].obj->build_id_size, 20);
	assert_int_equal(seen.s[0].obj->build_id[0], 0x11);
	for (int load = 0; load < 3; load++) {
		const struct pmclog_sample_loc *s = &seen.s[1 + load];

		assert_string_equal(obj_path(s), "testmod");
		assert_int_equal(s->obj->build_id_size, 20);
		assert_int_equal(s->obj->build_id[0], load == 1 ? 0xbb : 0x11);
		sym = pmclog_symtab__lookup(s->obj->logsyms, s->objaddr);
		assert_non_null(sym);
		assert_string_equal(sym->name, load == 1 ? "testmod_spin" : "testmod_busy");
	}
	assert_ptr_equal(seen.s[1].obj, seen.s[3].obj);
	assert_ptr_not_equal(seen.s[1].obj, seen.s[2].obj);
	assert_int_equal(pmclog_replay__stats(rp)->buildids_unmapped, 1);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * No records at all (a log corrupt from its first byte): nothing to sort.
 * The sort of an empty replay passed qsort() a NULL array, which UBSan
 * (make unit-sanitize) reports; found by fuzz_replay.
 */
static void test_replay_empty(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_replay *rp = pmclog_replay__new(st);
	struct seen seen = { 0 };

	(void)state;
	assert_non_null(rp);
	assert_int_equal(pmclog_replay__run(rp, collect, &seen), 0);
	assert_int_equal(seen.n, 0);
	assert_int_equal(pmclog_replay__stats(rp)->samples, 0);
	assert_int_equal(pmclog_replay__nobjects(rp), 0);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}

/*
 * The recorder's kallsyms: text symbols only, sizes within one object,
 * records the reader accepts and the replay attaches to the kernel's
 * and a module's maps; all-zero addresses (kptr_restrict) refused.
 */
static void test_kallsyms(void **state)
{
	static const char text[] =
		"ffffffff91000000 T _stext\n"
		"ffffffff91000040 t helper\n"
		"ffffffff91001000 D some_data\n"
		"ffffffff91000100 W weak_fn\n"
		"ffffffffc0001000 t mod_fn\t[testmod]\n"
		"ffffffffc0001080 t mod_fn2\t[testmod]\n";
	static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t helper\n";
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_kallsyms *ks = NULL;
	struct seen seen = { 0 };
	static struct logbuf b;
	struct pmclog_replay *rp;
	const struct pmclog_sym *sym;
	FILE *f;

	(void)state;
	f = fmemopen((void *)hidden, sizeof(hidden) - 1, "r");
	assert_int_equal(pmclog_kallsyms__read(f, &ks), -EPERM);
	fclose(f);
	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_int_equal(pmclog_kallsyms__read(f, &ks), 0);
	fclose(f);
	assert_int_equal(pmclog_kallsyms__count(ks), 5);
	/* The recorder marks the functions its kernel samples fell in... */
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffff91000050ULL));
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffffc00010f0ULL));
	assert_false(pmclog_kallsyms__mark(ks, 0xffffffff90000000ULL));
	memset(&b, 0, sizeof(b));
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 0xffffffff91000200ULL,
			 0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]"), 5);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0001100ULL,
			 0, PMCLOG_MAP_F_INITIAL | PMCLOG_MAP_F_KMODULE, "testmod"), 5);
	at(&b, lb_pcsample(&b, 0, 1, 1, 0xffffffff91000050ULL, 0), 6);
	at(&b, lb_pcsample(&b, 0, 1, 1, 0xffffffffc00010f0ULL, 0), 6);
	/* ...and writes only those, at the end, with INITIALIZE's stamp. */
	assert_int_equal(pmclog_kallsyms__foreach_record(ks, true, 1, 0, append_record, &b), 0);
	pmclog_kallsyms__free(ks);
	rp = replay_log(&b, st, &seen);
	assert_int_equal(seen.n, 2);
	sym = pmclog_symtab__lookup(seen.s[0].obj->logsyms, seen.s[0].objaddr);
	assert_non_null(sym);
	assert_string_equal(sym->name, "helper");
	assert_int_equal(sym->size, 0xc0);	/* up to weak_fn */
	sym = pmclog_symtab__lookup(seen.s[1].obj->logsyms, seen.s[1].objaddr);
	assert_non_null(sym);
	assert_string_equal(sym->name, "mod_fn2");	/* last: up to the map's end */
	assert_int_equal(pmclog_replay__stats(rp)->records[PMCLOG_TYPE_KSYMBOL], 2);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
}


/* test_kallsyms_order's symbols, as the reference model knows them. */
struct ref_sym {
	__u64 addr;
	int obj;		/* kernel 0, then each module's run 1, 2, ... */
	char name[32];
	__u64 size;		/* to the next of its object; 0 for the last */
	bool marked;
};

struct ref_walk {
	const struct ref_sym *order;	/* expected, by object then address */
	size_t n, next;
	bool marked;			/* only the marked ones */
};

static int check_walk(void *ctx, const struct pmclog_ksymbol *rec)
{
	struct ref_walk *w = ctx;

	while (w->next < w->n && w->marked && !w->order[w->next].marked)
		w->next++;
	assert_true(w->next < w->n);
	assert_string_equal(rec->name, w->order[w->next].name);
	assert_int_equal(rec->start, w->order[w->next].addr);
	assert_int_equal(rec->size, w->order[w->next].size);
	w->next++;
	return 0;
}

static int ref_order_cmp(const void *a, const void *b)
{
	const struct ref_sym *x = a, *y = b;
	/* The modules in kallsyms' order, then the kernel. */
	int ox = x->obj ? x->obj : INT_MAX, oy = y->obj ? y->obj : INT_MAX;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static __u64 ref_rand(__u64 *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

/*
 * /proc/kallsyms as a kernel lists it, big enough to be read in several
 * chunks: the kernel's symbols by address (but for one pair), then each
 * module's in symbol-table order, and [bpf]'s programs between module
 * functions; with odd: one more kernel symbol after the modules, and a
 * line longer than a chunk.  Every mark and every record agrees with a
 * model that sorts everything the plain way.
 */
static void kallsyms_order(bool odd)
{
	enum { NCORE = 4000, NMOD = 4, PERMOD = 150, NBPF = 30 };
	static struct ref_sym ref[NCORE + NMOD * PERMOD + NBPF + 1];
	static struct ref_sym order[NCORE + NMOD * PERMOD + NBPF + 1];
	size_t n = 0, cap = 1 << 20, len = 0;
	char *text = malloc(cap);
	struct pmclog_kallsyms *ks = NULL;
	struct ref_walk walk = { order, 0, 0, false };
	__u64 seed = odd ? 7 : 3, a = 0xffffffff91000000ULL;
	FILE *f;

	assert_non_null(text);
#define LINE(...) (len += (size_t)snprintf(text + len, cap - len, __VA_ARGS__))
	for (int i = 0; i < NCORE; i++) {
		a += 16 + 8 * ref_rand(&seed) % 256;
		ref[n] = (struct ref_sym){ .addr = a, .obj = 0 };
		snprintf(ref[n].name, sizeof(ref[n].name), "k%d", i);
		n++;
	}
	/* One pair out of order. */
	for (int i = 0; i < NCORE; i++) {
		int j = i == 1000 ? 1001 : i == 1001 ? 1000 : i;

		LINE("%016llx %c %s\n", (unsigned long long)ref[j].addr, "tTwW"[j % 4], ref[j].name);
		if (i == 2000)
			LINE("%016llx D some_data\nnot an address T bad\n",
			     (unsigned long long)ref[j].addr + 1);
	}
	if (odd) {
		memset(text + len, 'x', 70000);
		len += 70000;
		LINE("\n");
	}
	for (int m = 0; m < NMOD; m++) {
		size_t first = n;

		for (int i = 0; i < PERMOD; i++) {
			ref[n] = (struct ref_sym){
				.addr = 0xffffffffc0000000ULL + (__u64)m * 0x10000 + (__u64)i * 0x40 +
					8 * (ref_rand(&seed) % 8),
				.obj = m + 1,
			};
			snprintf(ref[n].name, sizeof(ref[n].name), "m%d_%d", m, i);
			n++;
		}
		/* A symbol table's order: shuffled. */
		for (size_t i = n - 1; i > first; i--) {
			size_t j = first + ref_rand(&seed) % (i - first + 1);
			struct ref_sym t = ref[i];

			ref[i] = ref[j];
			ref[j] = t;
		}
		for (size_t i = first; i < n; i++)
			LINE("%016llx t %s\t[mod%d]\n", (unsigned long long)ref[i].addr, ref[i].name, m);
	}
	for (int i = 0; i < NBPF; i++) {
		ref[n] = (struct ref_sym){
			.addr = 0xffffffffc0000004ULL + (__u64)(i % NMOD) * 0x10000 +
				(__u64)(i * 5 % PERMOD) * 0x40,
			.obj = NMOD + 1,
		};
		snprintf(ref[n].name, sizeof(ref[n].name), "bpf_prog_%d", i);
		LINE("%016llx t %s\t[bpf]\n", (unsigned long long)ref[n].addr, ref[n].name);
		n++;
	}
	if (odd) {
		/* The last line, without its newline. */
		ref[n] = (struct ref_sym){ .addr = a + 0x100, .obj = 0 };
		snprintf(ref[n].name, sizeof(ref[n].name), "k_late");
		LINE("%016llx T %s", (unsigned long long)ref[n].addr, ref[n].name);
		n++;
	}
#undef LINE
	assert_true(len < cap);
	memcpy(order, ref, n * sizeof(*ref));
	qsort(order, n, sizeof(*order), ref_order_cmp);
	for (size_t i = 0; i + 1 < n; i++)
		if (order[i + 1].obj == order[i].obj)
			order[i].size = order[i + 1].addr - order[i].addr;

	f = fmemopen(text, len, "r");
	assert_non_null(f);
	assert_int_equal(pmclog_kallsyms__read(f, &ks), 0);
	fclose(f);
	assert_int_equal(pmclog_kallsyms__count(ks), n);

	/* Marks: the symbol at or below each PC, within its size. */
	for (size_t t = 0; t < 20000; t++) {
		const struct ref_sym *r = &order[t % n];
		__u64 pc = t < 3 * n ? r->addr + (t / n) - 1 :
			   0xffffffff90000000ULL + ref_rand(&seed) * 64 % 0x31000000ULL;
		struct ref_sym *best = NULL;

		for (size_t i = 0; i < n; i++)
			if (order[i].addr <= pc && (!best || order[i].addr > best->addr))
				best = &order[i];
		if (best && best->size && pc - best->addr >= best->size)
			best = NULL;
		assert_int_equal(pmclog_kallsyms__mark(ks, pc), best != NULL);
		if (best)
			best->marked = true;
	}
	walk.n = n;
	assert_int_equal(pmclog_kallsyms__foreach_record(ks, false, 1, 0, check_walk, &walk), 0);
	assert_int_equal(walk.next, n);
	walk.next = 0;
	walk.marked = true;
	assert_int_equal(pmclog_kallsyms__foreach_record(ks, true, 1, 0, check_walk, &walk), 0);
	while (walk.next < n)
		assert_false(order[walk.next++].marked);
	pmclog_kallsyms__free(ks);
	free(text);
}

static void test_kallsyms_order(void **state)
{
	(void)state;
	kallsyms_order(false);
	kallsyms_order(true);
}

/* kallsyms text read, then bounded by the /proc/modules text modules. */
static struct pmclog_kallsyms *bounded_kallsyms(const char *text, const char *modules)
{
	struct pmclog_kallsyms *ks = NULL;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_int_equal(pmclog_kallsyms__read(f, &ks), 0);
	fclose(f);
	f = fmemopen((void *)modules, strlen(modules), "r");
	assert_int_equal(pmclog_kallsyms__bound(ks, f), 0);
	fclose(f);
	return ks;
}

/*
 * /proc/modules bounds each module's symbols: the last one ends with the
 * module's core, a symbol outside the core (init text freed, where the
 * debug kernel's kallsyms still listed pmclog_init) names nothing, and a
 * module that /proc/modules does not list keeps its symbols.
 */
static void test_kallsyms_bound(void **state)
{
	static const char text[] =
		"ffffffff91000000 T _stext\n"
		"ffffffffc0001000 t mod_fn\t[testmod]\n"
		"ffffffffc0001080 t mod_last\t[testmod]\n"
		"ffffffffc0006000 t mod_init\t[testmod]\n"
		"ffffffffc0009000 t other_fn\t[other]\n";
	static const char modules[] =
		"testmod 8192 0 - Live 0xffffffffc0001000 (OE)\n"
		"hidden 4096 0 - Live 0x0000000000000000\n"
		"garbage\n";
	/* Unbounded, mod_last stretches to mod_init, mod_init up and on. */
	struct pmclog_kallsyms *ks = bounded_kallsyms(text, modules);

	(void)state;
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffffc0002fffULL));	/* mod_last */
	assert_false(pmclog_kallsyms__mark(ks, 0xffffffffc0003000ULL));	/* past the core */
	assert_false(pmclog_kallsyms__mark(ks, 0xffffffffc0006010ULL));	/* mod_init */
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffffc0009010ULL));	/* not listed */
	pmclog_kallsyms__free(ks);
}

/*
 * A module loaded later may take the memory of another's freed init text,
 * whose symbols 6.1's kallsyms still lists: such a stale symbol between a
 * function of the new module and a PC in it hides nothing.  (Seen under
 * QEMU: the test module's busy function went unnamed.)
 */
static void test_kallsyms_stale(void **state)
{
	static const char text[] =
		"ffffffff91000000 T _stext\n"
		"ffffffffc0001000 t old_fn\t[oldmod]\n"
		"ffffffffc0006010 T old_init\t[oldmod]\n"
		"ffffffffc0006000 t new_busy\t[newmod]\n"
		"ffffffffc0006050 t new_write\t[newmod]\n";
	static const char modules[] =
		"oldmod 4096 0 - Live 0xffffffffc0001000 (OE)\n"
		"newmod 8192 0 - Live 0xffffffffc0006000 (OE)\n";
	struct pmclog_kallsyms *ks = bounded_kallsyms(text, modules);

	(void)state;
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffffc0006030ULL));	/* new_busy */
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffffc0006060ULL));	/* new_write */
	assert_false(pmclog_kallsyms__mark(ks, 0xffffffffc0001fffULL + 0x10));	/* past oldmod */
	pmclog_kallsyms__free(ks);
}

/*
 * A module that many others use lists them all before its address: its
 * line of /proc/modules is read whole, and its symbols still end with
 * its core.
 */
static void test_kallsyms_bound_long_line(void **state)
{
	static const char text[] =
		"ffffffff91000000 T _stext\n"
		"ffffffffc0001000 t mod_fn\t[testmod]\n"
		"ffffffffc0001080 t mod_last\t[testmod]\n"
		"ffffffffc0006000 t mod_init\t[testmod]\n";
	static char modules[4096];
	struct pmclog_kallsyms *ks;
	size_t len;

	(void)state;
	len = sprintf(modules, "testmod 8192 150 ");
	for (int i = 0; i < 150; i++)
		len += sprintf(modules + len, "user_module_%03d,", i);
	sprintf(modules + len, " Live 0xffffffffc0001000 (OE)\n");
	assert_true(strlen(modules) > 2000);
	ks = bounded_kallsyms(text, modules);
	assert_true(pmclog_kallsyms__mark(ks, 0xffffffffc0002fffULL));	/* mod_last */
	assert_false(pmclog_kallsyms__mark(ks, 0xffffffffc0003000ULL));	/* past the core */
	pmclog_kallsyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_find),
		cmocka_unit_test(test_remove_split),
		cmocka_unit_test(test_insert_replaces),
		cmocka_unit_test(test_procmaps),
		cmocka_unit_test(test_replay_reuse),
		cmocka_unit_test(test_replay_late_samples),
		cmocka_unit_test(test_replay_fork_exec_exit),
		cmocka_unit_test(test_replay_kernel),
		cmocka_unit_test(test_replay_kernel_stale_ksymbol),
		cmocka_unit_test(test_replay_buildid),
		cmocka_unit_test(test_replay_window),
		cmocka_unit_test(test_replay_window_synth_ksymbols),
		cmocka_unit_test(test_replay_window_buildid_callchain),
		cmocka_unit_test(test_replay_empty),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_order),
		cmocka_unit_test(test_kallsyms_bound),
		cmocka_unit_test(test_kallsyms_stale),
		cmocka_unit_test(test_kallsyms_bound_long_line),
	};

	return cmocka_run_group_tests_name("maps", tests, NULL, NULL);
}
