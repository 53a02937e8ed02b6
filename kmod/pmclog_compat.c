// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-version differences that need code, each with the reason; the
 * inline ones are in pmclog_compat.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/utsname.h>
#ifdef PMCLOG_HAVE_VMCORE_INFO_H
#include <linux/vmcore_info.h>
#else
#include <linux/crash_core.h>
#endif
#include <asm/io.h>
#include <asm/page.h>
#include <asm/pgtable.h>
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

/*
 * Does the running kernel have a function called @name?  Asked of kprobes,
 * which resolve any symbol: a kprobe registered disabled is looked up and
 * checked but never armed, so nothing is written to the kernel's text.
 *
 * Not through kallsyms_lookup_name(), which is not exported: a pointer to it
 * found with a kprobe and called faults on kernels with IBT (Debian's 6.12
 * have CONFIG_X86_KERNEL_IBT=y), as objtool seals the functions whose
 * address the kernel never takes and poisons their ENDBR.
 */
/*
 * kallsyms_show_value() and kptr_restrict are not exported, but %pK applies
 * kptr_restrict for the current task: it prints zeros when kptr_restrict
 * is 2, or 1 and the task lacks CAP_SYSLOG (or runs with changed ids).
 * Past that, CAP_SYSLOG is what kallsyms_show_value() asks; a lower
 * perf_event_paranoid, which it also accepts when kptr_restrict is 0, is
 * not: a stricter rule than /proc/kallsyms', never a looser one.
 */
bool pmclog_compat_kernel_addrs_visible(const struct file *file)
{
	char buf[32];
	unsigned long v;

	snprintf(buf, sizeof(buf), "%pK", file);
	if (!kstrtoul(buf, 16, &v) && !v)
		return false;
	return file_ns_capable(file, &init_user_ns, CAP_SYSLOG);
}

/*
 * inode_get_ctime() reads the ctime since 6.6 (and in Debian's 6.1,
 * backported), when i_ctime stopped being a plain field.
 */
struct timespec64 pmclog_compat_inode_ctime(const struct inode *inode)
{
#ifdef PMCLOG_HAVE_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

bool pmclog_compat_have_function(const char *name)
{
	struct kprobe kp = {
		.symbol_name	= name,
		.flags		= KPROBE_FLAG_DISABLED,
	};

	if (register_kprobe(&kp))
		return false;
	unregister_kprobe(&kp);
	return true;
}

/*
 * The value of the line "@key=HEX" of the kernel's vmcoreinfo note, the
 * table the kernel publishes for crash dump tools (makedumpfile, crash);
 * paddr_vmcoreinfo_note() is exported for kdump.  0 when there is none.
 */
static unsigned long pmclog_vmcoreinfo_value(const char *key)
{
	const struct elf_note *n = phys_to_virt(paddr_vmcoreinfo_note());
	const char *desc, *p, *end;
	size_t klen = strlen(key);

	if (n->n_namesz != sizeof(VMCOREINFO_NOTE_NAME) ||
	    memcmp(n + 1, VMCOREINFO_NOTE_NAME, n->n_namesz) ||
	    n->n_descsz > VMCOREINFO_BYTES)
		return 0;
	desc = (const char *)(n + 1) + ALIGN(n->n_namesz, 4);
	end = desc + n->n_descsz;
	for (p = desc; p < end; ) {
		const char *eol = memchr(p, '\n', end - p);
		char num[2 * sizeof(unsigned long) + 1];
		size_t len;
		unsigned long v;

		if (!eol)
			eol = end;
		len = eol - p;
		if (len > klen && len - klen < sizeof(num) &&
		    !memcmp(p, key, klen)) {
			memcpy(num, p + klen, len - klen);
			num[len - klen] = '\0';
			if (!kstrtoul(num, 16, &v))
				return v;
		}
		p = eol + 1;
	}
	return 0;
}

/* Is the kernel page mapping @addr present and executable? */
static bool pmclog_kernel_page_exec(unsigned long addr, unsigned long *size)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);

	*size = page_level_size(level);
	return pte && (pte_flags(*pte) & (_PAGE_PRESENT | _PAGE_NX)) ==
		      _PAGE_PRESENT;
}

/*
 * Where the kernel's text is, without calling kallsyms (see
 * pmclog_compat_have_function()).  vmcoreinfo names _stext and the KASLR
 * offset (x86-64 links _text, which is _stext, at __START_KERNEL).  Its end
 * is where the kernel's mapping of it stops being executable:
 * mark_rodata_ro() makes every page from PFN_ALIGN(_etext) on NX, and no
 * PC can lie in the padding before it.  Without NX (a CPU that lacks it)
 * the end is that of the image's mapping; the module area bounds both.
 */
