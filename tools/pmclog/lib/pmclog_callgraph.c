// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog callgraph: stacks by function.  See pmclog_callgraph.h.
 *
 * While the replay runs, each sample's stack is kept as it came: its
 * frames as distinct (object, object address, mode) keys, the stack as
 * the sequence of their indices, and identical stacks of a process and
 * PMC counted once.  Names wait for the end, when the log's KSYMBOLs are
 * complete: pmclog_callgraph__finish() names each distinct frame once,
 * then folds the stacks into three tries of functions per PMC: comm and
 * then outermost to leaf (folded), leaf to outermost (callers: pmcstat
 * -G), outermost to leaf without comm (callees).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_callgraph.h"
#include "pmclog_internal.h"

#define NONE	UINT32_MAX

/* A distinct frame; func is its function once named. */
struct fkey {
	struct pmclog_object *obj;	/* NULL: in no map; addr is the pc */
	__u64 addr;
	__u8 flags;			/* AE_USER, AE_HIDDEN */
	__u32 func;
};

/* A distinct stack: n frame keys at off in the arena, leaf first. */
struct stack {
	__u64 hash;
	__u64 count;
	size_t off;
	__u32 n;
	__u32 pid;
	__u32 pmcid;
};

/* A function of the trees (or a process, at the folded tree's top). */
struct func {
	const char *label;	/* interned: the symbol, or "[object]" */
	const char *object;	/* interned; NULL for a process */
	bool kernel;
};

struct node {
	__u32 func;
	__u32 child;		/* first child, or NONE */
	__u32 sibling;		/* next child of the parent, or NONE */
	__u64 count;		/* samples through it */
	__u64 self;		/* samples ending at it */
};

/* One PMC's trees: indices of their roots in nodes. */
struct graph {
	__u32 pmcid;
	__u32 folded, callers, callees;
	__u64 samples;
};

/* Open addressing over indices + 1 (0: free). */
struct index_hash {
	__u32 *slots;
	size_t cap;
	size_t n;
};

/*
 * What the timeline keeps (pmclog_callgraph__keep_timeline()), in replay
 * order: each sample the report keeps, and each MAP_IN and MAP_OUT.
 */
struct tl_ent {
	__u64 tstamp;
	__u32 type;		/* 0: a sample; PMCLOG_TYPE_MAP_IN, _MAP_OUT */
	__u32 pid, tid, cpu;
	__u32 pmcid;
	__u32 key;		/* a sample's own frame */
	__u32 stack;		/* its stack, or NONE */
	bool initial;		/* a MAP_IN of what START found mapped */
	__u64 start, end;	/* a map's */
	const char *path;	/* interned: a map's object; NULL: none known */
};

struct pmclog_callgraph {
	struct pmclog_report *rep;
	bool timeline;
	struct tl_ent *tl;
	size_t ntl, tl_cap;
	struct fkey *keys;
	size_t nkeys, keys_cap;
	struct index_hash key_hash;
	__u32 *arena;
	size_t arena_len, arena_cap;
	struct stack *stacks;
	size_t nstacks, stacks_cap;
	struct index_hash stack_hash;
	__u64 samples;

	struct func *funcs;
	size_t nfuncs, funcs_cap;
	struct index_hash func_hash;
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct graph *graphs;
	size_t ngraphs, graphs_cap;
	const char *unknown_comm;
};

