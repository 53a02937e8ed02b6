// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of how the symbolizer names what perf names (issue #11),
 * against ELF files this test builds with cc, g++, rustc, objcopy and
 * strip:
 *
 *   - a stripped library whose debug file is found under ROOT (-r) by
 *     build-id, or by .gnu_debuglink beside it, in .debug/ or under
 *     ROOT/usr/lib/debug/DIR; a debug file of another build (build-id,
 *     CRC) refused, and one beside the object in a folder that another
 *     user could write to; debuginfod tried at an address where nothing
 *     listens;
 *   - PLT entries named name@plt as objdump names them (.plt, .plt.got,
 *     and the IBT layout's .plt.sec), never glibc's zero-sized _init;
 *   - a zero-sized symbol before a section gap;
 *   - C++, Rust legacy and Rust v0 names demangled, and raw without;
 *   - kernel modules compressed with gzip, xz and zstd;
 *   - the build-id of each file (pmclog_elf__build_id), from its section
 *     or from PT_NOTE when it has no section headers;
 *   - --sort sym,srcline: addr2line's line, from the object's DWARF or
 *     from its debug file's.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "log_builder.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_internal.h"
#include "pmclog_symtab.h"

static bool have_rustc;

#define ID1	"1111111111111111111111111111111111111111"
#define ID2	"2222222222222222222222222222222222222222"
/* Where a debug file of build-id ID1 is: .build-id/NN/REST.debug */
#define ID1_PATH	"11/11111111111111111111111111111111111111.debug"

static const char ext_c[] =
	"int ext_fn(int x) { return x * 3; }\n"
	"int ext_two(int x) { return x + 2; }\n";

/* Calls through the PLT (getenv, strlen, ext_fn), one through .plt.got
 * (ext_two, whose address is also taken), a static function that only
 * .symtab names. */
static const char lib_c[] =
	"#include <stdlib.h>\n#include <string.h>\n"
	"extern int ext_fn(int);\nextern int ext_two(int);\n"
	"int (*take)(int) = ext_two;\n"
	"__attribute__((noinline)) static int hidden_fn(int x) { int s = 0;\n"
	"  for (int i = 0; i < x; i++) __asm__ volatile(\"\" : \"+r\"(s) : \"r\"(i));\n"
	"#ifdef OTHER\n  s *= 3;\n#endif\n  return s; }\n"
	"__attribute__((noinline)) int api_fn(int x) { const char *h = getenv(\"HOME\");\n"
	"  return hidden_fn(x) + (int)strlen(h ? h : \"\") + ext_fn(x) + ext_two(x); }\n";

/* gap_a: no .size, the last symbol of .text; gapsec, aligned after it. */
static const char gap_s[] =
	"\t.text\n\t.globl gap_a\n\t.type gap_a,@function\ngap_a:\n\tnop\n\tnop\n\tret\n"
	"\t.section gapsec,\"ax\",@progbits\n\t.balign 4096\n"
	"\t.globl gap_pad\n\t.type gap_pad,@object\ngap_pad:\n\t.fill 64,1,0x90\n"
	"\t.globl gap_b\n\t.type gap_b,@function\ngap_b:\n\tret\n\t.size gap_b,1\n";

static const char cxx_cc[] =
	"#include <map>\n#include <string>\n"
	"namespace ns { struct K { __attribute__((noinline)) long m(int x); };\n"
	"long K::m(int x) { std::map<int, std::string> mm; mm[x] = \"v\"; return (long)mm.size(); } }\n"
	"extern \"C\" long cxx_entry(int x) { ns::K k; long *p = new long(x); long r = k.m(x) + *p; delete p; return r; }\n";

static const char rust_rs[] =
	"#[inline(never)]\n"
	"pub fn rust_inner(x: u64) -> u64 { let mut s = 0; for i in 0..x { s ^= i.wrapping_mul(31); } s }\n"
	"#[no_mangle]\npub extern \"C\" fn rust_entry(x: u64) -> u64 { rust_inner(x) + 1 }\n";

static const char kmod_c[] =
	"__attribute__((noinline)) int kalpha(int x) { return x + 1; }\n"
	"__attribute__((noinline)) int kbeta(int x) { return kalpha(x) * 2; }\n";



static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmclog-elfnames-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("ext.c", ext_c);
	put("lib.c", lib_c);
	put("gap.s", gap_s);
	put("cxx.cc", cxx_cc);
	put("r.rs", rust_rs);
	put("kmod.c", kmod_c);
	run("cd %s && cc -O1 -fPIC -shared -o libext.so ext.c", dir);
	/* Lazy .plt and .plt.got; the same with IBT: .plt.sec. */
	run("cd %s && cc -O1 -g -fPIC -shared -Wl,--build-id=0x" ID1 " -o libplt.so lib.c -L. -lext", dir);
	run("cd %s && cc -O1 -g -fPIC -shared -fcf-protection=full -Wl,-z,ibtplt -o libibt.so lib.c -L. -lext",
	    dir);
	/* Another build, another build-id: its debug file is not libplt's. */
	run("cd %s && cc -O1 -g -DOTHER -fPIC -shared -Wl,--build-id=0x" ID2 " -o libother.so lib.c -L. -lext",
	    dir);
	run("cd %s && objcopy --only-keep-debug libplt.so libplt.debug && "
	    "objcopy --only-keep-debug libother.so libother.debug", dir);
	/* Without a build-id: found by .gnu_debuglink only. */
	run("cd %s && cc -O1 -g -fPIC -shared -Wl,--build-id=none -o libnoid.so lib.c -L. -lext && "
	    "cc -O1 -g -DOTHER -fPIC -shared -Wl,--build-id=none -o libnoid2.so lib.c -L. -lext && "
	    "objcopy --only-keep-debug libnoid.so libnoid.debug && "
	    "objcopy --only-keep-debug libnoid2.so libnoid2.debug && "
	    "strip -o libnoid-stripped.so libnoid.so && "
	    "objcopy --add-gnu-debuglink=libnoid.debug libnoid-stripped.so", dir);
	run("cd %s && mkdir -p root/lib root/usr/lib/debug/.build-id/11 && "
	    "strip -o root/lib/libplt.so libplt.so && "
	    "cp libplt.debug root/usr/lib/debug/.build-id/" ID1_PATH, dir);
	run("cd %s && cc -O1 -fPIC -shared -o libgap.so gap.s", dir);
	run("cd %s && g++ -O1 -fPIC -shared -o libcxx.so cxx.cc", dir);
	run("cd %s && cc -O1 -fno-pie -mcmodel=kernel -c -o kmod.ko kmod.c && "
	    "gzip -k kmod.ko && xz -k kmod.ko && zstd -q -k kmod.ko && "
	    "for z in gz xz zst; do head -c 100 kmod.ko.$z > cut.ko.$z; done", dir);
	have_rustc = system("rustc --version >/dev/null 2>&1") == 0;
	if (have_rustc)
		run("cd %s && rustc --crate-type cdylib -O -o librs-legacy.so r.rs && "
		    "rustc --crate-type cdylib -O -C symbol-mangling-version=v0 -o librs-v0.so r.rs", dir);
	return 0;
}


