// SPDX-License-Identifier: GPL-2.0
/*
 * The owner's log: a byte ring of whole records between the writers in the
 * kernel and the one reader, read(2).
 *
 * Transport only: every record goes in through pmclog_log_write*()
 * (hwpmc's reserve/emit/despatch, folded into one copy: records are small
 * and are built by the caller, with pmclog_record.c), and out through
 * read(2).  A record that does not fit is dropped and counted; the count
 * goes out in a DROPNOTIFY ahead of the next record that fits, so losses
 * are never silent, and the log ends with CLOSELOG's totals: those two
 * records carry the log's own counts, so it is here that they are written.
 * Writers never wait for the reader; CLOSELOG does: when STOP finds the
 * log too full for it, it goes in as read(2)s make room, so that every
 * log a reader drains to its end ends with CLOSELOG.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

/* How long a record may wait for a reader asleep below the watermark. */
#define PMCLOG_WAKE_DELAY	(HZ / 10)

/*
 * Writers run in kprobe and tracepoint handlers, with preemption off, where
 * PREEMPT_RT forbids the wait queue's lock (a sleeping spinlock there).  They
 * wake the reader through an irq_work or through the timer (whose base lock
 * is raw), never with wake_up() itself.  On PREEMPT_RT through the timer
 * only: RT runs such an irq_work in the CPU's irq_work thread, which a CPU
 * going offline parks with the work still queued, so that no later queue
 * of it succeeds and the reader sleeps on; a timer moves to a CPU that
 * stays (timers_dead_cpu()).  RT's irq_work waits for the tick anyway.
 */
static void pmclog_log_wake_now(struct irq_work *w)
{
	struct pmclog_log *log = container_of(w, struct pmclog_log, wake_work);

	wake_up_interruptible_poll(&log->wait, EPOLLIN | EPOLLRDNORM);
}

static void pmclog_log_wake_timer(struct timer_list *t)
{
	struct pmclog_log *log = pmclog_from_timer(log, t, wake_timer);

	wake_up_interruptible_poll(&log->wait, EPOLLIN | EPOLLRDNORM);
}

int pmclog_log_init(struct pmclog_log *log, size_t size)
{
	log->size = roundup_pow_of_two(size);
	/* Charged to the opener's memory cgroup, as perf's buffers are. */
	log->buf = __vmalloc(log->size, PMCLOG_GFP_OPEN);
	log->pend_samples = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL_ACCOUNT);
	log->pend_records = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!log->buf || !log->pend_samples || !log->pend_records ||
	    !zalloc_cpumask_var(&log->pend_cpus, GFP_KERNEL_ACCOUNT)) {
		vfree(log->buf);
		kfree(log->pend_samples);
		kfree(log->pend_records);
		return -ENOMEM;
	}
	raw_spin_lock_init(&log->lock);
	mutex_init(&log->read_mutex);
	init_waitqueue_head(&log->wait);
	timer_setup(&log->wake_timer, pmclog_log_wake_timer, 0);
	init_irq_work(&log->wake_work, pmclog_log_wake_now);
	return 0;
}

/* Process context; no writer may run any more. */
void pmclog_log_destroy(struct pmclog_log *log)
{
	pmclog_timer_shutdown_sync(&log->wake_timer);
	irq_work_sync(&log->wake_work);
	pmclog_irq_work_quiesce();
	free_cpumask_var(log->pend_cpus);
	kfree(log->pend_records);
	kfree(log->pend_samples);
	vfree(log->buf);
}

static u64 pmclog_log_free(const struct pmclog_log *log)
{
	/* Pairs with the release in pmclog_log_read(): the reader is done. */
	return log->size - (log->head - smp_load_acquire(&log->tail));
}

/* Copy @len bytes at the head, wrapping; the caller checked the room. */
static void pmclog_log_put(struct pmclog_log *log, const void *rec, size_t len)
{
	u64 off = log->head & (log->size - 1);
	size_t first = min_t(u64, len, log->size - off);

	memcpy(log->buf + off, rec, first);
	memcpy(log->buf, (const char *)rec + first, len - first);
	/* The reader sees the bytes before it sees the head move. */
	smp_store_release(&log->head, log->head + len);
}

/* Tell the losses of every CPU that has some, while there is room. */
static void pmclog_log_put_drops(struct pmclog_log *log)
{
	struct pmclog_dropnotify d;
	unsigned int cpu;

	for_each_cpu(cpu, log->pend_cpus) {
		if (pmclog_log_free(log) < sizeof(d))
			return;
		pmclog_rec_dropnotify(&d, log->pend_samples[cpu],
				      log->pend_records[cpu], cpu,
				      pmclog_clock());
		pmclog_log_put(log, &d, sizeof(d));
		log->pend_samples[cpu] = 0;
		log->pend_records[cpu] = 0;
		cpumask_clear_cpu(cpu, log->pend_cpus);
	}
}

