// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog report formats, a table of printers (as pmcstat's plugins),
 * and the conversion statistics.
 *
 * Names come from the log (paths, KSYMBOL and event names) and from ELF
 * files, and may hold any byte but NUL.  JSON escapes them as JSON does;
 * the line formats print them as pmclog dump does (bytes below 0x20,
 * 0x7f and backslash as \xNN), and folded also its separator ';', so
 * that no name splits a row or forges one.
 */
#include <errno.h>
#include <string.h>

#include "pmclog_internal.h"

struct report_format {
	const char *name;
	void (*print)(const struct pmclog_report *rep, FILE *f);
};

static double percent(const struct pmclog_report *rep, __u64 n)
{
	return rep->stats.samples ? 100.0 * (double)n / (double)rep->stats.samples : 0;
}

static const char *key_name(enum pmclog_sort_key k)
{
	switch (k) {
	case PMCLOG_SORT_PID:
		return "pid";
	case PMCLOG_SORT_DSO:
		return "dso";
	default:
		return "sym";
	}
}

/*
 * What the kernel's throttling took out of the profile (THROTTLE and
 * UNTHROTTLE records): stopped for the interrupt rate or CPU time, and
 * PMCs that did not start on a CPU, whose counter was busy or absent.
 */
struct throttle_sum {
	__u64 rate, cpu_time, total;	/* throttles; total has newer reasons */
	__u64 stopped_ns;		/* for those */
	__u64 open;			/* without UNTHROTTLE at the end */
	__u64 busy, absent, skipped;	/* CPUs skipped; skipped = busy + absent */
	__u64 skipped_ns;
};

static void throttle_sum(const struct pmclog_replay_stats *st,
			 struct throttle_sum *t)
{
	static const unsigned int rates[] = { 0, PMCLOG_THROTTLE_RATE,
					      PMCLOG_THROTTLE_CPU_TIME };
	static const unsigned int skips[] = { PMCLOG_THROTTLE_BUSY,
					      PMCLOG_THROTTLE_ABSENT };
	__u64 ended = 0;

	memset(t, 0, sizeof(*t));
	t->rate = st->throttles[PMCLOG_THROTTLE_RATE];
	t->cpu_time = st->throttles[PMCLOG_THROTTLE_CPU_TIME];
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		t->total += st->throttles[rates[i]];
		t->stopped_ns += st->stopped_ns[rates[i]];
		ended += st->unthrottles[rates[i]];
	}
	t->open = t->total > ended ? t->total - ended : 0;
	t->busy = st->throttles[PMCLOG_THROTTLE_BUSY];
	t->absent = st->throttles[PMCLOG_THROTTLE_ABSENT];
	t->skipped = t->busy + t->absent;
	for (size_t i = 0; i < sizeof(skips) / sizeof(skips[0]); i++)
		t->skipped_ns += st->stopped_ns[skips[i]];
}

/* "12 times (12 interrupt rate, 0 CPU time), 48.000 ms without samples". */
static void throttle_words(const struct throttle_sum *t, FILE *f)
{
	fprintf(f, "%llu time%s (%llu interrupt rate, %llu CPU time), %.3f ms without samples",
		(unsigned long long)t->total, t->total == 1 ? "" : "s",
		(unsigned long long)t->rate, (unsigned long long)t->cpu_time,
		(double)t->stopped_ns / 1e6);
	if (t->open)
		fprintf(f, ", %llu still throttled at the end",
			(unsigned long long)t->open);
	if (t->skipped)
		fprintf(f, "; PMCs did not start on %llu CPU%s (%llu counter busy, %llu counter absent)",
			(unsigned long long)t->skipped, t->skipped == 1 ? "" : "s",
			(unsigned long long)t->busy, (unsigned long long)t->absent);
}

static bool escaped(unsigned char c, const char *sep)
{
	return c < 0x20 || c == 0x7f || c == '\\' || (c && strchr(sep, c));
}

