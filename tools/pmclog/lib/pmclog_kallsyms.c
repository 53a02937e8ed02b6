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

#include "pmclog_kallsyms.h"

#define KSYM_NAME_MAX	512

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

static int add_name(struct pmclog_kallsyms *ks, const char *s, size_t *off)
{
	size_t n = strlen(s) + 1;

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
	memcpy(ks->names + ks->names_len, s, n);
	*off = ks->names_len;
	ks->names_len += n;
	return 0;
}

/* One line: "ffffffff81000000 T _stext" or "... t name\t[module]". */
static int parse_line(struct pmclog_kallsyms *ks, const char *line,
		      size_t *last_module, char *last_mod_name)
{
	char type, name[KSYM_NAME_MAX], mod[KSYM_NAME_MAX] = "";
	unsigned long long addr;
	struct ksym *k;

	if (sscanf(line, "%llx %c %511s %511s", &addr, &type, name, mod) < 3 ||
	    !strchr("tTwW", type))
		return 0;
	if (addr)
		ks->any_address = true;
	if (ks->count == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 65536;
		struct ksym *p = realloc(ks->syms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ks->syms = p;
		ks->cap = cap;
	}
	k = &ks->syms[ks->count];
	k->addr = addr;
	k->size = 0;
	k->module = SIZE_MAX;
	k->outside = false;
	/* Modules come in runs: store each run's name once. */
	if (mod[0] && strcmp(mod, last_mod_name)) {
		if (add_name(ks, mod, last_module))
			return -ENOMEM;
		snprintf(last_mod_name, KSYM_NAME_MAX, "%s", mod);
	}
	if (mod[0])
		k->module = *last_module;
	if (add_name(ks, name, &k->name))
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

/* Sizes: the distance to the next symbol of the same object. */
static void set_sizes(struct pmclog_kallsyms *ks)
{
	qsort(ks->syms, ks->count, sizeof(*ks->syms), ksym_cmp);
	for (size_t i = 0; i + 1 < ks->count; i++)
		if (ks->syms[i + 1].module == ks->syms[i].module)
			ks->syms[i].size = ks->syms[i + 1].addr - ks->syms[i].addr;
}

static int by_addr_cmp(const void *a, const void *b, void *ctx)
{
	const struct pmclog_kallsyms *ks = ctx;
	__u64 x = ks->syms[*(const size_t *)a].addr;
	__u64 y = ks->syms[*(const size_t *)b].addr;

	return x < y ? -1 : x > y;
}

/* The by-address index for pmclog_kallsyms__mark(), and its marks. */
static int index_by_addr(struct pmclog_kallsyms *ks)
{
	ks->by_addr = malloc((ks->count ? ks->count : 1) * sizeof(*ks->by_addr));
	ks->used = calloc(ks->count ? ks->count : 1, sizeof(*ks->used));
	if (!ks->by_addr || !ks->used)
		return -ENOMEM;
	for (size_t i = 0; i < ks->count; i++)
		ks->by_addr[i] = i;
	qsort_r(ks->by_addr, ks->count, sizeof(*ks->by_addr), by_addr_cmp, ks);
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

int pmclog_kallsyms__read(FILE *f, struct pmclog_kallsyms **out)
{
	struct pmclog_kallsyms *ks = calloc(1, sizeof(*ks));
	char line[2 * KSYM_NAME_MAX + 64], last_mod_name[KSYM_NAME_MAX] = "";
	size_t last_module = SIZE_MAX;
	int ret = 0;

	if (!ks)
		return -ENOMEM;
	while (!ret && fgets(line, sizeof(line), f))
		ret = parse_line(ks, line, &last_module, last_mod_name);
	if (!ret && ks->count && !ks->any_address)
		ret = -EPERM;
	if (ret) {
		pmclog_kallsyms__free(ks);
		return ret;
	}
	set_sizes(ks);
	if (index_by_addr(ks)) {
		pmclog_kallsyms__free(ks);
		return -ENOMEM;
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
		size_t n = strlen(name) + 1;	/* at most KSYM_NAME_MAX: %511s */

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
	char line[2 * KSYM_NAME_MAX + 64], name[KSYM_NAME_MAX];
	struct module_extent *m = NULL;
	size_t n = 0, cap = 0, cached = SIZE_MAX;
	const struct module_extent *e = NULL;

	while (fgets(line, sizeof(line), modules)) {
		unsigned long long size, addr;

		if (sscanf(line, "%511s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 ||
		    !addr || !size || addr + size < addr)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct module_extent *p = realloc(m, c * sizeof(*p));

			if (!p) {
				free(m);
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
