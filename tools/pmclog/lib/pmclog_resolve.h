/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog resolver: name the function at an object address, loading
 * each object's symbols once, on first use.
 *
 *   file objects    ROOT/path (ELF; file offset -> vaddr by PT_LOAD), for
 *                   an absolute path without . or .. (as the kernel
 *                   writes them), naming a regular file of at most 2 GiB,
 *                   not through a symbolic link at its end; without a
 *                   .symtab, the .symtab of its separate debug file
 *                   (ROOT/usr/lib/debug/.build-id, .gnu_debuglink beside
 *                   it in a folder no other user can write to, a
 *                   debuginfod server when DEBUGINFOD_URLS is set: at
 *                   most PMCLOG_DEBUGINFOD_MAX (64) build-ids per
 *                   resolver, DEBUGINFOD_TIMEOUT set to 15 s in the
 *                   environment when unset) whose build-id is the object's
 *   "[kernel]"      the symbols the log carries (KSYMBOL: the recorder's
 *                   copy of /proc/kallsyms), else the vmlinux or
 *                   System.map found under ROOT/KERNELDIR
 *   modules         the log's KSYMBOLs, else NAME.ko[.gz|.xz|.zst] found
 *                   under ROOT/KERNELDIR (core or .init text)
 *   [vdso], anon    no file: object + offset
 *
 * Any user may choose a path a log names, and put a FIFO, a device, a
 * link or a huge sparse file there: such a file is not opened (or not
 * read), and said once through the print callback, the path escaped.
 * The -k files are the user's: links followed, but the same files
 * refused.
 *
 * A file whose build-id is not the object's (the log's BUILDID) is not
 * another name for it: not used (the object is NOTFOUND, said once through
 * the print callback), as perf does; under -r, ROOT/.build-id/NN/REST (a
 * pmclog_archive's copy of each build) is looked at first.  A file or an
 * object without a build-id is taken on trust.
 *
 * KERNELDIR (pmcstat's -k) is a directory searched recursively for
 * vmlinux*, System.map* and *.ko*, or a kernel file (the old syntax:
 * ELF, else a System.map, whatever its name), whose directory is then
 * searched for modules only.
 */
#ifndef PMCLOG_RESOLVE_H
#define PMCLOG_RESOLVE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "pmclog_common.h"
#include "pmclog_replay.h"
#include "pmclog_symtab.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmclog_resolver_opts {
	const char *root;	/* prefix of every path; NULL or "" for none */
	const char *kernel;	/* -k: a directory or a kernel file; NULL */
};

enum pmclog_obj_state {
	PMCLOG_OBJST_UNTRIED = 0,
	PMCLOG_OBJST_LOADED,	/* symbols from a file or from the log */
	PMCLOG_OBJST_NOFILE,	/* nothing to look for ([vdso], anon) */
	PMCLOG_OBJST_NOTFOUND,	/* no file, or not one we can read */
};

struct pmclog_resolved {
	const char *symbol;	/* interned; NULL: no function there */
	__u64 addr;		/* vaddr when the file was read, else objaddr */
	__u64 symoff;		/* addr - the function's start */
	bool vaddr;		/* addr is a virtual address of the file */
};

struct pmclog_resolver;

PMCLOG_API struct pmclog_resolver *pmclog_resolver__new(struct pmclog_strings *strings,
							const struct pmclog_resolver_opts *opts);
PMCLOG_API void pmclog_resolver__free(struct pmclog_resolver *res);

PMCLOG_API int pmclog_resolver__resolve(struct pmclog_resolver *res,
					struct pmclog_object *obj, __u64 objaddr,
					struct pmclog_resolved *out);

/*
 * "file.c:123" (interned) for an address of a file object, from the DWARF
 * line table of its debug file or of the file itself (libdw), the file
 * its symbols were read from: NULL when there is none for it, or when
 * its path names another file by now (libpmclog 1.1).
 */
PMCLOG_API const char *pmclog_resolver__srcline(struct pmclog_resolver *res,
						struct pmclog_object *obj, __u64 objaddr);

PMCLOG_API enum pmclog_obj_state pmclog_resolver__state(const struct pmclog_object *obj);
/*
 * Loaded: where the names came from (the file, its tables, the separate
 * debug file and how it was found; "" for the log's); not found: why.
 */
PMCLOG_API const char *pmclog_resolver__detail(const struct pmclog_object *obj);
/* The ELF file read for obj, or NULL (for gprof output). */
PMCLOG_API const struct pmclog_elf *pmclog_resolver__elf(const struct pmclog_object *obj);
PMCLOG_API const char *pmclog_resolver__file(const struct pmclog_object *obj);

#ifdef __cplusplus
}
#endif

#endif /* PMCLOG_RESOLVE_H */
