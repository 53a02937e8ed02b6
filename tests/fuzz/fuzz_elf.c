// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as the files `pmclog report` reads
 * symbols from: an object under -r ROOT, a vmlinux or a module under
 * -k DIR, -k given a kernel file, a System.map, a module compressed
 * (.ko.gz, .ko.xz, .ko.zst) under -k DIR.
 *
 * Input: 1 byte choosing the role, then the file.  A compressed module is
 * first decompressed here, by decoders of this file's own (gzip members,
 * xz streams, zstd frames, one or more of them, nothing after the last),
 * which stand for what the library must make of it: the same bytes, or
 * an error (-EIO, "corrupt compressed data"); pmclog_elf__load() of the
 * file must say what loading those bytes says.  Streams that grow past
 * REF_MAX are not run.  Then the (decompressed) file is loaded
 * twice: from memory (pmclog_elf__load_mem(), or pmclog_sysmap__load()),
 * where the tables are checked (sorted, one symbol per address, none
 * empty, every symbol found by lookup, file offsets through the right
 * segment); and as the report opens it, from a scratch ROOT, for a log
 * with samples on the symbols found the first way.  The resolver must
 * load exactly what the first load accepted, and name each sample as a
 * lookup in the first load's tables does; a report of it (every format,
 * gprof files, which must be sound gmon histograms) must not fail.
 */
#include <limits.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "fuzz_common.h"
#include "log_builder.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_internal.h"
#include "pmclog_symtab.h"

enum role {
	ROLE_OBJECT,		/* ROOT/obj, mapped by pid 10 */
	ROLE_VMLINUX,		/* ROOT/k/vmlinux, -k /k */
	ROLE_KERNEL_FILE,	/* ROOT/k/vmlinux-fuzz, -k /k/vmlinux-fuzz */
	ROLE_MODULE,		/* ROOT/k/fz.ko, -k /k: module "fz" */
	ROLE_SYSMAP,		/* ROOT/k/System.map, -k /k */
	ROLE_MODULE_GZ,		/* ROOT/k/fz.ko.gz, -k /k: module "fz" */
	ROLE_MODULE_XZ,		/* ROOT/k/fz.ko.xz */
	ROLE_MODULE_ZST,	/* ROOT/k/fz.ko.zst */
	ROLES
};

#define PID		10
#define INIT_BASE	(1ULL << 63)	/* the module's .init text is mapped here */
#define MAX_SAMPLED	48		/* symbols given samples */

static const char *const role_file[ROLES] = {
	"obj", "k/vmlinux", "k/vmlinux-fuzz", "k/fz.ko", "k/System.map",
	"k/fz.ko.gz", "k/fz.ko.xz", "k/fz.ko.zst",
};
static const char *const role_kernel[ROLES] = {
	NULL, "/k", "/k/vmlinux-fuzz", "/k", "/k", "/k", "/k", "/k",
};

static bool is_module(enum role role)
{
	return role == ROLE_MODULE || role >= ROLE_MODULE_GZ;
}

/* What the first load found, to compare the resolver with. */
struct expect {
	bool sysmap;			/* the file is read as a System.map */
	int err;			/* of the first load */
	struct pmclog_elf *elf;
	struct pmclog_symtab *map;	/* sysmap */
	struct pmclog_resolver *res;
	size_t checked;
};

/* ------------------------------------------------------------------ */
/* Compressed modules: what the library must read from them          */

/*
 * The most a reference decoder writes: a stream that would grow past it
 * (a few KiB of zstd RLE blocks make 1 GiB) is not run, as the library
 * would take seconds and its 1 GiB to refuse it.
 */
#define REF_MAX		(16U << 20)

enum ref { REF_OK, REF_CORRUPT, REF_TOO_BIG };

struct ref_out {
	unsigned char *p;
	size_t len, cap;
};

/* Room after len: REF_TOO_BIG past REF_MAX. */
static enum ref ref_room(struct ref_out *o)
{
	if (o->len < o->cap)
		return REF_OK;
	if (o->cap >= REF_MAX)
		return REF_TOO_BIG;
	o->cap = o->cap ? o->cap * 2 : 1 << 16;
	o->p = realloc(o->p, o->cap);
	if (!o->p)
		fz_fail("out of memory");
	return REF_OK;
}

