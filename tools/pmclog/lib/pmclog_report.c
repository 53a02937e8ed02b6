// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog report: sample counting, resolution and rows.  The output
 * formats are in pmclog_report_fmt.c, gprof output in pmclog_gmon.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"

/* ------------------------------------------------------------------ */
/* Distinct addresses: open addressing on (pid, flags, obj, addr).     */

static __u64 addr_hash(const struct addr_ent *e)
{
	__u64 h = e->addr * 0x9e3779b97f4a7c15ULL;

	h ^= (__u64)(uintptr_t)e->obj * 0xc2b2ae3d27d4eb4fULL;
	h ^= ((__u64)e->pid << 8 | e->flags) * 0x165667b19e3779f9ULL;
	return h ^ (h >> 29);
}

static bool addr_same(const struct addr_ent *a, const struct addr_ent *b)
{
	return a->addr == b->addr && a->obj == b->obj && a->pid == b->pid &&
	       a->flags == b->flags;
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
	};
	struct addr_ent *e;

	if (!pid_wanted(rep, s->pid) || !time_wanted(rep, s->tstamp)) {
		rep->stats.filtered_out++;
		return 0;
	}
	rep->stats.samples++;
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

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* __cxa_demangle from libstdc++, when it is installed; else NULL. */
static cxa_demangle_fn demangler(struct pmclog_report *rep)
{
	if (!rep->dl_tried) {
		rep->dl_tried = true;
		rep->dl = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (rep->dl)
			*(void **)&rep->cxa_demangle = dlsym(rep->dl, "__cxa_demangle");
	}
	return (cxa_demangle_fn)rep->cxa_demangle;
}

static const char *symbol_name(struct pmclog_report *rep, const char *raw)
{
	cxa_demangle_fn fn;
	const char *name;
	char *out;
	int st;

	if (!rep->opts.demangle || strncmp(raw, "_Z", 2))
		return raw;
	fn = demangler(rep);
	if (!fn)
		return raw;
	out = fn(raw, NULL, NULL, &st);
	if (!out || st)
		return raw;
	name = pmclog_strings__intern(rep->strings, out);
	free(out);
	return name ? name : raw;
}

static const char *hex_name(struct pmclog_report *rep, __u64 addr)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return pmclog_strings__intern(rep->strings, buf);
}

