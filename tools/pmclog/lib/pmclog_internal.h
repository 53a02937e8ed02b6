/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog internals, shared by the library's files and nobody else
 * (libbpf's libbpf_internal.h): options structures that grow, the print
 * callback's helpers, and the one description of a validated record that
 * the reader and the replay share.
 */
#ifndef PMCLOG_INTERNAL_H
#define PMCLOG_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <linux/types.h>

#include "pmclog_common.h"
#include "pmclog_device.h"
#include "pmclog_reader.h"
#include "pmclog_report.h"
#include "pmclog_symtab.h"

#ifndef offsetofend
#define offsetofend(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))
#endif

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * Options structures start with their size (libbpf's OPTS_VALID, OPTS_GET):
 * a caller built against an older, shorter one keeps working, and bytes
 * past the fields this library knows must be zero.
 */
bool pmclog_opts_valid(const void *opts, size_t known);

#define OPTS_VALID(opts, last_field) \
	pmclog_opts_valid((opts), offsetofend(typeof(*(opts)), last_field))
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetofend(typeof(*(opts)), field))
#define OPTS_GET(opts, field, fallback) \
	(OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/*
 * The GNU build-id of the ELF file fd (its PT_NOTE segments, read with
 * pread): its size, at most PMCLOG_BUILD_ID_MAX bytes into id, or 0.
 */
int pmclog_fd_build_id(int fd, __u8 *id);

/* Return -err with errno set to err (libbpf's libbpf_err()). */
static inline int pmclog_err(int err)
{
	errno = err;
	return -err;
}

__attribute__((format(printf, 2, 3)))
void pmclog_print(enum pmclog_print_level level, const char *fmt, ...);

#define pr_warn(fmt, ...)	pmclog_print(PMCLOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	pmclog_print(PMCLOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	pmclog_print(PMCLOG_DEBUG, fmt, ##__VA_ARGS__)

/*
 * Describe in *ev the record at raw (8-byte aligned), which a reader has
 * validated, found at byte offset in its log: the header fields, the
 * typed pointer, and path or name where the type has one.  INITIALIZE's
 * name (the CPUID vendor, which the ABI does not promise to be
 * NUL-terminated) is left NULL; the reader sets it to its own copy.
 */
void pmclog_record__describe(struct pmclog_record *ev, const void *raw,
			     __u64 offset);

/*
 * What a pmclog_device issues its ioctls through: ioctl(2) (ops NULL), or
 * a test's stand-in for a module it cannot reach, on a file (a pipe) that
 * it fills with the records read(2) then returns.
 */
struct pmclog_device_ops {
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);	/* -1, errno */
};

/*
 * A device on fd, which it owns from now on (closed on failure too),
 * known as path; the rest as pmclog_device__open().
 */
struct pmclog_device *pmclog_device__new(int fd, const char *path,
					 const struct pmclog_device_ops *ops,
					 void *ctx, bool any_abi);

/* ------------------------------------------------------------------ */
/* Symbol loaders (pmclog_elf.c, pmclog_symtab.c), for the resolver     */
/*
 * Their errors are negative errnos (also in errno), with a message in the
 * caller's buffer naming the file and what is wrong: the resolver keeps
 * it as the reason an object's symbols are missing (report -v).
 */

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

/* ------------------------------------------------------------------ */
/* Growable arrays                                                      */

/*
 * Make *arr (*cap elements of sz bytes) hold at least n, doubling; 0 or
 * -ENOMEM (and *arr unchanged).
 */
static inline int pmclog_array_grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	p = realloc(*arr, c * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

#define PMCLOG_GROW(arr, cap, n) \
	pmclog_array_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)))

/* ------------------------------------------------------------------ */
/* Address maps (pmclog_maps.c), for the replay                         */

/*
 * libpmclog maps: what each process has mapped where, as the log's
 * MAP_IN / MAP_OUT / PROC* records say, replayed in time order.
 *
 * An address map is a sorted array of disjoint intervals [start, end),
 * each naming an object (opaque here) and the object address of start:
 * an address pc in the interval is at pc - start + base in its object.
 * (For a file mapping base is the file offset of start; for "[kernel]"
 * the link-time address; for a module, the offset in its text.)
 *
 *   insert  replaces whatever overlapped the new interval (cut to fit)
 *   remove  drops [start, end), splitting an interval that straddles it
 *
 * pmclog_procmaps holds one address map per pid (PMCLOG_PID_KERNEL for
 * the kernel), with fork (copy), exec (reset) and exit (kept for samples
 * taken before it, forgotten when the pid is reused by a fork).
 */