/* ------------------------------------------------------------------ */
/* Helpers                                                            */


/* The (first) symbol of file whose name starts with prefix, by nm. */
static void nm_prefixed(const char *file, const char *prefix, char *name, size_t len)
{
	char cmd[512], line[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s | awk 'index($3, \"%s\") == 1 { print $3; exit }'",
		 dir, file, prefix);
	p = popen(cmd, "r");
	assert_non_null(p);
	line[0] = '\0';
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	if (!line[0])
		fail_msg("no symbol %s* in %s", prefix, file);
	snprintf(name, len, "%s", line);
}

/* Address and size of section name of file, by libelf. */
static void section_of(const char *file, const char *name, __u64 *addr, __u64 *size)
{
	char path[256];
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	*addr = *size = 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name)) {
			*addr = sh.sh_addr;
			*size = sh.sh_size;
		}
	elf_end(elf);
	close(fd);
	if (!*size)
		fail_msg("no section %s in %s", name, file);
}

static struct pmclog_elf *load_opts(struct pmclog_strings *st, const char *file,
				    const struct pmclog_elf_opts *o)
{
	char path[256], err[512];
	struct pmclog_elf *e = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (pmclog_elf__load_opts(path, o, st, &e, err, sizeof(err)))
		fail_msg("%s", err);
	return e;
}

static struct pmclog_elf *load(struct pmclog_strings *st, const char *file)
{
	return load_opts(st, file, NULL);
}

/* The file offset of vaddr in file, which a MAP_IN at offset 0 maps. */
static __u64 file_offset(const char *file, __u64 vaddr)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, file);
	__u64 off = 0;
	bool found = false;

	for (size_t i = 0; i < e->nsegs && !found; i++)
		if (vaddr >= e->segs[i].vaddr && vaddr - e->segs[i].vaddr < e->segs[i].filesz) {
			off = vaddr - e->segs[i].vaddr + e->segs[i].offset;
			found = true;
		}
	pmclog_elf__free(e);
	pmclog_strings__free(st);
	if (!found)
		fail_msg("0x%llx in no segment of %s", (unsigned long long)vaddr, file);
	return off;
}

static const char *name_at(const struct pmclog_elf *e, __u64 addr)
{
	const struct pmclog_sym *s = pmclog_symtab__lookup(e->text, addr);

	return s ? s->name : NULL;
}

static void expect_sym(const struct pmclog_elf *e, __u64 addr, const char *name)
{
	const char *got = name_at(e, addr);

	if (!got)
		fail_msg("no symbol at 0x%llx, expected %s", (unsigned long long)addr, name);
	assert_string_equal(got, name);
}

/* ------------------------------------------------------------------ */
/* Separate debug files                                               */

static const struct pmclog_elf_opts *root_opts(struct pmclog_elf_opts *o, const char *objpath)
{
	static char root[128];

	snprintf(root, sizeof(root), "%s/root", dir);
	*o = (struct pmclog_elf_opts){ .root = root, .objpath = objpath };
	return o;
}

static void expect_build_id(const struct pmclog_elf *e, const char *hex)
{
	size_t len;
	const __u8 *id = pmclog_elf__build_id(e, &len);
	char got[2 * PMCLOG_ELF_BUILD_ID_MAX + 1] = "";

	assert_non_null(id);
	for (size_t i = 0; i < len; i++)
		sprintf(got + 2 * i, "%02x", id[i]);
	assert_string_equal(got, hex);
}