/* gzip: members one after another, each to its end, nothing after the last. */
static enum ref ref_gunzip(const uint8_t *in, size_t n, struct ref_out *o)
{
	enum ref r = n ? REF_OK : REF_CORRUPT;
	size_t pos = 0;

	while (r == REF_OK && pos < n) {
		z_stream z = { 0 };
		int zr;

		if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
			fz_fail("inflateInit2 failed");
		z.next_in = (Bytef *)in + pos;
		z.avail_in = (uInt)(n - pos);
		do {
			r = ref_room(o);
			if (r != REF_OK)
				break;
			z.next_out = o->p + o->len;
			z.avail_out = (uInt)(o->cap - o->len);
			zr = inflate(&z, Z_NO_FLUSH);
			o->len = o->cap - z.avail_out;
			/* No progress with room left: the input ended inside the member. */
			if ((zr != Z_OK && zr != Z_BUF_ERROR && zr != Z_STREAM_END) ||
			    (zr != Z_STREAM_END && !z.avail_in && z.avail_out))
				r = REF_CORRUPT;
		} while (r == REF_OK && zr != Z_STREAM_END);
		pos = (size_t)(z.next_in - in);
		inflateEnd(&z);
	}
	return r;
}

/* xz: streams one after another (with their padding), as xz -d reads them. */
static enum ref ref_unxz(const uint8_t *in, size_t n, struct ref_out *o)
{
	lzma_stream s = LZMA_STREAM_INIT;
	enum ref r = REF_OK;
	lzma_ret lr;

	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		fz_fail("lzma_stream_decoder failed");
	s.next_in = in;
	s.avail_in = n;
	do {
		r = ref_room(o);
		if (r != REF_OK)
			break;
		s.next_out = o->p + o->len;
		s.avail_out = o->cap - o->len;
		lr = lzma_code(&s, LZMA_FINISH);
		o->len = o->cap - s.avail_out;
		if (lr != LZMA_OK && lr != LZMA_STREAM_END)
			r = REF_CORRUPT;
	} while (r == REF_OK && lr != LZMA_STREAM_END);
	lzma_end(&s);
	return r;
}

/* zstd: frames (skippable ones too) one after another, each decoded to its end. */
static enum ref ref_unzstd(const uint8_t *in, size_t n, struct ref_out *o)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	enum ref r = n ? REF_OK : REF_CORRUPT;
	size_t pos = 0;

	if (!z)
		fz_fail("out of memory");
	while (r == REF_OK && pos < n) {
		size_t fsz = ZSTD_findFrameCompressedSize(in + pos, n - pos), zr = 1;
		ZSTD_inBuffer ib = { in + pos, fsz, 0 };

		if (ZSTD_isError(fsz) || ZSTD_isError(ZSTD_initDStream(z))) {
			r = REF_CORRUPT;
			break;
		}
		while (r == REF_OK && zr) {
			ZSTD_outBuffer ob;

			r = ref_room(o);
			if (r != REF_OK)
				break;
			ob = (ZSTD_outBuffer){ o->p + o->len, o->cap - o->len, 0 };
			zr = ZSTD_decompressStream(z, &ob, &ib);
			o->len += ob.pos;
			if (ZSTD_isError(zr) || (zr && ib.pos == ib.size && ob.pos < ob.size))
				r = REF_CORRUPT;
		}
		pos += fsz;
	}
	ZSTD_freeDStream(z);
	return r;
}

static enum ref ref_decompress(enum role role, const uint8_t *in, size_t n,
			       struct ref_out *o)
{
	switch (role) {
	case ROLE_MODULE_GZ:
		return ref_gunzip(in, n, o);
	case ROLE_MODULE_XZ:
		return ref_unxz(in, n, o);
	default:
		return ref_unzstd(in, n, o);
	}
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

/*
 * The library's load of the compressed file at path: what the first load
 * of the reference decoder's bytes found (x->err -EIO where it found
 * them corrupt).
 */
static void check_compressed_load(const struct expect *x, const char *path,
				  struct pmclog_strings *strings)
{
	struct pmclog_elf *e = NULL;
	char err[512] = "";
	int ret = pmclog_elf__load(path, strings, &e, err, sizeof(err));

