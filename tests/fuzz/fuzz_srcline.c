// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as an object with DWARF, under
 * `pmclog report -r ROOT --sort ...,srcline`: its line table read by
 * libdw (pmclog_srcline.c) for each sampled address, through the
 * resolver (pmclog_resolver__srcline()) as the report asks it.
 *
 * Input: 1 byte of options, then the object (ROOT/obj).
 *   bits 0-1  the sort keys: sym,srcline; srcline; dso,srcline;
 *             srcline,sym
 *
 * The log samples the first and last byte of the symbols a load of the
 * object from memory found, and addresses spread over its segments
 * (line tables need no symbols).  Checked: each sample named as a lookup
 * in that load's tables does (not at all when it did not load); its
 * source line, when it has one, is "FILE:LINE" (FILE without '/'), the
 * same string when asked again, and only of an address inside the
 * object's segments; the report, every row with a source line, does not
 * fail.
 */
#include "fuzz_object.h"

#define SPREAD		32	/* samples spread over each segment */

static const enum pmclog_sort_key keys[4][2] = {
	{ PMCLOG_SORT_SYM, PMCLOG_SORT_SRCLINE },
	{ PMCLOG_SORT_SRCLINE },
	{ PMCLOG_SORT_DSO, PMCLOG_SORT_SRCLINE },
	{ PMCLOG_SORT_SRCLINE, PMCLOG_SORT_SYM },
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Never a network lookup. */
	unsetenv("DEBUGINFOD_URLS");
	fz_scratch_dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct logbuf b;
	char root[PATH_MAX], path[PATH_MAX], err[512];
	struct pmclog_resolver_opts ro;
	struct pmclog_strings *strings;
	struct fz_names x = { 0 };
	struct pmclog_elf *e = NULL;
	unsigned int k;

	if (size < 1)
		return 0;
	fz_listen();	/* the resolver's warnings, not printed */
	k = data[0] & 3;
	data++;
	size--;
	strings = pmclog_strings__new();
	if (!strings)
		fz_fail("out of memory");
	if (pmclog_elf__load_mem(data, size, "fuzz input", strings, &e, err, sizeof(err)))
		e = NULL;

	snprintf(root, sizeof(root), "%s/root", fz_scratch_dir());
	fz_rm_tree(root);
	fz_mkdir(root);
	snprintf(path, sizeof(path), "%s/obj", root);
	fz_write_file(path, data, size);

	fz_object_log(&b, "/obj", NULL, 0);
	fz_sample_symbols(&b, e);
	for (size_t i = 0; e && i < e->nsegs; i++) {
		const struct pmclog_elf_segment *s = &e->segs[i];

		for (__u64 j = 0; s->filesz && j < SPREAD; j++)
			fz_sample(&b, s->offset + s->filesz / SPREAD * j + j % s->filesz);
	}
	fz_sample(&b, 0);	/* so that an object that does not load is seen not to */
	lb_closelog(&b, 0, 0, 0);

	ro = (struct pmclog_resolver_opts){ .root = root };
	x.e = e;
	x.srclines = true;
	fz_check_resolver(&b, strings, &ro, &x);
	FZ_CHECK(x.checked, "no sample checked");
	fz_report(&b, strings, &ro, keys[k], keys[k][1] ? 2 : 1);

	pmclog_elf__free(e);
	pmclog_strings__free(strings);
	return 0;
}
