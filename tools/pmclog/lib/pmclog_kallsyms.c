// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog kallsyms: /proc/kallsyms text symbols as KSYMBOL records.
 * See pmclog_kallsyms.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pmclog.h>

#include "pmclog_internal.h"
#include "pmclog_kallsyms.h"

#define KSYM_NAME_MAX	512
#define READ_CHUNK	(64 * 1024)	/* of /proc/kallsyms's some 10 MB */

struct ksym {
	__u64 addr;
	__u64 size;
	size_t name;	/* offset in names */
	size_t module;	/* offset in names of "[mod]", or SIZE_MAX */
	bool outside;	/* not in its module's core: names nothing */
};

struct pmclog_kallsyms {
	struct ksym *syms;
	size_t count, cap;
	size_t *by_addr;	/* indexes of syms, by address */
	bool *used;		/* a sample fell in syms[i] */
	char *names;
	size_t names_len, names_cap;
	bool any_address;
};

void pmclog_kallsyms__free(struct pmclog_kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->by_addr);
	free(ks->used);
	free(ks->names);
	free(ks);
}

size_t pmclog_kallsyms__count(const struct pmclog_kallsyms *ks)
{
	return ks->count;
}

/* Store s[0, len) and a NUL in names; its offset in *off. */
static int add_name(struct pmclog_kallsyms *ks, const char *s, size_t len, size_t *off)
{
	size_t n = len + 1;

	if (ks->names_len + n > ks->names_cap) {
		size_t cap = ks->names_cap ? ks->names_cap * 2 : 1 << 20;
		char *p;

		while (cap < ks->names_len + n)
			cap *= 2;
		p = realloc(ks->names, cap);
		if (!p)
			return -ENOMEM;
		ks->names = p;
		ks->names_cap = cap;
	}
	memcpy(ks->names + ks->names_len, s, len);
	ks->names[ks->names_len + len] = '\0';
	*off = ks->names_len;
	ks->names_len += n;
	return 0;
}

