// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog report: sample counting, resolution and rows.  The output
 * formats are in pmclog_report_fmt.c, gprof output in pmclog_gmon.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"

/* ------------------------------------------------------------------ */
/* Distinct addresses: open addressing on (pid, flags, obj, addr).     */

static __u64 addr_hash(const struct addr_ent *e)
{
	__u64 h = e->addr * 0x9e3779b97f4a7c15ULL;

	h ^= (__u64)(uintptr_t)e->obj * 0xc2b2ae3d27d4eb4fULL;
	h ^= ((__u64)e->pid << 16 | (__u64)e->pmcid << 8 | e->flags) * 0x165667b19e3779f9ULL;
	return h ^ (h >> 29);
}

static bool addr_same(const struct addr_ent *a, const struct addr_ent *b)
{
	return a->addr == b->addr && a->obj == b->obj && a->pid == b->pid &&
	       a->flags == b->flags && a->pmcid == b->pmcid;
}

static struct addr_ent *addr_slot(struct addr_ent *slots, size_t cap,
				  const struct addr_ent *key)
{
	size_t i = (size_t)addr_hash(key) & (cap - 1);

	while (slots[i].count && !addr_same(&slots[i], key))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int addrs_grow(struct pmclog_report *rep)
{
	size_t cap = rep->addrs_cap ? rep->addrs_cap * 2 : 4096;
	struct addr_ent *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < rep->addrs_cap; i++)
		if (rep->addrs[i].count)
			*addr_slot(slots, cap, &rep->addrs[i]) = rep->addrs[i];
	free(rep->addrs);
	rep->addrs = slots;
	rep->addrs_cap = cap;
	return 0;
}

static bool pid_wanted(const struct pmclog_report *rep, __u32 pid)
{
	if (!rep->opts.pids)
		return true;
	for (size_t i = 0; i < rep->opts.npids; i++)
		if (rep->opts.pids[i] == pid)
			return true;
	return false;
}

static bool time_wanted(const struct pmclog_report *rep, __u64 tstamp)
{
	__u64 t0 = pmclog_replay__stats(rep->replay)->start_tstamp, t;

	if (!rep->opts.has_time)
		return true;
	t = tstamp > t0 ? tstamp - t0 : 0;
	return t >= rep->opts.time_from && t < rep->opts.time_to;
}

static bool sorts_by(const struct pmclog_report *rep, enum pmclog_sort_key k)
{
	for (size_t i = 0; i < rep->opts.nkeys; i++)
		if (rep->opts.keys[i] == k)
			return true;
	return false;
}

int pmclog_report__sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_report *rep = ctx;
	struct addr_ent key = {
		.obj = s->obj, .addr = s->obj ? s->objaddr : s->pc,
		.pid = rep->by_pid ? s->pid : 0,
		.flags = (s->user ? AE_USER : 0) | (s->hidden ? AE_HIDDEN : 0),
		.pmcid = (__u8)s->pmcid,
	};
	struct addr_ent *e;

	rep->seen[key.pmcid]++;
	if (!pid_wanted(rep, s->pid) || !time_wanted(rep, s->tstamp)) {
		rep->filtered[key.pmcid]++;
		return 0;
	}
	if ((rep->naddrs + 1) * 2 > rep->addrs_cap && addrs_grow(rep))
		return -ENOMEM;
	e = addr_slot(rep->addrs, rep->addrs_cap, &key);
	if (!e->count) {
		*e = key;
		rep->naddrs++;
	}
	e->count++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                              */

/*
 * C++ (_Z), Rust legacy (_ZN...17h<hash>E) and Rust v0 (_R) names,
 * through libiberty's cplus_demangle() in its automatic style, as binutils
 * and perf do: Rust first, then the Itanium C++ ABI.  A PLT entry
 * ("_ZdlPv@plt") keeps its suffix.  Anything else, or a name libiberty
 * refuses, is shown as it is.
 */