/* s as one field of a line; sep: more bytes to escape. */
static void put_field(FILE *f, const char *s, const char *sep)
{
	for (; *s; s++) {
		if (escaped((unsigned char)*s, sep))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
}

/* The columns put_field() takes for s. */
static int field_width(const char *s, const char *sep)
{
	int n = 0;

	for (; *s; s++)
		n += escaped((unsigned char)*s, sep) ? 4 : 1;
	return n;
}

/* s, then spaces up to width columns. */
static void put_padded(FILE *f, const char *s, int width)
{
	put_field(f, s, "");
	fprintf(f, "%*s", width > field_width(s, "") ? width - field_width(s, "") : 0, "");
}

static const char *comm_of(const struct pmclog_row *r)
{
	const char *base;

	if (!r->comm)
		return "?";
	base = strrchr(r->comm, '/');
	return base ? base + 1 : r->comm;
}

/* ------------------------------------------------------------------ */
/* text: like perf report --stdio                                     */

static int object_width(const struct pmclog_report *rep)
{
	int w = 6;

	for (size_t i = 0; i < rep->nrows; i++) {
		int n = rep->rows[i].object ? field_width(rep->rows[i].object, "") : 0;

		if (n > w)
			w = n;
	}
	return w > 48 ? 48 : w;
}

static void text_header(const struct pmclog_report *rep, FILE *f, int ow)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(rep->replay);
	struct throttle_sum t;

	fprintf(f, "# pmclog report: %llu samples", (unsigned long long)rep->stats.samples);
	if (st->event) {
		fprintf(f, " of event '");
		put_field(f, st->event, "");
		fputc('\'', f);
	}
	fprintf(f, ", sorted by");
	for (size_t i = 0; i < rep->opts.nkeys; i++)
		fprintf(f, "%s%s", i ? "," : " ", key_name(rep->opts.keys[i]));
	throttle_sum(st, &t);
	if (t.total || t.skipped) {
		fprintf(f, "\n# throttled by the kernel: ");
		throttle_words(&t, f);
	}
	if (st->procs_unfollowed)
		fprintf(f, "\n# %llu descendants not followed (table full): their samples are missing",
			(unsigned long long)st->procs_unfollowed);
	fprintf(f, "\n#\n# Overhead  Samples");
	for (size_t i = 0; i < rep->opts.nkeys; i++) {
		if (rep->opts.keys[i] == PMCLOG_SORT_PID)
			fprintf(f, "  %-20s", "Pid:Command");
		else if (rep->opts.keys[i] == PMCLOG_SORT_DSO)
			fprintf(f, "  %-*s", ow, "Object");
		else
			fprintf(f, "  Symbol");
	}
	fprintf(f, "\n#\n");
}

static void text_print(const struct pmclog_report *rep, FILE *f)
{
	int ow = object_width(rep);
	char pidbuf[16];

	text_header(rep, f, ow);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct pmclog_row *r = &rep->rows[i];

		fprintf(f, "  %6.2f%%  %7llu", percent(rep, r->samples),
			(unsigned long long)r->samples);
		for (size_t k = 0; k < rep->opts.nkeys; k++) {
			switch (rep->opts.keys[k]) {
			case PMCLOG_SORT_PID:
				snprintf(pidbuf, sizeof(pidbuf), "%u:", r->pid);
				fprintf(f, "  %s", pidbuf);
				put_padded(f, comm_of(r), 20 - (int)strlen(pidbuf));
				break;
			case PMCLOG_SORT_DSO:
				fputs("  ", f);
				put_padded(f, r->object, ow);
				break;
			default:
				fprintf(f, "  [%c] ", r->kernel ? 'k' : '.');
				put_field(f, r->symbol, "");
				break;
			}
		}
		fputc('\n', f);
	}
}

/* ------------------------------------------------------------------ */
/* json                                                               */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Rows name code (an object or a function), not just processes. */
static bool sorts_by_code(const struct pmclog_report *rep)
{
	for (size_t k = 0; k < rep->opts.nkeys; k++)
		if (rep->opts.keys[k] != PMCLOG_SORT_PID)
			return true;
	return false;
}

static void json_row(const struct pmclog_report *rep, const struct pmclog_row *r,
		     FILE *f)
{
	fprintf(f, "    {\"percent\": %.4f, \"samples\": %llu", percent(rep, r->samples),
		(unsigned long long)r->samples);
	for (size_t k = 0; k < rep->opts.nkeys; k++) {
		switch (rep->opts.keys[k]) {
		case PMCLOG_SORT_PID:
			fprintf(f, ", \"pid\": %u, \"command\": ", r->pid);
			if (r->comm)
				json_str(f, r->comm);
			else
				fprintf(f, "null");
			break;
		case PMCLOG_SORT_DSO:
			fprintf(f, ", \"object\": ");
			json_str(f, r->object);
			break;
		default:
			fprintf(f, ", \"symbol\": ");
			json_str(f, r->symbol);
			break;
		}
	}
	if (sorts_by_code(rep))
		fprintf(f, ", \"mode\": \"%s\"", r->kernel ? "kernel" : "user");
	fputc('}', f);
}

