// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog replay: sort a log's records by time and replay its maps.
 * See pmclog_replay.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"
#include "pmclog_replay.h"
#include "pmclog_tool.h"

/* A record in the arena (added before pmclog_replay__stream() was asked). */
struct rec_ref {
	size_t off;	/* in the arena */
	__u64 offset;	/* in the log */
};

/*
 * A record waiting in the window: its bytes inline when it is small (a
 * PCSAMPLE, most of a log), else in memory of its own.
 */
#define WIN_INLINE	48

struct win_slot {
	__u64 offset;		/* in the log */
	__u32 len;
	__u32 next_free;	/* while on the free list */
	union {
		__u64 inl[WIN_INLINE / 8];	/* 8-byte aligned, as records are */
		void *ext;
	} b;
};

/* The window's min-heap, on (tstamp, seq); seq is the position in the log. */
struct win_ent {
	__u64 tstamp;
	__u64 seq;
	__u32 slot;
};

#define WIN_NONE	UINT32_MAX

struct pending_sym {
	__u64 start;
	__u64 size;
	const char *name;
};

/* A recorder's BUILDID (of START's kernel maps), waiting for its MAP_IN. */
struct pending_bid {
	__u64 start;
	__u8 size;
	__u8 id[PMCLOG_BUILD_ID_MAX];
};

/* A kernel map of START (MAP_IN with PMCLOG_MAP_F_INITIAL), as mapped. */
struct initial_map {
	__u64 start, end, base;
	struct pmclog_object *obj;	/* the object of its build, once known */
};

struct comm {
	__u32 pid;
	const char *path;
};

struct pmclog_replay {
	struct pmclog_tool tool;	/* the records, in time order */
	pmclog_replay_sample_fn sample_fn;
	void *sample_ctx;
	pmclog_replay_record_fn record_fn;	/* the other records, applied */
	void *record_ctx;
	pmclog_replay_record_fn pre_fn;		/* every record, before it is */
	void *pre_ctx;
	bool streaming;			/* pmclog_replay__stream() */
	bool ran;			/* pmclog_replay__run() */
	int error;			/* of a delivery; every later call returns it */
	struct pmclog_strings *strings;

	/* Without streaming, the records as added, for run(). */
	unsigned char *arena;
	size_t arena_len, arena_cap;
	struct rec_ref *refs;
	size_t nrefs, refs_cap;

	/* The window (see pmclog_replay.h) */
	__u64 window;
	__u64 seq;		/* records through the window */
	__u64 max_ts;		/* highest tstamp queued */
	__u64 limit;		/* everything below it is delivered */
	__u64 last_ts;		/* highest tstamp delivered */
	bool delivered;		/* last_ts is one */
	bool late;		/* the record being delivered is late */
	struct win_ent *heap;
	size_t nheap, heap_cap;
	struct win_slot *slots;
	size_t nslots, slots_cap;
	__u32 free_slot;

	struct pmclog_procmaps *maps;
	struct pmclog_object **objs;
	size_t nobjs, objs_cap;
	struct pending_sym *pending;	/* KSYMBOLs waiting for their MAP_IN */
	size_t npending, pending_cap;
	struct pending_bid *pending_bids;
	size_t npending_bids, pending_bids_cap;
	struct initial_map *initial;	/* START's kernel maps, in replay order */
	size_t ninitial, initial_cap;
	struct comm *comms;
	size_t ncomms, comms_cap;
	struct pmclog_replay_pmc *pmcs;
	size_t npmcs, pmcs_cap;
	const struct pmclog_callchain *cur_cc;	/* the PCSAMPLE's, delivering */
	bool cur_cc_paired;			/* the CALLCHAIN delivering is */
	struct pmclog_frame *frames;
	size_t frames_cap;
	struct pmclog_replay_stats stats;
};

static const struct pmclog_tool replay_tool;	/* the records, below */

struct pmclog_replay *pmclog_replay__new(struct pmclog_strings *strings)
{
	struct pmclog_replay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tool = replay_tool;
	r->strings = strings;
	r->window = PMCLOG_REPLAY_WINDOW_NS;
	r->stats.sort_window_ns = r->window;
	r->free_slot = WIN_NONE;
	r->maps = pmclog_procmaps__new();
	if (!r->maps) {
		free(r);
		return NULL;
	}
	return r;
}