static const char *symbol_name(struct pmclog_report *rep, const char *raw)
{
	const char *at = strstr(raw, "@plt"), *name;
	char *mangled, *out, *full = NULL;

	if (!rep->opts.demangle || (strncmp(raw, "_Z", 2) && strncmp(raw, "_R", 2)))
		return raw;
	mangled = at && !at[4] ? strndup(raw, (size_t)(at - raw)) : strdup(raw);
	out = mangled ? cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI) : NULL;
	free(mangled);
	if (!out)
		return raw;
	if (at && !at[4] && asprintf(&full, "%s@plt", out) < 0)
		full = NULL;
	name = pmclog_strings__intern(rep->strings, at && !at[4] ? (full ? full : raw) : out);
	free(out);
	free(full);
	return name ? name : raw;
}

static const char *hex_name(struct pmclog_report *rep, __u64 addr)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return pmclog_strings__intern(rep->strings, buf);
}

/*
 * The name an object goes by in the rows: whether its symbols were found
 * is the row's objstate, never words added to the name.
 */
static const char *object_name(struct pmclog_report *rep,
			       const struct pmclog_object *obj)
{
	const char *base = strrchr(obj->path, '/');
	char *buf;
	const char *name;

	switch (obj->kind) {
	case PMCLOG_OBJ_KMODULE:
	case PMCLOG_OBJ_KMODULE_INIT:
		if (asprintf(&buf, "[%s]", obj->path) < 0)
			return NULL;
		name = pmclog_strings__intern(rep->strings, buf);
		free(buf);
		return name;
	case PMCLOG_OBJ_FILE:
		return rep->opts.full_paths || !base ? obj->path :
		       pmclog_strings__intern(rep->strings, base + 1);
	default:
		return obj->path;
	}
}

static bool obj_is_kernel(const struct pmclog_object *obj)
{
	return obj->kind == PMCLOG_OBJ_KERNEL || obj->kind == PMCLOG_OBJ_KMODULE ||
	       obj->kind == PMCLOG_OBJ_KMODULE_INIT;
}

/* ------------------------------------------------------------------ */
/* Resolution                                                         */

static int resolve_one(struct pmclog_report *rep, const struct addr_ent *a,
		       struct res_ent *r)
{
	struct pmclog_resolved rv;
	int ret;

	struct pmclog_report_stats *st;

	memset(r, 0, sizeof(*r));
	r->count = a->count;
	r->pid = a->pid;
	r->prof = (size_t)rep->prof_of[a->pmcid];
	r->kernel = !(a->flags & AE_USER);
	r->srcline = rep->nosrc_name;
	st = &rep->profs[r->prof].stats;
	if (a->flags & AE_HIDDEN) {
		st->hidden += a->count;
		r->object = rep->kernel_name;
		r->symbol = rep->hidden_name;
		return r->symbol ? 0 : -ENOMEM;
	}
	if (!a->obj) {
		st->no_object += a->count;
		r->object = rep->unknown_name;
		r->symbol = hex_name(rep, a->addr);
		r->addr = a->addr;
		r->no_function = true;
		return r->symbol ? 0 : -ENOMEM;
	}
	ret = pmclog_resolver__resolve(rep->res, a->obj, a->addr, &rv);
	if (ret)
		return ret;
	r->obj = a->obj;
	r->objstate = pmclog_resolver__state(a->obj);
	r->kernel = obj_is_kernel(a->obj);
	if (sorts_by(rep, PMCLOG_SORT_SRCLINE)) {
		r->srcline = pmclog_resolver__srcline(rep->res, a->obj, a->addr);
		if (!r->srcline)
			r->srcline = rep->nosrc_name;
	}
	r->object = object_name(rep, a->obj);
	r->addr = rv.addr;
	r->has_vaddr = rv.vaddr;
	if (rv.symbol) {
		st->resolved += a->count;
		r->symbol = symbol_name(rep, rv.symbol);
	} else {
		st->no_function += a->count;
		r->symbol = hex_name(rep, rv.addr);
		r->no_function = true;
	}
	return r->object && r->symbol ? 0 : -ENOMEM;
}