static void json_stats(const struct pmclog_report *rep, FILE *f)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(rep->replay);
	const struct pmclog_report_stats *rs = &rep->stats;
	struct throttle_sum t;
	bool first = true;

	fprintf(f, "  \"stats\": {\n    \"abi\": \"%u.%u.%u\",\n    \"event\": ",
		PMCLOG_ABI_VERSION_MAJOR(st->abi_version),
		PMCLOG_ABI_VERSION_MINOR(st->abi_version),
		PMCLOG_ABI_VERSION_PATCH(st->abi_version));
	if (st->event)
		json_str(f, st->event);
	else
		fprintf(f, "null");
	fprintf(f, ",\n    \"records\": {");
	for (unsigned int t = 1; t < PMCLOG_REPLAY_TYPES; t++) {
		const char *name = pmclog_type_name(t);

		if (!st->records[t])
			continue;
		fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", name ? name : "newer",
			(unsigned long long)st->records[t]);
		first = false;
	}
	fprintf(f, "},\n    \"samples\": %llu, \"resolved\": %llu, \"unknown_object\": %llu, \"unknown_function\": %llu, \"kernel_address_hidden\": %llu, \"filtered_out\": %llu,\n",
		(unsigned long long)rs->samples, (unsigned long long)rs->resolved,
		(unsigned long long)rs->no_object, (unsigned long long)rs->no_function,
		(unsigned long long)rs->hidden, (unsigned long long)rs->filtered_out);
	fprintf(f, "    \"objects\": %zu, \"objects_not_found\": %zu,\n",
		rs->objects, rs->objects_not_found);
	throttle_sum(st, &t);
	fprintf(f, "    \"throttles\": {\"total\": %llu, \"rate\": %llu, \"cpu_time\": %llu, \"stopped_ns\": %llu, \"open\": %llu},\n",
		(unsigned long long)t.total, (unsigned long long)t.rate,
		(unsigned long long)t.cpu_time, (unsigned long long)t.stopped_ns,
		(unsigned long long)t.open);
	fprintf(f, "    \"cpus_skipped\": {\"total\": %llu, \"busy\": %llu, \"absent\": %llu, \"stopped_ns\": %llu},\n",
		(unsigned long long)t.skipped, (unsigned long long)t.busy,
		(unsigned long long)t.absent, (unsigned long long)t.skipped_ns);
	fprintf(f, "    \"processes_unfollowed\": %llu,\n",
		(unsigned long long)st->procs_unfollowed);
	fprintf(f, "    \"dropped_samples\": %llu, \"dropped_records\": %llu, \"complete\": %s\n  }\n",
		(unsigned long long)(st->closelog ? st->close_samples_dropped : st->drop_samples),
		(unsigned long long)(st->closelog ? st->close_records_dropped : st->drop_records),
		st->closelog ? "true" : "false");
}

static void json_print(const struct pmclog_report *rep, FILE *f)
{
	fprintf(f, "{\n  \"sort\": [");
	for (size_t i = 0; i < rep->opts.nkeys; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", key_name(rep->opts.keys[i]));
	fprintf(f, "],\n  \"rows\": [\n");
	for (size_t i = 0; i < rep->nrows; i++) {
		json_row(rep, &rep->rows[i], f);
		fprintf(f, "%s\n", i + 1 < rep->nrows ? "," : "");
	}
	fprintf(f, "  ],\n");
	json_stats(rep, f);
	fprintf(f, "}\n");
}

/* ------------------------------------------------------------------ */
/* folded: "key;key;key count", the input of flamegraph.pl             */

static void folded_print(const struct pmclog_report *rep, FILE *f)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct pmclog_row *r = &rep->rows[i];

		for (size_t k = 0; k < rep->opts.nkeys; k++) {
			if (k)
				fputc(';', f);
			if (rep->opts.keys[k] == PMCLOG_SORT_PID) {
				put_field(f, comm_of(r), ";");
				fprintf(f, "-%u", r->pid);
			} else {
				put_field(f, rep->opts.keys[k] == PMCLOG_SORT_DSO ?
					  r->object : r->symbol, ";");
			}
		}
		fprintf(f, " %llu\n", (unsigned long long)r->samples);
	}
}