static __u64 mix(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/*
 * The slot for the entry that same() says is key (hash h): the one that
 * holds it, or the free one where it goes.
 */
static __u32 *hash_slot(const struct index_hash *ih, __u64 h,
			bool (*same)(const struct pmclog_callgraph *, __u32, const void *),
			const struct pmclog_callgraph *cg, const void *key)
{
	size_t i = (size_t)(h ^ (h >> 31)) & (ih->cap - 1);

	while (ih->slots[i] && !same(cg, ih->slots[i] - 1, key))
		i = (i + 1) & (ih->cap - 1);
	return &ih->slots[i];
}

/* Room for one more entry; rehash(i) gives entry i's hash. */
static int hash_reserve(struct index_hash *ih, const struct pmclog_callgraph *cg,
			__u64 (*rehash)(const struct pmclog_callgraph *, __u32))
{
	struct index_hash grown;

	if ((ih->n + 1) * 2 <= ih->cap)
		return 0;
	grown.cap = ih->cap ? ih->cap * 2 : 1024;
	grown.n = ih->n;
	grown.slots = calloc(grown.cap, sizeof(*grown.slots));
	if (!grown.slots)
		return -ENOMEM;
	for (size_t i = 0; i < ih->cap; i++) {
		__u32 e = ih->slots[i];
		size_t j;

		if (!e)
			continue;
		j = (size_t)(rehash(cg, e - 1) ^ (rehash(cg, e - 1) >> 31)) & (grown.cap - 1);
		while (grown.slots[j])
			j = (j + 1) & (grown.cap - 1);
		grown.slots[j] = e;
	}
	free(ih->slots);
	*ih = grown;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Frames and stacks, as the replay hands them                        */

static __u64 fkey_hash(const struct fkey *k)
{
	return mix(mix((__u64)(uintptr_t)k->obj, k->addr), k->flags);
}

static __u64 fkey_rehash(const struct pmclog_callgraph *cg, __u32 i)
{
	return fkey_hash(&cg->keys[i]);
}

static bool fkey_same(const struct pmclog_callgraph *cg, __u32 i, const void *key)
{
	const struct fkey *a = &cg->keys[i], *b = key;

	return a->obj == b->obj && a->addr == b->addr && a->flags == b->flags;
}

/* The index of frame f's key, added if new; NONE when out of memory. */
static __u32 frame_index(struct pmclog_callgraph *cg, const struct pmclog_frame *f)
{
	struct fkey k = {
		.obj = f->obj, .addr = f->obj ? f->objaddr : f->pc,
		.flags = (f->user ? AE_USER : 0) | (f->hidden ? AE_HIDDEN : 0),
		.func = NONE,
	};
	__u32 *slot;

	if (hash_reserve(&cg->key_hash, cg, fkey_rehash))
		return NONE;
	slot = hash_slot(&cg->key_hash, fkey_hash(&k), fkey_same, cg, &k);
	if (*slot)
		return *slot - 1;
	if (cg->nkeys >= NONE - 1 || PMCLOG_GROW(cg->keys, cg->keys_cap, cg->nkeys + 1))
		return NONE;
	cg->keys[cg->nkeys] = k;
	*slot = (__u32)++cg->nkeys;
	cg->key_hash.n++;
	return *slot - 1;
}

static __u64 stack_rehash(const struct pmclog_callgraph *cg, __u32 i)
{
	return cg->stacks[i].hash;
}

/* The stack being added: its frames are at the arena's end. */
struct stack_key {
	__u64 hash;
	__u32 n, pid, pmcid;
	const __u32 *frames;
};

static bool stack_same(const struct pmclog_callgraph *cg, __u32 i, const void *key)
{
	const struct stack *s = &cg->stacks[i];
	const struct stack_key *k = key;

	return s->hash == k->hash && s->n == k->n && s->pid == k->pid &&
	       s->pmcid == k->pmcid &&
	       !memcmp(cg->arena + s->off, k->frames, k->n * sizeof(*k->frames));
}

static struct tl_ent *tl_add(struct pmclog_callgraph *cg, __u32 type, __u64 tstamp)
{
	struct tl_ent *e;

	if (PMCLOG_GROW(cg->tl, cg->tl_cap, cg->ntl + 1))
		return NULL;
	e = &cg->tl[cg->ntl++];
	*e = (struct tl_ent){ .type = type, .tstamp = tstamp, .stack = NONE, .key = NONE };
	return e;
}

/* The timeline's entry for sample s, whose stack is stack (or NONE). */
static int tl_sample(struct pmclog_callgraph *cg, const struct pmclog_sample_loc *s,
		     __u32 stack)
{
	struct pmclog_frame own = {
		.pc = s->pc, .obj = s->obj, .objaddr = s->objaddr, .user = s->user,
		.hidden = s->hidden,
	};
	__u32 key = stack == NONE ? frame_index(cg, &own) :
		    cg->arena[cg->stacks[stack].off];
	struct tl_ent *e = key == NONE ? NULL : tl_add(cg, 0, s->tstamp);

	if (!e)
		return -(errno = ENOMEM);
	e->pid = s->pid;
	e->tid = s->tid;
	e->cpu = s->cpu;
	e->pmcid = s->pmcid;
	e->key = key;
	e->stack = stack;
	return 0;
}

/* A pmclog_replay_record_fn: the timeline's MAP_IN and MAP_OUT. */
static int tl_record(void *ctx, const struct pmclog_record *rec)
{
	struct pmclog_callgraph *cg = ctx;
	struct pmclog_object *obj;
	struct tl_ent *e;
	__u32 pid;

	if (rec->type != PMCLOG_TYPE_MAP_IN && rec->type != PMCLOG_TYPE_MAP_OUT)
		return 0;
	pid = rec->type == PMCLOG_TYPE_MAP_IN ? rec->rec.map_in->pid : rec->rec.map_out->pid;
	if (!pmclog_report__pid_time_wanted(cg->rep, pid, rec->tstamp))
		return 0;
	e = tl_add(cg, rec->type, rec->tstamp);
	if (!e)
		return -(errno = ENOMEM);
	e->pid = pid;
	e->tid = pid;
	e->cpu = rec->cpu;
	if (rec->type == PMCLOG_TYPE_MAP_IN) {
		e->start = rec->rec.map_in->start;
		e->end = rec->rec.map_in->end;
		e->initial = rec->rec.map_in->flags & PMCLOG_MAP_F_INITIAL;
		e->path = pmclog_strings__intern(cg->rep->strings, rec->path);
		if (!e->path)
			return -(errno = ENOMEM);
	} else {
		/* Still mapped: the replay applies the MAP_OUT after this. */
		e->start = rec->rec.map_out->start;
		e->end = rec->rec.map_out->end;
		obj = pmclog_replay__object_at(cg->rep->replay, pid, e->start);
		e->path = obj ? obj->path : NULL;
	}
	return 0;
}

int pmclog_callgraph__keep_timeline(struct pmclog_callgraph *cg)
{
	cg->timeline = true;
	pmclog_replay__set_pre_record_fn(cg->rep->replay, tl_record, cg);
	return 0;
}

int pmclog_callgraph__sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_callgraph *cg = ctx;
	struct stack_key k;
	size_t off = cg->arena_len;
	__u32 *slot;

	if (!pmclog_report__wanted(cg->rep, s))
		return 0;
	if (!s->nframes)
		return cg->timeline ? tl_sample(cg, s, NONE) : 0;
	if (s->nframes > UINT32_MAX ||
	    PMCLOG_GROW(cg->arena, cg->arena_cap, off + s->nframes))
		return -(errno = ENOMEM);
	/* By pid even when the report does not sort by it: comm is per pid. */
	k = (struct stack_key){
		.n = (__u32)s->nframes, .pid = s->pid, .pmcid = s->pmcid,
		.frames = cg->arena + off,
	};
	k.hash = mix(mix(s->pid, s->pmcid), s->nframes);
	for (size_t i = 0; i < s->nframes; i++) {
		__u32 fi = frame_index(cg, &s->frames[i]);

		if (fi == NONE)
			return -(errno = ENOMEM);
		cg->arena[off + i] = fi;
		k.hash = mix(k.hash, fi);
	}
	if (hash_reserve(&cg->stack_hash, cg, stack_rehash))
		return -(errno = ENOMEM);
	cg->samples++;
	slot = hash_slot(&cg->stack_hash, k.hash, stack_same, cg, &k);
	if (*slot) {
		cg->stacks[*slot - 1].count++;
		/* its frames at the arena's end are dropped */
		return cg->timeline ? tl_sample(cg, s, *slot - 1) : 0;
	}
	if (cg->nstacks >= NONE - 1 || PMCLOG_GROW(cg->stacks, cg->stacks_cap, cg->nstacks + 1))
		return -(errno = ENOMEM);
	cg->stacks[cg->nstacks] = (struct stack){
		.hash = k.hash, .count = 1, .off = off, .n = k.n, .pid = k.pid,
		.pmcid = k.pmcid,
	};
	cg->arena_len = off + s->nframes;
	*slot = (__u32)++cg->nstacks;
	cg->stack_hash.n++;
	return cg->timeline ? tl_sample(cg, s, *slot - 1) : 0;
}

/* ------------------------------------------------------------------ */
/* Functions                                                          */

static __u64 func_hash(const struct func *f)
{
	return mix(mix((__u64)(uintptr_t)f->label, (__u64)(uintptr_t)f->object), f->kernel);
}

static __u64 func_rehash(const struct pmclog_callgraph *cg, __u32 i)
{
	return func_hash(&cg->funcs[i]);
}

static bool func_same(const struct pmclog_callgraph *cg, __u32 i, const void *key)
{
	const struct func *a = &cg->funcs[i], *b = key;

	return a->label == b->label && a->object == b->object && a->kernel == b->kernel;
}

/* The index of function f, added if new; NONE when out of memory. */
static __u32 func_index(struct pmclog_callgraph *cg, const struct func *f)
{
	__u32 *slot;

	if (!f->label || hash_reserve(&cg->func_hash, cg, func_rehash))
		return NONE;
	slot = hash_slot(&cg->func_hash, func_hash(f), func_same, cg, f);
	if (*slot)
		return *slot - 1;
	if (cg->nfuncs >= NONE - 1 || PMCLOG_GROW(cg->funcs, cg->funcs_cap, cg->nfuncs + 1))
		return NONE;
	cg->funcs[cg->nfuncs] = *f;
	*slot = (__u32)++cg->nfuncs;
	cg->func_hash.n++;
	return *slot - 1;
}

/* Name frame key k: its function, or its object in brackets. */
static int name_key(struct pmclog_callgraph *cg, struct fkey *k)
{
	struct pmclog_frame_name nm;
	struct func f;
	char buf[4200];
	int ret;

	ret = pmclog_report__frame_name(cg->rep, k->obj, k->addr, k->flags & AE_USER,
					k->flags & AE_HIDDEN, &nm);
	if (ret)
		return ret;
	f = (struct func){ .label = nm.symbol, .object = nm.object, .kernel = nm.kernel };
	/* An empty name (a log may hold one) would be an empty frame. */
	if (!f.label || !*f.label) {
		if (nm.object[0] == '[') {
			f.label = nm.object;
		} else {
			snprintf(buf, sizeof(buf), "[%s]", nm.object);
			f.label = pmclog_strings__intern(cg->rep->strings, buf);
		}
	}
	k->func = func_index(cg, &f);
	return k->func == NONE ? -ENOMEM : 0;
}

/* The process node's function: its executable's name (-pid by pid). */
static __u32 comm_func(struct pmclog_callgraph *cg, __u32 pid)
{
	const char *path = pmclog_replay__comm(cg->rep->replay, pid), *base;
	struct func f = { .label = cg->unknown_comm };
	char buf[4200];

	if (path) {
		base = strrchr(path, '/');
		f.label = base ? base + 1 : path;
		if (!*f.label)
			f.label = cg->unknown_comm;
	} else if (!pid) {
		f.label = "swapper";	/* the idle task, as perf names it */
	}
	if (cg->rep->by_pid) {
		snprintf(buf, sizeof(buf), "%s-%u", f.label, pid);
		f.label = buf;
	}
	f.label = pmclog_strings__intern(cg->rep->strings, f.label);
	return func_index(cg, &f);
}

/* ------------------------------------------------------------------ */
/* Trees                                                              */

static __u32 node_new(struct pmclog_callgraph *cg, __u32 func)
{
	if (cg->nnodes >= NONE - 1 || PMCLOG_GROW(cg->nodes, cg->nodes_cap, cg->nnodes + 1))
		return NONE;
	cg->nodes[cg->nnodes] = (struct node){ .func = func, .child = NONE, .sibling = NONE };
	return (__u32)cg->nnodes++;
}

/* parent's child for func, added if new. */
static __u32 node_child(struct pmclog_callgraph *cg, __u32 parent, __u32 func)
{
	__u32 c, n;

	for (c = cg->nodes[parent].child; c != NONE; c = cg->nodes[c].sibling)
		if (cg->nodes[c].func == func)
			return c;
	n = node_new(cg, func);
	if (n == NONE)
		return NONE;
	cg->nodes[n].sibling = cg->nodes[parent].child;
	cg->nodes[parent].child = n;
	return n;
}

/*
 * Add count samples along funcs[0..n) below root, in the order given (up
 * = from the last to the first); the last node takes them as its own.
 */
static int tree_add(struct pmclog_callgraph *cg, __u32 root, const __u32 *funcs,
		    size_t n, bool up, __u64 count)
{
	__u32 at = root;

	cg->nodes[root].count += count;
	for (size_t i = 0; i < n; i++) {
		at = node_child(cg, at, funcs[up ? n - 1 - i : i]);
		if (at == NONE)
			return -ENOMEM;
		cg->nodes[at].count += count;
	}
	cg->nodes[at].self += count;
	return 0;
}

static struct graph *graph_of(struct pmclog_callgraph *cg, __u32 pmcid)
{
	struct graph *g;

	for (size_t i = 0; i < cg->ngraphs; i++)
		if (cg->graphs[i].pmcid == pmcid)
			return &cg->graphs[i];
	if (PMCLOG_GROW(cg->graphs, cg->graphs_cap, cg->ngraphs + 1))
		return NULL;
	g = &cg->graphs[cg->ngraphs];
	*g = (struct graph){ .pmcid = pmcid };
	g->folded = node_new(cg, NONE);
	g->callers = node_new(cg, NONE);
	g->callees = node_new(cg, NONE);
	if (g->folded == NONE || g->callers == NONE || g->callees == NONE)
		return NULL;
	cg->ngraphs++;
	return g;
}

static int graph_pmcid_cmp(const void *a, const void *b)
{
	const struct graph *x = a, *y = b;

	return x->pmcid < y->pmcid ? -1 : x->pmcid > y->pmcid;
}

int pmclog_callgraph__finish(struct pmclog_callgraph *cg)
{
	__u32 *funcs = NULL;
	size_t funcs_cap = 0;
	int ret = 0;

	for (size_t i = 0; i < cg->nkeys && !ret; i++)
		ret = name_key(cg, &cg->keys[i]);
	for (size_t i = 0; i < cg->nstacks && !ret; i++) {
		const struct stack *s = &cg->stacks[i];
		struct graph *g;
		__u32 comm;

		/* The stacks of an event the report left out (--event) go too. */
		if (!pmclog_report__pmc_kept(cg->rep, s->pmcid)) {
			cg->samples -= s->count;
			continue;
		}
		g = graph_of(cg, s->pmcid);
		comm = comm_func(cg, s->pid);
		if (!g || comm == NONE || PMCLOG_GROW(funcs, funcs_cap, (size_t)s->n + 1)) {
			ret = -ENOMEM;
			break;
		}
		/* funcs: comm, then outermost to leaf. */
		funcs[0] = comm;
		for (__u32 j = 0; j < s->n; j++)
			funcs[1 + j] = cg->keys[cg->arena[s->off + s->n - 1 - j]].func;
		g->samples += s->count;
		ret = tree_add(cg, g->folded, funcs, (size_t)s->n + 1, false, s->count);
		if (!ret)
			ret = tree_add(cg, g->callers, funcs + 1, s->n, true, s->count);
		if (!ret)
			ret = tree_add(cg, g->callees, funcs + 1, s->n, false, s->count);
	}
	free(funcs);
	if (cg->ngraphs)
		qsort(cg->graphs, cg->ngraphs, sizeof(*cg->graphs), graph_pmcid_cmp);
	return ret ? -(errno = -ret) : 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                             */

/* qsort_r() comparators of node indices; arg is the callgraph. */
static int by_count(const void *a, const void *b, void *arg)
{
	const struct pmclog_callgraph *cg = arg;
	const struct node *x = &cg->nodes[*(const __u32 *)a];
	const struct node *y = &cg->nodes[*(const __u32 *)b];
	const struct func *fx = &cg->funcs[x->func], *fy = &cg->funcs[y->func];
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(fx->label, fy->label);
	return c ? c : strcmp(fx->object ? fx->object : "", fy->object ? fy->object : "");
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct pmclog_callgraph *cg = arg;
	const struct node *x = &cg->nodes[*(const __u32 *)a];
	const struct node *y = &cg->nodes[*(const __u32 *)b];
	const struct func *fx = &cg->funcs[x->func], *fy = &cg->funcs[y->func];
	int c = strcmp(fx->label, fy->label);

	if (c)
		return c;
	if (fx->kernel != fy->kernel)
		return fx->kernel ? 1 : -1;
	return strcmp(fx->object ? fx->object : "", fy->object ? fy->object : "");
}

/* node's children, sorted by cmp; NULL (and *n 0) for none or no memory. */
static __u32 *children(const struct pmclog_callgraph *cg, __u32 node, size_t *n,
		       int (*cmp)(const void *, const void *, void *))
{
	__u32 *v = NULL, c;
	size_t cap = 0;

	*n = 0;
	for (c = cg->nodes[node].child; c != NONE; c = cg->nodes[c].sibling) {
		if (PMCLOG_GROW(v, cap, *n + 1)) {
			free(v);
			*n = 0;
			return NULL;
		}
		v[(*n)++] = c;
	}
	if (*n)
		qsort_r(v, *n, sizeof(*v), cmp, (void *)cg);
	return v;
}

static const char *graph_label(const struct pmclog_callgraph *cg, __u32 pmcid);

/*
 * One line per node with samples of its own.  With several graphs (PMCs)
 * each line starts with its event's label as a frame of its own, as the
 * folded rows of report --format folded do: one flame graph shows the
 * events side by side, --event keeps one.
 */
static void folded_node(const struct pmclog_callgraph *cg, const struct graph *g,
			__u32 node, __u32 *path, size_t depth, FILE *f)
{
	const struct node *nd = &cg->nodes[node];
	__u32 *kids;
	size_t n;

	path[depth++] = nd->func;
	if (nd->self) {
		if (cg->ngraphs > 1) {
			const char *label = graph_label(cg, g->pmcid);

			if (label)
				pmclog_report__put_field(f, label, ";");
			else
				fprintf(f, "pmc %u", g->pmcid);
			fputc(';', f);
		}
		for (size_t i = 0; i < depth; i++) {
			const struct func *fn = &cg->funcs[path[i]];

			if (i)
				fputc(';', f);
			pmclog_report__put_field(f, fn->label, ";");
			if (fn->kernel)
				fputs("_[k]", f);
		}
		fprintf(f, " %llu\n", (unsigned long long)nd->self);
	}
	kids = children(cg, node, &n, by_name);
	for (size_t i = 0; i < n; i++)
		folded_node(cg, g, kids[i], path, depth, f);
	free(kids);
}

void pmclog_callgraph__print_folded(const struct pmclog_callgraph *cg, FILE *f)
{
	size_t longest = 0;
	__u32 *path;

	for (size_t i = 0; i < cg->nstacks; i++)
		if (cg->stacks[i].n > longest)
			longest = cg->stacks[i].n;
	path = calloc(longest + 1, sizeof(*path));
	if (!path)
		return;
	for (size_t g = 0; g < cg->ngraphs; g++) {
		size_t n;
		__u32 *comms = children(cg, cg->graphs[g].folded, &n, by_name);

		for (size_t i = 0; i < n; i++)
			folded_node(cg, &cg->graphs[g], comms[i], path, 0, f);
		free(comms);
	}
	free(path);
}

/*
 * The event of PMC pmcid as the text report's sections name it: its
 * profile's label ("cpu-clock", "NAME#ID" when two PMCs share the name);
 * NULL when the log has no PMCALLOCATE for it.
 */
static const char *graph_label(const struct pmclog_callgraph *cg, __u32 pmcid)
{
	const struct pmclog_report *rep = cg->rep;
	const struct pmclog_profile *p;

	if (pmcid >= PMCLOG_PMCIDS || rep->prof_of[pmcid] < 0)
		return NULL;
	p = &rep->profs[rep->prof_of[pmcid]];
	return p->pmc ? p->label : NULL;
}

/*
 * pmcstat's line: depth spaces, the percentage of the parent's samples,
 * " [count] " in 12 columns, depth spaces, the function, and " @ object"
 * when the object is not the line above's.
 */
static void tree_node(const struct pmclog_callgraph *cg, __u32 node, int depth,
		      __u64 parent, const char **last_object, FILE *f)
{
	const struct node *nd = &cg->nodes[node];
	const struct func *fn = &cg->funcs[nd->func];
	__u32 *kids;
	size_t n;
	int w;

	if (depth)
		fprintf(f, "%*s", depth, "");
	if (nd->count == parent)
		fputs("100.0% ", f);
	else
		fprintf(f, "%05.2f%% ", parent ? 100.0 * (double)nd->count / (double)parent : 0.0);
	w = fprintf(f, " [%llu] ", (unsigned long long)nd->count);
	if (w < 12)
		fprintf(f, "%*s", 12 - w, "");
	if (depth)
		fprintf(f, "%*s", depth, "");
	pmclog_report__put_field(f, fn->label, "");
	if (fn->object && fn->object != *last_object) {
		fputs(" @ ", f);
		pmclog_report__put_field(f, fn->object, "");
		*last_object = fn->object;
	}
	fputc('\n', f);
	kids = children(cg, node, &n, by_count);
	for (size_t i = 0; i < n; i++)
		tree_node(cg, kids[i], depth + 1, nd->count, last_object, f);
	free(kids);
}

static void tree_print(const struct pmclog_callgraph *cg, const struct graph *g,
		       __u32 root, const char *what, FILE *f)
{
	const char *label = graph_label(cg, g->pmcid);
	size_t n;
	__u32 *tops = children(cg, root, &n, by_count);

	if (label) {
		fputs("@ ", f);
		pmclog_report__put_field(f, label, "");
	} else {
		fprintf(f, "@ pmc %u", g->pmcid);
	}
	fprintf(f, " [%llu samples]%s\n\n", (unsigned long long)g->samples, what);
	for (size_t i = 0; i < n; i++) {
		const char *last_object = NULL;

		tree_node(cg, tops[i], 0, g->samples, &last_object, f);
		fputc('\n', f);
	}
	free(tops);
}

void pmclog_callgraph__print_tree(const struct pmclog_callgraph *cg, FILE *f)
{
	for (size_t g = 0; g < cg->ngraphs; g++) {
		tree_print(cg, &cg->graphs[g], cg->graphs[g].callers, "", f);
		tree_print(cg, &cg->graphs[g], cg->graphs[g].callees, " callees", f);
	}
}

/*
 * The folded tree as JSON, for pmclog flamegraph: the same nodes as the
 * folded lines (comm, then outermost to leaf), children in name order.
 */
static void flame_node(const struct pmclog_callgraph *cg, __u32 node, FILE *f)
{
	const struct node *nd = &cg->nodes[node];
	const struct func *fn = &cg->funcs[nd->func];
	__u32 *kids;
	size_t n;

	fputs("{\"name\":", f);
	pmclog_json_str(f, fn->label, true);
	fputs(",\"object\":", f);
	pmclog_json_str(f, fn->object, true);
	fprintf(f, ",\"kind\":\"%s\",\"value\":%llu,\"self\":%llu,\"children\":[",
		!fn->object ? "process" : fn->kernel ? "kernel" : "user",
		(unsigned long long)nd->count, (unsigned long long)nd->self);
	kids = children(cg, node, &n, by_name);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		flame_node(cg, kids[i], f);
	}
	free(kids);
	fputs("]}", f);
}

void pmclog_callgraph__print_flame_json(const struct pmclog_callgraph *cg, FILE *f)
{
	fputs("{\"format\":\"pmclog-flamegraph\",\"version\":1,\"events\":[", f);
	for (size_t g = 0; g < cg->ngraphs; g++) {
		const struct graph *gr = &cg->graphs[g];
		const char *label = graph_label(cg, gr->pmcid);
		char buf[32];
		__u32 *comms;
		size_t n;

		if (!label) {
			snprintf(buf, sizeof(buf), "pmc %u", gr->pmcid);
			label = buf;
		}
		fprintf(f, "%s\n{\"pmcid\":%u,\"label\":", g ? "," : "", gr->pmcid);
		pmclog_json_str(f, label, true);
		fprintf(f, ",\"samples\":%llu,\"root\":{\"name\":\"all\",\"object\":null,"
			"\"kind\":\"root\",\"value\":%llu,\"self\":0,\"children\":[",
			(unsigned long long)gr->samples, (unsigned long long)gr->samples);
		comms = children(cg, gr->folded, &n, by_name);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n" : "\n", f);
			flame_node(cg, comms[i], f);
		}
		free(comms);
		fputs("]}}", f);
	}
	fputs("\n]}\n", f);
}

