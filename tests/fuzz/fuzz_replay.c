// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the replay (pmclog_replay.h) over arbitrary logs,
 * checked against a reference model.
 *
 * The input is a log.  Its records go to a replay, as `pmclog report`
 * adds them, and to the model here, which orders them as the replay's
 * window must (pmclog_replay.h), naively: every record waits in a list
 * until one newer than it by the window has come, the oldest of those
 * below the limit (by tstamp, then position) is taken by a scan, and a
 * record below the limit when it comes is taken at once, late when it is
 * older than one taken before.  It replays them naively too: a map is an
 * unsorted list of intervals, each keeping the start and object address
 * it was mapped with, cut by MAP_OUT and by later MAP_INs, its object
 * changed by a BUILDID at its start (the recorder's wait for START's
 * kernel map that starts there); a late KSYMBOL of the recorder's goes to
 * the first of START's kernel maps that held it, a late BUILDID of the
 * recorder's gives its build-id to the object of START's kernel map at its
 * start, in place.  A CALLCHAIN goes with the PCSAMPLE just before it in
 * the log when it is its (same cpu, time, PMC, mode, thread).  Every
 * sample the replay hands out must be the one the model expects next, in
 * the object and at the object address the model finds, with a stack
 * exactly when the model pairs it; the statistics, the objects, the
 * commands of PROCEXEC and the KSYMBOL tables must agree.  The input's size chooses the window (the
 * default, 0 or 1000 ns) and whether the replay streams (samples handed
 * out from inside pmclog_replay__add()) or holds the records until
 * pmclog_replay__run().
 */
#include "fuzz_common.h"
#include "pmclog_replay.h"
#include "pmclog_symtab.h"

/* ------------------------------------------------------------------ */
/* The model                                                          */

struct m_rec {
	__u64 tstamp;
	size_t seq;
	const struct pmclog_header *h;	/* a malloc'd copy of the record */
};

struct m_ival {
	__u64 start, end;	/* what is left of the mapping */
	__u64 mstart, mbase;	/* as mapped: objaddr = pc - mstart + mbase */
	size_t obj;
};

struct m_map {
	__u32 pid;
	struct m_ival *v;
	size_t n, cap;
};

struct m_sym {
	__u64 addr;
	const char *name;
};

struct m_obj {
	const char *path;
	enum pmclog_obj_kind kind;
	__u8 bid_size;
	__u8 bid[PMCLOG_BUILD_ID_MAX];
	struct m_sym *syms;
	size_t nsyms, syms_cap;
};

struct m_pending {
	__u64 start;
	const char *name;
};

struct m_comm {
	__u32 pid;
	const char *path;
};

struct m_pending_bid {
	__u64 start;
	const __u8 *bid;
	__u8 size;
};

/* A record in replay order. */
struct m_ord {
	size_t rec;
	bool late;
};

/* A kernel map of START, as mapped. */
struct m_initial {
	__u64 start, end, offset;
	size_t obj;
};

struct model {
	struct m_rec *recs;		/* as read */
	size_t nrecs, recs_cap;
	/* The window */
	__u64 window, limit, max_ts, last_ts;
	bool taken;			/* last_ts is one */
	size_t *wait;			/* records waiting, unsorted */
	size_t nwait, wait_cap;
	struct m_ord *ord;		/* the records in replay order */
	size_t nord, ord_cap;
	size_t next;			/* the next of ord to replay */
	struct m_initial *initial;
	size_t ninitial, initial_cap;
	struct m_map *maps;
	size_t nmaps, maps_cap;
	struct m_obj *objs;
	size_t nobjs, objs_cap;
	struct m_pending *pending;
	size_t npending, pending_cap;
	struct m_pending_bid *pbids;
	size_t npbids, pbids_cap;
	struct m_comm *comms;
	size_t ncomms, comms_cap;
	struct pmclog_replay_stats st;	/* what the replay must report */
	struct pmclog_replay *rp;
};

static void *grow(void *arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	arr = realloc(arr, *cap * sz);
	if (!arr)
		fz_fail("out of memory in the model");
	return arr;
}

#define PUSH(arr, n, cap) \
	((arr) = grow((arr), &(cap), (n), sizeof(*(arr))), &(arr)[(n)++])

