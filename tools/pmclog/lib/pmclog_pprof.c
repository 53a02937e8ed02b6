// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog pprof: samples as profile.proto.  See pmclog_pprof.h.
 *
 * While the replay runs, each sample's frames are kept as distinct
 * locations (map, address, object, object address, mode) and its stack
 * as their indices; identical (PMC, pid, tid, stack)s are counted once.
 * Names wait for the end (the log's KSYMBOLs complete): finish() names
 * each location once and makes the functions.  write() lays the tables
 * out as the protobuf-c structures generated from the vendored
 * tools/pmclog/proto/profile.proto, packs them with protobuf-c and
 * compresses them with zlib.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pmclog_internal.h"
#include "pmclog_pprof.h"
#include "profile.pb-c.h"

#define NONE	UINT32_MAX

struct pp_map {
	struct pmclog_object *obj;
	__u64 start, end, base;
	const char *filename;	/* interned, at finish */
	bool unnamed;		/* a location of it has no function */
	bool unlined;		/* ... or no line number */
};

struct pp_loc {
	__u32 map;		/* NONE: in no map */
	__u64 address;
	struct pmclog_object *obj;
	__u64 objaddr;
	__u8 flags;		/* AE_USER, AE_HIDDEN */
	__u32 func;		/* NONE: no function known, at finish */
	__s64 line;
};

struct pp_func {
	const char *name, *system_name, *filename;	/* interned; NULL: "" */
};

struct pp_stack {
	__u64 hash;
	__u64 count;
	size_t off;
	__u32 n;
	__u32 pid, tid, pmcid;
};

/* Open addressing over indices + 1 (0: free). */
struct pp_hash {
	__u32 *slots;
	size_t cap, n;
};

struct pmclog_pprof {
	struct pmclog_report *rep;
	struct pp_map *maps;
	size_t nmaps, maps_cap;
	struct pp_hash map_hash;
	struct pp_loc *locs;
	size_t nlocs, locs_cap;
	struct pp_hash loc_hash;
	__u32 *arena;
	size_t arena_len, arena_cap;
	struct pp_stack *stacks;
	size_t nstacks, stacks_cap;
	struct pp_hash stack_hash;
	struct pp_func *funcs;
	size_t nfuncs, funcs_cap;
	struct pp_hash func_hash;
	__u64 samples;
	bool finished;
};

static __u64 mix(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static __u64 mix_ptr(__u64 h, const void *p)
{
	return mix(h, (__u64)(uintptr_t)p);
}

typedef bool (*pp_same_fn)(const struct pmclog_pprof *, __u32, const void *);
typedef __u64 (*pp_rehash_fn)(const struct pmclog_pprof *, __u32);

static __u32 *pp_slot(const struct pp_hash *ih, __u64 h, pp_same_fn same,
		      const struct pmclog_pprof *pp, const void *key)
{
	size_t i = (size_t)(h ^ (h >> 31)) & (ih->cap - 1);

	while (ih->slots[i] && !same(pp, ih->slots[i] - 1, key))
		i = (i + 1) & (ih->cap - 1);
	return &ih->slots[i];
}

/* Room for one more entry; rehash(i) gives entry i's hash. */
static int pp_reserve(struct pp_hash *ih, const struct pmclog_pprof *pp, pp_rehash_fn rehash)
{
	struct pp_hash grown;

	if ((ih->n + 1) * 2 <= ih->cap)
		return 0;
	grown.cap = ih->cap ? ih->cap * 2 : 256;
	grown.n = ih->n;
	grown.slots = calloc(grown.cap, sizeof(*grown.slots));
	if (!grown.slots)
		return -ENOMEM;
	for (size_t i = 0; i < ih->cap; i++) {
		__u32 e = ih->slots[i];
		__u64 h;
		size_t j;

		if (!e)
			continue;
		h = rehash(pp, e - 1);
		j = (size_t)(h ^ (h >> 31)) & (grown.cap - 1);
		while (grown.slots[j])
			j = (j + 1) & (grown.cap - 1);
		grown.slots[j] = e;
	}
	free(ih->slots);
	*ih = grown;
	return 0;
}

/*
 * The index of the entry that same() says is key (hash h), or NONE: then
 * *slot is where a new one goes (pp_reserve() made room).
 */
static __u32 pp_find(struct pp_hash *ih, __u64 h, pp_same_fn same, pp_rehash_fn rehash,
		     const struct pmclog_pprof *pp, const void *key, __u32 **slot)
{
	*slot = NULL;
	if (pp_reserve(ih, pp, rehash))
		return NONE;
	*slot = pp_slot(ih, h, same, pp, key);
	return **slot ? **slot - 1 : NONE;
}

/* ------------------------------------------------------------------ */
/* Maps, locations and stacks, as the replay hands them              */

static __u64 map_hash(const struct pp_map *m)
{
	return mix(mix(mix(mix_ptr(0, m->obj), m->start), m->end), m->base);
}

static __u64 map_rehash(const struct pmclog_pprof *pp, __u32 i)
{
	return map_hash(&pp->maps[i]);
}

static bool map_same(const struct pmclog_pprof *pp, __u32 i, const void *key)
{
	const struct pp_map *a = &pp->maps[i], *b = key;

	return a->obj == b->obj && a->start == b->start && a->end == b->end &&
	       a->base == b->base;
}

static __u32 map_index(struct pmclog_pprof *pp, const struct pmclog_frame *f)
{
	struct pp_map m = {
		.obj = f->obj, .start = f->map_start, .end = f->map_end, .base = f->map_base,
	};
	__u32 *slot, i = pp_find(&pp->map_hash, map_hash(&m), map_same, map_rehash, pp, &m, &slot);

	if (i != NONE || !slot)
		return i;
	if (pp->nmaps >= NONE - 1 || PMCLOG_GROW(pp->maps, pp->maps_cap, pp->nmaps + 1))
		return NONE;
	pp->maps[pp->nmaps] = m;
	*slot = (__u32)++pp->nmaps;
	pp->map_hash.n++;
	return *slot - 1;
}

static __u64 loc_hash(const struct pp_loc *l)
{
	return mix(mix(mix(mix_ptr(0, l->obj), l->objaddr), l->address),
		   (__u64)l->map << 8 | l->flags);
}

static __u64 loc_rehash(const struct pmclog_pprof *pp, __u32 i)
{
	return loc_hash(&pp->locs[i]);
}

static bool loc_same(const struct pmclog_pprof *pp, __u32 i, const void *key)
{
	const struct pp_loc *a = &pp->locs[i], *b = key;

	return a->map == b->map && a->address == b->address && a->obj == b->obj &&
	       a->objaddr == b->objaddr && a->flags == b->flags;
}

/*
 * Frame f's location, added if new; NONE when out of memory.  Its address
 * is the one looked up: pc, or pc - 1 for a return address (objaddr is
 * that of the call).
 */
static __u32 loc_index(struct pmclog_pprof *pp, const struct pmclog_frame *f)
{
	struct pp_loc l = {
		.map = NONE, .address = f->pc, .obj = f->obj, .objaddr = f->obj ? f->objaddr : 0,
		.flags = (f->user ? AE_USER : 0) | (f->hidden ? AE_HIDDEN : 0),
		.func = NONE,
	};
	__u32 *slot, i;

	if (f->obj) {
		l.map = map_index(pp, f);
		if (l.map == NONE)
			return NONE;
		l.address = f->objaddr - f->map_base + f->map_start;
	}
	i = pp_find(&pp->loc_hash, loc_hash(&l), loc_same, loc_rehash, pp, &l, &slot);
	if (i != NONE || !slot)
		return i;
	if (pp->nlocs >= NONE - 1 || PMCLOG_GROW(pp->locs, pp->locs_cap, pp->nlocs + 1))
		return NONE;
	pp->locs[pp->nlocs] = l;
	*slot = (__u32)++pp->nlocs;
	pp->loc_hash.n++;
	return *slot - 1;
}

static __u64 stack_rehash(const struct pmclog_pprof *pp, __u32 i)
{
	return pp->stacks[i].hash;
}

/* The stack being added: its locations are at the arena's end. */
struct stack_key {
	__u64 hash;
	__u32 n, pid, tid, pmcid;
	const __u32 *locs;
};

static bool stack_same(const struct pmclog_pprof *pp, __u32 i, const void *key)
{
	const struct pp_stack *s = &pp->stacks[i];
	const struct stack_key *k = key;

	return s->hash == k->hash && s->n == k->n && s->pid == k->pid && s->tid == k->tid &&
	       s->pmcid == k->pmcid &&
	       !memcmp(pp->arena + s->off, k->locs, k->n * sizeof(*k->locs));
}

int pmclog_pprof__sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_pprof *pp = ctx;
	/* Without a CALLCHAIN, the sample's PC is its stack. */
	struct pmclog_frame self = {
		.pc = s->pc, .obj = s->obj, .objaddr = s->objaddr, .user = s->user,
		.hidden = s->hidden, .map_start = s->map_start, .map_end = s->map_end,
		.map_base = s->map_base,
	};
	const struct pmclog_frame *frames = s->nframes ? s->frames : &self;
	size_t n = s->nframes ? s->nframes : 1, off = pp->arena_len;
	struct stack_key k;
	__u32 *slot, i;

	if (!pmclog_report__wanted(pp->rep, s))
		return 0;
	if (n > UINT32_MAX || PMCLOG_GROW(pp->arena, pp->arena_cap, off + n))
		return -(errno = ENOMEM);
	k = (struct stack_key){
		.n = (__u32)n, .pid = s->pid, .tid = s->tid, .pmcid = s->pmcid,
		.locs = pp->arena + off,
	};
	k.hash = mix(mix(mix(s->pid, s->tid), s->pmcid), n);
	for (size_t j = 0; j < n; j++) {
		__u32 li = loc_index(pp, &frames[j]);

		if (li == NONE)
			return -(errno = ENOMEM);
		pp->arena[off + j] = li;
		k.hash = mix(k.hash, li);
	}
	i = pp_find(&pp->stack_hash, k.hash, stack_same, stack_rehash, pp, &k, &slot);
	if (!slot)
		return -(errno = ENOMEM);
	pp->samples++;
	if (i != NONE) {
		pp->stacks[i].count++;
		return 0;	/* its locations at the arena's end are dropped */
	}
	if (pp->nstacks >= NONE - 1 || PMCLOG_GROW(pp->stacks, pp->stacks_cap, pp->nstacks + 1))
		return -(errno = ENOMEM);
	pp->stacks[pp->nstacks] = (struct pp_stack){
		.hash = k.hash, .count = 1, .off = off, .n = k.n, .pid = k.pid, .tid = k.tid,
		.pmcid = k.pmcid,
	};
	pp->arena_len = off + n;
	*slot = (__u32)++pp->nstacks;
	pp->stack_hash.n++;
	return 0;
}

int pmclog_pprof__report_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_pprof *pp = ctx;
	int ret = pmclog_report__sample(pp->rep, s);

	return ret ? ret : pmclog_pprof__sample(pp, s);
}