/* ------------------------------------------------------------------ */
/* The timeline as a Chrome trace                                     */

/* The callees-tree node of stack si in graph g: its "sf" id. */
static __u32 stack_node(const struct pmclog_callgraph *cg, const struct graph *g, __u32 si)
{
	const struct stack *st = &cg->stacks[si];
	__u32 at = g->callees;

	for (__u32 j = st->n; j-- > 0 && at != NONE;) {
		__u32 func = cg->keys[cg->arena[st->off + j]].func, c;

		for (c = cg->nodes[at].child; c != NONE && cg->nodes[c].func != func;
		     c = cg->nodes[c].sibling)
			;
		at = c;
	}
	return at;
}

static void trace_frames(const struct pmclog_callgraph *cg, __u32 node, __u32 parent,
			 bool *first, FILE *f)
{
	for (__u32 c = cg->nodes[node].child; c != NONE; c = cg->nodes[c].sibling) {
		const struct func *fn = &cg->funcs[cg->nodes[c].func];

		fprintf(f, "%s\n\"%u\":{\"name\":", *first ? "" : ",", c);
		*first = false;
		pmclog_json_str(f, fn->label, false);
		fputs(",\"category\":", f);
		pmclog_json_str(f, fn->object, false);
		if (parent != NONE)
			fprintf(f, ",\"parent\":\"%u\"", parent);
		fputc('}', f);
		trace_frames(cg, c, c, first, f);
	}
}