/* Record i joins the replay order. */
static void m_take(struct model *m, size_t i)
{
	bool late = m->taken && m->recs[i].tstamp < m->last_ts;

	if (!late)
		m->last_ts = m->recs[i].tstamp;
	m->taken = true;
	*PUSH(m->ord, m->nord, m->ord_cap) = (struct m_ord){ .rec = i, .late = late };
}

/* Take the oldest waiting record below limit (all of them: UINT64_MAX); false if none. */
static bool m_take_oldest(struct model *m, __u64 limit, bool all)
{
	size_t best = m->nwait;

	for (size_t k = 0; k < m->nwait; k++) {
		const struct m_rec *x = &m->recs[m->wait[k]];

		if (!all && x->tstamp >= limit)
			continue;
		if (best == m->nwait || x->tstamp < m->recs[m->wait[best]].tstamp ||
		    (x->tstamp == m->recs[m->wait[best]].tstamp &&
		     x->seq < m->recs[m->wait[best]].seq))
			best = k;
	}
	if (best == m->nwait)
		return false;
	m_take(m, m->wait[best]);
	m->wait[best] = m->wait[--m->nwait];
	return true;
}

/* The window, as pmclog_replay.h says it: record i comes. */
static void m_window(struct model *m, size_t i)
{
	__u64 t = m->recs[i].tstamp;

	if (t < m->limit) {
		m_take(m, i);
		return;
	}
	*PUSH(m->wait, m->nwait, m->wait_cap) = i;
	if (t > m->max_ts)
		m->max_ts = t;
	if (m->max_ts < m->window || m->max_ts - m->window <= m->limit)
		return;
	m->limit = m->max_ts - m->window;
	while (m_take_oldest(m, m->limit, false))
		;
}

static void model_add(void *ctx, const struct pmclog_record *rec)
{
	struct model *m = ctx;
	struct m_rec *r;
	void *copy;

	copy = malloc(rec->length);
	if (!copy)
		fz_fail("out of memory in the model");
	memcpy(copy, rec->rec.header, rec->length);
	r = PUSH(m->recs, m->nrecs, m->recs_cap);
	*r = (struct m_rec){ .tstamp = rec->tstamp, .seq = m->nrecs - 1, .h = copy };
	/* First: a streaming replay hands out samples from inside add. */
	m_window(m, m->nrecs - 1);
	if (pmclog_replay__add(m->rp, rec))
		fz_fail("pmclog_replay__add: %s", strerror(errno));
}

static struct m_map *m_map(struct model *m, __u32 pid)
{
	struct m_map *map;

	for (size_t i = 0; i < m->nmaps; i++)
		if (m->maps[i].pid == pid)
			return &m->maps[i];
	map = PUSH(m->maps, m->nmaps, m->maps_cap);
	*map = (struct m_map){ .pid = pid };
	return map;
}

/*
 * The model's object of (path, kind, build-id), or NULL; the newest, as
 * the replay looks (a late BUILDID may give an object the key of another).
 */
static const struct m_obj *m_obj_find(const struct model *m, const char *path,
				      enum pmclog_obj_kind kind, const __u8 *bid,
				      __u8 bid_size)
{
	for (size_t i = m->nobjs; i-- > 0;)
		if (m->objs[i].kind == kind && !strcmp(m->objs[i].path, path) &&
		    m->objs[i].bid_size == bid_size &&
		    (!bid_size || !memcmp(m->objs[i].bid, bid, bid_size)))
			return &m->objs[i];
	return NULL;
}

/* Its index, made when new. */
static size_t m_obj(struct model *m, const char *path, enum pmclog_obj_kind kind,
		    const __u8 *bid, __u8 bid_size)
{
	const struct m_obj *found = m_obj_find(m, path, kind, bid, bid_size);
	struct m_obj *o;

	if (found)
		return (size_t)(found - m->objs);
	o = PUSH(m->objs, m->nobjs, m->objs_cap);
	*o = (struct m_obj){ .path = path, .kind = kind, .bid_size = bid_size };
	if (bid_size)
		memcpy(o->bid, bid, bid_size);
	return m->nobjs - 1;
}

/* Interval v now maps the object of its path and kind with that build. */
static void m_rebuild(struct model *m, struct m_ival *v, const __u8 *bid,
		      __u8 size)
{
	const struct m_obj *o = &m->objs[v->obj];

	v->obj = m_obj(m, o->path, o->kind, bid, size);
}

