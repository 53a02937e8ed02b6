// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog symbol loaders: ELF files through libelf (ET_EXEC, ET_DYN and
 * ET_REL, .symtab and .dynsym, x86-64 PLT entries), their separate debug
 * files, compressed modules (zlib, liblzma, libzstd), and System.map.
 * See pmclog_symtab.h for the address spaces.
 *
 * Never a wrong name: every symbol is bounded by its section (a size
 * past its end is cut, a zero size reaches the next symbol of the table
 * but not past its section's end), so that a sample in a gap, a PLT or
 * a section without symbols is not given the name of whatever precedes
 * it (glibc's crti _init, size 0, used to cover every .plt).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "pmclog_file.h"
#include "pmclog_internal.h"
#include "pmclog_symtab.h"

__attribute__((format(printf, 4, 5)))
static int load_fail(int err, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf && len) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	errno = err;
	return -err;
}

/* ------------------------------------------------------------------ */
/* Reading files                                                      */

/* What a compressed file may grow to: a module is a few MiB. */
#define DECOMP_MAX	(1ULL << 30)

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * Read fd, the regular file st, to its end into a malloc'd buffer: at
 * most PMCLOG_FILE_READ_MAX bytes, should it grow while it is read.
 */
static int read_all(int fd, const struct stat *st, void **buf, size_t *len)
{
	size_t cap = (size_t)st->st_size + 1, n = 0;
	char *p, *q;
	ssize_t r;

	if (cap < 4096)
		cap = 4096;
	p = malloc(cap);
	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (n > PMCLOG_FILE_READ_MAX) {
				free(p);
				return -EFBIG;
			}
			/* One byte past the most: a file that went over it. */
			cap = cap > PMCLOG_FILE_READ_MAX / 2 ? PMCLOG_FILE_READ_MAX + 1 : cap * 2;
			q = realloc(p, cap);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(p);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = p;
	*len = n;
	return 0;
}

/* An output buffer that doubles up to DECOMP_MAX. */
struct outbuf {
	unsigned char *p;
	size_t len, cap;
};

static int outbuf_room(struct outbuf *o)
{
	unsigned char *q;
	size_t cap;

	if (o->len < o->cap)
		return 0;
	if (o->cap >= DECOMP_MAX)
		return -E2BIG;
	cap = o->cap ? o->cap * 2 : 1 << 20;
	q = realloc(o->p, cap);
	if (!q)
		return -ENOMEM;
	o->p = q;
	o->cap = cap;
	return 0;
}

/* gzip (one or more members), as modprobe reads .ko.gz. */
static int gunzip(const unsigned char *in, size_t inlen, struct outbuf *o)
{
	z_stream z = { 0 };
	int ret = 0, zr = Z_OK;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)in;
	while (!ret && (z.avail_in || zr != Z_STREAM_END)) {
		size_t chunk;

		if (zr == Z_STREAM_END) {
			/* Another member follows. */
			if (inflateReset(&z) != Z_OK)
				ret = -EIO;
			zr = Z_OK;
			continue;
		}
		ret = outbuf_room(o);
		if (ret)
			break;
		chunk = inlen - (size_t)(z.next_in - in);
		z.avail_in = chunk > UINT32_MAX ? UINT32_MAX : (uInt)chunk;
		z.next_out = o->p + o->len;
		z.avail_out = (uInt)(o->cap - o->len);
		zr = inflate(&z, Z_NO_FLUSH);
		o->len = o->cap - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END)
			ret = zr == Z_MEM_ERROR ? -ENOMEM : -EIO;
		else if (zr == Z_OK && !z.avail_in && z.avail_out)
			ret = -EIO;	/* cut short */
	}
	inflateEnd(&z);
	return ret;
}

static int unxz(const unsigned char *in, size_t inlen, struct outbuf *o)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret lr;
	int ret = 0;

	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	do {
		ret = outbuf_room(o);
		if (ret)
			break;
		s.next_out = o->p + o->len;
		s.avail_out = o->cap - o->len;
		lr = lzma_code(&s, LZMA_FINISH);
		o->len = o->cap - s.avail_out;
		if (lr != LZMA_OK && lr != LZMA_STREAM_END)
			ret = lr == LZMA_MEM_ERROR ? -ENOMEM : -EIO;
	} while (!ret && lr != LZMA_STREAM_END);
	lzma_end(&s);
	return ret;
}

static int unzstd(const unsigned char *in, size_t inlen, struct outbuf *o)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	size_t zr = 0;
	int ret = 0;

	if (!z)
		return -ENOMEM;
	/* Frame after frame, until the input is used and the last frame done. */
	while (!ret) {
		ZSTD_outBuffer ob;

		ret = outbuf_room(o);
		if (ret)
			break;
		ob = (ZSTD_outBuffer){ o->p + o->len, o->cap - o->len, 0 };
		zr = ZSTD_decompressStream(z, &ob, &ib);
		o->len += ob.pos;
		if (ZSTD_isError(zr))
			ret = -EIO;
		/*
		 * All read, and all written out: room is left, or the last
		 * frame ended exactly at the end of the buffer (zr 0), where
		 * another call would only ask for a frame that is not there.
		 */
		else if (ib.pos == ib.size && (ob.pos < ob.size || !zr))
			break;
	}
	if (!ret && zr)
		ret = -EIO;	/* a frame cut short */
	ZSTD_freeDStream(z);
	return ret;
}

