// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog's BPF collector, the kernel half: the module's hooks as BPF
 * programs, writing to one ring buffer (pmclog_bpf_events.h says what).
 * lib/pmclog_bpf.c loads it, chooses among the programs that differ
 * between kernels, and turns the ring into a log.
 *
 *   cpu-clock or a PMU event, per CPU  perf_event            -> PCSAMPLE,
 *                                                               CALLCHAIN
 *   new mapping, stack growth,
 *   mprotect adding PROT_EXEC          perf_event_mmap()     -> MAP_IN (EV)
 *   mremap moving a mapping            copy_vma() ret        -> MAP_IN (EV)
 *   mremap growing one in place        vma_merge_extend() ret-> MAP_IN (EV)
 *                                      (before 6.3: __vma_adjust())
 *   munmap, MAP_FIXED (6.1-6.11),
 *   mremap's old range                 do_{mas,vmi}_munmap() -> UNMAP (EV)
 *   MAP_FIXED over a mapping (6.12)    mmap_region()         -> UNMAP (EV)
 *   mprotect removing PROT_EXEC        mprotect_fixup()      -> UNMAP (EV)
 *   fork of a new process              sched_process_fork    -> PROCFORK
 *   exec                               setup_new_exec()      -> EXEC (EV)
 *   exit of the last thread            taskstats_exit()      -> PROCEXIT
 *   module load                        do_init_module()      -> MAP_IN,
 *                                                               KSYMBOL (EV)
 *   module live (init text freed)      do_init_module() ret  -> MAP_OUT
 *   module unload                      free_module()         -> MAP_OUT
 *
 * The hooks are the module's own, kprobes and kretprobes on the same
 * functions (kmod/pmclog_vma.c, pmclog_proc.c, pmclog_kobj.c say why
 * each): the calls that may fail write at return, only when the call
 * succeeded, stamped at entry.  No BPF trampolines (fentry), so that
 * kernels without them work too.
 * Nothing is written until userland sets `running'.  A record that does
 * not fit in the ring is counted, per CPU, and said in a DROPNOTIFY
 * before that CPU's next record, as the module does.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/pmclog.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "pmclog_bpf_kernel.h"
#include "pmclog_bpf_events.h"

char LICENSE[] SEC("license") = "GPL";

/* The structure whose member `member' is at ptr, the offset relocated. */
#define pmclog_container_of(ptr, type, member) \
	((type *)((void *)(ptr) - bpf_core_field_offset(type, member)))

/* Set by userland before the load. */
const volatile bool system_wide;	/* every process; else the followed ones */
const volatile bool inherit;		/* follow the children of followed processes */
const volatile __u64 ring_size;		/* the ring's bytes: wake userland at half */

/* Set by userland at START and STOP. */
bool running;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
} ring SEC(".maps");

/* The processes of a process-mode log: tgid -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} followed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pmclog_bpf_cpu_stats);
} stats SEC(".maps");

/* Where a MAP_IN or EXEC event is built: too large for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pmclog_bpf_map_in);
} scratch SEC(".maps");

static __always_inline struct pmclog_bpf_cpu_stats *cpu_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline void hdr_init(struct pmclog_header *h, __u8 type,
				     __u16 len, __u64 tstamp)
{
	h->magic = PMCLOG_HEADER_MAGIC;
	h->type = type;
	h->length = len;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	h->pmcid = 0;
	h->tstamp = tstamp;
}

/*
 * Records wake userland only once the ring is half full: it polls every
 * BPF_POLL_MS too (pmclog_bpf.c).  A wake-up for each record (an irq_work,
 * and the collector's thread scheduled in) cost every mmap more than the
 * record itself.
 */
static __always_inline __u64 wakeup_flags(void)
{
	return bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) > ring_size / 2 ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* What this CPU lost since its last DROPNOTIFY, if anything, first. */
static __always_inline void flush_drops(struct pmclog_bpf_cpu_stats *st)
{
	struct pmclog_dropnotify *r;

	if (!st->pend_samples && !st->pend_records)
		return;
	r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0);
	if (!r)
		return;
	hdr_init(&r->header, PMCLOG_TYPE_DROPNOTIFY, sizeof(*r), bpf_ktime_get_ns());
	r->samples = st->pend_samples;
	r->records = st->pend_records;
	st->pend_samples = 0;
	st->pend_records = 0;
	bpf_ringbuf_submit(r, wakeup_flags());
}

/* A record other than a sample could not be written. */
static __always_inline void record_lost(void)
{
	struct pmclog_bpf_cpu_stats *st = cpu_stats();

	if (st) {
		st->records_dropped++;
		st->pend_records++;
	}
}

/* Reserve a record of len bytes, a DROPNOTIFY before it if one is owed. */
static __always_inline void *reserve(__u32 len)
{
	struct pmclog_bpf_cpu_stats *st = cpu_stats();
	void *r;

	if (st)
		flush_drops(st);
	r = bpf_ringbuf_reserve(&ring, len, 0);
	if (!r)
		record_lost();
	return r;
}

