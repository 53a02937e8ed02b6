// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks (CALLCHAIN, ABI 1.5): the reader's checks of the record, the
 * replay's pairing of each with its sample and the lookup of its frames,
 * and the callgraph's outputs, folded stacks and pmcstat -G's tree, on
 * logs of a program built here with frame pointers (main -> path_a and
 * path_b -> hot, and a function in a library mapped, then unmapped).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "log_builder.h"
#include "pmclog_callgraph.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"


static const char source[] =
	"__attribute__((noinline)) unsigned long hot(unsigned long n) { volatile unsigned long x = 0; for (unsigned long i = 0; i < n; i++) x += i; return x; }\n"
	"__attribute__((noinline)) unsigned long path_a(void) { return hot(200) + 1; }\n"
	"__attribute__((noinline)) unsigned long path_b(void) { return hot(100) + 1; }\n"
	"int main(void) { return (int)(path_a() + path_b()); }\n";

static const char lib_source[] =
	"__attribute__((noinline)) int lib_fn(int x) { return x * 3 + 1; }\n";



static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmclog-cg-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("prog.c", source);
	put("lib.c", lib_source);
	run("cd %s && cc -O0 -g -fno-omit-frame-pointer -fno-pie -no-pie -o prog prog.c", dir);
	run("cd %s && cc -O0 -g -fno-omit-frame-pointer -fPIC -shared -o libcg.so lib.c", dir);
	return 0;
}



static struct pmclog_reader *reader_of(const struct logbuf *b)
{
	struct pmclog_reader *r = pmclog_reader__new(NULL);

	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b->data, b->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	return r;
}

/* ------------------------------------------------------------------ */
/* The record                                                         */

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* The reader's verdict on the record at off of b: 1, or its error. */
static int read_at(struct logbuf *b, size_t off)
{
	struct pmclog_reader_opts o = PMCLOG_READER_OPTS_INIT;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	int ret;

	o.log_fn = quiet;
	r = pmclog_reader__new(&o);
	assert_non_null(r);
	pmclog_reader__feed(r, b->data, b->len);
	pmclog_reader__feed_eof(r);
	while ((ret = pmclog_reader__next(r, &rec)) == 1 && rec.offset != off)
		;
	if (ret == 1 && rec.type == PMCLOG_TYPE_CALLCHAIN) {
		assert_int_equal(rec.rec.callchain->nkernel + rec.rec.callchain->nuser,
				 (rec.length - sizeof(struct pmclog_callchain)) / 8);
	}
	pmclog_reader__free(r);
	return ret;
}

/*
 * A CALLCHAIN holds its frames exactly; one of a user sample has no
 * kernel frame.
 */
static void test_record(void **state)
{
	static const __u64 k[] = { 0xffffffff81000010ULL, 0xffffffff81000020ULL };
	static const __u64 u[] = { 0x401000, 0x401100, 0x401200 };
	struct logbuf b = { 0 };
	struct pmclog_callchain *c;
	size_t off;
	(void)state;

	lb_initialize(&b);
	off = lb_callchain(&b, 5, 0, 1, 1, 0, 0, k, 2, u, 3);
	assert_int_equal(lb_header(&b, off)->length, 32 + 5 * 8);
	assert_int_equal(read_at(&b, off), 1);

	/* A frame more than the record holds. */
	c = (struct pmclog_callchain *)(b.data + off);
	c->nuser = 4;
	assert_int_equal(read_at(&b, off), -EBADMSG);
	/* Or fewer. */
	c->nuser = 2;
	assert_int_equal(read_at(&b, off), -EBADMSG);
	c->nuser = 3;
	/* Kernel frames in a user sample's stack. */
	c->header.flags |= PMCLOG_HF_USER;
	assert_int_equal(read_at(&b, off), -EBADMSG);
	c->nkernel = 0;
	c->nuser = 5;
	assert_int_equal(read_at(&b, off), 1);
}

/* ------------------------------------------------------------------ */
/* The replay                                                         */

struct seen {
	size_t n;
	struct pmclog_sample_loc loc[8];
	struct pmclog_frame frames[8][8];
};

static int keep_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct seen *sn = ctx;

	assert_true(sn->n < 8);
	sn->loc[sn->n] = *s;
	assert_true(s->nframes <= 8);
	if (s->nframes)
		memcpy(sn->frames[sn->n], s->frames, s->nframes * sizeof(*s->frames));
	sn->n++;
	return 0;
}

