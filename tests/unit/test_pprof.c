// SPDX-License-Identifier: GPL-2.0
/*
 * report --format pprof (pmclog_pprof.h): the profile of a log of two
 * events, with kernel, module and user frames and a C++ library
 * dlclosed and opened again at the same address, built from ELF files
 * compiled here with frame pointers and DWARF.  The profile is read
 * back twice: with protobuf-c (every field: sample types, values,
 * mappings with build-id and offsets, locations, functions, lines), and
 * with a real pprof reader, Go's `go tool pprof -raw`, whose stacks and
 * totals must be those of --format folded on the same log.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "pmclog_callgraph.h"
#include "pmclog_pprof.h"
#include "pmclog_reader.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"
#include "profile.pb-c.h"

#include "stack_log.h"

static int setup(void **state)
{
	(void)state;
	return stack_log_setup("/tmp/pmclog-pprof-XXXXXX");
}

struct run {
	struct pmclog_strings *st;
	struct pmclog_replay *rp;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
	struct pmclog_callgraph *cg;
	struct pmclog_pprof *pp;
};

static int both(void *ctx, const struct pmclog_sample_loc *s)
{
	struct run *c = ctx;
	int ret = pmclog_callgraph__report_sample(c->cg, s);

	return ret ? ret : pmclog_pprof__sample(c->pp, s);
}

static const struct pmclog_report_opts dso_sym = {
	.keys = { PMCLOG_SORT_DSO, PMCLOG_SORT_SYM }, .nkeys = 2, .demangle = true,
};

static void run_log(struct run *c, const struct logbuf *b, const char *event)
{
	struct pmclog_resolver_opts ro = { 0 };
	struct pmclog_reader *r = pmclog_reader__new(NULL);
	struct pmclog_record rec;

	assert_non_null(r);
	assert_int_equal(pmclog_reader__feed(r, b->data, b->len), 0);
	assert_int_equal(pmclog_reader__feed_eof(r), 0);
	c->st = pmclog_strings__new();
	c->rp = pmclog_replay__new(c->st);
	c->res = pmclog_resolver__new(c->st, &ro);
	c->rep = pmclog_report__new(c->st, c->rp, c->res, &dso_sym);
	c->cg = pmclog_callgraph__new(c->rep);
	c->pp = pmclog_pprof__new(c->rep);
	assert_non_null(c->pp);
	while (pmclog_reader__next(r, &rec) == 1)
		assert_int_equal(pmclog_replay__add(c->rp, &rec), 0);
	pmclog_reader__free(r);
	assert_int_equal(pmclog_replay__run(c->rp, both, c), 0);
	if (event)
		assert_int_equal(pmclog_report__select(c->rep, event), 0);
	assert_int_equal(pmclog_report__finish(c->rep), 0);
	assert_int_equal(pmclog_callgraph__finish(c->cg), 0);
	assert_int_equal(pmclog_pprof__finish(c->pp), 0);
}

static void run_free(struct run *c)
{
	pmclog_pprof__free(c->pp);
	pmclog_callgraph__free(c->cg);
	pmclog_report__free(c->rep);
	pmclog_resolver__free(c->res);
	pmclog_replay__free(c->rp);
	pmclog_strings__free(c->st);
}

/* The gzipped profile, as pmclog report --format pprof writes it. */
static char *profile_bytes(const struct pmclog_pprof *pp, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(pmclog_pprof__write(pp, f), 0);
	fclose(f);
	return buf;
}

/* Gunzip and decode it with protobuf-c. */
static Perftools__Profiles__Profile *decode(const char *gz, size_t len)
{
	Perftools__Profiles__Profile *p;
	unsigned char *out = malloc(1 << 20);
	z_stream z = { 0 };

	assert_non_null(out);
	/* A gzip member (magic 1f 8b), not a bare zlib stream. */
	assert_true(len > 2 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = 1 << 20;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, out);
	inflateEnd(&z);
	free(out);
	assert_non_null(p);
	return p;
}

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *loc_of(const Perftools__Profiles__Profile *p,
						   uint64_t id)
{
	/* pmclog numbers them 1..n in order. */
	assert_true(id >= 1 && id <= p->n_location);
	assert_int_equal(p->location[id - 1]->id, id);
	return p->location[id - 1];
}