static int decompress(const char *path, void **buf, size_t *len)
{
	struct outbuf o = { 0 };
	int ret;

	if (has_suffix(path, ".gz"))
		ret = gunzip(*buf, *len, &o);
	else if (has_suffix(path, ".xz"))
		ret = unxz(*buf, *len, &o);
	else if (has_suffix(path, ".zst"))
		ret = unzstd(*buf, *len, &o);
	else
		return 0;
	free(*buf);
	*buf = NULL;
	if (ret) {
		free(o.p);
		return ret;
	}
	*buf = o.p ? o.p : malloc(1);
	*len = o.len;
	return *buf ? 0 : -ENOMEM;
}

/* Read (dirfd, path) as pmclog_read_file() does, not decompressed. */
int pmclog_read_file_raw(int dirfd, const char *path, unsigned int flags, void **buf,
			 size_t *len, struct pmclog_file_id *id)
{
	struct stat st;
	int fd, ret;

	fd = pmclog_file__open_read(dirfd, path, flags, 0, &st);
	if (fd < 0)
		return fd;
	ret = read_all(fd, &st, buf, len);
	close(fd);
	if (!ret && id)
		*id = (struct pmclog_file_id){
			.dev = st.st_dev, .ino = st.st_ino, .flags = flags,
		};
	return ret;
}

int pmclog_read_file(int dirfd, const char *path, unsigned int flags, void **buf,
		     size_t *len, struct pmclog_file_id *id)
{
	int ret = pmclog_read_file_raw(dirfd, path, flags, buf, len, id);

	return ret ? ret : decompress(path, buf, len);
}

const char *pmclog_read_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link, which pmclog does not follow for a path a log names (under -r, put the file itself there)";
	case -EINVAL:
		return "not a regular file (a device, a FIFO or a socket): not opened";
	case -EFBIG:
		return "larger than 2 GiB: not a program, not read";
	case -E2BIG:
		return "decompresses to more than 1 GiB";
	case -EIO:
		return "corrupt compressed data";
	default:
		return strerror(-err);
	}
}

/* ------------------------------------------------------------------ */
/* ELF                                                                */

struct elf_ctx {
	Elf *elf;
	const char *name;
	struct pmclog_strings *strings;
	struct pmclog_elf *out;
	__u64 *secoff;		/* REL: layout offset of each section */
	unsigned char *secin;	/* REL: 0 none, 1 core text, 2 init text */
	size_t nsec;
	size_t shstrndx;
	char *err;
	size_t errlen;
};

/*
 * What the loader knows of a pmclog_elf beyond its public fields: which
 * files it read, for whoever opens them again (srcline).
 */
struct elf_priv {
	struct pmclog_elf pub;
	struct pmclog_file_id file;	/* the object's own */
	struct pmclog_file_id debug;	/* its debug file's, with pub.debug_path */
};

static struct elf_priv *elf_priv(const struct pmclog_elf *e)
{
	return container_of(e, struct elf_priv, pub);
}

void pmclog_elf__free(struct pmclog_elf *e)
{
	if (!e)
		return;
	pmclog_symtab__free(e->text);
	pmclog_symtab__free(e->init);
	free(e->segs);
	free(elf_priv(e));
}

const struct pmclog_file_id *pmclog_elf__dwarf_id(const struct pmclog_elf *e)
{
	return e->debug_path ? &elf_priv(e)->debug : &elf_priv(e)->file;
}

const __u8 *pmclog_elf__build_id(const struct pmclog_elf *e, size_t *len)
{
	*len = e ? e->build_id_len : 0;
	return *len ? e->build_id : NULL;
}

