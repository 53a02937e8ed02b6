// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog print: the print callback, and the options-structure check
 * every constructor shares.  See pmclog_common.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pmclog_internal.h"

static int default_print(enum pmclog_print_level level, const char *fmt,
			 va_list ap)
{
	if (level == PMCLOG_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static pmclog_print_fn_t print_fn = default_print;

pmclog_print_fn_t pmclog_set_print(pmclog_print_fn_t fn)
{
	pmclog_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

void pmclog_print(enum pmclog_print_level level, const char *fmt, ...)
{
	int saved = errno;	/* a message does not change the error */
	va_list ap;

	if (print_fn) {
		va_start(ap, fmt);
		print_fn(level, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}

bool pmclog_opts_valid(const void *opts, size_t known)
{
	const unsigned char *bytes = opts;
	size_t sz;

	if (!opts)
		return true;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t))
		return false;
	for (size_t i = known; i < sz; i++)
		if (bytes[i])
			return false;
	return true;
}