/* ROOT/usr/lib/debug/.build-id/11/11...debug names what .dynsym does not. */
static void test_debug_build_id(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf_opts o;
	struct pmclog_elf *e;
	__u64 hidden = nm_value("libplt.so", "hidden_fn");

	(void)state;
	/* Without the debug directories: .dynsym, hidden_fn unnamed. */
	e = load(st, "root/lib/libplt.so");
	assert_false(e->has_symtab);
	assert_true(e->has_dynsym);
	assert_int_equal(e->debug, PMCLOG_DEBUG_NONE);
	assert_true(!name_at(e, hidden) || strcmp(name_at(e, hidden), "hidden_fn"));
	expect_build_id(e, ID1);
	pmclog_elf__free(e);

	e = load_opts(st, "root/lib/libplt.so", root_opts(&o, "/lib/libplt.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_BUILD_ID);
	assert_non_null(strstr(e->debug_path, "/root/usr/lib/debug/.build-id/" ID1_PATH));
	expect_sym(e, hidden, "hidden_fn");
	expect_sym(e, nm_value("libplt.so", "api_fn"), "api_fn");
	expect_build_id(e, ID1);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* A debug file at the build-id path that another build made: refused. */
static void test_debug_wrong_build_id(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf_opts o;
	struct pmclog_elf *e;
	__u64 hidden = nm_value("libplt.so", "hidden_fn");

	(void)state;
	run("cd %s && cp libother.debug root/usr/lib/debug/.build-id/" ID1_PATH, dir);
	e = load_opts(st, "root/lib/libplt.so", root_opts(&o, "/lib/libplt.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_NONE);
	assert_null(e->debug_path);
	assert_non_null(e->debug_note);
	assert_non_null(strstr(e->debug_note, "build-id differs from the object's"));
	assert_true(!name_at(e, hidden) || strcmp(name_at(e, hidden), "hidden_fn"));
	pmclog_elf__free(e);
	run("cd %s && cp libplt.debug root/usr/lib/debug/.build-id/" ID1_PATH, dir);
	pmclog_strings__free(st);
}

/*
 * .gnu_debuglink, where gdb looks for it: beside the object, in .debug/
 * beside it, under ROOT/usr/lib/debug/DIR; a file of that name whose
 * CRC is not the link's is refused.
 */
static void test_debug_link(void **state)
{
	static const char *const where[] = {
		"root/opt/x", "root/opt/x/.debug", "root/usr/lib/debug/opt/x",
	};
	struct pmclog_strings *st = pmclog_strings__new();
	__u64 hidden = nm_value("libnoid.so", "hidden_fn");
	struct pmclog_elf_opts o;
	struct pmclog_elf *e;
	char want[128];
	size_t len;

	(void)state;
	run("cd %s && mkdir -p root/opt/x/.debug root/usr/lib/debug/opt/x && "
	    "cp libnoid-stripped.so root/opt/x/libnoid.so", dir);
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		run("cd %s && cp libnoid.debug %s/libnoid.debug", dir, where[i]);
		e = load_opts(st, "root/opt/x/libnoid.so", root_opts(&o, "/opt/x/libnoid.so"));
		assert_null(pmclog_elf__build_id(e, &len));
		assert_int_equal(len, 0);
		assert_int_equal(e->debug, PMCLOG_DEBUG_LINK);
		/* The very file read: DIR/NAME is not DIR/.debug's. */
		snprintf(want, sizeof(want), "/%s/libnoid.debug", where[i]);
		assert_true(strlen(e->debug_path) >= strlen(want));
		assert_string_equal(e->debug_path + strlen(e->debug_path) - strlen(want), want);
		expect_sym(e, hidden, "hidden_fn");
		pmclog_elf__free(e);
		run("cd %s && rm %s/libnoid.debug", dir, where[i]);
	}
	/* Another build's debug file under the link's name: its CRC differs. */
	run("cd %s && cp libnoid2.debug root/opt/x/.debug/libnoid.debug", dir);
	e = load_opts(st, "root/opt/x/libnoid.so", root_opts(&o, "/opt/x/libnoid.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_NONE);
	assert_non_null(strstr(e->debug_note, "CRC differs"));
	assert_true(!name_at(e, hidden) || strcmp(name_at(e, hidden), "hidden_fn"));
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/*
 * A debug file beside the object is taken only from a folder that no
 * other user can have put it in: root's or the caller's, writable by
 * nobody else (gdb and perf take it from any).  A folder that others may
 * write to, or another user's (uid 65534, as root only), is not searched;
 * -v says why; /usr/lib/debug/DIR still is.
 */
static void test_debug_link_untrusted(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	__u64 hidden = nm_value("libnoid.so", "hidden_fn");
	struct pmclog_elf_opts o;
	struct pmclog_elf *e;

	(void)state;
	run("cd %s && mkdir -p root/opt/y/.debug && chmod 0777 root/opt/y && "
	    "cp libnoid-stripped.so root/opt/y/libnoid.so && cp libnoid.debug root/opt/y/", dir);
	e = load_opts(st, "root/opt/y/libnoid.so", root_opts(&o, "/opt/y/libnoid.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_NONE);
	assert_non_null(strstr(e->debug_note,
			       "/root/opt/y: a folder of uid 0 that others may write to: its debug files are not trusted"));
	assert_true(!name_at(e, hidden) || strcmp(name_at(e, hidden), "hidden_fn"));
	pmclog_elf__free(e);

	/* The folder made the caller's alone: the same file is used. */
	run("chmod 0755 %s/root/opt/y", dir);
	e = load_opts(st, "root/opt/y/libnoid.so", root_opts(&o, "/opt/y/libnoid.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_LINK);
	expect_sym(e, hidden, "hidden_fn");
	pmclog_elf__free(e);

	/* .debug/ beside it, which others may write to. */
	run("cd %s/root/opt/y && mv libnoid.debug .debug/ && chmod 0757 .debug", dir);
	e = load_opts(st, "root/opt/y/libnoid.so", root_opts(&o, "/opt/y/libnoid.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_NONE);
	assert_non_null(strstr(e->debug_note, "/root/opt/y/.debug: a folder of uid 0 that others"));
	pmclog_elf__free(e);

	/* The system's debug folder is not the object's: searched still. */
	run("cd %s && mkdir -p root/usr/lib/debug/opt/y && cp libnoid.debug root/usr/lib/debug/opt/y/", dir);
	e = load_opts(st, "root/opt/y/libnoid.so", root_opts(&o, "/opt/y/libnoid.so"));
	assert_int_equal(e->debug, PMCLOG_DEBUG_LINK);
	assert_non_null(strstr(e->debug_path, "/root/usr/lib/debug/opt/y/libnoid.debug"));
	pmclog_elf__free(e);
	run("rm -r %s/root/usr/lib/debug/opt/y", dir);

	/* Another user's folder, writable by nobody else. */
	if (geteuid() == 0) {
		run("cd %s/root/opt/y && chmod 0755 .debug && chown 65534:65534 . .debug", dir);
		e = load_opts(st, "root/opt/y/libnoid.so", root_opts(&o, "/opt/y/libnoid.so"));
		assert_int_equal(e->debug, PMCLOG_DEBUG_NONE);
		assert_non_null(strstr(e->debug_note, "a folder of uid 65534: its debug files are not trusted"));
		pmclog_elf__free(e);
	} else {
		printf("# skip: a folder of uid 65534 needs root\n");
	}
	pmclog_strings__free(st);
}

/* The log in b through a memory reader into rp, then reported into rep. */
static void report_log(const struct logbuf *b, struct pmclog_replay *rp,
		       struct pmclog_report *rep)
{
	struct pmclog_reader *rd = pmclog_reader__new(NULL);
	struct pmclog_record rec;

	assert_non_null(rd);
	pmclog_reader__feed(rd, b->data, b->len);
	pmclog_reader__feed_eof(rd);
	while (pmclog_reader__next(rd, &rec) == 1)
		assert_int_equal(pmclog_replay__add(rp, &rec), 0);
	pmclog_reader__free(rd);
	assert_int_equal(pmclog_replay__run(rp, pmclog_report__sample, rep), 0);
	assert_int_equal(pmclog_report__finish(rep), 0);
}

struct objs_run {
	struct pmclog_strings *st;
	struct pmclog_replay *rp;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
};

/*
 * A report of pid 3 with samples at each of n file offsets of path,
 * mapped at BASE: n - i samples at offs[i], so that row i is offs[i]'s.
 */
#define BASE	0x7f0000000000ULL

/* The build-id of the next objs_report()'s map: 20 bytes of it; 0: none. */
static unsigned char objs_build_id;

static void objs_report(struct objs_run *r, const char *root, const char *path,
			const __u64 *offs, size_t n, bool demangle)
{
	static struct logbuf b;
	struct pmclog_resolver_opts ro = { .root = root };
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_SYM }, .nkeys = 1, .demangle = demangle,
	};

	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, 3, BASE, BASE + 0x1000000, 0, 0, path);
	if (objs_build_id) {
		size_t off = lb_buildid(&b, 3, BASE, PMCLOG_BUILD_ID_MAX, 0);

		memset(((struct pmclog_buildid *)(b.data + off))->build_id, objs_build_id,
		       PMCLOG_BUILD_ID_MAX);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k <= i; k++)	/* i + 1 samples: rows in a known order */
			lb_pcsample(&b, 0, 3, 3, BASE + offs[n - 1 - i], 1);
	lb_closelog(&b, 1, 0, 0);
	r->st = pmclog_strings__new();
	r->rp = pmclog_replay__new(r->st);
	r->res = pmclog_resolver__new(r->st, &ro);
	r->rep = pmclog_report__new(r->st, r->rp, r->res, &o);
	report_log(&b, r->rp, r->rep);
}

static void objs_free(struct objs_run *r)
{
	pmclog_report__free(r->rep);
	pmclog_resolver__free(r->res);
	pmclog_replay__free(r->rp);
	pmclog_strings__free(r->st);
}

static char *stats_text(const struct pmclog_report *rep)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	pmclog_report__print_stats(rep, f, 1);
	fclose(f);
	return text;
}

/* The report: -r ROOT reaches the debug directories, -v says where names came from. */
static void test_debug_report(void **state)
{
	char root[128], *text;
	struct objs_run r;
	/* libplt's text is mapped at its vaddr's offset: one PT_LOAD, offset == vaddr. */
	__u64 offs[] = { file_offset("libplt.so", nm_value("libplt.so", "hidden_fn")) };

	(void)state;
	snprintf(root, sizeof(root), "%s/root", dir);
	objs_report(&r, root, "/lib/libplt.so", offs, 1, true);
	assert_int_equal(pmclog_report__nrows(r.rep), 1);
	assert_string_equal(pmclog_report__row(r.rep, 0)->symbol, "hidden_fn");
	text = stats_text(r.rep);
	assert_non_null(strstr(text, "/root/lib/libplt.so: .dynsym + "));
	assert_non_null(strstr(text, "/root/usr/lib/debug/.build-id/" ID1_PATH " .symtab (by build-id)"));
	free(text);
	objs_free(&r);
}

/* The messages of the library, kept for a test to read. */
static char said[4096];

static int keep_said(enum pmclog_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(said);

	(void)level;
	return vsnprintf(said + n, sizeof(said) - n, fmt, ap);
}

/*
 * The log's build-id against the file's: the file of another build
 * (libother.so, ID2, at the path of the log's libplt.so, ID1) names
 * nothing and is said once; the same build names as before; under -r, an
 * archive's copy of the build (ROOT/.build-id/NN/REST) is the one read
 * when the path holds another build.
 */
static void test_build_id_mismatch(void **state)
{
	char root[128], *text;
	struct objs_run r;
	__u64 offs[] = { file_offset("libplt.so", nm_value("libplt.so", "api_fn")) };
	pmclog_print_fn_t old;

	(void)state;
	run("cd %s && mkdir -p arch/lib arch/.build-id/22 && cp libplt.so arch/lib/libx.so && "
	    "cp libother.so arch/.build-id/22/%s", dir, ID2 + 2);
	snprintf(root, sizeof(root), "%s/arch", dir);
	said[0] = '\0';
	old = pmclog_set_print(keep_said);

	/* The log's build is the one at the path: named. */
	objs_build_id = 0x11;
	objs_report(&r, root, "/lib/libx.so", offs, 1, true);
	assert_string_equal(pmclog_report__row(r.rep, 0)->symbol, "api_fn");
	objs_free(&r);
	assert_string_equal(said, "");

	/* Another build at the path, none in the archive: not named. */
	objs_build_id = 0x33;
	objs_report(&r, root, "/lib/libx.so", offs, 1, true);
	assert_int_equal(pmclog_report__nrows(r.rep), 1);
	assert_int_equal(strncmp(pmclog_report__row(r.rep, 0)->symbol, "0x", 2), 0);
	text = stats_text(r.rep);
	assert_non_null(strstr(text, "/arch/lib/libx.so has build-id " ID1 ", the log's is "
				     "3333333333333333333333333333333333333333: another build, not used"));
	free(text);
	objs_free(&r);
	assert_non_null(strstr(said, "/arch/lib/libx.so: not the build the log mapped (build-id " ID1));
	assert_null(strstr(strstr(said, "not the build") + 1, "not the build"));	/* once */

	/* The archive holds the log's build (ID2): read from there. */
	said[0] = '\0';
	objs_build_id = 0x22;
	offs[0] = file_offset("libother.so", nm_value("libother.so", "api_fn"));
	objs_report(&r, root, "/lib/libx.so", offs, 1, true);
	assert_string_equal(pmclog_report__row(r.rep, 0)->symbol, "api_fn");
	text = stats_text(r.rep);
	assert_non_null(strstr(text, "/arch/.build-id/22/"));
	free(text);
	objs_free(&r);
	assert_string_equal(said, "");
	objs_build_id = 0;
	pmclog_set_print(old);
}

/*
 * DEBUGINFOD_URLS naming a port where nothing listens: the servers are
 * asked once, the object keeps its .dynsym, -v says why; the next object
 * is not asked again.
 */
static void test_debuginfod_unreachable(void **state)
{
	char root[128], cache[128], *text;
	struct objs_run r;
	__u64 offs[] = { file_offset("libnoid.so", nm_value("libnoid.so", "api_fn")) };

	(void)state;
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(cache, sizeof(cache), "%s/debuginfod-cache", dir);
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1/", 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	/* A build-id, no local debug file: only a server could have it. */
	run("cd %s && mkdir -p root/srv && strip -o root/srv/libother.so libother.so", dir);
	objs_report(&r, root, "/srv/libother.so", offs, 1, true);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	assert_int_equal(pmclog_report__nrows(r.rep), 1);
	text = stats_text(r.rep);
	assert_non_null(strstr(text, "/root/srv/libother.so: .dynsym"));
	assert_non_null(strstr(text, "debuginfod: "));
	free(text);
	objs_free(&r);
}

/* ------------------------------------------------------------------ */
/* PLT entries                                                        */

/* Every "<name@plt>:" objdump prints for section scn of file, named alike. */
static size_t check_objdump_plt(const struct pmclog_elf *e, const char *file, const char *scn)
{
	char cmd[512], line[512], name[400];
	unsigned long long addr;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j %s %s/%s", scn, dir, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx <%399[^>]>:", &addr, name) != 2 ||
		    strlen(name) < 4 || strcmp(name + strlen(name) - 4, "@plt"))
			continue;
		expect_sym(e, addr, name);
		expect_sym(e, addr + 7, name);	/* .plt.got's entries are 8 bytes */
		n++;
	}
	pclose(p);
	return n;
}

/* No address of the PLT sections is _init's, nor any but name@plt or .plt. */
static void check_plt_range(const struct pmclog_elf *e, const char *file, const char *scn)
{
	__u64 a, size;

	section_of(file, scn, &a, &size);
	for (__u64 x = a; x < a + size; x++) {
		const char *name = name_at(e, x);

		assert_non_null(name);
		if (strcmp(name, ".plt") && !strstr(name, "@plt"))
			fail_msg("%s+0x%llx in %s is %s", scn, (unsigned long long)(x - a), file, name);
	}
}

static void test_plt(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e;
	__u64 a, size;

	(void)state;
	/* The stripped one too: PLT names come from the object, not its symtab. */
	for (int stripped = 0; stripped < 2; stripped++) {
		e = load(st, stripped ? "root/lib/libplt.so" : "libplt.so");
		assert_int_equal(check_objdump_plt(e, "libplt.so", ".plt"), 4);
		assert_int_equal(check_objdump_plt(e, "libplt.so", ".plt.got"), 1);
		expect_sym(e, nm_value("libplt.so", "api_fn"), "api_fn");
		check_plt_range(e, "libplt.so", ".plt");
		/* PLT0, which calls the dynamic linker. */
		section_of("libplt.so", ".plt", &a, &size);
		expect_sym(e, a, ".plt");
		assert_int_equal(e->nplt, 5);
		pmclog_elf__free(e);
	}
	/* IBT: .plt.sec as objdump names it; the lazy stubs by their push INDEX. */
	e = load(st, "libibt.so");
	assert_int_equal(check_objdump_plt(e, "libibt.so", ".plt.sec"), 4);
	assert_int_equal(check_objdump_plt(e, "libibt.so", ".plt.got"), 1);
	check_plt_range(e, "libibt.so", ".plt");
	check_plt_range(e, "libibt.so", ".plt.sec");
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* The lazy stub k of IBT's .plt names the k-th .rela.plt entry, as .plt.sec's k-th does. */
static void test_plt_ibt_lazy(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "libibt.so");
	__u64 plt, sec, size;

	(void)state;
	section_of("libibt.so", ".plt", &plt, &size);
	section_of("libibt.so", ".plt.sec", &sec, &size);
	for (__u64 k = 0; k < size / 16; k++)
		expect_sym(e, plt + 16 * (k + 1), name_at(e, sec + 16 * k));
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* ------------------------------------------------------------------ */
/* Section bounds                                                     */

/*
 * gap_a has no size and is the last symbol of .text: it reaches the end
 * of .text, not the padding of gapsec (an object, not a function) nor
 * anything between the two sections.
 */
static void test_section_gap(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "libgap.so");
	__u64 a = nm_value("libgap.so", "gap_a"), b = nm_value("libgap.so", "gap_b");
	__u64 text, tsize, gap, gsize;

	(void)state;
	section_of("libgap.so", ".text", &text, &tsize);
	section_of("libgap.so", "gapsec", &gap, &gsize);
	assert_true(gap > text + tsize);
	expect_sym(e, a, "gap_a");
	expect_sym(e, text + tsize - 1, "gap_a");
	assert_null(name_at(e, text + tsize));
	assert_null(name_at(e, gap - 1));
	assert_null(name_at(e, gap));
	assert_null(name_at(e, b - 1));
	expect_sym(e, b, "gap_b");
	assert_null(name_at(e, b + 1));
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* pmclog_symtab__add_in: a size cut at the end; zero size to the next symbol or the end. */
static void test_symtab_bounded(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_symtab *t = pmclog_symtab__new();
	const struct pmclog_sym *s;

	(void)state;
	assert_int_equal(pmclog_symtab__add_in(t, 0x100, 0, 0x180, pmclog_strings__intern(st, "z"),
					       PMCLOG_SYM_GLOBAL), 0);
	assert_int_equal(pmclog_symtab__add_in(t, 0x200, 0x500, 0x280, pmclog_strings__intern(st, "big"),
					       PMCLOG_SYM_GLOBAL), 0);
	assert_int_equal(pmclog_symtab__add_in(t, 0x300, 0, 0x400, pmclog_strings__intern(st, "z2"),
					       PMCLOG_SYM_LOCAL), 0);
	assert_int_equal(pmclog_symtab__add_in(t, 0x340, 0x10, 0x400, pmclog_strings__intern(st, "n"),
					       PMCLOG_SYM_LOCAL), 0);
	assert_int_equal(pmclog_symtab__add_in(t, 0x400, 0, 0x400, pmclog_strings__intern(st, "bad"),
					       PMCLOG_SYM_LOCAL), -EINVAL);
	pmclog_symtab__finish(t, 0x1000);
	s = pmclog_symtab__lookup(t, 0x17f);
	assert_non_null(s);
	assert_string_equal(s->name, "z");
	assert_null(pmclog_symtab__lookup(t, 0x180));	/* its section ends */
	assert_null(pmclog_symtab__lookup(t, 0x1ff));
	assert_non_null(pmclog_symtab__lookup(t, 0x27f));
	assert_null(pmclog_symtab__lookup(t, 0x280));	/* cut at its section's end */
	s = pmclog_symtab__lookup(t, 0x33f);
	assert_string_equal(s->name, "z2");		/* to the next symbol */
	assert_null(pmclog_symtab__lookup(t, 0x350));	/* past n, not z2 again */
	pmclog_symtab__free(t);
	pmclog_strings__free(st);
}

/* perf's choice among aliases: sized, not weak, global, fewest underscores, longest. */
static void test_symtab_aliases(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_symtab *t = pmclog_symtab__new();
	static const struct { const char *name; int prio; __u64 addr; } syms[] = {
		{ "__libc_malloc", PMCLOG_SYM_GLOBAL, 0x100 }, { "malloc", PMCLOG_SYM_GLOBAL, 0x100 },
		{ "__GI___mprotect", PMCLOG_SYM_LOCAL, 0x200 }, { "mprotect", PMCLOG_SYM_LOCAL, 0x200 },
		{ "__mprotect", PMCLOG_SYM_LOCAL, 0x200 },
		{ "weak_one", PMCLOG_SYM_WEAK, 0x300 }, { "__local_one", PMCLOG_SYM_LOCAL, 0x300 },
		{ "memcpy", PMCLOG_SYM_GLOBAL, 0x400 }, { "memmove", PMCLOG_SYM_GLOBAL, 0x400 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		pmclog_symtab__add(t, syms[i].addr, 0x10, pmclog_strings__intern(st, syms[i].name),
				   syms[i].prio);
	pmclog_symtab__finish(t, 0);
	assert_string_equal(pmclog_symtab__lookup(t, 0x100)->name, "malloc");
	assert_string_equal(pmclog_symtab__lookup(t, 0x200)->name, "mprotect");
	assert_string_equal(pmclog_symtab__lookup(t, 0x300)->name, "__local_one");
	assert_string_equal(pmclog_symtab__lookup(t, 0x400)->name, "memmove");
	pmclog_symtab__free(t);
	pmclog_strings__free(st);
}

/* ------------------------------------------------------------------ */
/* Demangling                                                         */

/* Rows of a report of file's samples at the symbols named. */
static void demangle_case(const char *file, const char *const *mangled, size_t n,
			  const char *const *want)
{
	char path[160], *root = dir;
	__u64 offs[8];
	struct objs_run r;

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++)
		offs[i] = file_offset(file, nm_value(file, mangled[i]));
	snprintf(path, sizeof(path), "/%s", file);
	for (int dm = 0; dm < 2; dm++) {
		objs_report(&r, root, path, offs, n, dm);
		assert_int_equal(pmclog_report__nrows(r.rep), n);
		/* offs[i] has the (i + 1)-th most samples. */
		for (size_t i = 0; i < n; i++)
			assert_string_equal(pmclog_report__row(r.rep, i)->symbol,
					    dm ? want[i] : mangled[i]);
		objs_free(&r);
	}
}

static void test_demangle_cxx(void **state)
{
	static const char *const mangled[] = { "_ZN2ns1K1mEi" };
	static const char *const want[] = { "ns::K::m(int)" };

	(void)state;
	demangle_case("libcxx.so", mangled, 1, want);
}

/* The PLT entry of operator new: "operator new(unsigned long)@plt". */
static void test_demangle_plt(void **state)
{
	char path[160];
	__u64 a, size;
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *e = load(st, "libcxx.so");
	struct objs_run r;
	__u64 off = 0;

	(void)state;
	section_of("libcxx.so", ".plt", &a, &size);
	for (__u64 x = a; x < a + size && !off; x += 16)
		if (name_at(e, x) && !strcmp(name_at(e, x), "_Znwm@plt"))
			off = x;
	assert_true(off != 0);
	pmclog_elf__free(e);
	pmclog_strings__free(st);
	snprintf(path, sizeof(path), "/libcxx.so");
	off = file_offset("libcxx.so", off);
	objs_report(&r, dir, path, &off, 1, true);
	assert_string_equal(pmclog_report__row(r.rep, 0)->symbol, "operator new(unsigned long)@plt");
	objs_free(&r);
}

static void test_demangle_rust(void **state)
{
	char legacy[512], v0[512];
	const char *ml[] = { legacy }, *mv[] = { v0 };
	static const char *const want[] = { "r::rust_inner" };

	(void)state;
	if (!have_rustc)
		skip();
	/* rustc's default (legacy): _ZN1r10rust_inner17h<hash>E. */
	nm_prefixed("librs-legacy.so", "_ZN1r10rust_inner17h", legacy, sizeof(legacy));
	demangle_case("librs-legacy.so", ml, 1, want);
	/* -C symbol-mangling-version=v0: _RNvCs<disambiguator>_1r10rust_inner. */
	nm_prefixed("librs-v0.so", "_RNvCs", v0, sizeof(v0));
	assert_non_null(strstr(v0, "_1r10rust_inner"));
	demangle_case("librs-v0.so", mv, 1, want);
}

/* ------------------------------------------------------------------ */
/* Compressed modules, build-ids                                      */

static void test_compressed_modules(void **state)
{
	static const char *const files[] = { "kmod.ko", "kmod.ko.gz", "kmod.ko.xz", "kmod.ko.zst" };
	struct pmclog_strings *st = pmclog_strings__new();
	__u64 a = nm_value("kmod.ko", "kalpha"), b = nm_value("kmod.ko", "kbeta");
	char path[256], err[512];
	struct pmclog_elf *e;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		e = load(st, files[i]);
		assert_int_equal(e->type, PMCLOG_ELF_REL);
		expect_sym(e, a, "kalpha");
		expect_sym(e, b, "kbeta");
		pmclog_elf__free(e);
	}
	/* Cut short: refused, not half a module. */
	for (size_t i = 1; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/cut%s", dir, strchr(files[i], '.'));
		assert_int_equal(pmclog_elf__load(path, st, &e, err, sizeof(err)), -EIO);
		assert_non_null(strstr(err, "corrupt compressed data"));
	}
	pmclog_strings__free(st);
}

/*
 * A module that decompresses to a whole number of the decompressor's
 * buffers (1 MiB, doubled as it fills): the end of its last frame or
 * member is the end of the buffer.  fuzz_elf's regress/elf/zst-module-1mib.
 */
static void test_compressed_module_whole_buffers(void **state)
{
	static const char *const exts[] = { "gz", "xz", "zst" };
	struct pmclog_strings *st = pmclog_strings__new();
	__u64 a = nm_value("kmod.ko", "kalpha");
	char file[64];
	struct pmclog_elf *e;

	(void)state;
	for (int mib = 1; mib <= 4; mib *= 2) {
		run("cd %s && cp kmod.ko kmod-%dm.ko && truncate -s %dM kmod-%dm.ko && "
		    "gzip -kf kmod-%dm.ko && xz -kf kmod-%dm.ko && zstd -qkf kmod-%dm.ko",
		    dir, mib, mib, mib, mib, mib, mib);
		for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
			snprintf(file, sizeof(file), "kmod-%dm.ko.%s", mib, exts[i]);
			e = load(st, file);
			assert_int_equal(e->type, PMCLOG_ELF_REL);
			expect_sym(e, a, "kalpha");
			pmclog_elf__free(e);
		}
	}
	pmclog_strings__free(st);
}

/* A module found under -k as NAME.ko.gz / .ko.zst, named through the report. */
static void test_compressed_module_kdir(void **state)
{
	static const char *const exts[] = { "gz", "xz", "zst" };
	__u64 a = nm_value("kmod.ko", "kalpha");

	(void)state;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		static struct logbuf b;
		char kdir[128];
		struct pmclog_strings *st = pmclog_strings__new();
		struct pmclog_resolver_opts ro = { .kernel = kdir };
		struct pmclog_report_opts o = { .keys = { PMCLOG_SORT_SYM }, .nkeys = 1 };
		struct pmclog_replay *rp = pmclog_replay__new(st);
		struct pmclog_resolver *res;
		struct pmclog_report *rep;

		snprintf(kdir, sizeof(kdir), "%s/kdir-%s", dir, exts[i]);
		run("mkdir -p %s/kernel/fs && cp %s/kmod.ko.%s %s/kernel/fs/pm-test.ko.%s",
		    kdir, dir, exts[i], kdir, exts[i]);
		res = pmclog_resolver__new(st, &ro);
		rep = pmclog_report__new(st, rp, res, &o);
		memset(&b, 0, sizeof(b));
		lb_initialize(&b);
		lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0000000ULL, 0xffffffffc0010000ULL, 0,
			  PMCLOG_MAP_F_KMODULE, "pm_test");
		lb_pcsample(&b, 0, 1, 1, 0xffffffffc0000000ULL + a, 0);
		lb_closelog(&b, 1, 0, 0);
		report_log(&b, rp, rep);
		assert_int_equal(pmclog_report__nrows(rep), 1);
		assert_string_equal(pmclog_report__row(rep, 0)->symbol, "kalpha");
		pmclog_report__free(rep);
		pmclog_resolver__free(res);
		pmclog_replay__free(rp);
		pmclog_strings__free(st);
	}
}

/* Without section headers the build-id comes from the PT_NOTE segment. */
static void test_build_id_pt_note(void **state)
{
	struct pmclog_strings *st = pmclog_strings__new();
	char path[256];
	struct pmclog_elf *e;
	Elf64_Ehdr eh;
	int fd;

	(void)state;
	e = load(st, "libplt.so");
	expect_build_id(e, ID1);
	pmclog_elf__free(e);
	run("cp %s/libplt.so %s/noshdr.so", dir, dir);
	snprintf(path, sizeof(path), "%s/noshdr.so", dir);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = 0;
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), sizeof(eh));
	close(fd);
	e = load(st, "noshdr.so");
	expect_build_id(e, ID1);
	assert_int_equal(pmclog_symtab__count(e->text), 0);
	pmclog_elf__free(e);
	/* None: NULL and 0. */
	e = load(st, "libnoid.so");
	{
		size_t len = 1;

		assert_null(pmclog_elf__build_id(e, &len));
		assert_int_equal(len, 0);
	}
	pmclog_elf__free(e);
	pmclog_strings__free(st);
}

/* ------------------------------------------------------------------ */
/* Source lines                                                       */

/* addr2line's "file:line" for vaddr in file, the file's last component. */
static void addr2line(const char *file, __u64 vaddr, char *out, size_t len)
{
	char cmd[512], line[1024], *slash;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -e %s/%s 0x%llx", dir, file, (unsigned long long)vaddr);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	line[strcspn(line, " \n")] = '\0';
	slash = strrchr(line, '/');
	snprintf(out, len, "%s", slash ? slash + 1 : line);
}

/*
 * --sort sym,srcline: the line addr2line gives, from the object's own
 * DWARF and, stripped, from its debug file found by build-id under -r.
 */
static void test_srcline(void **state)
{
	static struct logbuf b;
	__u64 hidden = nm_value("libplt.so", "hidden_fn"), api = nm_value("libplt.so", "api_fn");
	__u64 offs[] = { file_offset("libplt.so", hidden + 4), file_offset("libplt.so", api) };
	char want0[256], want1[256], root[128];
	struct pmclog_report_opts o = {
		.keys = { PMCLOG_SORT_SYM, PMCLOG_SORT_SRCLINE }, .nkeys = 2,
	};

	(void)state;
	addr2line("libplt.so", hidden + 4, want0, sizeof(want0));
	addr2line("libplt.so", api, want1, sizeof(want1));
	assert_non_null(strstr(want0, "lib.c:"));
	snprintf(root, sizeof(root), "%s/root", dir);
	for (int stripped = 0; stripped < 2; stripped++) {
		struct pmclog_resolver_opts ro = { .root = stripped ? root : dir };
		struct pmclog_strings *st = pmclog_strings__new();
		struct pmclog_replay *rp = pmclog_replay__new(st);
		struct pmclog_resolver *res = pmclog_resolver__new(st, &ro);
		struct pmclog_report *rep = pmclog_report__new(st, rp, res, &o);

		memset(&b, 0, sizeof(b));
		lb_initialize(&b);
		lb_map_in(&b, 3, BASE, BASE + 0x1000000, 0, 0, stripped ? "/lib/libplt.so" : "/libplt.so");
		for (int i = 0; i < 3; i++)
			lb_pcsample(&b, 0, 3, 3, BASE + offs[0], 1);
		for (int i = 0; i < 2; i++)
			lb_pcsample(&b, 0, 3, 3, BASE + offs[1], 1);
		lb_pcsample(&b, 0, 3, 3, 0x1234, 1);	/* in no map: ??:0 */
		lb_closelog(&b, 6, 0, 0);
		report_log(&b, rp, rep);
		assert_int_equal(pmclog_report__nrows(rep), 3);
		assert_string_equal(pmclog_report__row(rep, 0)->symbol, "hidden_fn");
		assert_string_equal(pmclog_report__row(rep, 0)->srcline, want0);
		assert_string_equal(pmclog_report__row(rep, 1)->symbol, "api_fn");
		assert_string_equal(pmclog_report__row(rep, 1)->srcline, want1);
		assert_string_equal(pmclog_report__row(rep, 2)->srcline, "??:0");
		pmclog_report__free(rep);
		pmclog_resolver__free(res);
		pmclog_replay__free(rp);
		pmclog_strings__free(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_build_id),
		cmocka_unit_test(test_debug_wrong_build_id),
		cmocka_unit_test(test_debug_link),
		cmocka_unit_test(test_debug_link_untrusted),
		cmocka_unit_test(test_debug_report),
		cmocka_unit_test(test_debuginfod_unreachable),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_plt_ibt_lazy),
		cmocka_unit_test(test_section_gap),
		cmocka_unit_test(test_symtab_bounded),
		cmocka_unit_test(test_symtab_aliases),
		cmocka_unit_test(test_demangle_cxx),
		cmocka_unit_test(test_demangle_plt),
		cmocka_unit_test(test_demangle_rust),
		cmocka_unit_test(test_compressed_modules),
		cmocka_unit_test(test_compressed_module_whole_buffers),
		cmocka_unit_test(test_compressed_module_kdir),
		cmocka_unit_test(test_build_id_pt_note),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_srcline),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
