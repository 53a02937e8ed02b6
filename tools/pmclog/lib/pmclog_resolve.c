// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog resolver: per-object symbol loading and lookup.
 * See pmclog_resolve.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmclog_file.h"
#include "pmclog_internal.h"
#include "pmclog_resolve.h"

#define KDIR_DEPTH	8

/* One file's DWARF, opened on the first srcline asked of it. */
struct dwarf_ent {
	const char *path;		/* interned */
	struct pmclog_srcline *sl;	/* NULL: no DWARF there */
};

struct obj_priv {
	enum pmclog_obj_state state;
	bool fileoff;			/* objaddr is a file offset */
	const char *dwarf_path;		/* interned: where its line table would be */
	const struct pmclog_file_id *dwarf_id;	/* which file that was, in elf */
	struct dwarf_ent *dwarf;	/* NULL until a srcline is asked */
	const struct pmclog_symtab *tab;	/* borrowed */
	const struct pmclog_elf *elf;	/* borrowed from the cache */
	const char *file;		/* interned; NULL: the log's symbols */
	char detail[1024];
};

struct loaded {
	const char *path;		/* interned */
	bool as_sysmap;			/* read as a System.map, not as ELF */
	bool follow;			/* the user's file (-k): a symbolic link followed */
	struct pmclog_elf *elf;
	struct pmclog_symtab *sysmap;
	int err;
	char msg[256];
};

struct kmod_file {
	const char *name;		/* module name, '-' as '_' (interned) */
	const char *path;		/* interned */
};

struct pmclog_resolver {
	struct pmclog_strings *strings;
	char *root;
	char *kernel;
	bool kernel_scanned;
	bool kernel_file;		/* -k named the kernel: look for modules only */
	const char *vmlinux;		/* interned, or NULL */
	const char *sysmap;
	struct kmod_file *kmods;
	size_t nkmods, kmods_cap;
	struct loaded *cache;
	size_t ncache, cache_cap;
	struct obj_priv **privs;
	size_t nprivs, privs_cap;
	struct pmclog_debuginfod *dfd;	/* NULL: DEBUGINFOD_URLS unset */
	struct dwarf_ent **dwarfs;
	size_t ndwarfs, dwarfs_cap;
};

struct pmclog_resolver *pmclog_resolver__new(struct pmclog_strings *strings,
					     const struct pmclog_resolver_opts *opts)
{
	struct pmclog_resolver *res = calloc(1, sizeof(*res));

	if (!res)
		return NULL;
	res->strings = strings;
	res->root = strdup(opts && opts->root ? opts->root : "");
	res->kernel = opts && opts->kernel ? strdup(opts->kernel) : NULL;
	if (!res->root || (opts && opts->kernel && !res->kernel)) {
		pmclog_resolver__free(res);
		return NULL;
	}
	/* "ROOT/" and "ROOT" are the same prefix of "/path". */
	for (size_t n = strlen(res->root); n && res->root[n - 1] == '/'; n--)
		res->root[n - 1] = '\0';
	res->dfd = pmclog_debuginfod__new();
	return res;
}

void pmclog_resolver__free(struct pmclog_resolver *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->ncache; i++) {
		pmclog_elf__free(res->cache[i].elf);
		pmclog_symtab__free(res->cache[i].sysmap);
	}
	for (size_t i = 0; i < res->nprivs; i++)
		free(res->privs[i]);
	for (size_t i = 0; i < res->ndwarfs; i++) {
		pmclog_srcline__free(res->dwarfs[i]->sl);
		free(res->dwarfs[i]);
	}
	free(res->dwarfs);
	free(res->cache);
	free(res->privs);
	free(res->kmods);
	free(res->root);
	free(res->kernel);
	pmclog_debuginfod__free(res->dfd);
	free(res);
}

/* ------------------------------------------------------------------ */
/* Files, loaded once each                                            */

/*
 * objpath: the object's path on the machine of the log (without ROOT),
 * for an object whose separate debug file is looked for; NULL: none.
 * follow: path is the user's (-k), not a log's.
 */