static void replay(struct logbuf *b, struct seen *sn, struct pmclog_replay_stats *st)
{
	struct pmclog_strings *strs = pmclog_strings__new();
	struct pmclog_replay *rp = pmclog_replay__new(strs);
	struct pmclog_reader *r = reader_of(b);
	struct pmclog_record rec;

	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	pmclog_reader__free(r);
	memset(sn, 0, sizeof(*sn));
	assert_int_equal(pmclog_replay__run(rp, keep_sample, sn), 0);
	*st = *pmclog_replay__stats(rp);
	pmclog_replay__free(rp);
	pmclog_strings__free(strs);
}

/*
 * Each sample gets the stack of the CALLCHAIN after it: its own PC first,
 * return addresses looked up at the call (pc - 1), kernel frames in the
 * kernel's map and user frames in the process's; a CALLCHAIN that
 * follows no sample of its own is counted, not given to another.
 */
static void test_replay_frames(void **state)
{
	static const __u64 k[] = { 0xffffffff81000010ULL, 0xffffffff81000100ULL };
	static const __u64 u[] = { 0x401010, 0x402000 };
	struct pmclog_replay_stats st;
	struct logbuf b = { 0 };
	struct seen sn;
	size_t off;
	(void)state;

	lb_initialize(&b);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff82000000ULL,
		  0xffffffff81000000ULL, 0, "[kernel]");
	/* The user map ends at 0x402000: the return address at its end is in it. */
	lb_map_in(&b, 7, 0x401000, 0x402000, 0x1000, 0, "/bin/prog");
	lb_sample_stack(&b, 0, 7, k[0], 0, k, 2, u, 2);
	lb_sample_stack(&b, 1, 7, u[0], 1, NULL, 0, u, 2);
	lb_pcsample(&b, 0, 7, 7, u[0], 1);		/* no stack */
	off = lb_pcsample(&b, 1, 7, 7, u[0], 1);
	/* Another thread's: not this sample's. */
	lb_callchain(&b, lb_header(&b, off)->tstamp, 1, 7, 8, 1, 0, NULL, 0, u, 1);
	/* A hidden kernel PC: the stack starts with the sample itself. */
	off = lb_pcsample(&b, 0, 7, 7, 0, 0);
	lb_callchain(&b, lb_header(&b, off)->tstamp, 0, 7, 7, 0,
		     PMCLOG_CC_F_KERNEL_HIDDEN, NULL, 0, u, 1);
	lb_closelog(&b, 5, 0, 0);
	replay(&b, &sn, &st);

	assert_int_equal(sn.n, 5);
	assert_int_equal(st.callchains, 3);
	assert_int_equal(st.callchains_orphan, 1);
	/* Kernel sample: 2 kernel frames, then 2 user ones. */
	assert_int_equal(sn.loc[0].nframes, 4);
	assert_int_equal(sn.frames[0][0].pc, k[0]);
	assert_false(sn.frames[0][0].user);
	assert_int_equal(sn.frames[0][0].objaddr, k[0]);	/* the PC itself */
	assert_int_equal(sn.frames[0][1].objaddr, k[1] - 1);	/* the call */
	assert_true(sn.frames[0][2].user);
	assert_int_equal(sn.frames[0][2].objaddr, 0x1010);	/* the user PC */
	assert_non_null(sn.frames[0][3].obj);
	assert_int_equal(sn.frames[0][3].objaddr, 0x1fff);	/* 0x402000 - 1 */
	/* User sample. */
	assert_int_equal(sn.loc[1].nframes, 2);
	assert_ptr_equal(sn.frames[1][0].obj, sn.loc[1].obj);
	assert_int_equal(sn.frames[1][0].objaddr, sn.loc[1].objaddr);
	/* Without, and with another thread's. */
	assert_int_equal(sn.loc[2].nframes, 0);
	assert_null(sn.loc[2].frames);
	assert_int_equal(sn.loc[3].nframes, 0);
	/* Hidden. */
	assert_int_equal(sn.loc[4].nframes, 2);
	assert_true(sn.frames[4][0].hidden);
	assert_true(sn.frames[4][1].user);
	assert_int_equal(sn.loc[4].callchain_flags, PMCLOG_CC_F_KERNEL_HIDDEN);
}

/*
 * A kernel frame after PMCLOG_CC_EXACT is where an interrupt stopped the
 * code: looked up at itself, not at the byte before (which is the end of
 * the function before it); the marker is no frame.
 */