static enum pmclog_obj_kind m_kind(const struct pmclog_map_in *mi)
{
	if (mi->pid != PMCLOG_PID_KERNEL)
		return (mi->flags & PMCLOG_MAP_F_ANON) || mi->path[0] == '[' ?
		       PMCLOG_OBJ_ANON : PMCLOG_OBJ_FILE;
	if (!(mi->flags & PMCLOG_MAP_F_KMODULE))
		return PMCLOG_OBJ_KERNEL;
	return mi->flags & PMCLOG_MAP_F_INIT ? PMCLOG_OBJ_KMODULE_INIT :
	       PMCLOG_OBJ_KMODULE;
}

/* Cut [start, end) out of every interval of map. */
static void m_remove(struct m_map *map, __u64 start, __u64 end)
{
	size_t n = map->n;

	for (size_t i = 0; i < n; i++) {
		struct m_ival *v = &map->v[i], right;

		if (v->end <= start || v->start >= end)
			continue;
		right = *v;
		if (v->start < start) {
			v->end = start;		/* the left piece stays */
		} else {
			*v = map->v[--n];	/* gone; look at the moved one */
			map->n = n;
			i--;
		}
		if (right.end > end) {
			right.start = end;
			*PUSH(map->v, map->n, map->cap) = right;
		}
		n = map->n;
	}
}

static const struct m_ival *m_find(const struct m_map *map, __u64 addr)
{
	const struct m_ival *found = NULL;

	for (size_t i = 0; map && i < map->n; i++) {
		if (addr < map->v[i].start || addr >= map->v[i].end)
			continue;
		if (found)
			fz_fail("model: two intervals hold 0x%llx", (unsigned long long)addr);
		found = &map->v[i];
	}
	return found;
}

static void m_add_sym(struct model *m, size_t obj, __u64 addr, const char *name)
{
	struct m_obj *o = &m->objs[obj];

	*PUSH(o->syms, o->nsyms, o->syms_cap) = (struct m_sym){ .addr = addr, .name = name };
}

static void m_map_in(struct model *m, const struct pmclog_map_in *mi)
{
	size_t obj = m_obj(m, (const char *)mi->path, m_kind(mi), NULL, 0);
	struct m_map *map;
	struct m_ival *v;
	size_t n = 0;

	if (mi->end <= mi->start) {
		m->st.maps_bad++;
		return;
	}
	map = m_map(m, mi->pid);
	m_remove(map, mi->start, mi->end);
	v = PUSH(map->v, map->n, map->cap);
	*v = (struct m_ival){
		.start = mi->start, .end = mi->end, .mstart = mi->start,
		.mbase = mi->offset, .obj = obj,
	};
	/* Waiting KSYMBOLs are the recorder's, for START's maps alone. */
	if (mi->pid != PMCLOG_PID_KERNEL || !(mi->flags & PMCLOG_MAP_F_INITIAL))
		return;
	/* So are waiting BUILDIDs; each in turn, before the symbols. */
	for (size_t i = 0; i < m->npbids; i++) {
		struct m_pending_bid *p = &m->pbids[i];

		if (p->start == mi->start)
			m_rebuild(m, v, p->bid, p->size);
		else
			m->pbids[n++] = *p;
	}
	m->npbids = n;
	obj = v->obj;
	n = 0;
	*PUSH(m->initial, m->ninitial, m->initial_cap) = (struct m_initial){
		.start = mi->start, .end = mi->end, .offset = mi->offset, .obj = obj,
	};
	for (size_t i = 0; i < m->npending; i++) {
		struct m_pending *p = &m->pending[i];

		if (p->start >= mi->start && p->start < mi->end)
			m_add_sym(m, obj, p->start - mi->start + mi->offset, p->name);
		else
			m->pending[n++] = *p;
	}
	m->npending = n;
}

static void m_map_out(struct model *m, const struct pmclog_map_out *mo)
{
	if (mo->end <= mo->start) {
		m->st.maps_bad++;
		return;
	}
	m_remove(m_map(m, mo->pid), mo->start, mo->end);
}

static void m_ksymbol(struct model *m, const struct pmclog_ksymbol *k, bool late)
{
	const struct m_ival *v = m_find(m_map(m, k->pid), k->start);

	/* The recorder's, late: START's kernel, the first map of it that held it. */
	if (late && (k->header.flags & PMCLOG_HF_SYNTH)) {
		for (size_t i = 0; i < m->ninitial; i++) {
			const struct m_initial *im = &m->initial[i];

			if (k->start >= im->start && k->start < im->end) {
				m_add_sym(m, im->obj, k->start - im->start + im->offset,
					  (const char *)k->name);
				return;
			}
		}
		v = NULL;
	}
	if (v) {
		m_add_sym(m, v->obj, k->start - v->mstart + v->mbase, (const char *)k->name);
		return;
	}
	*PUSH(m->pending, m->npending, m->pending_cap) = (struct m_pending){
		.start = k->start, .name = (const char *)k->name,
	};
}

