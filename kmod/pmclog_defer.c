// SPDX-License-Identifier: GPL-2.0
/*
 * Records that name a file, written where the path can be resolved.
 *
 * MAP_IN of a file mapping and PROCEXEC carry the file's path, and d_path()
 * may sleep on PREEMPT_RT: rename_lock, mount_lock and the seqcount of the
 * caller's fs root are sleeping locks there once a writer holds one.  The
 * hooks that see those changes run with preemption off (kprobes,
 * tracepoints), so they do not build the record: for each log that wants
 * it they take a reference on the file and queue what they saw, with its
 * time and CPU, on this CPU's ring of pending records; a work item resolves
 * the path, in process context, and writes the record.
 *
 * A record reaches the log later than the records around it, but with the
 * time and CPU of the change; readers order records by time (the samples
 * of the CPU rings arrive late too).  Paths are resolved from the root of
 * the initial mount namespace, as a kernel thread sees it.
 *
 * Each pending record names its owner.  An owner is unpublished
 * (pmclog_track_unpublish()) before its log is closed or freed, and that
 * flushes the rings: every record a hook queued while the log ran is in
 * the log before CLOSELOG, and no pending record outlives its owner.  A
 * record that finds its ring full is lost, and counted in the next
 * DROPNOTIFY of its log.
 *
 * The work runs in batches: PMCLOG_DEFER_DELAY_MS after the first record
 * that finds it idle, or at once when a ring is a quarter full.  Queued
 * at each record, it woke a kworker for each mmap, and that wake-up and
 * switch cost the mapping task more than perf's whole mmap event.  A
 * record waits at most that delay longer; readers sort in a window of a
 * second (pmclog_replay.h), and a flush runs the work at once.
 */
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "pmclog_kern.h"

/*
 * Pending records per CPU; a power of two.  Each log that follows a task
 * takes a slot per change: 94-multiopen (five logs, an mmap storm from
 * four threads and a fork storm, on two vCPUs of a busy host) lost some
 * 25 records per log with 256 slots, none with 1024 (64 KiB a CPU).
 */
#define PMCLOG_DEFER_SLOTS	1024U

/* How long the first record of a batch waits for others. */
#define PMCLOG_DEFER_DELAY_MS	10

struct pmclog_defer_ring {
	raw_spinlock_t		lock;
	unsigned int		head;	/* under lock */
	unsigned int		tail;	/* under lock */
	struct pmclog_deferred	slot[PMCLOG_DEFER_SLOTS];
};

static struct pmclog_defer_ring **pmclog_defer_rings;	/* [nr_cpu_ids] */
static struct workqueue_struct *pmclog_defer_wq;
static struct delayed_work pmclog_defer_work;
/* The work item's; a work item never runs twice at once. */
static void *pmclog_defer_buf;

/*
 * Queue @d for @o's log.  Hooks: preemption off, RCU read side, @o
 * published.  Takes its own reference on d->file.
 */
void pmclog_defer_queue(struct pmclog_owner *o, const struct pmclog_deferred *d)
{
	struct pmclog_defer_ring *ring;
	struct pmclog_deferred *s;
	unsigned long flags;
	unsigned int fill = 0;	/* 0: the ring was full */

	ring = pmclog_defer_rings[raw_smp_processor_id()];
	raw_spin_lock_irqsave(&ring->lock, flags);
	if (ring->head - ring->tail < PMCLOG_DEFER_SLOTS) {
		s = &ring->slot[ring->head++ % PMCLOG_DEFER_SLOTS];
		*s = *d;
		s->owner = o;
		get_file(s->file);
		fill = ring->head - ring->tail;
	}
	raw_spin_unlock_irqrestore(&ring->lock, flags);
	if (!fill)
		pmclog_log_add_record_drops(&o->log, d->cpu, 1);
	else if (fill == PMCLOG_DEFER_SLOTS / 4)
		/* A storm: run now, whatever the timer says. */
		mod_delayed_work(pmclog_defer_wq, &pmclog_defer_work, 0);
	else
		/* Nothing if it is queued already: the batch's timer stands. */
		queue_delayed_work(pmclog_defer_wq, &pmclog_defer_work,
				   msecs_to_jiffies(PMCLOG_DEFER_DELAY_MS));
}

/* How many records @ring holds now. */
static unsigned int pmclog_defer_fill(struct pmclog_defer_ring *ring)
{
	unsigned long flags;
	unsigned int n;

	raw_spin_lock_irqsave(&ring->lock, flags);
	n = ring->head - ring->tail;
	raw_spin_unlock_irqrestore(&ring->lock, flags);
	return n;
}

static bool pmclog_defer_pop(struct pmclog_defer_ring *ring,
			     struct pmclog_deferred *d)
{
	unsigned long flags;
	bool found = false;

	raw_spin_lock_irqsave(&ring->lock, flags);
	if (ring->tail != ring->head) {
		*d = ring->slot[ring->tail++ % PMCLOG_DEFER_SLOTS];
		found = true;
	}
	raw_spin_unlock_irqrestore(&ring->lock, flags);
	return found;
}