static void test_replay_exact(void **state)
{
	static const __u64 k[] = { 0xffffffff81000010ULL, 0xffffffff81000100ULL,
				   PMCLOG_CC_EXACT, 0xffffffff81000200ULL,
				   0xffffffff81000300ULL };
	static const __u64 u[] = { 0x401010 };
	struct pmclog_replay_stats st;
	struct logbuf b = { 0 };
	struct seen sn;
	(void)state;

	lb_initialize(&b);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff82000000ULL,
		  0xffffffff81000000ULL, 0, "[kernel]");
	lb_sample_stack(&b, 0, 7, k[0], 0, k, 5, u, 1);
	lb_closelog(&b, 1, 0, 0);
	replay(&b, &sn, &st);
	assert_int_equal(sn.n, 1);
	assert_int_equal(sn.loc[0].nframes, 5);
	assert_int_equal(sn.frames[0][1].objaddr, k[1] - 1);
	assert_int_equal(sn.frames[0][2].pc, k[3]);
	assert_int_equal(sn.frames[0][2].objaddr, k[3]);	/* exact */
	assert_int_equal(sn.frames[0][3].objaddr, k[4] - 1);
	assert_true(sn.frames[0][4].user);
}

/* The pairing is made in log order: the sort by time keeps it. */
static void test_replay_pairs_before_sort(void **state)
{
	static const __u64 u1[] = { 0x401010, 0x401800 }, u2[] = { 0x401020 };
	struct pmclog_replay_stats st;
	struct logbuf b = { 0 };
	struct seen sn;
	size_t s1, s2;
	(void)state;

	lb_initialize(&b);
	lb_map_in(&b, 7, 0x401000, 0x402000, 0x1000, 0, "/bin/prog");
	/* Two CPUs' samples, the later one drained first. */
	s2 = lb_pcsample(&b, 1, 7, 7, u2[0], 1);
	lb_header(&b, s2)->tstamp = LB_TS_BASE + 5000;
	lb_callchain(&b, LB_TS_BASE + 5000, 1, 7, 7, 1, 0, NULL, 0, u2, 1);
	s1 = lb_pcsample(&b, 0, 7, 7, u1[0], 1);
	lb_header(&b, s1)->tstamp = LB_TS_BASE + 4000;
	lb_callchain(&b, LB_TS_BASE + 4000, 0, 7, 7, 1, 0, NULL, 0, u1, 2);
	lb_closelog(&b, 2, 0, 0);
	replay(&b, &sn, &st);
	assert_int_equal(sn.n, 2);
	assert_int_equal(sn.loc[0].pc, u1[0]);
	assert_int_equal(sn.loc[0].nframes, 2);
	assert_int_equal(sn.frames[0][1].pc, u1[1]);
	assert_int_equal(sn.loc[1].pc, u2[0]);
	assert_int_equal(sn.loc[1].nframes, 1);
	assert_int_equal(st.callchains_orphan, 0);
}

/* ------------------------------------------------------------------ */
/* The callgraph                                                      */

#define KBASE	0xffffffff81000000ULL
#define LIB	0x7f0000000000ULL

/*
 * prog (non-PIE, mapped as the kernel would: [0x400000, 0x500000) at
 * offset 0, so that pc is its vaddr) and libcg.so at LIB; the kernel with
 * three KSYMBOLs.  Stacks: 20 hot <- path_a <- main, 10 hot <- path_b <-
 * main, 5 in the kernel (ksys_read <- do_syscall_64 <- entry_SYSCALL_64)
 * below main, 4 in lib_fn <- main, the library unmapped after them; and
 * one sample without a stack.
 */