static const Perftools__Profiles__Mapping *map_of(const Perftools__Profiles__Profile *p,
						  uint64_t id)
{
	if (!id)
		return NULL;
	assert_true(id <= p->n_mapping);
	assert_int_equal(p->mapping[id - 1]->id, id);
	return p->mapping[id - 1];
}

static const Perftools__Profiles__Function *func_of(const Perftools__Profiles__Profile *p,
						    const Perftools__Profiles__Location *l)
{
	if (!l->n_line)
		return NULL;
	assert_true(l->line[0]->function_id >= 1 && l->line[0]->function_id <= p->n_function);
	return p->function[l->line[0]->function_id - 1];
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* text's lines, sorted, joined again. */
static char *sorted(char *text)
{
	char *lines[256], *save = NULL, *out;
	size_t n = 0, len = 0;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		assert_true(n < 256);
		lines[n++] = l;
		len += strlen(l) + 1;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	out = calloc(1, len + 1);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	return out;
}

/*
 * The profile as folded lines: "comm;outer;...;leaf COUNT" per sample
 * with more than one frame (folded has only the stacks of a CALLCHAIN),
 * COUNT its value_index'th value, kernel frames (in [kernel] or a
 * module's mapping) "_[k]", a frame without a function "[object]".
 */
static char *pprof_folded(const Perftools__Profiles__Profile *p, size_t value_index)
{
	char *text = NULL, *s;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = p->sample[i];
		const char *comm = NULL;

		if (sm->n_location_id < 2 || !sm->value[value_index])
			continue;
		for (size_t j = 0; j < sm->n_label; j++)
			if (!strcmp(str(p, sm->label[j]->key), "comm"))
				comm = str(p, sm->label[j]->str);
		assert_non_null(comm);
		fputs(comm, f);
		for (size_t j = sm->n_location_id; j-- > 0;) {
			const Perftools__Profiles__Location *l = loc_of(p, sm->location_id[j]);
			const Perftools__Profiles__Mapping *m = map_of(p, l->mapping_id);
			const Perftools__Profiles__Function *fn = func_of(p, l);
			const char *file = m ? str(p, m->filename) : "[unknown]";
			bool kernel = file[0] == '[' && strcmp(file, "[vdso]");

			if (fn)
				fprintf(f, ";%s%s", str(p, fn->name), kernel ? "_[k]" : "");
			else
				fprintf(f, ";[%s]", strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
		}
		fprintf(f, " %lld\n", (long long)sm->value[value_index]);
	}
	fclose(f);
	s = sorted(text);
	free(text);
	return s;
}

static char *folded(const struct pmclog_callgraph *cg)
{
	char *text = NULL, *s;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	pmclog_callgraph__print_folded(cg, f);
	fclose(f);
	s = sorted(text);
	free(text);
	return s;
}

/* The index of the sample type named type, of unit unit. */
static size_t type_index(const Perftools__Profiles__Profile *p, const char *type,
			 const char *unit)
{
	for (size_t i = 0; i < p->n_sample_type; i++)
		if (!strcmp(str(p, p->sample_type[i]->type), type)) {
			assert_string_equal(str(p, p->sample_type[i]->unit), unit);
			return i;
		}
	fail_msg("no sample type %s", type);
	return 0;
}

static __u64 total(const Perftools__Profiles__Profile *p, size_t i)
{
	__u64 t = 0;

	for (size_t j = 0; j < p->n_sample; j++) {
		assert_int_equal(p->sample[j]->n_value, p->n_sample_type);
		t += (__u64)p->sample[j]->value[i];
	}
	return t;
}

/*
 * The sample types of two events and their totals; the stacks of each
 * event those of folded, the unmapped and remapped library's frames
 * named; a sample without a stack is one frame.
 */
static void test_samples(void **state)
{
	static struct logbuf b;
	Perftools__Profiles__Profile *p;
	struct run c, c2;
	char *gz, *want, *got, *want2;
	size_t len, cs, cn, ys, yc;
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b);
	run_log(&c, &b, NULL);
	assert_int_equal(pmclog_pprof__samples(c.pp), 51);
	gz = profile_bytes(c.pp, &len);
	p = decode(gz, len);

	assert_int_equal(p->n_sample_type, 4);
	cs = type_index(p, "cpu-clock_samples", "count");
	cn = type_index(p, "cpu-clock", "nanoseconds");
	ys = type_index(p, "cycles_samples", "count");
	yc = type_index(p, "cycles", "count");
	assert_int_equal(total(p, cs), 43);
	assert_int_equal(total(p, cn), 43 * 1000000ULL);	/* 1000 Hz: 1 ms each */
	assert_int_equal(total(p, ys), 8);
	assert_int_equal(total(p, yc), 8 * CYCLES_PERIOD);
	assert_string_equal(str(p, p->period_type->type), "cpu-clock");
	assert_string_equal(str(p, p->period_type->unit), "nanoseconds");
	assert_int_equal(p->period, 1000000);
	assert_string_equal(str(p, p->default_sample_type), "cpu-clock");
	assert_int_equal(p->time_nanos, 1700000000000000000LL);
	assert_true(p->duration_nanos > 0);
	assert_string_equal(p->string_table[0], "");

	/* Each event's stacks are folded's with --event. */
	got = pprof_folded(p, cs);
	run_log(&c2, &b, "cpu-clock");
	want = folded(c2.cg);
	assert_string_equal(got, want);
	assert_string_equal(want,
		"prog;main;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k] 5\n"
		"prog;main;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_write_[k];busy_fn_[k] 3\n"
		"prog;main;lib_fn(int) 4\n"
		"prog;main;path_a;hot 20\n"
		"prog;main;path_b;hot 10\n");
	free(got);
	free(want);
	run_free(&c2);
	got = pprof_folded(p, ys);
	run_log(&c2, &b, "cycles");
	want2 = folded(c2.cg);
	assert_string_equal(got, want2);
	assert_string_equal(want2, "prog;main;lib_fn(int) 2\n"
				   "prog;main;path_a;hot 6\n");
	free(got);
	free(want2);
	run_free(&c2);

	/* The sample without a stack: its PC, alone. */
	{
		bool one = false;

		for (size_t i = 0; i < p->n_sample; i++) {
			const Perftools__Profiles__Sample *sm = p->sample[i];
			const Perftools__Profiles__Function *fn;

			if (sm->n_location_id != 1)
				continue;
			fn = func_of(p, loc_of(p, sm->location_id[0]));
			assert_non_null(fn);
			assert_string_equal(str(p, fn->name), "hot");
			assert_int_equal(sm->value[cs], 1);
			one = true;
		}
		assert_true(one);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	run_free(&c);
}

/*
 * Mappings as MAP_IN made them (with the BUILDID), locations at their
 * addresses inside them, functions with their symbol-table name and
 * source line; the library mapped twice is one mapping (same place).
 */
static void test_tables(void **state)
{
	static struct logbuf b;
	const Perftools__Profiles__Mapping *prog = NULL, *lib = NULL, *kern = NULL, *mod = NULL;
	Perftools__Profiles__Profile *p;
	char path[128], hex[2 * PMCLOG_BUILD_ID_MAX + 1];
	__u8 id[PMCLOG_BUILD_ID_MAX];
	__u8 idn = build_id_of("prog", id);
	bool saw_hot = false, saw_lib = false, saw_busy = false;
	struct run c;
	char *gz;
	size_t len;
	(void)state;

	memset(&b, 0, sizeof(b));
	program_log(&b);
	run_log(&c, &b, NULL);
	gz = profile_bytes(c.pp, &len);
	p = decode(gz, len);

	for (size_t i = 0; i < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];
		const char *file = str(p, m->filename);

		assert_int_equal(m->id, i + 1);
		if (strstr(file, "/prog")) {
			assert_null(prog);
			prog = m;
		} else if (strstr(file, "/libcg.so")) {
			assert_null(lib);
			lib = m;
		} else if (!strcmp(file, "[kernel]")) {
			kern = m;
		} else if (!strcmp(file, "[pm_test]")) {
			mod = m;
		} else {
			fail_msg("mapping of %s", file);
		}
	}
	assert_non_null(prog);
	assert_non_null(lib);
	assert_non_null(kern);
	assert_non_null(mod);
	/* The main binary first, as profile.proto asks. */
	assert_ptr_equal(p->mapping[0], prog);
	snprintf(path, sizeof(path), "%s/prog", dir);
	assert_string_equal(str(p, prog->filename), path);
	assert_int_equal(prog->memory_start, 0x400000);
	assert_int_equal(prog->memory_limit, 0x500000);
	assert_int_equal(prog->file_offset, 0);
	for (__u8 i = 0; i < idn; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	assert_string_equal(str(p, prog->build_id), hex);
	assert_true(prog->has_functions && prog->has_line_numbers);
	assert_int_equal(lib->memory_start, LIB);
	assert_int_equal(lib->build_id, 0);	/* the log has none for it */
	assert_int_equal(kern->memory_start, KBASE);
	assert_int_equal(kern->file_offset, KBASE);
	assert_int_equal(mod->memory_start, MBASE);
	assert_int_equal(mod->memory_limit, MBASE + 0x1000);

	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		const Perftools__Profiles__Mapping *m = map_of(p, l->mapping_id);
		const Perftools__Profiles__Function *fn = func_of(p, l);

		assert_non_null(m);
		assert_true(l->address >= m->memory_start && l->address < m->memory_limit);
		assert_non_null(fn);
		if (!strcmp(str(p, fn->name), "hot") && l->address == nm_value("prog", "hot") + 4) {
			/* hot's body: its line in prog.c, lines 2-6. */
			assert_true(l->line[0]->line >= 1 && l->line[0]->line <= 7);
			assert_non_null(strstr(str(p, fn->filename), "prog.c"));
			assert_string_equal(str(p, fn->system_name), "hot");
			saw_hot = true;
		}
		if (!strcmp(str(p, fn->name), "lib_fn(int)")) {
			assert_string_equal(str(p, fn->system_name), "_Z6lib_fni");
			assert_ptr_equal(m, lib);
			saw_lib = true;
		}
		if (!strcmp(str(p, fn->name), "busy_fn")) {
			assert_ptr_equal(m, mod);
			assert_int_equal(l->address, MBASE + 0x18);
			assert_int_equal(l->line[0]->line, 0);	/* no DWARF for it */
			saw_busy = true;
		}
	}
	assert_true(saw_hot && saw_lib && saw_busy);
	/* Strings once each. */
	for (size_t i = 0; i < p->n_string_table; i++)
		for (size_t j = i + 1; j < p->n_string_table; j++)
			assert_string_not_equal(p->string_table[i], p->string_table[j]);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	run_free(&c);
}

