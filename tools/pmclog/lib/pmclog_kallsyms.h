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
#include <linux/pmclog.h>

#include "pmclog_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_kallsyms;

/*
 * Read f (the format of /proc/kallsyms).  Return 0, -ENOMEM, or -EPERM
 * when every address reads as 0 (kptr_restrict, no CAP_SYSLOG).
 */
PMCLOG_API int pmclog_kallsyms__read(FILE *f, struct pmclog_kallsyms **out);
PMCLOG_API void pmclog_kallsyms__free(struct pmclog_kallsyms *ks);
PMCLOG_API size_t pmclog_kallsyms__count(const struct pmclog_kallsyms *ks);

/*
 * Bound each module's symbols by the module's core as modules (the format
 * of /proc/modules) gives it, as perf does: the last symbol of a module
 * ends with it, not at the next module; a symbol outside it (the init
 * text of a module whose init is done, where another module may be
 * loaded later) names nothing.  Modules not listed keep their symbols as
 * they are.  Return 0 or -ENOMEM.
 */
PMCLOG_API int pmclog_kallsyms__bound(struct pmclog_kallsyms *ks, FILE *modules);

/*
 * Mark the symbol that holds pc (a kernel sample's): return whether one
 * does.  Symbols keep the size to the next one of their object.
 */
PMCLOG_API bool pmclog_kallsyms__mark(struct pmclog_kallsyms *ks, __u64 pc);

/*
 * Call fn with the KSYMBOL record (PMCLOG_HF_SYNTH, tstamp and cpu:
 * INITIALIZE's) of every symbol, or with marked only of the marked ones,
 * each object's together, by address.  rec is only valid during the
 * call.  A non-zero return from fn stops the walk and is returned.
 */
typedef int (*pmclog_kallsyms_record_fn)(void *ctx,
					 const struct pmclog_ksymbol *rec);
PMCLOG_API int pmclog_kallsyms__foreach_record(const struct pmclog_kallsyms *ks, bool marked,
					       __u64 tstamp, __u16 cpu,
					       pmclog_kallsyms_record_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_KALLSYMS_H */
