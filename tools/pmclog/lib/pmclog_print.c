// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog print: the print callback, and the options-structure check
 * every constructor shares.  See pmclog_common.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* ------------------------------------------------------------------ */
/* Names from a log, escaped wherever they are printed                */

static bool escaped(unsigned char c, const char *sep)
{
	return c < 0x20 || c == 0x7f || c == '\\' || (c && strchr(sep, c));
}

/* s as one field of a line; sep: more bytes to escape. */
void pmclog_put_escaped(FILE *f, const char *s, const char *sep)
{
	for (; *s; s++) {
		if (escaped((unsigned char)*s, sep))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
}

int pmclog_escaped_width(const char *s, const char *sep)
{
	int n = 0;

	for (; *s; s++)
		n += escaped((unsigned char)*s, sep) ? 4 : 1;
	return n;
}

const char *pmclog_escape(char *buf, size_t len, const char *s)
{
	/* Whole if it fits; else as much as fits with "..." after it. */
	size_t room = len < 4 || (size_t)pmclog_escaped_width(s, "") < len ? len : len - 3;
	size_t n = 0;

	if (!len)
		return buf;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (escaped(c, "")) {
			if (n + 4 >= room)
				break;
			snprintf(buf + n, 5, "\\x%02x", c);
			n += 4;
		} else {
			if (n + 1 >= room)
				break;
			buf[n++] = (char)c;
		}
	}
	if (*s && room < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}