static int elf_segments(struct elf_ctx *c)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(c->elf, &n))
		return 0;
	c->out->segs = calloc(n ? n : 1, sizeof(*c->out->segs));
	if (!c->out->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		c->out->segs[c->out->nsegs++] = (struct pmclog_elf_segment){
			.vaddr = ph.p_vaddr, .offset = ph.p_offset,
			.filesz = ph.p_filesz,
		};
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Build-id and .gnu_debuglink                                        */

static Elf_Scn *elf_section(Elf *elf, size_t shstrndx, const char *want,
			    GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/*
 * .gnu_debuglink: a file name, NUL, padding to 4 bytes, the CRC-32 of the
 * debug file.  false when there is none or it is malformed.
 */
static bool elf_debuglink(Elf *elf, size_t shstrndx, char *name, size_t len,
			  __u32 *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section(elf, shstrndx, ".gnu_debuglink", &sh);
	Elf_Data *d = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	const char *p;
	size_t n, at;
	GElf_Ehdr eh;

	if (!d || !d->d_buf || !gelf_getehdr(elf, &eh))
		return false;
	p = d->d_buf;
	n = strnlen(p, d->d_size);
	at = (n + 4) & ~(size_t)3;
	if (!n || n >= len || at + 4 > d->d_size || memchr(p, '/', n))
		return false;
	memcpy(name, p, n + 1);
	memcpy(crc, p + at, 4);
	if ((eh.e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		*crc = __builtin_bswap32(*crc);
	return true;
}

/* ------------------------------------------------------------------ */
/* Symbols                                                            */

static bool is_exec_alloc(const GElf_Shdr *sh)
{
	return (sh->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
	       (SHF_ALLOC | SHF_EXECINSTR);
}

/*
 * REL: where the kernel puts each executable section: core text or init
 * text (names starting ".init"), in section order, each aligned
 * (layout_sections() in kernel/module/main.c).
 */
static int elf_rel_layout(struct elf_ctx *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	c->secoff = calloc(c->nsec, sizeof(*c->secoff));
	c->secin = calloc(c->nsec, 1);
	if (!c->secoff || !c->secin)
		return -ENOMEM;
	while ((scn = elf_nextscn(c->elf, scn))) {
		size_t i = elf_ndxscn(scn);
		const char *name;
		__u64 *size, align;

		if (!gelf_getshdr(scn, &sh) || !is_exec_alloc(&sh) || i >= c->nsec)
			continue;
		name = elf_strptr(c->elf, c->shstrndx, sh.sh_name);
		c->secin[i] = name && !strncmp(name, ".init", 5) ? 2 : 1;
		size = c->secin[i] == 2 ? &c->out->init_size : &c->out->text_size;
		align = sh.sh_addralign ? sh.sh_addralign : 1;
		c->secoff[i] = (*size + align - 1) / align * align;
		*size = c->secoff[i] + sh.sh_size;
	}
	return 0;
}

static bool wanted_symbol(const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !*name || sym->st_shndx == SHN_UNDEF ||
	    sym->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	/* Assembly entry points; not local labels. */
	return type == STT_NOTYPE && name[0] != '$' && strncmp(name, ".L", 2);
}

static enum pmclog_sym_prio sym_prio(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return PMCLOG_SYM_GLOBAL;
	case STB_WEAK:
		return PMCLOG_SYM_WEAK;
	default:
		return PMCLOG_SYM_LOCAL;
	}
}

/*
 * A symbol of elf (the object, or its debug file: the same sections at
 * the same addresses), within its section.
 */
static int elf_add_symbol(struct elf_ctx *c, Elf *elf, const GElf_Sym *sym,
			  const char *name)
{
	struct pmclog_symtab *t = c->out->text;
	__u64 addr = sym->st_value, start, end;
	const char *iname;
	Elf_Scn *scn;
	GElf_Shdr sh;

	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !is_exec_alloc(&sh) || !sh.sh_size)
		return 0;
	if (c->out->type == PMCLOG_ELF_REL) {
		if (sym->st_shndx >= c->nsec || !c->secin[sym->st_shndx])
			return 0;
		if (c->secin[sym->st_shndx] == 2)
			t = c->out->init;
		start = c->secoff[sym->st_shndx];
		if (addr >= sh.sh_size)
			return 0;
		addr += start;
	} else {
		start = sh.sh_addr;
	}
	end = start + sh.sh_size;
	if (addr < start || addr >= end || end < start)
		return 0;
	iname = pmclog_strings__intern(c->strings, name);
	if (!iname)
		return -ENOMEM;
	return pmclog_symtab__add_in(t, addr, sym->st_size, end, iname, sym_prio(sym));
}

static int elf_symbols(struct elf_ctx *c, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;
	int ret;

	if (!data)
		return 0;
	for (size_t i = 1; i < n; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!wanted_symbol(&sym, name))
			continue;
		ret = elf_add_symbol(c, elf, &sym, name);
		if (ret)
			return ret;
	}
	return 0;
}

/* The symbol tables of type (SHT_SYMTAB or SHT_DYNSYM) of elf; how many. */
static int elf_tables(struct elf_ctx *c, Elf *elf, GElf_Word type, size_t *found)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret;

	*found = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		++*found;
		ret = elf_symbols(c, elf, scn, &sh);
		if (ret)
			return ret;
	}
	return 0;
}

static int elf_all_symbols(struct elf_ctx *c)
{
	size_t n;
	int ret;

	ret = elf_tables(c, c->elf, SHT_SYMTAB, &n);
	c->out->has_symtab = n;
	if (!ret)
		ret = elf_tables(c, c->elf, SHT_DYNSYM, &n);
	c->out->has_dynsym = n;
	return ret;
}

/* ------------------------------------------------------------------ */
/* PLT entries (x86-64)                                               */

/*
 * Each PLT entry jumps through its GOT slot: jmp *disp32(%rip), ff 25,
 * perhaps after endbr64 (f3 0f 1e fa) and bnd (f2).  The dynamic
 * relocation of that slot names it: R_X86_64_JUMP_SLOT (.plt, .plt.sec)
 * or R_X86_64_GLOB_DAT (.plt.got, a function whose address is also
 * taken), both with a symbol; R_X86_64_IRELATIVE (a call of a local
 * IFUNC) with the address of its resolver, which the symbol table names.
 * The lazy-binding entries of an IBT layout (.plt beside .plt.sec) do not
 * jump through the GOT but push the index of their .rela.plt entry.  This
 * is the layout perf's dso__synthesize_plt_symbols() decodes; decoding
 * the jumps rather than counting entries also holds for .plt.got and for
 * linkers that order the PLT otherwise.
 */
struct got_slot {
	__u64 addr;		/* the GOT slot */
	const char *name;	/* the symbol; NULL: IRELATIVE */
	__u64 addend;		/* IRELATIVE: the resolver */
};

