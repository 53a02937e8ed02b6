// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog BPF collector: a pmclog log without the module, for kernels
 * that refuse it (Secure Boot's lockdown=integrity refuses unsigned
 * modules, not BPF).  See pmclog_device.h, pmclog_device__open_bpf().
 *
 * It is a device like the module's: the same ioctls, answered here, and
 * the same records, read from a pipe.  bpf/pmclog.bpf.c hooks what the
 * module hooks and writes to one BPF ring buffer; a thread of this
 * library drains the ring and writes the log into the pipe:
 *
 *   at open       INITIALIZE (PMCLOG_HF_BPF)
 *   ALLOCATE      PMCALLOCATE; the event is tried with perf_event_open()
 *   START         the programs loaded and attached, a perf event per CPU
 *                 and PMC; MAP_IN of the kernel (/proc/kallsyms), of the
 *                 loaded modules (the programs walk the module list) and
 *                 of the targets' executable mappings (/proc/PID/maps),
 *                 all with PMCLOG_MAP_F_INITIAL and START's time
 *   running       the ring's records, as they are, or built from its
 *                 events (paths, KSYMBOLs, MAP_OUTs)
 *   STOP          the ring drained, CLOSELOG, end of file
 *
 * BPF sees an unmapped range, not the vmas in it: pmclog_bpf_ring.c
 * keeps the executable mappings of every process the log follows, and
 * makes an unmap the MAP_OUTs of the executable parts it removed, an
 * exec or an exit the MAP_OUTs of all of them, as the module writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cpuid.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "pmclog_device.h"
#include "pmclog_internal.h"
#include "../bpf/pmclog_bpf_events.h"
#include "pmclog.skel.h"

#define BPF_MAX_PMCS	8
#define BPF_RING_SIZE	(8U << 20)
#define BPF_POLL_MS	50
#define BPF_CC_DEPTH	127	/* PMCLOG_BPF_CC_DEPTH: perf_event_max_stack's default */
/* The kernel's link-time address of _text on x86-64 (__START_KERNEL). */
#define KERNEL_LINK_TEXT	0xffffffff81000000ULL

struct bpf_pmc {
	struct pmclog_alloc alloc;
	struct perf_event_attr attr;
};

/*
 * The kprobes: at most MAX_FIXED programs name their function in their
 * SEC(), and chosen_probes() has MAX_CHOSEN more.
 */
#define MAX_FIXED	16
#define MAX_CHOSEN	8
#define MAX_PROBES	(MAX_FIXED + MAX_CHOSEN)

struct pmclog_bpf {
	struct pmclog_bpf_skel *skel;
	struct ring_buffer *rb;
	int wr;			/* the pipe's write end; the device has the other */
	int ncpus;
	struct bpf_pmc pmcs[BPF_MAX_PMCS];
	unsigned int npmcs;
	bool attached, started, stopped;
	struct pmclog_attach at;
	int *perf_fds;		/* npmcs * ncpus, -1 where none */
	struct bpf_link **links;
	struct bpf_link *probe_links[MAX_CHOSEN];	/* attach_chosen_probes() */
	/*
	 * kprobe.multi: every kprobe in one link, every kretprobe in another
	 * (multi_links[1]), each dispatching on the probe's cookie; no_multi
	 * once the kernel refused them.
	 */
	bool multi, no_multi;
	struct bpf_link *multi_links[2];
	struct bpf_program *fixed[MAX_FIXED];	/* kprobes named in their SEC(), loaded */
	unsigned int nfixed;
	const char *munmap_func;	/* the munmap core's name on this kernel */
	bool mmap_region_unmaps;	/* 6.12: mmap_region() unmaps by itself */
	bool munmap_align;		/* the core is do_{vmi,mas}_align_munmap() */
	bool have_vms_complete;		/* 6.12: vms_complete_munmap_vmas() */
	bool have_merge_extend;		/* vma_merge_extend(): mremap growth */
	bool have_vma_adjust;		/* before 6.3: __vma_adjust() */
	pthread_t thread;
	bool thread_live;
	atomic_bool stop;	/* STOP: drain the ring, then CLOSELOG */
	atomic_bool closing;	/* the device is closed: stop writing */
	int error;		/* the thread's: a write to the pipe failed */
	struct pmclog_bpf_ring *ring;	/* the records, from the ring (pmclog_bpf_ring.c) */
};

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned int this_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : cpu;
}

/*
 * Write what is in c->out to the pipe; the thread keeps trying while the
 * reader is slow, until it is told to stop.
 */
static int out_flush(struct pmclog_bpf *c)
{
	size_t done = 0, len;
	const unsigned char *out = pmclog_bpf_ring__output(c->ring, &len);

	while (done < len && !c->error) {
		ssize_t n = write(c->wr, out + done, len - done);

		if (n > 0) {
			done += n;
		} else if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = c->wr, .events = POLLOUT };

			/* Nobody will read on: the device is being closed. */
			if (atomic_load(&c->closing))
				break;
			poll(&p, 1, BPF_POLL_MS);
		} else if (n < 0 && errno != EINTR) {
			c->error = errno;
		}
	}
	pmclog_bpf_ring__taken(c->ring);
	return c->error ? -c->error : 0;
}