/* ------------------------------------------------------------------ */
/* Names                                                              */

static __u64 func_hash(const struct pp_func *f)
{
	return mix_ptr(mix_ptr(mix_ptr(0, f->name), f->system_name), f->filename);
}

static __u64 func_rehash(const struct pmclog_pprof *pp, __u32 i)
{
	return func_hash(&pp->funcs[i]);
}

static bool func_same(const struct pmclog_pprof *pp, __u32 i, const void *key)
{
	const struct pp_func *a = &pp->funcs[i], *b = key;

	return a->name == b->name && a->system_name == b->system_name &&
	       a->filename == b->filename;
}

static __u32 func_index(struct pmclog_pprof *pp, const struct pp_func *f)
{
	__u32 *slot, i = pp_find(&pp->func_hash, func_hash(f), func_same, func_rehash, pp, f,
				 &slot);

	if (i != NONE || !slot)
		return i;
	if (pp->nfuncs >= NONE - 1 || PMCLOG_GROW(pp->funcs, pp->funcs_cap, pp->nfuncs + 1))
		return NONE;
	pp->funcs[pp->nfuncs] = *f;
	*slot = (__u32)++pp->nfuncs;
	pp->func_hash.n++;
	return *slot - 1;
}

/*
 * Split srcline "file.c:123" into the interned file and the line; "??:0"
 * and the like (no file or no line) give nothing.
 */
