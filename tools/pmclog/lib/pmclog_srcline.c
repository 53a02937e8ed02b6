// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog source lines: "file.c:123" for a link-time address of an
 * object, from the DWARF line table (.debug_line) of the object or of its
 * separate debug file, through elfutils' libdw.  Compressed debug
 * sections (SHF_COMPRESSED, as Debian's debug files have them) are libdw's
 * to read.  The file name is its last component, as perf report prints
 * srcline without --full-source-path.
 *
 * The file is the one the symbols came from, opened again (lazily: most
 * reports ask no source line) as the loader opened it, and used only if
 * it is still that file: a path a log names may be another user's, who
 * could have put a FIFO or another file there since.  It is read whole
 * into memory, with zeros after its end, and libdw reads that image: not
 * mapped, so that a file cut short under it is a read error, not SIGBUS;
 * and whole, so that libdw's reads past the end of a damaged section (a
 * file name in .debug_line without its NUL: elfutils 0.188's
 * read_srclines() takes strlen() of it) stay inside the image, where a
 * section of its own in a buffer of its own would let them run into the
 * heap.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"

struct pmclog_srcline {
	char *image;
	Elf *elf;
	Dwarf *dw;
};

/* Zeros after the image: a string that runs to its end ends there. */
#define IMAGE_PAD	4096

int pmclog_srcline__open(const char *path, const struct pmclog_file_id *id,
			 struct pmclog_srcline **out)
{
	char esc[PMCLOG_ESCAPED_PATH];
	struct pmclog_file_id now;
	struct pmclog_srcline *s;
	size_t len;
	void *image;
	int ret;

	if (!id->ino)
		return -ENOENT;
	ret = pmclog_read_file_raw(AT_FDCWD, path, id->flags, &image, &len, &now);
	if (!ret && (now.dev != id->dev || now.ino != id->ino)) {
		free(image);
		ret = -ESTALE;
	}
	if (ret) {
		pr_warn("%s: no longer the file its symbols were read from (%s): no source lines from it\n",
			pmclog_escape(esc, sizeof(esc), path),
			ret == -ESTALE ? "another file now" : pmclog_read_strerror(ret));
		return ret;
	}
	s = calloc(1, sizeof(*s));
	if (s)
		s->image = realloc(image, len + IMAGE_PAD);
	if (!s || !s->image) {
		free(s);
		free(image);
		return -ENOMEM;
	}
	memset(s->image + len, 0, IMAGE_PAD);
	if (elf_version(EV_CURRENT) != EV_NONE)
		s->elf = elf_memory(s->image, len);
	s->dw = s->elf ? dwarf_begin_elf(s->elf, DWARF_C_READ, NULL) : NULL;
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
	if (s->elf)
		elf_end(s->elf);
	free(s->image);
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