/* An IRELATIVE entry, named once the symbol tables are read. */
struct plt_pending {
	__u64 at;		/* the PLT entry */
	__u64 size;
	__u64 resolver;
};

struct plt_ctx {
	struct got_slot *slots;	/* by address */
	size_t nslots, cap;
	const struct got_slot **jmprel;	/* .rela.plt in order, for push INDEX */
	size_t njmprel;
	struct plt_pending *pending;
	size_t npending, pending_cap;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const struct got_slot *plt_slot(const struct plt_ctx *p, __u64 addr)
{
	size_t lo = 0, hi = p->nslots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->slots[mid].addr == addr)
			return &p->slots[mid];
		if (p->slots[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The dynamic relocations (SHT_RELA linked to .dynsym) that name GOT slots. */
static int plt_relocs(struct elf_ctx *c, struct plt_ctx *p, size_t *jmprel_scn)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, symsh;
	int ret = 0;

	*jmprel_scn = 0;
	while (!ret && (scn = elf_nextscn(c->elf, scn))) {
		Elf_Scn *symscn;
		Elf_Data *d, *symd;
		const char *sname;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		sname = elf_strptr(c->elf, c->shstrndx, sh.sh_name);
		if (sname && !strcmp(sname, ".rela.plt"))
			*jmprel_scn = elf_ndxscn(scn);
		symscn = elf_getscn(c->elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		symd = elf_getdata(symscn, NULL);
		if (!d || !symd)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; !ret && i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name = NULL;
			unsigned long type;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
			    type != R_X86_64_IRELATIVE)
				continue;
			if (type != R_X86_64_IRELATIVE) {
				if (!gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
					continue;
				name = elf_strptr(c->elf, symsh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
			}
			if (PMCLOG_GROW(p->slots, p->cap, p->nslots + 1)) {
				ret = -ENOMEM;
				break;
			}
			p->slots[p->nslots++] = (struct got_slot){
				.addr = r.r_offset, .name = name,
				.addend = (__u64)r.r_addend,
			};
		}
	}
	return ret;
}

/* .rela.plt's entries by index, for the lazy entries' push INDEX. */
static int plt_jmprel(struct elf_ctx *c, struct plt_ctx *p, size_t ndx)
{
	Elf_Scn *scn = ndx ? elf_getscn(c->elf, ndx) : NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t n;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    !(d = elf_getdata(scn, NULL)))
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	p->jmprel = calloc(n ? n : 1, sizeof(*p->jmprel));
	if (!p->jmprel)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		p->jmprel[p->njmprel++] = plt_slot(p, r.r_offset);
	}
	return 0;
}

static __s32 le32(const unsigned char *b)
{
	return (__s32)((__u32)b[0] | (__u32)b[1] << 8 | (__u32)b[2] << 16 | (__u32)b[3] << 24);
}

/* The bytes of endbr64, which IBT entries start with. */
static bool endbr64(const unsigned char *e, size_t len)
{
	return len >= 4 && e[0] == 0xf3 && e[1] == 0x0f && e[2] == 0x1e && e[3] == 0xfa;
}

/*
 * The GOT slot one entry of entsize bytes at addr jumps through, or NULL.
 * Only the first instruction is decoded, after endbr64 and bnd: a jmp
 * anywhere else (PLT0's, after its push) or bytes inside an operand are
 * not an entry's.
 */
static const struct got_slot *plt_entry_slot(const struct plt_ctx *p,
					     const unsigned char *e, size_t entsize,
					     __u64 addr, bool lazy)
{
	size_t i = endbr64(e, entsize) ? 4 : 0;

	if (i < entsize && e[i] == 0xf2)	/* bnd */
		i++;
	if (i + 6 <= entsize && e[i] == 0xff && e[i + 1] == 0x25)
		return plt_slot(p, addr + i + 6 + (__u64)(__s64)le32(e + i + 2));
	/* An IBT lazy entry: endbr64; push $INDEX; bnd jmp .plt */
	i = endbr64(e, entsize) ? 4 : 0;
	if (lazy && i == 4 && i + 5 <= entsize && e[i] == 0x68) {
		__u32 idx = (__u32)le32(e + i + 1);

		return idx < p->njmprel ? p->jmprel[idx] : NULL;
	}
	return NULL;
}

static int plt_add(struct elf_ctx *c, __u64 addr, __u64 size, const char *name)
{
	char buf[512];
	const char *iname;
	int ret;

	/* "memcpy@@GLIBC_2.14", an IFUNC's versioned alias: memcpy@plt. */
	snprintf(buf, sizeof(buf), "%.*s@plt", (int)strcspn(name, "@"), name);
	iname = pmclog_strings__intern(c->strings, buf);
	if (!iname)
		return -ENOMEM;
	/* Below every real symbol: a file's own name for the address wins. */
	ret = pmclog_symtab__add_in(c->out->text, addr, size, addr + size, iname,
				    PMCLOG_SYM_LOCAL);
	if (!ret)
		c->out->nplt++;
	return ret;
}

static int plt_section(struct elf_ctx *c, struct plt_ctx *p, Elf_Scn *scn,
		       const GElf_Shdr *sh, const char *name)
{
	bool lazy = !strcmp(name, ".plt"), got = !strcmp(name, ".plt.got");
	size_t entsize = sh->sh_entsize == 8 || sh->sh_entsize == 16 ?
			 sh->sh_entsize : got ? 8 : 16;
	Elf_Data *d = elf_getdata(scn, NULL);
	int ret = 0;

	if (!d || !d->d_buf || d->d_size < entsize)
		return 0;
	for (size_t off = 0; !ret && off + entsize <= d->d_size && off < sh->sh_size;
	     off += entsize) {
		__u64 addr = sh->sh_addr + off;
		const struct got_slot *s;

		s = plt_entry_slot(p, (unsigned char *)d->d_buf + off, entsize, addr, lazy);
		if (!s) {
			/* The first entry of .plt calls the dynamic linker. */
			if (lazy && !off) {
				const char *iname = pmclog_strings__intern(c->strings, ".plt");

				ret = iname ? pmclog_symtab__add_in(c->out->text, addr, entsize,
								    addr + entsize, iname,
								    PMCLOG_SYM_LOCAL) : -ENOMEM;
			}
			continue;
		}
		if (s->name) {
			ret = plt_add(c, addr, entsize, s->name);
			continue;
		}
		if (PMCLOG_GROW(p->pending, p->pending_cap, p->npending + 1)) {
			ret = -ENOMEM;
			break;
		}
		p->pending[p->npending++] = (struct plt_pending){
			.at = addr, .size = entsize, .resolver = s->addend,
		};
	}
	return ret;
}

/* IRELATIVE entries: the symbol at the resolver's address names the IFUNC. */
static int plt_pending(struct elf_ctx *c, struct plt_ctx *p)
{
	int ret = 0;

	if (!p->npending)
		return 0;
	pmclog_symtab__finish(c->out->text, 0);
	for (size_t i = 0; !ret && i < p->npending; i++) {
		const struct plt_pending *e = &p->pending[i];
		const struct pmclog_sym *s = pmclog_symtab__lookup(c->out->text, e->resolver);

		if (s && s->addr == e->resolver)
			ret = plt_add(c, e->at, e->size, s->name);
	}
	return ret;
}

static int elf_plt(struct elf_ctx *c)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	struct plt_ctx p = { 0 };
	size_t jmprel;
	GElf_Ehdr eh;
	int ret;

