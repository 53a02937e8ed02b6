/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog symbols: interned strings, sorted symbol tables searched in
 * O(log n), and what the resolver read from an ELF file (its loaders,
 * libelf's and System.map's, are internal: pmclog_internal.h).
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
 * Errors are negative errnos (also in errno).
 */
#ifndef PMCLOG_SYMTAB_H
#define PMCLOG_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "pmclog_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_strings;

PMCLOG_API struct pmclog_strings *pmclog_strings__new(void);
PMCLOG_API void pmclog_strings__free(struct pmclog_strings *s);
/* The one copy of str; NULL (errno ENOMEM) when out of memory. */
PMCLOG_API const char *pmclog_strings__intern(struct pmclog_strings *s, const char *str);
PMCLOG_API size_t pmclog_strings__count(const struct pmclog_strings *s);

/*
 * The binding of a symbol, which decides with its size and name which of
 * several at one address names it (pmclog_symtab__finish()).
 */
enum pmclog_sym_prio {
	PMCLOG_SYM_LOCAL = 0,
	PMCLOG_SYM_WEAK = 1,
	PMCLOG_SYM_GLOBAL = 2,
};

/* pmclog_sym.flags */
#define PMCLOG_SYM_UNSIZED	0x1	/* size 0 in the file: ends at the next symbol */

struct pmclog_sym {
	__u64 addr;
	__u64 size;	/* after pmclog_symtab__finish(): never 0 */
	const char *name;	/* interned */
	__u8 prio;	/* enum pmclog_sym_prio */
	__u8 flags;	/* PMCLOG_SYM_* */
};

struct pmclog_symtab;

PMCLOG_API struct pmclog_symtab *pmclog_symtab__new(void);
PMCLOG_API void pmclog_symtab__free(struct pmclog_symtab *t);

/*
 * Add a symbol; name must be interned.  size 0: up to the next symbol.
 * Invalidates a finished table until the next pmclog_symtab__finish().
 */
PMCLOG_API int pmclog_symtab__add(struct pmclog_symtab *t, __u64 addr, __u64 size,
				  const char *name, enum pmclog_sym_prio prio);
/*
 * The same for a symbol of a section that ends at end (> addr): a size
 * is cut there, and size 0 reaches the next symbol but never past end,
 * so that no name is stretched over a gap or into the next section.
 */
PMCLOG_API int pmclog_symtab__add_in(struct pmclog_symtab *t, __u64 addr, __u64 size,
				     __u64 end, const char *name,
				     enum pmclog_sym_prio prio);

/*
 * Sort, keep one symbol per address (as perf does: sized, not weak,
 * global, fewest leading underscores, longest name, then by name), and
 * give zero-sized symbols the distance to the next one (the
 * last one: to limit, or 1 byte when limit is not above it).  Cheap when
 * nothing was added since the last call.
 */
PMCLOG_API void pmclog_symtab__finish(struct pmclog_symtab *t, __u64 limit);

/* The symbol containing addr in a finished table, or NULL. */
PMCLOG_API const struct pmclog_sym *pmclog_symtab__lookup(const struct pmclog_symtab *t,
							  __u64 addr);
PMCLOG_API size_t pmclog_symtab__count(const struct pmclog_symtab *t);
/* The i-th symbol of a finished table, by address. */
PMCLOG_API const struct pmclog_sym *pmclog_symtab__at(const struct pmclog_symtab *t,
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

/* Longer than the log's (PMCLOG_BUILD_ID_MAX): linkers may write any length. */
#define PMCLOG_ELF_BUILD_ID_MAX	64

/* Where the names of a stripped file came from (pmclog_elf.debug). */
enum pmclog_elf_debug {
	PMCLOG_DEBUG_NONE = 0,	/* the file's own tables only */
	PMCLOG_DEBUG_BUILD_ID,	/* DEBUGDIR/.build-id/NN/REST.debug */
	PMCLOG_DEBUG_LINK,	/* .gnu_debuglink: beside it, .debug/, DEBUGDIR/DIR */
	PMCLOG_DEBUG_DEBUGINFOD,	/* a debuginfod server (DEBUGINFOD_URLS) */
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
	/* The libpmclog 1.1 fields. */
	bool has_dynsym;
	size_t nplt;		/* name@plt symbols made for PLT entries */
	__u8 build_id[PMCLOG_ELF_BUILD_ID_MAX];	/* NT_GNU_BUILD_ID's descriptor */
	size_t build_id_len;	/* 0: none (or longer than PMCLOG_ELF_BUILD_ID_MAX) */
	enum pmclog_elf_debug debug;
	const char *debug_path;	/* interned: the debug file whose .symtab was read */
	const char *debug_note;	/* interned: why none was (candidates refused), or NULL */
};

/*
 * The build-id of the file (its NT_GNU_BUILD_ID note, from a SHT_NOTE
 * section or else a PT_NOTE segment), *len bytes; NULL when it has none.
 */
PMCLOG_API const __u8 *pmclog_elf__build_id(const struct pmclog_elf *e, size_t *len);

/*
 * The virtual address of file offset off, through the PT_LOAD segment
 * that holds it; false when none does.
 */
PMCLOG_API bool pmclog_elf__offset_to_vaddr(const struct pmclog_elf *e, __u64 off,
					    __u64 *vaddr);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_SYMTAB_H */