static struct loaded *load_cached(struct pmclog_resolver *res, const char *path,
				  bool sysmap, const char *objpath, bool follow)
{
	struct pmclog_elf_opts eo = {
		.root = res->root, .objpath = objpath, .dfd = res->dfd, .follow = follow,
	};
	const char *ipath = pmclog_strings__intern(res->strings, path);
	char esc[PMCLOG_ESCAPED_PATH];
	struct loaded *l;

	if (!ipath)
		return NULL;
	for (size_t i = 0; i < res->ncache; i++)
		if (res->cache[i].path == ipath && res->cache[i].as_sysmap == sysmap &&
		    res->cache[i].follow == follow)
			return &res->cache[i];
	if (PMCLOG_GROW(res->cache, res->cache_cap, res->ncache + 1))
		return NULL;
	l = &res->cache[res->ncache++];
	memset(l, 0, sizeof(*l));
	l->path = ipath;
	l->as_sysmap = sysmap;
	l->follow = follow;
	if (sysmap)
		l->err = pmclog_sysmap__load(path, res->strings, &l->sysmap,
					     l->msg, sizeof(l->msg));
	else
		l->err = pmclog_elf__load_opts(path, &eo, res->strings,
					       &l->elf, l->msg, sizeof(l->msg));
	if (pmclog_file__refused(l->err))
		pr_warn("%s: %s; its samples are shown as addresses\n",
			pmclog_escape(esc, sizeof(esc), path), pmclog_read_strerror(l->err));
	return l;
}

/* ------------------------------------------------------------------ */
/* The kernel directory                                               */

static bool name_has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* "ext4.ko.xz" -> "ext4"; "nf-nat.ko" -> "nf_nat"; NULL if not a module. */
static char *module_name_of(const char *file)
{
	const char *dot = strstr(file, ".ko");
	char *name;

	if (!dot || (dot[3] && strcmp(dot + 3, ".xz") && strcmp(dot + 3, ".zst") &&
		     strcmp(dot + 3, ".gz")))
		return NULL;
	name = strndup(file, (size_t)(dot - file));
	for (char *p = name; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

static int kdir_file(struct pmclog_resolver *res, const char *path,
		     const char *base)
{
	char *mname = module_name_of(base);
	const char *ip;

	if (mname) {
		if (PMCLOG_GROW(res->kmods, res->kmods_cap, res->nkmods + 1)) {
			free(mname);
			return -ENOMEM;
		}
		res->kmods[res->nkmods].name = pmclog_strings__intern(res->strings, mname);
		res->kmods[res->nkmods].path = pmclog_strings__intern(res->strings, path);
		free(mname);
		if (!res->kmods[res->nkmods].name || !res->kmods[res->nkmods].path)
			return -ENOMEM;
		res->nkmods++;
		return 0;
	}
	if (res->kernel_file)
		return 0;
	if (!res->vmlinux && (!strcmp(base, "vmlinux") || name_has_prefix(base, "vmlinux-"))) {
		ip = pmclog_strings__intern(res->strings, path);
		res->vmlinux = ip;
	} else if (!res->sysmap && name_has_prefix(base, "System.map")) {
		ip = pmclog_strings__intern(res->strings, path);
		res->sysmap = ip;
	} else {
		return 0;
	}
	return ip ? 0 : -ENOMEM;
}

static int kdir_walk(struct pmclog_resolver *res, const char *dir, int depth)
{
	struct dirent *de;
	char path[4096];
	struct stat st;
	DIR *d;
	int ret = 0;

	if (depth > KDIR_DEPTH || !(d = opendir(dir)))
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			ret = kdir_walk(res, path, depth + 1);
		else if (S_ISREG(st.st_mode))
			ret = kdir_file(res, path, de->d_name);
	}
	closedir(d);
	return ret;
}

static bool is_elf(const char *path)
{
	char magic[4] = { 0 };
	/* The user's (-k): followed, but a FIFO must not block the report. */
	int fd = pmclog_file__open_read(AT_FDCWD, path, PMCLOG_FILE_FOLLOW, 0, NULL);

	if (fd < 0)
		return false;
	if (read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic))
		magic[0] = 0;
	close(fd);
	return !memcmp(magic, "\177ELF", 4);
}

/* ROOT + KERNELDIR, searched once; a kernel file is taken as the kernel. */
static void kernel_scan(struct pmclog_resolver *res)
{
	char path[4096], *slash;
	struct stat st;

	if (res->kernel_scanned || !res->kernel)
		return;
	res->kernel_scanned = true;
	snprintf(path, sizeof(path), "%s%s", res->root, res->kernel);
	if (stat(path, &st))
		return;
	if (S_ISREG(st.st_mode)) {
		/* That file, not another vmlinux* or System.map* beside it. */
		res->kernel_file = true;
		if (is_elf(path))
			res->vmlinux = pmclog_strings__intern(res->strings, path);
		else
			res->sysmap = pmclog_strings__intern(res->strings, path);
		slash = strrchr(path, '/');
		if (!slash)
			snprintf(path, sizeof(path), ".");
		else
			*slash = '\0';
	}
	kdir_walk(res, path, 0);
}

