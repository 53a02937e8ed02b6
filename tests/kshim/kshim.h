/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel, as much of it as kmod/pmclog_sample.c, pmclog_record.c and
 * pmclog_log.c use, for userland builds of them: the sample path that
 * tests/bench/sample_path.c runs under callgrind, and the log's unit test
 * (tests/unit/test_kmod_log.c).  One CPU, no interrupts: an irq_work is a
 * flag the harness looks at, a lock a no-op, the clock a counter; kshim.c
 * defines the globals.  What the module's code does between them is its
 * own code, compiled as is.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>		/* the real ones, through kshim/linux/ */
#include <linux/limits.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;
typedef __s32 s32;

#define __user
#define __init
#define __exit
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define likely(x)	__builtin_expect(!!(x), 1)
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define struct_size(p, member, n)	(sizeof(*(p)) + sizeof((p)->member[0]) * (n))
#define lockdep_assert_held(l)	((void)(l))
#define BUILD_BUG_ON(c)	((void)sizeof(char[1 - 2 * !!(c)]))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((typeof(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)
static inline ssize_t strscpy(char *d, const char *s, size_t n)
{
	size_t l = strnlen(s, n);

	if (!n)
		return -E2BIG;
	if (l == n)
		l = n - 1;
	memcpy(d, s, l);
	d[l] = '\0';
	return l;
}
#define HZ		250
#define U32_MAX		UINT32_MAX
#define NSEC_PER_SEC	1000000000ULL
#define ERESTARTSYS	512
#define EPOLLIN		0x1
#define EPOLLRDNORM	0x40
#define EPOLLHUP	0x10
#define GFP_KERNEL	0
#define GFP_KERNEL_ACCOUNT	0
#define __GFP_RETRY_MAYFAIL	0

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	unsigned long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* Memory */
static inline void *kzalloc(size_t n, int gfp) { (void)gfp; return calloc(1, n); }
static inline void *kcalloc(size_t n, size_t s, int gfp) { (void)gfp; return calloc(n, s); }
static inline void *kvzalloc_node(size_t n, int gfp, int node) { (void)gfp; (void)node; return calloc(1, n); }
static inline void kfree(const void *p) { free((void *)p); }
static inline void kvfree(const void *p) { free((void *)p); }
static inline void *__vmalloc(unsigned long n, int gfp) { (void)gfp; return malloc(n); }
static inline void vfree(const void *p) { free((void *)p); }
static inline unsigned long copy_to_user(void *to, const void *from, unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

/* One CPU */
extern unsigned int nr_cpu_ids;
#define smp_processor_id()	0
#define raw_smp_processor_id()	0
#define cpu_to_node(c)		0
#define for_each_possible_cpu(c)	for ((c) = 0; (c) < nr_cpu_ids; (c)++)
typedef struct { unsigned long bits; } cpumask_var_t[1];
static inline bool zalloc_cpumask_var(cpumask_var_t *m, int gfp) { (void)gfp; (*m)->bits = 0; return true; }
static inline void free_cpumask_var(cpumask_var_t m) { (void)m; }
#define cpumask_empty(m)	(!(m)->bits)
#define cpumask_set_cpu(c, m)	((m)->bits |= 1UL << (c))
#define cpumask_clear_cpu(c, m)	((m)->bits &= ~(1UL << (c)))
#define for_each_cpu(c, m)	for ((c) = 0; (c) < 64; (c)++) if ((m)->bits & (1UL << (c)))

/* local_t, atomics: one CPU, no interrupts */
typedef struct { long a; } local_t;
typedef struct { long long a; } local64_t;
typedef struct { int counter; } atomic_t;
#define local_read(l)		READ_ONCE((l)->a)
#define local_set(l, v)		((l)->a = (v))
#define local_inc(l)		((l)->a++)
#define local_cmpxchg(l, o, n)	__sync_val_compare_and_swap(&(l)->a, (o), (n))
#define local64_read(l)		READ_ONCE((l)->a)
#define local64_set(l, v)	((l)->a = (v))
#define local64_inc(l)		((l)->a++)
#define local64_add(v, l)	((l)->a += (v))
#define atomic_read(v)		READ_ONCE((v)->counter)

/* Locks and interrupts: nothing to wait for */
typedef struct { int locked; } raw_spinlock_t;
struct mutex { int locked; };
#define raw_spin_lock_init(l)	((l)->locked = 0)
#define raw_spin_lock(l)	((l)->locked = 1)
#define raw_spin_unlock(l)	((l)->locked = 0)
#define raw_spin_lock_irqsave(l, f)	((f) = 0, raw_spin_lock(l))
#define raw_spin_unlock_irqrestore(l, f)	((void)(f), raw_spin_unlock(l))
#define local_irq_save(f)	((f) = 0)
#define local_irq_restore(f)	((void)(f))
#define mutex_init(m)		((m)->locked = 0)
#define mutex_lock_interruptible(m)	((m)->locked = 1, 0)
#define mutex_unlock(m)		((m)->locked = 0)

/* irq_work: queued is a flag; the harness runs it (sample_path.c) */
struct irq_work {
	void (*func)(struct irq_work *);
	int flags;
	int pending;
};
#define IRQ_WORK_LAZY	1
#define IRQ_WORK_HARD	2
#define IRQ_WORK_INIT_LAZY(f)	((struct irq_work){ .func = (f), .flags = IRQ_WORK_LAZY })
#define IRQ_WORK_INIT_HARD(f)	((struct irq_work){ .func = (f), .flags = IRQ_WORK_HARD })
static inline void init_irq_work(struct irq_work *w, void (*f)(struct irq_work *))
{
	*w = (struct irq_work){ .func = f };
}
static inline bool irq_work_queue(struct irq_work *w)
{
	if (w->pending)
		return false;
	w->pending = 1;
	return true;
}
static inline void irq_work_sync(struct irq_work *w) { (void)w; }

/* Wait queues and timers: no sleeper */
typedef struct { int sleepers; } wait_queue_head_t;
struct timer_list { int pending; };
#define init_waitqueue_head(w)	((w)->sleepers = 0)
#define wq_has_sleeper(w)	((w)->sleepers != 0)
#define wake_up_interruptible_poll(w, m)	((void)(w))
#define wait_event_interruptible(w, c)	0
#define timer_setup(t, f, fl)	((void)(f), (t)->pending = 0)
#define timer_pending(t)	((t)->pending)
#define mod_timer(t, when)	((t)->pending = 1)
#define timer_reduce(t, when)	((t)->pending = 1)
#define from_timer(var, t, field)	container_of(t, typeof(*var), field)
static inline void timer_shutdown_sync(struct timer_list *t) { (void)t; }
extern unsigned long jiffies;

/* RCU: one thread, nothing to wait for */
static inline void synchronize_rcu(void) { }

/* Config: a kernel without PREEMPT_RT */
#define IS_ENABLED(option)	0

/* hrtimer, apic: declared for pmclog_compat.h, not used */
enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
struct hrtimer { enum hrtimer_restart (*function)(struct hrtimer *); };
enum hrtimer_mode { HRTIMER_MODE_REL };
static inline void hrtimer_init(struct hrtimer *t, clockid_t c, enum hrtimer_mode m)
{
	(void)t; (void)c; (void)m;
}
struct apic { u32 (*read)(u32 reg); void (*write)(u32 reg, u32 v); };
extern struct apic *apic;

/* The boot CPU, for INITIALIZE */
struct cpuinfo_x86 { u8 x86, x86_model, x86_stepping; char x86_vendor_id[16]; };
extern struct cpuinfo_x86 boot_cpu_data;

/* Lists */
struct list_head { struct list_head *next, *prev; };

/* Tasks and registers */
struct pid;
struct pt_regs { unsigned long ip; int user; };
struct mm_struct;
/* mm and flags: pmclog_is_user_task() (pmclog_compat.h) */
struct task_struct { int tgid, pid; struct mm_struct *mm; unsigned int flags; };
#define PF_KTHREAD		0x00200000
extern struct task_struct *current;
#define instruction_pointer(r)	((r)->ip)
#define user_mode(r)		((r)->user)
static inline int task_tgid_nr(struct task_struct *t) { return t->tgid; }
static inline int task_pid_nr(struct task_struct *t) { return t->pid; }

/* Time: a counter, so that runs are the same */
extern u64 kshim_ns;
static inline u64 ktime_get_mono_fast_ns(void) { return kshim_ns += 50000; }
static inline u64 ktime_get_real_ns(void) { return kshim_ns; }

#endif