/* A process's name: its executable's, as folded's comm (without -pid). */
static const char *trace_comm(const struct pmclog_callgraph *cg, __u32 pid)
{
	const char *path = pmclog_replay__comm(cg->rep->replay, pid), *base;

	if (!path)
		return pid ? cg->unknown_comm : "swapper";
	base = strrchr(path, '/');
	return base && base[1] ? base + 1 : path;
}

static int pid_tid_cmp(const void *a, const void *b)
{
	const __u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Chrome's pid of a record: the kernel's (-1) is the trace's process 0. */
static unsigned int trace_pid(__u32 pid)
{
	return pid == PMCLOG_PID_KERNEL ? 0 : pid;
}

static void trace_ts(FILE *f, __u64 tstamp, __u64 start)
{
	__u64 ns = tstamp > start ? tstamp - start : 0;

	fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/*
 * The metadata events: a name for each process and thread of the trace
 * (at least one when the timeline has entries: *first is then false).
 */
static int trace_names(const struct pmclog_callgraph *cg, FILE *f, bool *first)
{
	__u64 *ids = calloc(cg->ntl ? cg->ntl : 1, sizeof(*ids));
	size_t n = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < cg->ntl; i++)
		ids[n++] = (__u64)trace_pid(cg->tl[i].pid) << 32 |
			   (cg->tl[i].type ? trace_pid(cg->tl[i].pid) : cg->tl[i].tid);
	if (n)
		qsort(ids, n, sizeof(*ids), pid_tid_cmp);
	for (size_t i = 0; i < n; i++) {
		unsigned int pid = (unsigned int)(ids[i] >> 32), tid = (unsigned int)ids[i];
		const char *comm = trace_comm(cg, pid);

		if (i && ids[i] == ids[i - 1])
			continue;
		if (!i || ids[i] >> 32 != ids[i - 1] >> 32) {
			fprintf(f, "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
				"\"args\":{\"name\":", *first ? "" : ",", pid, pid);
			*first = false;
			/* Process 0: the idle task's samples and the kernel's maps. */
			pmclog_json_str(f, pid ? comm : "swapper, kernel", false);
			fputs("}}", f);
		}
		fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
			"\"args\":{\"name\":", pid, tid);
		pmclog_json_str(f, comm, false);
		fputs("}}", f);
	}
	free(ids);
	return 0;
}

