/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog events: the names `pmclog record -e` takes and dump prints.
 */
#ifndef PMCLOG_EVENTS_H
#define PMCLOG_EVENTS_H

#include <stdbool.h>
#include <linux/pmclog.h>

#include "pmclog_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parse an event specification into alloc's event, config, flags and name
 * (period and the FREQ flag are left alone); name is the specification
 * itself, which the module writes as PMCALLOCATE's name:
 *
 *   NAME[:MOD]     a name from pmclog_event_name(): cpu-clock, cycles, ...
 *   rHEX[:MOD]     a raw event select, in the vendor's encoding
 *
 * MOD is u (user mode only), k (kernel mode only) or uk; without it both
 * modes are counted.
 *
 * Return: 0, or -EINVAL for a name or modifier this library does not know.
 */
PMCLOG_API int pmclog_event_parse(const char *spec, struct pmclog_alloc *alloc);

/* "cpu-clock", "cycles", ... for a PMCLOG_EV_*; NULL if unknown. */
PMCLOG_API const char *pmclog_event_name(__u32 event);

/* Whether the event needs a hardware PMU (everything but cpu-clock). */
PMCLOG_API bool pmclog_event_needs_pmu(__u32 event);

/* Call fn for every event name, in PMCLOG_EV_* order, raw excluded. */
PMCLOG_API void pmclog_event_foreach(void (*fn)(const char *name, void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_EVENTS_H */
