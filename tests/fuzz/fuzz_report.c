// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the report (pmclog_report.h) of arbitrary logs, with
 * their samples named through real ELF files, as `pmclog report -r ROOT
 * [-k DIR]` does.
 *
 * ROOT is the root/ directory next to this program, which the Makefile
 * fills with small ELF files (a program, a PIE, a shared object and its
 * stripped copy, a "vmlinux", a System.map and a module); the seed logs
 * (gen_seeds report) map them and sample their functions.
 *
 * Input: 4 bytes of options, then the log.
 *   byte 0  bits 0-2  sort keys (a row of keys[] below)
 *           bit 3     demangle     bit 4  full paths (-v)
 *           bit 5     --time       bit 6  --pid
 *           bit 7     -g DIR -M MAPFILE (gprof files)
 *   byte 1  bits 0-1  -k: none, /kernel, /kernel/vmlinux, /kernel/System.map
 *           bit 2     ROOT given with a trailing '/'
 *           bit 5     the script with comm (else without, its lines counted)
 *           bit 3     --event: PMC id byte 2 & 7, or with bit 4 the
 *                     name "cpu-clock" (which may be several PMCs')
 *   bytes 2-3         --time FROM,TO as 64 ns units after the log's start
 *                     (TO = FROM + byte 3 + 1); --pid byte 2,byte 3
 *
 * Checked: the counts add up (rows, resolved + unknown + hidden, filtered,
 * per profile and in all), rows are in order within their profile and
 * distinct; text and folded output have one line per row, with as many
 * fields as sort keys (and the event's with several profiles), whatever
 * bytes the names hold; an object's name is its path, its last part or
 * "[path]", nothing appended (" [not found]" was); JSON output
 * is JSON and valid UTF-8; the gprof map names each file once, and each
 * is a gmon histogram of a sound range.  The callgraph of the stacks
 * (CALLCHAIN): its folded lines add up to its samples, none with an empty
 * frame, and its tree says how many; the flame graph's data and the
 * chrome trace are JSON, the former without <, > or &.  The pprof profile
 * (--format pprof): gzip that protobuf-c decodes, its "samples" values
 * adding up to the report's samples, every id it refers to defined,
 * string 0 empty.  The script (pmclog script, events shown): printed, a
 * header line per sample.
 */
#include <limits.h>

#include <zlib.h>

#include "fuzz_common.h"
#include "pmclog_callgraph.h"
#include "pmclog_pprof.h"
#include "pmclog_script.h"
#include "profile.pb-c.h"
#include "pmclog_replay.h"
#include "pmclog_report.h"
#include "pmclog_resolve.h"

#define OPT_BYTES	4

static const enum pmclog_sort_key keys[8][PMCLOG_SORT_MAX] = {
	{ PMCLOG_SORT_DSO, PMCLOG_SORT_SYM },
	{ PMCLOG_SORT_SYM },
	{ PMCLOG_SORT_DSO },
	{ PMCLOG_SORT_PID },
	{ PMCLOG_SORT_PID, PMCLOG_SORT_DSO, PMCLOG_SORT_SYM },
	{ PMCLOG_SORT_SYM, PMCLOG_SORT_DSO, PMCLOG_SORT_PID },
	{ PMCLOG_SORT_PID, PMCLOG_SORT_SYM },
	{ PMCLOG_SORT_SYM, PMCLOG_SORT_SRCLINE },
};

static const char *const kernel_opts[4] = {
	NULL, "/kernel", "/kernel/vmlinux", "/kernel/System.map",
};

static char root[PATH_MAX], root_slash[PATH_MAX + 1];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	(void)argc;
	(void)argv;
	if (n <= 0)
		fz_fail("readlink /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(root, sizeof(root), "%s/root", exe);
	snprintf(root_slash, sizeof(root_slash), "%s/", root);
	if (access(root, R_OK))
		fz_fail("%s: %s (make builds it)", root, strerror(errno));
	fz_scratch_dir();
	return 0;
}

static void add_record(void *ctx, const struct pmclog_record *rec)
{
	if (pmclog_replay__add(ctx, rec))
		fz_fail("pmclog_replay__add: %s", strerror(errno));
}

static void check_stats_add_up(const struct pmclog_report_stats *rs, const char *what)
{
	FZ_CHECK(rs->resolved + rs->no_object + rs->no_function + rs->hidden == rs->samples,
		 "%s: resolved %llu + no object %llu + no function %llu + hidden %llu != %llu samples",
		 what, (unsigned long long)rs->resolved, (unsigned long long)rs->no_object,
		 (unsigned long long)rs->no_function, (unsigned long long)rs->hidden,
		 (unsigned long long)rs->samples);
	FZ_CHECK(rs->objects_not_found <= rs->objects, "%s: more objects not found than tried",
		 what);
}

static void check_rows(const struct pmclog_report *rep,
		       const struct pmclog_report_opts *o)
{
	const struct pmclog_report_stats *rs = pmclog_report__stats(rep);
	size_t n = pmclog_report__nrows(rep), next = 0;
	__u64 sum = 0, psum = 0;
	bool dso = false, sym = false, src = false;

	for (size_t k = 0; k < o->nkeys; k++) {
		dso |= o->keys[k] == PMCLOG_SORT_DSO;
		sym |= o->keys[k] == PMCLOG_SORT_SYM;
		src |= o->keys[k] == PMCLOG_SORT_SRCLINE;
	}
	for (size_t p = 0; p < pmclog_report__nprofiles(rep); p++) {
		const struct pmclog_profile *prof = pmclog_report__profile(rep, p);
		__u64 rows = 0;

		FZ_CHECK(prof->first_row == next, "profile %zu starts at row %zu, not %zu",
			 p, prof->first_row, next);
		next += prof->nrows;
		for (size_t i = prof->first_row; i < next; i++) {
			const struct pmclog_row *r = pmclog_report__row(rep, i);

			FZ_CHECK(r && r->pmcid == prof->pmcid, "row %zu is not profile %zu's", i, p);
			FZ_CHECK(i == prof->first_row ||
				 pmclog_report__row(rep, i - 1)->samples >= r->samples,
				 "row %zu out of order", i);
			rows += r->samples;
		}
		FZ_CHECK(rows == prof->stats.samples, "profile %zu: rows hold %llu samples, it %llu",
			 p, (unsigned long long)rows, (unsigned long long)prof->stats.samples);
		FZ_CHECK(prof->label && *prof->label, "profile %zu without a label", p);
		check_stats_add_up(&prof->stats, "a profile");
		psum += prof->stats.samples;
	}
	FZ_CHECK(next == n, "profiles hold %zu rows, the report %zu", next, n);
	FZ_CHECK(psum == rs->samples, "profiles hold %llu samples, the report %llu",
		 (unsigned long long)psum, (unsigned long long)rs->samples);
	for (size_t i = 0; i < n; i++) {
		const struct pmclog_row *r = pmclog_report__row(rep, i);

		FZ_CHECK(r->samples, "row %zu has no samples", i);
		FZ_CHECK(!dso || r->object, "row %zu without an object", i);
		if (r->path) {
			const char *base = strrchr(r->path, '/');
			size_t len = strlen(r->path);

			FZ_CHECK(!strcmp(r->object, r->path) || (base && !strcmp(r->object, base + 1)) ||
				 (r->object[0] == '[' && strlen(r->object) == len + 2 &&
				  !strncmp(r->object + 1, r->path, len) && r->object[len + 1] == ']'),
				 "row %zu: object '%s' is not named after its path '%s'", i,
				 r->object, r->path);
		}
		FZ_CHECK(!sym || r->symbol, "row %zu without a symbol", i);
		FZ_CHECK(!src || r->srcline, "row %zu without a source line", i);
		FZ_CHECK(!o->pids || r->pid == o->pids[0] || r->pid == o->pids[1] ||
			 r->pid == 0, "row %zu: pid %u, not asked for", i, r->pid);
		/* Interned: equal keys are equal pointers. */
		for (size_t j = 0; j < i; j++) {
			const struct pmclog_row *q = pmclog_report__row(rep, j);

			FZ_CHECK(q->pmcid != r->pmcid || q->pid != r->pid || q->kernel != r->kernel ||
				 q->object != r->object || q->path != r->path ||
				 q->objstate != r->objstate || q->symbol != r->symbol ||
				 q->srcline != r->srcline,
				 "rows %zu and %zu have the same key", j, i);
		}
		sum += r->samples;
	}
	FZ_CHECK(sum == rs->samples, "rows hold %llu samples, the report %llu",
		 (unsigned long long)sum, (unsigned long long)rs->samples);
	check_stats_add_up(rs, "the report");
}

/* ------------------------------------------------------------------ */
/* The formats                                                        */

/* rep printed in format, in a malloc'd string. */
static char *print_to_string(const struct pmclog_report *rep, const char *format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		fz_fail("open_memstream: %s", strerror(errno));
	FZ_CHECK(!pmclog_report__print(rep, format, f), "--format %s failed", format);
	if (fclose(f))
		fz_fail("open_memstream: %s", strerror(errno));
	return buf;
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/*
 * "# ..." header lines (at least the title, "#", the column names and
 * "#"; more when the log says the kernel throttled or left descendants
 * unfollowed), then one line per row, none of which starts with '#'; with
 * several profiles, such a header before the rows of each.
 */
static void check_text(const struct pmclog_report *rep, const char *out)
{
	size_t header = 0, rows = 0, n = pmclog_report__nrows(rep);
	size_t sections = 0;
	bool in_rows = false;

	for (const char *line = out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		FZ_CHECK(nl, "--format text: no newline at the end:\n%s", out);
		if (*line == '#') {
			FZ_CHECK(!in_rows || pmclog_report__nprofiles(rep) > 1,
				 "--format text: a '#' line after the rows:\n%s", out);
			sections += !strncmp(line, "# event '", 9);
			in_rows = false;
			header++;
		} else {
			in_rows = true;
			rows++;
		}
	}
	FZ_CHECK(pmclog_report__nprofiles(rep) <= 1 || sections == pmclog_report__nprofiles(rep),
		 "--format text: %zu sections for %zu profiles:\n%s", sections,
		 pmclog_report__nprofiles(rep), out);
	FZ_CHECK(header >= 4 && rows == n,
		 "--format text: %zu header lines and %zu lines for %zu rows:\n%s",
		 header, rows, n, out);
}

/* "[event;]key;key;key COUNT" per row. */
static void check_folded(const struct pmclog_report *rep, size_t nkeys, char *out)
{
	size_t n = 0;

	nkeys += pmclog_report__nprofiles(rep) > 1;
	for (char *line = out, *nl; *line; line = nl + 1, n++) {
		char *sp;

		nl = strchr(line, '\n');
		FZ_CHECK(nl, "--format folded: no newline at the end");
		*nl = '\0';
		sp = strrchr(line, ' ');
		FZ_CHECK(sp && sp[1] && strspn(sp + 1, "0123456789") == strlen(sp + 1),
			 "--format folded: no count at the end of '%s'", line);
		*sp = '\0';
		FZ_CHECK(count_char(line, ';') == nkeys - 1,
			 "--format folded: '%s' is not %zu fields", line, nkeys);
	}
	FZ_CHECK(n == pmclog_report__nrows(rep), "--format folded: %zu lines for %zu rows",
		 n, pmclog_report__nrows(rep));
}

/*
 * A JSON value (RFC 8259's grammar) at *p, its strings valid UTF-8 (RFC
 * 3629: no overlong forms, surrogates or code points above U+10FFFF).
 */
static bool json_value(const char **p, int depth);

static void json_ws(const char **p)
{
	*p += strspn(*p, " \t\r\n");
}

/* The bytes of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		   s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	unsigned int cp;

	if (n <= 1)
		return n;
	cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static bool json_string(const char **p)
{
	const char *s = *p;

	if (*s++ != '"')
		return false;
	for (; *s != '"'; s++) {
		size_t n = utf8_seq((const unsigned char *)s);

		if ((unsigned char)*s < 0x20 || !n)
			return false;
		if (n > 1) {
			s += n - 1;
			continue;
		}
		if (*s != '\\')
			continue;
		s++;
		if (*s == 'u') {
			if (strspn(s + 1, "0123456789abcdefABCDEF") < 4)
				return false;
			s += 4;
		} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
			return false;
		}
	}
	*p = s + 1;
	return true;
}

static bool json_number(const char **p)
{
	const char *s = *p;

	s += *s == '-';
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		s += strspn(s, "0123456789");
	else
		return false;
	if (*s == '.') {
		if (!strspn(++s, "0123456789"))
			return false;
		s += strspn(s, "0123456789");
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '+' || *s == '-';
		if (!strspn(s, "0123456789"))
			return false;
		s += strspn(s, "0123456789");
	}
	*p = s;
	return true;
}

/* The members of an object (key: value) or elements of an array. */
static bool json_members(const char **p, char close, bool keyed, int depth)
{
	json_ws(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		json_ws(p);
		if (keyed) {
			if (!json_string(p))
				return false;
			json_ws(p);
			if (*(*p)++ != ':')
				return false;
		}
		if (!json_value(p, depth + 1))
			return false;
		json_ws(p);
		if (**p == close) {
			(*p)++;
			return true;
		}
		if (*(*p)++ != ',')
			return false;
	}
}

/* How deep a value may nest: the report's JSON, or a tree of stacks. */
static int json_depth_limit = 16;

static bool json_value(const char **p, int depth)
{
	json_ws(p);
	if (depth > json_depth_limit)
		return false;
	switch (**p) {
	case '{':
		(*p)++;
		return json_members(p, '}', true, depth);
	case '[':
		(*p)++;
		return json_members(p, ']', false, depth);
	case '"':
		return json_string(p);
	case 't':
	case 'f':
	case 'n':
		for (const char *const *w = (const char *const[]){ "true", "false", "null", NULL };
		     *w; w++) {
			if (!strncmp(*p, *w, strlen(*w))) {
				*p += strlen(*w);
				return true;
			}
		}
		return false;
	default:
		return json_number(p);
	}
}

static void check_json_of(const char *what, const char *out, int depth_limit)
{
	const char *p = out;

	json_depth_limit = depth_limit;
	FZ_CHECK(json_value(&p, 0), "%s: not JSON at byte %zu:\n%s", what,
		 (size_t)(p - out), out);
	json_ws(&p);
	FZ_CHECK(!*p, "%s: bytes after the value at %zu", what, (size_t)(p - out));
}

static void check_json(const char *out)
{
	check_json_of("--format json", out, 16);
}

static void check_formats(const struct pmclog_report *rep,
			  const struct pmclog_report_opts *o)
{
	for (const char *const *f = pmclog_report__formats(); *f; f++) {
		char *out = print_to_string(rep, *f);

		if (!strcmp(*f, "text"))
			check_text(rep, out);
		else if (!strcmp(*f, "folded"))
			check_folded(rep, o->nkeys, out);
		else if (!strcmp(*f, "json"))
			check_json(out);
		else
			fz_fail("--format %s: a format this target does not know", *f);
		free(out);
	}
	FZ_CHECK(pmclog_report__print(rep, "no-such-format", fz_devnull()) == -EINVAL,
		 "an unknown format printed");
}

/* The gprof map: "GMONFILE OBJECTFILE" lines, each GMONFILE once. */
static void check_gmon_map(const char *mapfile)
{
	char line[2 * PATH_MAX], seen[64][PATH_MAX / 8];
	size_t n = 0;
	FILE *f = fopen(mapfile, "re");

	if (!f)
		fz_fail("-M %s not written: %s", mapfile, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		FZ_CHECK(sp, "-M line without a space: %s", line);
		*sp = '\0';
		/* Names escaped: no control byte but the line's end. */
		for (const char *c = line; *c; c++)
			FZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f,
				 "-M GMONFILE with a control byte: %s", line);
		for (const char *c = sp + 1; *c; c++)
			FZ_CHECK(((unsigned char)*c >= 0x20 && *c != 0x7f) || (*c == '\n' && !c[1]),
				 "-M OBJECT with a control byte: %s", sp + 1);
		fz_unescape(line);
		fz_check_gmon(line);
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(strcmp(seen[i], line), "-M names %s twice", line);
		if (n < 64)
			snprintf(seen[n++], sizeof(seen[0]), "%s", line);
	}
	fclose(f);
}

enum cg_output { CG_FOLDED, CG_TREE, CG_FLAME, CG_TRACE };

static char *printed(const struct pmclog_callgraph *cg, enum cg_output what)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		fz_fail("open_memstream: %s", strerror(errno));
	if (what == CG_TREE)
		pmclog_callgraph__print_tree(cg, f);
	else if (what == CG_FOLDED)
		pmclog_callgraph__print_folded(cg, f);
	else if (what == CG_FLAME)
		pmclog_callgraph__print_flame_json(cg, f);
	else
		FZ_CHECK(!pmclog_callgraph__print_chrome_trace(cg, f), "chrome-trace failed");
	fclose(f);
	return text;
}

static void check_callgraph(const struct pmclog_callgraph *cg,
			    const struct pmclog_report *rep)
{
	__u64 n = pmclog_callgraph__samples(cg), sum = 0;
	char *text = printed(cg, CG_FOLDED), *line, *nl, *sp;

	FZ_CHECK(n <= pmclog_report__stats(rep)->samples,
		 "%llu samples with stacks of %llu", (unsigned long long)n,
		 (unsigned long long)pmclog_report__stats(rep)->samples);
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		FZ_CHECK(nl, "folded stacks: a line without its newline");
		*nl = '\0';
		sp = strrchr(line, ' ');
		FZ_CHECK(sp && sp > line && sp[1], "folded stacks: no count in '%s'", line);
		sum += strtoull(sp + 1, NULL, 10);
		*sp = '\0';
		FZ_CHECK(line[0] != ';' && sp[-1] != ';' && !strstr(line, ";;"),
			 "folded stacks: an empty frame in '%s'", line);
	}
	FZ_CHECK(sum == n, "folded stacks add up to %llu samples, not %llu",
		 (unsigned long long)sum, (unsigned long long)n);
	free(text);
	text = printed(cg, CG_TREE);
	FZ_CHECK(n ? !strncmp(text, "@ ", 2) : !*text, "-G: '%.40s' for %llu samples",
		 text, (unsigned long long)n);
	free(text);
	/*
	 * The flame graph's data: JSON two levels deep a frame (a node, its
	 * children), safe inside a <script>; the chrome trace: JSON.
	 */
	text = printed(cg, CG_FLAME);
	check_json_of("flamegraph data", text, 2 * (2 * PMCLOG_CALLCHAIN_DEPTH_LIMIT + 2) + 8);
	FZ_CHECK(!strpbrk(text, "<>&"), "flamegraph data: <, > or & in '%.80s'",
		 strpbrk(text, "<>&"));
	free(text);
	text = printed(cg, CG_TRACE);
	check_json_of("chrome-trace", text, 8);
	free(text);
}