static int resolve_all(struct pmclog_report *rep)
{
	size_t n = 0;
	int ret;

	rep->ents = calloc(rep->naddrs ? rep->naddrs : 1, sizeof(*rep->ents));
	if (!rep->ents)
		return -ENOMEM;
	for (size_t i = 0; i < rep->addrs_cap; i++) {
		if (!rep->addrs[i].count)
			continue;
		if (rep->prof_of[rep->addrs[i].pmcid] < 0)
			continue;	/* an event pmclog_report__select() left out */
		ret = resolve_one(rep, &rep->addrs[i], &rep->ents[n++]);
		if (ret)
			return ret;
	}
	rep->nents = n;
	return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? -1 : 1;
}

static int ptr_cmp_indirect(const void *a, const void *b)
{
	return ptr_cmp(*(const void *const *)a, *(const void *const *)b);
}

/* Objects with samples, and those of them not found. */
static void count_objects(struct pmclog_report *rep)
{
	size_t n = pmclog_replay__nobjects(rep->replay);

	for (size_t i = 0; i < n; i++) {
		const struct pmclog_object *o = pmclog_replay__object(rep->replay, i);

		if (pmclog_resolver__state(o) == PMCLOG_OBJST_UNTRIED)
			continue;
		rep->stats.objects++;
		if (pmclog_resolver__state(o) == PMCLOG_OBJST_NOTFOUND)
			rep->stats.objects_not_found++;
	}
}