static void m_buildid(struct model *m, const struct pmclog_buildid *b, bool late)
{
	struct m_map *map = m_map(m, b->pid);

	/* The recorder's, late: in place, on START's kernel map at its start. */
	if (late && (b->header.flags & PMCLOG_HF_SYNTH) && b->pid == PMCLOG_PID_KERNEL) {
		for (size_t i = 0; i < m->ninitial; i++) {
			struct m_obj *o = &m->objs[m->initial[i].obj];

			if (m->initial[i].start != b->start)
				continue;
			o->bid_size = b->size;
			memcpy(o->bid, b->build_id, b->size);
			return;
		}
		m->st.buildids_unmapped++;
		return;
	}
	for (size_t i = 0; i < map->n; i++) {
		if (map->v[i].start == b->start) {
			m_rebuild(m, &map->v[i], b->build_id, b->size);
			return;
		}
	}
	if (!(b->header.flags & PMCLOG_HF_SYNTH) || b->pid != PMCLOG_PID_KERNEL) {
		m->st.buildids_unmapped++;
		return;
	}
	*PUSH(m->pbids, m->npbids, m->pbids_cap) = (struct m_pending_bid){
		.start = b->start, .bid = b->build_id, .size = b->size,
	};
}

/*
 * Whether record i is a CALLCHAIN that goes with the PCSAMPLE just before
 * it in the log: the same cpu, time, PMC, mode and thread.
 */
static bool m_paired_cc(const struct model *m, size_t i)
{
	const struct pmclog_callchain *c;
	const struct pmclog_pcsample *s;

	if (!i || i >= m->nrecs || m->recs[i].h->type != PMCLOG_TYPE_CALLCHAIN ||
	    m->recs[i - 1].h->type != PMCLOG_TYPE_PCSAMPLE)
		return false;
	c = (const void *)m->recs[i].h;
	s = (const void *)m->recs[i - 1].h;
	return s->header.cpu == c->header.cpu && s->header.tstamp == c->header.tstamp &&
	       s->header.pmcid == c->header.pmcid &&
	       (s->header.flags & PMCLOG_HF_USER) == (c->header.flags & PMCLOG_HF_USER) &&
	       s->pid == c->pid && s->tid == c->tid;
}

static void m_exec(struct model *m, const struct pmclog_procexec *e)
{
	size_t i;

	for (i = 0; i < m->ncomms && m->comms[i].pid != e->pid; i++)
		;
	if (i == m->ncomms)
		PUSH(m->comms, m->ncomms, m->comms_cap);
	m->comms[i] = (struct m_comm){ .pid = e->pid, .path = (const char *)e->path };
	m_map(m, e->pid)->n = 0;
}

/* The child's maps become a copy of the parent's, as they are now. */
static void m_fork(struct model *m, const struct pmclog_procfork *f)
{
	struct m_map *parent, *child;
	size_t n;

	if (f->ppid == f->pid)
		return;		/* corrupt: changes nothing (pmclog_internal.h: the maps) */
	m_map(m, f->pid);	/* both made before a pointer is kept */
	parent = m_map(m, f->ppid);
	child = m_map(m, f->pid);
	n = parent->n;
	child->n = 0;
	for (size_t i = 0; i < n; i++)
		*PUSH(child->v, child->n, child->cap) = parent->v[i];
}