static int split_srcline(struct pmclog_strings *strings, const char *srcline,
			 const char **file, __s64 *line)
{
	const char *colon = srcline ? strrchr(srcline, ':') : NULL;
	char *end, *buf;
	long long v;

	*file = NULL;
	*line = 0;
	if (!colon || colon == srcline || !strncmp(srcline, "??", 2))
		return 0;
	errno = 0;
	v = strtoll(colon + 1, &end, 10);
	if (errno || *end || v <= 0)
		return 0;
	buf = strndup(srcline, (size_t)(colon - srcline));
	if (!buf)
		return -ENOMEM;
	*file = pmclog_strings__intern(strings, buf);
	free(buf);
	*line = v;
	return *file ? 0 : -ENOMEM;
}

static int name_loc(struct pmclog_pprof *pp, struct pp_loc *l)
{
	struct pmclog_report *rep = pp->rep;
	struct pmclog_frame_name nm;
	struct pmclog_resolved rv = { 0 };
	struct pp_func f = { 0 };
	int ret;

	ret = pmclog_report__frame_name(rep, l->obj, l->objaddr, l->flags & AE_USER,
					l->flags & AE_HIDDEN, &nm);
	if (ret)
		return ret;
	if (l->map != NONE) {
		struct pp_map *m = &pp->maps[l->map];

		/* Files by their path; [kernel], [MODULE], [vdso] as the report names them. */
		m->filename = m->obj->kind == PMCLOG_OBJ_FILE ? m->obj->path : nm.object;
	}
	if (!nm.symbol || !*nm.symbol)
		goto unnamed;
	f.name = nm.symbol;
	f.system_name = nm.symbol;
	if (l->obj && !(l->flags & AE_HIDDEN)) {
		ret = pmclog_resolver__resolve(rep->res, l->obj, l->objaddr, &rv);
		if (ret)
			return ret;
		if (rv.symbol)
			f.system_name = rv.symbol;
		ret = split_srcline(rep->strings,
				    pmclog_resolver__srcline(rep->res, l->obj, l->objaddr),
				    &f.filename, &l->line);
		if (ret)
			return ret;
	}
	l->func = func_index(pp, &f);
	if (l->func == NONE)
		return -ENOMEM;
	if (!l->line && l->map != NONE)
		pp->maps[l->map].unlined = true;
	return 0;
unnamed:
	if (l->map != NONE)
		pp->maps[l->map].unnamed = pp->maps[l->map].unlined = true;
	return 0;
}

