// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog replay: sort a log's records by time and replay its maps.
 * See pmclog_replay.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_array.h"
#include "pmclog_maps.h"
#include "pmclog_replay.h"

/* A record in the arena: where it is, and its sort key. */
struct rec_ref {
	__u64 tstamp;
	__u64 seq;	/* position in the log */
	size_t off;	/* in the arena */
};

struct pending_sym {
	__u64 start;
	__u64 size;
	const char *name;
};

struct comm {
	__u32 pid;
	const char *path;
};

struct pmclog_replay {
	struct pmclog_strings *strings;
	unsigned char *arena;
	size_t arena_len, arena_cap;
	struct rec_ref *refs;
	size_t nrefs, refs_cap;

	struct pmclog_procmaps *maps;
	struct pmclog_object **objs;
	size_t nobjs, objs_cap;
	struct pending_sym *pending;	/* KSYMBOLs waiting for their MAP_IN */
	size_t npending, pending_cap;
	struct comm *comms;
	size_t ncomms, comms_cap;
	struct pmclog_replay_stats stats;
};

struct pmclog_replay *pmclog_replay__new(struct pmclog_strings *strings)
{
	struct pmclog_replay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->strings = strings;
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
	free(r->pending);
	free(r->comms);
	pmclog_procmaps__free(r->maps);
	free(r);
}

