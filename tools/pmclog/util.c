// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands share: how libpmclog's messages are printed, and
 * the exit status of a device that did not open.
 */
#include <errno.h>
#include <stdio.h>
#include <sysexits.h>

#include "builtin.h"

int print_libpmclog(enum pmclog_print_level level, const char *fmt, va_list ap)
{
	if (level == PMCLOG_DEBUG)
		return 0;
	fprintf(stderr, "%s: ", program_invocation_short_name);
	return vfprintf(stderr, fmt, ap);
}

int device_open_status(int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return EX_UNAVAILABLE;
	case EACCES:
	case EPERM:
		return EX_NOPERM;
	case EPROTO:
	case EPROTONOSUPPORT:
		return EX_PROTOCOL;
	default:
		return EX_OSERR;
	}
}