	if (c->out->type == PMCLOG_ELF_REL || !gelf_getehdr(c->elf, &eh) ||
	    eh.e_machine != EM_X86_64)
		return 0;
	ret = plt_relocs(c, &p, &jmprel);
	if (!ret && p.nslots) {
		/* plt_jmprel() points into slots: sorted first. */
		qsort(p.slots, p.nslots, sizeof(*p.slots), slot_cmp);
		ret = plt_jmprel(c, &p, jmprel);
	}
	for (size_t i = 0; !ret && p.nslots && i < sizeof(plts) / sizeof(plts[0]); i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_section(c->elf, c->shstrndx, plts[i], &sh);

		if (scn && sh.sh_type == SHT_PROGBITS && is_exec_alloc(&sh) &&
		    sh.sh_addr + sh.sh_size > sh.sh_addr)
			ret = plt_section(c, &p, scn, &sh, plts[i]);
	}
	if (!ret)
		ret = plt_pending(c, &p);
	free(p.slots);
	free(p.jmprel);
	free(p.pending);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Separate debug files                                               */

#define DEBUGDIR	"/usr/lib/debug"

/* A candidate debug file, read whole: libelf reads it from memory. */
struct debug_file {
	void *buf;
	size_t len;
	Elf *elf;
	struct pmclog_file_id id;
};

static void debug_file_free(struct debug_file *d)
{
	if (d->elf)
		elf_end(d->elf);
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

/* Append to the -v note of why candidates were refused. */
__attribute__((format(printf, 3, 4)))
static void note(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 3 >= len)
		return;
	if (n) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* The CRC-32 .gnu_debuglink holds: zlib's, over the whole file. */
static __u32 file_crc(const unsigned char *p, size_t len)
{
	uLong crc = crc32(0, NULL, 0);

	while (len) {
		uInt n = len > (1U << 30) ? 1U << 30 : (uInt)len;

		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (__u32)crc;
}

/*
 * Read the candidate (dirfd, name) as pmclog_read_file() reads it (flags:
 * PMCLOG_FILE_FOLLOW for a path of the system's debug directories, whose
 * .build-id entries are symbolic links), known as path.  0 when it was
 * read; -ENOENT when there is no such file (quietly); another negative
 * errno, with why in notes.
 */
static int debug_read(int dirfd, const char *name, unsigned int flags, const char *path,
		      struct debug_file *d, char *notes, size_t nlen)
{
	int ret;

	memset(d, 0, sizeof(*d));
	ret = pmclog_read_file(dirfd, name, flags, &d->buf, &d->len, &d->id);
	if (ret == -ENOENT || ret == -ENOTDIR)
		return -ENOENT;
	if (ret)
		note(notes, nlen, "%s: %s", path, pmclog_read_strerror(ret));
	return ret;
}

/*
 * d, read from path, as the debug file of c's object: an ELF file with a
 * .symtab whose build-id is the object's (when the object has one), and,
 * for a .gnu_debuglink candidate (crc non-NULL), whose CRC-32 is the
 * link's.  0 when it is; else -ENOEXEC, with why in notes, and d freed.
 */
static int debug_check(struct elf_ctx *c, const char *path, const __u32 *crc,
		       struct debug_file *d, char *notes, size_t nlen)
{
	__u8 id[PMCLOG_ELF_BUILD_ID_MAX];
	size_t idlen, n;
	GElf_Shdr sh;

	if (crc && file_crc(d->buf, d->len) != *crc) {
		note(notes, nlen, "%s: CRC differs from .gnu_debuglink's", path);
		goto fail;
	}
	d->elf = elf_memory(d->buf, d->len);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		note(notes, nlen, "%s: not an ELF file", path);
		goto fail;
	}
	idlen = pmclog_elf_note_build_id(d->elf, id);
	if (c->out->build_id_len &&
	    (idlen != c->out->build_id_len || memcmp(id, c->out->build_id, idlen))) {
		note(notes, nlen, "%s: build-id differs from the object's", path);
		goto fail;
	}
	if (elf_getshdrstrndx(d->elf, &n) || !elf_section(d->elf, n, ".symtab", &sh)) {
		note(notes, nlen, "%s: no .symtab", path);
		goto fail;
	}
	return 0;
fail:
	debug_file_free(d);
	return -ENOEXEC;
}

/* The candidate path (absolute, of pmclog's making) read and checked. */
static int debug_try(struct elf_ctx *c, const char *path, unsigned int flags,
		     const __u32 *crc, struct debug_file *d, char *notes, size_t nlen)
{
	int ret = debug_read(AT_FDCWD, path, flags, path, d, notes, nlen);

	return ret ? ret : debug_check(c, path, crc, d, notes, nlen);
}

/* ROOT/usr/lib/debug/.build-id/NN/REST.debug */
static int debug_by_build_id(struct elf_ctx *c, const struct pmclog_elf_opts *o,
			     struct debug_file *d, char *path, size_t plen,
			     char *notes, size_t nlen)
{
	char idhex[2 * PMCLOG_ELF_BUILD_ID_MAX + 1];

	if (c->out->build_id_len < 2)
		return -ENOENT;
	pmclog_hex(idhex, sizeof(idhex), c->out->build_id, c->out->build_id_len);
	snprintf(path, plen, "%s" DEBUGDIR "/.build-id/%.2s/%s.debug",
		 o->root ? o->root : "", idhex, idhex + 2);
	return debug_try(c, path, PMCLOG_FILE_FOLLOW, NULL, d, notes, nlen);
}

/*
 * The folder name (in at) where the object is, or its .debug, opened if
 * another user cannot have put a file in it: root's or the caller's, and
 * writable by no one else.  gdb and perf read a debug file from any
 * folder; pmclog, run as root on what every user mapped, does not take
 * one from a folder of theirs.  Else -EPERM, with why in notes; -ENOENT
 * quietly when there is no such folder.
 */
static int trusted_folder(int at, const char *name, const char *path, char *notes,
			  size_t nlen)
{
	struct stat st;
	int fd = openat(at, name, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if ((st.st_uid && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		note(notes, nlen, "%s: a folder of uid %u%s: its debug files are not trusted",
		     path, (unsigned int)st.st_uid,
		     st.st_mode & (S_IWGRP | S_IWOTH) ? " that others may write to" : "");
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * The link's name in folder fd, known as path/link (path: the folder's,
 * with room for "/" and link after it), never through a symbolic link at
 * its end.
 */
static int debug_in(struct elf_ctx *c, int fd, const char *link, const __u32 *crc,
		    struct debug_file *d, char *path, char *notes, size_t nlen)
{
	int ret;

	strcat(strcat(path, "/"), link);
	ret = debug_read(fd, link, 0, path, d, notes, nlen);
	return ret ? ret : debug_check(c, path, crc, d, notes, nlen);
}

/*
 * .gnu_debuglink, where gdb looks: DIR/NAME and DIR/.debug/NAME, in
 * folders trusted_folder() opens, then DEBUGDIR/DIR/NAME.
 */
static int debug_by_link(struct elf_ctx *c, const struct pmclog_elf_opts *o,
			 struct debug_file *d, char *path, size_t plen,
			 char *notes, size_t nlen)
{
	const char *root = o->root ? o->root : "", *slash;
	char link[256], dir[4096];
	int ret = -ENOENT, fd, sub;
	__u32 crc;

	if (!o->objpath || !(slash = strrchr(o->objpath, '/')) ||
	    !elf_debuglink(c->elf, c->shstrndx, link, sizeof(link), &crc) ||
	    (size_t)snprintf(dir, sizeof(dir), "%s%.*s", root, (int)(slash - o->objpath),
			     o->objpath) + sizeof("/.debug/") + strlen(link) > plen)
		return -ENOENT;
	fd = trusted_folder(AT_FDCWD, *dir ? dir : "/", *dir ? dir : "/", notes, nlen);
	if (fd >= 0) {
		/* The object itself, when the link names it, is not its debug file. */
		if (strcmp(link, slash + 1)) {
			strcpy(path, dir);
			ret = debug_in(c, fd, link, &crc, d, path, notes, nlen);
		}
		sub = -1;
		if (ret) {
			snprintf(path, plen, "%s/.debug", dir);
			sub = trusted_folder(fd, ".debug", path, notes, nlen);
		}
		if (sub >= 0) {
			ret = debug_in(c, sub, link, &crc, d, path, notes, nlen);
			close(sub);
		}
		close(fd);
	}
	if (ret && (size_t)snprintf(path, plen, "%s" DEBUGDIR "%.*s/%s", root,
				    (int)(slash - o->objpath), o->objpath, link) < plen)
		ret = debug_try(c, path, PMCLOG_FILE_FOLLOW, &crc, d, notes, nlen);
	return ret;
}

static int debug_by_debuginfod(struct elf_ctx *c, const struct pmclog_elf_opts *o,
			       struct debug_file *d, char *path, size_t plen,
			       char *notes, size_t nlen)
{
	char msg[256] = "", *found = NULL;
	int fd;

	if (!o->dfd || !c->out->build_id_len)
		return -ENOENT;
	fd = pmclog_debuginfod__find(o->dfd, c->out->build_id, c->out->build_id_len,
				     &found, msg, sizeof(msg));
	if (fd < 0) {
		note(notes, nlen, "debuginfod: %s", msg);
		return fd;
	}
	close(fd);
	snprintf(path, plen, "%s", found);
	free(found);
	/* In the client's cache: a path of its making, as DEBUGDIR's. */
	return debug_try(c, path, PMCLOG_FILE_FOLLOW, NULL, d, notes, nlen);
}

/*
 * The .symtab of the object's separate debug file, when it has none of
 * its own.  Not finding one is not an error: the object keeps its
 * .dynsym, and -v says what was tried.
 */
static int elf_debug_symbols(struct elf_ctx *c, const struct pmclog_elf_opts *o)
{
	static int (*const ways[])(struct elf_ctx *, const struct pmclog_elf_opts *,
				   struct debug_file *, char *, size_t, char *, size_t) = {
		debug_by_build_id, debug_by_link, debug_by_debuginfod,
	};
	static const enum pmclog_elf_debug how[] = {
		PMCLOG_DEBUG_BUILD_ID, PMCLOG_DEBUG_LINK, PMCLOG_DEBUG_DEBUGINFOD,
	};
	char path[4096], notes[512] = "";
	struct debug_file d;
	size_t n;
	int ret = -ENOENT;

	if (!o || !o->objpath || c->out->has_symtab || c->out->type == PMCLOG_ELF_REL)
		return 0;
	for (size_t i = 0; ret && i < sizeof(ways) / sizeof(ways[0]); i++) {
		ret = ways[i](c, o, &d, path, sizeof(path), notes, sizeof(notes));
		if (!ret)
			c->out->debug = how[i];
	}
	if (notes[0] && !(c->out->debug_note = pmclog_strings__intern(c->strings, notes)))
		ret = -ENOMEM;
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	c->out->debug_path = pmclog_strings__intern(c->strings, path);
	elf_priv(c->out)->debug = d.id;
	ret = c->out->debug_path ? elf_tables(c, d.elf, SHT_SYMTAB, &n) : -ENOMEM;
	debug_file_free(&d);
	return ret;
}

/* ------------------------------------------------------------------ */

static int elf_type(struct elf_ctx *c)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(c->elf, &eh))
		return load_fail(ENOEXEC, c->err, c->errlen,
				 "%s: not an ELF file: %s", c->name,
				 elf_errmsg(-1));
	switch (eh.e_type) {
	case ET_EXEC:
		c->out->type = PMCLOG_ELF_EXEC;
		return 0;
	case ET_DYN:
		c->out->type = PMCLOG_ELF_DYN;
		return 0;
	case ET_REL:
		c->out->type = PMCLOG_ELF_REL;
		return 0;
	default:
		return load_fail(ENOEXEC, c->err, c->errlen,
				 "%s: ELF type %u: expected an executable, a shared object or a kernel module",
				 c->name, eh.e_type);
	}
}

static int elf_parse(struct elf_ctx *c, const struct pmclog_elf_opts *o)
{
	int ret;

	ret = elf_type(c);
	if (ret)
		return ret;
	if (elf_getshdrnum(c->elf, &c->nsec) || elf_getshdrstrndx(c->elf, &c->shstrndx))
		return load_fail(ENOEXEC, c->err, c->errlen,
				 "%s: no section headers: %s", c->name,
				 elf_errmsg(-1));
	c->out->build_id_len = pmclog_elf_note_build_id(c->elf, c->out->build_id);
	if (c->out->type == PMCLOG_ELF_REL)
		ret = elf_rel_layout(c);
	else
		ret = elf_segments(c);
	if (!ret)
		ret = elf_all_symbols(c);
	if (!ret)
		ret = elf_debug_symbols(c, o);
	/* Last: IRELATIVE entries are named from the tables. */
	if (!ret)
		ret = elf_plt(c);
	if (ret)
		return load_fail(-ret, c->err, c->errlen, "%s: %s", c->name,
				 strerror(-ret));
	pmclog_symtab__finish(c->out->text, c->out->text_size);
	pmclog_symtab__finish(c->out->init, c->out->init_size);
	return 0;
}

/* buf stays owned by the caller and must outlive nothing: libelf copies
 * what the tables need into the interned strings. */
static int elf_load_buf(void *buf, size_t len, const char *name,
			const struct pmclog_elf_opts *opts,
			struct pmclog_strings *strings, struct pmclog_elf **out,
			char *err, size_t errlen)
{
	struct elf_ctx c = {
		.name = name, .strings = strings, .err = err, .errlen = errlen,
	};
	struct elf_priv *priv;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return load_fail(ENOSYS, err, errlen, "libelf: %s", elf_errmsg(-1));
	priv = calloc(1, sizeof(*priv));
	c.out = priv ? &priv->pub : NULL;
	if (c.out) {
		c.out->text = pmclog_symtab__new();
		c.out->init = pmclog_symtab__new();
	}
	if (!c.out || !c.out->text || !c.out->init) {
		pmclog_elf__free(c.out);
		return load_fail(ENOMEM, err, errlen, "%s: out of memory", name);
	}
	c.elf = elf_memory(buf, len);
	if (!c.elf)
		ret = load_fail(ENOEXEC, err, errlen, "%s: not an ELF file: %s",
				name, elf_errmsg(-1));
	else
		ret = elf_parse(&c, opts);
	if (c.elf)
		elf_end(c.elf);
	free(c.secoff);
	free(c.secin);
	if (ret) {
		pmclog_elf__free(c.out);
		return ret;
	}
	*out = c.out;
	return 0;
}

int pmclog_elf__load_mem(const void *buf, size_t len, const char *name,
			 struct pmclog_strings *strings,
			 struct pmclog_elf **out, char *err, size_t errlen)
{
	void *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		return load_fail(ENOMEM, err, errlen, "%s: out of memory", name);
	memcpy(copy, buf, len);
	ret = elf_load_buf(copy, len, name, NULL, strings, out, err, errlen);
	free(copy);
	return ret;
}

int pmclog_elf__load_opts(const char *path, const struct pmclog_elf_opts *opts,
			  struct pmclog_strings *strings, struct pmclog_elf **out,
			  char *err, size_t errlen)
{
	unsigned int flags = opts && opts->follow ? PMCLOG_FILE_FOLLOW : 0;
	struct pmclog_file_id id;
	void *buf;
	size_t len;
	int ret;

	ret = pmclog_read_file(AT_FDCWD, path, flags, &buf, &len, &id);
	if (ret)
		return load_fail(-ret, err, errlen, "cannot read %s: %s", path,
				 pmclog_read_strerror(ret));
	ret = elf_load_buf(buf, len, path, opts, strings, out, err, errlen);
	free(buf);
	if (!ret)
		elf_priv(*out)->file = id;
	return ret;
}

int pmclog_elf__load(const char *path, struct pmclog_strings *strings,
		     struct pmclog_elf **out, char *err, size_t errlen)
{
	return pmclog_elf__load_opts(path, NULL, strings, out, err, errlen);
}

bool pmclog_elf__offset_to_vaddr(const struct pmclog_elf *e, __u64 off,
				 __u64 *vaddr)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct pmclog_elf_segment *s = &e->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = s->vaddr + (off - s->offset);
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* System.map                                                         */

static int sysmap_line(const char *line, struct pmclog_strings *strings,
		       struct pmclog_symtab *t)
{
	struct pmclog_ksym_line l;
	char name[512];
	const char *iname;

	if (!pmclog_ksym_line__parse(line, &l) || !l.addr || !strchr("tTwW", l.type))
		return 0;
	memcpy(name, l.name, l.name_len);
	name[l.name_len] = '\0';
	iname = pmclog_strings__intern(strings, name);
	if (!iname)
		return -ENOMEM;
	return pmclog_symtab__add(t, l.addr, 0, iname,
				  l.type == 'T' ? PMCLOG_SYM_GLOBAL :
				  l.type == 't' ? PMCLOG_SYM_LOCAL : PMCLOG_SYM_WEAK);
}

int pmclog_sysmap__load(const char *path, struct pmclog_strings *strings,
			struct pmclog_symtab **out, char *err, size_t errlen)
{
	struct pmclog_symtab *t;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;
	int fd;

	/* The user's (-k): followed, but only a regular file, and not a huge one. */
	fd = pmclog_file__open_read(AT_FDCWD, path, PMCLOG_FILE_FOLLOW, 0, NULL);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		int e = fd >= 0 ? errno : -fd;

		if (fd >= 0)
			close(fd);
		return load_fail(e, err, errlen, "cannot open %s: %s", path,
				 pmclog_read_strerror(-e));
	}
	t = pmclog_symtab__new();
	/* Whole lines: the rest of a long one is no symbol of its own. */
	while (t && !ret && getline(&line, &cap, f) >= 0)
		ret = sysmap_line(line, strings, t);
	free(line);
	fclose(f);
	if (!t || ret) {
		pmclog_symtab__free(t);
		return load_fail(ENOMEM, err, errlen, "%s: out of memory", path);
	}
	if (pmclog_symtab__count(t) < PMCLOG_SYSMAP_MIN) {
		ret = load_fail(ENOENT, err, errlen,
				"%s: %zu text symbols: a placeholder (Debian's real System.map is in the -dbg package)",
				path, pmclog_symtab__count(t));
		pmclog_symtab__free(t);
		return ret;
	}
	pmclog_symtab__finish(t, 0);
	*out = t;
	return 0;
}
