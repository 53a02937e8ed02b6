// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog gprof output: a gmon.out file per object (a histogram record
 * over the sampled address range) in a directory per event, as pmcstat -g
 * writes them (DIR/EVENT/OBJECT.gmon), readable by binutils' gprof
 * against the object's ELF file.
 *
 * Layout (binutils gmon_out.h): "gmon", version 1, 12 spare bytes; then
 * tag GMON_TAG_TIME_HIST (0), low_pc and high_pc (8 bytes each on a
 * 64-bit target), hist_size and prof_rate (4 bytes), dimension (15
 * bytes) and its abbreviation (1), then hist_size 16-bit bins, all in the
 * host's byte order (that of the profiled machine).
 *
 * Names come from the log: DIR is made (0700) or opened as a tree of the
 * caller's (pmclog_file.h), each file written under a name of its own
 * (mode 0600) and renamed into place, never through a link another user
 * made; the -M map escapes them (bytes below 0x20, 0x7f and backslash as
 * \xNN, and space in GMONFILE), so that each line is "GMONFILE OBJECT".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmclog_file.h"
#include "pmclog_internal.h"

#define GMON_TAG_TIME_HIST	0
#define GMON_MAX_BINS		(1U << 22)

struct gmon_hist {
	__u64 low, high;
	__u64 binsz;
	__u32 nbins;
	__u16 *bins;
	__u64 clamped;	/* samples lost to 16-bit bins */
	__u64 top;	/* samples in a last bin that would end at 2^64 */
};

static void put_bytes(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

/* The histogram to f; 0, or -EIO. */
static int gmon_put(FILE *f, const struct gmon_hist *h, __u32 rate)
{
	char hdr[20] = "gmon", dimen[15] = "seconds";
	__u32 version = 1, n = h->nbins;
	unsigned char tag = GMON_TAG_TIME_HIST;
	char abbrev = 's';

	memcpy(hdr + 4, &version, sizeof(version));
	put_bytes(f, hdr, sizeof(hdr));
	put_bytes(f, &tag, 1);
	put_bytes(f, &h->low, sizeof(h->low));
	put_bytes(f, &h->high, sizeof(h->high));
	put_bytes(f, &n, sizeof(n));
	put_bytes(f, &rate, sizeof(rate));
	put_bytes(f, dimen, sizeof(dimen));
	put_bytes(f, &abbrev, 1);
	put_bytes(f, h->bins, (size_t)n * sizeof(*h->bins));
	return ferror(f) ? -EIO : 0;
}

/*
 * rel ("EVENT/NAME.gmon") below the tree root: its folder made (0700) or
 * entered as pmclog_file__mkdirs_at() does, the file written under a
 * name of its own and renamed over whatever had its name.
 */
static int gmon_write_file(int root, const char *rel, const struct gmon_hist *h,
			   __u32 rate)
{
	char tmp[32];
	const char *base;
	int dfd, fd, ret;
	FILE *f;

	dfd = pmclog_file__mkdirs_at(root, rel, 0700, &base);
	if (dfd < 0)
		return dfd;
	fd = pmclog_file__tmp_at(dfd, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dfd);
		return fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
	} else {
		ret = gmon_put(f, h, rate);
		if (fclose(f) && !ret)
			ret = -errno;
	}
	if (!ret && renameat(dfd, tmp, dfd, base))
		ret = -errno;
	if (ret)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return ret;
}

/*
 * The histogram of obj's samples, over the range they span: 1, or 0 when
 * there is none to write (no samples, or only in h->top).
 */
static int gmon_hist(const struct pmclog_report *rep, size_t prof,
		     const struct pmclog_object *obj, struct gmon_hist *h)
{
	__u64 lo = UINT64_MAX, hi = 0;

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < rep->nents; i++) {
		const struct res_ent *e = &rep->ents[i];

		if (e->obj != obj || e->prof != prof || !e->has_vaddr)
			continue;
		lo = e->addr < lo ? e->addr : lo;
		hi = e->addr > hi ? e->addr : hi;
	}
	if (lo > hi)
		return 0;
	h->binsz = 2;	/* gprof's UNIT: finer bins are summed wrongly */
	while ((hi - (lo & ~(h->binsz - 1))) / h->binsz + 1 > GMON_MAX_BINS)
		h->binsz *= 2;
	h->low = lo & ~(h->binsz - 1);
	h->nbins = (__u32)((hi - h->low) / h->binsz + 1);
	/* high_pc is a 64-bit address: a bin ending at 2^64 cannot be said. */
	if (h->nbins > (UINT64_MAX - h->low) / h->binsz)
		h->nbins--;
	h->high = h->low + (__u64)h->nbins * h->binsz;
	h->bins = calloc(h->nbins ? h->nbins : 1, sizeof(*h->bins));
	if (!h->bins)
		return -ENOMEM;
	for (size_t i = 0; i < rep->nents; i++) {
		const struct res_ent *e = &rep->ents[i];
		__u16 *b;
		__u64 room;

		if (e->obj != obj || e->prof != prof || !e->has_vaddr)
			continue;
		if (e->addr >= h->high) {
			h->top += e->count;
			continue;
		}
		b = &h->bins[(e->addr - h->low) / h->binsz];
		room = UINT16_MAX - *b;
		h->clamped += e->count > room ? e->count - room : 0;
		*b += (__u16)(e->count > room ? room : e->count);
	}
	if (!h->nbins)
		free(h->bins);
	return h->nbins ? 1 : 0;
}