/* One event, a period in Hz: "samples" and "cpu-clock", no prefix. */
static void test_one_event(void **state)
{
	static struct logbuf b;
	Perftools__Profiles__Profile *p;
	struct run c;
	char *gz;
	size_t len;
	(void)state;

	memset(&b, 0, sizeof(b));
	lb_full_log(&b);
	run_log(&c, &b, NULL);
	gz = profile_bytes(c.pp, &len);
	p = decode(gz, len);
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(str(p, p->sample_type[0]->type), "samples");
	assert_string_equal(str(p, p->sample_type[1]->type), "cpu-clock");
	assert_int_equal(total(p, 0), 2);
	assert_int_equal(p->n_sample, 2);
	/* Its kernel sample in no function: a location without a line. */
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Location *l = loc_of(p, p->sample[i]->location_id[0]);

		assert_int_equal(p->sample[i]->n_location_id, 1);
		assert_int_equal(l->n_line, 0);
		assert_false(map_of(p, l->mapping_id)->has_functions);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	run_free(&c);
}

/*
 * go tool pprof -raw's samples: "V1 V2 ...: ID ID ..." lines (a value per
 * sample type, then the locations leaf first), and its locations: "ID:
 * 0xADDR M=N FUNCTION FILE:LINE s=START".  pprof merges samples of one
 * stack and labels: pmclog's two events' rows of a stack are one there.
 */
