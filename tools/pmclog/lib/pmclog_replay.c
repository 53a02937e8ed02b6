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

/* A record in the arena: where it is, and its sort key. */
struct rec_ref {
	__u64 tstamp;
	__u64 seq;	/* position in the log */
	size_t off;	/* in the arena */
	__u64 offset;	/* in the log */
	size_t cc_off;	/* PCSAMPLE: its CALLCHAIN in the arena, or NO_CC */
	bool paired;	/* CALLCHAIN: its PCSAMPLE holds it */
};

#define NO_CC	SIZE_MAX

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

struct comm {
	__u32 pid;
	const char *path;
};

struct pmclog_replay {
	struct pmclog_tool tool;	/* the records, in time order */
	pmclog_replay_sample_fn sample_fn;	/* during pmclog_replay__run() */
	void *sample_ctx;
	pmclog_replay_record_fn record_fn;	/* the other records, applied */
	void *record_ctx;
	pmclog_replay_record_fn pre_fn;		/* every record, before it is */
	void *pre_ctx;
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
	struct pending_bid *pending_bids;
	size_t npending_bids, pending_bids_cap;
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
	free(r->pending_bids);
	free(r->comms);
	free(r->pmcs);
	free(r->frames);
	pmclog_procmaps__free(r->maps);
	free(r);
}

/*
 * Whether the CALLCHAIN cc is the stack of the record of ref, the last
 * one added: a PCSAMPLE of the same cpu, time, PMC, mode and thread
 * that has none yet.
 */
static bool callchain_of(const struct pmclog_replay *r, const struct rec_ref *ref,
			 const struct pmclog_record *cc)
{
	const struct pmclog_pcsample *s = (const void *)(r->arena + ref->off);
	const struct pmclog_callchain *c = cc->rec.callchain;

	return s->header.type == PMCLOG_TYPE_PCSAMPLE && ref->cc_off == NO_CC &&
	       s->header.cpu == cc->cpu && s->header.tstamp == cc->tstamp &&
	       s->header.pmcid == cc->pmcid &&
	       (s->header.flags & PMCLOG_HF_USER) == (cc->flags & PMCLOG_HF_USER) &&
	       s->pid == c->pid && s->tid == c->tid;
}

int pmclog_replay__add(struct pmclog_replay *r, const struct pmclog_record *rec)
{
	bool paired;

	if (PMCLOG_GROW(r->arena, r->arena_cap, r->arena_len + rec->length) ||
	    PMCLOG_GROW(r->refs, r->refs_cap, r->nrefs + 1))
		return -(errno = ENOMEM);
	/* Before the sort: a CALLCHAIN follows its PCSAMPLE in the log. */
	paired = rec->type == PMCLOG_TYPE_CALLCHAIN && r->nrefs &&
		 callchain_of(r, &r->refs[r->nrefs - 1], rec);
	if (paired)
		r->refs[r->nrefs - 1].cc_off = r->arena_len;
	memcpy(r->arena + r->arena_len, rec->rec.header, rec->length);
	r->refs[r->nrefs] = (struct rec_ref){
		.tstamp = rec->tstamp, .seq = r->nrefs, .off = r->arena_len,
		.offset = rec->offset, .cc_off = NO_CC, .paired = paired,
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
	return !ret && r->npending ? adopt_pending(r, e) : ret;
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
	r->sample_fn = fn;
	r->sample_ctx = ctx;
	for (size_t i = 0; i < r->nrefs && !ret; i++) {
		struct pmclog_record rec;

		pmclog_record__describe(&rec, r->arena + r->refs[i].off,
					r->refs[i].offset);
		r->cur_cc = r->refs[i].cc_off == NO_CC ? NULL :
			    (const void *)(r->arena + r->refs[i].cc_off);
		r->cur_cc_paired = r->refs[i].paired;
		r->stats.end_tstamp = rec.tstamp;
		if (r->pre_fn)
			ret = r->pre_fn(r->pre_ctx, &rec);
		if (!ret)
			ret = pmclog_tool__deliver(&r->tool, &rec);
		if (!ret && r->record_fn && rec.type != PMCLOG_TYPE_PCSAMPLE &&
		    rec.type != PMCLOG_TYPE_CALLCHAIN)
			ret = r->record_fn(r->record_ctx, &rec);
	}
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