/* The expected place of the sample s. */
static void m_sample(struct model *m, const struct pmclog_pcsample *s,
		     const struct pmclog_sample_loc *got)
{
	bool user = s->header.flags & PMCLOG_HF_USER;
	const struct m_ival *v;

	m->st.samples++;
	if (user)
		m->st.samples_user++;
	else
		m->st.samples_kernel++;
	FZ_CHECK(got->tstamp == s->header.tstamp && got->pc == s->pc &&
		 got->pid == s->pid && got->tid == s->tid &&
		 got->cpu == s->header.cpu && got->user == user,
		 "sample out of order or garbled: got pc 0x%llx ts %llu, expected pc 0x%llx ts %llu",
		 (unsigned long long)got->pc, (unsigned long long)got->tstamp,
		 (unsigned long long)s->pc, (unsigned long long)s->header.tstamp);
	if (!user && !s->pc) {
		m->st.samples_hidden++;
		FZ_CHECK(got->hidden && !got->obj, "pc 0 kernel sample not hidden");
		return;
	}
	FZ_CHECK(!got->hidden, "sample at 0x%llx hidden", (unsigned long long)s->pc);
	v = m_find(m_map(m, user ? s->pid : PMCLOG_PID_KERNEL), s->pc);
	if (!v) {
		m->st.samples_no_object++;
		FZ_CHECK(!got->obj, "pid %u pc 0x%llx: in %s, expected in no map",
			 s->pid, (unsigned long long)s->pc, got->obj->path);
		return;
	}
	FZ_CHECK(got->obj, "pid %u pc 0x%llx: in no map, expected in %s",
		 s->pid, (unsigned long long)s->pc, m->objs[v->obj].path);
	FZ_CHECK(!strcmp(got->obj->path, m->objs[v->obj].path) &&
		 got->obj->kind == m->objs[v->obj].kind &&
		 got->obj->build_id_size == m->objs[v->obj].bid_size &&
		 !memcmp(got->obj->build_id, m->objs[v->obj].bid,
			 got->obj->build_id_size),
		 "pid %u pc 0x%llx: in %s, expected in %s", s->pid,
		 (unsigned long long)s->pc, got->obj->path, m->objs[v->obj].path);
	FZ_CHECK(got->objaddr == s->pc - v->mstart + v->mbase,
		 "pid %u pc 0x%llx in %s: object address 0x%llx, expected 0x%llx",
		 s->pid, (unsigned long long)s->pc, got->obj->path,
		 (unsigned long long)got->objaddr,
		 (unsigned long long)(s->pc - v->mstart + v->mbase));
}

/* Replay one record of the model (not a sample: m_sample does those). */
static void m_replay(struct model *m, size_t i, bool late)
{
	const struct pmclog_header *h = m->recs[i].h;

	m->st.records[h->type <= PMCLOG_TYPE_MAX_KNOWN ? h->type :
		      PMCLOG_REPLAY_TYPES - 1]++;
	if (late && !((h->type == PMCLOG_TYPE_KSYMBOL || h->type == PMCLOG_TYPE_BUILDID) &&
		      (h->flags & PMCLOG_HF_SYNTH)))
		m->st.records_late++;
	switch (h->type) {
	case PMCLOG_TYPE_INITIALIZE:
		m->st.abi_version = ((const struct pmclog_initialize *)h)->abi_version;
		m->st.start_tstamp = h->tstamp;
		break;
	case PMCLOG_TYPE_MAP_IN:
		m_map_in(m, (const void *)h);
		break;
	case PMCLOG_TYPE_MAP_OUT:
		m_map_out(m, (const void *)h);
		break;
	case PMCLOG_TYPE_KSYMBOL:
		m_ksymbol(m, (const void *)h, late);
		break;
	case PMCLOG_TYPE_BUILDID:
		m_buildid(m, (const void *)h, late);
		break;
	case PMCLOG_TYPE_CALLCHAIN:
		if (!m_paired_cc(m, i))
			m->st.callchains_orphan++;
		break;
	case PMCLOG_TYPE_PROCEXEC:
		m_exec(m, (const void *)h);
		break;
	case PMCLOG_TYPE_PROCFORK:
		m_fork(m, (const void *)h);
		break;
	case PMCLOG_TYPE_DROPNOTIFY:
		m->st.drop_samples += ((const struct pmclog_dropnotify *)h)->samples;
		m->st.drop_records += ((const struct pmclog_dropnotify *)h)->records;
		break;
	case PMCLOG_TYPE_CLOSELOG:
		m->st.closelog = true;
		m->st.close_samples = ((const struct pmclog_closelog *)h)->samples;
		break;
	default:
		break;
	}
}

