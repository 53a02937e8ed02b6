// SPDX-License-Identifier: GPL-2.0
/*
 * The name libpmclog gives each sample of a log, one line a sample:
 * "PID TSTAMP PC NAME" (NAME "-" when no function is known; C++ and Rust
 * names demangled as perf 6.1 shows them without -v: no parameters).
 * perf-vs-pmclog.sh joins these lines with perf script's, sample by
 * sample.
 *
 *   samples LOG [ROOT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_resolve.h"

static int one(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_resolver *res = ctx;
	struct pmclog_resolved rv = { 0 };
	char *raw = NULL, *d = NULL;
	size_t n;

	if (s->obj && pmclog_resolver__resolve(res, s->obj, s->objaddr, &rv))
		return -1;
	/* "_Z...@plt": the name demangled, then the suffix. */
	n = rv.symbol ? strlen(rv.symbol) : 0;
	if (n > 4 && !strcmp(rv.symbol + n - 4, "@plt"))
		n -= 4;
	if (rv.symbol && (!strncmp(rv.symbol, "_Z", 2) || !strncmp(rv.symbol, "_R", 2)) &&
	    (raw = strndup(rv.symbol, n)))
		d = cplus_demangle(raw, DMGL_NO_OPTS);
	printf("%u %llu %llx %s%s\n", s->pid, (unsigned long long)s->tstamp,
	       (unsigned long long)s->pc, d ? d : rv.symbol ? rv.symbol : "-",
	       d ? rv.symbol + n : "");
	free(raw);
	free(d);
	return 0;
}

int main(int argc, char **argv)
{
	struct pmclog_resolver_opts ro = { .root = argc > 2 ? argv[2] : NULL };
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_replay *rp = st ? pmclog_replay__new(st) : NULL;
	struct pmclog_resolver *res = rp ? pmclog_resolver__new(st, &ro) : NULL;
	struct pmclog_reader *r;
	struct pmclog_record rec;
	int ret;

	if (argc < 2 || !res) {
		fprintf(stderr, "usage: samples LOG [ROOT]\n");
		return 64;
	}
	r = pmclog_reader__open_file(argv[1], NULL);
	if (!r) {
		perror(argv[1]);
		return 66;
	}
	while ((ret = pmclog_reader__next(r, &rec)) == 1)
		if (pmclog_replay__add(rp, &rec))
			return 71;
	pmclog_reader__free(r);
	ret = pmclog_replay__run(rp, one, res);
	pmclog_resolver__free(res);
	pmclog_replay__free(rp);
	pmclog_strings__free(st);
	return ret ? 70 : 0;
}
