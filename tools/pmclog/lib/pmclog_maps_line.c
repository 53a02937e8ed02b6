// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog: the lines of /proc/PID/maps (the BPF collector's START
 * snapshot, pmclog_bpf.c), read whole and parsed strictly.  No /proc
 * here: the unit tests and a fuzz target feed it lines.
 *
 * The kernel's show_map_vma() writes
 *
 *   "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " PAD PATH "\n"
 *
 * PAD is spaces up to a fixed column, then one more (seq_pad()); PATH is
 * what seq_file_path(m, file, "\n") makes of d_path(), each newline as
 * the four bytes "\012" (mangle_path()), or a name ("[vdso]"), or
 * nothing.  A file name holds any byte but '/' and NUL, so a path is
 * only known to end where the line does: a line is taken whole or not at
 * all, never split at a buffer's size, where its remainder would be read
 * as a line of its own that the mapping's owner wrote.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "pmclog_internal.h"

/* 1 to max hex digits at *p, then sep: *v, *p past sep; else false. */
static bool hex_field(const char **p, size_t max, char sep, __u64 *v)
{
	const char *s = *p;
	__u64 x = 0;
	size_t n;

	for (n = 0; n < max; n++) {
		unsigned char c = (unsigned char)s[n];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		x = x << 4 | d;
	}
	if (!n || s[n] != sep)
		return false;
	*v = x;
	*p = s + n + 1;
	return true;
}

/* 1 to 20 decimal digits at *p that fit 64 bits, then a space. */
static bool dec_field(const char **p, __u64 *v)
{
	const char *s = *p;
	__u64 x = 0;
	size_t n;

	for (n = 0; s[n] >= '0' && s[n] <= '9'; n++) {
		unsigned int d = s[n] - '0';

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (!n || s[n] != ' ')
		return false;
	*v = x;
	*p = s + n + 1;
	return true;
}

/* "rwxp": each letter or '-' in its place, the last 's' or 'p'. */
static bool perms_field(const char **p, char perms[5])
{
	const char *s = *p;

	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 's' && s[3] != 'p') || s[4] != ' ')
		return false;
	memcpy(perms, s, 4);
	perms[4] = '\0';
	*p = s + 5;
	return true;
}

/*
 * mangle_path() in place: "\012" back to the newline it was.  Only that:
 * seq_file_path() was asked to escape nothing else, and leaves other
 * backslashes as they are.
 */
static void unescape_newlines(char *s)
{
	char *w = s;

	for (const char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] == '0' && r[2] == '1' && r[3] == '2') {
			*w++ = '\n';
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

int pmclog_maps_line__parse(char *line, size_t len, struct pmclog_maps_line *l)
{
	const char *p = line;
	__u64 major, minor;

	/* A line the read cut short, or one with a NUL the kernel never writes. */
	if (!len || line[len - 1] != '\n' || memchr(line, '\0', len))
		return -EINVAL;
	line[len - 1] = '\0';
	if (!hex_field(&p, 16, '-', &l->start) || !hex_field(&p, 16, ' ', &l->end) ||
	    l->end <= l->start || !perms_field(&p, l->perms) ||
	    !hex_field(&p, 16, ' ', &l->offset) || !hex_field(&p, 8, ':', &major) ||
	    !hex_field(&p, 8, ' ', &minor) || !dec_field(&p, &l->inode))
		return -EINVAL;
	l->major = (__u32)major;
	l->minor = (__u32)minor;
	/*
	 * The padding: nothing the kernel writes after it ("/...", "[vdso]",
	 * "anon_inode:...") starts with a space.
	 */
	while (*p == ' ')
		p++;
	l->path = line + (p - line);
	unescape_newlines(l->path);
	return 0;
}

int pmclog_maps_line__next(FILE *f, char **buf, size_t *cap, struct pmclog_maps_line *l)
{
	ssize_t n;

	errno = 0;
	n = getline(buf, cap, f);
	if (n >= 0)
		return pmclog_maps_line__parse(*buf, (size_t)n, l) ? -EINVAL : 1;
	if (!ferror(f) && errno != ENOMEM)
		return 0;
	return errno ? -errno : -EIO;
}