int pmclog_pprof__finish(struct pmclog_pprof *pp)
{
	int ret = 0;

	for (size_t i = 0; i < pp->nlocs && !ret; i++)
		ret = name_loc(pp, &pp->locs[i]);
	/* The stacks of an event the report left out (--event) go. */
	for (size_t i = 0; i < pp->nstacks && !ret; i++)
		if (!pmclog_report__pmc_kept(pp->rep, pp->stacks[i].pmcid)) {
			pp->samples -= pp->stacks[i].count;
			pp->stacks[i].count = 0;
		}
	pp->finished = !ret;
	return ret ? pmclog_err(-ret) : 0;
}

__u64 pmclog_pprof__samples(const struct pmclog_pprof *pp)
{
	return pp->samples;
}

/* ------------------------------------------------------------------ */
/* The message                                                        */

/* The string table: interned pointers to their index, "" at 0. */
struct strtab {
	const char **strs;
	size_t n, cap;
	struct {
		const char *s;
		size_t idx;
	} *slots;
	size_t slots_cap;
	struct pmclog_strings *strings;
};

static int strtab_grow(struct strtab *t)
{
	size_t cap = t->slots_cap ? t->slots_cap * 2 : 1024;
	typeof(t->slots) slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->slots_cap; i++) {
		size_t j;

		if (!t->slots[i].s)
			continue;
		j = (size_t)mix_ptr(0, t->slots[i].s) & (cap - 1);
		while (slots[j].s)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->slots_cap = cap;
	return 0;
}