struct pmclog_map {
	__u64 start;
	__u64 end;
	__u64 base;	/* object address of start */
	void *obj;
};

struct pmclog_addrmap {
	struct pmclog_map *maps;
	size_t count;
	size_t cap;
};

void pmclog_addrmap__init(struct pmclog_addrmap *m);
void pmclog_addrmap__clear(struct pmclog_addrmap *m);	/* frees too */
/* Return 0, -EINVAL for end <= start, -ENOMEM. */
int pmclog_addrmap__insert(struct pmclog_addrmap *m, __u64 start, __u64 end,
			   __u64 base, void *obj);
int pmclog_addrmap__remove(struct pmclog_addrmap *m, __u64 start, __u64 end);
const struct pmclog_map *pmclog_addrmap__find(const struct pmclog_addrmap *m,
					      __u64 addr);
/* The map that starts at start, to change its object; NULL if none. */
struct pmclog_map *pmclog_addrmap__at(struct pmclog_addrmap *m, __u64 start);
int pmclog_addrmap__copy(struct pmclog_addrmap *dst,
			 const struct pmclog_addrmap *src);

struct pmclog_procmaps;

struct pmclog_procmaps *pmclog_procmaps__new(void);
void pmclog_procmaps__free(struct pmclog_procmaps *pm);
/* pid's map, created empty when create is set; NULL if none (or ENOMEM). */
struct pmclog_addrmap *pmclog_procmaps__get(struct pmclog_procmaps *pm,
					    __u32 pid, bool create);
/*
 * PROCFORK: pid's maps become a copy of ppid's (empty if ppid has none);
 * ppid == pid changes nothing.
 */
int pmclog_procmaps__fork(struct pmclog_procmaps *pm, __u32 ppid, __u32 pid);
/* PROCEXEC: pid's maps are emptied. */
int pmclog_procmaps__exec(struct pmclog_procmaps *pm, __u32 pid);
/* PROCEXIT: kept; true if pid was known. */
bool pmclog_procmaps__exit(struct pmclog_procmaps *pm, __u32 pid);
bool pmclog_procmaps__exited(const struct pmclog_procmaps *pm, __u32 pid);

/* ------------------------------------------------------------------ */
/* The report's own (pmclog_report.c, pmclog_report_fmt.c, pmclog_gmon.c) */

#define AE_USER		0x1
#define AE_HIDDEN	0x2

/* A distinct sampled address; count 0 marks a free hash slot. */
struct addr_ent {
	struct pmclog_object *obj;	/* NULL: in no map; addr is the pc */
	__u64 addr;			/* object address */
	__u64 count;
	__u32 pid;			/* 0 unless sorting by pid */
	__u8 flags;			/* AE_* */
};

/* A distinct address, named. */
struct res_ent {
	struct pmclog_object *obj;	/* NULL: none */
	const char *object;		/* display name, interned */
	const char *symbol;		/* function, or "0x..." */
	__u64 addr;			/* vaddr when has_vaddr, else objaddr */
	__u64 count;
	__u32 pid;
	bool kernel;
	bool has_vaddr;
};

struct pmclog_report {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report_opts opts;
	bool by_pid;
	const char *kernel_name, *unknown_name, *hidden_name;

	struct addr_ent *addrs;		/* hash */
	size_t naddrs, addrs_cap;
	struct res_ent *ents;
	size_t nents;
	struct pmclog_row *rows;
	size_t nrows;
	struct pmclog_report_stats stats;

	bool dl_tried;
	void *dl;			/* libstdc++, for __cxa_demangle */
	void *cxa_demangle;
};

/* For the callgraph (pmclog_callgraph.c): the report's filters and names. */
struct pmclog_frame_name {
	const char *object;	/* interned display name */
	const char *symbol;	/* interned function; NULL: none known */
	bool kernel;
};

bool pmclog_report__wanted(const struct pmclog_report *rep,
			   const struct pmclog_sample_loc *s);
int pmclog_report__frame_name(struct pmclog_report *rep, struct pmclog_object *obj,
			      __u64 addr, bool user, bool hidden,
			      struct pmclog_frame_name *out);
void pmclog_report__put_field(FILE *f, const char *s, const char *sep);

#endif /* PMCLOG_INTERNAL_H */