/* Replay the model up to its next sample, which must be s. */
static int on_sample(void *ctx, const struct pmclog_sample_loc *got)
{
	struct model *m = ctx;
	const struct m_ord *o;

	for (; m->next < m->nord; m->next++) {
		o = &m->ord[m->next];
		if (m->recs[o->rec].h->type == PMCLOG_TYPE_PCSAMPLE)
			break;
		m_replay(m, o->rec, o->late);
	}
	FZ_CHECK(m->next < m->nord, "a sample (pc 0x%llx) the model has not taken yet",
		 (unsigned long long)got->pc);
	o = &m->ord[m->next++];
	m->st.records[PMCLOG_TYPE_PCSAMPLE]++;
	if (o->late)
		m->st.records_late++;
	m_sample(m, (const void *)m->recs[o->rec].h, got);
	/* Its stack: the next record in the log, when it is its CALLCHAIN. */
	if (m_paired_cc(m, o->rec + 1))
		m->st.callchains++;
	FZ_CHECK(!got->frames == !m_paired_cc(m, o->rec + 1),
		 "sample at ts %llu: %s stack, expected %s",
		 (unsigned long long)got->tstamp, got->frames ? "a" : "no",
		 m_paired_cc(m, o->rec + 1) ? "one" : "none");
	return 0;
}

/* ------------------------------------------------------------------ */
/* What is compared at the end                                        */

static void check_stats(const struct model *m)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(m->rp);

	for (unsigned int t = 0; t < PMCLOG_REPLAY_TYPES; t++)
		FZ_CHECK(st->records[t] == m->st.records[t],
			 "%llu records of type %u counted, expected %llu",
			 (unsigned long long)st->records[t], t,
			 (unsigned long long)m->st.records[t]);
	FZ_CHECK(st->samples == m->st.samples &&
		 st->samples_user == m->st.samples_user &&
		 st->samples_kernel == m->st.samples_kernel &&
		 st->samples_hidden == m->st.samples_hidden &&
		 st->samples_no_object == m->st.samples_no_object,
		 "sample counts %llu/%llu/%llu/%llu/%llu, expected %llu/%llu/%llu/%llu/%llu",
		 (unsigned long long)st->samples, (unsigned long long)st->samples_user,
		 (unsigned long long)st->samples_kernel,
		 (unsigned long long)st->samples_hidden,
		 (unsigned long long)st->samples_no_object,
		 (unsigned long long)m->st.samples, (unsigned long long)m->st.samples_user,
		 (unsigned long long)m->st.samples_kernel,
		 (unsigned long long)m->st.samples_hidden,
		 (unsigned long long)m->st.samples_no_object);
	FZ_CHECK(st->drop_samples == m->st.drop_samples &&
		 st->drop_records == m->st.drop_records, "drop counts differ");
	FZ_CHECK(st->closelog == m->st.closelog &&
		 (!st->closelog || st->close_samples == m->st.close_samples),
		 "CLOSELOG differs");
	FZ_CHECK(st->maps_bad == m->st.maps_bad, "%llu bad maps, expected %llu",
		 (unsigned long long)st->maps_bad, (unsigned long long)m->st.maps_bad);
	FZ_CHECK(st->ksymbols_unmapped == m->npending,
		 "%llu KSYMBOLs unmapped, expected %zu",
		 (unsigned long long)st->ksymbols_unmapped, m->npending);
	FZ_CHECK(st->buildids_unmapped == m->st.buildids_unmapped + m->npbids,
		 "%llu BUILDIDs unmapped, expected %llu",
		 (unsigned long long)st->buildids_unmapped,
		 (unsigned long long)(m->st.buildids_unmapped + m->npbids));
	FZ_CHECK(st->callchains == m->st.callchains &&
		 st->callchains_orphan == m->st.callchains_orphan,
		 "%llu/%llu CALLCHAINs paired/orphan, expected %llu/%llu",
		 (unsigned long long)st->callchains,
		 (unsigned long long)st->callchains_orphan,
		 (unsigned long long)m->st.callchains,
		 (unsigned long long)m->st.callchains_orphan);
	FZ_CHECK(st->abi_version == m->st.abi_version &&
		 st->start_tstamp == m->st.start_tstamp, "INITIALIZE's fields differ");
	FZ_CHECK(st->records_late == m->st.records_late,
		 "%llu records late, expected %llu", (unsigned long long)st->records_late,
		 (unsigned long long)m->st.records_late);
	FZ_CHECK(st->sort_window_ns == m->window, "sort window %llu, expected %llu",
		 (unsigned long long)st->sort_window_ns, (unsigned long long)m->window);
}

static bool m_has_sym(const struct m_obj *o, __u64 addr, const char *name)
{
	for (size_t i = 0; i < o->nsyms; i++)
		if (o->syms[i].addr == addr && !strcmp(o->syms[i].name, name))
			return true;
	return false;
}