/* The index of s (interned, or any string with intern set); -1: no memory. */
static int64_t str_id(struct strtab *t, const char *s, bool intern)
{
	size_t j;

	if (!s || !*s)
		return 0;
	if (intern && !(s = pmclog_strings__intern(t->strings, s)))
		return -1;
	if ((t->n + 1) * 2 > t->slots_cap && strtab_grow(t))
		return -1;
	j = (size_t)mix_ptr(0, s) & (t->slots_cap - 1);
	while (t->slots[j].s && t->slots[j].s != s)
		j = (j + 1) & (t->slots_cap - 1);
	if (t->slots[j].s)
		return (int64_t)t->slots[j].idx;
	if (PMCLOG_GROW(t->strs, t->cap, t->n + 1))
		return -1;
	t->strs[t->n] = s;
	t->slots[j].s = s;
	t->slots[j].idx = t->n;
	return (int64_t)t->n++;
}

/* A PMC's values in each sample. */
struct pmc_vals {
	int first;		/* index of its "samples"; -1: not in the profile */
	bool has_event;		/* a second value: count * period */
	__u64 period;		/* in the second value's unit */
};

/* What write() allocates, freed at once. */
struct msg {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType *types, period_type, **type_ptrs;
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	Perftools__Profiles__Label *labels, **label_ptrs;
	Perftools__Profiles__Mapping *maps, **map_ptrs;
	Perftools__Profiles__Location *locs, **loc_ptrs;
	Perftools__Profiles__Line *lines, **line_ptrs;
	Perftools__Profiles__Function *funcs, **func_ptrs;
	uint64_t *loc_ids;
	int64_t *values, comments[2];
	struct strtab st;
	struct pmc_vals vals[PMCLOG_PMCIDS];
};

static void msg_free(struct msg *m)
{
	free(m->types);
	free(m->type_ptrs);
	free(m->samples);
	free(m->sample_ptrs);
	free(m->labels);
	free(m->label_ptrs);
	free(m->maps);
	free(m->map_ptrs);
	free(m->locs);
	free(m->loc_ptrs);
	free(m->lines);
	free(m->line_ptrs);
	free(m->funcs);
	free(m->func_ptrs);
	free(m->loc_ids);
	free(m->values);
	free(m->st.strs);
	free(m->st.slots);
}

/* calloc of n elements, at least one (an empty table is no failure). */
static void *calloc1(size_t n, size_t sz)
{
	return calloc(n > 1 ? n : 1, sz);
}

#define ALLOC(p, n)	((p) = calloc1((n), sizeof(*(p))))

/* The executable's name of pid, as --format folded's first frame. */
static const char *comm_of(const struct pmclog_pprof *pp, __u32 pid)
{
	const char *path = pmclog_replay__comm(pp->rep->replay, pid), *base;

	if (!path)
		return pid ? "[unknown]" : "swapper";
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return *base ? base : "[unknown]";
}

/*
 * The sample types, per PMC the report kept; the first PMC with a known
 * period gives period_type and period.
 */