/* libbpf's callback: one record of the ring. */
static int on_ring(void *ctx, void *data, size_t size)
{
	struct pmclog_bpf *c = ctx;
	size_t len;

	pmclog_bpf_ring__record(c->ring, data, size);
	/* Samples come by the thousand: written in batches. */
	pmclog_bpf_ring__output(c->ring, &len);
	if (len >= (1U << 20))
		out_flush(c);
	return 0;
}

/* The totals over every CPU. */
static void sum_stats(struct pmclog_bpf *c, struct pmclog_bpf_cpu_stats *sum)
{
	struct pmclog_bpf_cpu_stats *per;
	__u32 zero = 0;
	int i;

	memset(sum, 0, sizeof(*sum));
	per = calloc(c->ncpus, sizeof(*per));
	if (!per)
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.stats), &zero, per)) {
		for (i = 0; i < c->ncpus; i++) {
			sum->samples += per[i].samples;
			sum->samples_dropped += per[i].samples_dropped;
			sum->records_dropped += per[i].records_dropped;
			sum->pend_samples += per[i].pend_samples;
			sum->pend_records += per[i].pend_records;
		}
	}
	free(per);
}

static void *collector_thread(void *arg)
{
	struct pmclog_bpf *c = arg;
	struct pmclog_bpf_cpu_stats st;
	struct pmclog_closelog *r;

	while (!atomic_load(&c->stop) && !c->error) {
		int n = ring_buffer__poll(c->rb, BPF_POLL_MS);

		if (n < 0 && n != -EINTR)
			break;
		/*
		 * Records do not wake the ring's poll until it is half full
		 * (pmclog.bpf.c): what came meanwhile is taken at this tick.
		 */
		if (ring_buffer__consume(c->rb) < 0)
			break;
		out_flush(c);
	}
	/* Stopped: running is off, so what is in the ring is all there is. */
	ring_buffer__consume(c->rb);
	sum_stats(c, &st);
	if (st.pend_samples || st.pend_records) {
		struct pmclog_dropnotify *d = pmclog_bpf_ring__reserve(c->ring, sizeof(*d));

		if (d) {
			pmclog_bpf_ring__hdr_init(&d->header, PMCLOG_TYPE_DROPNOTIFY, sizeof(*d), this_cpu(),
				 now_ns(CLOCK_MONOTONIC));
			d->samples = st.pend_samples;
			d->records = st.pend_records;
		}
	}
	r = pmclog_bpf_ring__reserve(c->ring, sizeof(*r));
	if (r) {
		pmclog_bpf_ring__hdr_init(&r->header, PMCLOG_TYPE_CLOSELOG, sizeof(*r), this_cpu(),
			 now_ns(CLOCK_MONOTONIC));
		r->samples = st.samples;
		r->samples_dropped = st.samples_dropped;
		r->records_dropped = st.records_dropped + pmclog_bpf_ring__lost(c->ring);
	}
	out_flush(c);
	close(c->wr);
	c->wr = -1;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* START's snapshots                                                    */

/* What START needs of /proc/kallsyms: one pass, up to the modules' symbols. */
struct kernel_syms {
	__u64 text, stext, etext;
	__u64 modules;			/* the module list's head */
	__u64 special_mapping_vmops;	/* the vm_ops of "[vdso]" and its kind */
	__u64 simple_dname;		/* how d_path() names a pseudo file */
};

static int read_kernel_syms(struct kernel_syms *k)
{
	char *line = NULL;
	size_t cap = 0;
	struct pmclog_ksym_line l;
	FILE *f = fopen("/proc/kallsyms", "re");

	memset(k, 0, sizeof(*k));
	if (!f)
		return -errno;
	/* Whole lines: the rest of a long one is no line of its own. */
	while (getline(&line, &cap, f) >= 0) {
		if (!pmclog_ksym_line__parse(line, &l))
			continue;
		if (l.mod_len)
			break;	/* the modules' symbols follow the kernel's */
		if (pmclog_ksym_line__is(&l, "_text"))
			k->text = l.addr;
		else if (pmclog_ksym_line__is(&l, "_stext"))
			k->stext = l.addr;
		else if (pmclog_ksym_line__is(&l, "_etext"))
			k->etext = l.addr;
		else if (pmclog_ksym_line__is(&l, "modules") && strchr("dDbB", l.type))
			k->modules = l.addr;
		else if (pmclog_ksym_line__is(&l, "special_mapping_vmops"))
			k->special_mapping_vmops = l.addr;
		else if (pmclog_ksym_line__is(&l, "simple_dname"))
			k->simple_dname = l.addr;
	}
	free(line);
	fclose(f);
	if (!k->stext || k->etext <= k->stext) {
		pr_warn("BPF collector: /proc/kallsyms has no kernel text (_stext, _etext): is kptr_restrict hiding it? (sysctl kernel.kptr_restrict=0)\n");
		return -ENOENT;
	}
	return 0;
}

/* The kernel's text, as the module's START writes it. */
static void kernel_snapshot(struct pmclog_bpf *c, const struct kernel_syms *k, __u64 tstamp)
{
	pmclog_bpf_ring__map_in(c->ring, PMCLOG_PID_KERNEL, PMCLOG_MAP_F_INITIAL, k->stext, k->etext,
		   KERNEL_LINK_TEXT + (k->stext - (k->text ? k->text : k->stext)), "[kernel]",
		   this_cpu(), tstamp);
}

static int modules_snapshot(struct pmclog_bpf *c, __u64 modules)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (!modules)
		return 0;
	c->skel->bss->modules_head = modules;
	return bpf_prog_test_run_opts(bpf_program__fd(c->skel->progs.pmclog_snapshot_modules),
				      &opts);
}

