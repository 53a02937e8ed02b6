// SPDX-License-Identifier: GPL-2.0
/*
 * Owners: one per open of /dev/pmclog.  The state machine behind the
 * ioctls (allocate PMCs, attach, start, stop), and when its records are
 * written (pmclog_record.c builds them):
 *
 *   open      INITIALIZE
 *   ALLOCATE  PMCALLOCATE, with the caller's name of the event (and, for
 *             -g, room for the stacks: pmclog_callchain_reserve())
 *   STOP      CLOSELOG (pmclog_log_close(); or as read(2) makes room
 *             for it, if the log is full)
 *
 *   NEW --ALLOCATE*--> NEW --ATTACH--> ATTACHED --START--> RUNNING
 *   any --STOP--> STOPPED (no record but the log's end; it only drains)
 *
 * Every function here runs in process context; those named *_locked need
 * the owner's mutex.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

static void pmclog_owner_write_initialize(struct pmclog_owner *o)
{
	struct pmclog_initialize r;

	pmclog_rec_initialize(&r, raw_smp_processor_id(), pmclog_clock());
	pmclog_log_write(&o->log, &r);
}

struct pmclog_owner *pmclog_owner_create(struct file *file)
{
	struct pmclog_owner *o;
	int ret;

	o = kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT);
	if (!o)
		return ERR_PTR(-ENOMEM);
	mutex_init(&o->lock);
	o->state = PMCLOG_STATE_NEW;
	/* As /proc/kallsyms decides for its reader (kallsyms_show_value()). */
	o->kernel_addrs = pmclog_compat_kernel_addrs_visible(file);
	ret = pmclog_log_init(&o->log, (size_t)pmclog_logbuffersize * 1024);
	if (ret)
		goto err_free;
	ret = pmclog_owner_alloc_cpus(o);
	if (ret)
		goto err_log;
	pmclog_owner_write_initialize(o);
	return o;

err_log:
	pmclog_log_destroy(&o->log);
err_free:
	kfree(o);
	return ERR_PTR(ret);
}

static void pmclog_owner_stop_sources(struct pmclog_owner *o)
{
	unsigned int i;

	for (i = 0; i < o->npmcs; i++)
		o->pmcs[i].ops->stop(&o->pmcs[i]);
}

/* release(): stop everything and free it; nobody reads the log any more. */
void pmclog_owner_destroy(struct pmclog_owner *o)
{
	unsigned int i;

	if (o->state == PMCLOG_STATE_RUNNING) {
		pmclog_owner_stop_sources(o);
		pmclog_track_unpublish(o);
	}
	pmclog_owner_free_cpus(o);
	for (i = 0; i < o->npmcs; i++)
		o->pmcs[i].ops->free(&o->pmcs[i]);
	pmclog_track_free_kids(o);
	put_pid(o->target);
	pmclog_log_destroy(&o->log);
	kfree(o);
}

static const struct pmclog_source_ops *pmclog_source_for(u32 event)
{
	switch (event) {
	case PMCLOG_EV_CPU_CLOCK:
		return &pmclog_hrtimer_ops;
	default:
		/* It fails with ENODEV where there is no PMU, and says why. */
		return &pmclog_x86_pmu_ops;
	}
}

static void pmclog_owner_write_pmcallocate(struct pmclog_owner *o,
					   const struct pmclog_pmc *pmc)
{
	struct pmclog_pmcallocate r;

	pmclog_rec_pmcallocate(&r, pmc, raw_smp_processor_id(), pmclog_clock());
	pmclog_log_write(&o->log, &r);
}

/*
 * The caller's name of the event (ABI 1.3): NUL-terminated, printable
 * ASCII without spaces, so that a dump prints it as one word.
 */
static bool pmclog_owner_name_ok(const char *name, size_t size)
{
	size_t n = strnlen(name, size), i;

	if (n == size)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f)
			return false;
	return true;
}

int pmclog_owner_allocate_locked(struct pmclog_owner *o,
				 struct pmclog_alloc *req)
{
	const struct pmclog_source_ops *ops;
	struct pmclog_pmc *pmc;
	int ret;

	lockdep_assert_held(&o->lock);
	if (req->__reserved || req->__reserved1 ||
	    req->flags & ~PMCLOG_PMC_F_ALL ||
	    (req->callchain_depth && !(req->flags & PMCLOG_PMC_F_CALLCHAIN)) ||
	    !req->event || req->event > PMCLOG_EV_MAX_KNOWN ||
	    (req->event != PMCLOG_EV_RAW && req->config) ||
	    !pmclog_owner_name_ok(req->name, sizeof(req->name)))
		return -EINVAL;
	if (!req->period)
		return -EINVAL;
	/* As perf refuses a sample_freq above perf_event_max_sample_rate. */
	if (req->flags & PMCLOG_PMC_F_FREQ && req->period > pmclog_max_sample_rate)
		return -ERANGE;
	/* As perf refuses a sample_max_stack above perf_event_max_stack. */
	if (req->callchain_depth > pmclog_callchain_max_depth)
		return -EOVERFLOW;
	if (o->state != PMCLOG_STATE_NEW)
		return -EBUSY;
	if (o->npmcs == PMCLOG_MAX_PMCS)
		return -ENOSPC;
	/*
	 * Each cpu-clock PMC has its own timers (and hotplug instance): two
	 * at different periods sample different instants, each with its id.
	 */
	ops = pmclog_source_for(req->event);
	if (!ops)
		return -ENODEV;	/* a hardware event, and no PMU source */