static __always_inline bool is_followed(__u32 tgid)
{
	return system_wide || bpf_map_lookup_elem(&followed, &tgid);
}

static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/*
 * Argument n (from 0) of the probed kernel function, at its entry: the
 * x86-64 calling convention, the seventh on the stack above the return
 * address.
 */
static __always_inline __u64 kernel_arg(struct pt_regs *ctx, int n)
{
	__u64 v = 0;

	switch (n) {
	case 0: return ctx->rdi;
	case 1: return ctx->rsi;
	case 2: return ctx->rdx;
	case 3: return ctx->rcx;
	case 4: return ctx->r8;
	case 5: return ctx->r9;
	default:
		bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx->rsp + 8 * (n - 5));
		return v;
	}
}

/* ------------------------------------------------------------------ */
/* Samples                                                              */

/*
 * The stack depth of each PMC allocated with PMCLOG_PMC_F_CALLCHAIN, by
 * pmcid (0: no stacks); set by userland at START.  bpf_get_stack() walks
 * at most kernel.perf_event_max_stack frames (127 by default).
 */
#define PMCLOG_BPF_CC_DEPTH	127

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} cc_depth SEC(".maps");

/*
 * A PCSAMPLE and its CALLCHAIN, built together, written as one: pc is
 * the CALLCHAIN's own pc[] (the GNU extension of a flexible array member
 * not at the end; the layout asserts of the uapi header hold it to 32
 * bytes before pc[]).
 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct sample_cc {
	struct pmclog_pcsample s;
	struct pmclog_callchain c;
	__u64 pc[2 * PMCLOG_BPF_CC_DEPTH];
};
#pragma clang diagnostic pop
_Static_assert((PMCLOG_BPF_CC_DEPTH & (PMCLOG_BPF_CC_DEPTH + 1)) == 0,
	       "the depth is a mask: frames()");
_Static_assert(offsetof(struct sample_cc, pc) ==
	       sizeof(struct pmclog_pcsample) + sizeof(struct pmclog_callchain),
	       "pc[] follows the CALLCHAIN's fixed part");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_cc);
} cc_scratch SEC(".maps");

/*
 * The frames of a part that bpf_get_stack() returned bytes of, at most
 * depth (and so bounded for the verifier); trunc in *flags when the part
 * went deeper, or filled the buffer.
 */
static __always_inline __u32 frames(long bytes, __u32 depth, __u32 trunc, __u32 *flags)
{
	__u32 n = bytes > 0 ? (__u32)bytes / sizeof(__u64) : 0;

	if (n >= PMCLOG_BPF_CC_DEPTH || n > depth)
		*flags |= trunc;
	if (n > depth)
		n = depth;
	/*
	 * PMCLOG_BPF_CC_DEPTH is 0x7f: the mask changes nothing left by the
	 * clamps, and tells the verifier of 6.1 (whose bounds of the clamped
	 * value came out inverted) that pc[n] is inside the buffer.
	 */
	return n > PMCLOG_BPF_CC_DEPTH ? PMCLOG_BPF_CC_DEPTH : n & PMCLOG_BPF_CC_DEPTH;
}

/*
 * The sample's stack after it (pmclog_callchain.c's record): its kernel
 * frames from the kernel's unwinder, its user ones from frame pointers,
 * as perf takes them (bpf_get_stack() is perf's get_perf_callchain():
 * the interrupted PC first, and for a kernel sample of a task with a
 * user side, that side from the registers its entry saved).  One ring
 * record: nothing comes between the PCSAMPLE and its CALLCHAIN.
 */
static __always_inline int sample_with_stack(struct bpf_perf_event_data *ctx,
					     struct pmclog_bpf_cpu_stats *st,
					     const struct pmclog_header *h, __u32 tgid,
					     __u32 tid, __u32 depth)
{
	struct sample_cc *b;
	__u32 zero = 0, flags = 0;
	__u32 nk = 0, nu;
	__u64 len;

	b = bpf_map_lookup_elem(&cc_scratch, &zero);
	if (!b)
		return 0;
	b->s.header = *h;
	b->s.pid = tgid;
	b->s.tid = tid;
	b->s.pc = PT_REGS_IP(&ctx->regs);
	if (!(h->flags & PMCLOG_HF_USER))
		nk = frames(bpf_get_stack(ctx, b->pc, PMCLOG_BPF_CC_DEPTH * sizeof(__u64), 0),
			    depth, PMCLOG_CC_F_KERNEL_TRUNC, &flags);
	/* A kernel thread has no user side: the call fails, nu is 0. */
	nu = frames(bpf_get_stack(ctx, &b->pc[nk], PMCLOG_BPF_CC_DEPTH * sizeof(__u64),
				  BPF_F_USER_STACK),
		    depth, PMCLOG_CC_F_USER_TRUNC, &flags);
	b->c.header = *h;
	b->c.header.type = PMCLOG_TYPE_CALLCHAIN;
	b->c.header.length = sizeof(b->c) + (nk + nu) * sizeof(__u64);
	b->c.pid = tgid;
	b->c.tid = tid;
	b->c.nkernel = nk;
	b->c.nuser = nu;
	b->c.flags = flags;
	len = sizeof(b->s) + sizeof(b->c) + (nk + nu) * sizeof(__u64);
	if (len > sizeof(*b))
		len = sizeof(*b);
	if (bpf_ringbuf_output(&ring, b, len, wakeup_flags())) {
		st->samples_dropped++;
		st->pend_samples++;
	}
	return 0;
}