/*
 * The executable mappings of pid, from /proc/PID/maps.  Its owner names
 * the files, and this runs as root: its lines are taken whole or not at
 * all (pmclog_maps_line.c).
 */
static void process_snapshot(struct pmclog_bpf *c, __u32 pid, __u64 tstamp)
{
	char file[64], *buf = NULL;
	size_t cap = 0;
	struct pmclog_maps_line l;
	unsigned int cpu = this_cpu();
	FILE *f;
	int ret;

	snprintf(file, sizeof(file), "/proc/%u/maps", pid);
	f = fopen(file, "re");
	if (!f)
		return;
	while ((ret = pmclog_maps_line__next(f, &buf, &cap, &l))) {
		const char *path = l.path;
		__u32 flags = PMCLOG_MAP_F_INITIAL;
		__u64 off = l.offset;

		if (ret == -EINVAL)
			continue;
		if (ret < 0) {
			pr_warn("BPF collector: %s: %s; the START snapshot misses mappings of pid %u\n",
				file, strerror(-ret), pid);
			break;
		}
		if (l.perms[2] != 'x')
			continue;
		if (!strcmp(path, "[vsyscall]"))
			continue;	/* the gate area: no vma, never a MAP_IN */
		if (*path != '/') {
			flags |= PMCLOG_MAP_F_ANON;
			off = 0;
			if (!*path)
				path = "[anon exec]";
		}
		pmclog_bpf_ring__map_in(c->ring, pid, flags, l.start, l.end, off, path, cpu, tstamp);
	}
	free(buf);
	fclose(f);
}

static void processes_snapshot(struct pmclog_bpf *c, __u64 tstamp)
{
	struct dirent *d;
	DIR *dir;

	if (c->at.mode == PMCLOG_ATTACH_PROCESS) {
		process_snapshot(c, c->at.pid, tstamp);
		return;
	}
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);

		if (*end || !pid)
			continue;
		process_snapshot(c, pid, tstamp);
	}
	closedir(dir);
}

/* ------------------------------------------------------------------ */
/* Loading                                                              */