static void program_log(struct logbuf *b, int pid2)
{
	char prog[128], lib[128];
	__u64 hot = nm_value("prog", "hot"), pa = nm_value("prog", "path_a");
	__u64 pb = nm_value("prog", "path_b"), mn = nm_value("prog", "main");
	__u64 lf = LIB + nm_value("libcg.so", "lib_fn");
	const __u64 ua[] = { hot + 4, pa + 9, mn + 9 }, ub[] = { hot + 4, pb + 9, mn + 14 };
	const __u64 kr[] = { KBASE + 0x210, KBASE + 0x120, KBASE + 0x40 };
	const __u64 ur[] = { mn + 20 }, ul[] = { lf + 4, mn + 24 };

	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(lib, sizeof(lib), "%s/libcg.so", dir);
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		       1000, "cpu-clock");
	lb_map_in(b, PMCLOG_PID_KERNEL, KBASE, KBASE + 0x1000000, KBASE, 0, "[kernel]");
	lb_ksymbol(b, KBASE, 0x100, 0, "entry_SYSCALL_64");
	lb_ksymbol(b, KBASE + 0x100, 0x100, 0, "do_syscall_64");
	lb_ksymbol(b, KBASE + 0x200, 0x100, 0, "ksys_read");
	lb_procexec(b, 3, prog);
	lb_map_in(b, 3, 0x400000, 0x500000, 0, 0, prog);
	lb_map_in(b, 3, LIB, LIB + 0x10000, 0, 0, lib);
	if (pid2)
		lb_procfork(b, 3, 4);	/* its maps, not its name */
	for (int i = 0; i < 20; i++)
		lb_sample_stack(b, (__u16)(i % 2), 3, ua[0], 1, NULL, 0, ua, 3);
	for (int i = 0; i < 10; i++)
		lb_sample_stack(b, 0, pid2 && i % 2 ? 4 : 3, ub[0], 1, NULL, 0, ub, 3);
	for (int i = 0; i < 5; i++)
		lb_sample_stack(b, 1, 3, kr[0], 0, kr, 3, ur, 1);
	for (int i = 0; i < 4; i++)
		lb_sample_stack(b, 0, 3, ul[0], 1, NULL, 0, ul, 2);
	lb_map_out(b, 3, LIB, LIB + 0x10000);
	lb_pcsample(b, 0, 3, 3, hot + 4, 1);
	lb_closelog(b, 40, 0, 0);
}

struct cg_run {
	struct pmclog_strings *st;
	struct pmclog_replay *rp;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
	struct pmclog_callgraph *cg;
};

static void cg_run(struct cg_run *c, struct logbuf *b, const struct pmclog_report_opts *o)
{
	struct pmclog_resolver_opts ro = { 0 };
	struct pmclog_reader *r = reader_of(b);
	struct pmclog_record rec;

	c->st = pmclog_strings__new();
	c->rp = pmclog_replay__new(c->st);
	c->res = pmclog_resolver__new(c->st, &ro);
	c->rep = pmclog_report__new(c->st, c->rp, c->res, o);
	c->cg = pmclog_callgraph__new(c->rep);
	assert_non_null(c->cg);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(c->rp, &rec), 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(c->rp, pmclog_callgraph__report_sample, c->cg), 0);
	assert_int_equal(pmclog_report__finish(c->rep), 0);
	assert_int_equal(pmclog_callgraph__finish(c->cg), 0);
}

static void cg_free(struct cg_run *c)
{
	pmclog_callgraph__free(c->cg);
	pmclog_report__free(c->rep);
	pmclog_resolver__free(c->res);
	pmclog_replay__free(c->rp);
	pmclog_strings__free(c->st);
}

static char *output(const struct pmclog_callgraph *cg, bool tree)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	if (tree)
		pmclog_callgraph__print_tree(cg, f);
	else
		pmclog_callgraph__print_folded(cg, f);
	fclose(f);
	return text;
}

static const struct pmclog_report_opts dso_sym = {
	.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2,
};

/*
 * Folded: comm, then the frames outermost first, kernel ones "_[k]"; the
 * unmapped library's frames keep its names; the sample without a stack
 * is left out.
 */
static void test_folded(void **state)
{
	struct logbuf b = { 0 };
	struct cg_run c;
	char *text;
	(void)state;

	program_log(&b, 0);
	cg_run(&c, &b, &dso_sym);
	assert_int_equal(pmclog_callgraph__samples(c.cg), 39);
	text = output(c.cg, false);
	assert_string_equal(text,
		"prog;main;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k] 5\n"
		"prog;main;lib_fn 4\n"
		"prog;main;path_a;hot 20\n"
		"prog;main;path_b;hot 10\n");
	free(text);
	/* The flat profile still counts every sample. */
	assert_int_equal(pmclog_report__stats(c.rep)->samples, 40);
	cg_free(&c);
}