/*
 * One perf event per CPU and PMC, its attach cookie the pmcid.  The
 * perf_event program runs in the event's overflow context (NMI for a
 * hardware counter, hard irq for cpu-clock): no locks but the ring's.
 */
SEC("perf_event")
int pmclog_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pmclog_bpf_cpu_stats *st;
	struct pmclog_pcsample *r;
	struct pmclog_header h;
	__u32 tgid = id >> 32, pmcid, *depth;

	if (!running || !is_followed(tgid))
		return 0;
	st = cpu_stats();
	if (!st)
		return 0;
	st->samples++;
	flush_drops(st);
	pmcid = bpf_get_attach_cookie(ctx);
	hdr_init(&h, PMCLOG_TYPE_PCSAMPLE, sizeof(*r), bpf_ktime_get_ns());
	h.pmcid = pmcid;
	if ((ctx->regs.cs & 3) == 3)
		h.flags = PMCLOG_HF_USER;
	depth = bpf_map_lookup_elem(&cc_depth, &pmcid);
	if (depth && *depth)
		return sample_with_stack(ctx, st, &h, tgid, (__u32)id, *depth);
	r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0);
	if (!r) {
		st->samples_dropped++;
		st->pend_samples++;
		return 0;
	}
	r->header = h;
	r->pid = tgid;
	r->tid = (__u32)id;
	r->pc = PT_REGS_IP(&ctx->regs);
	bpf_ringbuf_submit(r, wakeup_flags());
	return 0;
}

/* ------------------------------------------------------------------ */
/* Paths                                                                */

/*
 * Write the components of a path into the scratch event's names, leaf
 * first, as d_path() finds them walking up: across mounts, to the root
 * of the mount namespace.  " (deleted)" is not added.  One component a
 * bpf_loop() step: the verifier checks the step once, not each depth.
 */
/* &simple_dname, from /proc/kallsyms: see path_step(). */
__u64 simple_dname;

struct path_walk {
	struct dentry *dentry;
	struct vfsmount *vfsmnt;
	struct mount *mnt;
	__u32 off;
	__u32 ncomp;
	bool done;
};

static long path_step(__u32 i, struct path_walk *w)
{
	/* Locals: BPF_CORE_READ(w->x, ...) would relocate w's type too. */
	struct dentry *dentry = w->dentry, *parent;
	struct vfsmount *vfsmnt = w->vfsmnt;
	struct mount *mnt = w->mnt;
	struct pmclog_bpf_map_in *e;
	const unsigned char *name;
	__u32 zero = 0;
	long n;

	if (dentry == BPF_CORE_READ(vfsmnt, mnt_root)) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (up == mnt)
			goto done;
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->vfsmnt = &up->mnt;
		return 0;
	}
	parent = BPF_CORE_READ(dentry, d_parent);
	if (!parent)
		goto done;
	/*
	 * A dentry that is its own parent without being its mount's root:
	 * d_path() stops there with "/", unless it is the leaf and its d_op
	 * names it.  A pseudo file's (System V shared memory, memfd_create(),
	 * alloc_file_pseudo()) is named "/NAME" by simple_dname(), and so by
	 * this; the others (anon inodes, sockets, a disconnected dentry) stop
	 * at "/" as before.
	 */
	if (parent == dentry &&
	    (i || !simple_dname ||
	     (__u64)BPF_CORE_READ(dentry, d_op, d_dname) != simple_dname))
		goto done;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e || w->off >= PMCLOG_BPF_NAMES)
		return 1;	/* truncated */
	name = BPF_CORE_READ(dentry, d_name.name);
	n = bpf_probe_read_kernel_str(&e->names[w->off & (PMCLOG_BPF_NAMES - 1)],
				      PMCLOG_BPF_NAME_MAX, name);
	if (n <= 0)
		return 1;
	w->off += n;
	w->ncomp++;
	if (parent == dentry)
		goto done;
	w->dentry = parent;
	return 0;
done:
	w->done = true;
	return 1;
}

static __always_inline void walk_path(struct pmclog_bpf_map_in *e,
				      struct dentry *dentry,
				      struct vfsmount *vfsmnt)
{
	struct path_walk w = {
		.dentry = dentry,
		.vfsmnt = vfsmnt,
		.mnt = pmclog_container_of(vfsmnt, struct mount, mnt),
	};

	bpf_loop(PMCLOG_BPF_PATH_DEPTH, path_step, &w, 0);
	if (!w.done)
		e->flags |= PMCLOG_BPF_PATH_TRUNC;
	e->ncomp = w.ncomp;
	e->nbytes = w.off;
}

