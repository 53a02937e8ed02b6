// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog BPF collector, the ring's side: what bpf/pmclog.bpf.c writes
 * into its ring buffer, made into the log's records (pmclog_bpf.c drains
 * the ring into this, and writes what it made into the device's pipe).
 * No libbpf here: the unit tests feed it events as the programs write
 * them (tests/unit/test_bpf_ring.c).
 *
 *   a record (PCSAMPLE, CALLCHAIN,
 *   PROCFORK, PROCEXIT, MAP_OUT,
 *   DROPNOTIFY)                     copied as it is; fork and exit also
 *                                   copy and end the process's mappings
 *   EV_MAP_IN                       MAP_IN, the path joined, or
 *                                   "[unreachable]" as the module says
 *                                   when the walk stopped short
 *   EV_EXEC                         the old image's MAP_OUTs, PROCEXEC
 *   EV_UNMAP                        the MAP_OUTs of the executable parts
 *                                   mapped before the event's time
 *   EV_KSYMBOL                      KSYMBOL
 *
 * The executable mappings of every followed process are kept in a
 * pmclog_procmaps whose intervals carry their MAP_IN's time as their
 * object (an opaque pointer, which splitting an interval keeps, where
 * its base would move with the start): an unmap stamped at its call's
 * entry removes what was there before, not what the call itself mapped
 * (6.12's MAP_FIXED).  Not thread-safe: one thread feeds a converter.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"
#include "../bpf/pmclog_bpf_events.h"

struct pmclog_bpf_ring {
	struct pmclog_procmaps *maps;	/* the followed processes' exec mappings */
	unsigned char *out;		/* the records made, not yet taken */
	size_t out_len, out_cap;
	__u64 lost;			/* records not made: no memory */
	/* Room for any path joined whole: a '/' for each NUL of the names, and a NUL. */
	char path[PMCLOG_BPF_NAMES + PMCLOG_BPF_NAME_MAX + 1];
};

struct pmclog_bpf_ring *pmclog_bpf_ring__new(void)
{
	struct pmclog_bpf_ring *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->maps = pmclog_procmaps__new();
	if (!c->maps) {
		free(c);
		return NULL;
	}
	return c;
}

void pmclog_bpf_ring__free(struct pmclog_bpf_ring *c)
{
	if (!c)
		return;
	pmclog_procmaps__free(c->maps);
	free(c->out);
	free(c);
}

const unsigned char *pmclog_bpf_ring__output(const struct pmclog_bpf_ring *c, size_t *len)
{
	*len = c->out_len;
	return c->out;
}

void pmclog_bpf_ring__taken(struct pmclog_bpf_ring *c)
{
	c->out_len = 0;
}

__u64 pmclog_bpf_ring__lost(const struct pmclog_bpf_ring *c)
{
	return c->lost;
}

/* ------------------------------------------------------------------ */
/* Records                                                              */

/* Room for a record of len bytes at the end of c->out, zeroed. */
void *pmclog_bpf_ring__reserve(struct pmclog_bpf_ring *c, size_t len)
{
	void *p;

	if (c->out_len + len > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap * 2 : 65536;
		unsigned char *n;

		while (cap < c->out_len + len)
			cap *= 2;
		n = realloc(c->out, cap);
		if (!n) {
			c->lost++;
			return NULL;
		}
		c->out = n;
		c->out_cap = cap;
	}
	p = c->out + c->out_len;
	memset(p, 0, len);
	c->out_len += len;
	return p;
}

void pmclog_bpf_ring__hdr_init(struct pmclog_header *h, unsigned int type, size_t len,
			       unsigned int cpu, __u64 tstamp)
{
	h->magic = PMCLOG_HEADER_MAGIC;
	h->type = type;
	h->length = len;
	h->cpu = cpu;
	h->tstamp = tstamp;
}

/* A record whose fixed part is size bytes, followed by the string s. */
static void *put_with_string(struct pmclog_bpf_ring *c, unsigned int type, size_t size,
			     const char *s, unsigned int cpu, __u64 tstamp)
{
	size_t n = strnlen(s, PMCLOG_RECORD_MAX - size - 1);
	size_t len = PMCLOG_RECORD_LEN(size + n + 1);
	unsigned char *r = pmclog_bpf_ring__reserve(c, len);

	if (!r)
		return NULL;
	pmclog_bpf_ring__hdr_init((struct pmclog_header *)r, type, len, cpu, tstamp);
	memcpy(r + size, s, n);
	return r;
}

static void put_map_in(struct pmclog_bpf_ring *c, __u32 pid, __u32 flags, __u64 start,
		       __u64 end, __u64 offset, const char *path, unsigned int cpu,
		       __u64 tstamp)
{
	struct pmclog_map_in *r = put_with_string(c, PMCLOG_TYPE_MAP_IN, sizeof(*r),
						  path, cpu, tstamp);

	if (!r)
		return;
	r->pid = pid;
	r->flags = flags;
	r->start = start;
	r->end = end;
	r->offset = offset;
}

static void put_map_out(struct pmclog_bpf_ring *c, __u32 pid, __u64 start, __u64 end,
			unsigned int cpu, __u64 tstamp)
{
	struct pmclog_map_out *r = pmclog_bpf_ring__reserve(c, sizeof(*r));

	if (!r)
		return;
	pmclog_bpf_ring__hdr_init(&r->header, PMCLOG_TYPE_MAP_OUT, sizeof(*r), cpu, tstamp);
	r->pid = pid;
	r->start = start;
	r->end = end;
}

/* ------------------------------------------------------------------ */
/* The followed processes' executable mappings                          */

/*
 * A mapping the converter cannot keep (no memory) will have no MAP_OUT
 * when it goes: counted as a record lost now, since nothing will know
 * then.
 */
static void maps_in(struct pmclog_bpf_ring *c, __u32 pid, __u64 start, __u64 end,
		    __u64 tstamp)
{
	struct pmclog_addrmap *m;

	if (pid == PMCLOG_PID_KERNEL || end <= start)
		return;
	m = pmclog_procmaps__get(c->maps, pid, true);
	if (!m || pmclog_addrmap__insert(m, start, end, 0, (void *)(uintptr_t)tstamp))
		c->lost++;
}

void pmclog_bpf_ring__map_in(struct pmclog_bpf_ring *c, __u32 pid, __u32 flags, __u64 start,
			     __u64 end, __u64 offset, const char *path, unsigned int cpu,
			     __u64 tstamp)
{
	put_map_in(c, pid, flags, start, end, offset, path, cpu, tstamp);
	maps_in(c, pid, start, end, tstamp);
}

/*
 * [start, end) of pid went away at tstamp: a MAP_OUT for each executable
 * part of it that was mapped before then.  Nothing is allocated here
 * (only a split may need a slot), so that the converter, short of
 * memory, still writes every MAP_OUT.
 */
static void maps_out(struct pmclog_bpf_ring *c, __u32 pid, __u64 start, __u64 end,
		     unsigned int cpu, __u64 tstamp)
{
	struct pmclog_addrmap *m = pmclog_procmaps__get(c->maps, pid, false);
	size_t i = 0;

	if (!m)
		return;
	/*
	 * The intervals are sorted and disjoint.  Removing [s, e) leaves at
	 * i either what lay before s (which ends at s, and is passed over
	 * next) or what followed.  A removal that fails (no slot for a
	 * split) moves on: the interval stays, and a later unmap of it
	 * writes its MAP_OUT again, which a reader takes as the no-op it is.
	 */
	while (i < m->count && m->maps[i].start < end) {
		const struct pmclog_map *x = &m->maps[i];
		__u64 s = x->start > start ? x->start : start;
		__u64 e = x->end < end ? x->end : end;

		if (s >= e || (uintptr_t)x->obj > tstamp) {
			i++;
			continue;
		}
		put_map_out(c, pid, s, e, cpu, tstamp);
		if (pmclog_addrmap__remove(m, s, e))
			i++;
	}
}

static void maps_all_out(struct pmclog_bpf_ring *c, __u32 pid, unsigned int cpu,
			 __u64 tstamp)
{
	struct pmclog_addrmap *m = pmclog_procmaps__get(c->maps, pid, false);

	if (!m)
		return;
	maps_out(c, pid, 0, UINT64_MAX, cpu, tstamp);
	pmclog_addrmap__clear(m);
}

/* ------------------------------------------------------------------ */
/* The ring                                                             */

/*
 * What the module writes for a path d_path() could not make
 * (kmod/pmclog_vma.c, pmclog_defer.c): not absolute, so that nothing
 * takes it for a file (the archive copies none, the report names no
 * object by it), while the mapping keeps its range and its samples.
 */
#define UNREACHABLE	"[unreachable]"

/*
 * A path from its components, leaf first, in the size bytes of e: false
 * when the walk stopped before the root (PMCLOG_BPF_PATH_TRUNC), or e
 * does not hold them as the programs write them (ncomp names, each with
 * its NUL, nbytes in all, inside the event).  What was found would make
 * an absolute path that names another file: the tail of the real one,
 * hung from the root.
 */
static bool join_path(char *buf, size_t bufsize, const struct pmclog_bpf_map_in *e,
		      size_t size)
{
	const char *comp[PMCLOG_BPF_PATH_DEPTH];
	__u32 n = 0, off = 0;
	size_t len = 0;

	if ((e->flags & PMCLOG_BPF_PATH_TRUNC) || e->ncomp > PMCLOG_BPF_PATH_DEPTH ||
	    e->nbytes > sizeof(e->names) ||
	    e->nbytes > size - offsetof(struct pmclog_bpf_map_in, names) ||
	    (e->nbytes && e->names[e->nbytes - 1]))
		return false;
	while (off < e->nbytes && n < e->ncomp) {
		comp[n++] = e->names + off;
		off += strlen(e->names + off) + 1;
	}
	if (n != e->ncomp || off != e->nbytes)
		return false;
	if (!n) {
		snprintf(buf, bufsize, "/");
		return true;
	}
	while (n--) {
		int w = snprintf(buf + len, bufsize - len, "/%s", comp[n]);

		if (w < 0 || (size_t)w >= bufsize - len)
			return false;
		len += w;
	}
	return true;
}

/* e's path into c->path: joined, or UNREACHABLE. */
static void event_path(struct pmclog_bpf_ring *c, const struct pmclog_bpf_map_in *e,
		       size_t size)
{
	if (!join_path(c->path, sizeof(c->path), e, size))
		snprintf(c->path, sizeof(c->path), "%s", UNREACHABLE);
}

static void on_map_in(struct pmclog_bpf_ring *c, const struct pmclog_bpf_map_in *e, size_t size)
{
	const struct pmclog_header *h = &e->header;
	__u32 flags;

	if (size < offsetof(struct pmclog_bpf_map_in, names))
		return;
	flags = e->flags & ~PMCLOG_BPF_PATH_TRUNC;
	if (e->pid == PMCLOG_PID_KERNEL || (flags & PMCLOG_MAP_F_ANON)) {
		size_t n = size - offsetof(struct pmclog_bpf_map_in, names);

		snprintf(c->path, sizeof(c->path), "%.*s", (int)n, e->names);
	} else {
		event_path(c, e, size);
	}
	pmclog_bpf_ring__map_in(c, e->pid, flags, e->start, e->end, e->offset, c->path, h->cpu,
				h->tstamp);
}

static void on_exec(struct pmclog_bpf_ring *c, const struct pmclog_bpf_map_in *e, size_t size)
{
	struct pmclog_procexec *r;

	if (size < offsetof(struct pmclog_bpf_map_in, names))
		return;
	event_path(c, e, size);
	/* The old image's mappings end here, before PROCEXEC (pmclog_proc.c). */
	maps_all_out(c, e->pid, e->header.cpu, e->header.tstamp);
	r = put_with_string(c, PMCLOG_TYPE_PROCEXEC, sizeof(*r), c->path, e->header.cpu,
			    e->header.tstamp);
	if (r)
		r->pid = e->pid;
}

static void on_ksymbol(struct pmclog_bpf_ring *c, const struct pmclog_bpf_ksymbol *e)
{
	char name[PMCLOG_BPF_KSYM_NAME + 1];
	struct pmclog_ksymbol *r;

	snprintf(name, sizeof(name), "%.*s", (int)sizeof(e->name), e->name);
	if (!name[0])
		return;
	r = put_with_string(c, PMCLOG_TYPE_KSYMBOL, sizeof(*r), name, e->header.cpu,
			    e->header.tstamp);
	if (!r)
		return;
	r->pid = PMCLOG_PID_KERNEL;
	r->start = e->start;
	r->size = e->size;
}

/*
 * Copy a record of the ring into the log as it is: one record, or a
 * PCSAMPLE and its CALLCHAIN, written together so that nothing comes
 * between them.
 */
static void pass(struct pmclog_bpf_ring *c, const void *data, size_t size)
{
	void *r;

	size -= size % PMCLOG_RECORD_ALIGN;
	r = pmclog_bpf_ring__reserve(c, size);

	if (r)
		memcpy(r, data, size);
}

int pmclog_bpf_ring__record(struct pmclog_bpf_ring *c, const void *data, size_t size)
{
	const struct pmclog_header *h = data;

	if (size < sizeof(*h))
		return 0;
	switch (h->type) {
	case PMCLOG_BPF_EV_MAP_IN:
		on_map_in(c, data, size);
		break;
	case PMCLOG_BPF_EV_EXEC:
		on_exec(c, data, size);
		break;
	case PMCLOG_BPF_EV_UNMAP:
		if (size >= sizeof(struct pmclog_bpf_unmap)) {
			const struct pmclog_bpf_unmap *e = data;

			maps_out(c, e->pid, e->start, e->end, h->cpu, h->tstamp);
		}
		break;
	case PMCLOG_BPF_EV_KSYMBOL:
		if (size >= sizeof(struct pmclog_bpf_ksymbol))
			on_ksymbol(c, data);
		break;
	case PMCLOG_TYPE_PROCFORK:
		if (size >= sizeof(struct pmclog_procfork)) {
			const struct pmclog_procfork *r = data;

			/* As in maps_in(): the child's MAP_OUTs would be missing. */
			if (pmclog_procmaps__fork(c->maps, r->ppid, r->pid))
				c->lost++;
		}
		pass(c, data, size);
		break;
	case PMCLOG_TYPE_PROCEXIT:
		if (size >= sizeof(struct pmclog_procexit))
			maps_all_out(c, ((const struct pmclog_procexit *)data)->pid, h->cpu,
				     h->tstamp);
		pass(c, data, size);
		break;
	default:
		pass(c, data, size);
		break;
	}
	return 0;
}