struct raw {
	size_t nsamples;
	long long values[64][8];
	size_t nvalues[64];
	unsigned long ids[64][16];
	size_t nids[64];
	char comm[64][64];	/* its label comm:[NAME] */
	char *names[256];	/* by location id: its function */
	unsigned long map[256];	/* by location id: its mapping's id */
	char *files[64];	/* by mapping id: its file */
};

static void read_raw(const char *file, struct raw *r)
{
	char cmd[512], line[1024];
	bool in_samples = false, in_locs = false;
	FILE *p;

	memset(r, 0, sizeof(*r));
	/* HOME: go reads its environment file there, under a clean one too. */
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none %s 2>&1",
		 dir, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *colon, *s, *end;
		unsigned long id;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "Samples:", 8)) {
			in_samples = true;
			continue;
		}
		if (!strncmp(line, "Locations", 9)) {
			in_samples = false;
			in_locs = true;
			continue;
		}
		if (!strncmp(line, "Mappings", 8)) {
			in_locs = false;
			continue;
		}
		s = strstr(line, "comm:[");
		if (in_samples && s && r->nsamples) {
			snprintf(r->comm[r->nsamples - 1], sizeof(r->comm[0]), "%.*s",
				 (int)strcspn(s + 6, "]"), s + 6);
			continue;
		}
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (!in_samples && !in_locs) {
			/* A mapping: "ID: START/LIMIT/OFFSET FILE [BUILDID] [FN]..." */
			char range[128], mfile[512];

			id = strtoul(line, &end, 10);
			if (end != line && !*end && id < 64 &&
			    sscanf(colon + 1, "%127s %511s", range, mfile) == 2) {
				free(r->files[id]);
				r->files[id] = strdup(mfile);
			}
			continue;
		}
		if (in_samples) {
			size_t i = r->nsamples;

			/* Not a label line ("comm:[prog]"): numbers only. */
			for (s = line; *s == ' ' || (*s >= '0' && *s <= '9'); s++)
				;
			if (*s || s == line)
				continue;
			assert_true(i < 64);
			for (s = line; r->nvalues[i] < 8; s = end) {
				long long v = strtoll(s, &end, 10);

				if (end == s)
					break;
				r->values[i][r->nvalues[i]++] = v;
			}
			for (s = colon + 1; r->nids[i] < 16; s = end) {
				id = strtoul(s, &end, 10);
				if (end == s)
					break;
				r->ids[i][r->nids[i]++] = id;
			}
			r->nsamples++;
		} else if (in_locs) {
			char addr[64], map[64], name[512];

			id = strtoul(line, &end, 10);
			if (end == line || *end || id >= 256 ||
			    sscanf(colon + 1, "%63s %63s %511s", addr, map, name) != 3)
				continue;
			free(r->names[id]);
			r->names[id] = strdup(name);
			if (!strncmp(map, "M=", 2))
				r->map[id] = strtoul(map + 2, NULL, 10);
		}
	}
	assert_int_equal(pclose(p), 0);
}