static int sample_types(const struct pmclog_pprof *pp, struct msg *m, size_t *ntypes)
{
	const struct pmclog_report *rep = pp->rep;
	size_t nprof = pmclog_report__nprofiles(rep), n = 0;
	bool several = nprof > 1;
	char buf[512];

	for (size_t i = 0; i < PMCLOG_PMCIDS; i++)
		m->vals[i].first = -1;
	if (!ALLOC(m->types, 2 * nprof) || !ALLOC(m->type_ptrs, 2 * nprof))
		return -ENOMEM;
	for (size_t i = 0; i < nprof; i++) {
		const struct pmclog_profile *p = pmclog_report__profile(rep, i);
		const struct pmclog_replay_pmc *pmc = p->pmc;
		struct pmc_vals *v = &m->vals[p->pmcid & (PMCLOG_PMCIDS - 1)];
		const char *unit = "count";
		int64_t type, unit_id;

		v->first = (int)n;
		if (pmc && pmc->event == PMCLOG_EV_CPU_CLOCK) {
			/* The hrtimer: period ns, or a rate in Hz. */
			unit = "nanoseconds";
			v->period = pmc->flags & PMCLOG_PMC_F_FREQ ?
				    (pmc->period ? (1000000000ULL + pmc->period / 2) / pmc->period : 0) :
				    pmc->period;
		} else if (pmc && !(pmc->flags & PMCLOG_PMC_F_FREQ)) {
			v->period = pmc->period;	/* a PMU counter's overflow period */
		}
		v->has_event = v->period;
		snprintf(buf, sizeof(buf), "%s%ssamples", several ? p->label : "",
			 several ? "_" : "");
		type = str_id(&m->st, buf, true);
		unit_id = str_id(&m->st, "count", true);
		if (type < 0 || unit_id < 0)
			return -ENOMEM;
		m->types[n] = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		m->types[n].type = type;
		m->types[n].unit = unit_id;
		m->type_ptrs[n] = &m->types[n];
		n++;
		if (!v->has_event)
			continue;
		type = str_id(&m->st, p->label, true);
		unit_id = str_id(&m->st, unit, true);
		if (type < 0 || unit_id < 0)
			return -ENOMEM;
		m->types[n] = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		m->types[n].type = type;
		m->types[n].unit = unit_id;
		m->type_ptrs[n] = &m->types[n];
		if (!m->prof.period_type) {
			m->period_type = m->types[n];
			m->prof.period_type = &m->period_type;
			m->prof.period = (int64_t)v->period;
			m->prof.default_sample_type = type;
		}
		n++;
	}
	*ntypes = n;
	return 0;
}

/*
 * The mapping to put first ("mapping[0] will be the main binary", says
 * profile.proto; pprof titles the profile with it): the executable of the
 * process with the busiest stack.  0 when none is known.
 */
static size_t main_map(const struct pmclog_pprof *pp)
{
	const struct pp_stack *top = NULL;
	const char *exe;

	for (size_t i = 0; i < pp->nstacks; i++)
		if (pp->stacks[i].count && (!top || pp->stacks[i].count > top->count))
			top = &pp->stacks[i];
	exe = top ? pmclog_replay__comm(pp->rep->replay, top->pid) : NULL;
	for (size_t i = 0; exe && i < pp->nmaps; i++)
		if (pp->maps[i].obj->kind == PMCLOG_OBJ_FILE && pp->maps[i].obj->path == exe)
			return i;
	return 0;
}

/* The id of map i when map main is first. */
static uint64_t map_id(size_t i, size_t main)
{
	return i == main ? 1 : i < main ? i + 2 : i + 1;
}