	FZ_CHECK(ret == x->err, "%s: loaded with %d (%s), the decompressed bytes with %d",
		 path, ret, err, x->err);
	FZ_CHECK(ret != -EIO || strstr(err, "corrupt compressed data"),
		 "%s: -EIO said as '%s'", path, err);
	if (!ret)
		FZ_CHECK(e->type == x->elf->type && same_table(e->text, x->elf->text) &&
			 same_table(e->init, x->elf->init),
			 "%s: other symbols than the decompressed bytes'", path);
	pmclog_elf__free(e);
}

/* ------------------------------------------------------------------ */
/* The first load                                                     */

static void check_elf(const struct pmclog_elf *e)
{
	FZ_CHECK(e->type >= PMCLOG_ELF_EXEC && e->type <= PMCLOG_ELF_REL,
		 "ELF type %d", e->type);
	fz_check_symtab(e->text, "text");
	fz_check_symtab(e->init, "init");
	FZ_CHECK(e->type == PMCLOG_ELF_REL || !pmclog_symtab__count(e->init),
		 ".init symbols in a file that is not a module");
	FZ_CHECK(e->type != PMCLOG_ELF_REL || !e->nsegs, "segments in a module");
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct pmclog_elf_segment *s = &e->segs[i];
		__u64 v;

		if (!s->filesz)
			continue;
		/* An earlier segment may hold the offset too: then its vaddr. */
		FZ_CHECK(pmclog_elf__offset_to_vaddr(e, s->offset, &v),
			 "offset 0x%llx of segment %zu in no segment",
			 (unsigned long long)s->offset, i);
		for (size_t j = 0; j <= i; j++) {
			const struct pmclog_elf_segment *t = &e->segs[j];

			if (s->offset >= t->offset && s->offset - t->offset < t->filesz) {
				FZ_CHECK(v == t->vaddr + (s->offset - t->offset),
					 "offset 0x%llx: vaddr 0x%llx, not through segment %zu",
					 (unsigned long long)s->offset, (unsigned long long)v, j);
				break;
			}
		}
	}
}

static void first_load(struct expect *x, const uint8_t *data, size_t size,
		       struct pmclog_strings *strings, const char *path)
{
	char err[512] = "";

	if (x->sysmap) {
		x->err = pmclog_sysmap__load(path, strings, &x->map, err, sizeof(err));
		if (!x->err)
			fz_check_symtab(x->map, "System.map");
	} else {
		x->err = pmclog_elf__load_mem(data, size, "fuzz input", strings, &x->elf,
					      err, sizeof(err));
		if (!x->err)
			check_elf(x->elf);
	}
	FZ_CHECK(x->err <= 0, "load returned %d", x->err);
	FZ_CHECK(!x->err || (err[0] && errno == -x->err),
		 "failed (%d) without a message or errno: '%s'", x->err, err);
}

/* ------------------------------------------------------------------ */
/* The log                                                            */

/* A file offset at which the object's vaddr is, through its segments. */
static bool vaddr_to_offset(const struct pmclog_elf *e, __u64 vaddr, __u64 *off)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct pmclog_elf_segment *s = &e->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

static void sample(struct logbuf *b, enum role role, __u64 pc)
{
	/* The maps end at UINT64_MAX, which is outside them. */
	if (pc != UINT64_MAX && b->len + sizeof(struct pmclog_pcsample) + 64 <= sizeof(b->data))
		lb_pcsample(b, 0, PID, PID, pc, role == ROLE_OBJECT);
}

/* Samples at the first and last byte of up to MAX_SAMPLED symbols of t. */
static void sample_table(struct logbuf *b, enum role role,
			 const struct pmclog_elf *e, const struct pmclog_symtab *t,
			 __u64 base)
{
	size_t n = t ? pmclog_symtab__count(t) : 0;
	size_t step = n > MAX_SAMPLED ? n / MAX_SAMPLED : 1;

	for (size_t i = 0; i < n; i += step) {
		const struct pmclog_sym *s = pmclog_symtab__at(t, i);
		__u64 a = s->addr, z = s->addr + s->size - 1;

		if (role == ROLE_OBJECT &&
		    (!vaddr_to_offset(e, a, &a) || !vaddr_to_offset(e, z, &z)))
			continue;
		sample(b, role, a + base);
		sample(b, role, z + base);
	}
}