/*
 * raw's samples with more than one frame as folded lines, as
 * pprof_folded() makes them from protobuf-c's decoding: value column v.
 */
static char *raw_folded(const struct raw *r, size_t v)
{
	char *text = NULL, *s;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	for (size_t i = 0; i < r->nsamples; i++) {
		if (r->nids[i] < 2 || !r->values[i][v])
			continue;
		fputs(r->comm[i], f);
		for (size_t j = r->nids[i]; j-- > 0;) {
			unsigned long id = r->ids[i][j], m;
			const char *file;

			assert_true(id < 256 && r->names[id]);
			m = r->map[id];
			file = m && m < 64 && r->files[m] ? r->files[m] : "[unknown]";
			fprintf(f, ";%s%s", r->names[id],
				file[0] == '[' && strcmp(file, "[vdso]") ? "_[k]" : "");
		}
		fprintf(f, " %lld\n", r->values[i][v]);
	}
	fclose(f);
	s = sorted(text);
	free(text);
	return s;
}

/* raw's sample of stack names (leaf first, NULL-terminated), or NULL. */
static size_t raw_find(const struct raw *r, const char *const *names)
{
	for (size_t i = 0; i < r->nsamples; i++) {
		size_t j;

		for (j = 0; names[j] && j < r->nids[i]; j++)
			if (r->ids[i][j] >= 256 || !r->names[r->ids[i][j]] ||
			    strcmp(r->names[r->ids[i][j]], names[j]))
				break;
		if (!names[j] && j == r->nids[i])
			return i;
	}
	fail_msg("go tool pprof -raw has no stack %s <- %s ...", names[0], names[1]);
	return 0;
}