/* The gzipped profile, unpacked by zlib and protobuf-c, and its ids checked. */
static void check_pprof(const struct pmclog_pprof *pp, __u64 want)
{
	Perftools__Profiles__Profile *p;
	char *gz = NULL;
	size_t gzlen = 0, cap = 1 << 16;
	unsigned char *raw = malloc(cap);
	FILE *f = open_memstream(&gz, &gzlen);
	z_stream z = { 0 };
	__u64 sum = 0;
	int zr;

	if (!f || !raw)
		fz_fail("out of memory");
	FZ_CHECK(!pmclog_pprof__write(pp, f), "pmclog_pprof__write: %s", strerror(errno));
	fclose(f);
	FZ_CHECK(gzlen > 2 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b,
		 "pprof: not gzip");
	FZ_CHECK(inflateInit2(&z, 15 + 16) == Z_OK, "inflateInit2");
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gzlen;
	do {
		if (z.total_out == cap) {
			unsigned char *grown = realloc(raw, cap * 2);

			if (!grown)
				fz_fail("out of memory");
			raw = grown;
			cap *= 2;
		}
		z.next_out = raw + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_FINISH);
	} while (zr == Z_BUF_ERROR && z.total_out == cap);
	FZ_CHECK(zr == Z_STREAM_END, "pprof: gzip stream: %d", zr);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	FZ_CHECK(p, "pprof: protobuf-c cannot decode the profile");
	inflateEnd(&z);
	FZ_CHECK(p->n_string_table && !*p->string_table[0], "pprof: string 0 is not empty");
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = p->sample[i];

		FZ_CHECK(sm->n_value == p->n_sample_type, "pprof: %zu values, %zu types",
			 sm->n_value, p->n_sample_type);
		FZ_CHECK(sm->n_location_id >= 1, "pprof: a sample without a location");
		for (size_t j = 0; j < sm->n_location_id; j++)
			FZ_CHECK(sm->location_id[j] >= 1 && sm->location_id[j] <= p->n_location,
				 "pprof: location %llu of %zu", (unsigned long long)sm->location_id[j],
				 p->n_location);
		/*
		 * A sample's values are its PMC's, "samples" (at least 1) first,
		 * then the event's; the others' 0.
		 */
		for (size_t t = 0; t < p->n_sample_type; t++) {
			int64_t type = p->sample_type[t]->type;

			FZ_CHECK(type >= 0 && (size_t)type < p->n_string_table, "pprof: type string");
			if (sm->value[t]) {
				sum += (__u64)sm->value[t];
				break;
			}
		}
	}
	FZ_CHECK(sum == want, "pprof: %llu samples, the report's %llu",
		 (unsigned long long)sum, (unsigned long long)want);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		FZ_CHECK(l->id == i + 1 && l->mapping_id <= p->n_mapping, "pprof: location %zu", i);
		for (size_t j = 0; j < l->n_line; j++)
			FZ_CHECK(l->line[j]->function_id >= 1 &&
				 l->line[j]->function_id <= p->n_function, "pprof: line's function");
	}
	for (size_t i = 0; i < p->n_mapping; i++)
		FZ_CHECK(p->mapping[i]->filename >= 0 &&
			 (size_t)p->mapping[i]->filename < p->n_string_table, "pprof: mapping file");
	for (size_t i = 0; i < p->n_function; i++)
		FZ_CHECK(p->function[i]->name > 0 &&
			 (size_t)p->function[i]->name < p->n_string_table, "pprof: function name");
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(raw);
	free(gz);
}

