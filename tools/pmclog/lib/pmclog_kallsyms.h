/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog kallsyms: the kernel's text symbols, read from /proc/kallsyms
 * by `pmclog record` when it starts, and saved at the end of the log as
 * KSYMBOL records (with PMCLOG_HF_SYNTH) for the functions its kernel
 * samples fell in, so that a report names kernel functions on any
 * machine: Debian's /boot/System.map is only a placeholder.
 *
 * Text symbols are types t, T, w and W; a symbol's size is the distance
 * to the next symbol of the same object (the kernel, or one module), 0
 * for the last one.
 */
#ifndef PMCLOG_KALLSYMS_H
#define PMCLOG_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct pmclog_kallsyms;

/*
 * Read f (the format of /proc/kallsyms).  Return 0, -ENOMEM, or -EPERM
 * when every address reads as 0 (kptr_restrict, no CAP_SYSLOG).
 */
int pmclog_kallsyms__read(FILE *f, struct pmclog_kallsyms **out);
void pmclog_kallsyms__free(struct pmclog_kallsyms *ks);
size_t pmclog_kallsyms__count(const struct pmclog_kallsyms *ks);

/*
 * Bound each module's symbols by the module's core as modules (the format
 * of /proc/modules) gives it, as perf does: the last symbol of a module
 * ends with it, not at the next module; a symbol outside it (the init
 * text of a module whose init is done, where another module may be
 * loaded later) names nothing.  Modules not listed keep their symbols as
 * they are.  Return 0 or -ENOMEM.
 */
int pmclog_kallsyms__bound(struct pmclog_kallsyms *ks, FILE *modules);

/*
 * Mark the symbol that holds pc (a kernel sample's): return whether one
 * does.  Symbols keep the size to the next one of their object.
 */
bool pmclog_kallsyms__mark(struct pmclog_kallsyms *ks, __u64 pc);

/*
 * The KSYMBOL records of every symbol, or with marked only of the marked
 * ones, with tstamp and cpu (INITIALIZE's), in a malloc'd buffer.
 */
int pmclog_kallsyms__records(const struct pmclog_kallsyms *ks, bool marked,
			     __u64 tstamp, __u16 cpu, void **buf, size_t *len);

#endif /* PMCLOG_KALLSYMS_H */