static const char *object_name(struct pmclog_report *rep,
			       const struct pmclog_object *obj)
{
	const char *base = strrchr(obj->path, '/');
	bool missing = pmclog_resolver__state(obj) == PMCLOG_OBJST_NOTFOUND;
	char buf[4200];

	switch (obj->kind) {
	case PMCLOG_OBJ_KMODULE:
	case PMCLOG_OBJ_KMODULE_INIT:
		snprintf(buf, sizeof(buf), "[%s]%s", obj->path,
			 missing ? " [not found]" : "");
		break;
	case PMCLOG_OBJ_FILE:
		snprintf(buf, sizeof(buf), "%s%s",
			 rep->opts.full_paths || !base ? obj->path : base + 1,
			 missing ? " [not found]" : "");
		break;
	default:
		snprintf(buf, sizeof(buf), "%s%s", obj->path,
			 missing && obj->kind == PMCLOG_OBJ_KERNEL ? " [not found]" : "");
		break;
	}
	return pmclog_strings__intern(rep->strings, buf);
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

	memset(r, 0, sizeof(*r));
	r->count = a->count;
	r->pid = a->pid;
	r->kernel = !(a->flags & AE_USER);
	if (a->flags & AE_HIDDEN) {
		rep->stats.hidden += a->count;
		r->object = rep->kernel_name;
		r->symbol = rep->hidden_name;
		return r->symbol ? 0 : -ENOMEM;
	}
	if (!a->obj) {
		rep->stats.no_object += a->count;
		r->object = rep->unknown_name;
		r->symbol = hex_name(rep, a->addr);
		return r->symbol ? 0 : -ENOMEM;
	}
	ret = pmclog_resolver__resolve(rep->res, a->obj, a->addr, &rv);
	if (ret)
		return ret;
	r->obj = a->obj;
	r->kernel = obj_is_kernel(a->obj);
	r->object = object_name(rep, a->obj);
	r->addr = rv.addr;
	r->has_vaddr = rv.vaddr;
	if (rv.symbol) {
		rep->stats.resolved += a->count;
		r->symbol = symbol_name(rep, rv.symbol);
	} else {
		rep->stats.no_function += a->count;
		r->symbol = hex_name(rep, rv.addr);
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
		ret = resolve_one(rep, &rep->addrs[i], &rep->ents[n++]);
		if (ret)
			return ret;
	}
	rep->nents = n;
	return 0;
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

/* ------------------------------------------------------------------ */
/* Rows                                                               */

static int ptr_cmp(const void *a, const void *b)
{
	return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? -1 : 1;
}

static int row_key_cmp(const void *a, const void *b)
{
	const struct pmclog_row *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	c = ptr_cmp(x->object, y->object);
	return c ? c : ptr_cmp(x->symbol, y->symbol);
}

static int row_cmp(const void *a, const void *b)
{
	const struct pmclog_row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	c = strcmp(x->object ? x->object : "", y->object ? y->object : "");
	return c ? c : strcmp(x->symbol ? x->symbol : "", y->symbol ? y->symbol : "");
}

static void make_rows(struct pmclog_report *rep)
{
	bool pid = sorts_by(rep, PMCLOG_SORT_PID), dso = sorts_by(rep, PMCLOG_SORT_DSO);
	bool sym = sorts_by(rep, PMCLOG_SORT_SYM);
	size_t n = 0;

	for (size_t i = 0; i < rep->nents; i++) {
		const struct res_ent *e = &rep->ents[i];

		rep->rows[i] = (struct pmclog_row){
			.samples = e->count, .pid = pid ? e->pid : 0,
			.object = dso ? e->object : NULL,
			.symbol = sym ? e->symbol : NULL,
			.kernel = (dso || sym) && e->kernel,
		};
	}
	qsort(rep->rows, rep->nents, sizeof(*rep->rows), row_key_cmp);
	for (size_t i = 0; i < rep->nents; i++) {
		if (n && !row_key_cmp(&rep->rows[n - 1], &rep->rows[i]))
			rep->rows[n - 1].samples += rep->rows[i].samples;
		else
			rep->rows[n++] = rep->rows[i];
	}
	for (size_t i = 0; pid && i < n; i++)
		rep->rows[i].comm = pmclog_replay__comm(rep->replay, rep->rows[i].pid);
	qsort(rep->rows, n, sizeof(*rep->rows), row_cmp);
	rep->nrows = n;
}

int pmclog_report__finish(struct pmclog_report *rep)
{
	int ret = resolve_all(rep);

	if (ret)
		return ret;
	count_objects(rep);
	rep->rows = calloc(rep->nents ? rep->nents : 1, sizeof(*rep->rows));
	if (!rep->rows)
		return -ENOMEM;
	make_rows(rep);
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
	if (!rep->kernel_name || !rep->unknown_name || !rep->hidden_name) {
		free(rep);
		return NULL;
	}
	return rep;
}

void pmclog_report__free(struct pmclog_report *rep)
{
	if (!rep)
		return;
	if (rep->dl)
		dlclose(rep->dl);
	free(rep->addrs);
	free(rep->ents);
	free(rep->rows);
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

/* ------------------------------------------------------------------ */
/* For the callgraph (pmclog_callgraph.c)                              */

/* Whether s passes the report's --pid and --time filters. */
bool pmclog_report__wanted(const struct pmclog_report *rep,
			   const struct pmclog_sample_loc *s)
{
	return pid_wanted(rep, s->pid) && time_wanted(rep, s->tstamp);
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