/* @d's file's path, built at the end of @buf after @fixed bytes. */
static const char *pmclog_defer_path(const struct pmclog_deferred *d,
				     void *buf, size_t fixed)
{
	const char *path = d_path(&d->file->f_path, (char *)buf + fixed,
				  PMCLOG_SCRATCH_SIZE - fixed);

	return IS_ERR(path) ? "[unreachable]" : path;
}

/* Build @d's record in @buf (PMCLOG_SCRATCH_SIZE bytes) and write it. */
static void pmclog_defer_write(const struct pmclog_deferred *d, void *buf)
{
	switch (d->type) {
	case PMCLOG_TYPE_MAP_IN:
		pmclog_rec_map_in(buf, d->pid, d->flags, d->start, d->end,
				  d->offset,
				  pmclog_defer_path(d, buf,
						    sizeof(struct pmclog_map_in)),
				  d->cpu, d->tstamp);
		pmclog_log_write(&d->owner->log, buf);
		pmclog_buildid_log_file(&d->owner->log, d->file, buf, d->pid,
					d->start, d->cpu, d->tstamp);
		return;
	case PMCLOG_TYPE_PROCEXEC:
		pmclog_rec_procexec(buf, d->pid,
				    pmclog_defer_path(d, buf,
						      sizeof(struct pmclog_procexec)),
				    d->cpu, d->tstamp);
		break;
	default:
		WARN_ON_ONCE(1);
		return;
	}
	pmclog_log_write(&d->owner->log, buf);
}

/*
 * A run writes, of each CPU's ring, what it held when the run came to it,
 * and runs again at once if more came meanwhile.  Emptying a ring while
 * its CPU fills it (a JIT, a loader-heavy service, times the logs that
 * follow it) kept the run there as long as the storm lasted: the other
 * CPUs' rings filled and lost records, and STOP and close waited in
 * pmclog_defer_flush().  flush_delayed_work() waits for the run under way
 * and for one run queued again, no more.
 */
static void pmclog_defer_run(struct work_struct *w)
{
	struct pmclog_deferred d;
	bool more = false;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pmclog_defer_ring *ring = pmclog_defer_rings[cpu];
		unsigned int n = pmclog_defer_fill(ring);

		while (n-- && pmclog_defer_pop(ring, &d)) {
			pmclog_defer_write(&d, pmclog_defer_buf);
			fput(d.file);
			cond_resched();
		}
		more |= pmclog_defer_fill(ring) != 0;
	}
	if (more)
		mod_delayed_work(pmclog_defer_wq, &pmclog_defer_work, 0);
}

/*
 * Write every record queued so far.  Process context, may sleep; what a
 * hook queued before this call is in its log when it returns.
 */
void pmclog_defer_flush(void)
{
	/*
	 * Run now, or queued anew if it is running: either way a run that
	 * starts after our call, and flush_delayed_work() waits for it.
	 */
	mod_delayed_work(pmclog_defer_wq, &pmclog_defer_work, 0);
	flush_delayed_work(&pmclog_defer_work);
}

int pmclog_defer_init(void)
{
	unsigned int cpu;

	pmclog_defer_rings = kcalloc(nr_cpu_ids, sizeof(*pmclog_defer_rings),
				     GFP_KERNEL);
	pmclog_defer_buf = kmalloc(PMCLOG_SCRATCH_SIZE, GFP_KERNEL);
	if (!pmclog_defer_rings || !pmclog_defer_buf)
		goto err;
	for_each_possible_cpu(cpu) {
		struct pmclog_defer_ring *ring;

		ring = kvzalloc_node(sizeof(*ring), GFP_KERNEL,
				     cpu_to_node(cpu));
		if (!ring)
			goto err;
		raw_spin_lock_init(&ring->lock);
		pmclog_defer_rings[cpu] = ring;
	}
	/* High priority: a storm of mmaps must not outrun the rings. */
	pmclog_defer_wq = alloc_workqueue("pmclog", WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!pmclog_defer_wq)
		goto err;
	INIT_DELAYED_WORK(&pmclog_defer_work, pmclog_defer_run);
	return 0;

err:
	pmclog_defer_exit();
	return -ENOMEM;
}

/* Module exit, or init failure: no hook runs, every owner is gone. */
void pmclog_defer_exit(void)
{
	unsigned int cpu;

	if (pmclog_defer_wq) {
		pmclog_defer_flush();
		destroy_workqueue(pmclog_defer_wq);
		pmclog_defer_wq = NULL;
	}
	if (pmclog_defer_rings) {
		for_each_possible_cpu(cpu)
			kvfree(pmclog_defer_rings[cpu]);
		kfree(pmclog_defer_rings);
		pmclog_defer_rings = NULL;
	}
	kfree(pmclog_defer_buf);
	pmclog_defer_buf = NULL;
}
