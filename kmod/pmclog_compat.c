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
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
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

/*
 * munmap's core: do_mas_munmap(mas, mm, start, len, uf, downgrade) in
 * 6.1-6.4 (maple tree), do_vmi_munmap(vmi, mm, start, len, uf, unlock)
 * from 6.5 on.  Older names (do_munmap) miss munmap(2) on these kernels.
 */
const struct pmclog_munmap_args pmclog_compat_munmap = {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	.symbol = "do_vmi_munmap", .mm = 1, .start = 2, .len = 3,
#else
	.symbol = "do_mas_munmap", .mm = 1, .start = 2, .len = 3,
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