static bool kernel_has_func(const struct btf *btf, const char *name)
{
	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

/* Parameters of the kernel function name; -1 if it has none in BTF. */
static int kernel_func_params(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	int id;

	if (!btf || (id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC)) <= 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t ? btf_vlen(t) : -1;
}

/*
 * Choose the programs this kernel needs (the table in bpf/pmclog.bpf.c):
 * the munmap core's name, 6.12's mmap_region(), how mremap grows a
 * mapping in place, attached by attach_chosen_probes(); the shape of mprotect_fixup(); the hooks whose
 * functions this kernel lacks are left out, and said.
 */
static int choose_programs(struct pmclog_bpf *c)
{
	struct pmclog_bpf_skel *s = c->skel;
	struct btf *btf = btf__load_vmlinux_btf();
	int np;

	if (!btf) {
		pr_warn("BPF collector: the kernel has no BTF (/sys/kernel/btf/vmlinux): %s; it needs CONFIG_DEBUG_INFO_BTF\n",
			strerror(errno));
		return -ENOENT;
	}
	/*
	 * 6.12's mmap_region() replaces a MAP_FIXED range without the core,
	 * and vms_complete_munmap_vmas() says when the old vmas are gone.
	 */
	c->mmap_region_unmaps = kernel_has_func(btf, "vms_gather_munmap_vmas");
	/*
	 * munmap's core: do_vmi_align_munmap(vmi, vma, mm, start, end, uf,
	 * unlock) from 6.3 (kmod/pmclog_compat.c says more), and before it
	 * do_mas_align_munmap(mas, vma, mm, start, end, uf, downgrade), the
	 * same where it matters.  do_vmi_munmap() and do_mas_munmap() call
	 * it when the range holds a vma (mmap_region() calls them for every
	 * new mapping), brk shrinking past them, as 6.12's shmdt() does.
	 */
	c->munmap_align = true;
	c->munmap_func = kernel_has_func(btf, "do_vmi_align_munmap") ? "do_vmi_align_munmap" :
			 kernel_has_func(btf, "do_mas_align_munmap") ? "do_mas_align_munmap" : NULL;
	if (!c->munmap_func) {
		c->munmap_align = false;
		c->munmap_func = kernel_has_func(btf, "do_vmi_munmap") ? "do_vmi_munmap" :
				 kernel_has_func(btf, "do_mas_munmap") ? "do_mas_munmap" : NULL;
	}
	if (!c->munmap_func)
		pr_warn("BPF collector: this kernel has neither do_vmi_munmap() nor do_mas_munmap(): munmap is not tracked\n");
	c->have_vms_complete = kernel_has_func(btf, "vms_complete_munmap_vmas");
	if (c->mmap_region_unmaps && !c->have_vms_complete)
		pr_warn("BPF collector: this kernel has no vms_complete_munmap_vmas(): a MAP_FIXED mmap that fails leaving a gap keeps the old mapping in the log\n");
	c->have_merge_extend = kernel_has_func(btf, "vma_merge_extend");
	c->have_vma_adjust = kernel_has_func(btf, "__vma_adjust");
	if (!c->have_merge_extend && !c->have_vma_adjust)
		pr_warn("BPF collector: this kernel has neither vma_merge_extend() nor __vma_adjust(): an executable mapping that mremap grows in place is not seen growing\n");
	np = kernel_func_params(btf, "mprotect_fixup");
	s->rodata->mprotect_vmi = np == 7;
	if (np != 6 && np != 7) {
		pr_warn("BPF collector: this kernel's mprotect_fixup() is not one it knows: mprotect removing PROT_EXEC is not tracked\n");
		bpf_program__set_autoload(s->progs.pmclog_mprotect_entry, false);
		bpf_program__set_autoload(s->progs.pmclog_mprotect_exit, false);
	}
	if (!kernel_has_func(btf, "do_init_module") || !kernel_has_func(btf, "free_module")) {
		bpf_program__set_autoload(s->progs.pmclog_module_load, false);
		bpf_program__set_autoload(s->progs.pmclog_module_live, false);
		bpf_program__set_autoload(s->progs.pmclog_module_unload, false);
	}
	if (!kernel_has_func(btf, "taskstats_exit")) {
		pr_warn("BPF collector: this kernel has no taskstats_exit(): no PROCEXIT\n");
		bpf_program__set_autoload(s->progs.pmclog_exit, false);
	}
	/*
	 * kprobe.multi links need fprobe (CONFIG_FPROBE: Debian's 6.12, not
	 * its 6.1), whose register_fprobe() the BTF names.  Where they work
	 * the kprobes detach in one go at the end (6.12-rt under TCG: 1 s,
	 * against 9 s one by one) and attach faster.
	 */
	c->multi = !c->no_multi && kernel_has_func(btf, "register_fprobe");
	c->nfixed = 0;
	if (c->multi) {
		struct bpf_program *prog;

		/* The dispatchers run them: none is loaded as its own. */
		bpf_object__for_each_program(prog, s->obj) {
			if (bpf_program__type(prog) != BPF_PROG_TYPE_KPROBE ||
			    prog == s->progs.pmclog_multi_entry ||
			    prog == s->progs.pmclog_multi_return)
				continue;
			if (bpf_program__autoload(prog) &&
			    strchr(bpf_program__section_name(prog), '/')) {
				if (c->nfixed == MAX_FIXED) {
					pr_warn("BPF collector: more than %d kprobe programs name their function: MAX_FIXED is too small\n",
						MAX_FIXED);
					btf__free(btf);
					return -E2BIG;
				}
				c->fixed[c->nfixed++] = prog;
			}
			bpf_program__set_autoload(prog, false);
		}
		bpf_program__set_autoattach(s->progs.pmclog_multi_entry, false);
		bpf_program__set_autoattach(s->progs.pmclog_multi_return, false);
	} else {
		bpf_program__set_autoload(s->progs.pmclog_multi_entry, false);
		bpf_program__set_autoload(s->progs.pmclog_multi_return, false);
	}
	btf__free(btf);
	return 0;
}

/* A probe: a program (a handler of pmclog.bpf.c) on a kernel function. */
struct probe {
	struct bpf_program *prog;
	const char *func;	/* NULL: not on this kernel */
	bool ret;
	const char *without;	/* not needed: what is lost without it */
};

/* The probes whose function is chosen here, not named in their SEC(). */
static unsigned int chosen_probes(const struct pmclog_bpf *c, struct probe *p)
{
	const struct probe probes[] = {
		{ c->skel->progs.pmclog_vma_merge_extend,
		  c->have_merge_extend ? "vma_merge_extend" : NULL, true, NULL },
		{ c->skel->progs.pmclog_vma_adjust_entry,
		  c->have_vma_adjust ? "__vma_adjust" : NULL, false, NULL },
		{ c->skel->progs.pmclog_vma_adjust_exit,
		  c->have_vma_adjust ? "__vma_adjust" : NULL, true, NULL },
		{ c->munmap_align ? c->skel->progs.pmclog_munmap_align_entry :
				    c->skel->progs.pmclog_munmap_entry, c->munmap_func, false, NULL },
		{ c->skel->progs.pmclog_munmap_exit, c->munmap_func, true, NULL },
		{ c->skel->progs.pmclog_mmap_region_entry,
		  c->mmap_region_unmaps ? "mmap_region" : NULL, false, NULL },
		{ c->skel->progs.pmclog_mmap_region_exit,
		  c->mmap_region_unmaps ? "mmap_region" : NULL, true, NULL },
		{ c->skel->progs.pmclog_mmap_gap,
		  c->mmap_region_unmaps && c->have_vms_complete ?
		  "vms_complete_munmap_vmas" : NULL, false,
		  "a MAP_FIXED mmap that fails leaving a gap keeps the old mapping in the log" },
	};
	unsigned int i;

	_Static_assert(sizeof(probes) / sizeof(probes[0]) <= MAX_CHOSEN,
		       "MAX_CHOSEN is too small");
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		p[i] = probes[i];
	return i;
}

static int attach_chosen_probes(struct pmclog_bpf *c)
{
	struct probe probes[MAX_PROBES];
	unsigned int i, n = chosen_probes(c, probes);

	for (i = 0; i < n; i++) {
		if (!probes[i].func)
			continue;
		c->probe_links[i] = bpf_program__attach_kprobe(probes[i].prog, probes[i].ret,
							       probes[i].func);
		if (!c->probe_links[i]) {
			int err = -errno;

			if (probes[i].without) {
				pr_warn("BPF collector: cannot probe %s(): %s; %s\n",
					probes[i].func, strerror(-err), probes[i].without);
				continue;
			}
			pr_warn("BPF collector: cannot probe %s(): %s\n", probes[i].func,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * @prog's cookie in the kprobe.multi dispatcher of its side (@ret: the
 * returns'); 0 where that dispatcher has no case for it, which
 * PMCLOG_BPF_ENTRY_PROBES and PMCLOG_BPF_RETURN_PROBES should not allow.
 */
static __u64 probe_cookie(const struct pmclog_bpf *c, const struct bpf_program *prog,
			  bool ret)
{
	const struct pmclog_bpf_skel *s = c->skel;
	const struct {
		const struct bpf_program *prog;
		__u64 cookie;
		bool ret;
	} t[] = {
#define PMCLOG_ENTRY_COOKIE(id, handler) { s->progs.handler, PMCLOG_BPF_P_##id, false },
#define PMCLOG_RETURN_COOKIE(id, handler) { s->progs.handler, PMCLOG_BPF_P_##id, true },
		PMCLOG_BPF_ENTRY_PROBES(PMCLOG_ENTRY_COOKIE)
		PMCLOG_BPF_RETURN_PROBES(PMCLOG_RETURN_COOKIE)
#undef PMCLOG_ENTRY_COOKIE
#undef PMCLOG_RETURN_COOKIE
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].prog == prog && t[i].ret == ret)
			return t[i].cookie;
	return 0;
}

/*
 * Every probe in two kprobe.multi links, one for the entries and one for
 * the returns: those named in their SEC() that choose_programs() kept,
 * and the chosen ones.  A link is refused whole if one function cannot
 * be probed: it is tried again without the probes that are not needed.
 */
static int attach_multi(struct pmclog_bpf *c)
{
	struct probe probes[MAX_PROBES];
	__u64 cookies[MAX_PROBES];
	unsigned int i, n = 0, r;
	bool optional = true, retry = false;
	int err = 0;

	for (i = 0; i < c->nfixed; i++) {
		const char *sec = bpf_program__section_name(c->fixed[i]);

		probes[n++] = (struct probe){ c->fixed[i], strchr(sec, '/') + 1,
					      !strncmp(sec, "kretprobe", 9), NULL };
	}
	n += chosen_probes(c, probes + n);
	for (i = 0; i < n; i++) {
		cookies[i] = probe_cookie(c, probes[i].prog, probes[i].ret);
		if (!cookies[i]) {
			pr_warn("BPF collector: the kprobe.multi %s dispatcher has no case for %s\n",
				probes[i].ret ? "return" : "entry",
				bpf_program__name(probes[i].prog));
			return -ENOENT;
		}
	}
again:
	for (r = 0; r < 2; r++) {
		const char *syms[MAX_PROBES];
		__u64 cookie[MAX_PROBES];
		size_t cnt = 0;

		for (i = 0; i < n; i++) {
			if (!probes[i].func || probes[i].ret != !!r ||
			    (!optional && probes[i].without))
				continue;
			syms[cnt] = probes[i].func;
			cookie[cnt++] = cookies[i];
		}
		if (!cnt)
			continue;
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cookies = cookie,
			    .cnt = cnt, .retprobe = r);
		c->multi_links[r] = bpf_program__attach_kprobe_multi_opts(
			r ? c->skel->progs.pmclog_multi_return : c->skel->progs.pmclog_multi_entry,
			NULL, &o);
		if (!c->multi_links[r]) {
			err = -errno;
			break;
		}
	}
	if (!err)
		return 0;
	for (r = 0; r < 2; r++) {
		bpf_link__destroy(c->multi_links[r]);
		c->multi_links[r] = NULL;
	}
	if (!optional)
		return err;
	/* Once more without the probes that are not needed, if any. */
	optional = false;
	for (i = 0; i < n; i++) {
		if (!probes[i].func || !probes[i].without)
			continue;
		pr_warn("BPF collector: kprobe.multi refused (%s); trying without %s(): %s\n",
			strerror(-err), probes[i].func, probes[i].without);
		retry = true;
	}
	if (!retry)
		return err;
	err = 0;
	goto again;
}

static int say_load_error(int err)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (strstr(buf, "[confidentiality]")) {
		pr_warn("BPF collector: cannot load its programs: %s; the kernel is in lockdown=confidentiality, which forbids reading kernel memory from BPF: neither the module nor BPF can profile here\n",
			strerror(-err));
		return -EPERM;
	}
	if (err == -EPERM)
		pr_warn("BPF collector: cannot load its programs: %s; it needs root, or CAP_BPF and CAP_PERFMON\n",
			strerror(-err));
	else
		pr_warn("BPF collector: cannot load its programs: %s\n", strerror(-err));
	return err;
}

static int open_perf_events(struct pmclog_bpf *c)
{
	unsigned int i;
	int cpu, opened = 0;

	c->perf_fds = malloc(sizeof(int) * c->npmcs * c->ncpus);
	c->links = calloc(c->npmcs * c->ncpus, sizeof(*c->links));
	if (!c->perf_fds || !c->links)
		return -ENOMEM;
	for (i = 0; i < c->npmcs * c->ncpus; i++)
		c->perf_fds[i] = -1;
	for (i = 0; i < c->npmcs; i++) {
		for (cpu = 0; cpu < c->ncpus; cpu++) {
			LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = c->pmcs[i].alloc.pmcid);
			int k = i * c->ncpus + cpu;
			int fd = syscall(SYS_perf_event_open, &c->pmcs[i].attr, -1, cpu, -1,
					 PERF_FLAG_FD_CLOEXEC);

			if (fd < 0) {
				if (errno == ENODEV || errno == EINVAL)
					continue;	/* an offline CPU */
				pr_warn("BPF collector: perf_event_open on CPU %d: %s\n", cpu,
					strerror(errno));
				return -errno;
			}
			c->perf_fds[k] = fd;
			c->links[k] = bpf_program__attach_perf_event_opts(c->skel->progs.pmclog_sample,
									 fd, &po);
			if (!c->links[k]) {
				int err = -errno;

				c->links[k] = NULL;
				pr_warn("BPF collector: cannot attach to the perf event on CPU %d: %s\n",
					cpu, strerror(-err));
				return err;
			}
			opened++;
		}
	}
	return opened ? 0 : -ENODEV;
}

static int collector_start(struct pmclog_bpf *c);

/*
 * The kernel refused the kprobe.multi programs or links (@why, @err)
 * before anything else was open: start again with one program a probe.
 */
static int restart_without_multi(struct pmclog_bpf *c, const char *why, int err)
{
	unsigned int i;

	pr_warn("BPF collector: %s: %s; probing each function by itself\n", why,
		strerror(-err));
	for (i = 0; i < 2; i++) {
		bpf_link__destroy(c->multi_links[i]);
		c->multi_links[i] = NULL;
	}
	pmclog_bpf_skel__destroy(c->skel);
	c->skel = NULL;
	c->no_multi = true;
	return collector_start(c);
}

static int collector_start(struct pmclog_bpf *c)
{
	struct kernel_syms ksyms;
	unsigned int i;
	__u64 tstamp;
	__u8 one = 1;
	int err;

	if (c->started)
		return -EBUSY;
	if (!c->npmcs || !c->attached)
		return -EINVAL;
	c->skel = pmclog_bpf_skel__open();
	if (!c->skel)
		return say_load_error(-errno);
	c->skel->rodata->system_wide = c->at.mode == PMCLOG_ATTACH_SYSTEM;
	c->skel->rodata->inherit = c->at.flags & PMCLOG_ATTACH_F_CHILDREN;
	c->skel->rodata->ring_size = BPF_RING_SIZE;
	bpf_map__set_max_entries(c->skel->maps.ring, BPF_RING_SIZE);
	err = choose_programs(c);
	if (err)
		return err;
	err = pmclog_bpf_skel__load(c->skel);
	/* The dispatchers hold every handler: the verifier may balk. */
	if (err && c->multi && err != -EPERM)
		return restart_without_multi(c, "the kprobe.multi programs do not load", err);
	if (err)
		return say_load_error(err);
	if (c->at.mode == PMCLOG_ATTACH_PROCESS)
		bpf_map_update_elem(bpf_map__fd(c->skel->maps.followed), &c->at.pid, &one, BPF_ANY);
	for (i = 0; i < c->npmcs; i++) {
		__u32 id = c->pmcs[i].alloc.pmcid, depth = c->pmcs[i].alloc.callchain_depth;

		if (c->pmcs[i].alloc.flags & PMCLOG_PMC_F_CALLCHAIN)
			bpf_map_update_elem(bpf_map__fd(c->skel->maps.cc_depth), &id, &depth,
					    BPF_ANY);
	}
	err = pmclog_bpf_skel__attach(c->skel);
	if (err) {
		pr_warn("BPF collector: cannot attach its programs: %s\n", strerror(-err));
		return err;
	}
	err = c->multi ? attach_multi(c) : attach_chosen_probes(c);
	if (err && c->multi)
		return restart_without_multi(c, "kprobe.multi links refused", err);
	if (err)
		return err;
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.ring), on_ring, c, NULL);
	if (!c->rb)
		return -errno;
	err = open_perf_events(c);
	if (err)
		return err;

	err = read_kernel_syms(&ksyms);
	if (err)
		return err;
	c->skel->bss->special_mapping_vmops = ksyms.special_mapping_vmops;
	c->skel->bss->simple_dname = ksyms.simple_dname;

	/* From here on every change is in the ring; what was there before is read now. */
	tstamp = now_ns(CLOCK_MONOTONIC);
	c->skel->bss->start_tstamp = tstamp;
	c->skel->bss->running = true;
	kernel_snapshot(c, &ksyms, tstamp);
	err = modules_snapshot(c, ksyms.modules);
	if (err)
		pr_warn("BPF collector: the loaded modules could not be listed: %s\n",
			strerror(-err));
	processes_snapshot(c, tstamp);
	err = out_flush(c);
	if (err)
		return err;
	err = pthread_create(&c->thread, NULL, collector_thread, c);
	if (err)
		return -err;
	c->thread_live = true;
	c->started = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The device's ioctls                                                  */

