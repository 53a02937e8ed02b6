// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog build-ids: an ELF file's GNU build-id (its NT_GNU_BUILD_ID
 * note), in hex, and where a build lies in a build-id tree.  Beneath the
 * loaders (pmclog_elf.c), the debuginfod client and the archive, which
 * all read or name builds.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "pmclog_internal.h"
#include "pmclog_symtab.h"

/* The NT_GNU_BUILD_ID descriptor in a note area, copied to id. */
static size_t notes_build_id(Elf_Data *d, __u8 *id)
{
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d && off < d->d_size && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)d->d_buf + noff, "GNU", 4))
			continue;
		if (!nh.n_descsz || nh.n_descsz > PMCLOG_ELF_BUILD_ID_MAX)
			return 0;
		memcpy(id, (char *)d->d_buf + doff, nh.n_descsz);
		return nh.n_descsz;
	}
	return 0;
}

/* From a SHT_NOTE section, else a PT_NOTE segment (a file without sections). */
size_t pmclog_elf_note_build_id(Elf *elf, __u8 *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t n, len;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		len = notes_build_id(elf_getdata(scn, NULL), id);
		if (len)
			return len;
	}
	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		len = notes_build_id(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
							  ph.p_filesz, ELF_T_NHDR), id);
		if (len)
			return len;
	}
	return 0;
}

int pmclog_fd_build_id(int fd, __u8 *id)
{
	__u8 buf[PMCLOG_ELF_BUILD_ID_MAX];
	size_t len = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	/*
	 * Read, not mapped: the file may be another user's (the archive's,
	 * debuginfod's download), and a mapped file cut short under us
	 * would kill the whole program with SIGBUS.
	 */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		len = pmclog_elf_note_build_id(elf, buf);
	elf_end(elf);
	/* What a log can carry: a longer one could never match a BUILDID. */
	if (!len || len > PMCLOG_BUILD_ID_MAX)
		return 0;
	memcpy(id, buf, len);
	return (int)len;
}

void pmclog_hex(char *buf, size_t len, const __u8 *id, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k + 3 <= len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%02x", id[i]);
}

int pmclog_build_id_path(char *buf, size_t len, const char *dir, const __u8 *id,
			 size_t n)
{
	char h[2 * PMCLOG_ELF_BUILD_ID_MAX + 1];
	int k;

	pmclog_hex(h, sizeof(h), id, n);
	k = snprintf(buf, len, "%s/.build-id/%.2s/%s", dir, h, h + 2);
	return k < 0 || (size_t)k >= len ? -ENAMETOOLONG : 0;
}