int pmclog_replay__add(struct pmclog_replay *r, const struct pmclog_record *rec)
{
	if (PMCLOG_GROW(r->arena, r->arena_cap, r->arena_len + rec->length) ||
	    PMCLOG_GROW(r->refs, r->refs_cap, r->nrefs + 1))
		return -(errno = ENOMEM);
	memcpy(r->arena + r->arena_len, rec->rec.header, rec->length);
	r->refs[r->nrefs] = (struct rec_ref){
		.tstamp = rec->tstamp, .seq = r->nrefs, .off = r->arena_len,
	};
	r->nrefs++;
	r->arena_len += rec->length;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Objects                                                            */

static struct pmclog_object *object_get(struct pmclog_replay *r,
					const char *path,
					enum pmclog_obj_kind kind)
{
	const char *ipath = pmclog_strings__intern(r->strings, path);
	struct pmclog_object *o;

	if (!ipath)
		return NULL;
	for (size_t i = r->nobjs; i-- > 0;)
		if (r->objs[i]->path == ipath && r->objs[i]->kind == kind)
			return r->objs[i];
	if (PMCLOG_GROW(r->objs, r->objs_cap, r->nobjs + 1))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = ipath;
	o->kind = kind;
	r->objs[r->nobjs++] = o;
	return o;
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

static int on_map_in(struct pmclog_replay *r, const struct pmclog_map_in *m)
{
	const char *path = (const char *)m->path;
	struct pmclog_object *o = object_get(r, path, map_kind(m, path));
	struct pmclog_addrmap *am;
	const struct pmclog_map *e;

	if (!o)
		return -ENOMEM;
	if (m->end <= m->start) {
		r->stats.maps_bad++;
		return 0;
	}
	am = pmclog_procmaps__get(r->maps, m->pid, true);
	if (!am || pmclog_addrmap__insert(am, m->start, m->end, m->offset, o))
		return -ENOMEM;
	if (m->offset + (m->end - m->start) > o->limit)
		o->limit = m->offset + (m->end - m->start);
	/*
	 * Only START's maps adopt waiting KSYMBOLs: those are the recorder's
	 * (the kernel as /proc/kallsyms showed it at START, stamped with
	 * INITIALIZE's time, so sorted before START's MAP_INs).  A module
	 * loaded later may sit where one of them pointed (freed init text,
	 * an unloaded module): its own KSYMBOLs follow its MAP_IN.
	 */
	if (m->pid != PMCLOG_PID_KERNEL || !(m->flags & PMCLOG_MAP_F_INITIAL) ||
	    !r->npending)
		return 0;
	e = pmclog_addrmap__find(am, m->start);
	return e ? adopt_pending(r, e) : 0;
}

static int on_map_out(struct pmclog_replay *r, const struct pmclog_map_out *m)
{
	struct pmclog_addrmap *am = pmclog_procmaps__get(r->maps, m->pid, false);

	if (m->end <= m->start) {
		r->stats.maps_bad++;
		return 0;
	}
	return am ? pmclog_addrmap__remove(am, m->start, m->end) : 0;
}

static int on_ksymbol(struct pmclog_replay *r, const struct pmclog_ksymbol *k)
{
	struct pmclog_addrmap *am = pmclog_procmaps__get(r->maps, k->pid, false);
	const struct pmclog_map *e = am ? pmclog_addrmap__find(am, k->start) : NULL;
	const char *name = pmclog_strings__intern(r->strings, (const char *)k->name);

	if (!name)
		return -ENOMEM;
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

static int on_exec(struct pmclog_replay *r, const struct pmclog_procexec *e)
{
	const char *path = pmclog_strings__intern(r->strings, (const char *)e->path);
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

static int on_sample(struct pmclog_replay *r, const struct pmclog_pcsample *s,
		     pmclog_replay_sample_fn fn, void *ctx)
{
	struct pmclog_sample_loc loc = {
		.tstamp = s->header.tstamp, .pc = s->pc, .pid = s->pid,
		.tid = s->tid, .cpu = s->header.cpu,
		.user = s->header.flags & PMCLOG_HF_USER,
	};
	const struct pmclog_addrmap *am;
	const struct pmclog_map *e = NULL;

	r->stats.samples++;
	if (loc.user)
		r->stats.samples_user++;
	else
		r->stats.samples_kernel++;
	if (!loc.user && !loc.pc) {
		loc.hidden = true;
		r->stats.samples_hidden++;
		return fn ? fn(ctx, &loc) : 0;
	}
	am = pmclog_procmaps__get(r->maps, loc.user ? loc.pid : PMCLOG_PID_KERNEL,
				  false);
	if (am)
		e = pmclog_addrmap__find(am, loc.pc);
	if (e) {
		loc.obj = e->obj;
		loc.objaddr = loc.pc - e->start + e->base;
	} else {
		r->stats.samples_no_object++;
	}
	return fn ? fn(ctx, &loc) : 0;
}

static int on_header_records(struct pmclog_replay *r,
			     const struct pmclog_header *h)
{
	const struct pmclog_initialize *in = (const void *)h;
	const struct pmclog_pmcallocate *pa = (const void *)h;
	const struct pmclog_closelog *cl = (const void *)h;
	const struct pmclog_dropnotify *dn = (const void *)h;
	const struct pmclog_throttle *th = (const void *)h;
	unsigned int why = 0;

	switch (h->type) {
	case PMCLOG_TYPE_INITIALIZE:
		r->stats.abi_version = in->abi_version;
		r->stats.start_tstamp = h->tstamp;
		return 0;
	case PMCLOG_TYPE_PMCALLOCATE:
		r->stats.event = pmclog_strings__intern(r->strings, pa->name);
		r->stats.period = pa->period;
		r->stats.freq = pa->flags & PMCLOG_PMC_F_FREQ;
		return r->stats.event ? 0 : -ENOMEM;
	case PMCLOG_TYPE_CLOSELOG:
		r->stats.closelog = true;
		r->stats.close_samples = cl->samples;
		r->stats.close_samples_dropped = cl->samples_dropped;
		r->stats.close_records_dropped = cl->records_dropped;
		return 0;
	case PMCLOG_TYPE_DROPNOTIFY:
		r->stats.drop_samples += dn->samples;
		r->stats.drop_records += dn->records;
		return 0;
	case PMCLOG_TYPE_THROTTLE:
	case PMCLOG_TYPE_UNTHROTTLE:
		if (th->reason < PMCLOG_REPLAY_REASONS)
			why = th->reason;
		if (h->type == PMCLOG_TYPE_THROTTLE) {
			r->stats.throttles[why] += th->count;
		} else {
			r->stats.unthrottles[why] += th->count;
			r->stats.stopped_ns[why] += th->stopped_ns;
		}
		return 0;
	default:
		return 0;	/* types of a newer minor version */
	}
}

static int replay_one(struct pmclog_replay *r, const struct pmclog_header *h,
		      pmclog_replay_sample_fn fn, void *ctx)
{
	const struct pmclog_procfork *pf = (const void *)h;
	const struct pmclog_procexit *px = (const void *)h;

	r->stats.records[h->type <= PMCLOG_TYPE_MAX_KNOWN ? h->type :
			 PMCLOG_REPLAY_TYPES - 1]++;
	switch (h->type) {
	case PMCLOG_TYPE_PCSAMPLE:
		return on_sample(r, (const void *)h, fn, ctx);
	case PMCLOG_TYPE_MAP_IN:
		return on_map_in(r, (const void *)h);
	case PMCLOG_TYPE_MAP_OUT:
		return on_map_out(r, (const void *)h);
	case PMCLOG_TYPE_KSYMBOL:
		return on_ksymbol(r, (const void *)h);
	case PMCLOG_TYPE_PROCEXEC:
		return on_exec(r, (const void *)h);
	case PMCLOG_TYPE_PROCFORK:
		if (h->flags & PMCLOG_HF_UNFOLLOWED)
			r->stats.procs_unfollowed++;
		return pmclog_procmaps__fork(r->maps, pf->ppid, pf->pid);
	case PMCLOG_TYPE_PROCEXIT:
		pmclog_procmaps__exit(r->maps, px->pid);
		return 0;
	default:
		return on_header_records(r, h);
	}
}

static int ref_cmp(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->tstamp != y->tstamp)
		return x->tstamp < y->tstamp ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pmclog_replay__run(struct pmclog_replay *r, pmclog_replay_sample_fn fn,
		       void *ctx)
{
	int ret = 0;

	if (r->nrefs)	/* no records, no array: qsort(NULL) is UB */
		qsort(r->refs, r->nrefs, sizeof(*r->refs), ref_cmp);
	for (size_t i = 0; i < r->nrefs && !ret; i++)
		ret = replay_one(r, (const void *)(r->arena + r->refs[i].off),
				 fn, ctx);
	r->stats.ksymbols_unmapped = r->npending;
	for (size_t i = 0; i < r->nobjs; i++)
		if (r->objs[i]->logsyms)
			pmclog_symtab__finish(r->objs[i]->logsyms, r->objs[i]->limit);
	return ret;
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