/* --sort pid: each process its own root, "comm-pid". */
static void test_folded_by_pid(void **state)
{
	static const struct pmclog_report_opts by_pid = {
		.keys = { PMCLOG_SORT_PID, PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 3,
	};
	struct logbuf b = { 0 };
	struct cg_run c;
	char *text;
	(void)state;

	program_log(&b, 1);
	cg_run(&c, &b, &by_pid);
	text = output(c.cg, false);
	/* pid 4 was never exec'd in the log: its name is not known. */
	assert_string_equal(text,
		"[unknown]-4;main;path_b;hot 5\n"
		"prog-3;main;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k] 5\n"
		"prog-3;main;lib_fn 4\n"
		"prog-3;main;path_a;hot 20\n"
		"prog-3;main;path_b;hot 5\n");
	free(text);
	cg_free(&c);
}

/*
 * pmcstat -G: each function with samples, most first, its callers
 * below, the percentage that of the line above; then the callees.
 */
static void test_tree(void **state)
{
	struct logbuf b = { 0 };
	struct cg_run c;
	char *text;
	(void)state;

	program_log(&b, 0);
	cg_run(&c, &b, &dso_sym);
	text = output(c.cg, true);
	assert_string_equal(text,
		"@ cpu-clock [39 samples]\n"
		"\n"
		"76.92%  [30]       hot @ prog\n"
		" 66.67%  [20]        path_a\n"
		"  100.0%  [20]         main\n"
		" 33.33%  [10]        path_b\n"
		"  100.0%  [10]         main\n"
		"\n"
		"12.82%  [5]        ksys_read @ [kernel]\n"
		" 100.0%  [5]         do_syscall_64\n"
		"  100.0%  [5]          entry_SYSCALL_64\n"
		"   100.0%  [5]           main @ prog\n"
		"\n"
		"10.26%  [4]        lib_fn @ libcg.so\n"
		" 100.0%  [4]         main @ prog\n"
		"\n"
		"@ cpu-clock [39 samples] callees\n"
		"\n"
		"100.0%  [39]       main @ prog\n"
		" 51.28%  [20]        path_a\n"
		"  100.0%  [20]         hot\n"
		" 25.64%  [10]        path_b\n"
		"  100.0%  [10]         hot\n"
		" 12.82%  [5]         entry_SYSCALL_64 @ [kernel]\n"
		"  100.0%  [5]          do_syscall_64\n"
		"   100.0%  [5]           ksys_read\n"
		" 10.26%  [4]         lib_fn @ libcg.so\n"
		"\n");
	free(text);
	cg_free(&c);
}

/* The report's --pid and --time filters hold for the stacks too. */
static void test_filters(void **state)
{
	static const __u32 pids[] = { 4 };
	struct pmclog_report_opts o = dso_sym;
	struct logbuf b = { 0 };
	struct cg_run c;
	char *text;
	(void)state;

	program_log(&b, 1);
	o.pids = pids;
	o.npids = 1;
	cg_run(&c, &b, &o);
	assert_int_equal(pmclog_callgraph__samples(c.cg), 5);
	text = output(c.cg, false);
	assert_string_equal(text, "[unknown];main;path_b;hot 5\n");
	free(text);
	cg_free(&c);
}

/*
 * --event keeps one PMC's profile, and its stacks alone: the callgraph
 * dropped none of the others' (fuzz_report: more samples with stacks
 * than the report counted).
 */
static void test_event_selected(void **state)
{
	static struct logbuf b;
	const __u64 ua[] = { nm_value("prog", "hot") + 4, nm_value("prog", "path_a") + 9,
			     nm_value("prog", "main") + 9 };
	struct pmclog_resolver_opts ro = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	struct cg_run c;
	__u64 all;
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b, 0);
	b.len -= sizeof(struct pmclog_closelog);	/* the second PMC before it */
	lb_pmcallocate(&b, 2, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		       100, "cpu-clock");
	for (int i = 0; i < 3; i++) {
		size_t off = lb_sample_stack(&b, 0, 3, ua[0], 1, NULL, 0, ua, 3);

		lb_header(&b, off)->pmcid = 2;
		lb_header(&b, off + lb_header(&b, off)->length)->pmcid = 2;
	}
	lb_closelog(&b, 43, 0, 0);
	cg_run(&c, &b, &dso_sym);
	all = pmclog_callgraph__samples(c.cg);
	cg_free(&c);

	r = reader_of(&b);
	c.st = pmclog_strings__new();
	c.rp = pmclog_replay__new(c.st);
	c.res = pmclog_resolver__new(c.st, &ro);
	c.rep = pmclog_report__new(c.st, c.rp, c.res, &dso_sym);
	c.cg = pmclog_callgraph__new(c.rep);
	assert_non_null(c.cg);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(c.rp, &rec), 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(c.rp, pmclog_callgraph__report_sample, c.cg), 0);
	assert_int_equal(pmclog_report__select(c.rep, "2"), 0);
	assert_int_equal(pmclog_report__finish(c.rep), 0);
	assert_int_equal(pmclog_callgraph__finish(c.cg), 0);
	assert_int_equal(pmclog_callgraph__samples(c.cg), 3);
	assert_true(all > 3);
	assert_int_equal(pmclog_report__stats(c.rep)->samples, 3);
	cg_free(&c);
}

