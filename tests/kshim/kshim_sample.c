// SPDX-License-Identifier: GPL-2.0
/*
 * What a userland build of kmod/pmclog_sample.c needs besides kshim.c:
 * pmclog_main.c's parameters at their defaults, the target filter of a
 * system-wide log (every task is a target), and the freeing of the
 * stacks' buffer.  Taking and recording stacks are the harness's own
 * (pmclog_callchain.c needs the kernel's unwinder).  Linked with
 * tests/bench/sample_path.c and tests/unit/test_kmod_drain.c.
 */
#include "pmclog_kern.h"

unsigned int pmclog_nsamples = 512;
unsigned int pmclog_drain_watermark = 25;
unsigned int pmclog_logbuffersize = 1024;
unsigned int pmclog_maxlogs = 16;
unsigned int pmclog_max_sample_rate = 100000;
unsigned int pmclog_cpu_time_max_percent = 25;

bool pmclog_track_targets(const struct pmclog_owner *o, struct task_struct *t)
{
	(void)o;
	(void)t;
	return true;
}

void pmclog_callchain_free(struct pmclog_cpu *pc)
{
	kvfree(pc->cc);
	pc->cc = NULL;
}
