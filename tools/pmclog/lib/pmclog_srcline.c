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
#include <sys/stat.h>
#include <unistd.h>

#include "pmclog_file.h"
#include "pmclog_internal.h"

struct pmclog_srcline {
	char *image;
	Elf *elf;
	Dwarf *dw;
};

/* Zeros after the image: a string that runs to its end ends there. */
#define IMAGE_PAD	4096

/* The st->st_size bytes of fd, and IMAGE_PAD zeros. */
static char *read_image(int fd, const struct stat *st)
{
	size_t size = (size_t)st->st_size, n = 0;
	char *p = calloc(1, size + IMAGE_PAD);

	while (p && n < size) {
		ssize_t r = pread(fd, p + n, size - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(p);
			return NULL;	/* an error, or cut short meanwhile */
		}
		n += (size_t)r;
	}
	return p;
}

int pmclog_srcline__open(const char *path, const struct pmclog_file_id *id,
			 struct pmclog_srcline **out)
{
	char esc[PMCLOG_ESCAPED_PATH];
	struct pmclog_srcline *s;
	struct stat st;
	int fd;

	if (!id->ino)
		return -ENOENT;
	fd = pmclog_file__open_read(AT_FDCWD, path, id->flags, 0, &st);
	if (fd >= 0 && (st.st_dev != id->dev || st.st_ino != id->ino)) {
		close(fd);
		fd = -ESTALE;
	}
	if (fd < 0) {
		pr_warn("%s: no longer the file its symbols were read from (%s): no source lines from it\n",
			pmclog_escape(esc, sizeof(esc), path),
			fd == -ESTALE ? "another file now" : pmclog_read_strerror(fd));
		return fd;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->image = read_image(fd, &st);
	close(fd);
	if (s->image && elf_version(EV_CURRENT) != EV_NONE)
		s->elf = elf_memory(s->image, (size_t)st.st_size);
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
