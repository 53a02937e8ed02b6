/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog common: what every public header of the library shares.
 *
 * PMCLOG_API marks the library's interface, as LIBBPF_API does libbpf's:
 * the library is built with -fvisibility=hidden, so only what is marked
 * is exported from libpmclog.so, and libpmclog.map (the linker's version
 * script) names each of those symbols under the version that added it.
 * What a header declares without it is the library's own business, for
 * its tests and for the pmclog tool, which link libpmclog.a.
 *
 * Where the library's messages go:
 *
 * The library says what went wrong, on which file or offset and what to
 * do, through one callback, as libbpf does with libbpf_set_print():
 * the default prints PMCLOG_WARN and PMCLOG_INFO messages to stderr and
 * drops PMCLOG_DEBUG ones; a program sets its own to prefix, filter or
 * redirect them, or NULL to silence the library.  Messages end with a
 * newline.  The library never exits.
 */
#ifndef PMCLOG_COMMON_H
#define PMCLOG_COMMON_H

#include <stdarg.h>

#ifndef PMCLOG_API
#define PMCLOG_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum pmclog_print_level {
	PMCLOG_WARN,	/* something failed, or will not be complete */
	PMCLOG_INFO,	/* what a user asked to be told (verbose) */
	PMCLOG_DEBUG,	/* for whoever debugs the library */
};

typedef int (*pmclog_print_fn_t)(enum pmclog_print_level level,
				 const char *fmt, va_list ap);

/*
 * Send the library's messages to fn from now on (NULL: nowhere); return
 * the previous callback.  Not thread-safe: set it once, before the
 * library is used.
 */
PMCLOG_API pmclog_print_fn_t pmclog_set_print(pmclog_print_fn_t fn);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_COMMON_H */
