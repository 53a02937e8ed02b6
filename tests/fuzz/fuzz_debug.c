// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: an object without a .symtab and its separate debug
 * file, both of arbitrary bytes, as `pmclog report -r ROOT` finds them
 * (pmclog_elf.c's elf_debug_symbols()): by build-id under
 * ROOT/usr/lib/debug/.build-id, or by the object's .gnu_debuglink beside
 * it, in .debug/ beside it or under ROOT/usr/lib/debug/DIR, its CRC-32
 * checked.
 *
 * Input: 1 byte of options, 2 bytes (little-endian) of the object's
 * length, the object (ROOT/usr/lib/libfz.so), then the debug file.
 *   bits 0-1  where the debug file is: beside the object, in .debug/,
 *             under ROOT/usr/lib/debug/usr/lib (these three under the
 *             name the object's .gnu_debuglink gives), or under
 *             ROOT/usr/lib/debug/.build-id by the object's build-id
 *   bit 2     the object's .gnu_debuglink given the debug file's CRC-32
 *             (which the fuzzer could not compute)
 *   bit 3     --sort sym,srcline: the source lines of the debug file's
 *             DWARF (or the object's), through libdw
 *   bits 4-5  the log's BUILDID of the object: none, its own, another
 *
 * Checked: the object loads (pmclog_elf__load_opts()) exactly when it
 * loads alone (pmclog_elf__load_mem()), with the same type, segments and
 * build-id; a debug file used is the one placed, found the way it was
 * placed, of an object without a .symtab, an ELF file with a .symtab,
 * of the CRC-32 the link gives (by link) and of the object's build-id;
 * one placed where it is looked for and not used says why (-v); without
 * one the names are the object's own.  Then the log's samples on its
 * symbols are named by the resolver as a lookup in that load's tables
 * does (and not at all when the log's BUILDID is another build's), -v
 * naming the debug file; their source lines, asked, are "FILE:LINE"; the
 * report of the log does not fail.
 */
#include <gelf.h>
#include <libelf.h>
#include <zlib.h>

#include "fuzz_object.h"

#define OBJPATH		"/usr/lib/libfz.so"
#define OBJDIR		"/usr/lib"
#define DEBUGDIR	"/usr/lib/debug"

enum where { BESIDE, DOT_DEBUG, DEBUG_DIR, BY_BUILD_ID };

/* The object's .gnu_debuglink, read as pmclog_elf.c's elf_debuglink() reads it. */
struct link {
	bool found;
	char name[256];
	__u32 crc;
	size_t crc_at;		/* file offset of the CRC-32 */
	bool msb;		/* the object is big-endian */
};

static Elf *elf_of(const uint8_t *data, size_t size)
{
	Elf *elf = elf_memory((char *)data, size);

	if (elf && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return NULL;
	}
	return elf;
}

/* The first section named name that libelf can read the header of. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static void find_link(uint8_t *obj, size_t size, struct link *l)
{
	Elf *elf = elf_of(obj, size);
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	size_t n, at;

	memset(l, 0, sizeof(*l));
	if (!elf)
		return;
	scn = section(elf, ".gnu_debuglink", &sh);
	d = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	if (d && d->d_buf && gelf_getehdr(elf, &eh)) {
		n = strnlen(d->d_buf, d->d_size);
		at = (n + 4) & ~(size_t)3;
		if (n && n < sizeof(l->name) && at + 4 <= d->d_size && !memchr(d->d_buf, '/', n)) {
			l->found = true;
			memcpy(l->name, d->d_buf, n + 1);
			memcpy(&l->crc, (char *)d->d_buf + at, 4);
			l->msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
			if (l->msb)
				l->crc = __builtin_bswap32(l->crc);
			l->crc_at = sh.sh_offset + at;
		}
	}
	elf_end(elf);
}

static __u32 crc_of(const uint8_t *p, size_t n)
{
	return (__u32)crc32(crc32(0, NULL, 0), p, (uInt)n);
}

/* Whether data is an ELF file with a section named .symtab. */
static bool has_symtab(const uint8_t *data, size_t size)
{
	Elf *elf = elf_of(data, size);
	GElf_Shdr sh;
	bool yes = elf && section(elf, ".symtab", &sh);

	elf_end(elf);
	return yes;
}

static void hex(char *buf, const __u8 *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	buf[2 * n] = '\0';
}

/*
 * Where the debug file goes, for an object that loaded as e (NULL: it
 * did not) with link l: the path (without ROOT) in path; false when
 * there is no such place (no link, no build-id, a name that is a folder
 * or the object itself).
 */
static bool place(enum where w, const struct pmclog_elf *e, const struct link *l,
		  char *path, size_t len)
{
	char h[2 * PMCLOG_ELF_BUILD_ID_MAX + 1];

	if (w == BY_BUILD_ID) {
		if (!e || e->build_id_len < 2)
			return false;
		hex(h, e->build_id, e->build_id_len);
		snprintf(path, len, DEBUGDIR "/.build-id/%.2s/%s.debug", h, h + 2);
		return true;
	}
	if (!l->found || !strcmp(l->name, ".") || !strcmp(l->name, "..") ||
	    (w == BESIDE && !strcmp(l->name, strrchr(OBJPATH, '/') + 1)))
		return false;
	snprintf(path, len, "%s/%s", w == BESIDE ? OBJDIR : w == DOT_DEBUG ? OBJDIR "/.debug" :
		 DEBUGDIR OBJDIR, l->name);
	return true;
}

static bool same_table(const struct pmclog_symtab *a, const struct pmclog_symtab *b)
{
	size_t n = pmclog_symtab__count(a);

	if (n != pmclog_symtab__count(b))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct pmclog_sym *s = pmclog_symtab__at(a, i), *t = pmclog_symtab__at(b, i);

		if (s->addr != t->addr || s->size != t->size || s->name != t->name)
			return false;
	}
	return true;
}

/* The object's load with its debug file (e1) against its load alone (e0). */
static void check_load(int err0, const struct pmclog_elf *e0, int err1,
		       const struct pmclog_elf *e1, const char *msg, enum where w,
		       const char *placed, const struct link *l,
		       const uint8_t *dbg, size_t dlen, struct pmclog_strings *strings)
{
	bool eligible = e0 && !e0->has_symtab && e0->type != PMCLOG_ELF_REL;
	struct pmclog_elf *d = NULL;
	char err[512];

	FZ_CHECK(err1 == err0, "loaded with its debug file: %d (%s); alone: %d", err1, msg, err0);
	if (err1)
		return;
	FZ_CHECK(e1->type == e0->type && e1->has_symtab == e0->has_symtab &&
		 e1->has_dynsym == e0->has_dynsym && e1->nsegs == e0->nsegs &&
		 e1->build_id_len == e0->build_id_len &&
		 !memcmp(e1->build_id, e0->build_id, e0->build_id_len),
		 "the debug file changed what the object is");
	fz_check_symtab(e1->text, "text");
	if (!e1->debug_path) {
		FZ_CHECK(same_table(e1->text, e0->text), "no debug file used, other names");
		/* Only a file not read at all (ENOENT) is passed over quietly. */
		FZ_CHECK(!eligible || !placed || e1->debug_note,
			 "%s not used, and no word why", placed);
		return;
	}
	FZ_CHECK(eligible, "a debug file (%s) for an object with a .symtab, or a module",
		 e1->debug_path);
	FZ_CHECK(placed && !strcmp(e1->debug_path, placed),
		 "the debug file %s, not the one placed (%s)", e1->debug_path,
		 placed ? placed : "none");
	FZ_CHECK(e1->debug == (w == BY_BUILD_ID ? PMCLOG_DEBUG_BUILD_ID : PMCLOG_DEBUG_LINK),
		 "%s found by %d", placed, e1->debug);
	FZ_CHECK(w == BY_BUILD_ID || (l->found && crc_of(dbg, dlen) == l->crc),
		 "%s used by .gnu_debuglink with another CRC-32", placed);
	FZ_CHECK(has_symtab(dbg, dlen), "%s used without a .symtab", placed);
	if (e0->build_id_len &&
	    !pmclog_elf__load_mem(dbg, dlen, "debug file", strings, &d, err, sizeof(err)))
		FZ_CHECK(d->build_id_len == e0->build_id_len &&
			 !memcmp(d->build_id, e0->build_id, e0->build_id_len),
			 "%s used with another build-id than the object's", placed);
	pmclog_elf__free(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Never a network lookup. */
	unsetenv("DEBUGINFOD_URLS");
	if (elf_version(EV_CURRENT) == EV_NONE)
		fz_fail("libelf: %s", elf_errmsg(-1));
	fz_scratch_dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum pmclog_sort_key by_sym[] = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM };
	static const enum pmclog_sort_key by_src[] = { PMCLOG_SORT_SYM, PMCLOG_SORT_SRCLINE };
	static struct logbuf b;
	char root[PATH_MAX], objfile[PATH_MAX], rel[PATH_MAX], placed[2 * PATH_MAX];
	char msg[512] = "";
	struct pmclog_elf *e0 = NULL, *e1 = NULL;
	struct pmclog_elf_opts eo;
	struct pmclog_resolver_opts ro;
	struct pmclog_strings *strings;
	struct fz_names x = { 0 };
	const uint8_t *dbg;
	uint8_t *obj;
	size_t olen, dlen, idlen = 0;
	bool patch, srcline, have_place;
	__u8 id[PMCLOG_BUILD_ID_MAX];
	int err0, err1, buildid;
	struct link l;
	enum where w;

	if (size < 3)
		return 0;
	fz_listen();	/* the resolver's warnings, not printed */
	w = (enum where)(data[0] & 3);
	patch = data[0] & 4;
	srcline = data[0] & 8;
	buildid = (data[0] >> 4) & 3;
	olen = data[1] | (size_t)data[2] << 8;
	data += 3;
	size -= 3;
	if (olen > size)
		olen = size;
	dbg = data + olen;
	dlen = size - olen;
	obj = malloc(olen ? olen : 1);
	strings = pmclog_strings__new();
	if (!obj || !strings)
		fz_fail("out of memory");
	memcpy(obj, data, olen);

	find_link(obj, olen, &l);
	if (l.found && patch && l.crc_at + 4 <= olen) {
		__u32 crc = crc_of(dbg, dlen), c = l.msb ? __builtin_bswap32(crc) : crc;

		memcpy(obj + l.crc_at, &c, 4);
		l.crc = crc;
	}
	err0 = pmclog_elf__load_mem(obj, olen, "fuzz input", strings, &e0, msg, sizeof(msg));

	/* A fresh ROOT each time: the object, and the debug file where chosen. */
	snprintf(root, sizeof(root), "%s/root", fz_scratch_dir());
	fz_rm_tree(root);
	fz_mkdir(root);
	snprintf(objfile, sizeof(objfile), "%s" OBJDIR, root);
	fz_mkdirs(objfile);
	snprintf(objfile, sizeof(objfile), "%s" OBJPATH, root);
	fz_write_file(objfile, obj, olen);
	have_place = place(w, e0, &l, rel, sizeof(rel));
	if (have_place) {
		snprintf(placed, sizeof(placed), "%s%s", root, rel);
		*strrchr(placed, '/') = '\0';
		fz_mkdirs(placed);
		snprintf(placed, sizeof(placed), "%s%s", root, rel);
		fz_write_file(placed, dbg, dlen);
	}

	eo = (struct pmclog_elf_opts){ .root = root, .objpath = OBJPATH };
	err1 = pmclog_elf__load_opts(objfile, &eo, strings, &e1, msg, sizeof(msg));
	check_load(err0, e0, err1, e1, msg, w, have_place ? placed : NULL, &l, dbg, dlen,
		   strings);

	/* The log's BUILDID: the object's, or another build's. */
	if ((buildid == 1 || buildid == 2) && e0 && e0->build_id_len <= sizeof(id)) {
		idlen = e0->build_id_len;
		memcpy(id, e0->build_id, idlen);
	}
	if (buildid == 2) {
		if (idlen) {
			id[idlen - 1] ^= 0xff;
		} else {
			/* Another: unless the object has none, which takes any. */
			idlen = sizeof(id);
			memset(id, 0x5a, idlen);
		}
	}
	fz_object_log(&b, OBJPATH, id, idlen);
	fz_sample_symbols(&b, e1);
	fz_sample(&b, 0);	/* so that an object that does not load is seen not to */
	lb_closelog(&b, 0, 0, 0);

	ro = (struct pmclog_resolver_opts){ .root = root };
	x.e = e1;
	x.srclines = srcline;
	if (buildid == 2 && e0 && e0->build_id_len) {
		x.e = NULL;
		x.detail = "another build";
	} else if (e1 && e1->debug_path) {
		x.detail = e1->debug_path;
	}
	fz_check_resolver(&b, strings, &ro, &x);
	FZ_CHECK(x.checked, "no sample checked");
	fz_report(&b, strings, &ro, srcline ? by_src : by_sym, 2);

	pmclog_elf__free(e0);
	pmclog_elf__free(e1);
	pmclog_strings__free(strings);
	free(obj);
	return 0;
}