static void trace_map(const struct pmclog_callgraph *cg, const struct tl_ent *e,
		      __u64 start, FILE *f)
{
	bool kernel = e->pid == PMCLOG_PID_KERNEL;
	bool in = e->type == PMCLOG_TYPE_MAP_IN;
	const char *what = kernel && !e->initial ? (in ? "module load " : "module unload ") :
			   in ? "MAP_IN " : "MAP_OUT ";
	const char *path = e->path ? e->path : "[unknown]", *base = strrchr(path, '/');
	char name[4200];

	(void)cg;
	snprintf(name, sizeof(name), "%s%s", what, base && base[1] ? base + 1 : path);
	fputs(",\n{\"name\":", f);
	pmclog_json_str(f, name, false);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"%s\",\"ts\":",
		kernel ? "module" : "map", kernel ? "g" : "p");
	trace_ts(f, e->tstamp, start);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"path\":", trace_pid(e->pid),
		trace_pid(e->pid));
	pmclog_json_str(f, e->path, false);
	fprintf(f, ",\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"initial\":%s,\"cpu\":%u}}",
		(unsigned long long)e->start, (unsigned long long)e->end,
		e->initial ? "true" : "false", e->cpu);
}

static void trace_sample(const struct pmclog_callgraph *cg, const struct tl_ent *e,
			 __u64 start, FILE *f)
{
	const struct func *fn = &cg->funcs[cg->keys[e->key].func];
	const char *label = graph_label(cg, e->pmcid);
	const struct graph *g = NULL;
	__u32 sf = NONE;

	for (size_t i = 0; i < cg->ngraphs && e->stack != NONE; i++)
		if (cg->graphs[i].pmcid == e->pmcid)
			g = &cg->graphs[i];
	if (g)
		sf = stack_node(cg, g, e->stack);
	fputs(",\n{\"name\":", f);
	pmclog_json_str(f, fn->label, false);
	fputs(",\"cat\":\"sample\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", f);
	trace_ts(f, e->tstamp, start);
	fprintf(f, ",\"pid\":%u,\"tid\":%u", trace_pid(e->pid), e->tid);
	if (sf != NONE)
		fprintf(f, ",\"sf\":\"%u\"", sf);
	fputs(",\"args\":{\"object\":", f);
	pmclog_json_str(f, fn->object, false);
	fputs(",\"event\":", f);
	if (label)
		pmclog_json_str(f, label, false);
	else
		fprintf(f, "\"pmc %u\"", e->pmcid);
	fprintf(f, ",\"kernel\":%s,\"cpu\":%u}}", fn->kernel ? "true" : "false", e->cpu);
}

