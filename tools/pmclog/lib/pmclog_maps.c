// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog maps: interval maps per process.  See pmclog_internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"

void pmclog_addrmap__init(struct pmclog_addrmap *m)
{
	memset(m, 0, sizeof(*m));
}

void pmclog_addrmap__clear(struct pmclog_addrmap *m)
{
	free(m->maps);
	pmclog_addrmap__init(m);
}

/* Index of the first interval that ends after addr. */
static size_t first_after(const struct pmclog_addrmap *m, __u64 addr)
{
	size_t lo = 0, hi = m->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int reserve(struct pmclog_addrmap *m, size_t more)
{
	size_t cap;
	struct pmclog_map *maps;

	if (m->count + more <= m->cap)
		return 0;
	cap = m->cap ? m->cap * 2 : 16;
	while (cap < m->count + more)
		cap *= 2;
	maps = realloc(m->maps, cap * sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	m->maps = maps;
	m->cap = cap;
	return 0;
}

static void insert_at(struct pmclog_addrmap *m, size_t i,
		      const struct pmclog_map *e)
{
	memmove(&m->maps[i + 1], &m->maps[i], (m->count - i) * sizeof(*e));
	m->maps[i] = *e;
	m->count++;
}

static void delete_range(struct pmclog_addrmap *m, size_t i, size_t n)
{
	if (!n)
		return;	/* m->maps may be NULL: memmove() wants a pointer */
	memmove(&m->maps[i], &m->maps[i + n],
		(m->count - i - n) * sizeof(m->maps[0]));
	m->count -= n;
}

int pmclog_addrmap__remove(struct pmclog_addrmap *m, __u64 start, __u64 end)
{
	size_t i, j;

	if (end <= start)
		return -EINVAL;
	i = first_after(m, start);
	if (i < m->count && m->maps[i].start < start) {
		struct pmclog_map left = m->maps[i];

		if (left.end > end) {
			/*
			 * [start, end) inside one interval: split it, in the
			 * one case that needs a slot more.
			 */
			struct pmclog_map right = left;

			if (reserve(m, 1))
				return -ENOMEM;
			right.base += end - left.start;
			right.start = end;
			m->maps[i].end = start;
			insert_at(m, i + 1, &right);
			return 0;
		}
		m->maps[i].end = start;
		i++;
	}
	for (j = i; j < m->count && m->maps[j].end <= end; j++)
		;
	delete_range(m, i, j - i);
	if (i < m->count && m->maps[i].start < end) {
		m->maps[i].base += end - m->maps[i].start;
		m->maps[i].start = end;
	}
	return 0;
}

int pmclog_addrmap__insert(struct pmclog_addrmap *m, __u64 start, __u64 end,
			   __u64 base, void *obj)
{
	struct pmclog_map e = { .start = start, .end = end, .base = base, .obj = obj };
	int ret;

	ret = pmclog_addrmap__remove(m, start, end);
	if (ret)
		return ret;
	if (reserve(m, 1))
		return -ENOMEM;
	insert_at(m, first_after(m, start), &e);
	return 0;
}

const struct pmclog_map *pmclog_addrmap__find(const struct pmclog_addrmap *m,
					      __u64 addr)
{
	size_t i = first_after(m, addr);

	if (i < m->count && m->maps[i].start <= addr)
		return &m->maps[i];
	return NULL;
}

struct pmclog_map *pmclog_addrmap__at(struct pmclog_addrmap *m, __u64 start)
{
	size_t i = first_after(m, start);

	return i < m->count && m->maps[i].start == start ? &m->maps[i] : NULL;
}

int pmclog_addrmap__copy(struct pmclog_addrmap *dst,
			 const struct pmclog_addrmap *src)
{
	dst->count = 0;
	if (reserve(dst, src->count))
		return -ENOMEM;
	if (src->count)
		memcpy(dst->maps, src->maps, src->count * sizeof(*src->maps));
	dst->count = src->count;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Per-process maps: a hash of pids, open addressing.                  */

struct proc_slot {
	bool used;
	bool exited;
	__u32 pid;
	struct pmclog_addrmap map;
};

struct pmclog_procmaps {
	struct proc_slot *slots;
	size_t cap;	/* a power of two */
	size_t count;
};

struct pmclog_procmaps *pmclog_procmaps__new(void)
{
	struct pmclog_procmaps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	pm->cap = 64;
	pm->slots = calloc(pm->cap, sizeof(*pm->slots));
	if (!pm->slots) {
		free(pm);
		return NULL;
	}
	return pm;
}

void pmclog_procmaps__free(struct pmclog_procmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->cap; i++)
		free(pm->slots[i].map.maps);
	free(pm->slots);
	free(pm);
}

static struct proc_slot *slot_of(struct proc_slot *slots, size_t cap, __u32 pid)
{
	size_t i = (pid * 2654435761U) & (cap - 1);

	while (slots[i].used && slots[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int procmaps_grow(struct pmclog_procmaps *pm)
{
	size_t cap = pm->cap * 2;
	struct proc_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < pm->cap; i++)
		if (pm->slots[i].used)
			*slot_of(slots, cap, pm->slots[i].pid) = pm->slots[i];
	free(pm->slots);
	pm->slots = slots;
	pm->cap = cap;
	return 0;
}

static struct proc_slot *procmaps_slot(struct pmclog_procmaps *pm, __u32 pid,
				       bool create)
{
	struct proc_slot *s = slot_of(pm->slots, pm->cap, pid);

	if (s->used || !create)
		return s->used ? s : NULL;
	if ((pm->count + 1) * 2 > pm->cap) {
		if (procmaps_grow(pm))
			return NULL;
		s = slot_of(pm->slots, pm->cap, pid);
	}
	s->used = true;
	s->pid = pid;
	pm->count++;
	return s;
}

struct pmclog_addrmap *pmclog_procmaps__get(struct pmclog_procmaps *pm,
					    __u32 pid, bool create)
{
	struct proc_slot *s = procmaps_slot(pm, pid, create);

	if (!s && create)
		errno = ENOMEM;
	return s ? &s->map : NULL;
}

int pmclog_procmaps__fork(struct pmclog_procmaps *pm, __u32 ppid, __u32 pid)
{
	struct proc_slot *parent, *child;

	/*
	 * Not a record the kernel writes (a new thread is no PROCFORK); the
	 * copy onto itself would empty the maps, losing every later sample.
	 */
	if (ppid == pid)
		return 0;
	child = procmaps_slot(pm, pid, true);
	if (!child)
		return -ENOMEM;
	child->exited = false;
	/* After the child's slot: creating it may move the parent's. */
	parent = procmaps_slot(pm, ppid, false);
	if (!parent) {
		child->map.count = 0;
		return 0;
	}
	return pmclog_addrmap__copy(&child->map, &parent->map);
}

int pmclog_procmaps__exec(struct pmclog_procmaps *pm, __u32 pid)
{
	struct proc_slot *s = procmaps_slot(pm, pid, true);

	if (!s)
		return -ENOMEM;
	s->map.count = 0;
	s->exited = false;
	return 0;
}

bool pmclog_procmaps__exit(struct pmclog_procmaps *pm, __u32 pid)
{
	struct proc_slot *s = procmaps_slot(pm, pid, false);

	if (s)
		s->exited = true;
	return s != NULL;
}

bool pmclog_procmaps__exited(const struct pmclog_procmaps *pm, __u32 pid)
{
	const struct proc_slot *s = slot_of(pm->slots, pm->cap, pid);

	return s->used && s->exited;
}