/*
 * Wake the reader when a quarter of the log is waiting, and at the latest
 * PMCLOG_WAKE_DELAY after the first record it has not seen, so that a
 * sampling profile is not perturbed by a wake-up per tick.
 */
static void pmclog_log_wake(struct pmclog_log *log)
{
	if (!wq_has_sleeper(&log->wait))
		return;
	if (log->head - READ_ONCE(log->tail) < log->size / 4) {
		if (!timer_pending(&log->wake_timer))
			mod_timer(&log->wake_timer, jiffies + PMCLOG_WAKE_DELAY);
	} else if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		timer_reduce(&log->wake_timer, jiffies);
	} else {
		irq_work_queue(&log->wake_work);
	}
}

/*
 * Append the @n records of @recs, each starting with a filled struct
 * pmclog_header, together, or drop them all (@n records counted).  Any
 * context but NMI, log->lock held.  Returns 0, -EPIPE from STOP on, or
 * -ENOSPC when they were dropped.
 */
static int pmclog_log_write_recs_locked(struct pmclog_log *log,
					const void *const *recs,
					unsigned int n)
{
	unsigned int cpu = raw_smp_processor_id(), i;
	u64 len = 0;

	lockdep_assert_held(&log->lock);
	if (log->closing)
		return -EPIPE;
	if (!cpumask_empty(log->pend_cpus))
		pmclog_log_put_drops(log);
	for (i = 0; i < n; i++)
		len += ((const struct pmclog_header *)recs[i])->length;
	if (!cpumask_empty(log->pend_cpus) || pmclog_log_free(log) < len) {
		log->pend_records[cpu] += n;
		log->records_dropped += n;
		cpumask_set_cpu(cpu, log->pend_cpus);
		return -ENOSPC;
	}
	for (i = 0; i < n; i++)
		pmclog_log_put(log, recs[i],
			       ((const struct pmclog_header *)recs[i])->length);
	return 0;
}

/* Append one record.  As pmclog_log_write_recs_locked(). */
int pmclog_log_write_locked(struct pmclog_log *log, const void *rec)
{
	return pmclog_log_write_recs_locked(log, &rec, 1);
}

/*
 * Append @rec and @rec2 together, or drop both: a PCSAMPLE and its
 * CALLCHAIN, which a reader pairs by their adjacency.
 */
int pmclog_log_write_pair_locked(struct pmclog_log *log, const void *rec,
				 const void *rec2)
{
	const void *recs[] = { rec, rec2 };

	return pmclog_log_write_recs_locked(log, recs, ARRAY_SIZE(recs));
}

/*
 * Append the records in the @len bytes at @recs, whole and one after the
 * other, with one copy, when the log takes them all as they are: not
 * closing, no losses to tell first, room for all.  Else -ENOSPC, nothing
 * written nor counted: the caller writes them one by one, which says what
 * pmclog_log_write_locked() says of each.  The drain's PCSAMPLEs, so
 * that most of them cost a store into a local run, not a write each.
 * Lock held.
 */
int pmclog_log_write_run_locked(struct pmclog_log *log, const void *recs,
				size_t len)
{
	lockdep_assert_held(&log->lock);
	if (log->closing || !cpumask_empty(log->pend_cpus) ||
	    pmclog_log_free(log) < len)
		return -ENOSPC;
	pmclog_log_put(log, recs, len);
	return 0;
}

/* As pmclog_log_write_locked(), taking the lock; then wakes the reader. */
int pmclog_log_write(struct pmclog_log *log, const void *rec)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&log->lock, flags);
	ret = pmclog_log_write_locked(log, rec);
	raw_spin_unlock_irqrestore(&log->lock, flags);
	if (!ret)
		pmclog_log_wake(log);
	return ret;
}

/*
 * A record for @log that was lost before it reached pmclog_log_write()
 * (its producer had no room); told in the next DROPNOTIFY, as the log's
 * own drops are.  Any context but NMI.  Not counted from STOP on, so that
 * CLOSELOG's totals, taken at STOP, are the DROPNOTIFYs' sums (every
 * producer has stopped by then: there should be none).
 */
void pmclog_log_add_record_drops(struct pmclog_log *log, unsigned int cpu,
				 u64 n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&log->lock, flags);
	if (!log->closing) {
		log->pend_records[cpu] += n;
		log->records_dropped += n;
		cpumask_set_cpu(cpu, log->pend_cpus);
	}
	raw_spin_unlock_irqrestore(&log->lock, flags);
}

/*
 * Samples that @cpu's ring lost; told in the next DROPNOTIFY.  Lock held.
 * Not counted from STOP on, as in pmclog_log_add_record_drops().
 */
void pmclog_log_add_sample_drops(struct pmclog_log *log, unsigned int cpu,
				 u64 n)
{
	lockdep_assert_held(&log->lock);
	if (log->closing)
		return;
	log->pend_samples[cpu] += n;
	cpumask_set_cpu(cpu, log->pend_cpus);
}

/* After a batch of pmclog_log_write_locked(), lock released. */
void pmclog_log_kick(struct pmclog_log *log)
{
	pmclog_log_wake(log);
}