void pmclog_replay__free(struct pmclog_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nobjs; i++) {
		pmclog_symtab__free(r->objs[i]->logsyms);
		free(r->objs[i]);
	}
	free(r->objs);
	free(r->arena);
	free(r->refs);
	for (size_t i = 0; i < r->nheap; i++) {
		struct win_slot *w = &r->slots[r->heap[i].slot];

		if (w->len > WIN_INLINE)
			free(w->b.ext);
	}
	free(r->heap);
	free(r->slots);
	free(r->pending);
	free(r->pending_bids);
	free(r->initial);
	free(r->comms);
	free(r->pmcs);
	free(r->frames);
	pmclog_procmaps__free(r->maps);
	free(r);
}

int pmclog_replay__set_window(struct pmclog_replay *r, __u64 ns)
{
	if (r->seq || r->nrefs || r->ran)
		return -(errno = EBUSY);
	r->window = ns;
	r->stats.sort_window_ns = ns;
	return 0;
}

int pmclog_replay__stream(struct pmclog_replay *r, pmclog_replay_sample_fn fn,
			  void *ctx)
{
	if (r->seq || r->nrefs || r->ran)
		return -(errno = EBUSY);
	r->streaming = true;
	r->sample_fn = fn;
	r->sample_ctx = ctx;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The window                                                         */

static bool win_before(const struct win_ent *a, const struct win_ent *b)
{
	return a->tstamp != b->tstamp ? a->tstamp < b->tstamp : a->seq < b->seq;
}

static void heap_up(struct win_ent *h, size_t i)
{
	struct win_ent e = h[i];

	while (i) {
		size_t p = (i - 1) / 2;

		if (!win_before(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void heap_down(struct win_ent *h, size_t n, size_t i)
{
	struct win_ent e = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && win_before(&h[c + 1], &h[c]))
			c++;
		if (!win_before(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static const void *slot_bytes(const struct win_slot *w)
{
	return w->len > WIN_INLINE ? w->b.ext : (const void *)w->b.inl;
}

/*
 * Whether the CALLCHAIN cc is the stack of the PCSAMPLE s, the record
 * just before it in the log: the same cpu, time, PMC, mode and thread.
 */
static bool callchain_of(const struct pmclog_pcsample *s,
			 const struct pmclog_record *cc)
{
	const struct pmclog_callchain *c = cc->rec.callchain;

	return s->header.type == PMCLOG_TYPE_PCSAMPLE &&
	       s->header.cpu == cc->cpu && s->header.tstamp == cc->tstamp &&
	       s->header.pmcid == cc->pmcid &&
	       (s->header.flags & PMCLOG_HF_USER) == (cc->flags & PMCLOG_HF_USER) &&
	       s->pid == c->pid && s->tid == c->tid;
}

/*
 * Deliver one record to the replay: late when it sorts before one already
 * delivered.  cc: a PCSAMPLE's own CALLCHAIN (NULL: none); paired: rec is
 * a CALLCHAIN that went with its PCSAMPLE.
 */
static int deliver(struct pmclog_replay *r, const struct pmclog_record *rec,
		   const struct pmclog_callchain *cc, bool paired)
{
	int ret;

	r->late = r->delivered && rec->tstamp < r->last_ts;
	if (r->late && !((rec->type == PMCLOG_TYPE_KSYMBOL ||
			  rec->type == PMCLOG_TYPE_BUILDID) &&
			 (rec->flags & PMCLOG_HF_SYNTH)))
		r->stats.records_late++;
	if (!r->late)
		r->last_ts = rec->tstamp;
	r->delivered = true;
	if (rec->tstamp > r->stats.end_tstamp)
		r->stats.end_tstamp = rec->tstamp;
	ret = r->pre_fn ? r->pre_fn(r->pre_ctx, rec) : 0;
	r->cur_cc = cc;
	r->cur_cc_paired = paired;
	if (!ret)
		ret = pmclog_tool__deliver(&r->tool, rec);
	r->cur_cc = NULL;
	r->cur_cc_paired = false;
	r->late = false;
	if (!ret && r->record_fn && rec->type != PMCLOG_TYPE_PCSAMPLE &&
	    rec->type != PMCLOG_TYPE_CALLCHAIN)
		ret = r->record_fn(r->record_ctx, rec);
	if (ret)
		r->error = ret;
	return ret;
}

/* Take the oldest record off the heap; its slot stays the caller's. */
static struct win_ent heap_pop(struct pmclog_replay *r)
{
	struct win_ent top = r->heap[0];

	r->heap[0] = r->heap[--r->nheap];
	if (r->nheap)
		heap_down(r->heap, r->nheap, 0);
	return top;
}

static void slot_free(struct pmclog_replay *r, __u32 slot)
{
	struct win_slot *w = &r->slots[slot];

	if (w->len > WIN_INLINE)
		free(w->b.ext);
	w->next_free = r->free_slot;
	r->free_slot = slot;
}

/*
 * Deliver the oldest record of the window and free its slot.  A PCSAMPLE
 * takes its CALLCHAIN with it: the record after it in the log, so next in
 * the window (same tstamp, seq + 1), when callchain_of() says it is its.
 */
static int win_pop(struct pmclog_replay *r)
{
	struct win_ent top = heap_pop(r), next;
	const struct win_slot *w = &r->slots[top.slot];
	const struct pmclog_header *h = slot_bytes(w);
	struct pmclog_record rec, cc;
	int ret;

	pmclog_record__describe(&rec, h, w->offset);
	if (h->type == PMCLOG_TYPE_PCSAMPLE && r->nheap &&
	    r->heap[0].seq == top.seq + 1 && r->heap[0].tstamp == top.tstamp) {
		const struct win_slot *cw = &r->slots[r->heap[0].slot];
		const struct pmclog_header *ch = slot_bytes(cw);

		if (ch->type == PMCLOG_TYPE_CALLCHAIN) {
			pmclog_record__describe(&cc, ch, cw->offset);
			if (callchain_of((const void *)h, &cc)) {
				next = heap_pop(r);
				ret = deliver(r, &rec, (const void *)ch, false);
				if (!ret)
					ret = deliver(r, &cc, NULL, true);
				slot_free(r, next.slot);
				slot_free(r, top.slot);
				return ret;
			}
		}
	}
	ret = deliver(r, &rec, NULL, false);
	slot_free(r, top.slot);
	return ret;
}

/* Queue a copy of rec in the window. */
static int win_queue(struct pmclog_replay *r, const struct pmclog_record *rec)
{
	struct win_slot *w;
	__u32 slot;

	if (r->free_slot != WIN_NONE) {
		slot = r->free_slot;
		r->free_slot = r->slots[slot].next_free;
	} else {
		if (r->nslots >= WIN_NONE ||
		    PMCLOG_GROW(r->slots, r->slots_cap, r->nslots + 1))
			return -ENOMEM;
		slot = (__u32)r->nslots++;
	}
	w = &r->slots[slot];
	w->len = rec->length;
	if (rec->length > WIN_INLINE) {
		w->b.ext = malloc(rec->length);
		if (!w->b.ext) {
			w->len = 0;
			slot_free(r, slot);
			return -ENOMEM;
		}
		memcpy(w->b.ext, rec->rec.header, rec->length);
	} else {
		memcpy(w->b.inl, rec->rec.header, rec->length);
	}
	w->offset = rec->offset;
	if (PMCLOG_GROW(r->heap, r->heap_cap, r->nheap + 1)) {
		slot_free(r, slot);
		return -ENOMEM;
	}
	r->heap[r->nheap] = (struct win_ent){
		.tstamp = rec->tstamp, .seq = r->seq, .slot = slot,
	};
	heap_up(r->heap, r->nheap++);
	return 0;
}

/*
 * Whether the oldest record may leave the window now: it is older than
 * the limit, and it is not a PCSAMPLE that is the last record added
 * (its CALLCHAIN, which follows it, is not in yet).
 */
static bool win_ripe(const struct pmclog_replay *r)
{
	const struct win_ent *top = &r->heap[0];
	const struct pmclog_header *h;

	if (top->tstamp >= r->limit)
		return false;
	if (top->seq + 1 != r->seq)
		return true;
	h = slot_bytes(&r->slots[top->slot]);
	return h->type != PMCLOG_TYPE_PCSAMPLE;
}

/*
 * One record through the window: queued, then every queued record older
 * than the newest minus the window is delivered, in (tstamp, position)
 * order.  One older than the limit already (late, or at its place if
 * nothing after it was delivered yet) leaves at once; a PCSAMPLE waits
 * for the next record, to take it along if it is its CALLCHAIN, and
 * else leaves before it.
 */
static int win_push(struct pmclog_replay *r, const struct pmclog_record *rec)
{
	int ret;

	if (r->nheap && r->heap[0].tstamp < r->limit &&
	    !(rec->type == PMCLOG_TYPE_CALLCHAIN && rec->tstamp == r->heap[0].tstamp) &&
	    (ret = win_pop(r)))
		return ret;
	if ((ret = win_queue(r, rec)))
		return ret;
	r->seq++;
	if (rec->tstamp > r->max_ts)
		r->max_ts = rec->tstamp;
	if (r->max_ts >= r->window && r->max_ts - r->window > r->limit)
		r->limit = r->max_ts - r->window;
	while (r->nheap && win_ripe(r))
		if ((ret = win_pop(r)))
			return ret;
	return 0;
}

static int win_flush(struct pmclog_replay *r)
{
	int ret;

	while (r->nheap)
		if ((ret = win_pop(r)))
			return ret;
	return 0;
}

int pmclog_replay__add(struct pmclog_replay *r, const struct pmclog_record *rec)
{
	if (r->error)
		return r->error;
	if (r->ran)
		return -(errno = EINVAL);
	if (r->streaming) {
		int ret = win_push(r, rec);

		if (ret == -ENOMEM)
			errno = ENOMEM;
		return ret;
	}
	if (PMCLOG_GROW(r->arena, r->arena_cap, r->arena_len + rec->length) ||
	    PMCLOG_GROW(r->refs, r->refs_cap, r->nrefs + 1))
		return -(errno = ENOMEM);
	memcpy(r->arena + r->arena_len, rec->rec.header, rec->length);
	r->refs[r->nrefs] = (struct rec_ref){
		.off = r->arena_len, .offset = rec->offset,
	};
	r->nrefs++;
	r->arena_len += rec->length;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Objects                                                            */

/* The object (path, kind, build-id); id_size 0: no build-id known. */
static struct pmclog_object *object_get(struct pmclog_replay *r,
					const char *path,
					enum pmclog_obj_kind kind,
					const __u8 *id, __u8 id_size)
{
	const char *ipath = pmclog_strings__intern(r->strings, path);
	struct pmclog_object *o;

	if (!ipath)
		return NULL;
	for (size_t i = r->nobjs; i-- > 0;) {
		o = r->objs[i];
		if (o->path == ipath && o->kind == kind &&
		    o->build_id_size == id_size &&
		    (!id_size || !memcmp(o->build_id, id, id_size)))
			return o;
	}
	if (PMCLOG_GROW(r->objs, r->objs_cap, r->nobjs + 1))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = ipath;
	o->kind = kind;
	o->build_id_size = id_size;
	if (id_size)
		memcpy(o->build_id, id, id_size);
	r->objs[r->nobjs++] = o;
	return o;
}

static void object_map(struct pmclog_object *o, const struct pmclog_map *e)
{
	if (e->base + (e->end - e->start) > o->limit)
		o->limit = e->base + (e->end - e->start);
}

/*
 * Map e holds the build id (size bytes) of its object: from now on it
 * maps the object of that build, a new one the first time.
 */
static int map_build_id(struct pmclog_replay *r, struct pmclog_map *e,
			const __u8 *id, __u8 size)
{
	struct pmclog_object *o = e->obj, *n;

	if (o->build_id_size == size && !memcmp(o->build_id, id, size))
		return 0;
	n = object_get(r, o->path, o->kind, id, size);
	if (!n)
		return -ENOMEM;
	e->obj = n;
	object_map(n, e);
	return 0;
}

/* The recorder's BUILDIDs that waited for START's kernel map e. */
static int adopt_pending_bids(struct pmclog_replay *r, struct pmclog_map *e)
{
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < r->npending_bids; i++) {
		struct pending_bid *p = &r->pending_bids[i];

		if (!ret && p->start == e->start) {
			ret = map_build_id(r, e, p->id, p->size);
			continue;
		}
		r->pending_bids[n++] = *p;
	}
	r->npending_bids = n;
	return ret;
}

static enum pmclog_obj_kind map_kind(const struct pmclog_map_in *m,
				     const char *path)
{
	if (m->pid != PMCLOG_PID_KERNEL)
		return (m->flags & PMCLOG_MAP_F_ANON) || path[0] == '[' ?
		       PMCLOG_OBJ_ANON : PMCLOG_OBJ_FILE;
	if (!(m->flags & PMCLOG_MAP_F_KMODULE))
		return PMCLOG_OBJ_KERNEL;
	return m->flags & PMCLOG_MAP_F_INIT ? PMCLOG_OBJ_KMODULE_INIT :
	       PMCLOG_OBJ_KMODULE;
}

static int object_add_sym(struct pmclog_replay *r, struct pmclog_object *o,
			  __u64 addr, __u64 size, const char *name)
{
	if (!o->logsyms) {
		o->logsyms = pmclog_symtab__new();
		if (!o->logsyms)
			return -ENOMEM;
	}
	(void)r;
	return pmclog_symtab__add(o->logsyms, addr, size, name, PMCLOG_SYM_GLOBAL);
}

/* The KSYMBOLs that waited for the kernel map m go to its object. */
static int adopt_pending(struct pmclog_replay *r, const struct pmclog_map *m)
{
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < r->npending; i++) {
		struct pending_sym *p = &r->pending[i];

		if (!ret && p->start >= m->start && p->start < m->end) {
			ret = object_add_sym(r, m->obj, p->start - m->start + m->base,
					     p->size, p->name);
			continue;
		}
		r->pending[n++] = *p;
	}
	r->npending = n;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Records                                                            */

static struct pmclog_replay *replay_of(struct pmclog_tool *tool)
{
	return container_of(tool, struct pmclog_replay, tool);
}

static int on_record(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	replay_of(tool)->stats.records[rec->type <= PMCLOG_TYPE_MAX_KNOWN ? rec->type :
				       PMCLOG_REPLAY_TYPES - 1]++;
	return 0;
}

static int on_map_in(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_map_in *m = rec->rec.map_in;
	struct pmclog_object *o = object_get(r, rec->path, map_kind(m, rec->path),
					     NULL, 0);
	struct pmclog_addrmap *am;
	struct pmclog_map *e;
	int ret;

	if (!o)
		return -ENOMEM;
	if (m->end <= m->start) {
		r->stats.maps_bad++;
		return 0;
	}
	am = pmclog_procmaps__get(r->maps, m->pid, true);
	if (!am || pmclog_addrmap__insert(am, m->start, m->end, m->offset, o))
		return -ENOMEM;
	e = pmclog_addrmap__at(am, m->start);
	object_map(o, e);
	/*
	 * Only START's maps adopt waiting KSYMBOLs: those are the recorder's
	 * (the kernel as /proc/kallsyms showed it at START, stamped with
	 * INITIALIZE's time, so sorted before START's MAP_INs).  A module
	 * loaded later may sit where one of them pointed (freed init text,
	 * an unloaded module): its own KSYMBOLs follow its MAP_IN.
	 */
	if (m->pid != PMCLOG_PID_KERNEL || !(m->flags & PMCLOG_MAP_F_INITIAL))
		return 0;
	/* The build first: the symbols go to the object of that build. */
	ret = r->npending_bids ? adopt_pending_bids(r, e) : 0;
	if (!ret && r->npending)
		ret = adopt_pending(r, e);
	if (ret || PMCLOG_GROW(r->initial, r->initial_cap, r->ninitial + 1))
		return ret ? ret : -ENOMEM;
	/* For the recorder's records that come later than the window. */
	r->initial[r->ninitial++] = (struct initial_map){
		.start = e->start, .end = e->end, .base = e->base, .obj = e->obj,
	};
	return 0;
}

/*
 * START's kernel map that held addr, the first (as a waiting KSYMBOL is
 * adopted by the first); exact: the one that starts at addr.
 */
static struct initial_map *initial_at(struct pmclog_replay *r, __u64 addr,
				      bool exact)
{
	for (size_t i = 0; i < r->ninitial; i++) {
		struct initial_map *im = &r->initial[i];

		if (exact ? addr == im->start : addr >= im->start && addr < im->end)
			return im;
	}
	return NULL;
}

/*
 * A recorder's BUILDID later than the window: START's kernel map at its
 * start has had samples, and KSYMBOLs, as the object without a build-id,
 * so that object takes the build-id in place, as if the BUILDID had come
 * before the MAP_IN (as it does in a log within the window).
 */
static int late_buildid(struct pmclog_replay *r, const struct pmclog_buildid *b)
{
	struct initial_map *im = initial_at(r, b->start, true);
	struct pmclog_object *o = im ? im->obj : NULL;

	if (!o) {
		r->stats.buildids_unmapped++;
		return 0;
	}
	if (o->build_id_size == b->size && !memcmp(o->build_id, b->build_id, b->size))
		return 0;
	o->build_id_size = b->size;
	memcpy(o->build_id, b->build_id, b->size);
	return 0;
}

/*
 * The object that the MAP_IN of (pid, start) just before it maps is of
 * that build.  The recorder's (START's kernel maps, stamped with
 * INITIALIZE's time) wait for the MAP_IN.
 */
static int on_buildid(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_buildid *b = rec->rec.buildid;
	struct pmclog_addrmap *am = pmclog_procmaps__get(r->maps, b->pid, false);
	struct pmclog_map *e = am ? pmclog_addrmap__at(am, b->start) : NULL;
	struct pending_bid *p;

	if (r->late && (rec->flags & PMCLOG_HF_SYNTH) && b->pid == PMCLOG_PID_KERNEL)
		return late_buildid(r, b);
	if (e)
		return map_build_id(r, e, b->build_id, b->size);
	if (!(rec->flags & PMCLOG_HF_SYNTH) || b->pid != PMCLOG_PID_KERNEL) {
		r->stats.buildids_unmapped++;
		return 0;
	}
	if (PMCLOG_GROW(r->pending_bids, r->pending_bids_cap, r->npending_bids + 1))
		return -ENOMEM;
	p = &r->pending_bids[r->npending_bids++];
	*p = (struct pending_bid){ .start = b->start, .size = b->size };
	memcpy(p->id, b->build_id, b->size);
	return 0;
}

static int on_map_out(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_map_out *m = rec->rec.map_out;
	struct pmclog_addrmap *am = pmclog_procmaps__get(r->maps, m->pid, false);

	if (m->end <= m->start) {
		r->stats.maps_bad++;
		return 0;
	}
	return am ? pmclog_addrmap__remove(am, m->start, m->end) : 0;
}

static int on_ksymbol(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_ksymbol *k = rec->rec.ksymbol;
	struct pmclog_addrmap *am = pmclog_procmaps__get(r->maps, k->pid, false);
	const struct pmclog_map *e = am ? pmclog_addrmap__find(am, k->start) : NULL;
	const char *name = pmclog_strings__intern(r->strings, rec->name);

	if (!name)
		return -ENOMEM;
	/*
	 * One of the recorder's, later than the window: it describes the
	 * kernel of START, so it goes to START's map that held its address,
	 * not to what is there now.
	 */
	if (r->late && (rec->flags & PMCLOG_HF_SYNTH)) {
		const struct initial_map *im = initial_at(r, k->start, false);

		if (im)
			return object_add_sym(r, im->obj, k->start - im->start + im->base,
					      k->size, name);
		e = NULL;
	}
	if (e)
		return object_add_sym(r, e->obj, k->start - e->start + e->base,
				      k->size, name);
	if (PMCLOG_GROW(r->pending, r->pending_cap, r->npending + 1))
		return -ENOMEM;
	r->pending[r->npending++] = (struct pending_sym){
		.start = k->start, .size = k->size, .name = name,
	};
	return 0;
}

static int on_procexec(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_procexec *e = rec->rec.procexec;
	const char *path = pmclog_strings__intern(r->strings, rec->path);
	size_t i;

	if (!path)
		return -ENOMEM;
	for (i = 0; i < r->ncomms && r->comms[i].pid != e->pid; i++)
		;
	if (i == r->ncomms) {
		if (PMCLOG_GROW(r->comms, r->comms_cap, r->ncomms + 1))
			return -ENOMEM;
		r->ncomms++;
	}
	r->comms[i] = (struct comm){ .pid = e->pid, .path = path };
	return pmclog_procmaps__exec(r->maps, e->pid);
}

static int on_procfork(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);

	if (rec->flags & PMCLOG_HF_UNFOLLOWED)
		r->stats.procs_unfollowed++;
	return pmclog_procmaps__fork(r->maps, rec->rec.procfork->ppid,
				     rec->rec.procfork->pid);
}

static int on_procexit(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	pmclog_procmaps__exit(replay_of(tool)->maps, rec->rec.procexit->pid);
	return 0;
}

/* The object and object address of pc in pid's maps (or the kernel's). */
static void frame_lookup(struct pmclog_replay *r, struct pmclog_frame *f,
			 __u32 pid, bool ret)
{
	const struct pmclog_addrmap *am;
	const struct pmclog_map *e = NULL;
	__u64 at = ret && f->pc ? f->pc - 1 : f->pc;

	am = pmclog_procmaps__get(r->maps, f->user ? pid : PMCLOG_PID_KERNEL, false);
	if (am)
		e = pmclog_addrmap__find(am, at);
	if (e) {
		f->obj = e->obj;
		f->objaddr = at - e->start + e->base;
		f->map_start = e->start;
		f->map_end = e->end;
		f->map_base = e->base;
	}
}

/*
 * loc's stack from its CALLCHAIN c: frames[0] the sample (loc itself
 * when the CALLCHAIN has no frame of the sample's mode: a hidden kernel
 * PC), then the kernel's return addresses, then the user frames.  The
 * first frame of each part and one after PMCLOG_CC_EXACT are exact PCs,
 * the others return addresses; the markers are no frames.
 */
static int sample_frames(struct pmclog_replay *r, struct pmclog_sample_loc *loc,
			 const struct pmclog_callchain *c)
{
	size_t n = (size_t)c->nkernel + c->nuser, k = 0;
	bool own = loc->user ? !c->nuser : !c->nkernel;

	if (PMCLOG_GROW(r->frames, r->frames_cap, n + 1))
		return -(errno = ENOMEM);
	if (own)
		r->frames[k++] = (struct pmclog_frame){
			.pc = loc->pc, .obj = loc->obj, .objaddr = loc->objaddr,
			.user = loc->user, .hidden = loc->hidden,
			.map_start = loc->map_start, .map_end = loc->map_end,
			.map_base = loc->map_base,
		};
	for (size_t i = 0; i < n; i++) {
		struct pmclog_frame *f;
		bool user = i >= c->nkernel;
		bool exact = i == 0 || i == c->nkernel ||
			     c->pc[i - 1] == PMCLOG_CC_EXACT;

		if (c->pc[i] == PMCLOG_CC_EXACT)
			continue;
		f = &r->frames[k++];
		*f = (struct pmclog_frame){ .pc = c->pc[i], .user = user };
		frame_lookup(r, f, loc->pid, !exact);
	}
	loc->frames = r->frames;
	loc->nframes = k;
	loc->callchain_flags = c->flags;
	return 0;
}

static int on_callchain(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);

	(void)rec;
	/* A paired one went with its sample (on_pcsample()). */
	if (!r->cur_cc_paired)
		r->stats.callchains_orphan++;
	return 0;
}

static int on_pcsample(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_pcsample *s = rec->rec.pcsample;
	struct pmclog_sample_loc loc = {
		.tstamp = rec->tstamp, .pc = s->pc, .pid = s->pid,
		.tid = s->tid, .cpu = rec->cpu,
		.user = rec->flags & PMCLOG_HF_USER, .pmcid = rec->pmcid,
	};
	const struct pmclog_addrmap *am;
	const struct pmclog_map *e = NULL;
	int ret;

	r->stats.samples++;
	if (loc.user)
		r->stats.samples_user++;
	else
		r->stats.samples_kernel++;
	if (!loc.user && !loc.pc) {
		loc.hidden = true;
		r->stats.samples_hidden++;
	} else {
		am = pmclog_procmaps__get(r->maps,
					  loc.user ? loc.pid : PMCLOG_PID_KERNEL, false);
		if (am)
			e = pmclog_addrmap__find(am, loc.pc);
		if (e) {
			loc.obj = e->obj;
			loc.objaddr = loc.pc - e->start + e->base;
			loc.map_start = e->start;
			loc.map_end = e->end;
			loc.map_base = e->base;
		} else {
			r->stats.samples_no_object++;
		}
	}
	if (r->cur_cc) {
		r->stats.callchains++;
		ret = sample_frames(r, &loc, r->cur_cc);
		if (ret)
			return ret;
	}
	return r->sample_fn ? r->sample_fn(r->sample_ctx, &loc) : 0;
}

static int on_initialize(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);

	r->stats.abi_version = rec->rec.initialize->abi_version;
	r->stats.start_tstamp = rec->tstamp;
	r->stats.start_realtime_ns = rec->rec.initialize->realtime_ns;
	return 0;
}

static struct pmclog_replay_pmc *pmc_of(struct pmclog_replay *r, __u32 pmcid)
{
	for (size_t i = 0; i < r->npmcs; i++)
		if (r->pmcs[i].pmcid == pmcid)
			return &r->pmcs[i];
	return NULL;
}

static int on_pmcallocate(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_pmcallocate *pa = rec->rec.pmcallocate;
	struct pmclog_replay_pmc *p = pmc_of(r, rec->pmcid);

	r->stats.event = pmclog_strings__intern(r->strings, rec->name);
	r->stats.period = pa->period;
	r->stats.freq = pa->flags & PMCLOG_PMC_F_FREQ;
	if (!r->stats.event)
		return -ENOMEM;
	if (!p) {
		if (PMCLOG_GROW(r->pmcs, r->pmcs_cap, r->npmcs + 1))
			return -ENOMEM;
		p = &r->pmcs[r->npmcs++];
	}
	/* A second PMCALLOCATE of one id (no module writes one) replaces it. */
	*p = (struct pmclog_replay_pmc){
		.pmcid = rec->pmcid, .event = pa->event, .flags = pa->flags,
		.config = pa->config, .period = pa->period, .name = r->stats.event,
	};
	return 0;
}

static int on_closelog(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_closelog *cl = rec->rec.closelog;

	r->stats.closelog = true;
	r->stats.close_samples = cl->samples;
	r->stats.close_samples_dropped = cl->samples_dropped;
	r->stats.close_records_dropped = cl->records_dropped;
	return 0;
}

static int on_dropnotify(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);

	r->stats.drop_samples += rec->rec.dropnotify->samples;
	r->stats.drop_records += rec->rec.dropnotify->records;
	return 0;
}

/* THROTTLE and UNTHROTTLE, by reason ([0]: one of a newer minor version). */
static int on_throttle(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_replay *r = replay_of(tool);
	const struct pmclog_throttle *th = rec->rec.throttle;
	unsigned int why = th->reason < PMCLOG_REPLAY_REASONS ? th->reason : 0;
	struct pmclog_replay_pmc *p = pmc_of(r, rec->pmcid);

	if (rec->type == PMCLOG_TYPE_THROTTLE) {
		r->stats.throttles[why] += th->count;
		if (p)
			p->throttles[why] += th->count;
	} else {
		r->stats.unthrottles[why] += th->count;
		r->stats.stopped_ns[why] += th->stopped_ns;
		if (p) {
			p->unthrottles[why] += th->count;
			p->stopped_ns[why] += th->stopped_ns;
		}
	}
	return 0;
}

static const struct pmclog_tool replay_tool = {
	.record		= on_record,
	.initialize	= on_initialize,
	.closelog	= on_closelog,
	.pmcallocate	= on_pmcallocate,
	.pcsample	= on_pcsample,
	.map_in		= on_map_in,
	.map_out	= on_map_out,
	.procexec	= on_procexec,
	.procfork	= on_procfork,
	.procexit	= on_procexit,
	.dropnotify	= on_dropnotify,
	.ksymbol	= on_ksymbol,
	.throttle	= on_throttle,
	.unthrottle	= on_throttle,
	.buildid	= on_buildid,
	.callchain	= on_callchain,
};

int pmclog_replay__run(struct pmclog_replay *r, pmclog_replay_sample_fn fn,
		       void *ctx)
{
	int ret = r->error;

	if (r->ran)
		return -(errno = EINVAL);
	r->ran = true;
	if (r->streaming && (fn != r->sample_fn || ctx != r->sample_ctx))
		return -(errno = EINVAL);
	r->sample_fn = fn;
	r->sample_ctx = ctx;
	for (size_t i = 0; i < r->nrefs && !ret; i++) {
		struct pmclog_record rec;

		pmclog_record__describe(&rec, r->arena + r->refs[i].off,
					r->refs[i].offset);
		ret = win_push(r, &rec);
	}
	/* Held only to be replayed: not needed any more. */
	free(r->arena);
	free(r->refs);
	r->arena = NULL;
	r->refs = NULL;
	r->arena_len = r->arena_cap = r->nrefs = r->refs_cap = 0;
	if (!ret)
		ret = win_flush(r);
	r->stats.ksymbols_unmapped = r->npending;
	r->stats.buildids_unmapped += r->npending_bids;
	for (size_t i = 0; i < r->nobjs; i++)
		if (r->objs[i]->logsyms)
			pmclog_symtab__finish(r->objs[i]->logsyms, r->objs[i]->limit);
	return ret;
}

void pmclog_replay__set_record_fn(struct pmclog_replay *r, pmclog_replay_record_fn fn,
				  void *ctx)
{
	r->record_fn = fn;
	r->record_ctx = ctx;
}

const struct pmclog_replay_stats *pmclog_replay__stats(const struct pmclog_replay *r)
{
	return &r->stats;
}

size_t pmclog_replay__nobjects(const struct pmclog_replay *r)
{
	return r->nobjs;
}

struct pmclog_object *pmclog_replay__object(const struct pmclog_replay *r,
					    size_t i)
{
	return i < r->nobjs ? r->objs[i] : NULL;
}

const char *pmclog_replay__comm(const struct pmclog_replay *r, __u32 pid)
{
	for (size_t i = 0; i < r->ncomms; i++)
		if (r->comms[i].pid == pid)
			return r->comms[i].path;
	return NULL;
}

size_t pmclog_replay__npmcs(const struct pmclog_replay *r)
{
	return r->npmcs;
}

const struct pmclog_replay_pmc *pmclog_replay__pmc(const struct pmclog_replay *r,
						   size_t i)
{
	return i < r->npmcs ? &r->pmcs[i] : NULL;
}

void pmclog_replay__set_pre_record_fn(struct pmclog_replay *r, pmclog_replay_record_fn fn,
				      void *ctx)
{
	r->pre_fn = fn;
	r->pre_ctx = ctx;
}

struct pmclog_object *pmclog_replay__object_at(struct pmclog_replay *r, __u32 pid,
					       __u64 addr)
{
	struct pmclog_addrmap *am = pmclog_procmaps__get(r->maps, pid, false);
	const struct pmclog_map *e = am ? pmclog_addrmap__find(am, addr) : NULL;

	return e ? e->obj : NULL;
}