static __always_inline void set_name(struct pmclog_bpf_map_in *e, const char *s,
				     __u32 len)
{
	long n = bpf_probe_read_kernel_str(e->names, len, s);

	e->ncomp = 1;
	e->nbytes = n > 0 ? n : 0;
}

/* Send e, whose names hold nbytes bytes. */
static __always_inline void send_named(struct pmclog_bpf_map_in *e)
{
	__u64 len = offsetof(struct pmclog_bpf_map_in, names) + e->nbytes;

	if (len > sizeof(*e))
		len = sizeof(*e);
	if (bpf_ringbuf_output(&ring, e, len, wakeup_flags()))
		record_lost();
}

static __always_inline struct pmclog_bpf_map_in *scratch_event(__u8 type, __u64 tstamp)
{
	struct pmclog_bpf_map_in *e;
	__u32 zero = 0;

	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return NULL;
	hdr_init(&e->header, type, 0, tstamp);
	e->flags = 0;
	e->ncomp = 0;
	e->nbytes = 0;
	return e;
}

/* ------------------------------------------------------------------ */
/* Mappings                                                             */

/* &special_mapping_vmops, from /proc/kallsyms: its vmas are named. */
__u64 special_mapping_vmops;

/*
 * The name of an anonymous executable vma, as its vm_ops->name() would
 * give it: a special mapping's ("[vdso]"), else "[anon exec]".
 */
static __always_inline void anon_name(struct pmclog_bpf_map_in *e,
				      struct vm_area_struct *vma)
{
	if (special_mapping_vmops &&
	    (__u64)BPF_CORE_READ(vma, vm_ops) == special_mapping_vmops) {
		struct vm_special_mapping *sm = BPF_CORE_READ(vma, vm_private_data);
		long n = bpf_probe_read_kernel_str(e->names, PMCLOG_BPF_NAME_MAX,
						   BPF_CORE_READ(sm, name));

		if (n > 1) {
			e->nbytes = n;
			e->ncomp = 1;
			return;
		}
	}
	/* A literal, not a static array: clang stores it as immediates. */
	__builtin_memcpy(e->names, "[anon exec]", 12);
	e->nbytes = 12;
	e->ncomp = 1;
}

/*
 * A vma of the current process is new, grew, moved, or became
 * executable (mmap_lock held): its MAP_IN, if it is executable.
 */
static __always_inline void vma_changed(struct vm_area_struct *vma)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct pmclog_bpf_map_in *e;
	struct file *file;
	__u32 tgid = current_tgid();

	if (!running || !vma || !(BPF_CORE_READ(vma, vm_flags) & PMCLOG_BPF_VM_EXEC) ||
	    BPF_CORE_READ(vma, vm_mm) != BPF_CORE_READ(t, mm) || !is_followed(tgid))
		return;
	e = scratch_event(PMCLOG_BPF_EV_MAP_IN, bpf_ktime_get_ns());
	if (!e)
		return;
	e->pid = tgid;
	e->start = BPF_CORE_READ(vma, vm_start);
	e->end = BPF_CORE_READ(vma, vm_end);
	file = BPF_CORE_READ(vma, vm_file);
	if (file) {
		e->offset = BPF_CORE_READ(vma, vm_pgoff) << 12;
		walk_path(e, BPF_CORE_READ(file, f_path.dentry),
			  BPF_CORE_READ(file, f_path.mnt));
	} else {
		e->offset = 0;
		e->flags = PMCLOG_MAP_F_ANON;
		anon_name(e, vma);
	}
	send_named(e);
}

/*
 * The kprobes.  Each handler is declared once, by PMCLOG_PROBE(), as a
 * program of its own (SEC, attached one by one) and, listed in
 * PMCLOG_BPF_ENTRY_PROBES or PMCLOG_BPF_RETURN_PROBES (pmclog_bpf_events.h),
 * as a case of the two kprobe.multi dispatchers at the end of this file,
 * which take the handler from the probe's cookie: userland loads
 * either the programs or the dispatchers (lib/pmclog_bpf.c).  A
 * kprobe.multi link detaches in one go, where each kprobe's perf event
 * waits for RCU grace periods of its own (6.12-rt under TCG: 9 s for 15
 * kprobes, 1 s for the two links).
 */
