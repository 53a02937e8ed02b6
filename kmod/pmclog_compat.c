// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-version differences that need code, each with the reason; the
 * inline ones are in pmclog_compat.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/utsname.h>
#include <asm/pgtable_types.h>

#include "pmclog_compat.h"

void pmclog_compat_module_text(const struct module *mod,
			       struct pmclog_text *core,
			       struct pmclog_text *init)
{
#ifdef PMCLOG_HAVE_MODULE_MEMORY
	/* 6.4 split a module's memory into typed regions. */
	core->start = (unsigned long)mod->mem[MOD_TEXT].base;
	core->size = mod->mem[MOD_TEXT].size;
	init->start = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	init->size = mod->mem[MOD_INIT_TEXT].size;
#else
	/* Before 6.4, text is the first text_size bytes of each layout. */
	core->start = (unsigned long)mod->core_layout.base;
	core->size = mod->core_layout.text_size;
	init->start = (unsigned long)mod->init_layout.base;
	init->size = init->start ? mod->init_layout.text_size : 0;
#endif
	if (!init->start)
		init->size = 0;
}

bool pmclog_compat_in_module_space(const void *p)
{
	unsigned long a = (unsigned long)p;

	return a >= MODULES_VADDR && a < MODULES_END;
}

/* The instruction IBT puts at the start of every indirectly called function. */
#define PMCLOG_ENDBR64	0xfa1e0ff3U

unsigned long pmclog_compat_kallsyms_lookup(const char *name)
{
	static unsigned long (*lookup)(const char *name);

	if (!lookup) {
		struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
		unsigned long addr;

		/* A kprobe resolves any symbol: the way LTTng finds it too. */
		if (register_kprobe(&kp) < 0)
			return 0;
		addr = (unsigned long)kp.addr;
		unregister_kprobe(&kp);
		/* With IBT the probe sits after the ENDBR; call the entry. */
		if (*(u32 *)(addr - 4) == PMCLOG_ENDBR64)
			addr -= 4;
		lookup = (void *)addr;
	}
	return lookup(name);
}

unsigned int pmclog_compat_unmap_hooks(struct pmclog_unmap_hook *h)
{
	unsigned int n = 0;

	/*
	 * munmap's core: do_vmi_munmap(vmi, mm, start, len, uf, unlock) from
	 * 6.5, do_mas_munmap(mas, mm, start, len, uf, downgrade) in 6.1-6.4.
	 * munmap(2), mremap's old range and, before 6.12, MAP_FIXED go through
	 * it; do_munmap() no longer sees munmap(2) on these kernels.
	 */
	if (pmclog_compat_kallsyms_lookup("do_vmi_munmap"))
		h[n++] = (struct pmclog_unmap_hook){ "do_vmi_munmap", 1, 2, 3 };
	else
		h[n++] = (struct pmclog_unmap_hook){ "do_mas_munmap", 1, 2, 3 };
	/*
	 * From 6.12, mmap_region(file, addr, len, ...) unmaps what a
	 * MAP_FIXED mapping replaces itself, with vms_gather_munmap_vmas()
	 * and not the core: its entry is the last place that sees the range.
	 */
	if (pmclog_compat_kallsyms_lookup("vms_gather_munmap_vmas"))
		h[n++] = (struct pmclog_unmap_hook){ "mmap_region", -1, 1, 2 };
	return n;
}

const struct pmclog_mprotect_args pmclog_compat_mprotect = {
#ifdef PMCLOG_HAVE_MPROTECT_FIXUP_VMI
	/* 6.2 added a vma iterator first: (vmi, tlb, vma, pprev, start, end, newflags). */
	.vma = 2, .start = 4, .end = 5, .newflags = 6,
#else
	/* (tlb, vma, pprev, start, end, newflags) */
	.vma = 1, .start = 3, .end = 4, .newflags = 5,
#endif
};

int pmclog_compat_register_kprobe(struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		pr_err("cannot kprobe %s on Linux %s: %d; this kernel is not supported\n",
		       kp->symbol_name, utsname()->release, ret);
	return ret;
}

int pmclog_compat_register_kprobes(struct kprobe **kps, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = pmclog_compat_register_kprobe(kps[i]);
		if (ret)
			goto err_unregister;
	}
	return 0;

err_unregister:
	while (i--)
		unregister_kprobe(kps[i]);
	return ret;
}

int pmclog_compat_register_kretprobe(struct kretprobe *krp)
{
	int ret = register_kretprobe(krp);

	if (ret)
		pr_err("cannot kretprobe %s on Linux %s: %d; this kernel is not supported\n",
		       krp->kp.symbol_name, utsname()->release, ret);
	return ret;
}

static void pmclog_compat_find_tp(struct tracepoint *tp, void *priv)
{
	struct pmclog_tracepoint *t = priv;

	if (!strcmp(tp->name, t->name))
		t->tp = tp;
}

int pmclog_compat_register_tracepoints(struct pmclog_tracepoint *tps,
				       unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		for_each_kernel_tracepoint(pmclog_compat_find_tp, &tps[i]);
		if (!tps[i].tp) {
			pr_err("no tracepoint %s on Linux %s\n", tps[i].name,
			       utsname()->release);
			ret = -ENOENT;
			goto err_unregister;
		}
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       tps[i].name, ret);
			goto err_unregister;
		}
	}
	return 0;

err_unregister:
	while (i--)
		tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

void pmclog_compat_unregister_tracepoints(struct pmclog_tracepoint *tps,
					  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
}
