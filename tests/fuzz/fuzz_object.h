/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fuzz_debug and fuzz_srcline share: one object under a scratch
 * ROOT, mapped whole by one process of a log (at offset 0 from address
 * 0, so that a sample's address is its file offset), samples on the
 * symbols a load of it found; the resolver's names for them checked
 * against that load, its source lines against what pmclog_srcline.c
 * promises, and the report of the log run in every format.
 */
#ifndef FUZZ_OBJECT_H
#define FUZZ_OBJECT_H

#include <ctype.h>
#include <limits.h>

#include "fuzz_common.h"
#include "log_builder.h"
#include "pmclog_internal.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "pmclog_symtab.h"

#define FZ_PID		10
#define FZ_MAX_SAMPLED	48	/* symbols given samples */

/* A file offset at which e's vaddr is, through its segments. */
static inline bool fz_vaddr_to_offset(const struct pmclog_elf *e, __u64 vaddr, __u64 *off)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct pmclog_elf_segment *s = &e->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

static inline void fz_sample(struct logbuf *b, __u64 pc)
{
	/* The map ends at UINT64_MAX, which is outside it. */
	if (pc != UINT64_MAX && b->len + sizeof(struct pmclog_pcsample) + 64 <= sizeof(b->data))
		lb_pcsample(b, 0, FZ_PID, FZ_PID, pc, 1);
}

/*
 * The start of the log: INITIALIZE, FZ_PID's map of objpath, and its
 * BUILDID (idlen bytes of id) when idlen is not 0.
 */
static inline void fz_object_log(struct logbuf *b, const char *objpath, const __u8 *id,
				 size_t idlen)
{
	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	lb_map_in(b, FZ_PID, 0, UINT64_MAX, 0, 0, objpath);
	if (idlen) {
		struct pmclog_buildid *r;

		r = (struct pmclog_buildid *)(b->data + lb_buildid(b, FZ_PID, 0, (__u8)idlen, 0));
		memcpy(r->build_id, id, idlen);
	}
}

/* Samples at the first and last byte of up to FZ_MAX_SAMPLED of e's symbols. */
static inline void fz_sample_symbols(struct logbuf *b, const struct pmclog_elf *e)
{
	size_t n = e ? pmclog_symtab__count(e->text) : 0;
	size_t step = n > FZ_MAX_SAMPLED ? n / FZ_MAX_SAMPLED : 1;

	for (size_t i = 0; i < n; i += step) {
		const struct pmclog_sym *s = pmclog_symtab__at(e->text, i);
		__u64 a, z;

		if (fz_vaddr_to_offset(e, s->addr, &a) &&
		    fz_vaddr_to_offset(e, s->addr + s->size - 1, &z)) {
			fz_sample(b, a);
			fz_sample(b, z);
		}
	}
}

static void fz_add_record(void *ctx, const struct pmclog_record *rec)
{
	if (pmclog_replay__add(ctx, rec))
		fz_fail("pmclog_replay__add: %s", strerror(errno));
}

static inline struct pmclog_replay *fz_replay_of(const struct logbuf *b,
						 struct pmclog_strings *strings)
{
	struct pmclog_replay *rp = pmclog_replay__new(strings);

	if (!rp)
		fz_fail("out of memory");
	FZ_CHECK(fz_read_log(b->data, b->len, fz_add_record, rp) == 0,
		 "the reader refused a log from log_builder.h");
	return rp;
}

/*
 * A source line as pmclog_srcline.c makes it: "FILE:LINE", FILE the last
 * component of a path (no '/'), LINE a number.
 */
static inline void fz_check_srcline(const char *sl)
{
	const char *colon = strrchr(sl, ':'), *d;

	FZ_CHECK(colon && !memchr(sl, '/', (size_t)(colon - sl)),
		 "source line '%s' is not FILE:LINE with FILE without '/'", sl);
	d = colon + 1 + (colon[1] == '-');
	FZ_CHECK(*d, "source line '%s' without a line number", sl);
	for (; *d; d++)
		FZ_CHECK(isdigit((unsigned char)*d), "source line '%s': line not a number", sl);
}

/* What the resolver must make of the object's samples. */
struct fz_names {
	struct pmclog_resolver *res;
	const struct pmclog_elf *e;	/* what it must load; NULL: that it loads nothing */
	const char *detail;		/* NULL, or what its -v detail must hold */
	bool srclines;			/* ask each sample's source line */
	size_t checked;
};

/*
 * The source line of a sample: the same (interned) string when asked
 * again, none outside the object's segments or when it did not load.
 */
static inline void fz_check_sample_srcline(struct fz_names *x, const struct pmclog_sample_loc *s)
{
	const char *sl = pmclog_resolver__srcline(x->res, s->obj, s->objaddr);
	__u64 v;

	if (!sl)
		return;
	FZ_CHECK(x->e && pmclog_elf__offset_to_vaddr(x->e, s->objaddr, &v),
		 "a source line (%s) at 0x%llx, of no address the object has", sl,
		 (unsigned long long)s->objaddr);
	fz_check_srcline(sl);
	FZ_CHECK(pmclog_resolver__srcline(x->res, s->obj, s->objaddr) == sl,
		 "another source line when 0x%llx is asked again", (unsigned long long)s->objaddr);
}

static int fz_check_names(void *ctx, const struct pmclog_sample_loc *s)
{
	struct fz_names *x = ctx;
	const struct pmclog_sym *want = NULL;
	struct pmclog_resolved got;
	enum pmclog_obj_state st;
	const char *detail;
	__u64 v;

	FZ_CHECK(s->obj, "sample at 0x%llx in no map", (unsigned long long)s->pc);
	FZ_CHECK(!pmclog_resolver__resolve(x->res, s->obj, s->objaddr, &got),
		 "pmclog_resolver__resolve failed");
	st = pmclog_resolver__state(s->obj);
	detail = pmclog_resolver__detail(s->obj);
	FZ_CHECK(!x->detail || strstr(detail, x->detail), "%s: -v says '%s', not '%s'",
		 s->obj->path, detail, x->detail);
	if (!x->e) {
		FZ_CHECK(st == PMCLOG_OBJST_NOTFOUND && !got.symbol && detail[0],
			 "%s: state %d, expected not found with a reason", s->obj->path, st);
	} else {
		FZ_CHECK(st == PMCLOG_OBJST_LOADED, "%s: state %d (%s), expected loaded",
			 s->obj->path, st, detail);
		if (pmclog_elf__offset_to_vaddr(x->e, s->objaddr, &v))
			want = pmclog_symtab__lookup(x->e->text, v);
		FZ_CHECK(got.symbol == (want ? want->name : NULL),
			 "%s+0x%llx: resolved to %s, expected %s", s->obj->path,
			 (unsigned long long)s->objaddr, got.symbol ? got.symbol : "(none)",
			 want ? want->name : "(none)");
		FZ_CHECK(!want || got.symoff == got.addr - want->addr, "wrong offset in %s",
			 want->name);
	}
	if (x->srclines)
		fz_check_sample_srcline(x, s);
	x->checked++;
	return 0;
}

/* The replay of b through a resolver of ro, each sample checked as x says. */
static inline void fz_check_resolver(const struct logbuf *b, struct pmclog_strings *strings,
				     const struct pmclog_resolver_opts *ro, struct fz_names *x)
{
	struct pmclog_replay *rp = fz_replay_of(b, strings);

	x->res = pmclog_resolver__new(strings, ro);
	if (!x->res)
		fz_fail("out of memory");
	FZ_CHECK(!pmclog_replay__run(rp, fz_check_names, x), "the replay failed");
	pmclog_resolver__free(x->res);
	x->res = NULL;
	pmclog_replay__free(rp);
}

/*
 * The report of b by keys, in every format; sorted by source line, each
 * row has one ("??:0" when none is known), as the resolver makes them.
 */
static inline void fz_report(const struct logbuf *b, struct pmclog_strings *strings,
			     const struct pmclog_resolver_opts *ro,
			     const enum pmclog_sort_key *keys, size_t nkeys)
{
	struct pmclog_report_opts o = { .nkeys = nkeys, .demangle = true };
	struct pmclog_replay *rp = fz_replay_of(b, strings);
	struct pmclog_resolver *res = pmclog_resolver__new(strings, ro);
	struct pmclog_report *rep;
	bool src = false;

	memcpy(o.keys, keys, nkeys * sizeof(*keys));
	for (size_t k = 0; k < nkeys; k++)
		src |= keys[k] == PMCLOG_SORT_SRCLINE;
	rep = res ? pmclog_report__new(strings, rp, res, &o) : NULL;
	if (!rep)
		fz_fail("out of memory");
	FZ_CHECK(!pmclog_replay__run(rp, pmclog_report__sample, rep) &&
		 !pmclog_report__finish(rep), "the report failed");
	for (size_t i = 0; i < pmclog_report__nrows(rep); i++) {
		const struct pmclog_row *r = pmclog_report__row(rep, i);

		FZ_CHECK(!src || r->srcline, "row %zu without a source line", i);
		if (src)
			fz_check_srcline(r->srcline);
	}
	for (const char *const *f = pmclog_report__formats(); *f; f++)
		pmclog_report__print(rep, *f, fz_devnull());
	pmclog_report__print_stats(rep, fz_devnull(), 1);
	pmclog_report__free(rep);
	pmclog_resolver__free(res);
	pmclog_replay__free(rp);
}

/* mkdir -p path, below a folder that exists. */
static inline void fz_mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		fz_mkdir(p);
		*s = '/';
	}
	fz_mkdir(p);
}

#endif /* FUZZ_OBJECT_H */
