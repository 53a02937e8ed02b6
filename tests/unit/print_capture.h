/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The messages libpmclog prints, captured for a test to check:
 * print_capture_start() (a cmocka setup) empties said[] and sends every
 * message there, one after the other.
 */
#ifndef PRINT_CAPTURE_H
#define PRINT_CAPTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmclog_common.h"

static char said[4096];

static inline int print_capture(enum pmclog_print_level level, const char *fmt,
				va_list ap)
{
	size_t n = strlen(said);

	(void)level;
	return vsnprintf(said + n, sizeof(said) - n, fmt, ap);
}

static inline int print_capture_start(void **state)
{
	(void)state;
	said[0] = '\0';
	pmclog_set_print(print_capture);
	return 0;
}

#endif /* PRINT_CAPTURE_H */
