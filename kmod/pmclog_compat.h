/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels pmclog builds on lives here, as a
 * small pmclog_* wrapper with a one-line reason; the other files call the
 * wrappers and carry no version checks.  Supported: 6.1 to 6.12.
 */
#ifndef _PMCLOG_COMPAT_H
#define _PMCLOG_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/version.h>

/* from_timer() became timer_container_of() in 6.16. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define pmclog_from_timer(var, t, field) timer_container_of(var, t, field)
#else
#define pmclog_from_timer(var, t, field) from_timer(var, t, field)
#endif

/* timer_shutdown_sync() is in 6.2 and in Debian's 6.1 (backported). */
static inline void pmclog_timer_shutdown_sync(struct timer_list *t)
{
	timer_shutdown_sync(t);
}

/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13. */
static inline void
pmclog_hrtimer_setup(struct hrtimer *t,
		     enum hrtimer_restart (*fn)(struct hrtimer *),
		     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif /* _PMCLOG_COMPAT_H */