static const char *kmod_path(struct pmclog_resolver *res, const char *name)
{
	for (size_t i = 0; i < res->nkmods; i++)
		if (!strcmp(res->kmods[i].name, name))
			return res->kmods[i].path;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Loading an object's symbols                                        */

/*
 * As the kernel writes a mapped file's path (d_path()): absolute, without
 * "." or ".." components, which could lead a log's path out of ROOT.
 */
static bool kernel_path(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *c = path; c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");

		if ((n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
	}
	return true;
}

static const char *const debug_how[] = {
	[PMCLOG_DEBUG_BUILD_ID] = "by build-id",
	[PMCLOG_DEBUG_LINK] = "by .gnu_debuglink",
	[PMCLOG_DEBUG_DEBUGINFOD] = "from debuginfod",
};

/*
 * Where a loaded object's names came from, for -v: "FILE: .symtab",
 * "FILE: .dynsym + DEBUGFILE .symtab (by build-id), 12 PLT entries",
 * and why no debug file was used when candidates were refused.
 */
static void describe(struct obj_priv *p, const struct loaded *l)
{
	const struct pmclog_elf *e = l->elf;
	size_t n = 0, cap = sizeof(p->detail);

#define PUT(...) do { if (n < cap) n += (size_t)snprintf(p->detail + n, cap - n, __VA_ARGS__); } while (0)
	PUT("%s: ", l->path);
	if (!e) {
		PUT("System.map");
		return;
	}
	if (e->has_symtab)
		PUT(".symtab");
	else if (e->has_dynsym)
		PUT(".dynsym");
	else
		PUT("no symbol table");
	if (e->debug_path)
		PUT(" + %s .symtab (%s)", e->debug_path, debug_how[e->debug]);
	if (e->nplt)
		PUT(", %zu PLT entries", e->nplt);
	if (!e->debug_path && !e->has_symtab && e->type != PMCLOG_ELF_REL)
		PUT("; no debug file%s%s", e->debug_note ? ": " : " found",
		    e->debug_note ? e->debug_note : "");
#undef PUT
}

/*
 * Whether l is the build of obj that the log mapped: its build-id is the
 * log's (BUILDID), or one of them is not known.  If not, obj is not named
 * from it (as perf refuses a file whose build-id is not the recorded
 * one): said once, and in -v's detail.
 */
static bool build_matches(const struct pmclog_object *obj, const struct loaded *l)
{
	const __u8 *id;
	size_t len;

	if (!obj->build_id_size || !l->elf ||
	    !(id = pmclog_elf__build_id(l->elf, &len)))
		return true;
	return len == obj->build_id_size && !memcmp(id, obj->build_id, len);
}

static bool same_build(const struct pmclog_object *obj, struct obj_priv *p,
		       const struct loaded *l)
{
	char want[2 * PMCLOG_BUILD_ID_MAX + 1], got[2 * PMCLOG_ELF_BUILD_ID_MAX + 1];
	char esc[PMCLOG_ESCAPED_PATH];
	const __u8 *id;
	size_t len;

	if (build_matches(obj, l))
		return true;
	id = pmclog_elf__build_id(l->elf, &len);
	pmclog_hex(want, sizeof(want), obj->build_id, obj->build_id_size);
	pmclog_hex(got, sizeof(got), id, len);
	p->state = PMCLOG_OBJST_NOTFOUND;
	snprintf(p->detail, sizeof(p->detail),
		 "%s has build-id %s, the log's is %s: another build, not used",
		 l->path, got, want);
	pr_warn("%s: not the build the log mapped (build-id %s, the log's %s): changed since the run, or another machine's; its samples are shown as addresses (report -r with a copy, or record --archive)\n",
		pmclog_escape(esc, sizeof(esc), l->path), got, want);
	return false;
}

/* ROOT/.build-id/NN/REST: where an archive keeps each build (pmclog_archive.h). */
static struct loaded *load_by_build_id(struct pmclog_resolver *res,
				       struct pmclog_object *obj)
{
	char path[4096];
	struct loaded *l;

	if (!obj->build_id_size || !res->root[0] ||
	    pmclog_build_id_path(path, sizeof(path), res->root, obj->build_id,
				 obj->build_id_size) || access(path, F_OK))
		return NULL;
	l = load_cached(res, path, false, obj->path, false);
	return l && !l->err ? l : NULL;
}

static void load_file_object(struct pmclog_resolver *res,
			     struct pmclog_object *obj, struct obj_priv *p)
{
	char path[4096];
	struct loaded *l;

	if (!kernel_path(obj->path)) {
		p->state = PMCLOG_OBJST_NOTFOUND;
		snprintf(p->detail, sizeof(p->detail), "%s",
			 "not a path as the kernel writes them (absolute, no . or ..): not looked for");
		return;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s%s", res->root, obj->path) >= sizeof(path)) {
		p->state = PMCLOG_OBJST_NOTFOUND;
		snprintf(p->detail, sizeof(p->detail), "%s", "ROOT and the path are too long");
		return;
	}
	l = load_cached(res, path, false, obj->path, false);
	/* Another build at the path: the archive's copy of this one, if any. */
	if (l && !l->err && !build_matches(obj, l)) {
		struct loaded *b = load_by_build_id(res, obj);

		if (b && build_matches(obj, b))
			l = b;
	}
	if (!l || l->err) {
		p->state = PMCLOG_OBJST_NOTFOUND;
		snprintf(p->detail, sizeof(p->detail), "%s",
			 l ? l->msg : "out of memory");
		return;
	}
	if (!same_build(obj, p, l))
		return;
	p->state = PMCLOG_OBJST_LOADED;
	p->elf = l->elf;
	p->tab = l->elf->text;
	p->file = l->path;
	p->fileoff = true;
	/* The debug file's DWARF, else the object's own (if it has any). */
	p->dwarf_path = l->elf->debug_path ? l->elf->debug_path : l->path;
	p->dwarf_id = pmclog_elf__dwarf_id(l->elf);
	describe(p, l);
}

static void load_kernel_file(struct pmclog_resolver *res,
			     struct pmclog_object *obj, struct obj_priv *p)
{
	struct loaded *l = NULL;

	if (res->vmlinux)
		l = load_cached(res, res->vmlinux, false, NULL, true);
	if ((!l || l->err) && res->sysmap)
		l = load_cached(res, res->sysmap, true, NULL, true);
	if (!l || l->err) {
		p->state = PMCLOG_OBJST_NOTFOUND;
		snprintf(p->detail, sizeof(p->detail), "%s",
			 l ? l->msg : res->kernel ?
			 "no vmlinux or System.map under -k, and no KSYMBOL records in the log" :
			 "no KSYMBOL records in the log (recorded with --no-kallsyms or without CAP_SYSLOG?); give -k DIR");
		return;
	}
	/* A System.map has no build-id: it is taken on trust. */
	if (!same_build(obj, p, l))
		return;
	p->state = PMCLOG_OBJST_LOADED;
	p->elf = l->elf;
	p->tab = l->elf ? l->elf->text : l->sysmap;
	p->file = l->path;
	describe(p, l);
}

static void load_module_file(struct pmclog_resolver *res,
			     struct pmclog_object *obj, struct obj_priv *p)
{
	const char *path = kmod_path(res, obj->path);
	struct loaded *l;

	if (!path) {
		p->state = PMCLOG_OBJST_NOTFOUND;
		snprintf(p->detail, sizeof(p->detail), "%s",
			 res->kernel ? "no KSYMBOL records for it in the log, no .ko under -k" :
			 "no KSYMBOL records for it in the log; give -k DIR");
		return;
	}
	l = load_cached(res, path, false, NULL, true);
	if (!l || l->err || l->elf->type != PMCLOG_ELF_REL) {
		p->state = PMCLOG_OBJST_NOTFOUND;
		snprintf(p->detail, sizeof(p->detail), "%s",
			 !l ? "out of memory" : l->err ? l->msg : "not a relocatable object");
		return;
	}
	if (!same_build(obj, p, l))
		return;
	p->state = PMCLOG_OBJST_LOADED;
	p->elf = l->elf;
	p->tab = obj->kind == PMCLOG_OBJ_KMODULE_INIT ? l->elf->init : l->elf->text;
	p->file = l->path;
	describe(p, l);
}

static void load_object(struct pmclog_resolver *res, struct pmclog_object *obj,
			struct obj_priv *p)
{
	if (obj->kind != PMCLOG_OBJ_FILE && obj->logsyms &&
	    pmclog_symtab__count(obj->logsyms)) {
		p->state = PMCLOG_OBJST_LOADED;
		p->tab = obj->logsyms;
		return;
	}
	kernel_scan(res);
	switch (obj->kind) {
	case PMCLOG_OBJ_FILE:
		load_file_object(res, obj, p);
		break;
	case PMCLOG_OBJ_KERNEL:
		load_kernel_file(res, obj, p);
		break;
	case PMCLOG_OBJ_KMODULE:
	case PMCLOG_OBJ_KMODULE_INIT:
		load_module_file(res, obj, p);
		break;
	default:
		p->state = PMCLOG_OBJST_NOFILE;
		break;
	}
}

static struct obj_priv *object_priv(struct pmclog_resolver *res,
				    struct pmclog_object *obj)
{
	struct obj_priv *p = obj->priv;

	if (p)
		return p;
	if (PMCLOG_GROW(res->privs, res->privs_cap, res->nprivs + 1))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	res->privs[res->nprivs++] = p;
	obj->priv = p;
	load_object(res, obj, p);
	return p;
}

int pmclog_resolver__resolve(struct pmclog_resolver *res,
			     struct pmclog_object *obj, __u64 objaddr,
			     struct pmclog_resolved *out)
{
	struct obj_priv *p = object_priv(res, obj);
	const struct pmclog_sym *sym;
	__u64 addr = objaddr;

	memset(out, 0, sizeof(*out));
	out->addr = objaddr;
	if (!p)
		return -ENOMEM;
	if (p->state != PMCLOG_OBJST_LOADED)
		return 0;
	if (p->fileoff) {
		if (!pmclog_elf__offset_to_vaddr(p->elf, objaddr, &addr))
			return 0;
		out->addr = addr;
		out->vaddr = true;
	} else if (p->elf && p->elf->type == PMCLOG_ELF_EXEC) {
		out->vaddr = true;	/* "[kernel]": link-time addresses */
	}
	sym = pmclog_symtab__lookup(p->tab, addr);
	if (sym) {
		out->symbol = sym->name;
		out->symoff = addr - sym->addr;
	}
	return 0;
}

static struct dwarf_ent *dwarf_of(struct pmclog_resolver *res, const char *path,
				  const struct pmclog_file_id *id)
{
	struct dwarf_ent *d;

	for (size_t i = 0; i < res->ndwarfs; i++)
		if (res->dwarfs[i]->path == path)
			return res->dwarfs[i];
	if (PMCLOG_GROW(res->dwarfs, res->dwarfs_cap, res->ndwarfs + 1))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = path;
	if (pmclog_srcline__open(path, id, &d->sl))
		d->sl = NULL;
	res->dwarfs[res->ndwarfs++] = d;
	return d;
}

const char *pmclog_resolver__srcline(struct pmclog_resolver *res,
				     struct pmclog_object *obj, __u64 objaddr)
{
	struct obj_priv *p = object_priv(res, obj);
	__u64 addr;

	if (!p || p->state != PMCLOG_OBJST_LOADED || !p->fileoff || !p->dwarf_path ||
	    !pmclog_elf__offset_to_vaddr(p->elf, objaddr, &addr))
		return NULL;
	if (!p->dwarf)
		p->dwarf = dwarf_of(res, p->dwarf_path, p->dwarf_id);
	if (!p->dwarf || !p->dwarf->sl)
		return NULL;
	return pmclog_srcline__lookup(p->dwarf->sl, addr, res->strings);
}

enum pmclog_obj_state pmclog_resolver__state(const struct pmclog_object *obj)
{
	const struct obj_priv *p = obj->priv;

	return p ? p->state : PMCLOG_OBJST_UNTRIED;
}

const char *pmclog_resolver__detail(const struct pmclog_object *obj)
{
	const struct obj_priv *p = obj->priv;

	return p ? p->detail : "";
}

const struct pmclog_elf *pmclog_resolver__elf(const struct pmclog_object *obj)
{
	const struct obj_priv *p = obj->priv;

	return p ? p->elf : NULL;
}

const char *pmclog_resolver__file(const struct pmclog_object *obj)
{
	const struct obj_priv *p = obj->priv;

	return p ? p->file : NULL;
}
