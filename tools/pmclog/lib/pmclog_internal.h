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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
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
 * The GNU build-id of the ELF file fd (pmclog_buildid.c, as
 * pmclog_elf__build_id() finds it): its size, at most PMCLOG_BUILD_ID_MAX
 * bytes into id (what a log's BUILDID holds), or 0.
 */
int pmclog_fd_build_id(int fd, __u8 *id);

/*
 * The GNU build-id of elf, from a SHT_NOTE section, else a PT_NOTE
 * segment: its size, at most PMCLOG_ELF_BUILD_ID_MAX bytes into id, or 0.
 */
struct Elf;
size_t pmclog_elf_note_build_id(struct Elf *elf, __u8 *id);

/* The n bytes of id in lowercase hex, NUL-terminated, cut to fit len. */
void pmclog_hex(char *buf, size_t len, const __u8 *id, size_t n);

/*
 * DIR/.build-id/NN/REST of build id (n bytes, n >= 1) into buf, as perf's
 * build-id cache and pmclog_archive lay builds out.  0, or -ENAMETOOLONG.
 */
int pmclog_build_id_path(char *buf, size_t len, const char *dir, const __u8 *id,
			 size_t n);

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
 * The reader's input is a log as the module writes it, never compressed
 * (the writer's reader of the device's bytes): zstd's magic is bad bytes.
 */
void pmclog_reader__plain(struct pmclog_reader *r);

/*
 * n bytes of whole, valid records came after the last record the reader
 * returned, and it is not given them (the writer's PCSAMPLEs): its
 * offsets move on past them.  Only between records, with nothing fed and
 * not read yet; -EINVAL otherwise.
 */
int pmclog_reader__skip(struct pmclog_reader *r, size_t n);

/*
 * What a pmclog_device issues its ioctls through: ioctl(2) (ops NULL), or
 * a test's stand-in for a module it cannot reach, on a file (a pipe) that
 * it fills with the records read(2) then returns.
 */
struct pmclog_device_ops {
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);	/* -1, errno */
	/* At pmclog_device__close(), before the file is closed; may be NULL. */
	void (*free)(void *ctx);
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
 * Load the function symbols of the ELF file at path (.ko.gz, .ko.xz and
 * .ko.zst decompressed), or of len bytes at buf.  .symtab and .dynsym
 * are read when present, bounded by their sections, and x86-64 PLT
 * entries named name@plt from the dynamic relocations.
 */
int pmclog_elf__load(const char *path, struct pmclog_strings *strings,
		     struct pmclog_elf **out, char *err, size_t errlen);
int pmclog_elf__load_mem(const void *buf, size_t len, const char *name,
			 struct pmclog_strings *strings,
			 struct pmclog_elf **out, char *err, size_t errlen);

struct pmclog_debuginfod;

/*
 * How pmclog_elf__load_opts() finds the separate debug file of an
 * executable or shared object that has no .symtab, as gdb, elfutils and
 * perf do: ROOT/usr/lib/debug/.build-id/NN/REST.debug from its build-id;
 * its .gnu_debuglink name beside it, in .debug/ beside it and under
 * ROOT/usr/lib/debug/DIR (CRC checked); a debuginfod server.  A debug
 * file is used only if its build-id is the object's.
 */
struct pmclog_elf_opts {
	const char *root;	/* prefix of the debug directories; NULL: none */
	const char *objpath;	/* the object's path without ROOT; NULL: not looked for */
	struct pmclog_debuginfod *dfd;	/* NULL: no debuginfod */
	/*
	 * path may end in a symbolic link: a file the user named (-k), not
	 * a path a log names (NULL opts: it may not).
	 */
	bool follow;
};

int pmclog_elf__load_opts(const char *path, const struct pmclog_elf_opts *opts,
			  struct pmclog_strings *strings, struct pmclog_elf **out,
			  char *err, size_t errlen);

/*
 * A debuginfod client (libdebuginfod.so.1, loaded when first needed),
 * or NULL when DEBUGINFOD_URLS is unset or empty.  After a failure
 * other than "not there" (no server reachable, a timeout), it asks no
 * more: one report waits for the network at most once.  It asks for at
 * most 64 distinct build-ids (PMCLOG_DEBUGINFOD_MAX), each once, and
 * sets DEBUGINFOD_TIMEOUT in the environment when that is unset (see
 * pmclog_debuginfod.c).
 */
struct pmclog_debuginfod *pmclog_debuginfod__new(void);
void pmclog_debuginfod__free(struct pmclog_debuginfod *d);
/*
 * The debug file of build-id id: an open fd, its path (malloc'd) in
 * *path, a file whose build-id is id; else a negative errno, with why in
 * msg.
 */
int pmclog_debuginfod__find(struct pmclog_debuginfod *d, const __u8 *id, size_t len,
			    char **path, char *msg, size_t msglen);
void pmclog_elf__free(struct pmclog_elf *e);

/*
 * The text symbols (t, T, w, W) of a System.map or of /proc/kallsyms text
 * at path (a file the user named: a symbolic link is followed, but only a
 * regular file is read), at the addresses written there.  A file with fewer than
 * PMCLOG_SYSMAP_MIN symbols (Debian's placeholder System.map) fails with ENOENT.
 */
#define PMCLOG_SYSMAP_MIN	100
int pmclog_sysmap__load(const char *path, struct pmclog_strings *strings,
			struct pmclog_symtab **out, char *err, size_t errlen);

/*
 * Which file was read, and how its path was opened: whoever opens the
 * path again (srcline's libdw) checks that it still names that file.
 */
struct pmclog_file_id {
	dev_t dev;
	ino_t ino;		/* 0: no file (read from memory) */
	unsigned int flags;	/* pmclog_file__open_read()'s */
};

/*
 * Read a whole regular file of at most PMCLOG_FILE_READ_MAX bytes, opened
 * as pmclog_file__open_read(dirfd, path, flags) opens it (nothing else is
 * ever opened: a device's open() may act, a FIFO's may block, a huge
 * sparse file would fill memory), decompressed (zlib, liblzma, libzstd)
 * when its name ends in .gz, .xz or .zst.  *buf is malloc'd; *id (may be
 * NULL) says which file it was.  -ELOOP, -EISDIR, -EINVAL, -EFBIG as
 * pmclog_file__open_read() refuses; -EIO for corrupt compressed data,
 * -E2BIG for more than 1 GiB decompressed.
 */
int pmclog_read_file(int dirfd, const char *path, unsigned int flags, void **buf,
		     size_t *len, struct pmclog_file_id *id);

/* As pmclog_read_file(), never decompressed: the file's own bytes. */
int pmclog_read_file_raw(int dirfd, const char *path, unsigned int flags, void **buf,
			 size_t *len, struct pmclog_file_id *id);

/* Why pmclog_read_file() failed with err, as a message says it. */
const char *pmclog_read_strerror(int err);

/*
 * The file whose DWARF has e's source lines: its debug file when its
 * .symtab came from one (e->debug_path), else its own.
 */
const struct pmclog_file_id *pmclog_elf__dwarf_id(const struct pmclog_elf *e);

/*
 * Source lines of one ELF file's DWARF (pmclog_srcline.c, libdw).  open:
 * path opened again as id says, and only if it is still the file id names
 * (-ESTALE, said once, when it is not: replaced since its symbols were
 * read); -ENODATA when the file has no DWARF.  lookup: "file.c:123"
 * (interned) for a link-time address, NULL when no line table covers it.
 */
struct pmclog_srcline;

int pmclog_srcline__open(const char *path, const struct pmclog_file_id *id,
			 struct pmclog_srcline **out);
void pmclog_srcline__free(struct pmclog_srcline *s);
const char *pmclog_srcline__lookup(struct pmclog_srcline *s, __u64 addr,
				   struct pmclog_strings *strings);

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
/* PCSAMPLES' deltas (include/uapi/linux/pmclog.h)                     */

#define PMCLOG_DELTA_MAX	10	/* bytes of one delta, at most */
#define PMCLOG_PACK_MAX		4096	/* the longest PCSAMPLES the writer makes */

/* Write the zigzag ULEB128 of to - from at p: the bytes written. */
static inline size_t pmclog_delta_put(unsigned char *p, __u64 from, __u64 to)
{
	__u64 d = to - from;
	__u64 u = (d << 1) ^ (__u64)((__s64)d >> 63);
	size_t n = 0;

	while (u >= 0x80) {
		p[n++] = (unsigned char)(u | 0x80);
		u >>= 7;
	}
	p[n++] = (unsigned char)u;
	return n;
}

/*
 * Read a delta from [p, end) and add it to *v: the bytes read, or 0 when
 * there is none there (it runs past end, or past 64 bits: a 10th byte
 * above 1, which would also go on).  A longer encoding than needed (a
 * last byte 0 after others) is read for its value.
 */
static inline size_t pmclog_delta_get(const unsigned char *p,
				      const unsigned char *end, __u64 *v)
{
	__u64 u = 0;
	size_t n = 0;

	do {
		if (p + n == end || (n == PMCLOG_DELTA_MAX - 1 && p[n] > 1))
			return 0;
		u |= (__u64)(p[n] & 0x7f) << (7 * n);
	} while (p[n++] & 0x80);
	*v += (u >> 1) ^ (0 - (u & 1));
	return n;
}

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
/* Lines of /proc/PID/maps (pmclog_maps_line.c)                         */

/*
 * One line: "start-end perms offset major:minor inode   path".  path
 * points into the line: after the padding, to the line's end, its
 * "\012"s made newlines again; "" for none.  A path the kernel wrote
 * with a literal "\012" (a backslash is not escaped) reads as a newline
 * too: the line cannot tell them apart.  " (deleted)" stays in it, as
 * the module's d_path() writes it.
 */
struct pmclog_maps_line {
	__u64 start, end, offset, inode;
	__u32 major, minor;
	char perms[5];		/* "r-xp" */
	char *path;
};

/*
 * Parse line, len bytes with its newline (as getline() gives it), in
 * place.  0, or -EINVAL: not a line of maps, cut short (no newline at
 * its end: the last line of a read that stopped), or with a NUL in it.
 */
int pmclog_maps_line__parse(char *line, size_t len, struct pmclog_maps_line *l);

/*
 * The next line of f, read whole into *buf (getline()'s, *cap bytes;
 * the caller frees it) and parsed into *l: 1; 0 at the end; -EINVAL for
 * a line that is none (it is passed over: call again); -ENOMEM or -EIO
 * (or the read's errno), and the rest is not read.
 */
int pmclog_maps_line__next(FILE *f, char **buf, size_t *cap, struct pmclog_maps_line *l);

/* ------------------------------------------------------------------ */
/* The BPF collector's ring, made into records (pmclog_bpf_ring.c)      */

struct pmclog_bpf_ring;

struct pmclog_bpf_ring *pmclog_bpf_ring__new(void);
void pmclog_bpf_ring__free(struct pmclog_bpf_ring *r);
/* One record of the BPF ring buffer (bpf/pmclog_bpf_events.h), size bytes. */
int pmclog_bpf_ring__record(struct pmclog_bpf_ring *r, const void *data, size_t size);
/* A MAP_IN the collector makes itself (START's), its mapping kept too. */
void pmclog_bpf_ring__map_in(struct pmclog_bpf_ring *r, __u32 pid, __u32 flags, __u64 start,
			     __u64 end, __u64 offset, const char *path, unsigned int cpu,
			     __u64 tstamp);
/* len zeroed bytes at the end of the output, for a record; NULL: no memory. */
void *pmclog_bpf_ring__reserve(struct pmclog_bpf_ring *r, size_t len);
void pmclog_bpf_ring__hdr_init(struct pmclog_header *h, unsigned int type, size_t len,
			       unsigned int cpu, __u64 tstamp);
/* The records made since the last pmclog_bpf_ring__taken(). */
const unsigned char *pmclog_bpf_ring__output(const struct pmclog_bpf_ring *r, size_t *len);
void pmclog_bpf_ring__taken(struct pmclog_bpf_ring *r);
/* Records that could not be made (no memory): a CLOSELOG counts them. */
__u64 pmclog_bpf_ring__lost(const struct pmclog_bpf_ring *r);

/* ------------------------------------------------------------------ */
/* The report's own (pmclog_report.c, pmclog_report_fmt.c, pmclog_gmon.c) */

/*
 * s as one field of a line of the report's line formats: bytes below
 * 0x20, 0x7f, backslash and those of sep as \xNN (pmclog_print.c).
 */
void pmclog_put_escaped(FILE *f, const char *s, const char *sep);

/* The columns pmclog_put_escaped() takes for s. */
int pmclog_escaped_width(const char *s, const char *sep);

/*
 * s escaped as pmclog_put_escaped(f, s, "") writes it, into buf (len
 * bytes; cut at a whole byte's escape, "..." at its end, when it does
 * not fit): a name from a log inside a message, which must not reach a
 * terminal as control characters or split into lines.  Returns buf.
 */
const char *pmclog_escape(char *buf, size_t len, const char *s);

/* Room for pmclog_escape() of a path, whole. */
#define PMCLOG_ESCAPED_PATH	(4 * 4096 + 1)

#define AE_USER		0x1
#define AE_HIDDEN	0x2

/* A distinct sampled address; count 0 marks a free hash slot. */
struct addr_ent {
	struct pmclog_object *obj;	/* NULL: in no map; addr is the pc */
	__u64 addr;			/* object address */
	__u64 count;
	__u32 pid;			/* 0 unless sorting by pid */
	__u8 flags;			/* AE_* */
	__u8 pmcid;			/* header.pmcid */
};

/* A distinct address, named. */
struct res_ent {
	struct pmclog_object *obj;	/* NULL: none */
	const char *object;		/* display name, interned */
	const char *symbol;		/* function, or "0x..." */
	const char *srcline;		/* with PMCLOG_SORT_SRCLINE */
	__u64 addr;			/* vaddr when has_vaddr, else objaddr */
	__u64 count;
	__u32 pid;
	size_t prof;			/* index in pmclog_report.profs */
	enum pmclog_obj_state objstate;	/* of obj; UNTRIED without one */
	bool kernel;
	bool has_vaddr;
	bool no_function;		/* symbol is the address */
};

#define PMCLOG_PMCIDS	256		/* header.pmcid is a __u8 */

struct pmclog_report {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report_opts opts;
	bool by_pid;
	const char *kernel_name, *unknown_name, *hidden_name, *nosrc_name;

	struct addr_ent *addrs;		/* hash */
	size_t naddrs, addrs_cap;
	/* By pmcid: samples seen, and left out by --pid and --time. */
	__u64 seen[PMCLOG_PMCIDS], filtered[PMCLOG_PMCIDS];
	bool selected;			/* pmclog_report__select(): only sel_pmcid */
	__u32 sel_pmcid;
	struct pmclog_profile *profs;
	size_t nprofs;
	int prof_of[PMCLOG_PMCIDS];	/* pmcid -> index in profs, or -1 */
	struct res_ent *ents;
	size_t nents;
	struct pmclog_row *rows;
	size_t nrows;
	struct pmclog_report_stats stats;
};

/* For the callgraph (pmclog_callgraph.c): the report's filters and names. */
struct pmclog_frame_name {
	const char *object;	/* interned display name */
	const char *symbol;	/* interned function; NULL: none known */
	bool kernel;
};

bool pmclog_report__wanted(const struct pmclog_report *rep,
			   const struct pmclog_sample_loc *s);
/* A record of pid at tstamp in --pid and --time; the kernel's in every --pid. */
bool pmclog_report__pid_time_wanted(const struct pmclog_report *rep, __u32 pid,
				    __u64 tstamp);
/* Whether tstamp is inside the report's --time (pmclog_script.c's events). */
bool pmclog_report__time_wanted(const struct pmclog_report *rep, __u64 tstamp);
/* During pmclog_replay__run(): the object pid maps at addr; NULL: none. */
struct pmclog_object *pmclog_replay__object_at(struct pmclog_replay *r, __u32 pid,
					       __u64 addr);
/*
 * Before pmclog_replay__run(): fn sees every record, samples included, in
 * replay order, just before the replay applies it (a MAP_OUT while its
 * map is still there: the timeline's names); a non-zero return stops the
 * replay.  NULL: none.  Unlike pmclog_replay__set_record_fn()'s, which
 * comes after.
 */
void pmclog_replay__set_pre_record_fn(struct pmclog_replay *r, pmclog_replay_record_fn fn,
				      void *ctx);
/* After pmclog_report__finish(): whether PMC pmcid has a profile (--event). */
bool pmclog_report__pmc_kept(const struct pmclog_report *rep, __u32 pmcid);
int pmclog_report__frame_name(struct pmclog_report *rep, struct pmclog_object *obj,
			      __u64 addr, bool user, bool hidden,
			      struct pmclog_frame_name *out);
void pmclog_report__put_field(FILE *f, const char *s, const char *sep);
/* s as a JSON string (pmclog_report_fmt.c); html: safe inside <script>. */
void pmclog_json_str(FILE *f, const char *s, bool html);

/*
 * A line of /proc/kallsyms or System.map ("ffffffff81000000 T _stext",
 * "... t name\t[module]"), split in place: name and mod point into the
 * line, name_len and mod_len long (at most 511; mod_len 0: none).  By
 * hand, for the recorder's 100,000 lines (pmclog_kallsyms.c).  False if
 * the line is not one.
 */
struct pmclog_ksym_line {
	__u64 addr;
	char type;
	const char *name, *mod;
	size_t name_len, mod_len;
};

bool pmclog_ksym_line__parse(const char *line, struct pmclog_ksym_line *l);

/* Is the line's name s? */
static inline bool pmclog_ksym_line__is(const struct pmclog_ksym_line *l, const char *s)
{
	return l->name_len == strlen(s) && !memcmp(l->name, s, l->name_len);
}

#endif /* PMCLOG_INTERNAL_H */