static int build(const struct pmclog_pprof *pp, struct msg *m)
{
	size_t main = main_map(pp);
	const struct pmclog_replay_stats *rst = pmclog_replay__stats(pp->rep->replay);
	size_t ntypes, nsamples = 0, nframes = 0, nlines = 0, k;
	int64_t pid_key, tid_key, comm_key;
	char hex[2 * PMCLOG_BUILD_ID_MAX + 1];

	m->prof = (Perftools__Profiles__Profile)PERFTOOLS__PROFILES__PROFILE__INIT;
	m->st.strings = pp->rep->strings;
	if (PMCLOG_GROW(m->st.strs, m->st.cap, 1))
		return -ENOMEM;
	m->st.strs[m->st.n++] = "";
	if (sample_types(pp, m, &ntypes))
		return -ENOMEM;
	pid_key = str_id(&m->st, "pid", true);
	tid_key = str_id(&m->st, "tid", true);
	comm_key = str_id(&m->st, "comm", true);
	if (pid_key < 0 || tid_key < 0 || comm_key < 0)
		return -ENOMEM;

	for (size_t i = 0; i < pp->nstacks; i++)
		if (pp->stacks[i].count) {
			nsamples++;
			nframes += pp->stacks[i].n;
		}
	if (!ALLOC(m->samples, nsamples) || !ALLOC(m->sample_ptrs, nsamples) ||
	    !ALLOC(m->labels, 3 * nsamples) || !ALLOC(m->label_ptrs, 3 * nsamples) ||
	    !ALLOC(m->loc_ids, nframes) || !ALLOC(m->values, nsamples * (ntypes ? ntypes : 1)))
		return -ENOMEM;
	k = 0;
	nframes = 0;
	for (size_t i = 0; i < pp->nstacks; i++) {
		const struct pp_stack *s = &pp->stacks[i];
		const struct pmc_vals *v = &m->vals[s->pmcid & (PMCLOG_PMCIDS - 1)];
		Perftools__Profiles__Sample *ps = &m->samples[k];
		Perftools__Profiles__Label *lb = &m->labels[3 * k];
		int64_t comm;

		if (!s->count || v->first < 0)
			continue;
		*ps = (Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		ps->n_location_id = s->n;
		ps->location_id = m->loc_ids + nframes;
		for (__u32 j = 0; j < s->n; j++)
			m->loc_ids[nframes++] = (uint64_t)pp->arena[s->off + j] + 1;
		ps->n_value = ntypes;
		ps->value = m->values + k * ntypes;
		ps->value[v->first] = (int64_t)s->count;
		if (v->has_event)
			ps->value[v->first + 1] = (int64_t)(s->count * v->period);
		comm = str_id(&m->st, comm_of(pp, s->pid), true);
		if (comm < 0)
			return -ENOMEM;
		for (int j = 0; j < 3; j++) {
			lb[j] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
			m->label_ptrs[3 * k + j] = &lb[j];
		}
		lb[0].key = pid_key;
		lb[0].num = s->pid;
		lb[1].key = tid_key;
		lb[1].num = s->tid;
		lb[2].key = comm_key;
		lb[2].str = comm;
		ps->n_label = 3;
		ps->label = &m->label_ptrs[3 * k];
		m->sample_ptrs[k++] = ps;
	}
	m->prof.n_sample_type = ntypes;
	m->prof.sample_type = m->type_ptrs;
	m->prof.n_sample = k;
	m->prof.sample = m->sample_ptrs;

	if (!ALLOC(m->maps, pp->nmaps) || !ALLOC(m->map_ptrs, pp->nmaps))
		return -ENOMEM;
	for (size_t i = 0; i < pp->nmaps; i++) {
		const struct pp_map *pm = &pp->maps[i];
		Perftools__Profiles__Mapping *mp = &m->maps[i];
		int64_t file = str_id(&m->st, pm->filename ? pm->filename : pm->obj->path, true);
		int64_t bid = 0;

		if (pm->obj->build_id_size) {
			pmclog_hex(hex, sizeof(hex), pm->obj->build_id, pm->obj->build_id_size);
			bid = str_id(&m->st, hex, true);
		}
		if (file < 0 || bid < 0)
			return -ENOMEM;
		*mp = (Perftools__Profiles__Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
		mp->id = map_id(i, main);
		mp->memory_start = pm->start;
		mp->memory_limit = pm->end;
		mp->file_offset = pm->base;
		mp->filename = file;
		mp->build_id = bid;
		mp->has_functions = !pm->unnamed;
		mp->has_filenames = mp->has_line_numbers = !pm->unlined;
		m->map_ptrs[mp->id - 1] = mp;
	}
	m->prof.n_mapping = pp->nmaps;
	m->prof.mapping = m->map_ptrs;

	for (size_t i = 0; i < pp->nlocs; i++)
		nlines += pp->locs[i].func != NONE;
	if (!ALLOC(m->locs, pp->nlocs) || !ALLOC(m->loc_ptrs, pp->nlocs) ||
	    !ALLOC(m->lines, nlines) || !ALLOC(m->line_ptrs, nlines))
		return -ENOMEM;
	k = 0;
	for (size_t i = 0; i < pp->nlocs; i++) {
		const struct pp_loc *l = &pp->locs[i];
		Perftools__Profiles__Location *lp = &m->locs[i];

		*lp = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
		lp->id = i + 1;
		lp->mapping_id = l->map == NONE ? 0 : map_id(l->map, main);
		lp->address = l->address;
		if (l->func != NONE) {
			m->lines[k] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
			m->lines[k].function_id = (uint64_t)l->func + 1;
			m->lines[k].line = l->line;
			m->line_ptrs[k] = &m->lines[k];
			lp->n_line = 1;
			lp->line = &m->line_ptrs[k++];
		}
		m->loc_ptrs[i] = lp;
	}
	m->prof.n_location = pp->nlocs;
	m->prof.location = m->loc_ptrs;

	if (!ALLOC(m->funcs, pp->nfuncs) || !ALLOC(m->func_ptrs, pp->nfuncs))
		return -ENOMEM;
	for (size_t i = 0; i < pp->nfuncs; i++) {
		const struct pp_func *f = &pp->funcs[i];
		Perftools__Profiles__Function *fp = &m->funcs[i];

		*fp = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
		fp->id = i + 1;
		fp->name = str_id(&m->st, f->name, false);
		fp->system_name = str_id(&m->st, f->system_name, false);
		fp->filename = str_id(&m->st, f->filename, false);
		if (fp->name < 0 || fp->system_name < 0 || fp->filename < 0)
			return -ENOMEM;
		m->func_ptrs[i] = fp;
	}
	m->prof.n_function = pp->nfuncs;
	m->prof.function = m->func_ptrs;

	if (rst->start_realtime_ns)
		m->prof.time_nanos = (int64_t)rst->start_realtime_ns;
	if (rst->end_tstamp > rst->start_tstamp)
		m->prof.duration_nanos = (int64_t)(rst->end_tstamp - rst->start_tstamp);
	m->comments[0] = str_id(&m->st, "pmclog", true);
	if (m->comments[0] < 0)
		return -ENOMEM;
	m->prof.n_comment = 1;
	m->prof.comment = m->comments;
	/* The strings last: every one above is in. */
	m->prof.n_string_table = m->st.n;
	m->prof.string_table = (char **)m->st.strs;
	return 0;
}

/* len bytes at buf, gzip-compressed (no name, no time), into f. */
static int gzip_to(FILE *f, const uint8_t *buf, size_t len)
{
	unsigned char out[65536];
	z_stream z = { 0 };
	gz_header h = { 0 };
	int zr = Z_OK, ret = 0;

	/* 15 + 16: a gzip wrapper, as pprof expects. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	h.os = 3;	/* Unix, whatever zlib was built for */
	deflateSetHeader(&z, &h);
	z.next_in = (Bytef *)buf;
	do {
		size_t chunk = len > (1U << 30) ? (1U << 30) : len;

		z.avail_in = (uInt)chunk;
		len -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (zr == Z_STREAM_ERROR) {
				ret = -EIO;
				break;
			}
			if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
			    sizeof(out) - z.avail_out) {
				ret = -EIO;
				break;
			}
		} while (!z.avail_out);
	} while (!ret && len);
	if (!ret && zr != Z_STREAM_END)
		ret = -EIO;
	deflateEnd(&z);
	return ret;
}