/*
 * program_log() and a second PMC, "instructions", whose 6 samples are in
 * path_b <- main and in a kernel function named to break out of a
 * <script> ("</script><b>x"), and with a byte that is not UTF-8.
 */
static void two_event_log(struct logbuf *b)
{
	__u64 pb = nm_value("prog", "path_b"), mn = nm_value("prog", "main");
	const __u64 ub[] = { pb + 4, mn + 14 }, ur[] = { mn + 20 };
	const __u64 kx[] = { KBASE + 0x310, KBASE + 0x120 };

	program_log(b, 0);
	b->len -= sizeof(struct pmclog_closelog);	/* the second PMC before it */
	lb_pmcallocate(b, 2, PMCLOG_EV_INSTRUCTIONS, PMCLOG_PMC_F_CALLCHAIN, 100000,
		       "instructions");
	lb_ksymbol(b, KBASE + 0x300, 0x100, 0, "</script><b>x\xff");
	for (int i = 0; i < 6; i++) {
		size_t off = i < 4 ? lb_sample_stack(b, 0, 3, ub[0], 1, NULL, 0, ub, 2) :
				     lb_sample_stack(b, 1, 3, kx[0], 0, kx, 2, ur, 1);

		lb_header(b, off)->pmcid = 2;
		lb_header(b, off + lb_header(b, off)->length)->pmcid = 2;
	}
	lb_closelog(b, 46, 0, 0);
}

static char *flame_json(const struct pmclog_callgraph *cg)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	pmclog_callgraph__print_flame_json(cg, f);
	fclose(f);
	return text;
}

/*
 * pmclog flamegraph's data: per event, the folded tree (comm, outermost
 * to leaf, children in name order) with each frame's samples, its own,
 * its object and whether it is the kernel's; strings that cannot end
 * the <script> that holds them.
 */
static void test_flame_json(void **state)
{
	static struct logbuf b;
	struct cg_run c;
	char *text;
	(void)state;

	memset(&b, 0, sizeof(b));
	two_event_log(&b);
	cg_run(&c, &b, &dso_sym);
	assert_int_equal(pmclog_callgraph__samples(c.cg), 45);
	text = flame_json(c.cg);
	assert_string_equal(text,
		"{\"format\":\"pmclog-flamegraph\",\"version\":1,\"events\":[\n"
		"{\"pmcid\":1,\"label\":\"cpu-clock\",\"samples\":39,\"root\":{\"name\":\"all\","
		"\"object\":null,\"kind\":\"root\",\"value\":39,\"self\":0,\"children\":[\n"
		"{\"name\":\"prog\",\"object\":null,\"kind\":\"process\",\"value\":39,\"self\":0,\"children\":["
		"{\"name\":\"main\",\"object\":\"prog\",\"kind\":\"user\",\"value\":39,\"self\":0,\"children\":["
		"{\"name\":\"entry_SYSCALL_64\",\"object\":\"[kernel]\",\"kind\":\"kernel\",\"value\":5,\"self\":0,\"children\":["
		"{\"name\":\"do_syscall_64\",\"object\":\"[kernel]\",\"kind\":\"kernel\",\"value\":5,\"self\":0,\"children\":["
		"{\"name\":\"ksys_read\",\"object\":\"[kernel]\",\"kind\":\"kernel\",\"value\":5,\"self\":5,\"children\":[]}]}]},"
		"{\"name\":\"lib_fn\",\"object\":\"libcg.so\",\"kind\":\"user\",\"value\":4,\"self\":4,\"children\":[]},"
		"{\"name\":\"path_a\",\"object\":\"prog\",\"kind\":\"user\",\"value\":20,\"self\":0,\"children\":["
		"{\"name\":\"hot\",\"object\":\"prog\",\"kind\":\"user\",\"value\":20,\"self\":20,\"children\":[]}]},"
		"{\"name\":\"path_b\",\"object\":\"prog\",\"kind\":\"user\",\"value\":10,\"self\":0,\"children\":["
		"{\"name\":\"hot\",\"object\":\"prog\",\"kind\":\"user\",\"value\":10,\"self\":10,\"children\":[]}]}]}]}]}},\n"
		"{\"pmcid\":2,\"label\":\"instructions\",\"samples\":6,\"root\":{\"name\":\"all\","
		"\"object\":null,\"kind\":\"root\",\"value\":6,\"self\":0,\"children\":[\n"
		"{\"name\":\"prog\",\"object\":null,\"kind\":\"process\",\"value\":6,\"self\":0,\"children\":["
		"{\"name\":\"main\",\"object\":\"prog\",\"kind\":\"user\",\"value\":6,\"self\":0,\"children\":["
		"{\"name\":\"do_syscall_64\",\"object\":\"[kernel]\",\"kind\":\"kernel\",\"value\":2,\"self\":0,\"children\":["
		"{\"name\":\"\\u003c/script\\u003e\\u003cb\\u003ex\\\\xff\",\"object\":\"[kernel]\",\"kind\":\"kernel\",\"value\":2,\"self\":2,\"children\":[]}]},"
		"{\"name\":\"path_b\",\"object\":\"prog\",\"kind\":\"user\",\"value\":4,\"self\":4,\"children\":[]}]}]}]}}\n"
		"]}\n");
	assert_null(strstr(text, "</"));
	free(text);
	cg_free(&c);
}

