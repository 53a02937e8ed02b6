// SPDX-License-Identifier: GPL-2.0
/*
 * sample_path [SAMPLES [HZ]]: the module's sample path, compiled for
 * userland against tests/kshim (one CPU, no interrupts), driven as
 * the cpu-clock source drives it at HZ (20000) on one CPU with HZ=250:
 * pmclog_sample_take() for each sample, the watermark's drain right after
 * the sample that raised it (its self-IPI), the tick's drain every 4 ms of
 * samples, and a reader that keeps up.  The code of kmod/pmclog_sample.c,
 * pmclog_record.c and pmclog_log.c is the module's, with its default
 * parameters; run under callgrind (tests/bench/run.sh), the instructions
 * of pmclog_sample_take and of the drains over SAMPLES are the per-sample
 * cost of the path, without the kernel around it (the interrupt, the
 * target filter: pmclog_track_targets() is the stand-in below).
 */
#include <stdio.h>
#include <stdlib.h>

#include "pmclog_kern.h"

/*
 * pmclog_callchain.c needs the kernel's unwinder, and has no part in a
 * path without -g (the PMC here has no PMCLOG_PMC_F_CALLCHAIN): take is
 * never called for such a PMC, nor record where the CPU keeps no stacks.
 * The parameters' defaults, the target filter (system-wide) and freeing
 * the stacks are tests/kshim/kshim_sample.c's.
 */
void pmclog_callchain_take(struct pmclog_cpu *pc, unsigned long slot,
			   const struct pmclog_pmc *pmc, struct pt_regs *regs)
{
	(void)pc;
	(void)slot;
	(void)pmc;
	(void)regs;
	fprintf(stderr, "sample_path: a stack taken for a PMC without -g\n");
	abort();
}

const struct pmclog_callchain *
pmclog_callchain_record(struct pmclog_cpu *pc, unsigned long slot,
			const struct pmclog_sample *s)
{
	(void)pc;
	(void)slot;
	(void)s;
	fprintf(stderr, "sample_path: a stack recorded for a PMC without -g\n");
	abort();
}

static void run_if_pending(struct irq_work *w)
{
	if (w->pending) {
		w->pending = 0;
		w->func(w);
	}
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	unsigned long hz = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	unsigned long per_tick = hz / HZ ? hz / HZ : 1;
	struct pmclog_owner *o = kzalloc(sizeof(*o), GFP_KERNEL);
	struct pt_regs regs = { .ip = 0x401000, .user = 1 };
	struct pmclog_pmc pmc = { .owner = o, .id = 1 };
	u64 samples, dropped;
	struct pmclog_cpu *pc;

	if (!o || pmclog_log_init(&o->log, (size_t)pmclog_logbuffersize * 1024) ||
	    pmclog_owner_alloc_cpus(o)) {
		fprintf(stderr, "sample_path: out of memory\n");
		return 1;
	}
	pc = o->cpus[0];
	for (unsigned long i = 0; i < n; i++) {
		regs.ip = 0x401000 + (i * 64) % 65536;
		pmclog_sample_take(&pmc, &regs);
		run_if_pending(&pc->drain_now);
		if ((i + 1) % per_tick == 0)
			run_if_pending(&pc->drain_work);
		o->log.tail = o->log.head;	/* the reader keeps up */
	}
	pmclog_sample_flush_all(o, &samples, &dropped);
	printf("sample_path: %lu samples at %lu Hz: %llu taken, %llu dropped, %llu bytes logged\n",
	       n, hz, (unsigned long long)samples, (unsigned long long)dropped,
	       (unsigned long long)o->log.head);
	pmclog_owner_free_cpus(o);
	pmclog_log_destroy(&o->log);
	kfree(o);
	return dropped != 0;
}
