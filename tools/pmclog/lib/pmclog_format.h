/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog format: one line of text per record, for `pmclog dump`.
 *
 * The line is the type name, then space-separated key=value fields; the
 * first two are always cpu= and ts= (nanoseconds, decimal).  Scripts parse
 * these lines, so fields are only ever appended, and a free-text field
 * (path=, name=) is always the last one.  Such a string is printed as it
 * is except for bytes below 0x20, 0x7f and backslash, which are escaped as
 * \xNN, so that one record is always one line.  A pid of
 * PMCLOG_PID_KERNEL prints as -1.  Unknown types print as
 * "UNKNOWN cpu=N ts=N type=N length=N".
 */
#ifndef PMCLOG_FORMAT_H
#define PMCLOG_FORMAT_H

#include <stdio.h>

#include "pmclog_common.h"
#include "pmclog_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Print rec as one line, newline included, to f.
 * Return: 0, or -1 when writing to f failed (see ferror(f)).
 */
PMCLOG_API int pmclog_format_record(FILE *f, const struct pmclog_record *rec);

/* The name of a PMCLOG_PMU_* value ("intel-arch"), or NULL if unknown. */
PMCLOG_API const char *pmclog_pmu_name(unsigned int pmu);

/*
 * The name of a PMCLOG_THROTTLE_* reason ("rate", "cpu-time", "busy",
 * "absent"), or NULL if unknown.
 */
PMCLOG_API const char *pmclog_throttle_reason_name(unsigned int reason);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_FORMAT_H */