/*
 * Several PMCs: each section of -G's tree is headed by its event's
 * label, as the text report's are, not by "pmc N".
 */
static void test_tree_events(void **state)
{
	static struct logbuf b;
	struct cg_run c;
	char *text;
	(void)state;

	memset(&b, 0, sizeof(b));
	two_event_log(&b);
	cg_run(&c, &b, &dso_sym);
	text = output(c.cg, true);
	assert_non_null(strstr(text, "@ cpu-clock [39 samples]\n"));
	assert_non_null(strstr(text, "@ cpu-clock [39 samples] callees\n"));
	assert_non_null(strstr(text, "@ instructions [6 samples]\n\n"
				     "66.67%  [4]        path_b @ prog\n"
				     " 100.0%  [4]         main\n"));
	assert_non_null(strstr(text, "@ instructions [6 samples] callees\n"));
	assert_null(strstr(text, "@ pmc"));
	free(text);
	cg_free(&c);
}

/*
 * Folded with two events: each line starts with its event's label, as
 * report --format folded's rows do (pmclog(1)); the stacks of the two
 * PMCs are never run together.
 */
static void test_folded_events(void **state)
{
	static struct logbuf b;
	struct cg_run c;
	char *text, *line;
	__u64 cpu = 0, ins = 0;
	(void)state;

	memset(&b, 0, sizeof(b));
	two_event_log(&b);
	cg_run(&c, &b, &dso_sym);
	text = output(c.cg, false);
	assert_non_null(strstr(text, "cpu-clock;prog;main;path_a;hot 20\n"));
	assert_non_null(strstr(text, "instructions;prog;main;path_b 4\n"));
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long n = strtoull(strrchr(line, ' ') + 1, NULL, 10);

		if (!strncmp(line, "cpu-clock;", 10))
			cpu += n;
		else if (!strncmp(line, "instructions;", 13))
			ins += n;
		else
			fail_msg("a folded line without its event: %s", line);
	}
	assert_int_equal(cpu, 39);
	assert_int_equal(ins, 6);
	free(text);
	cg_free(&c);
}

/*
 * report --format chrome-trace: two_event_log() with a module loaded
 * and unloaded mid-run, replayed with the timeline kept; python3's json
 * module parses the trace (strictly) and says what it holds.
 */