/* The same for each profile: the distinct objects of its entries. */
static int count_profile_objects(struct pmclog_report *rep)
{
	const struct pmclog_object **objs = calloc(rep->nents ? rep->nents : 1, sizeof(*objs));

	if (!objs)
		return -ENOMEM;
	for (size_t p = 0; p < rep->nprofs; p++) {
		struct pmclog_report_stats *st = &rep->profs[p].stats;
		size_t n = 0;

		for (size_t i = 0; i < rep->nents; i++)
			if (rep->ents[i].prof == p && rep->ents[i].obj)
				objs[n++] = rep->ents[i].obj;
		if (n)
			qsort(objs, n, sizeof(*objs), ptr_cmp_indirect);
		for (size_t i = 0; i < n; i++) {
			if (i && objs[i] == objs[i - 1])
				continue;
			st->objects++;
			if (pmclog_resolver__state(objs[i]) == PMCLOG_OBJST_NOTFOUND)
				st->objects_not_found++;
		}
	}
	free(objs);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Profiles: one per PMC                                              */

/* The announced PMC pmcid, or NULL. */
static const struct pmclog_replay_pmc *replay_pmc(const struct pmclog_report *rep,
						  __u32 pmcid)
{
	const struct pmclog_replay_pmc *p;

	for (size_t i = 0; (p = pmclog_replay__pmc(rep->replay, i)); i++)
		if (p->pmcid == pmcid)
			return p;
	return NULL;
}

/*
 * "NAME", "NAME#ID" when another PMC has that name, "pmcID" without a
 * PMCALLOCATE (or a name).
 */
static const char *profile_label(struct pmclog_report *rep, __u32 pmcid)
{
	const struct pmclog_replay_pmc *pmc = replay_pmc(rep, pmcid), *q;
	bool shared = false;
	char buf[64];

	/* No PMCALLOCATE, or one without a name (no module writes that). */
	if (!pmc || !pmc->name[0]) {
		snprintf(buf, sizeof(buf), "pmc%u", pmcid);
		return pmclog_strings__intern(rep->strings, buf);
	}
	for (size_t i = 0; (q = pmclog_replay__pmc(rep->replay, i)); i++)
		shared |= q != pmc && q->name == pmc->name;	/* interned */
	if (!shared)
		return pmc->name;
	snprintf(buf, sizeof(buf), "%s#%u", pmc->name, pmcid);
	return pmclog_strings__intern(rep->strings, buf);
}

/* Call fn for each PMC a profile could be made of, in profile order. */
static int foreach_pmcid(struct pmclog_report *rep,
			 int (*fn)(struct pmclog_report *rep, __u32 pmcid, void *ctx),
			 void *ctx)
{
	const struct pmclog_replay_pmc *p;
	int ret = 0;

	for (size_t i = 0; !ret && (p = pmclog_replay__pmc(rep->replay, i)); i++)
		ret = fn(rep, p->pmcid, ctx);
	for (__u32 id = 0; !ret && id < PMCLOG_PMCIDS; id++)
		if (rep->seen[id] && !replay_pmc(rep, id))
			ret = fn(rep, id, ctx);
	return ret;
}

static int add_profile(struct pmclog_report *rep, __u32 pmcid, void *ctx)
{
	struct pmclog_profile *p;

	(void)ctx;
	if (pmcid >= PMCLOG_PMCIDS || rep->prof_of[pmcid] >= 0 ||
	    (rep->selected && pmcid != rep->sel_pmcid))
		return 0;
	p = &rep->profs[rep->nprofs];
	*p = (struct pmclog_profile){
		.pmcid = pmcid, .pmc = replay_pmc(rep, pmcid),
		.label = profile_label(rep, pmcid),
	};
	if (!p->label)
		return -ENOMEM;
	p->stats.samples = rep->seen[pmcid] - rep->filtered[pmcid];
	p->stats.filtered_out = rep->filtered[pmcid];
	rep->prof_of[pmcid] = (int)rep->nprofs++;
	return 0;
}

static int make_profiles(struct pmclog_report *rep)
{
	int ret;

	rep->profs = calloc(PMCLOG_PMCIDS + pmclog_replay__npmcs(rep->replay),
			    sizeof(*rep->profs));
	if (!rep->profs)
		return -ENOMEM;
	for (size_t i = 0; i < PMCLOG_PMCIDS; i++)
		rep->prof_of[i] = -1;
	ret = foreach_pmcid(rep, add_profile, NULL);
	/*
	 * The samples of an event --event left out: those --pid and --time
	 * keep are of other events (what the script still prints), the rest
	 * left out by them, as the kept events' are.
	 */
	for (size_t i = 0; i < PMCLOG_PMCIDS; i++) {
		if (rep->prof_of[i] >= 0)
			continue;
		rep->stats.other_events += rep->seen[i] - rep->filtered[i];
		rep->stats.filtered_out += rep->filtered[i];
	}
	return ret;
}

struct select_ctx {
	const char *spec;
	bool by_id;
	__u32 id;
	size_t label_hits, name_hits;
	__u32 label_match, name_match;
	FILE *list;		/* the log's events, for the message */
};

static int select_one(struct pmclog_report *rep, __u32 pmcid, void *ctx)
{
	struct select_ctx *c = ctx;
	const struct pmclog_replay_pmc *pmc = replay_pmc(rep, pmcid);
	const char *label = profile_label(rep, pmcid);

	if (!label)
		return -ENOMEM;
	if (c->by_id ? pmcid == c->id : !strcmp(label, c->spec)) {
		c->label_hits++;
		c->label_match = pmcid;
	}
	if (!c->by_id && pmc && !strcmp(pmc->name, c->spec)) {
		c->name_hits++;
		c->name_match = pmcid;
	}
	fprintf(c->list, "%s'", ftell(c->list) ? ", " : "");
	pmclog_put_escaped(c->list, label, "");
	fprintf(c->list, "' (PMC %u)", pmcid);
	return 0;
}

int pmclog_report__select(struct pmclog_report *rep, const char *event)
{
	struct select_ctx c = { .spec = event };
	char *list = NULL, *end;
	size_t len = 0;
	int ret;

	errno = 0;
	c.id = (__u32)strtoul(event, &end, 10);
	c.by_id = *event >= '0' && *event <= '9' && !*end && !errno;
	c.list = open_memstream(&list, &len);
	if (!c.list)
		return pmclog_err(ENOMEM);
	ret = foreach_pmcid(rep, select_one, &c);
	if (fclose(c.list) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(list);
		return pmclog_err(-ret);
	}
	/* A label is one PMC's; a name may be several PMCs'. */
	if (c.label_hits == 1 || (!c.label_hits && c.name_hits == 1)) {
		rep->selected = true;
		rep->sel_pmcid = c.label_hits ? c.label_match : c.name_match;
	} else if (!c.label_hits && !c.name_hits) {
		pr_warn("no event '%s' in the log; its events: %s\n", event,
			len ? list : "none");
		ret = ENOENT;
	} else {
		pr_warn("event '%s' names %zu PMCs of the log: give its PMC id or its label: %s\n",
			event, c.label_hits + c.name_hits, list);
		ret = ENOTUNIQ;
	}
	free(list);
	return ret ? pmclog_err(ret) : 0;
}

/* ------------------------------------------------------------------ */
/* Rows                                                               */

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int row_key_cmp(const void *a, const void *b)
{
	const struct pmclog_row *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	if (x->objstate != y->objstate)
		return x->objstate < y->objstate ? -1 : 1;
	c = ptr_cmp(x->object, y->object);
	c = c ? c : ptr_cmp(x->path, y->path);
	c = c ? c : ptr_cmp(x->symbol, y->symbol);
	return c ? c : ptr_cmp(x->srcline, y->srcline);
}

static int row_cmp(const void *a, const void *b)
{
	const struct pmclog_row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	c = str_cmp(x->object, y->object);
	c = c ? c : str_cmp(x->symbol, y->symbol);
	c = c ? c : str_cmp(x->srcline, y->srcline);
	c = c ? c : str_cmp(x->path, y->path);
	if (c || x->objstate == y->objstate)
		return c;
	return x->objstate < y->objstate ? -1 : 1;
}

static struct pmclog_row ent_row(const struct pmclog_report *rep,
				 const struct res_ent *e)
{
	bool pid = sorts_by(rep, PMCLOG_SORT_PID), dso = sorts_by(rep, PMCLOG_SORT_DSO);
	bool sym = sorts_by(rep, PMCLOG_SORT_SYM), src = sorts_by(rep, PMCLOG_SORT_SRCLINE);

	return (struct pmclog_row){
		.samples = e->count, .pid = pid ? e->pid : 0,
		.object = dso ? e->object : NULL,
		.symbol = sym ? e->symbol : NULL,
		.kernel = (dso || sym || src) && e->kernel,
		.srcline = src ? e->srcline : NULL,
		.pmcid = rep->profs[e->prof].pmcid,
		.path = dso && e->obj ? e->obj->path : NULL,
		.objstate = dso || sym ? e->objstate : PMCLOG_OBJST_UNTRIED,
		.has_addr = sym && e->no_function,
		.addr = sym && e->no_function ? e->addr : 0,
	};
}

/* Profile p's rows at rep->rows + base: merged by key, most samples first. */
static size_t make_rows(struct pmclog_report *rep, size_t p, size_t base)
{
	struct pmclog_row *rows = rep->rows + base;
	size_t m = 0, n = 0;

	for (size_t i = 0; i < rep->nents; i++)
		if (rep->ents[i].prof == p)
			rows[m++] = ent_row(rep, &rep->ents[i]);
	if (!m)
		return 0;
	qsort(rows, m, sizeof(*rows), row_key_cmp);
	for (size_t i = 0; i < m; i++) {
		if (n && !row_key_cmp(&rows[n - 1], &rows[i]))
			rows[n - 1].samples += rows[i].samples;
		else
			rows[n++] = rows[i];
	}
	for (size_t i = 0; sorts_by(rep, PMCLOG_SORT_PID) && i < n; i++)
		rows[i].comm = pmclog_replay__comm(rep->replay, rows[i].pid);
	qsort(rows, n, sizeof(*rows), row_cmp);
	return n;
}

static void add_stats(struct pmclog_report_stats *to, const struct pmclog_report_stats *st)
{
	to->samples += st->samples;
	to->filtered_out += st->filtered_out;
	to->resolved += st->resolved;
	to->no_object += st->no_object;
	to->no_function += st->no_function;
	to->hidden += st->hidden;
}

int pmclog_report__finish(struct pmclog_report *rep)
{
	int ret = make_profiles(rep);

	ret = ret ? ret : resolve_all(rep);
	ret = ret ? ret : count_profile_objects(rep);
	if (ret)
		return ret;
	count_objects(rep);
	for (size_t p = 0; p < rep->nprofs; p++)
		add_stats(&rep->stats, &rep->profs[p].stats);
	rep->rows = calloc(rep->nents ? rep->nents : 1, sizeof(*rep->rows));
	if (!rep->rows)
		return -ENOMEM;
	for (size_t p = 0; p < rep->nprofs; p++) {
		rep->profs[p].first_row = rep->nrows;
		rep->profs[p].nrows = make_rows(rep, p, rep->nrows);
		rep->nrows += rep->profs[p].nrows;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

struct pmclog_report *pmclog_report__new(struct pmclog_strings *strings,
					 struct pmclog_replay *replay,
					 struct pmclog_resolver *res,
					 const struct pmclog_report_opts *opts)
{
	struct pmclog_report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return NULL;
	rep->strings = strings;
	rep->replay = replay;
	rep->res = res;
	rep->opts = *opts;
	rep->by_pid = sorts_by(rep, PMCLOG_SORT_PID);
	rep->kernel_name = pmclog_strings__intern(strings, "[kernel]");
	rep->unknown_name = pmclog_strings__intern(strings, "[unknown]");
	rep->hidden_name = pmclog_strings__intern(strings, "[address hidden]");
	/* perf's SRCLINE_UNKNOWN */
	rep->nosrc_name = pmclog_strings__intern(strings, "??:0");
	if (!rep->kernel_name || !rep->unknown_name || !rep->hidden_name || !rep->nosrc_name) {
		free(rep);
		return NULL;
	}
	return rep;
}

void pmclog_report__free(struct pmclog_report *rep)
{
	if (!rep)
		return;
	free(rep->addrs);
	free(rep->ents);
	free(rep->rows);
	free(rep->profs);
	free(rep);
}

size_t pmclog_report__nrows(const struct pmclog_report *rep)
{
	return rep->nrows;
}

const struct pmclog_row *pmclog_report__row(const struct pmclog_report *rep,
					    size_t i)
{
	return i < rep->nrows ? &rep->rows[i] : NULL;
}

const struct pmclog_report_stats *pmclog_report__stats(const struct pmclog_report *rep)
{
	return &rep->stats;
}

size_t pmclog_report__nprofiles(const struct pmclog_report *rep)
{
	return rep->nprofs;
}

const struct pmclog_profile *pmclog_report__profile(const struct pmclog_report *rep,
						    size_t i)
{
	return i < rep->nprofs ? &rep->profs[i] : NULL;
}

/* ------------------------------------------------------------------ */
/* For the callgraph (pmclog_callgraph.c)                              */

/* Whether s passes the report's --pid and --time filters. */
bool pmclog_report__wanted(const struct pmclog_report *rep,
			   const struct pmclog_sample_loc *s)
{
	return pid_wanted(rep, s->pid) && time_wanted(rep, s->tstamp);
}

bool pmclog_report__pid_time_wanted(const struct pmclog_report *rep, __u32 pid,
				    __u64 tstamp)
{
	return (pid == PMCLOG_PID_KERNEL || pid_wanted(rep, pid)) && time_wanted(rep, tstamp);
}

bool pmclog_report__time_wanted(const struct pmclog_report *rep, __u64 tstamp)
{
	return time_wanted(rep, tstamp);
}

bool pmclog_report__pmc_kept(const struct pmclog_report *rep, __u32 pmcid)
{
	return pmcid < PMCLOG_PMCIDS && rep->prof_of[pmcid] >= 0;
}

/*
 * The names of a frame at addr of obj, as a sample's row has them
 * (resolve_one()), without counting it in the statistics.
 */
int pmclog_report__frame_name(struct pmclog_report *rep, struct pmclog_object *obj,
			      __u64 addr, bool user, bool hidden,
			      struct pmclog_frame_name *out)
{
	struct pmclog_resolved rv;
	int ret;

	out->kernel = !user;
	out->symbol = NULL;
	if (hidden) {
		out->object = rep->kernel_name;
		out->symbol = rep->hidden_name;
		return 0;
	}
	if (!obj) {
		out->object = rep->unknown_name;
		return 0;
	}
	ret = pmclog_resolver__resolve(rep->res, obj, addr, &rv);
	if (ret)
		return ret;
	out->kernel = obj_is_kernel(obj);
	out->object = object_name(rep, obj);
	if (rv.symbol)
		out->symbol = symbol_name(rep, rv.symbol);
	return out->object ? 0 : -ENOMEM;
}