static const struct report_format formats[] = {
	{ "text", text_print },
	{ "json", json_print },
	{ "folded", folded_print },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const char *const *pmclog_report__formats(void)
{
	static const char *names[NFORMATS + 1];

	for (size_t i = 0; i < NFORMATS; i++)
		names[i] = formats[i].name;
	return names;
}

int pmclog_report__print(const struct pmclog_report *rep, const char *format,
			 FILE *f)
{
	for (size_t i = 0; i < NFORMATS; i++) {
		if (!strcmp(format, formats[i].name)) {
			formats[i].print(rep, f);
			return 0;
		}
	}
	return -(errno = EINVAL);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                         */

static void stats_records(const struct pmclog_replay_stats *st, FILE *f)
{
	__u64 total = 0;

	for (unsigned int t = 0; t < PMCLOG_REPLAY_TYPES; t++)
		total += st->records[t];
	fprintf(f, "pmclog report: %llu records:", (unsigned long long)total);
	for (unsigned int t = 1; t < PMCLOG_REPLAY_TYPES; t++) {
		const char *name = pmclog_type_name(t);

		if (st->records[t])
			fprintf(f, " %s %llu", name ? name : "newer-types",
				(unsigned long long)st->records[t]);
	}
	fputc('\n', f);
}

static void stats_objects(const struct pmclog_report *rep, FILE *f, int verbosity)
{
	size_t n = pmclog_replay__nobjects(rep->replay);

	fprintf(f, "pmclog report: %zu objects with samples, %zu not found%s\n",
		rep->stats.objects, rep->stats.objects_not_found,
		rep->stats.objects_not_found && verbosity <= 0 ? " (-v says which and why)" : "");
	for (size_t i = 0; i < n; i++) {
		const struct pmclog_object *o = pmclog_replay__object(rep->replay, i);
		enum pmclog_obj_state s = pmclog_resolver__state(o);
		const char *file = pmclog_resolver__file(o);

		if (verbosity <= 0 || (s != PMCLOG_OBJST_NOTFOUND && s != PMCLOG_OBJST_LOADED))
			continue;
		fputs("pmclog report:   ", f);
		put_field(f, o->path, "");
		if (s == PMCLOG_OBJST_NOTFOUND) {
			fputs(" [not found]: ", f);
			put_field(f, pmclog_resolver__detail(o), "");
		} else {
			fputs(": symbols from ", f);
			put_field(f, file ? file : "the log (KSYMBOL)", "");
		}
		fputc('\n', f);
	}
}

void pmclog_report__print_stats(const struct pmclog_report *rep, FILE *f,
				int verbosity)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(rep->replay);
	const struct pmclog_report_stats *rs = &rep->stats;
	struct throttle_sum t;

	if (verbosity < 0)
		return;
	fprintf(f, "pmclog report: log ABI %u.%u.%u, event ",
		PMCLOG_ABI_VERSION_MAJOR(st->abi_version),
		PMCLOG_ABI_VERSION_MINOR(st->abi_version),
		PMCLOG_ABI_VERSION_PATCH(st->abi_version));
	put_field(f, st->event ? st->event : "(none)", "");
	fputc('\n', f);
	stats_records(st, f);
	fprintf(f, "pmclog report: %llu samples: %llu resolved, %llu unknown object, %llu unknown function, %llu kernel with address hidden",
		(unsigned long long)rs->samples, (unsigned long long)rs->resolved,
		(unsigned long long)rs->no_object, (unsigned long long)rs->no_function,
		(unsigned long long)rs->hidden);
	if (rs->filtered_out)
		fprintf(f, "; %llu left out by --pid or --time", (unsigned long long)rs->filtered_out);
	fputc('\n', f);
	stats_objects(rep, f, verbosity);
	fprintf(f, "pmclog report: dropped by the kernel: %llu samples, %llu records\n",
		(unsigned long long)(st->closelog ? st->close_samples_dropped : st->drop_samples),
		(unsigned long long)(st->closelog ? st->close_records_dropped : st->drop_records));
	throttle_sum(st, &t);
	fprintf(f, "pmclog report: throttled by the kernel: ");
	throttle_words(&t, f);
	fputc('\n', f);
	if (st->procs_unfollowed)
		fprintf(f, "pmclog report: %llu descendants not followed (the kernel's table was full): their samples are missing\n",
			(unsigned long long)st->procs_unfollowed);
	if (verbosity > 0)
		fprintf(f, "pmclog report: %llu KSYMBOL records outside every kernel map; %llu maps with end <= start ignored\n",
			(unsigned long long)st->ksymbols_unmapped,
			(unsigned long long)st->maps_bad);
}

/* A name as one field of a line, escaped as the line formats do. */
void pmclog_report__put_field(FILE *f, const char *s, const char *sep)
{
	put_field(f, s, sep);
}