static void build_log(struct logbuf *b, enum role role, const struct expect *x)
{
	const struct pmclog_symtab *t = x->sysmap ? x->map : x->elf ? x->elf->text : NULL;

	lb_initialize(b);
	switch (role) {
	case ROLE_OBJECT:
		lb_map_in(b, PID, 0, UINT64_MAX, 0, 0, "/obj");
		break;
	case ROLE_MODULE:
	case ROLE_MODULE_GZ:
	case ROLE_MODULE_XZ:
	case ROLE_MODULE_ZST:
		lb_map_in(b, PMCLOG_PID_KERNEL, 0, INIT_BASE, 0, PMCLOG_MAP_F_KMODULE, "fz");
		lb_map_in(b, PMCLOG_PID_KERNEL, INIT_BASE, UINT64_MAX, 0,
			  PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INIT, "fz");
		break;
	default:
		lb_map_in(b, PMCLOG_PID_KERNEL, 0, UINT64_MAX, 0, 0, "[kernel]");
		break;
	}
	sample_table(b, role, x->elf, t, 0);
	if (is_module(role) && x->elf)
		sample_table(b, role, x->elf, x->elf->init, INIT_BASE);
	/* One whatever was found: a module that does not load is seen not to. */
	if (is_module(role))
		sample(b, role, 1);
	lb_closelog(b, 0, 0, 0);
}

/* ------------------------------------------------------------------ */
/* The resolver                                                       */

static void add_record(void *ctx, const struct pmclog_record *rec)
{
	if (pmclog_replay__add(ctx, rec))
		fz_fail("pmclog_replay__add: %s", strerror(errno));
}

static struct pmclog_replay *replay_of(const struct logbuf *b,
				       struct pmclog_strings *strings)
{
	struct pmclog_replay *rp = pmclog_replay__new(strings);

	if (!rp)
		fz_fail("out of memory");
	FZ_CHECK(fz_read_log(b->data, b->len, add_record, rp) == 0,
		 "the reader refused a log from log_builder.h");
	return rp;
}

/* Would the resolver load the file, after the first load? */
static bool should_load(const struct expect *x, const struct pmclog_object *obj)
{
	if (x->err)
		return false;
	if (obj->kind == PMCLOG_OBJ_KMODULE || obj->kind == PMCLOG_OBJ_KMODULE_INIT)
		return x->elf && x->elf->type == PMCLOG_ELF_REL;
	return true;
}

/* What a lookup in the first load's tables says of objaddr. */
static const struct pmclog_sym *expected_sym(const struct expect *x,
					     const struct pmclog_object *obj,
					     __u64 objaddr)
{
	if (x->sysmap)
		return pmclog_symtab__lookup(x->map, objaddr);
	if (obj->kind == PMCLOG_OBJ_FILE &&
	    !pmclog_elf__offset_to_vaddr(x->elf, objaddr, &objaddr))
		return NULL;
	return pmclog_symtab__lookup(obj->kind == PMCLOG_OBJ_KMODULE_INIT ?
				     x->elf->init : x->elf->text, objaddr);
}

static int check_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct expect *x = ctx;
	const struct pmclog_sym *want;
	struct pmclog_resolved got;
	enum pmclog_obj_state st;

	if (s->hidden)
		return 0;	/* a kernel symbol at 0 */
	FZ_CHECK(s->obj, "sample at 0x%llx in no map", (unsigned long long)s->pc);
	FZ_CHECK(!pmclog_resolver__resolve(x->res, s->obj, s->objaddr, &got),
		 "pmclog_resolver__resolve failed");
	st = pmclog_resolver__state(s->obj);
	if (!should_load(x, s->obj)) {
		FZ_CHECK(st == PMCLOG_OBJST_NOTFOUND && !got.symbol &&
			 pmclog_resolver__detail(s->obj)[0],
			 "%s: state %d, expected not found with a reason", s->obj->path, st);
		return 0;
	}
	FZ_CHECK(st == PMCLOG_OBJST_LOADED, "%s: state %d (%s), expected loaded",
		 s->obj->path, st, pmclog_resolver__detail(s->obj));
	want = expected_sym(x, s->obj, s->objaddr);
	FZ_CHECK(got.symbol == (want ? want->name : NULL),
		 "%s+0x%llx: resolved to %s, expected %s", s->obj->path,
		 (unsigned long long)s->objaddr, got.symbol ? got.symbol : "(none)",
		 want ? want->name : "(none)");
	FZ_CHECK(!want || got.symoff == got.addr - want->addr, "wrong offset in %s",
		 want->name);
	x->checked++;
	return 0;
}

