// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel objects: the kernel image and its modules, as MAP_IN / MAP_OUT
 * with pid PMCLOG_PID_KERNEL, written to every running log (hwpmc told only
 * system-wide owners about kldload; process-mode profiles sample the kernel
 * too), and the functions of modules loaded while a log runs, as KSYMBOL.
 * This file decides when; pmclog_record.c builds the records.
 *
 *   module COMING   MAP_IN core text, MAP_IN init text, BUILDID of each,
 *                   KSYMBOL each function
 *   module LIVE     MAP_OUT init text (freed right after)
 *   module GOING    MAP_OUT core text (and init text if init failed)
 *
 * Module text is logged as the executable part of the module's memory, not
 * as "the module's base address": nothing assumes .text starts there.
 * The module list is walked under RCU, as the kernel's own readers do
 * (module_mutex is not exported); module_notifier covers the changes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/page.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

/* The kernel's core text, found once at module init. */
static struct pmclog_kernel_text pmclog_kernel_text;

/*
 * Where the notifier builds records: allocated at module init, so that a
 * module's MAP_IN and KSYMBOLs are never lost to a failed allocation.
 * Module loads may run in parallel; the mutex orders their notifications.
 */
static void *pmclog_kobj_buf;
static DEFINE_MUTEX(pmclog_kobj_buf_lock);

static void pmclog_kobj_map_out(unsigned long start, unsigned long end)
{
	struct pmclog_map_out r;

	pmclog_rec_map_out(&r, PMCLOG_PID_KERNEL, start, end,
			   raw_smp_processor_id(), pmclog_clock());
	rcu_read_lock();
	pmclog_track_emit_all(&r);
	rcu_read_unlock();
}

/*
 * MAP_IN of @mod's text (and init text while it has one) into @log, or
 * into every running log when @log is NULL.  Does not sleep.
 */
static void pmclog_kobj_log_text(struct pmclog_log *log, void *buf,
				 const struct module *mod, u32 flags,
				 const struct pmclog_text *text, u64 tstamp)
{
	if (!text->size)
		return;
	pmclog_rec_map_in(buf, PMCLOG_PID_KERNEL, flags | PMCLOG_MAP_F_KMODULE,
			  text->start, text->start + text->size, 0, mod->name,
			  raw_smp_processor_id(), tstamp);
	if (log)
		pmclog_log_write(log, buf);
	else
		pmclog_track_emit_all(buf);
}

static void pmclog_kobj_log_module(struct pmclog_log *log, void *buf,
				   struct module *mod, u32 flags, u64 tstamp)
{
	struct pmclog_text core, init;

	pmclog_compat_module_text(mod, &core, &init);
	pmclog_kobj_log_text(log, buf, mod, flags, &core, tstamp);
	pmclog_kobj_log_text(log, buf, mod, flags | PMCLOG_MAP_F_INIT, &init,
			     tstamp);
}

/*
 * BUILDID of @mod's core and init text, into every running log, at the
 * time of their MAP_INs.
 */
static void pmclog_kobj_log_buildid(const struct pmclog_build_id *id,
				    const struct pmclog_text *core,
				    const struct pmclog_text *init, u64 tstamp)
{
	const struct pmclog_text *text[] = { core, init };
	struct pmclog_buildid r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(text); i++) {
		if (!text[i]->size)
			continue;
		pmclog_rec_buildid(&r, PMCLOG_PID_KERNEL, text[i]->start, id,
				   raw_smp_processor_id(), tstamp);
		pmclog_track_emit_all(&r);
	}
}

/* KSYMBOL for every function of a COMING module (init ones included). */
static void pmclog_kobj_log_symbols(struct module *mod, void *buf)
{
	struct pmclog_ksymbol *r = buf;
	struct pmclog_text core, init;
	struct mod_kallsyms *ks;
	unsigned int i;

	pmclog_compat_module_text(mod, &core, &init);
	rcu_read_lock();
	ks = rcu_dereference(mod->kallsyms);
	for (i = 0; ks && i < ks->num_symtab; i++) {
		const typeof(*ks->symtab) *sym = &ks->symtab[i];
		unsigned long a = sym->st_value;

		if (ELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_name)
			continue;
		if (!(a - core.start < core.size || a - init.start < init.size))
			continue;
		pmclog_rec_ksymbol(r, a, sym->st_size, ks->strtab + sym->st_name,
				   raw_smp_processor_id(), pmclog_clock());
		pmclog_track_emit_all(r);
	}
	rcu_read_unlock();
}

