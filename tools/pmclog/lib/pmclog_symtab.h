/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog symbols: interned strings, sorted symbol tables searched in
 * O(log n), and the loaders that fill them from ELF files (libelf) and
 * from System.map.
 *
 * Names are interned once per report (as pmcstat does): every table and
 * every object holds pointers into one pmclog_strings, so equal names are
 * equal pointers and a million samples of one function cost no copies.
 *
 * Addresses.  An ET_EXEC or ET_DYN file's table holds link-time virtual
 * addresses (st_value), and its PT_LOAD segments translate the file
 * offsets that MAP_IN records carry into those addresses.  An ET_REL
 * file (a kernel module) has no addresses of its own: its table holds
 * offsets from the start of the module's text as the kernel lays it out
 * (executable SHF_ALLOC sections in section order, each aligned), one
 * table for the core text and one for the .init text.
 *
 * Errors are negative errnos (also in errno), with a message in the
 * caller's buffer naming the file and what is wrong.
 */
#ifndef PMCLOG_SYMTAB_H
#define PMCLOG_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct pmclog_strings;

struct pmclog_strings *pmclog_strings__new(void);
void pmclog_strings__free(struct pmclog_strings *s);
/* The one copy of str; NULL (errno ENOMEM) when out of memory. */
const char *pmclog_strings__intern(struct pmclog_strings *s, const char *str);
size_t pmclog_strings__count(const struct pmclog_strings *s);

/* Which of several symbols at one address names it: the highest wins. */
enum pmclog_sym_prio {
	PMCLOG_SYM_LOCAL = 0,
	PMCLOG_SYM_WEAK = 1,
	PMCLOG_SYM_GLOBAL = 2,
};

struct pmclog_sym {
	__u64 addr;
	__u64 size;	/* after pmclog_symtab__finish(): never 0 */
	const char *name;	/* interned */
	__u8 prio;	/* enum pmclog_sym_prio */
};

struct pmclog_symtab;

struct pmclog_symtab *pmclog_symtab__new(void);
void pmclog_symtab__free(struct pmclog_symtab *t);

/*
 * Add a symbol; name must be interned.  size 0: up to the next symbol.
 * Invalidates a finished table until the next pmclog_symtab__finish().
 */
int pmclog_symtab__add(struct pmclog_symtab *t, __u64 addr, __u64 size,
		       const char *name, enum pmclog_sym_prio prio);

/*
 * Sort, keep one symbol per address (highest prio, then the first
 * added), and give zero-sized symbols the distance to the next one (the
 * last one: to limit, or 1 byte when limit is not above it).  Cheap when
 * nothing was added since the last call.
 */
void pmclog_symtab__finish(struct pmclog_symtab *t, __u64 limit);

/* The symbol containing addr in a finished table, or NULL. */
const struct pmclog_sym *pmclog_symtab__lookup(const struct pmclog_symtab *t,
					       __u64 addr);
size_t pmclog_symtab__count(const struct pmclog_symtab *t);
/* The i-th symbol of a finished table, by address. */
const struct pmclog_sym *pmclog_symtab__at(const struct pmclog_symtab *t,
					   size_t i);

/* ------------------------------------------------------------------ */
/* ELF files                                                          */

enum pmclog_elf_type {
	PMCLOG_ELF_EXEC = 1,	/* ET_EXEC: vmlinux, non-PIE programs */
	PMCLOG_ELF_DYN,		/* ET_DYN: PIE programs, shared objects */
	PMCLOG_ELF_REL,		/* ET_REL: kernel modules (.ko) */
};

struct pmclog_elf_segment {
	__u64 vaddr;
	__u64 offset;
	__u64 filesz;
};

struct pmclog_elf {
	enum pmclog_elf_type type;
	bool has_symtab;	/* .symtab; false: .dynsym only (stripped) */
	struct pmclog_symtab *text;	/* EXEC/DYN: vaddr; REL: core text offset */
	struct pmclog_symtab *init;	/* REL: .init text offset; else empty */
	__u64 text_size;	/* REL: size of the core text layout */
	__u64 init_size;	/* REL: size of the .init text layout */
	struct pmclog_elf_segment *segs;	/* EXEC/DYN: PT_LOAD */
	size_t nsegs;
};

/*
 * Load the function symbols of the ELF file at path (.ko.xz and .ko.zst
 * are decompressed through xz / zstd), or of len bytes at buf.  Both
 * .symtab and .dynsym are read when present.
 */
int pmclog_elf__load(const char *path, struct pmclog_strings *strings,
		     struct pmclog_elf **out, char *err, size_t errlen);
int pmclog_elf__load_mem(const void *buf, size_t len, const char *name,
			 struct pmclog_strings *strings,
			 struct pmclog_elf **out, char *err, size_t errlen);
void pmclog_elf__free(struct pmclog_elf *e);

/*
 * The virtual address of file offset off, through the PT_LOAD segment
 * that holds it; false when none does.
 */
bool pmclog_elf__offset_to_vaddr(const struct pmclog_elf *e, __u64 off,
				 __u64 *vaddr);

/*
 * The text symbols (t, T, w, W) of a System.map or of /proc/kallsyms text
 * at path, at the addresses written there.  A file with fewer than
 * PMCLOG_SYSMAP_MIN symbols (Debian's placeholder System.map) fails with ENOENT.
 */
#define PMCLOG_SYSMAP_MIN	100
int pmclog_sysmap__load(const char *path, struct pmclog_strings *strings,
			struct pmclog_symtab **out, char *err, size_t errlen);

/*
 * Read a whole regular file, through `xz -dc` or `zstd -dc` when its name
 * ends in .xz or .zst.  *buf is malloc'd.  -EISDIR for a directory and
 * -EINVAL for anything else that is not a regular file (a device, which a
 * process may have mapped, would be read without end; a FIFO would block).
 */
int pmclog_read_file(const char *path, void **buf, size_t *len);

#endif /* PMCLOG_SYMTAB_H */