int pmclog_callgraph__print_chrome_trace(const struct pmclog_callgraph *cg, FILE *f)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(cg->rep->replay);
	bool first = true;

	if (!cg->timeline)
		return -(errno = EINVAL);
	fputs("{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"format\":\"pmclog chrome-trace\","
	      "\"version\":1},\n\"traceEvents\":[", f);
	if (trace_names(cg, f, &first))
		return -(errno = ENOMEM);
	for (size_t i = 0; i < cg->ntl; i++) {
		const struct tl_ent *e = &cg->tl[i];

		if (e->type)
			trace_map(cg, e, st->start_tstamp, f);
		else if (pmclog_report__pmc_kept(cg->rep, e->pmcid))
			trace_sample(cg, e, st->start_tstamp, f);
	}
	fputs("\n],\n\"stackFrames\":{", f);
	first = true;
	for (size_t g = 0; g < cg->ngraphs; g++)
		trace_frames(cg, cg->graphs[g].callees, NONE, &first, f);
	fputs("\n}}\n", f);
	return 0;
}

/* ------------------------------------------------------------------ */

int pmclog_callgraph__report_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_callgraph *cg = ctx;
	int ret = pmclog_report__sample(cg->rep, s);

	return ret ? ret : pmclog_callgraph__sample(cg, s);
}

struct pmclog_callgraph *pmclog_callgraph__new(struct pmclog_report *rep)
{
	struct pmclog_callgraph *cg = calloc(1, sizeof(*cg));

	if (!cg)
		return NULL;
	cg->rep = rep;
	cg->unknown_comm = pmclog_strings__intern(rep->strings, "[unknown]");
	if (!cg->unknown_comm) {
		free(cg);
		return NULL;
	}
	return cg;
}

void pmclog_callgraph__free(struct pmclog_callgraph *cg)
{
	if (!cg)
		return;
	free(cg->keys);
	free(cg->key_hash.slots);
	free(cg->arena);
	free(cg->stacks);
	free(cg->stack_hash.slots);
	free(cg->funcs);
	free(cg->func_hash.slots);
	free(cg->nodes);
	free(cg->graphs);
	free(cg->tl);
	free(cg);
}

__u64 pmclog_callgraph__samples(const struct pmclog_callgraph *cg)
{
	return cg->samples;
}