int pmclog_pprof__write(const struct pmclog_pprof *pp, FILE *f)
{
	struct msg m = { 0 };
	uint8_t *buf = NULL;
	size_t len;
	int ret;

	if (!pp->finished)
		return pmclog_err(EINVAL);
	ret = build(pp, &m);
	if (!ret) {
		len = protobuf_c_message_get_packed_size(&m.prof.base);
		buf = malloc(len ? len : 1);
		if (!buf)
			ret = -ENOMEM;
	}
	if (!ret && protobuf_c_message_pack(&m.prof.base, buf) != len)
		ret = -EIO;
	if (!ret)
		ret = gzip_to(f, buf, len);
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
	free(buf);
	msg_free(&m);
	return ret ? pmclog_err(-ret) : 0;
}

/* ------------------------------------------------------------------ */

struct pmclog_pprof *pmclog_pprof__new(struct pmclog_report *rep)
{
	struct pmclog_pprof *pp;

	if (!rep) {
		errno = EINVAL;
		return NULL;
	}
	pp = calloc(1, sizeof(*pp));
	if (pp)
		pp->rep = rep;
	return pp;
}

void pmclog_pprof__free(struct pmclog_pprof *pp)
{
	if (!pp)
		return;
	free(pp->maps);
	free(pp->map_hash.slots);
	free(pp->locs);
	free(pp->loc_hash.slots);
	free(pp->arena);
	free(pp->stacks);
	free(pp->stack_hash.slots);
	free(pp->funcs);
	free(pp->func_hash.slots);
	free(pp);
}