/* kallsyms separates its fields with a space or a tab. */
static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * The length of the word at p (up to a blank, a newline or any control
 * character: none is in a symbol's name), at most max (cut there).
 */
static size_t word_len(const char *p, size_t max)
{
	size_t n = 0;

	while (n < max && (unsigned char)p[n] > ' ')
		n++;
	return n;
}

/* Up to 16 hex digits at *p, then a blank; else false. */
static bool parse_addr(const char **p, __u64 *addr)
{
	const char *s = *p;
	__u64 v = 0;
	int n = 0;

	for (;; s++, n++) {
		unsigned int d = (unsigned int)(unsigned char)*s - '0';

		if (d > 9) {
			d = ((unsigned int)(unsigned char)*s | 0x20) - 'a';
			if (d > 5)
				break;
			d += 10;
		}
		if (n == 16)
			return false;
		v = v << 4 | d;
	}
	if (!n || (*s != ' ' && *s != '\t'))
		return false;
	*p = s;
	*addr = v;
	return true;
}

bool pmclog_ksym_line__parse(const char *line, struct pmclog_ksym_line *l)
{
	const char *p = skip_blank(line);

	if (!parse_addr(&p, &l->addr))
		return false;
	p = skip_blank(p);
	l->type = *p;
	if (!l->type || (p[1] != ' ' && p[1] != '\t'))
		return false;
	l->name = skip_blank(p + 1);
	l->name_len = word_len(l->name, KSYM_NAME_MAX - 1);
	if (!l->name_len)
		return false;
	l->mod = skip_blank(l->name + l->name_len);
	l->mod_len = word_len(l->mod, KSYM_NAME_MAX - 1);
	return true;
}

/*
 * One line: "ffffffff81000000 T _stext" or "... t name\t[module]".  By
 * hand, not sscanf(): a kernel has some 100,000 of them, read beside
 * the recording, and sscanf() made that four times slower.
 */
static int parse_line(struct pmclog_kallsyms *ks, const char *line,
		      size_t *last_module, char *last_mod_name)
{
	struct pmclog_ksym_line l;
	const char *p, *name;
	size_t name_len, mod_len;
	__u64 addr;
	struct ksym *k;

	if (!pmclog_ksym_line__parse(line, &l) || !strchr("tTwW", l.type))
		return 0;
	addr = l.addr;
	name = l.name;
	name_len = l.name_len;
	p = l.mod;
	mod_len = l.mod_len;
	if (addr)
		ks->any_address = true;
	if (ks->count == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 65536;
		struct ksym *q = realloc(ks->syms, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		ks->syms = q;
		ks->cap = cap;
	}
	k = &ks->syms[ks->count];
	k->addr = addr;
	k->size = 0;
	k->module = SIZE_MAX;
	k->outside = false;
	/* Modules come in runs: store each run's name once. */
	if (mod_len && (strncmp(p, last_mod_name, mod_len) || last_mod_name[mod_len])) {
		memcpy(last_mod_name, p, mod_len);
		last_mod_name[mod_len] = '\0';
		if (add_name(ks, last_mod_name, mod_len, last_module))
			return -ENOMEM;
	}
	if (mod_len)
		k->module = *last_module;
	if (add_name(ks, name, name_len, &k->name))
		return -ENOMEM;
	ks->count++;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static int ksym_addr_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool sorted(const struct ksym *k, size_t n, int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp(&k[i - 1], &k[i]) > 0)
			return false;
	return true;
}

/* The end of the run of one object's symbols that starts at i. */
static size_t run_end(const struct ksym *k, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && k[j].module == k[i].module)
		j++;
	return j;
}

/*
 * Order syms by object (each module, in the order kallsyms lists them,
 * then the kernel), then address.  kallsyms lists the kernel's symbols
 * by address, then each module's in its symbol table's order: sort each
 * object's run alone and move the kernel's run last, rather than sort
 * some 100,000 symbols; anything else is sorted whole.
 */
static int sort_syms(struct pmclog_kallsyms *ks)
{
	struct ksym *k = ks->syms;
	size_t n = ks->count, core_end;

	for (size_t i = 0, j; i < n; i = j) {
		j = run_end(k, n, i);
		if (!sorted(k + i, j - i, ksym_addr_cmp))
			qsort(k + i, j - i, sizeof(*k), ksym_addr_cmp);
	}
	core_end = n && k[0].module == SIZE_MAX ? run_end(k, n, 0) : 0;
	if (core_end && core_end < n) {
		struct ksym *core = malloc(core_end * sizeof(*core));

		if (!core)
			return -ENOMEM;
		memcpy(core, k, core_end * sizeof(*core));
		memmove(k, k + core_end, (n - core_end) * sizeof(*k));
		memcpy(k + n - core_end, core, core_end * sizeof(*core));
		free(core);
	}
	if (!sorted(k, n, ksym_cmp))
		qsort(k, n, sizeof(*k), ksym_cmp);
	return 0;
}

/* Sizes: the distance to the next symbol of the same object. */
static int set_sizes(struct pmclog_kallsyms *ks)
{
	if (sort_syms(ks))
		return -ENOMEM;
	for (size_t i = 0; i + 1 < ks->count; i++)
		if (ks->syms[i + 1].module == ks->syms[i].module)
			ks->syms[i].size = ks->syms[i + 1].addr - ks->syms[i].addr;
	return 0;
}

/* A run of syms[] by address, as a cursor of index_by_addr()'s merge. */
struct run {
	size_t pos, end;
};

static __u64 run_addr(const struct pmclog_kallsyms *ks, const struct run *r)
{
	return ks->syms[r->pos].addr;
}

/* Restore the min-heap h[0..n) by address after h[i] grew. */
static void sift_down(const struct pmclog_kallsyms *ks, struct run *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct run t;

		if (l < n && run_addr(ks, &h[l]) < run_addr(ks, &h[m]))
			m = l;
		if (l + 1 < n && run_addr(ks, &h[l + 1]) < run_addr(ks, &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * The by-address index for pmclog_kallsyms__mark(), and its marks.
 * syms holds each object's symbols by address: merge those runs (a few
 * dozen modules beside the kernel, whose addresses [bpf]'s programs
 * interleave), taking from the lowest run all that comes before any
 * other run's next.
 */
static int index_by_addr(struct pmclog_kallsyms *ks)
{
	size_t n = ks->count, nruns = 0, out = 0;
	struct run *h;

	ks->by_addr = malloc((n ? n : 1) * sizeof(*ks->by_addr));
	ks->used = calloc(n ? n : 1, sizeof(*ks->used));
	for (size_t i = 0; i < n; i = run_end(ks->syms, n, i))
		nruns++;
	h = malloc((nruns ? nruns : 1) * sizeof(*h));
	if (!ks->by_addr || !ks->used || !h) {
		free(h);
		return -ENOMEM;
	}
	nruns = 0;
	for (size_t i = 0; i < n; i = h[nruns++].end)
		h[nruns] = (struct run){ i, run_end(ks->syms, n, i) };
	for (size_t i = nruns / 2; i-- > 0;)
		sift_down(ks, h, nruns, i);
	while (nruns) {
		__u64 next = UINT64_MAX;

		/* The second lowest run is a child of the root. */
		if (nruns > 1)
			next = run_addr(ks, &h[1]);
		if (nruns > 2 && run_addr(ks, &h[2]) < next)
			next = run_addr(ks, &h[2]);
		do
			ks->by_addr[out++] = h[0].pos++;
		while (h[0].pos < h[0].end && run_addr(ks, &h[0]) <= next);
		if (h[0].pos == h[0].end)
			h[0] = h[--nruns];
		sift_down(ks, h, nruns, 0);
	}
	free(h);
	return 0;
}

bool pmclog_kallsyms__mark(struct pmclog_kallsyms *ks, __u64 pc)
{
	size_t lo = 0, hi = ks->count;
	const struct ksym *k;

	/* The last symbol at or below pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[ks->by_addr[mid]].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * A symbol outside its module's core (init text freed, which another
	 * module loaded since may occupy) is no function here: the one below
	 * it is the candidate.
	 */
	while (lo && ks->syms[ks->by_addr[lo - 1]].outside)
		lo--;
	if (!lo)
		return false;
	k = &ks->syms[ks->by_addr[lo - 1]];
	if (k->size && pc - k->addr >= k->size)
		return false;
	ks->used[ks->by_addr[lo - 1]] = true;
	return true;
}

/*
 * Each whole line of f to parse_line(), read in chunks rather than a
 * fgets() a line.  A line longer than a chunk is no line of kallsyms:
 * skipped.  Return 0, parse_line()'s error, or -EIO.
 */
static int parse_lines(struct pmclog_kallsyms *ks, FILE *f)
{
	char last_mod_name[KSYM_NAME_MAX] = "";
	size_t last_module = SIZE_MAX, have = 0;
	bool skip = false;
	char *buf = malloc(READ_CHUNK + 1);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (!ret) {
		size_t got = fread(buf + have, 1, READ_CHUNK - have, f);
		char *p = buf, *end, *nl;

		have += got;
		end = buf + have;
		*end = '\0';
		if (skip && (nl = memchr(p, '\n', have))) {
			p = nl + 1;
			skip = false;
		}
		while (!skip && !ret && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			*nl = '\0';
			ret = parse_line(ks, p, &last_module, last_mod_name);
			p = nl + 1;
		}
		if (ret)
			break;
		if (ferror(f)) {
			ret = -EIO;
			break;
		}
		if (!got) {
			/* The last line, without its newline. */
			if (!skip && p < end)
				ret = parse_line(ks, p, &last_module, last_mod_name);
			break;
		}
		if (skip || (p == buf && have == READ_CHUNK)) {
			skip = true;
			have = 0;
			continue;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
	free(buf);
	return ret;
}

int pmclog_kallsyms__read(FILE *f, struct pmclog_kallsyms **out)
{
	struct pmclog_kallsyms *ks = calloc(1, sizeof(*ks));
	int ret;

	if (!ks)
		return -ENOMEM;
	ret = parse_lines(ks, f);
	if (!ret && ks->count && !ks->any_address)
		ret = -EPERM;
	if (!ret && (set_sizes(ks) || index_by_addr(ks)))
		ret = -ENOMEM;
	if (ret) {
		pmclog_kallsyms__free(ks);
		return ret;
	}
	*out = ks;
	return 0;
}

int pmclog_kallsyms__foreach_record(const struct pmclog_kallsyms *ks, bool marked,
				    __u64 tstamp, __u16 cpu,
				    pmclog_kallsyms_record_fn fn, void *ctx)
{
	union {
		struct pmclog_ksymbol rec;
		unsigned char bytes[PMCLOG_RECORD_LEN(sizeof(struct pmclog_ksymbol) +
						      KSYM_NAME_MAX)];
	} u;
	int ret = 0;

	for (size_t i = 0; i < ks->count && !ret; i++) {
		const char *name = ks->names + ks->syms[i].name;
		size_t n = strlen(name) + 1;	/* at most KSYM_NAME_MAX: word_len() */

		if (marked && !ks->used[i])
			continue;
		memset(&u, 0, PMCLOG_RECORD_LEN(sizeof(u.rec) + n));
		u.rec.header = (struct pmclog_header){
			.magic = PMCLOG_HEADER_MAGIC, .type = PMCLOG_TYPE_KSYMBOL,
			.length = (__u16)PMCLOG_RECORD_LEN(sizeof(u.rec) + n),
			.cpu = cpu, .flags = PMCLOG_HF_SYNTH, .tstamp = tstamp,
		};
		u.rec.pid = PMCLOG_PID_KERNEL;
		u.rec.start = ks->syms[i].addr;
		u.rec.size = ks->syms[i].size;
		memcpy(u.rec.name, name, n);
		ret = fn(ctx, &u.rec);
	}
	return ret;
}

/*
 * One line of /proc/modules: "name size refcount deps state address ...";
 * address and size are the module's core (its text, rodata and data).
 */
struct module_extent {
	char name[KSYM_NAME_MAX + 2];	/* "[name]", as kallsyms writes it */
	__u64 start, end;
};

static const struct module_extent *extent_of(const struct module_extent *m,
					     size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

int pmclog_kallsyms__bound(struct pmclog_kallsyms *ks, FILE *modules)
{
	char *line = NULL, name[KSYM_NAME_MAX];
	struct module_extent *m = NULL;
	size_t n = 0, cap = 0, line_cap = 0, cached = SIZE_MAX;
	const struct module_extent *e = NULL;

	/*
	 * Whole lines: a module that many others use lists them all before
	 * its address.
	 */
	while (getline(&line, &line_cap, modules) >= 0) {
		unsigned long long size, addr;

		if (sscanf(line, "%511s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 ||
		    !addr || !size || addr + size < addr)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct module_extent *p = realloc(m, c * sizeof(*p));

			if (!p) {
				free(m);
				free(line);
				return -ENOMEM;
			}
			m = p;
			cap = c;
		}
		snprintf(m[n].name, sizeof(m[n].name), "[%s]", name);
		m[n].start = addr;
		m[n].end = addr + size;
		n++;
	}
	free(line);
	/* syms is sorted by module, then address (set_sizes()). */
	for (size_t i = 0; i < ks->count; i++) {
		struct ksym *k = &ks->syms[i];

		if (k->module == SIZE_MAX)
			continue;
		if (k->module != cached) {
			e = extent_of(m, n, ks->names + k->module);
			cached = k->module;
		}
		if (!e)
			continue;
		if (k->addr < e->start || k->addr >= e->end) {
			k->outside = true;
			continue;
		}
		if (!k->size || k->size > e->end - k->addr)
			k->size = e->end - k->addr;
	}
	free(m);
	return 0;
}