/*
 * A real reader, Go's pprof: the profile decodes, its sample types are
 * pmclog's, its totals and stacks those of --format folded.
 */
static void test_go_pprof(void **state)
{
	static const char *const a[] = { "hot", "path_a", "main", NULL };
	static const char *const l[] = { "lib_fn(int)", "main", NULL };
	static const char *const m[] = { "busy_fn", "ksys_write", "do_syscall_64",
					 "entry_SYSCALL_64", "main", NULL };
	static struct logbuf b;
	char file[128], *gz;
	struct raw *r = calloc(1, sizeof(*r));
	long long sum[4] = { 0 };
	struct run c;
	size_t len, i;
	FILE *f;
	(void)state;

	assert_non_null(r);
	memset(&b, 0, sizeof(b));
	program_log(&b);
	run_log(&c, &b, NULL);
	gz = profile_bytes(c.pp, &len);
	snprintf(file, sizeof(file), "%s/prof.pb.gz", dir);
	f = fopen(file, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(gz, 1, len, f), len);
	fclose(f);
	read_raw(file, r);
	assert_true(r->nsamples > 0);
	for (i = 0; i < r->nsamples; i++) {
		assert_int_equal(r->nvalues[i], 4);
		for (size_t j = 0; j < 4; j++)
			sum[j] += r->values[i][j];
	}
	/* cpu-clock samples, ns; cycles samples, count. */
	assert_int_equal(sum[0], 43);
	assert_int_equal(sum[1], 43000000);
	assert_int_equal(sum[2], 8);
	assert_int_equal(sum[3], 8 * CYCLES_PERIOD);
	i = raw_find(r, a);
	assert_int_equal(r->values[i][0], 20);
	assert_int_equal(r->values[i][2], 6);
	i = raw_find(r, l);
	assert_int_equal(r->values[i][0], 4);	/* before the dlclose */
	assert_int_equal(r->values[i][2], 2);	/* after it */
	i = raw_find(r, m);
	assert_int_equal(r->values[i][0], 3);
	/* Every stack of each event, as folded prints them with --event. */
	for (int e = 0; e < 2; e++) {
		struct run c2;
		char *got = raw_folded(r, e ? 2 : 0), *want;

		run_log(&c2, &b, e ? "cycles" : "cpu-clock");
		want = folded(c2.cg);
		assert_string_equal(got, want);
		free(got);
		free(want);
		run_free(&c2);
	}
	for (i = 0; i < 256; i++)
		free(r->names[i]);
	for (i = 0; i < 64; i++)
		free(r->files[i]);
	free(r);
	free(gz);
	run_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_one_event),
		cmocka_unit_test(test_go_pprof),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