#define PMCLOG_PROBE(sec, name)						\
	static __always_inline int name##_on(struct pt_regs *ctx);	\
	SEC(sec) int name(struct pt_regs *ctx) { return name##_on(ctx); } \
	static __always_inline int name##_on(struct pt_regs *ctx)

/* copy_vma() returns the vma of mremap's new range. */
PMCLOG_PROBE("kretprobe/copy_vma", pmclog_copy_vma)
{
	vma_changed((void *)PT_REGS_RC(ctx));
	return 0;
}

/*
 * vma_merge_extend() (6.5 on) returns the vma that mremap grew in place,
 * or NULL; attached where the kernel has it.
 */
PMCLOG_PROBE("kretprobe", pmclog_vma_merge_extend)
{
	vma_changed((void *)PT_REGS_RC(ctx));
	return 0;
}

/*
 * Before 6.3, mremap grows a mapping in place through
 * __vma_adjust(vma, start, end, pgoff, insert, expand), which every other
 * change of a vma calls too: the call must be mremap's own, as
 * kmod/pmclog_vma.c tells it -- the task is in a 64-bit mremap(2),
 * nothing is inserted, expand is NULL or the vma, the vma keeps its start
 * and ends where mremap's old range ends, and grows to where the new one
 * ends or past.  The vma is kept at entry (mremap holds mmap_lock for
 * writing) and gets its MAP_IN at return, if that is 0.  Attached where
 * the kernel has __vma_adjust().
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} growing SEC(".maps");

PMCLOG_PROBE("kprobe", pmclog_vma_adjust_entry)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct vm_area_struct *vma = (void *)kernel_arg(ctx, 0);
	__u64 end = kernel_arg(ctx, 2), expand = kernel_arg(ctx, 5);
	__u64 id = bpf_get_current_pid_tgid(), v = (__u64)vma;
	struct pt_regs u;

	if (!running || kernel_arg(ctx, 4) || (expand && expand != v) ||
	    kernel_arg(ctx, 1) != BPF_CORE_READ(vma, vm_start) ||
	    end <= BPF_CORE_READ(vma, vm_end) ||
	    !(BPF_CORE_READ(vma, vm_flags) & PMCLOG_BPF_VM_EXEC) ||
	    BPF_CORE_READ(vma, vm_mm) != BPF_CORE_READ(t, mm) ||
	    BPF_CORE_READ(t, thread_info.status) & PMCLOG_BPF_TS_COMPAT ||
	    bpf_probe_read_kernel(&u, sizeof(u),
				  (void *)bpf_task_pt_regs(bpf_get_current_task_btf())) ||
	    u.orig_rax != PMCLOG_BPF_NR_MREMAP)
		return 0;
	/* mremap(addr, old_len, new_len, flags, new_addr) */
	if (BPF_CORE_READ(vma, vm_end) != u.rdi + ((u.rsi + 4095) & ~4095UL) ||
	    end < u.rdi + ((u.rdx + 4095) & ~4095UL))
		return 0;
	bpf_map_update_elem(&growing, &id, &v, BPF_ANY);
	return 0;
}

PMCLOG_PROBE("kretprobe", pmclog_vma_adjust_exit)
{
	__u64 id = bpf_get_current_pid_tgid(), *v = bpf_map_lookup_elem(&growing, &id);
	struct vm_area_struct *vma;

	if (!v)
		return 0;
	vma = (void *)*v;
	bpf_map_delete_elem(&growing, &id);
	if ((int)PT_REGS_RC(ctx) == 0)
		vma_changed(vma);
	return 0;
}

static __always_inline void unmap_event(__u32 tgid, __u64 start, __u64 end,
					__u64 tstamp)
{
	struct pmclog_bpf_unmap *e = reserve(sizeof(*e));

	if (!e)
		return;
	hdr_init(&e->header, PMCLOG_BPF_EV_UNMAP, sizeof(*e), tstamp);
	e->pid = tgid;
	e->__reserved = 0;
	e->start = start;
	e->end = end;
	bpf_ringbuf_submit(e, wakeup_flags());
}

/*
 * A call that may fail, between its kprobe and its kretprobe: when it
 * was entered, and the range it was asked to change.
 */
struct pending {
	__u64 tstamp;
	__u64 start;
	__u64 end;
	__u32 mmap_region;	/* 6.12's mmap_region(): see pmclog_mmap() */
	__u32 gap;		/* it failed, leaving a gap: see pmclog_mmap_gap() */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct pending);
} pending SEC(".maps");

static __always_inline int pend(__u64 start, __u64 end, __u32 mmap_region)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pending p = {
		.tstamp = bpf_ktime_get_ns(), .start = start, .end = end,
		.mmap_region = mmap_region,
	};

	if (running && end > start && is_followed(id >> 32))
		bpf_map_update_elem(&pending, &id, &p, BPF_ANY);
	return 0;
}

/* At return: the call's range if it succeeded, as an UNMAP at its entry. */
static __always_inline int pend_done(bool ok)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &id);

	if (!p)
		return 0;
	if (ok && running)
		unmap_event(id >> 32, p->start, p->end, p->tstamp);
	bpf_map_delete_elem(&pending, &id);
	return 0;
}

/*
 * The munmap core, do_vmi_munmap(vmi, mm, start, len, uf, unlock) from
 * 6.5, do_mas_munmap(mas, mm, start, len, uf, downgrade) before: the same
 * arguments where they matter.  userland attaches both to whichever the
 * kernel has.
 */
PMCLOG_PROBE("kprobe", pmclog_munmap_entry)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	__u64 start = kernel_arg(ctx, 2), len = kernel_arg(ctx, 3);

	if ((void *)kernel_arg(ctx, 1) != BPF_CORE_READ(t, mm))
		return 0;
	return pend(start, start + ((len + 4095) & ~4095ULL), 0);
}