/*
 * Put the pending DROPNOTIFYs and CLOSELOG, and end the log, if they fit;
 * else what fits, the rest at a later call.  After STOP: no writer puts
 * anything before them any more.  Lock held.
 */
static void pmclog_log_end_locked(struct pmclog_log *log)
{
	struct pmclog_closelog c;

	lockdep_assert_held(&log->lock);
	if (log->closed)
		return;
	pmclog_log_put_drops(log);
	if (!cpumask_empty(log->pend_cpus) || pmclog_log_free(log) < sizeof(c))
		return;
	pmclog_rec_closelog(&c, log->close_samples, log->close_samples_dropped,
			    log->records_dropped, raw_smp_processor_id(),
			    pmclog_clock());
	pmclog_log_put(log, &c, sizeof(c));
	/* Readers that see closed see CLOSELOG's head too. */
	smp_store_release(&log->closed, true);
}

/*
 * STOP: refuse writers from now on and end the log with the pending
 * DROPNOTIFYs and CLOSELOG; read(2) returns 0 once the reader has them.
 * Process context; every producer has stopped and the sample rings are
 * drained.  If the reader is so far behind that they find no room, its
 * read(2)s put them as they make room (pmclog_log_read()).
 */
void pmclog_log_close(struct pmclog_log *log, u64 samples, u64 samples_dropped)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&log->lock, flags);
	if (!log->closing) {
		log->close_samples = samples;
		log->close_samples_dropped = samples_dropped;
		WRITE_ONCE(log->closing, true);
		/*
		 * Pairs with the barrier in pmclog_log_read(): either we see
		 * the room that a read made, or that read sees closing.
		 */
		smp_mb();
		pmclog_log_end_locked(log);
	}
	raw_spin_unlock_irqrestore(&log->lock, flags);
	wake_up_interruptible_poll(&log->wait, EPOLLIN | EPOLLRDNORM | EPOLLHUP);
}

bool pmclog_log_readable(struct pmclog_log *log)
{
	/* Pairs with the release in pmclog_log_put(). */
	return smp_load_acquire(&log->head) != READ_ONCE(log->tail) ||
	       READ_ONCE(log->closed);
}

/* Length of the record at @pos; its first 8 bytes never wrap. */
static u16 pmclog_log_reclen(const struct pmclog_log *log, u64 pos)
{
	const struct pmclog_header *h;

	h = (const void *)(log->buf + (pos & (log->size - 1)));
	return h->length;
}

static int pmclog_log_copy_out(struct pmclog_log *log, char __user *ubuf,
			       u64 pos, size_t len)
{
	u64 off = pos & (log->size - 1);
	size_t first = min_t(u64, len, log->size - off);

	if (copy_to_user(ubuf, log->buf + off, first) ||
	    copy_to_user(ubuf + first, log->buf, len - first))
		return -EFAULT;
	return 0;
}

/*
 * read(2): as many whole records as fit in @count.  Sleeps (unless
 * @nonblock) until a record is there; returns 0 at the end of a closed log
 * and -EINVAL when @count cannot hold the next record.
 */
ssize_t pmclog_log_read(struct pmclog_log *log, char __user *ubuf,
			size_t count, bool nonblock)
{
	u64 head, tail, n = 0;
	ssize_t ret;

	if (mutex_lock_interruptible(&log->read_mutex))
		return -ERESTARTSYS;
	for (;;) {
		/* Pairs with the release in pmclog_log_put(). */
		head = smp_load_acquire(&log->head);
		tail = log->tail;
		if (head != tail)
			break;
		ret = 0;
		/* Pairs with the release in pmclog_log_close(). */
		if (smp_load_acquire(&log->closed)) {
			/* CLOSELOG may have been put after our look at head. */
			if (smp_load_acquire(&log->head) == tail)
				goto out;
			continue;
		}
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		ret = wait_event_interruptible(log->wait,
					       pmclog_log_readable(log));
		if (ret)
			goto out;
	}

	while (tail + n < head) {
		u16 len = pmclog_log_reclen(log, tail + n);

		if (n + len > count)
			break;
		n += len;
	}
	ret = -EINVAL;
	if (!n)
		goto out;
	ret = pmclog_log_copy_out(log, ubuf, tail, n);
	if (ret)
		goto out;
	/* Writers may reuse the bytes once they see the tail move. */
	smp_store_release(&log->tail, tail + n);
	/*
	 * Pairs with the barrier in pmclog_log_close(): a log that STOP
	 * found too full to end gets what now fits of its end, the rest at
	 * a later read; head != tail until it has ended.
	 */
	smp_mb();
	if (READ_ONCE(log->closing) && !READ_ONCE(log->closed)) {
		unsigned long flags;

		raw_spin_lock_irqsave(&log->lock, flags);
		pmclog_log_end_locked(log);
		raw_spin_unlock_irqrestore(&log->lock, flags);
	}
	ret = n;
out:
	mutex_unlock(&log->read_mutex);
	return ret;
}
