// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog symbol loaders: ELF files through libelf (ET_EXEC, ET_DYN and
 * ET_REL, .symtab and .dynsym), compressed modules through xz / zstd, and
 * System.map.  See pmclog_symtab.h for the address spaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Read fd to its end into a malloc'd buffer. */
static int read_all(int fd, void **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap), *q;
	ssize_t r;

	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			q = realloc(p, cap * 2);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
			cap *= 2;
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

/* 0 for a regular file; -EISDIR, -EINVAL (a device, a FIFO...) else. */
static int regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

/* The standard output of `tool -dc -- path`. */
static int read_decompressed(const char *tool, const char *path, void **buf,
			     size_t *len)
{
	int pfd[2], status, ret;
	struct stat st;
	pid_t pid;

	if (access(path, R_OK) || stat(path, &st))
		return -errno;
	ret = regular(&st);
	if (ret)
		return ret;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		if (dup2(pfd[1], STDOUT_FILENO) < 0)
			_exit(127);
		execlp(tool, tool, "-dc", "--", path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	ret = read_all(pfd[0], buf, len);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		free(*buf);
		*buf = NULL;
		return -EIO;
	}
	return ret;
}

int pmclog_read_file(const char *path, void **buf, size_t *len)
{
	struct stat st;
	int fd, ret;

	if (has_suffix(path, ".xz"))
		return read_decompressed("xz", path, buf, len);
	if (has_suffix(path, ".zst"))
		return read_decompressed("zstd", path, buf, len);
	/* Non-blocking: a FIFO must not hang the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = fstat(fd, &st) ? -errno : regular(&st);
	if (!ret)
		ret = read_all(fd, buf, len);
	close(fd);
	return ret;
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
	char *err;
	size_t errlen;
};

void pmclog_elf__free(struct pmclog_elf *e)
{
	if (!e)
		return;
	pmclog_symtab__free(e->text);
	pmclog_symtab__free(e->init);
	free(e->segs);
	free(e);
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
static int elf_rel_layout(struct elf_ctx *c, size_t shstrndx)
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
		name = elf_strptr(c->elf, shstrndx, sh.sh_name);
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

static int elf_add_symbol(struct elf_ctx *c, const GElf_Sym *sym,
			  const char *name)
{
	struct pmclog_symtab *t = c->out->text;
	__u64 addr = sym->st_value;
	const char *iname;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (c->out->type == PMCLOG_ELF_REL) {
		if (sym->st_shndx >= c->nsec || !c->secin[sym->st_shndx])
			return 0;
		if (c->secin[sym->st_shndx] == 2)
			t = c->out->init;
		addr += c->secoff[sym->st_shndx];
	} else {
		scn = elf_getscn(c->elf, sym->st_shndx);
		if (!scn || !gelf_getshdr(scn, &sh) || !is_exec_alloc(&sh))
			return 0;
	}
	iname = pmclog_strings__intern(c->strings, name);
	if (!iname)
		return -ENOMEM;
	return pmclog_symtab__add(t, addr, sym->st_size, iname, sym_prio(sym));
}

static int elf_symbols(struct elf_ctx *c, Elf_Scn *scn, const GElf_Shdr *sh)
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
		name = elf_strptr(c->elf, sh->sh_link, sym.st_name);
		if (!wanted_symbol(&sym, name))
			continue;
		ret = elf_add_symbol(c, &sym, name);
		if (ret)
			return ret;
	}
	return 0;
}

static int elf_all_symbols(struct elf_ctx *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret;

	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			c->out->has_symtab = true;
		ret = elf_symbols(c, scn, &sh);
		if (ret)
			return ret;
	}
	return 0;
}

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

static int elf_parse(struct elf_ctx *c)
{
	size_t shstrndx;
	int ret;

	ret = elf_type(c);
	if (ret)
		return ret;
	if (elf_getshdrnum(c->elf, &c->nsec) || elf_getshdrstrndx(c->elf, &shstrndx))
		return load_fail(ENOEXEC, c->err, c->errlen,
				 "%s: no section headers: %s", c->name,
				 elf_errmsg(-1));
	if (c->out->type == PMCLOG_ELF_REL)
		ret = elf_rel_layout(c, shstrndx);
	else
		ret = elf_segments(c);
	if (!ret)
		ret = elf_all_symbols(c);
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
			struct pmclog_strings *strings, struct pmclog_elf **out,
			char *err, size_t errlen)
{
	struct elf_ctx c = {
		.name = name, .strings = strings, .err = err, .errlen = errlen,
	};
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return load_fail(ENOSYS, err, errlen, "libelf: %s", elf_errmsg(-1));
	c.out = calloc(1, sizeof(*c.out));
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
		ret = elf_parse(&c);
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
	ret = elf_load_buf(copy, len, name, strings, out, err, errlen);
	free(copy);
	return ret;
}

int pmclog_elf__load(const char *path, struct pmclog_strings *strings,
		     struct pmclog_elf **out, char *err, size_t errlen)
{
	void *buf;
	size_t len;
	int ret;

	ret = pmclog_read_file(path, &buf, &len);
	if (ret)
		return load_fail(-ret, err, errlen, "cannot read %s: %s", path,
				 ret == -EINVAL ? "not a regular file" : strerror(-ret));
	ret = elf_load_buf(buf, len, path, strings, out, err, errlen);
	free(buf);
	return ret;
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
	unsigned long long addr;
	char type, name[512];
	const char *iname;

	if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
		return 0;
	if (!addr || !strchr("tTwW", type))
		return 0;
	iname = pmclog_strings__intern(strings, name);
	if (!iname)
		return -ENOMEM;
	return pmclog_symtab__add(t, addr, 0, iname,
				  type == 'T' ? PMCLOG_SYM_GLOBAL :
				  type == 't' ? PMCLOG_SYM_LOCAL : PMCLOG_SYM_WEAK);
}

int pmclog_sysmap__load(const char *path, struct pmclog_strings *strings,
			struct pmclog_symtab **out, char *err, size_t errlen)
{
	struct pmclog_symtab *t;
	char line[1024];
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return load_fail(errno, err, errlen, "cannot open %s: %s", path,
				 strerror(errno));
	t = pmclog_symtab__new();
	while (t && !ret && fgets(line, sizeof(line), f))
		ret = sysmap_line(line, strings, t);
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
