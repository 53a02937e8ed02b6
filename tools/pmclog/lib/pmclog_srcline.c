// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog source lines: "file.c:123" for a link-time address of an
 * object, from the DWARF line table (.debug_line) of the object or of its
 * separate debug file, through elfutils' libdw.  Compressed debug
 * sections (SHF_COMPRESSED, as Debian's debug files have them) are libdw's
 * to read.  The file name is its last component, as perf report prints
 * srcline without --full-source-path.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmclog_internal.h"

struct pmclog_srcline {
	int fd;
	Dwarf *dw;
};

int pmclog_srcline__open(const char *path, struct pmclog_srcline **out)
{
	struct pmclog_srcline *s;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->fd = fd;
	s->dw = dwarf_begin(fd, DWARF_C_READ);
	if (!s->dw) {
		/* No DWARF in it (or not ELF): nothing to say. */
		pmclog_srcline__free(s);
		return -ENODATA;
	}
	*out = s;
	return 0;
}

void pmclog_srcline__free(struct pmclog_srcline *s)
{
	if (!s)
		return;
	if (s->dw)
		dwarf_end(s->dw);
	close(s->fd);
	free(s);
}

/* The compilation unit whose ranges hold addr: .debug_aranges, else a walk. */
static bool unit_of(Dwarf *dw, __u64 addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

const char *pmclog_srcline__lookup(struct pmclog_srcline *s, __u64 addr,
				   struct pmclog_strings *strings)
{
	const char *file, *base;
	Dwarf_Line *line;
	Dwarf_Die cu;
	char buf[512];
	int lineno;

	if (!unit_of(s->dw, addr, &cu) || !(line = dwarf_getsrc_die(&cu, addr)))
		return NULL;
	file = dwarf_linesrc(line, NULL, NULL);
	if (!file || dwarf_lineno(line, &lineno))
		return NULL;
	base = strrchr(file, '/');
	snprintf(buf, sizeof(buf), "%s:%d", base ? base + 1 : file, lineno);
	return pmclog_strings__intern(strings, buf);
}