	if (!(req->flags & (PMCLOG_PMC_F_USER | PMCLOG_PMC_F_KERNEL)))
		req->flags |= PMCLOG_PMC_F_USER | PMCLOG_PMC_F_KERNEL;
	pmc = &o->pmcs[o->npmcs];
	*pmc = (struct pmclog_pmc) {
		.owner	= o,
		.ops	= ops,
		.id	= o->npmcs + 1,
		.event	= req->event,
		.flags	= req->flags,
		.config	= req->config,
		.period	= req->period,
	};
	/* Empty from an older caller: PMCALLOCATE then spells it itself. */
	strscpy(pmc->name, req->name, sizeof(pmc->name));
	if (req->flags & PMCLOG_PMC_F_CALLCHAIN) {
		if (!req->callchain_depth)
			req->callchain_depth = pmclog_callchain_max_depth;
		pmc->cc_depth = req->callchain_depth;
		ret = pmclog_callchain_reserve(o, pmc->cc_depth);
		if (ret)
			return ret;
	}
	ret = ops->alloc(pmc);
	if (ret)
		return ret;
	o->npmcs++;
	req->pmcid = pmc->id;
	pmclog_owner_write_pmcallocate(o, pmc);
	return 0;
}

int pmclog_owner_attach_locked(struct pmclog_owner *o,
			       const struct pmclog_attach *req)
{
	struct pid *pid;

	lockdep_assert_held(&o->lock);
	if (req->__reserved || req->flags & ~PMCLOG_ATTACH_F_CHILDREN)
		return -EINVAL;
	if (o->state != PMCLOG_STATE_NEW)
		return -EBUSY;

	switch (req->mode) {
	case PMCLOG_ATTACH_SYSTEM:
		if (req->pid || req->flags)
			return -EINVAL;
		break;
	case PMCLOG_ATTACH_PROCESS:
		if (!req->pid || req->pid > PID_MAX_LIMIT)
			return -EINVAL;
		pid = find_get_pid(req->pid);	/* in the caller's namespace */
		if (!pid)
			return -ESRCH;
		if (!pid_has_task(pid, PIDTYPE_TGID)) {
			put_pid(pid);
			return -ESRCH;
		}
		if (req->flags & PMCLOG_ATTACH_F_CHILDREN &&
		    pmclog_track_alloc_kids(o)) {
			put_pid(pid);
			return -ENOMEM;
		}
		o->target = pid;
		break;
	default:
		return -EINVAL;
	}
	o->mode = req->mode;
	o->state = PMCLOG_STATE_ATTACHED;
	return 0;
}

/*
 * Publish the log to the tracking hooks, log what is already mapped (with
 * the time taken before publishing, so that it precedes every sample and
 * every change the hooks log), then start sampling.
 */
int pmclog_owner_start_locked(struct pmclog_owner *o)
{
	unsigned int i;
	u64 t0;
	int ret;

	lockdep_assert_held(&o->lock);
	if (o->state != PMCLOG_STATE_ATTACHED || !o->npmcs)
		return -EINVAL;
	t0 = pmclog_clock();
	o->hooks_missed = pmclog_hooks_missed();
	pmclog_track_publish(o);
	ret = pmclog_kobj_log_initial(o, t0);
	if (!ret)
		ret = pmclog_vma_log_initial(o, t0);
	if (ret)
		goto err_unpublish;
	for (i = 0; i < o->npmcs; i++) {
		ret = o->pmcs[i].ops->start(&o->pmcs[i]);
		if (ret)
			goto err_stop;
	}
	o->state = PMCLOG_STATE_RUNNING;
	return 0;

err_stop:
	while (i--)
		o->pmcs[i].ops->stop(&o->pmcs[i]);
err_unpublish:
	pmclog_track_unpublish(o);
	return ret;
}

/* Stop sampling, drain the rings, end the log with CLOSELOG.  Idempotent. */
int pmclog_owner_stop_locked(struct pmclog_owner *o)
{
	u64 samples, dropped;

	lockdep_assert_held(&o->lock);
	if (o->state == PMCLOG_STATE_STOPPED)
		return 0;
	if (o->state == PMCLOG_STATE_RUNNING) {
		unsigned long missed;

		pmclog_owner_stop_sources(o);
		pmclog_track_unpublish(o);
		/*
		 * Hook calls that the kprobes missed while the log ran (no
		 * free kretprobe instance, a nested kprobe) may each have
		 * been a record of this log: count them all as its losses.
		 */
		missed = pmclog_hooks_missed() - o->hooks_missed;
		if (missed)
			pmclog_log_add_record_drops(&o->log,
						    raw_smp_processor_id(),
						    missed);
	}
	pmclog_sample_flush_all(o, &samples, &dropped);
	pmclog_log_close(&o->log, samples, dropped);
	o->state = PMCLOG_STATE_STOPPED;
	return 0;
}