/* The whole report of the same log, with gprof files. */
static void report(const struct logbuf *b, struct pmclog_strings *strings,
		   const struct pmclog_resolver_opts *ro)
{
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2, .demangle = true,
	};
	struct pmclog_replay *rp = replay_of(b, strings);
	struct pmclog_resolver *res = pmclog_resolver__new(strings, ro);
	struct pmclog_report *rep = res ? pmclog_report__new(strings, rp, res, &o) : NULL;
	char gdir[PATH_MAX], map[PATH_MAX + 16], line[2 * PATH_MAX];
	FILE *f;

	if (!rep)
		fz_fail("out of memory");
	FZ_CHECK(!pmclog_replay__run(rp, pmclog_report__sample, rep) &&
		 !pmclog_report__finish(rep), "the report failed");
	for (const char *const *f = pmclog_report__formats(); *f; f++)
		pmclog_report__print(rep, *f, fz_devnull());
	pmclog_report__print_stats(rep, fz_devnull(), 1);
	snprintf(gdir, sizeof(gdir), "%s/gmon", fz_scratch_dir());
	snprintf(map, sizeof(map), "%s/gmon.map", gdir);
	fz_listen();
	if (pmclog_report__write_gmon(rep, gdir, map)) {
		FZ_CHECK(fz_said()[0], "-g failed without saying why");
	} else if ((f = fopen(map, "re"))) {
		while (fgets(line, sizeof(line), f)) {
			FZ_CHECK(strchr(line, ' '), "-M line without a space: %s", line);
			*strchr(line, ' ') = '\0';
			fz_unescape(line);
			fz_check_gmon(line);
		}
		fclose(f);
	} else {
		fz_fail("-M %s not written: %s", map, strerror(errno));
	}
	fz_rm_tree(gdir);
	pmclog_report__free(rep);
	pmclog_resolver__free(res);
	pmclog_replay__free(rp);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_scratch_dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct logbuf b;
	struct pmclog_strings *strings;
	char root[PATH_MAX], path[PATH_MAX];
	struct pmclog_resolver_opts ro;
	struct ref_out plain = { 0 };
	struct pmclog_replay *rp;
	struct expect x = { 0 };
	enum role role;
	enum ref ref;

	if (size < 1)
		return 0;
	strings = pmclog_strings__new();
	if (!strings)
		fz_fail("out of memory");
	role = (enum role)(data[0] % ROLES);
	data++;
	size--;

	/* A fresh ROOT each time: the -k search sees this file only. */
	snprintf(root, sizeof(root), "%s/root", fz_scratch_dir());
	fz_rm_tree(root);
	fz_mkdir(root);
	snprintf(path, sizeof(path), "%s/k", root);
	fz_mkdir(path);
	snprintf(path, sizeof(path), "%s/%s", root, role_file[role]);
	fz_write_file(path, data, size);
	ro = (struct pmclog_resolver_opts){ .root = root, .kernel = role_kernel[role] };

	x.sysmap = role == ROLE_SYSMAP ||
		   (role == ROLE_KERNEL_FILE && (size < 4 || memcmp(data, "\177ELF", 4)));
	if (role >= ROLE_MODULE_GZ) {
		ref = ref_decompress(role, data, size, &plain);
		if (ref == REF_TOO_BIG) {
			free(plain.p);
			pmclog_strings__free(strings);
			return 0;
		}
		if (ref == REF_OK)
			first_load(&x, plain.p, plain.len, strings, path);
		else
			x.err = -EIO;
		check_compressed_load(&x, path, strings);
		free(plain.p);
	} else {
		first_load(&x, data, size, strings, path);
	}

	memset(&b, 0, sizeof(b));
	build_log(&b, role, &x);
	rp = replay_of(&b, strings);
	x.res = pmclog_resolver__new(strings, &ro);
	if (!x.res)
		fz_fail("out of memory");
	FZ_CHECK(!pmclog_replay__run(rp, check_sample, &x), "the replay failed");
	pmclog_resolver__free(x.res);
	pmclog_replay__free(rp);
	report(&b, strings, &ro);

	pmclog_elf__free(x.elf);
	pmclog_symtab__free(x.map);
	pmclog_strings__free(strings);
	return 0;
}