static const struct {
	__u32 type;
	__u64 config;
} bpf_event_map[] = {
	[PMCLOG_EV_CPU_CLOCK]		= { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	[PMCLOG_EV_CYCLES]		= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[PMCLOG_EV_INSTRUCTIONS]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	[PMCLOG_EV_REF_CYCLES]		= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	[PMCLOG_EV_BRANCHES]		= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	[PMCLOG_EV_BRANCH_MISSES]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	[PMCLOG_EV_CACHE_REFERENCES]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	[PMCLOG_EV_CACHE_MISSES]	= { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	[PMCLOG_EV_RAW]			= { PERF_TYPE_RAW, 0 },
};

static bool name_ok(const char *s, size_t size)
{
	size_t i;

	for (i = 0; i < size && s[i]; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return i < size;
}

static int collector_allocate(struct pmclog_bpf *c, struct pmclog_alloc *a)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct pmclog_pmcallocate *r;
	struct bpf_pmc *p;
	int fd;

	if (c->started)
		return -EBUSY;
	if (c->npmcs == BPF_MAX_PMCS)
		return -ENOSPC;
	if (!a->event || a->event > PMCLOG_EV_RAW || a->flags & ~PMCLOG_PMC_F_ALL ||
	    a->__reserved || !name_ok(a->name, sizeof(a->name)) ||
	    (a->event != PMCLOG_EV_RAW && a->config) ||
	    (!a->period && (a->flags & PMCLOG_PMC_F_FREQ)) || !a->period)
		return -EINVAL;
	if (a->callchain_depth && !(a->flags & PMCLOG_PMC_F_CALLCHAIN))
		return -EINVAL;
	/* As the module with callchain_max_depth at its default, 127. */
	if (a->flags & PMCLOG_PMC_F_CALLCHAIN) {
		if (!a->callchain_depth)
			a->callchain_depth = BPF_CC_DEPTH;
		if (a->callchain_depth > BPF_CC_DEPTH)
			return -EOVERFLOW;
	}
	if (!(a->flags & (PMCLOG_PMC_F_USER | PMCLOG_PMC_F_KERNEL)))
		a->flags |= PMCLOG_PMC_F_USER | PMCLOG_PMC_F_KERNEL;
	attr.type = bpf_event_map[a->event].type;
	attr.config = a->event == PMCLOG_EV_RAW ? a->config : bpf_event_map[a->event].config;
	attr.freq = !!(a->flags & PMCLOG_PMC_F_FREQ);
	attr.sample_period = a->period;	/* sample_freq with freq: the same field */
	attr.exclude_user = !(a->flags & PMCLOG_PMC_F_USER);
	attr.exclude_kernel = !(a->flags & PMCLOG_PMC_F_KERNEL);
	attr.exclude_hv = 1;
	attr.disabled = 0;
	/* Asked once now, so that a missing PMU fails here, as with the module. */
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == EOPNOTSUPP ? -ENODEV : -errno;
	close(fd);

	p = &c->pmcs[c->npmcs];
	p->alloc = *a;
	p->attr = attr;
	a->pmcid = p->alloc.pmcid = ++c->npmcs;
	r = pmclog_bpf_ring__reserve(c->ring, sizeof(*r));
	if (!r)
		return -ENOMEM;
	pmclog_bpf_ring__hdr_init(&r->header, PMCLOG_TYPE_PMCALLOCATE, sizeof(*r), this_cpu(),
		 now_ns(CLOCK_MONOTONIC));
	r->header.pmcid = a->pmcid;
	r->event = a->event;
	r->flags = a->flags;
	r->config = a->event == PMCLOG_EV_RAW ? a->config : 0;
	r->period = a->period;
	snprintf(r->name, sizeof(r->name), "%s", a->name);
	return out_flush(c);
}

static int collector_attach(struct pmclog_bpf *c, const struct pmclog_attach *at)
{
	if (c->started || c->attached)
		return -EBUSY;
	if (at->__reserved || at->flags & ~PMCLOG_ATTACH_F_CHILDREN ||
	    (at->mode == PMCLOG_ATTACH_SYSTEM && (at->pid || at->flags)) ||
	    (at->mode != PMCLOG_ATTACH_SYSTEM && at->mode != PMCLOG_ATTACH_PROCESS) ||
	    (at->mode == PMCLOG_ATTACH_PROCESS && (!at->pid || at->pid > INT_MAX)))
		return -EINVAL;
	if (at->mode == PMCLOG_ATTACH_PROCESS && kill(at->pid, 0) && errno == ESRCH)
		return -ESRCH;
	c->at = *at;
	c->attached = true;
	return 0;
}

static int collector_stop(struct pmclog_bpf *c)
{
	if (!c->started || c->stopped)
		return -EINVAL;
	c->skel->bss->running = false;
	c->stopped = true;
	atomic_store(&c->stop, true);
	return 0;
}

static int collector_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct pmclog_bpf *c = ctx;
	int ret;

	(void)fd;
	switch (req) {
	case PMCLOG_IOC_GET_VERSION: {
		struct pmclog_version *v = arg;

		memset(v, 0, sizeof(*v));
		v->abi_version = PMCLOG_ABI_CURRENT;
		return 0;
	}
	case PMCLOG_IOC_GET_PMU: {
		struct pmclog_pmu_info *info = arg;

		memset(info, 0, sizeof(*info));
		info->pmu = PMCLOG_PMU_NONE;
		snprintf(info->reason, sizeof(info->reason),
			 "the BPF collector counts through perf_event_open(2), not the PMU's registers");
		return 0;
	}
	case PMCLOG_IOC_ALLOCATE:
		ret = collector_allocate(c, arg);
		break;
	case PMCLOG_IOC_ATTACH:
		ret = collector_attach(c, arg);
		break;
	case PMCLOG_IOC_START:
		ret = collector_start(c);
		break;
	case PMCLOG_IOC_STOP:
		ret = collector_stop(c);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}

static void collector_free(void *ctx)
{
	struct pmclog_bpf *c = ctx;
	unsigned int i;

	if (!c)
		return;
	if (c->skel && c->skel->bss)
		c->skel->bss->running = false;
	atomic_store(&c->closing, true);
	atomic_store(&c->stop, true);
	c->stopped = true;
	if (c->thread_live)
		pthread_join(c->thread, NULL);
	for (i = 0; c->links && i < c->npmcs * c->ncpus; i++)
		bpf_link__destroy(c->links[i]);
	for (i = 0; c->perf_fds && i < c->npmcs * c->ncpus; i++)
		if (c->perf_fds[i] >= 0)
			close(c->perf_fds[i]);
	for (i = 0; i < sizeof(c->probe_links) / sizeof(c->probe_links[0]); i++)
		bpf_link__destroy(c->probe_links[i]);
	for (i = 0; i < 2; i++)
		bpf_link__destroy(c->multi_links[i]);
	free(c->links);
	free(c->perf_fds);
	ring_buffer__free(c->rb);
	pmclog_bpf_skel__destroy(c->skel);
	pmclog_bpf_ring__free(c->ring);
	if (c->wr >= 0)
		close(c->wr);
	free(c);
}

static const struct pmclog_device_ops collector_ops = {
	.ioctl = collector_ioctl,
	.free = collector_free,
};

/* INITIALIZE, as pmclog_rec_initialize() writes it, flagged PMCLOG_HF_BPF. */
static void put_initialize(struct pmclog_bpf *c)
{
	struct pmclog_initialize *r = pmclog_bpf_ring__reserve(c->ring, sizeof(*r));
	unsigned int eax, ebx, ecx, edx, family, model;

	if (!r)
		return;
	pmclog_bpf_ring__hdr_init(&r->header, PMCLOG_TYPE_INITIALIZE, sizeof(*r), this_cpu(),
		 now_ns(CLOCK_MONOTONIC));
	r->realtime_ns = now_ns(CLOCK_REALTIME);
	r->header.flags = PMCLOG_HF_BPF;
	r->abi_version = PMCLOG_ABI_CURRENT;
	r->ncpus = c->ncpus;
	r->clock = PMCLOG_CLOCK_MONOTONIC;
	r->pmu = PMCLOG_PMU_NONE;
	if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
		memcpy(r->cpu_id, &ebx, 4);
		memcpy(r->cpu_id + 4, &edx, 4);
		memcpy(r->cpu_id + 8, &ecx, 4);
	}
	if (!strcmp(r->cpu_id, "GenuineIntel") || !strcmp(r->cpu_id, "CentaurHauls") ||
	    !strcmp(r->cpu_id, "  Shanghai  "))
		r->cpu_vendor = PMCLOG_CPU_VENDOR_INTEL;
	else if (!strcmp(r->cpu_id, "AuthenticAMD") || !strcmp(r->cpu_id, "HygonGenuine"))
		r->cpu_vendor = PMCLOG_CPU_VENDOR_AMD;
	if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
		family = (eax >> 8) & 0xf;
		model = (eax >> 4) & 0xf;
		if (family == 0xf)
			family += (eax >> 20) & 0xff;
		if (family >= 6)
			model |= ((eax >> 16) & 0xf) << 4;
		r->cpu_family = family;
		r->cpu_model = model;
		r->cpu_stepping = eax & 0xf;
	}
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg;

	if (level == LIBBPF_DEBUG || vasprintf(&msg, fmt, ap) < 0)
		return 0;
	pr_warn("%s", msg);
	free(msg);
	return 0;
}

struct pmclog_device *pmclog_device__open_bpf(const struct pmclog_device_opts *opts)
{
	struct pmclog_bpf *c;
	int fds[2];

	if (!OPTS_VALID(opts, pmclog_device_opts__last_field)) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->wr = -1;
	c->ncpus = libbpf_num_possible_cpus();
	c->ring = pmclog_bpf_ring__new();
	if (c->ncpus <= 0 || !c->ring || pipe2(fds, O_CLOEXEC)) {
		int err = c->ncpus <= 0 ? -c->ncpus : errno ? errno : ENOMEM;

		pmclog_bpf_ring__free(c->ring);
		free(c);
		errno = err;
		return NULL;
	}
	/* Room for bursts while the recorder writes; then the ring holds them. */
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	c->wr = fds[1];
	libbpf_set_print(libbpf_print_fn);
	put_initialize(c);
	if (out_flush(c)) {
		collector_free(c);
		close(fds[0]);
		errno = EIO;
		return NULL;
	}
	return pmclog_device__new(fds[0], PMCLOG_BPF_DEVICE_NAME, &collector_ops, c, false);
}