/*
 * do_vmi_align_munmap(vmi, vma, mm, start, end, uf, unlock) from 6.3,
 * do_mas_align_munmap(mas, vma, mm, start, end, uf, downgrade) before:
 * do_vmi_munmap() and do_mas_munmap() call it, and brk shrinking (and
 * 6.12's shmdt()) past them.  userland attaches this and
 * pmclog_munmap_exit to it instead, where the kernel has one.
 */
PMCLOG_PROBE("kprobe", pmclog_munmap_align_entry)
{
	struct task_struct *t = (void *)bpf_get_current_task();

	if ((void *)kernel_arg(ctx, 2) != BPF_CORE_READ(t, mm))
		return 0;
	return pend(kernel_arg(ctx, 3), kernel_arg(ctx, 4), 0);
}

PMCLOG_PROBE("kretprobe", pmclog_munmap_exit)
{
	return pend_done((int)PT_REGS_RC(ctx) >= 0);
}

/*
 * 6.12's mmap_region(file, addr, len, vm_flags, pgoff, uf) unmaps what a
 * MAP_FIXED mapping replaces itself; it returns addr on success.  The
 * event has the entry's time: the new mapping, made inside, stays.
 */
PMCLOG_PROBE("kprobe", pmclog_mmap_region_entry)
{
	__u64 addr = kernel_arg(ctx, 1);

	return pend(addr, addr + kernel_arg(ctx, 2), 1);
}

PMCLOG_PROBE("kretprobe", pmclog_mmap_region_exit)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &id);

	return pend_done(p && (PT_REGS_RC(ctx) == p->start || p->gap));
}

/*
 * vms_complete_munmap_vmas(vms, mas_detach), 6.12: the replaced vmas go
 * for good.  Inside mmap_region() that is either past the new mapping's
 * perf_event_mmap() (which ended the pending call: nothing here), or on
 * its error path once the old page tables are cleared and the vmas'
 * close ops have run (a file's mmap op failed, say): the kernel cannot
 * put them back and leaves a gap, which the failed call still owes its
 * UNMAP.  Before that point a failure puts the old vmas back: no UNMAP.
 * Attached where mmap_region() unmaps by itself.  On 6.12 the gap's call
 * comes from mm/mmap.c into mm/vma.c, out of line; a kernel that moves
 * mmap_region() into vma.c may inline it, and 84-mapops' step 11 would
 * say so.
 */
PMCLOG_PROBE("kprobe", pmclog_mmap_gap)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &id);

	if (p && p->mmap_region)
		p->gap = 1;
	return 0;
}

/*
 * perf_event_mmap(vma): new mappings, stack growth, mprotect +PROT_EXEC.
 * Inside 6.12's mmap_region() it is called once the mapping is in place
 * and what it replaced is gone, just before it returns the address: the
 * UNMAP of the replaced range goes first, so that the new mapping's
 * MAP_IN is not taken for one the range removes.
 */
PMCLOG_PROBE("kprobe/perf_event_mmap", pmclog_mmap)
{
	struct vm_area_struct *vma = (void *)kernel_arg(ctx, 0);
	__u64 id = bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &id);

	if (p && p->mmap_region)
		pend_done(true);
	vma_changed(vma);
	return 0;
}

/*
 * mprotect_fixup(): (vmi, tlb, vma, pprev, start, end, newflags) from
 * 6.2, (tlb, vma, pprev, start, end, newflags) before.  Only a change
 * that leaves the range without PROT_EXEC matters; userland knows
 * whether it was executable.
 */
const volatile bool mprotect_vmi;	/* the 6.2 shape */

PMCLOG_PROBE("kprobe/mprotect_fixup", pmclog_mprotect_entry)
{
	/* Constant indices: the verifier refuses a computed offset into ctx. */
	if (mprotect_vmi)
		return kernel_arg(ctx, 6) & PMCLOG_BPF_VM_EXEC ? 0 :
		       pend(kernel_arg(ctx, 4), kernel_arg(ctx, 5), 0);
	return kernel_arg(ctx, 5) & PMCLOG_BPF_VM_EXEC ? 0 :
	       pend(kernel_arg(ctx, 3), kernel_arg(ctx, 4), 0);
}

PMCLOG_PROBE("kretprobe/mprotect_fixup", pmclog_mprotect_exit)
{
	return pend_done((int)PT_REGS_RC(ctx) == 0);
}

/* ------------------------------------------------------------------ */
/* Processes                                                            */

SEC("raw_tp/sched_process_fork")
int BPF_PROG(pmclog_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid), pid = BPF_CORE_READ(child, tgid);
	struct pmclog_procfork *r;
	__u8 one = 1;
	__u8 flags = 0;

	/* A new thread is no new process. */
	if (!running || pid == ppid || pid != BPF_CORE_READ(child, pid) ||
	    !is_followed(ppid))
		return 0;
	if (!system_wide) {
		if (!inherit)
			return 0;
		if (bpf_map_update_elem(&followed, &pid, &one, BPF_NOEXIST))
			flags = PMCLOG_HF_UNFOLLOWED;
	}
	r = reserve(sizeof(*r));
	if (!r)
		return 0;
	hdr_init(&r->header, PMCLOG_TYPE_PROCFORK, sizeof(*r), bpf_ktime_get_ns());
	r->header.flags = flags;
	r->ppid = ppid;
	r->pid = pid;
	bpf_ringbuf_submit(r, wakeup_flags());
	return 0;
}