/* The files written so far: each object gets its own. */
struct gmon_names {
	char **v;
	size_t n, cap;
};

static bool gmon_taken(const struct gmon_names *w, const char *path)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], path))
			return true;
	return false;
}

/*
 * DIR/NAME.gmon for obj (NAME: the last part of its path, "kernel" for
 * the kernel), or DIR/NAME~N.gmon with the first N no file written before
 * has; 0, or -ENAMETOOLONG.  DIR is relative to the tree's root.
 */
static int gmon_name(const struct pmclog_object *obj, const char *dir,
		     const struct gmon_names *w, char *buf, size_t len)
{
	const char *base = strrchr(obj->path, '/');

	base = base ? base + 1 : obj->path;
	if (obj->kind == PMCLOG_OBJ_KERNEL)
		base = "kernel";
	if ((size_t)snprintf(buf, len, "%s/%s.gmon", dir, base) >= len)
		return -ENAMETOOLONG;
	for (unsigned int seq = 1; gmon_taken(w, buf); seq++)
		if ((size_t)snprintf(buf, len, "%s/%s~%u.gmon", dir, base, seq) >= len)
			return -ENAMETOOLONG;
	return 0;
}

/*
 * gprof's prof_rate, samples per second: the PMC's -F, or 1e9 / -c for
 * cpu-clock; a hardware event's period says nothing of time (1000, as
 * before).
 */
static __u32 gmon_rate(const struct pmclog_replay_pmc *pmc)
{
	if (!pmc || !pmc->period)
		return 1000;
	if (pmc->flags & PMCLOG_PMC_F_FREQ)
		return pmc->period <= UINT32_MAX ? (__u32)pmc->period : 1000;
	if (pmc->event == PMCLOG_EV_CPU_CLOCK)
		return pmc->period <= 1000000000ULL ?
		       (__u32)((1000000000ULL + pmc->period / 2) / pmc->period) : 1;
	return 1000;
}

/* What -M says of a file: "GMONFILE OBJECT", each escaped. */
static void gmon_map_line(FILE *map, const char *dir, const char *rel, const char *obj)
{
	pmclog_put_escaped(map, dir, " ");
	fputc('/', map);
	pmclog_put_escaped(map, rel, " ");
	fputc(' ', map);
	pmclog_put_escaped(map, obj, "");
	fputc('\n', map);
}

static int gmon_object(const struct pmclog_report *rep, size_t prof,
		       const struct pmclog_object *obj, int root, const char *dir,
		       const char *sub, FILE *map, struct gmon_names *w)
{
	__u32 rate = gmon_rate(rep->profs[prof].pmc);
	char esc[PMCLOG_ESCAPED_PATH], rel[PATH_MAX];
	struct gmon_hist h;
	int ret;

	ret = gmon_hist(rep, prof, obj, &h);
	if (h.top)
		pr_warn("%s: %llu samples in the last %llu bytes of the address space, which gmon.out cannot describe, were left out of its profile\n",
			pmclog_escape(esc, sizeof(esc), obj->path), (unsigned long long)h.top,
			(unsigned long long)h.binsz);
	if (ret <= 0)
		return ret;
	ret = gmon_name(obj, sub, w, rel, sizeof(rel));
	if (ret) {
		free(h.bins);
		pr_warn("cannot write %s/%s/...: %s\n", dir,
			pmclog_escape(esc, sizeof(esc), sub), strerror(-ret));
		return ret;
	}
	ret = gmon_write_file(root, rel, &h, rate);
	free(h.bins);
	if (!ret && PMCLOG_GROW(w->v, w->cap, w->n + 1))
		ret = -ENOMEM;
	if (!ret && !(w->v[w->n] = strdup(rel)))
		ret = -ENOMEM;
	if (ret) {
		pr_warn("cannot write %s/%s: %s%s\n", dir, pmclog_escape(esc, sizeof(esc), rel),
			strerror(-ret), ret == -ELOOP || ret == -EPERM ?
			" (a folder on the way is a symbolic link, another user's, or one that others may write to)" : "");
		return ret;
	}
	w->n++;
	if (map)
		gmon_map_line(map, dir, rel, pmclog_resolver__file(obj));
	if (h.clamped)
		pr_warn("%s/%s: %llu samples beyond gprof's 65535 per bin were left out\n",
			dir, pmclog_escape(esc, sizeof(esc), rel), (unsigned long long)h.clamped);
	return 0;
}