int pmclog_compat_kernel_text(struct pmclog_kernel_text *kt)
{
	unsigned long a, size;

	kt->start = pmclog_vmcoreinfo_value("SYMBOL(_stext)=");
	kt->link_start = kt->start - pmclog_vmcoreinfo_value("KERNELOFFSET=");
	if (!kt->start || kt->link_start != __START_KERNEL) {
		pr_err("vmcoreinfo names no kernel text (_stext %#lx, linked at %#lx)\n",
		       kt->start, kt->link_start);
		return -ENOENT;
	}
	for (a = kt->start; a < MODULES_VADDR; a = ALIGN_DOWN(a, size) + size)
		if (!pmclog_kernel_page_exec(a, &size))
			break;
	kt->end = min_t(unsigned long, a, MODULES_VADDR);
	if (kt->end <= kt->start) {
		pr_err("the kernel text at %#lx is not mapped executable\n",
		       kt->start);
		return -ENOENT;
	}
	return 0;
}

unsigned int pmclog_compat_unmap_hooks(struct pmclog_unmap_hook *h,
				       const char **tree_hook)
{
	unsigned int n = 0;

	/*
	 * Kernels with do_mas_align_munmap() (6.1, 6.2): it detaches the
	 * range's vmas into a tree of their own, mt, and past every way the
	 * unmap can fail calls unmap_region(mm, mt, vma, prev, next, start,
	 * end).  A kprobe there sees munmap(2) and vm_munmap(), mremap's old
	 * range, brk shrinking, shmdt and MAP_FIXED (which unmaps before it
	 * maps, and so before its MAP_IN).  6.1's mmap_region() calls it too
	 * where it fails, with the mm's own tree, to take the new mapping's
	 * page tables away: that mapping never had a MAP_IN, and the hook
	 * leaves it alone.  A kretprobe on the munmap core would also run at
	 * every mmap (mmap_region() unmaps the new range first): the kprobe
	 * costs an mmap+munmap under TCG a third less.
	 */
	*tree_hook = NULL;
	if (pmclog_compat_have_function("do_mas_align_munmap") &&
	    pmclog_compat_have_function("unmap_region")) {
		*tree_hook = "unmap_region";
		return 0;
	}
	/*
	 * munmap's core, at return: do_vmi_align_munmap(vmi, vma, mm, start,
	 * end, uf, unlock), static in mm/mmap.c from 6.3 (not inlined: it has
	 * several callers), global in mm/vma.c on 6.12.  do_vmi_munmap()
	 * calls it for munmap(2), vm_munmap(), mremap's old range and, before
	 * 6.12, MAP_FIXED; brk shrinking and shmdt() call it directly, or
	 * through do_vma_munmap(), past do_vmi_munmap().  6.3 to 6.11 are
	 * not tested here: the arguments are 6.12's, and 6.5's and 6.8's
	 * BTF (DepSurf) give the same.  Without it, do_vmi_munmap(vmi, mm,
	 * start, len, uf, unlock) or do_mas_munmap(mas, mm, start, len, uf,
	 * downgrade), where the tree hook above is missing.
	 */
	if (pmclog_compat_have_function("do_vmi_align_munmap"))
		h[n++] = (struct pmclog_unmap_hook){ "do_vmi_align_munmap", 2, 3,
						     4, false, true };
	else if (pmclog_compat_have_function("do_vmi_munmap"))
		h[n++] = (struct pmclog_unmap_hook){ "do_vmi_munmap", 1, 2, 3 };
	else
		h[n++] = (struct pmclog_unmap_hook){ "do_mas_munmap", 1, 2, 3 };
	/*
	 * From 6.12, mmap_region(file, addr, len, ...) unmaps what a
	 * MAP_FIXED mapping replaces itself, with vms_gather_munmap_vmas()
	 * and not the core: its entry is the last place that sees the range.
	 * It returns the new mapping's address; on failure it puts the old
	 * mappings back, unless their page tables were already cleared.
	 * Where the vmas are finally freed (remove_vma(), from
	 * vms_complete_munmap_vmas()) comes after the new mapping's
	 * perf_event_mmap(): too late for a MAP_OUT that must precede its
	 * MAP_IN.
	 */
	if (pmclog_compat_have_function("vms_gather_munmap_vmas"))
		h[n++] = (struct pmclog_unmap_hook){ "mmap_region", -1, 1, 2,
						     true };
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