/*
 * setup_new_exec(bprm): the old address space is gone, the new image is
 * not mapped yet (pmclog_proc.c).
 */
PMCLOG_PROBE("kprobe/setup_new_exec", pmclog_exec)
{
	struct linux_binprm *bprm = (void *)kernel_arg(ctx, 0);
	struct pmclog_bpf_map_in *e;
	struct file *file;
	__u32 tgid = current_tgid();

	if (!running || !is_followed(tgid))
		return 0;
	e = scratch_event(PMCLOG_BPF_EV_EXEC, bpf_ktime_get_ns());
	if (!e)
		return 0;
	e->pid = tgid;
	e->start = e->end = e->offset = 0;
	file = BPF_CORE_READ(bprm, file);
	walk_path(e, BPF_CORE_READ(file, f_path.dentry), BPF_CORE_READ(file, f_path.mnt));
	send_named(e);
	return 0;
}

/* taskstats_exit(tsk, group_dead): group_dead in the group's last thread. */
PMCLOG_PROBE("kprobe/taskstats_exit", pmclog_exit)
{
	struct task_struct *tsk = (void *)kernel_arg(ctx, 0);
	int group_dead = (int)kernel_arg(ctx, 1);
	__u32 tgid = BPF_CORE_READ(tsk, tgid);
	struct pmclog_procexit *r;
	unsigned int sflags;

	if (!running || !group_dead || !is_followed(tgid))
		return 0;
	r = reserve(sizeof(*r));
	if (r) {
		hdr_init(&r->header, PMCLOG_TYPE_PROCEXIT, sizeof(*r), bpf_ktime_get_ns());
		r->pid = tgid;
		sflags = BPF_CORE_READ(tsk, signal, flags);
		r->status = sflags & PMCLOG_BPF_SIGNAL_GROUP_EXIT ?
			    BPF_CORE_READ(tsk, signal, group_exit_code) :
			    BPF_CORE_READ(tsk, exit_code);
		bpf_ringbuf_submit(r, wakeup_flags());
	}
	if (!system_wide)
		bpf_map_delete_elem(&followed, &tgid);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Kernel modules                                                       */

struct mod_text {
	__u64 core_start, core_size, init_start, init_size;
};

static __always_inline void module_text(struct module *mod, struct mod_text *t)
{
	if (bpf_core_field_exists(((struct module___memory *)mod)->mem)) {
		struct module___memory *m = (void *)mod;

		t->core_start = (__u64)BPF_CORE_READ(m, mem[PMCLOG_BPF_MOD_TEXT].base);
		t->core_size = BPF_CORE_READ(m, mem[PMCLOG_BPF_MOD_TEXT].size);
		t->init_start = (__u64)BPF_CORE_READ(m, mem[PMCLOG_BPF_MOD_INIT_TEXT].base);
		t->init_size = BPF_CORE_READ(m, mem[PMCLOG_BPF_MOD_INIT_TEXT].size);
	} else {
		struct module___layout *l = (void *)mod;

		t->core_start = (__u64)BPF_CORE_READ(l, core_layout.base);
		t->core_size = BPF_CORE_READ(l, core_layout.text_size);
		t->init_start = (__u64)BPF_CORE_READ(l, init_layout.base);
		t->init_size = t->init_start ? BPF_CORE_READ(l, init_layout.text_size) : 0;
	}
}

static __always_inline void module_map_in(struct module *mod, __u64 start,
					  __u64 size, __u32 flags, __u64 tstamp)
{
	struct pmclog_bpf_map_in *e;

	if (!size)
		return;
	e = scratch_event(PMCLOG_BPF_EV_MAP_IN, tstamp);
	if (!e)
		return;
	e->pid = PMCLOG_PID_KERNEL;
	e->flags = flags;
	e->start = start;
	e->end = start + size;
	e->offset = 0;
	set_name(e, mod->name, sizeof(mod->name));
	send_named(e);
}

static __always_inline void module_map_out(__u64 start, __u64 size)
{
	struct pmclog_map_out *r;

	if (!size)
		return;
	r = reserve(sizeof(*r));
	if (!r)
		return;
	hdr_init(&r->header, PMCLOG_TYPE_MAP_OUT, sizeof(*r), bpf_ktime_get_ns());
	r->pid = PMCLOG_PID_KERNEL;
	r->__reserved = 0;
	r->start = start;
	r->end = start + size;
	bpf_ringbuf_submit(r, wakeup_flags());
}

struct ksym_walk {
	struct mod_kallsyms *ks;
	__u64 tstamp;
};

/* bpf_loop() callback: symbol i of the loading module, if a function. */
static long ksym_one(__u32 i, struct ksym_walk *w)
{
	struct mod_kallsyms *ks = w->ks;	/* a local: see path_step() */
	struct elf64_sym *sym = BPF_CORE_READ(ks, symtab) + i;
	struct pmclog_bpf_ksymbol *e;
	char type;

	bpf_probe_read_kernel(&type, 1, BPF_CORE_READ(ks, typetab) + i);
	if (type != 't' && type != 'T')
		return 0;
	e = reserve(sizeof(*e));
	if (!e)
		return 0;
	hdr_init(&e->header, PMCLOG_BPF_EV_KSYMBOL, sizeof(*e), w->tstamp);
	e->start = BPF_CORE_READ(sym, st_value);
	e->size = BPF_CORE_READ(sym, st_size);
	if (bpf_probe_read_kernel_str(e->name, sizeof(e->name),
				      BPF_CORE_READ(ks, strtab) + BPF_CORE_READ(sym, st_name)) <= 0)
		e->name[0] = 0;
	bpf_ringbuf_submit(e, wakeup_flags());
	return 0;
}

/*
 * do_init_module(mod): the module is COMING, its text and its full
 * symbol table (init functions included) in place.
 */
/* The module between do_init_module()'s entry and return, by thread. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} loading SEC(".maps");

PMCLOG_PROBE("kprobe/do_init_module", pmclog_module_load)
{
	struct module *mod = (void *)kernel_arg(ctx, 0);
	__u64 id = bpf_get_current_pid_tgid(), m = (__u64)mod;
	struct mod_kallsyms *ks;
	struct ksym_walk w;
	struct mod_text t;

	if (!running)
		return 0;
	bpf_map_update_elem(&loading, &id, &m, BPF_ANY);
	module_text(mod, &t);
	w.tstamp = bpf_ktime_get_ns();
	module_map_in(mod, t.core_start, t.core_size, PMCLOG_MAP_F_KMODULE, w.tstamp);
	module_map_in(mod, t.init_start, t.init_size,
		      PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INIT, w.tstamp);
	ks = BPF_CORE_READ(mod, kallsyms);
	w.ks = ks;
	bpf_loop(BPF_CORE_READ(ks, num_symtab), ksym_one, &w, 0);
	return 0;
}

/* Its init ran: the init text is freed, whether init succeeded or not. */
PMCLOG_PROBE("kretprobe/do_init_module", pmclog_module_live)
{
	__u64 id = bpf_get_current_pid_tgid(), *m = bpf_map_lookup_elem(&loading, &id);
	struct module *mod;
	struct mod_text t;

	if (!m)
		return 0;
	mod = (void *)*m;
	bpf_map_delete_elem(&loading, &id);
	if (!running)
		return 0;
	module_text(mod, &t);
	module_map_out(t.init_start, t.init_size);
	return 0;
}

PMCLOG_PROBE("kprobe/free_module", pmclog_module_unload)
{
	struct module *mod = (void *)kernel_arg(ctx, 0);
	struct mod_text t;

	if (!running)
		return 0;
	module_text(mod, &t);
	module_map_out(t.core_start, t.core_size);
	return 0;
}

/*
 * Run once at START (BPF_PROG_TEST_RUN): the modules already loaded,
 * from the list at `modules_head' (its address in /proc/kallsyms), as
 * MAP_INs with PMCLOG_MAP_F_INITIAL at `start_tstamp'.
 */
__u64 modules_head;
__u64 start_tstamp;

struct mod_walk {
	struct list_head *pos;
};

static long module_one(__u32 i, struct mod_walk *w)
{
	struct list_head *pos = w->pos;	/* a local: see path_step() */
	struct module *mod;
	struct mod_text t;

	if ((__u64)pos == modules_head || !pos)
		return 1;
	mod = pmclog_container_of(pos, struct module, list);
	module_text(mod, &t);
	module_map_in(mod, t.core_start, t.core_size,
		      PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INITIAL, start_tstamp);
	w->pos = BPF_CORE_READ(pos, next);
	return 0;
}

SEC("raw_tp")
int pmclog_snapshot_modules(void *ctx)
{
	struct mod_walk w;

	if (!modules_head)
		return 0;
	bpf_probe_read_kernel(&w.pos, sizeof(w.pos), &((struct list_head *)modules_head)->next);
	bpf_loop(4096, module_one, &w, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* kprobe.multi dispatchers (see PMCLOG_PROBE)                          */

#define PMCLOG_DISPATCH(id, handler)				\
	case PMCLOG_BPF_P_##id:					\
		return handler##_on(ctx);

SEC("kprobe.multi")
int pmclog_multi_entry(struct pt_regs *ctx)
{
	switch (bpf_get_attach_cookie(ctx)) {
	PMCLOG_BPF_ENTRY_PROBES(PMCLOG_DISPATCH)
	}
	return 0;
}

SEC("kretprobe.multi")
int pmclog_multi_return(struct pt_regs *ctx)
{
	switch (bpf_get_attach_cookie(ctx)) {
	PMCLOG_BPF_RETURN_PROBES(PMCLOG_DISPATCH)
	}
	return 0;
}