/*
 * The script: printed; without comm (count), a line per sample that
 * starts one: not a frame's, not an event's (whose text, after the
 * time's ": ", is PERF_RECORD_ or PMCLOG_RECORD_; no field before it has
 * ": ").
 */
static void check_script(struct pmclog_script *sc, bool count, __u64 want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	__u64 n = 0;

	if (!f)
		fz_fail("open_memstream: %s", strerror(errno));
	FZ_CHECK(!pmclog_script__print(sc, f), "pmclog_script__print: %s", strerror(errno));
	fclose(f);
	for (char *l = text; count && l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *t = strstr(l, ": ");

		if (*l != '\t' && *l != '\n' && t && strncmp(t + 2, "PERF_RECORD_", 12) &&
		    strncmp(t + 2, "PMCLOG_RECORD_", 14))
			n++;
	}
	FZ_CHECK(!count || n == want, "script: %llu sample lines, %llu samples", (unsigned long long)n,
		 (unsigned long long)want);
	free(text);
}

struct consumers {
	struct pmclog_callgraph *cg;
	struct pmclog_pprof *pp;
	struct pmclog_script *sc;
};

static int all_sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct consumers *c = ctx;
	int ret = pmclog_callgraph__report_sample(c->cg, s);

	if (!ret)
		ret = pmclog_pprof__sample(c->pp, s);
	return ret ? ret : pmclog_script__sample(c->sc, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmclog_script_opts so = { .sz = sizeof(so), .mmap_events = true,
					 .task_events = true };
	struct consumers all;
	struct pmclog_report_opts o = { 0 };
	struct pmclog_resolver_opts ro = { 0 };
	struct pmclog_strings *strings;
	struct pmclog_replay *rp;
	struct pmclog_resolver *res;
	struct pmclog_report *rep;
	struct pmclog_callgraph *cg;
	char gdir[PATH_MAX], map[PATH_MAX];
	__u32 pids[2];
	__u64 samples;
	bool selected = false;

	if (size < OPT_BYTES)
		return 0;
	for (o.nkeys = 0; o.nkeys < PMCLOG_SORT_MAX && keys[data[0] & 7][o.nkeys]; o.nkeys++)
		o.keys[o.nkeys] = keys[data[0] & 7][o.nkeys];
	o.demangle = data[0] & 0x08;
	o.full_paths = data[0] & 0x10;
	if (data[0] & 0x20) {
		o.has_time = true;
		o.time_from = (__u64)data[2] * 64;
		o.time_to = o.time_from + ((__u64)data[3] + 1) * 64;
	}
	if (data[0] & 0x40) {
		pids[0] = data[2];
		pids[1] = data[3];
		o.pids = pids;
		o.npids = 2;
	}
	ro.root = data[1] & 4 ? root_slash : root;
	ro.kernel = kernel_opts[data[1] & 3];

	strings = pmclog_strings__new();
	rp = strings ? pmclog_replay__new(strings) : NULL;
	res = rp ? pmclog_resolver__new(strings, &ro) : NULL;
	rep = res ? pmclog_report__new(strings, rp, res, &o) : NULL;
	cg = rep ? pmclog_callgraph__new(rep) : NULL;
	all = (struct consumers){
		.cg = cg, .pp = cg ? pmclog_pprof__new(rep) : NULL,
		.sc = cg ? pmclog_script__new(rep, &so) : NULL,
	};
	if (!all.pp || !all.sc)
		fz_fail("out of memory");
	pmclog_callgraph__keep_timeline(cg);
	/* Byte 1 bit 5: comm too (names from the log: no count then). */
	if (!(data[1] & 0x20)) {
		pmclog_script__free(all.sc);
		so.fields = PMCLOG_SCRIPT_F_ALL & ~PMCLOG_SCRIPT_F_COMM;
		all.sc = pmclog_script__new(rep, &so);
		if (!all.sc)
			fz_fail("out of memory");
	}
	fz_read_log(data + OPT_BYTES, size - OPT_BYTES, add_record, rp);
	pmclog_replay__set_record_fn(rp, pmclog_script__record, all.sc);
	FZ_CHECK(!pmclog_replay__run(rp, all_sample, &all), "replay failed");
	if (data[1] & 8) {
		char spec[16];

		snprintf(spec, sizeof(spec), "%u", data[2] & 7);
		fz_listen();
		selected = !pmclog_report__select(rep, data[1] & 0x10 ? "cpu-clock" : spec);
		if (!selected) {
			FZ_CHECK(errno == ENOENT || errno == ENOTUNIQ, "--event: %s", strerror(errno));
			FZ_CHECK(fz_said()[0], "--event failed without saying why");
		}
	}
	FZ_CHECK(!pmclog_report__finish(rep), "pmclog_report__finish failed");
	FZ_CHECK(!selected || pmclog_report__nprofiles(rep) == 1,
		 "--event left %zu profiles", pmclog_report__nprofiles(rep));
	FZ_CHECK(!pmclog_callgraph__finish(cg), "pmclog_callgraph__finish failed");
	check_callgraph(cg, rep);
	FZ_CHECK(!pmclog_pprof__finish(all.pp), "pmclog_pprof__finish failed");
	FZ_CHECK(pmclog_pprof__samples(all.pp) == pmclog_report__stats(rep)->samples,
		 "pprof: %llu samples, the report's %llu",
		 (unsigned long long)pmclog_pprof__samples(all.pp),
		 (unsigned long long)pmclog_report__stats(rep)->samples);
	check_pprof(all.pp, pmclog_report__stats(rep)->samples);
	/* The script keeps --pid and --time, not --event. */
	check_script(all.sc, !(data[1] & 0x20), pmclog_report__stats(rep)->samples +
			     pmclog_report__stats(rep)->other_events);
	samples = pmclog_replay__stats(rp)->samples;
	FZ_CHECK(pmclog_report__stats(rep)->samples + pmclog_report__stats(rep)->filtered_out +
		 pmclog_report__stats(rep)->other_events == samples,
		 "report samples + filtered out + other events != %llu replayed",
		 (unsigned long long)samples);
	check_rows(rep, &o);
	check_formats(rep, &o);
	for (int v = -1; v <= 1; v++)
		pmclog_report__print_stats(rep, fz_devnull(), v);
	if (data[0] & 0x80) {
		snprintf(gdir, sizeof(gdir), "%s/gmon", fz_scratch_dir());
		snprintf(map, sizeof(map), "%s/gmon.map", gdir);
		fz_listen();
		if (pmclog_report__write_gmon(rep, gdir, map))
			FZ_CHECK(fz_said()[0], "-g failed without saying why");
		else
			check_gmon_map(map);
		fz_rm_tree(gdir);
	}
	pmclog_script__free(all.sc);
	pmclog_pprof__free(all.pp);
	pmclog_callgraph__free(cg);
	pmclog_report__free(rep);
	pmclog_resolver__free(res);
	pmclog_replay__free(rp);
	pmclog_strings__free(strings);
	return 0;
}