static void check_objects(const struct model *m)
{
	size_t n = pmclog_replay__nobjects(m->rp);

	FZ_CHECK(n == m->nobjs, "%zu objects, expected %zu", n, m->nobjs);
	for (size_t i = 0; i < n; i++) {
		const struct pmclog_object *o = pmclog_replay__object(m->rp, i);
		const struct m_obj *mo = &m->objs[i];
		size_t nsyms = o->logsyms ? pmclog_symtab__count(o->logsyms) : 0, distinct = 0;

		/* Made in the same order as the model's. */
		FZ_CHECK(!strcmp(o->path, mo->path) && o->kind == mo->kind &&
			 o->build_id_size == mo->bid_size &&
			 !memcmp(o->build_id, mo->bid, mo->bid_size),
			 "object %zu: %s (kind %d), expected %s (kind %d)", i, o->path,
			 o->kind, mo->path, mo->kind);
		FZ_CHECK(!o->logsyms == !mo->nsyms, "%s: KSYMBOL table %s, expected %zu symbols",
			 o->path, o->logsyms ? "made" : "missing", mo->nsyms);
		if (!o->logsyms)
			continue;
		fz_check_symtab(o->logsyms, o->path);
		for (size_t k = 0; k < nsyms; k++) {
			const struct pmclog_sym *s = pmclog_symtab__at(o->logsyms, k);

			FZ_CHECK(m_has_sym(mo, s->addr, s->name),
				 "%s: symbol %s at 0x%llx from no KSYMBOL", o->path,
				 s->name, (unsigned long long)s->addr);
		}
		for (size_t k = 0; k < mo->nsyms; k++) {
			bool first = true;

			for (size_t j = 0; j < k && first; j++)
				first = mo->syms[j].addr != mo->syms[k].addr;
			distinct += first;
		}
		FZ_CHECK(nsyms == distinct, "%s: %zu symbols, expected %zu addresses",
			 o->path, nsyms, distinct);
	}
}

static void check_comms(const struct model *m)
{
	for (size_t i = 0; i < m->ncomms; i++) {
		const char *c = pmclog_replay__comm(m->rp, m->comms[i].pid);

		FZ_CHECK(c && !strcmp(c, m->comms[i].path), "pid %u: command %s, expected %s",
			 m->comms[i].pid, c ? c : "(none)", m->comms[i].path);
	}
}

static void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nrecs; i++)
		free((void *)m->recs[i].h);
	for (size_t i = 0; i < m->nmaps; i++)
		free(m->maps[i].v);
	for (size_t i = 0; i < m->nobjs; i++)
		free(m->objs[i].syms);
	free(m->recs);
	free(m->wait);
	free(m->ord);
	free(m->initial);
	free(m->maps);
	free(m->objs);
	free(m->pending);
	free(m->pbids);
	free(m->comms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmclog_strings *strings = pmclog_strings__new();
	struct model m = { 0 };
	int ret;

	static const __u64 windows[] = { PMCLOG_REPLAY_WINDOW_NS, 0, 1000 };

	if (!strings || !(m.rp = pmclog_replay__new(strings)))
		fz_fail("out of memory");
	m.window = windows[size % 3];
	if (m.window != PMCLOG_REPLAY_WINDOW_NS)
		FZ_CHECK(!pmclog_replay__set_window(m.rp, m.window), "set_window failed");
	if (size / 3 % 2)
		FZ_CHECK(!pmclog_replay__stream(m.rp, on_sample, &m), "stream failed");
	fz_read_log(data, size, model_add, &m);
	/* What the window holds at the end, in order: run() flushes it. */
	while (m_take_oldest(&m, 0, true))
		;
	ret = pmclog_replay__run(m.rp, on_sample, &m);
	FZ_CHECK(!ret, "pmclog_replay__run: %d", ret);
	for (; m.next < m.nord; m.next++) {
		const struct m_ord *o = &m.ord[m.next];

		FZ_CHECK(m.recs[o->rec].h->type != PMCLOG_TYPE_PCSAMPLE,
			 "a sample at position %zu never replayed", o->rec);
		m_replay(&m, o->rec, o->late);
	}
	check_stats(&m);
	check_objects(&m);
	check_comms(&m);
	model_free(&m);
	pmclog_replay__free(m.rp);
	pmclog_strings__free(strings);
	return 0;
}
