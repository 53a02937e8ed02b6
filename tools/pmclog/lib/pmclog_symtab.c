// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog symbols: interned strings and sorted symbol tables.
 * The ELF and System.map loaders are in pmclog_elf.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"
#include "pmclog_symtab.h"

/* ------------------------------------------------------------------ */
/* Interned strings: open addressing, linear probing, FNV-1a.          */

struct pmclog_strings {
	char **slots;
	size_t cap;	/* a power of two */
	size_t count;
};

static __u64 str_hash(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

struct pmclog_strings *pmclog_strings__new(void)
{
	struct pmclog_strings *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = 1024;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	return s;
}

void pmclog_strings__free(struct pmclog_strings *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i]);
	free(s->slots);
	free(s);
}

static char **strings_slot(char **slots, size_t cap, const char *str)
{
	size_t i = (size_t)str_hash(str) & (cap - 1);

	while (slots[i] && strcmp(slots[i], str))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int strings_grow(struct pmclog_strings *s)
{
	size_t cap = s->cap * 2;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			*strings_slot(slots, cap, s->slots[i]) = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

const char *pmclog_strings__intern(struct pmclog_strings *s, const char *str)
{
	char **slot;

	if ((s->count + 1) * 2 > s->cap && strings_grow(s)) {
		errno = ENOMEM;
		return NULL;
	}
	slot = strings_slot(s->slots, s->cap, str);
	if (*slot)
		return *slot;
	*slot = strdup(str);
	if (!*slot)
		return NULL;
	s->count++;
	return *slot;
}

size_t pmclog_strings__count(const struct pmclog_strings *s)
{
	return s->count;
}

/* ------------------------------------------------------------------ */
/* Symbol tables                                                      */

struct pmclog_symtab {
	struct pmclog_sym *syms;
	size_t count;
	size_t cap;
	bool finished;
	__u64 limit;
};

struct pmclog_symtab *pmclog_symtab__new(void)
{
	return calloc(1, sizeof(struct pmclog_symtab));
}

void pmclog_symtab__free(struct pmclog_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t);
}

static int symtab_push(struct pmclog_symtab *t, const struct pmclog_sym *sym)
{
	if (t->count == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct pmclog_sym *syms = realloc(t->syms, cap * sizeof(*syms));

		if (!syms)
			return -(errno = ENOMEM);
		t->syms = syms;
		t->cap = cap;
	}
	t->syms[t->count++] = *sym;
	t->finished = false;
	return 0;
}

int pmclog_symtab__add(struct pmclog_symtab *t, __u64 addr, __u64 size,
		       const char *name, enum pmclog_sym_prio prio)
{
	return symtab_push(t, &(struct pmclog_sym){
		.addr = addr, .size = size, .name = name, .prio = (__u8)prio,
	});
}

/*
 * An unsized symbol is kept with the distance to its section's end as
 * its size, flagged: finish() cuts it at the next symbol.
 */
int pmclog_symtab__add_in(struct pmclog_symtab *t, __u64 addr, __u64 size,
			  __u64 end, const char *name, enum pmclog_sym_prio prio)
{
	struct pmclog_sym s = {
		.addr = addr, .size = size, .name = name, .prio = (__u8)prio,
	};

	if (end <= addr)
		return -(errno = EINVAL);
	if (!size) {
		s.size = end - addr;
		s.flags = PMCLOG_SYM_UNSIZED;
	} else if (size > end - addr) {
		s.size = end - addr;
	}
	return symtab_push(t, &s);
}

static bool sym_sized(const struct pmclog_sym *s)
{
	return s->size && !(s->flags & PMCLOG_SYM_UNSIZED);
}

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

/*
 * By address; at one address the best name first, as perf chooses among
 * aliases (choose_best_symbol() in tools/perf/util/symbol.c), so that the
 * two tools name a function alike: one with a size, then not weak, then
 * global, then the fewest leading underscores (malloc, not __libc_malloc;
 * mprotect, not __GI___mprotect), then the longest name; then by name, so
 * that the choice does not depend on the order the file lists them in.
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct pmclog_sym *x = a, *y = b;
	size_t nx, ny;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (sym_sized(x) != sym_sized(y))
		return sym_sized(x) ? -1 : 1;
	if ((x->prio == PMCLOG_SYM_WEAK) != (y->prio == PMCLOG_SYM_WEAK))
		return x->prio == PMCLOG_SYM_WEAK ? 1 : -1;
	if ((x->prio == PMCLOG_SYM_GLOBAL) != (y->prio == PMCLOG_SYM_GLOBAL))
		return x->prio == PMCLOG_SYM_GLOBAL ? -1 : 1;
	nx = underscores(x->name);
	ny = underscores(y->name);
	if (nx != ny)
		return nx < ny ? -1 : 1;
	nx = strlen(x->name);
	ny = strlen(y->name);
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep the first symbol at each address (the best, after sym_cmp). */
static void symtab_unique(struct pmclog_symtab *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->count; i++)
		if (!n || t->syms[i].addr != t->syms[n - 1].addr)
			t->syms[n++] = t->syms[i];
	t->count = n;
}

/*
 * Zero-sized symbols reach the next symbol (the last one: limit); those
 * bounded by their section (PMCLOG_SYM_UNSIZED) the next symbol or that
 * end, whichever comes first.
 */
static void symtab_extend(struct pmclog_symtab *t)
{
	for (size_t i = 0; i < t->count; i++) {
		struct pmclog_sym *s = &t->syms[i];
		__u64 next;

		if (s->size && !(s->flags & PMCLOG_SYM_UNSIZED))
			continue;
		if (i + 1 < t->count)
			next = t->syms[i + 1].addr;
		else if (s->size)
			next = s->addr + s->size;
		else
			next = t->limit > s->addr ? t->limit : s->addr + 1;
		if (!s->size || next - s->addr < s->size)
			s->size = next - s->addr;
	}
}

void pmclog_symtab__finish(struct pmclog_symtab *t, __u64 limit)
{
	if (t->finished && limit == t->limit)
		return;
	t->limit = limit;
	if (t->count)	/* an empty table may have no array: qsort(NULL) is UB */
		qsort(t->syms, t->count, sizeof(*t->syms), sym_cmp);
	symtab_unique(t);
	symtab_extend(t);
	t->finished = true;
}

const struct pmclog_sym *pmclog_symtab__lookup(const struct pmclog_symtab *t,
					       __u64 addr)
{
	size_t lo = 0, hi = t->count;

	/* The last symbol that starts at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (addr - t->syms[lo - 1].addr < t->syms[lo - 1].size)
		return &t->syms[lo - 1];
	return NULL;
}

size_t pmclog_symtab__count(const struct pmclog_symtab *t)
{
	return t->count;
}

const struct pmclog_sym *pmclog_symtab__at(const struct pmclog_symtab *t,
					   size_t i)
{
	return i < t->count ? &t->syms[i] : NULL;
}