static void test_chrome_trace(void **state)
{
	static struct logbuf b;
	struct pmclog_resolver_opts ro = { 0 };
	struct pmclog_reader *r;
	struct pmclog_record rec;
	struct cg_run c;
	char *text = NULL, *py;
	size_t size = 0;
	FILE *f;
	(void)state;

	memset(&b, 0, sizeof(b));
	two_event_log(&b);
	b.len -= sizeof(struct pmclog_closelog);
	lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0000000ULL, 0xffffffffc0002000ULL, 0, 0,
		  "pmclog_testmod");
	lb_map_out(&b, PMCLOG_PID_KERNEL, 0xffffffffc0000000ULL, 0xffffffffc0002000ULL);
	lb_closelog(&b, 46, 0, 0);

	r = reader_of(&b);
	c.st = pmclog_strings__new();
	c.rp = pmclog_replay__new(c.st);
	c.res = pmclog_resolver__new(c.st, &ro);
	c.rep = pmclog_report__new(c.st, c.rp, c.res, &dso_sym);
	c.cg = pmclog_callgraph__new(c.rep);
	assert_non_null(c.cg);
	/* Not asked for: nothing to print. */
	f = open_memstream(&text, &size);
	assert_int_equal(pmclog_callgraph__print_chrome_trace(c.cg, f), -EINVAL);
	fclose(f);
	free(text);
	text = NULL;
	assert_int_equal(pmclog_callgraph__keep_timeline(c.cg), 0);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(c.rp, &rec), 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(c.rp, pmclog_callgraph__report_sample, c.cg), 0);
	assert_int_equal(pmclog_report__finish(c.rep), 0);
	assert_int_equal(pmclog_callgraph__finish(c.cg), 0);
	f = open_memstream(&text, &size);
	assert_non_null(f);
	assert_int_equal(pmclog_callgraph__print_chrome_trace(c.cg, f), 0);
	fclose(f);

	py = python_json(text,
		"ev = d['traceEvents']\n"
		"frames = d['stackFrames']\n"
		"def stack(sf):\n"
		"    out = []\n"
		"    while sf is not None:\n"
		"        out.append(frames[sf]['name']); sf = frames[sf].get('parent')\n"
		"    return ';'.join(reversed(out))\n"
		"for e in ev:\n"
		"    if e['ph'] == 'M':\n"
		"        print('M', e['name'], e['pid'], e['tid'], e['args']['name'])\n"
		"ts = [e['ts'] for e in ev if e['ph'] != 'M']\n"
		"print('ts sorted', ts == sorted(ts), 'from', min(ts) >= 0)\n"
		"for e in ev:\n"
		"    if e['ph'] == 'i' and e['cat'] != 'sample':\n"
		"        print(e['cat'], e['s'], e['pid'], e['name'], e['args']['path'].split('/')[-1],\n"
		"              e['args']['initial'])\n"
		"count = {}\n"
		"for e in ev:\n"
		"    if e['ph'] == 'i' and e['cat'] == 'sample':\n"
		"        assert e['s'] == 't' and e['pid'] == 3 and e['tid'] == 3\n"
		"        k = (e['args']['event'], stack(e['sf']) if 'sf' in e else '-', e['name'],\n"
		"             e['args']['object'], e['args']['kernel'])\n"
		"        count[k] = count.get(k, 0) + 1\n"
		"for k in sorted(count):\n"
		"    print(count[k], *k)\n"
		"print(any(raw(e['name']) == b'</script><b>x\\xff' for e in ev))\n");
	if (!py)
		fail_msg("python3 refused the trace:\n%s", text);
	assert_string_equal(py,
		"M process_name 0 0 swapper, kernel\n"
		"M thread_name 0 0 swapper\n"
		"M process_name 3 3 prog\n"
		"M thread_name 3 3 prog\n"
		"ts sorted True from True\n"
		"module g 0 module load [kernel] [kernel] False\n"
		"map p 3 MAP_IN prog prog False\n"
		"map p 3 MAP_IN libcg.so libcg.so False\n"
		"map p 3 MAP_OUT libcg.so libcg.so False\n"
		"module g 0 module load pmclog_testmod pmclog_testmod False\n"
		"module g 0 module unload pmclog_testmod pmclog_testmod False\n"
		"1 cpu-clock - hot prog False\n"
		"5 cpu-clock main;entry_SYSCALL_64;do_syscall_64;ksys_read ksys_read [kernel] True\n"
		"4 cpu-clock main;lib_fn lib_fn libcg.so False\n"
		"20 cpu-clock main;path_a;hot hot prog False\n"
		"10 cpu-clock main;path_b;hot hot prog False\n"
		"2 instructions main;do_syscall_64;</script><b>x\\xff </script><b>x\\xff [kernel] True\n"
		"4 instructions main;path_b path_b prog False\n"
		"True\n");
	free(py);
	free(text);
	cg_free(&c);
}

/* A log without stacks: nothing in the callgraph, nothing printed. */
static void test_no_stacks(void **state)
{
	struct logbuf b = { 0 };
	struct cg_run c;
	char *text;
	(void)state;

	lb_full_log(&b);
	cg_run(&c, &b, &dso_sym);
	assert_int_equal(pmclog_callgraph__samples(c.cg), 0);
	text = output(c.cg, false);
	assert_string_equal(text, "");
	free(text);
	text = output(c.cg, true);
	assert_string_equal(text, "");
	free(text);
	cg_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_replay_frames),
		cmocka_unit_test(test_replay_exact),
		cmocka_unit_test(test_replay_pairs_before_sort),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_by_pid),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_no_stacks),
		cmocka_unit_test(test_event_selected),
		cmocka_unit_test(test_flame_json),
		cmocka_unit_test(test_tree_events),
		cmocka_unit_test(test_folded_events),
		cmocka_unit_test(test_chrome_trace),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