/*
 * The directory of profile p, LABEL (below DIR), as pmcstat names it by
 * the event: bytes of the label that a file name cannot hold ('/',
 * control characters, space) as '_', "." and ".." as pmcID, and ~N
 * after a name taken already.
 */
static int gmon_subdir(const struct pmclog_profile *p, const struct gmon_names *dirs,
		       char *buf, size_t len)
{
	char name[80];
	size_t n = 0;

	for (const char *c = p->label; *c && n < sizeof(name) - 1; c++)
		name[n++] = *c == '/' || (unsigned char)*c <= ' ' || *c == 0x7f ? '_' : *c;
	name[n] = '\0';
	if (!strcmp(name, ".") || !strcmp(name, "..") || !n)
		snprintf(name, sizeof(name), "pmc%u", p->pmcid);
	if ((size_t)snprintf(buf, len, "%s", name) >= len)
		return -ENAMETOOLONG;
	for (unsigned int seq = 1; gmon_taken(dirs, buf); seq++)
		if ((size_t)snprintf(buf, len, "%s~%u", name, seq) >= len)
			return -ENAMETOOLONG;
	return 0;
}

static int gmon_names_add(struct gmon_names *w, const char *path)
{
	if (PMCLOG_GROW(w->v, w->cap, w->n + 1))
		return -ENOMEM;
	w->v[w->n] = strdup(path);
	if (!w->v[w->n])
		return -ENOMEM;
	w->n++;
	return 0;
}

static void gmon_names_free(struct gmon_names *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
}

/* The -M map, made as pmclog_file__create() makes a file (0600); NULL: said why. */
static FILE *gmon_map_open(const char *mapfile)
{
	char why[PATH_MAX + 160];
	int fd = pmclog_file__create(mapfile, 0600, 0, NULL, why, sizeof(why));
	FILE *f;

	if (fd < 0) {
		if (*why)
			pr_warn("%s\n", why);
		else
			pr_warn("cannot create %s: %s\n", mapfile, strerror(-fd));
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		pr_warn("cannot create %s: %s\n", mapfile, strerror(err));
		close(fd);
		errno = err;
	}
	return f;
}

int pmclog_report__write_gmon(const struct pmclog_report *rep, const char *dir,
			      const char *mapfile)
{
	size_t n = pmclog_replay__nobjects(rep->replay);
	char why[PATH_MAX + 160], sub[PATH_MAX];
	struct gmon_names dirs = { 0 };
	FILE *map = NULL;
	int ret, root;

	/* The caller's: made 0700; refused if others could swap what is in it. */
	root = pmclog_file__open_tree(dir, 0700, why, sizeof(why));
	if (root < 0) {
		if (*why)
			pr_warn("%s\n", why);
		else
			pr_warn("cannot create %s: %s\n", dir, strerror(-root));
		return root;
	}
	if (mapfile && !(map = gmon_map_open(mapfile))) {
		ret = -errno;
		close(root);
		return ret;
	}
	ret = 0;
	for (size_t p = 0; p < rep->nprofs && !ret; p++) {
		struct gmon_names written = { 0 };

		ret = gmon_subdir(&rep->profs[p], &dirs, sub, sizeof(sub));
		if (ret)
			pr_warn("cannot write %s/...: %s\n", dir, strerror(-ret));
		ret = ret ? ret : gmon_names_add(&dirs, sub);
		for (size_t i = 0; i < n && !ret; i++) {
			const struct pmclog_object *o = pmclog_replay__object(rep->replay, i);

			if (pmclog_resolver__elf(o))
				ret = gmon_object(rep, p, o, root, dir, sub, map, &written);
		}
		gmon_names_free(&written);
	}
	gmon_names_free(&dirs);
	close(root);
	if (map && fclose(map) && !ret) {
		pr_warn("cannot write %s: %s\n", mapfile, strerror(errno));
		ret = -EIO;
	}
	return ret;
}
