/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log's records as a reader returns them, each one's bytes in order;
 * and whether a packed log has an unpacked one's records in an order that
 * packing keeps (tools/pmclog/lib/pmclog_writer.c, "one run per CPU"):
 *
 *   - every record but a PCSAMPLE in its place;
 *   - between two such records, each CPU's samples in their order (the
 *     samples of different CPUs may move past one another);
 *   - the record just before each of them the same one (a CALLCHAIN's
 *     sample is the one before it).
 *
 * For test_writer and fuzz_reader: no assertions here, the callers say.
 */
#ifndef PMCLOG_TEST_REC_LIST_H
#define PMCLOG_TEST_REC_LIST_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_reader.h"

struct rec_copy {
	__u8 type;
	__u16 cpu;
	size_t len;
	unsigned char *bytes;
};

struct rec_list {
	size_t n, cap;
	struct rec_copy *r;
};

static inline void rec_list_free(struct rec_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->r[i].bytes);
	free(l->r);
	*l = (struct rec_list){ 0 };
}

/*
 * r's records, from where it is to its end, into l (emptied first):
 * pmclog_reader__next()'s last return, 0 or an error; -ENOMEM.
 */
static inline int rec_list_read(struct pmclog_reader *r, struct rec_list *l)
{
	struct pmclog_record rec;
	int ret;

	*l = (struct rec_list){ 0 };
	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		struct rec_copy *c;

		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			struct rec_copy *p = realloc(l->r, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			l->r = p;
			l->cap = cap;
		}
		c = &l->r[l->n];
		c->type = rec.type;
		c->cpu = rec.rec.header->cpu;
		c->len = rec.length;
		c->bytes = malloc(rec.length);
		if (!c->bytes)
			return -ENOMEM;
		memcpy(c->bytes, rec.rec.header, rec.length);
		l->n++;
	}
	return ret;
}

static inline bool rec_copy_same(const struct rec_copy *a, const struct rec_copy *b)
{
	return a->type == b->type && a->len == b->len && !memcmp(a->bytes, b->bytes, a->len);
}

/*
 * NULL when out has ref's records in an order that packing keeps; else
 * what is wrong, *at the index in ref of the record it is about.
 */
static inline const char *rec_list_packed_diff(const struct rec_list *ref,
					       const struct rec_list *out, size_t *at)
{
	size_t i = 0;

	*at = 0;
	if (out->n != ref->n)
		return "not as many records";
	while (i < ref->n) {
		size_t end = i;

		while (end < ref->n && ref->r[end].type == PMCLOG_TYPE_PCSAMPLE)
			end++;
		/* [i, end): samples; the k-th of a CPU's is its k-th in out. */
		for (size_t a = i; a < end; a++) {
			size_t k = 0, b;

			*at = a;
			for (size_t x = i; x < a; x++)
				k += ref->r[x].cpu == ref->r[a].cpu;
			for (b = i; b < end; b++) {
				if (out->r[b].type != PMCLOG_TYPE_PCSAMPLE)
					return "a sample moved past another record";
				if (out->r[b].cpu == ref->r[a].cpu && !k--)
					break;
			}
			if (b == end)
				return "a CPU's sample is missing";
			if (!rec_copy_same(&out->r[b], &ref->r[a]))
				return "a CPU's samples differ, or changed order";
		}
		*at = end - 1;
		if (end > i && end < ref->n && !rec_copy_same(&out->r[end - 1], &ref->r[end - 1]))
			return "another sample came just before a record";
		*at = end;
		if (end < ref->n && !rec_copy_same(&out->r[end], &ref->r[end]))
			return "a record differs";
		i = end + 1;
	}
	return NULL;
}

#endif