/* Process context, may sleep; module_mutex is not held. */
static int pmclog_kobj_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct module *mod = data;
	struct pmclog_text core, init;
	struct pmclog_build_id id;
	bool have_id = false;
	u64 now;

	/* Taken whether a log runs or not: the table is for loads in flight. */
	if (action == MODULE_STATE_COMING)
		have_id = pmclog_buildid_take_module(mod, &id);
	if (!pmclog_track_active())
		return NOTIFY_DONE;
	pmclog_compat_module_text(mod, &core, &init);
	switch (action) {
	case MODULE_STATE_COMING:
		/* KSYMBOL names are cut to fit, see pmclog_rec_ksymbol(). */
		mutex_lock(&pmclog_kobj_buf_lock);
		rcu_read_lock();
		now = pmclog_clock();
		pmclog_kobj_log_module(NULL, pmclog_kobj_buf, mod, 0, now);
		if (have_id)
			pmclog_kobj_log_buildid(&id, &core, &init, now);
		rcu_read_unlock();
		pmclog_kobj_log_symbols(mod, pmclog_kobj_buf);
		mutex_unlock(&pmclog_kobj_buf_lock);
		break;
	case MODULE_STATE_LIVE:
		if (init.size)
			pmclog_kobj_map_out(init.start, init.start + init.size);
		break;
	case MODULE_STATE_GOING:
		if (init.size)
			pmclog_kobj_map_out(init.start, init.start + init.size);
		if (core.size)
			pmclog_kobj_map_out(core.start, core.start + core.size);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pmclog_kobj_nb = {
	.notifier_call	= pmclog_kobj_notify,
};

/*
 * At START, once @o is published: MAP_IN of the kernel image and of every
 * module already loaded, into @o's log, with the time of START.
 */
int pmclog_kobj_log_initial(struct pmclog_owner *o, u64 tstamp)
{
	struct module *mod;
	void *buf;

	/* Kernel addresses, as PCSAMPLE's: only for who may read kallsyms. */
	if (!o->kernel_addrs)
		return 0;
	buf = kmalloc(PMCLOG_SCRATCH_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	pmclog_rec_map_in(buf, PMCLOG_PID_KERNEL, PMCLOG_MAP_F_INITIAL,
			  pmclog_kernel_text.start, pmclog_kernel_text.end,
			  pmclog_kernel_text.link_start, "[kernel]",
			  raw_smp_processor_id(), tstamp);
	pmclog_log_write(&o->log, buf);

	rcu_read_lock();
	/*
	 * The list head is not a module (its @mod is not one, and is not
	 * dereferenced); every module lives in module space.
	 */
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
		if (!pmclog_compat_in_module_space(&mod->list) ||
		    mod->state == MODULE_STATE_UNFORMED)
			continue;
		pmclog_kobj_log_module(&o->log, buf, mod, PMCLOG_MAP_F_INITIAL,
				       tstamp);
	}
	pmclog_kobj_log_module(&o->log, buf, THIS_MODULE, PMCLOG_MAP_F_INITIAL,
			       tstamp);
	rcu_read_unlock();
	kfree(buf);
	return 0;
}

int pmclog_kobj_init(void)
{
	int ret;

	ret = pmclog_compat_kernel_text(&pmclog_kernel_text);
	if (ret)
		return ret;
	pmclog_kobj_buf = kmalloc(PMCLOG_SCRATCH_SIZE, GFP_KERNEL);
	if (!pmclog_kobj_buf)
		return -ENOMEM;

	ret = register_module_notifier(&pmclog_kobj_nb);
	if (ret) {
		pr_err("cannot register the module notifier: %d\n", ret);
		kfree(pmclog_kobj_buf);
	}
	return ret;
}

void pmclog_kobj_exit(void)
{
	unregister_module_notifier(&pmclog_kobj_nb);
	kfree(pmclog_kobj_buf);
}
