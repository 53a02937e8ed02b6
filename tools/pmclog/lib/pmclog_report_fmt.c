// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog report formats, a table of printers (as pmcstat's plugins),
 * and the conversion statistics.  Each prints one profile per PMC.
 *
 * Names come from the log (paths, KSYMBOL and event names) and from ELF
 * files, and may hold any byte but NUL.  The line formats print them as
 * pmclog dump does (bytes below 0x20, 0x7f and backslash as \xNN), and
 * folded also its separator ';', so that no name splits a row or forges
 * one.  JSON is valid UTF-8 whatever the names hold: control characters
 * as JSON escapes them (\u00NN), and a byte that is not part of valid
 * UTF-8, and backslash itself, as the four characters \xNN, so that the
 * name's bytes can be had back from the decoded string.
 */
#include <errno.h>
#include <string.h>

#include "pmclog_events.h"
#include "pmclog_internal.h"

struct report_format {
	const char *name;
	void (*print)(const struct pmclog_report *rep, FILE *f);
};

static double percent(__u64 n, __u64 of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

static const char *key_name(enum pmclog_sort_key k)
{
	switch (k) {
	case PMCLOG_SORT_PID:
		return "pid";
	case PMCLOG_SORT_DSO:
		return "dso";
	case PMCLOG_SORT_SRCLINE:
		return "srcline";
	default:
		return "sym";
	}
}

static bool sorts_by(const struct pmclog_report *rep, enum pmclog_sort_key k)
{
	for (size_t i = 0; i < rep->opts.nkeys; i++)
		if (rep->opts.keys[i] == k)
			return true;
	return false;
}

/* Rows name code (an object or a function), not just processes. */
static bool sorts_by_code(const struct pmclog_report *rep)
{
	return sorts_by(rep, PMCLOG_SORT_DSO) || sorts_by(rep, PMCLOG_SORT_SYM);
}

/*
 * What the kernel's throttling took out of the profile (THROTTLE and
 * UNTHROTTLE records, of the whole log or of one PMC): stopped for the
 * interrupt rate or CPU time, and PMCs that did not start on a CPU,
 * whose counter was busy or absent.
 */
struct throttle_sum {
	__u64 rate, cpu_time, total;	/* throttles; total has newer reasons */
	__u64 stopped_ns;		/* for those */
	__u64 open;			/* without UNTHROTTLE at the end */
	__u64 busy, absent, skipped;	/* CPUs skipped; skipped = busy + absent */
	__u64 skipped_ns;
};

static void throttle_sum(const __u64 *throttles, const __u64 *unthrottles,
			 const __u64 *stopped_ns, struct throttle_sum *t)
{
	static const unsigned int rates[] = { 0, PMCLOG_THROTTLE_RATE,
					      PMCLOG_THROTTLE_CPU_TIME };
	static const unsigned int skips[] = { PMCLOG_THROTTLE_BUSY,
					      PMCLOG_THROTTLE_ABSENT };
	__u64 ended = 0;

	memset(t, 0, sizeof(*t));
	t->rate = throttles[PMCLOG_THROTTLE_RATE];
	t->cpu_time = throttles[PMCLOG_THROTTLE_CPU_TIME];
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		t->total += throttles[rates[i]];
		t->stopped_ns += stopped_ns[rates[i]];
		ended += unthrottles[rates[i]];
	}
	t->open = t->total > ended ? t->total - ended : 0;
	t->busy = throttles[PMCLOG_THROTTLE_BUSY];
	t->absent = throttles[PMCLOG_THROTTLE_ABSENT];
	t->skipped = t->busy + t->absent;
	for (size_t i = 0; i < sizeof(skips) / sizeof(skips[0]); i++)
		t->skipped_ns += stopped_ns[skips[i]];
}

static void log_throttles(const struct pmclog_report *rep, struct throttle_sum *t)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(rep->replay);

	throttle_sum(st->throttles, st->unthrottles, st->stopped_ns, t);
}

/*
 * A profile's: its PMC's; the whole log's when it is the only profile
 * (as before profiles were per PMC: also the throttles of a PMC that
 * has no PMCALLOCATE).
 */
static void profile_throttles(const struct pmclog_report *rep,
			      const struct pmclog_profile *p, struct throttle_sum *t)
{
	if (rep->nprofs <= 1 || !p->pmc) {
		if (rep->nprofs <= 1)
			log_throttles(rep, t);
		else
			memset(t, 0, sizeof(*t));
		return;
	}
	throttle_sum(p->pmc->throttles, p->pmc->unthrottles, p->pmc->stopped_ns, t);
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

/* "1000 Hz", "every 1000000 ns", "every 100003 events". */
static void rate_words(const struct pmclog_replay_pmc *pmc, FILE *f)
{
	if (pmc->flags & PMCLOG_PMC_F_FREQ)
		fprintf(f, "%llu Hz", (unsigned long long)pmc->period);
	else
		fprintf(f, "every %llu %s", (unsigned long long)pmc->period,
			pmc->event == PMCLOG_EV_CPU_CLOCK ? "ns" : "events");
}

#define put_field pmclog_put_escaped

/* s, then spaces up to width columns. */
static void put_padded(FILE *f, const char *s, int width)
{
	put_field(f, s, "");
	fprintf(f, "%*s", width > pmclog_escaped_width(s, "") ? width - pmclog_escaped_width(s, "") : 0, "");
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
/* text: like perf report --stdio, a section per event                */

static int object_width(const struct pmclog_report *rep)
{
	int w = 6;

	for (size_t i = 0; i < rep->nrows; i++) {
		int n = rep->rows[i].object ? pmclog_escaped_width(rep->rows[i].object, "") : 0;

		if (n > w)
			w = n;
	}
	return w > 48 ? 48 : w;
}

/* The symbol column, padded only when another column follows it. */
static int symbol_width(const struct pmclog_report *rep)
{
	int w = 6;

	if (!rep->opts.nkeys || rep->opts.keys[rep->opts.nkeys - 1] == PMCLOG_SORT_SYM)
		return 0;
	for (size_t i = 0; i < rep->nrows; i++) {
		int n = rep->rows[i].symbol ? pmclog_escaped_width(rep->rows[i].symbol, "") : 0;

		if (n > w)
			w = n;
	}
	return w > 60 ? 60 : w;
}

static void text_sorted_by(const struct pmclog_report *rep, FILE *f)
{
	fprintf(f, ", sorted by");
	for (size_t i = 0; i < rep->opts.nkeys; i++)
		fprintf(f, "%s%s", i ? "," : " ", key_name(rep->opts.keys[i]));
}

static void text_throttles(const struct throttle_sum *t, FILE *f)
{
	if (!t->total && !t->skipped)
		return;
	fprintf(f, "\n# throttled by the kernel: ");
	throttle_words(t, f);
}

static void text_replay_notes(const struct pmclog_report *rep, FILE *f)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(rep->replay);

	if (st->records_late)
		fprintf(f, "\n# %llu records later than the sort window (%.3f s): replayed where read",
			(unsigned long long)st->records_late, st->sort_window_ns / 1e9);
	if (st->procs_unfollowed)
		fprintf(f, "\n# %llu descendants not followed (table full): their samples are missing",
			(unsigned long long)st->procs_unfollowed);
}

static void text_columns(const struct pmclog_report *rep, FILE *f, int ow)
{
	fprintf(f, "\n#\n# Overhead  Samples");
	for (size_t i = 0; i < rep->opts.nkeys; i++) {
		if (rep->opts.keys[i] == PMCLOG_SORT_PID)
			fprintf(f, "  %-20s", "Pid:Command");
		else if (rep->opts.keys[i] == PMCLOG_SORT_DSO)
			fprintf(f, "  %-*s", ow, "Object");
		else if (rep->opts.keys[i] == PMCLOG_SORT_SRCLINE)
			fprintf(f, "  Source:Line");
		else
			fprintf(f, "  %-*s", symbol_width(rep) ? symbol_width(rep) + 4 : 0, "Symbol");
	}
	fprintf(f, "\n#\n");
}

/*
 * The only profile (or none): "# pmclog report: N samples of event 'E'
 * (RATE), sorted by KEYS", as before profiles were per PMC.
 */
static void text_header_one(const struct pmclog_report *rep, FILE *f, int ow)
{
	const struct pmclog_profile *p = rep->nprofs ? &rep->profs[0] : NULL;
	struct throttle_sum t;

	fprintf(f, "# pmclog report: %llu samples", (unsigned long long)rep->stats.samples);
	if (p && p->pmc) {
		fprintf(f, " of event '");
		put_field(f, p->pmc->name, "");
		fprintf(f, "' (");
		rate_words(p->pmc, f);
		fputc(')', f);
	}
	text_sorted_by(rep, f);
	log_throttles(rep, &t);
	text_throttles(&t, f);
	text_replay_notes(rep, f);
	text_columns(rep, f, ow);
}

/* "# event 'E' (PMC N, RATE): N samples" and its throttles. */
static void text_header_profile(const struct pmclog_report *rep,
				const struct pmclog_profile *p, FILE *f, int ow)
{
	struct throttle_sum t;

	fprintf(f, "#\n# event '");
	put_field(f, p->label, "");
	fprintf(f, "' (PMC %u", p->pmcid);
	if (p->pmc) {
		fprintf(f, ", ");
		rate_words(p->pmc, f);
	} else {
		fprintf(f, ", no PMCALLOCATE in the log");
	}
	fprintf(f, "): %llu samples", (unsigned long long)p->stats.samples);
	profile_throttles(rep, p, &t);
	text_throttles(&t, f);
	text_columns(rep, f, ow);
}

static void text_row(const struct pmclog_report *rep, const struct pmclog_profile *p,
		     const struct pmclog_row *r, FILE *f, int ow, int sw)
{
	char pidbuf[16];

	fprintf(f, "  %6.2f%%  %7llu", percent(r->samples, p->stats.samples),
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
		case PMCLOG_SORT_SRCLINE:
			fputs("  ", f);
			put_field(f, r->srcline, "");
			break;
		default:
			fprintf(f, "  [%c] ", r->kernel ? 'k' : '.');
			put_padded(f, r->symbol, sw);
			break;
		}
	}
	/* A column of its own, after the names: never part of one. */
	if (r->objstate == PMCLOG_OBJST_NOTFOUND)
		fputs("  (object not found)", f);
	fputc('\n', f);
}

static void text_print(const struct pmclog_report *rep, FILE *f)
{
	int ow = object_width(rep), sw = symbol_width(rep);

	if (rep->nprofs <= 1) {
		text_header_one(rep, f, ow);
	} else {
		fprintf(f, "# pmclog report: %llu samples of %zu events",
			(unsigned long long)rep->stats.samples, rep->nprofs);
		text_sorted_by(rep, f);
		text_replay_notes(rep, f);
		fputc('\n', f);
	}
	for (size_t i = 0; i < rep->nprofs; i++) {
		const struct pmclog_profile *p = &rep->profs[i];

		if (rep->nprofs > 1)
			text_header_profile(rep, p, f, ow);
		for (size_t j = 0; j < p->nrows; j++)
			text_row(rep, p, &rep->rows[p->first_row + j], f, ow, sw);
	}
}

/* ------------------------------------------------------------------ */
/* json: layout version 2 (pmclog(1) describes it)                    */

#define JSON_VERSION	2

/* The length of the valid UTF-8 sequence at s (RFC 3629), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * s as a JSON string, valid UTF-8: a byte that is not part of a valid
 * sequence, and backslash, as the text \xNN (JSON: "\\xNN"); control
 * characters and DEL as \u00NN; with html, also <, > and & as \u00NN,
 * so that the string can sit inside an HTML <script> element ("</script>"
 * cannot end it).  NULL is null.
 */
void pmclog_json_str(FILE *f, const char *s, bool html)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (!n || *p == '\\') {
			fprintf(f, "\\\\x%02x", *p++);
		} else if (*p == '"') {
			fputs("\\\"", f);
			p++;
		} else if (*p < 0x20 || *p == 0x7f ||
			   (html && (*p == '<' || *p == '>' || *p == '&'))) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

static void json_str(FILE *f, const char *s)
{
	pmclog_json_str(f, s, false);
}

static void json_row(const struct pmclog_report *rep, const struct pmclog_profile *p,
		     const struct pmclog_row *r, FILE *f)
{
	fprintf(f, "        {\"percent\": %.4f, \"samples\": %llu",
		percent(r->samples, p->stats.samples), (unsigned long long)r->samples);
	for (size_t k = 0; k < rep->opts.nkeys; k++) {
		switch (rep->opts.keys[k]) {
		case PMCLOG_SORT_PID:
			fprintf(f, ", \"pid\": %u, \"command\": ", r->pid);
			json_str(f, r->comm);
			break;
		case PMCLOG_SORT_DSO:
			fprintf(f, ", \"object\": ");
			json_str(f, r->object);
			fprintf(f, ", \"path\": ");
			json_str(f, r->path);
			break;
		case PMCLOG_SORT_SRCLINE:
			fprintf(f, ", \"srcline\": ");
			json_str(f, r->srcline);
			break;
		default:
			fprintf(f, ", \"symbol\": ");
			json_str(f, r->has_addr ? NULL : r->symbol);
			if (r->has_addr)
				fprintf(f, ", \"address\": \"0x%llx\"", (unsigned long long)r->addr);
			else
				fprintf(f, ", \"address\": null");
			break;
		}
	}
	if (sorts_by_code(rep))
		fprintf(f, ", \"found\": %s, \"mode\": \"%s\"",
			r->objstate == PMCLOG_OBJST_LOADED ? "true" :
			r->objstate == PMCLOG_OBJST_NOTFOUND ? "false" : "null",
			r->kernel ? "kernel" : "user");
	fputc('}', f);
}

static void json_throttles(const struct throttle_sum *t, const char *indent, FILE *f)
{
	fprintf(f, "%s\"throttles\": {\"total\": %llu, \"rate\": %llu, \"cpu_time\": %llu, \"stopped_ns\": %llu, \"open\": %llu},\n",
		indent, (unsigned long long)t->total, (unsigned long long)t->rate,
		(unsigned long long)t->cpu_time, (unsigned long long)t->stopped_ns,
		(unsigned long long)t->open);
	fprintf(f, "%s\"cpus_skipped\": {\"total\": %llu, \"busy\": %llu, \"absent\": %llu, \"stopped_ns\": %llu}",
		indent, (unsigned long long)t->skipped, (unsigned long long)t->busy,
		(unsigned long long)t->absent, (unsigned long long)t->skipped_ns);
}

static void json_counts(const struct pmclog_report_stats *rs, const char *indent, FILE *f)
{
	fprintf(f, "%s\"samples\": %llu, \"resolved\": %llu, \"unknown_object\": %llu, \"unknown_function\": %llu, \"kernel_address_hidden\": %llu, \"filtered_out\": %llu,\n",
		indent, (unsigned long long)rs->samples, (unsigned long long)rs->resolved,
		(unsigned long long)rs->no_object, (unsigned long long)rs->no_function,
		(unsigned long long)rs->hidden, (unsigned long long)rs->filtered_out);
	fprintf(f, "%s\"objects\": %zu, \"objects_not_found\": %zu,\n", indent,
		rs->objects, rs->objects_not_found);
}

static void json_profile(const struct pmclog_report *rep, const struct pmclog_profile *p,
			 FILE *f)
{
	const struct pmclog_replay_pmc *pmc = p->pmc;
	const char *type = pmc ? pmclog_event_name(pmc->event) : NULL;
	struct throttle_sum t;

	fprintf(f, "    {\n      \"pmc\": %u, \"event\": ", p->pmcid);
	json_str(f, pmc ? pmc->name : NULL);
	fprintf(f, ", \"label\": ");
	json_str(f, p->label);
	fprintf(f, ", \"type\": ");
	json_str(f, type);
	if (pmc)
		fprintf(f, ", \"period\": %llu, \"freq\": %s,\n",
			(unsigned long long)pmc->period,
			pmc->flags & PMCLOG_PMC_F_FREQ ? "true" : "false");
	else
		fprintf(f, ", \"period\": null, \"freq\": null,\n");
	fprintf(f, "      \"stats\": {\n");
	json_counts(&p->stats, "        ", f);
	profile_throttles(rep, p, &t);
	json_throttles(&t, "        ", f);
	fprintf(f, "\n      },\n      \"rows\": [\n");
	for (size_t i = 0; i < p->nrows; i++) {
		json_row(rep, p, &rep->rows[p->first_row + i], f);
		fprintf(f, "%s\n", i + 1 < p->nrows ? "," : "");
	}
	fprintf(f, "      ]\n    }");
}

static void json_stats(const struct pmclog_report *rep, FILE *f)
{
	const struct pmclog_replay_stats *st = pmclog_replay__stats(rep->replay);
	struct throttle_sum t;
	bool first = true;

	fprintf(f, "  \"stats\": {\n    \"abi\": \"%u.%u.%u\",\n    \"records\": {",
		PMCLOG_ABI_VERSION_MAJOR(st->abi_version),
		PMCLOG_ABI_VERSION_MINOR(st->abi_version),
		PMCLOG_ABI_VERSION_PATCH(st->abi_version));
	for (unsigned int t = 1; t < PMCLOG_REPLAY_TYPES; t++) {
		const char *name = pmclog_type_name(t);

		if (!st->records[t])
			continue;
		fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", name ? name : "newer",
			(unsigned long long)st->records[t]);
		first = false;
	}
	fprintf(f, "},\n");
	json_counts(&rep->stats, "    ", f);
	fprintf(f, "    \"other_events\": %llu,\n", (unsigned long long)rep->stats.other_events);
	log_throttles(rep, &t);
	json_throttles(&t, "    ", f);
	fprintf(f, ",\n    \"processes_unfollowed\": %llu,\n",
		(unsigned long long)st->procs_unfollowed);
	fprintf(f, "    \"dropped_samples\": %llu, \"dropped_records\": %llu, \"complete\": %s\n  }\n",
		(unsigned long long)(st->closelog ? st->close_samples_dropped : st->drop_samples),
		(unsigned long long)(st->closelog ? st->close_records_dropped : st->drop_records),
		st->closelog ? "true" : "false");
}

static void json_print(const struct pmclog_report *rep, FILE *f)
{
	fprintf(f, "{\n  \"version\": %d,\n  \"sort\": [", JSON_VERSION);
	for (size_t i = 0; i < rep->opts.nkeys; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", key_name(rep->opts.keys[i]));
	fprintf(f, "],\n  \"profiles\": [\n");
	for (size_t i = 0; i < rep->nprofs; i++) {
		json_profile(rep, &rep->profs[i], f);
		fprintf(f, "%s\n", i + 1 < rep->nprofs ? "," : "");
	}
	fprintf(f, "  ],\n");
	json_stats(rep, f);
	fprintf(f, "}\n");
}

/* ------------------------------------------------------------------ */
/* folded: "key;key;key count", the input of flamegraph.pl             */

/*
 * One line per row.  With several profiles, each line starts with its
 * event's label as a frame of its own (one flame graph shows the events
 * side by side; grep or --event keeps one).
 */
static void folded_print(const struct pmclog_report *rep, FILE *f)
{
	for (size_t i = 0; i < rep->nprofs; i++) {
		const struct pmclog_profile *p = &rep->profs[i];

		for (size_t j = 0; j < p->nrows; j++) {
			const struct pmclog_row *r = &rep->rows[p->first_row + j];

			if (rep->nprofs > 1) {
				put_field(f, p->label, ";");
				fputc(';', f);
			}
			for (size_t k = 0; k < rep->opts.nkeys; k++) {
				if (k)
					fputc(';', f);
				if (rep->opts.keys[k] == PMCLOG_SORT_PID) {
					put_field(f, comm_of(r), ";");
					fprintf(f, "-%u", r->pid);
				} else {
					put_field(f, rep->opts.keys[k] == PMCLOG_SORT_DSO ? r->object :
						  rep->opts.keys[k] == PMCLOG_SORT_SRCLINE ? r->srcline :
						  r->symbol, ";");
				}
			}
			fprintf(f, " %llu\n", (unsigned long long)r->samples);
		}
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
			fputs(": not found: ", f);
			put_field(f, pmclog_resolver__detail(o), "");
		} else {
			const char *d = pmclog_resolver__detail(o);

			fputs(": symbols from ", f);
			put_field(f, d[0] ? d : file ? file : "the log (KSYMBOL)", "");
		}
		fputc('\n', f);
	}
}

static void stats_counts(const struct pmclog_report_stats *rs, FILE *f)
{
	fprintf(f, "%llu samples: %llu resolved, %llu unknown object, %llu unknown function, %llu kernel with address hidden",
		(unsigned long long)rs->samples, (unsigned long long)rs->resolved,
		(unsigned long long)rs->no_object, (unsigned long long)rs->no_function,
		(unsigned long long)rs->hidden);
	if (rs->filtered_out)
		fprintf(f, "; %llu left out by --pid or --time", (unsigned long long)rs->filtered_out);
}

/* With several profiles, a line each. */
static void stats_events(const struct pmclog_report *rep, FILE *f)
{
	for (size_t i = 0; rep->nprofs > 1 && i < rep->nprofs; i++) {
		const struct pmclog_profile *p = &rep->profs[i];

		fputs("pmclog report: event '", f);
		put_field(f, p->label, "");
		fprintf(f, "' (PMC %u", p->pmcid);
		if (p->pmc) {
			fputs(", ", f);
			rate_words(p->pmc, f);
		}
		fputs("): ", f);
		stats_counts(&p->stats, f);
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
	fprintf(f, "pmclog report: log ABI %u.%u.%u, ",
		PMCLOG_ABI_VERSION_MAJOR(st->abi_version),
		PMCLOG_ABI_VERSION_MINOR(st->abi_version),
		PMCLOG_ABI_VERSION_PATCH(st->abi_version));
	if (rep->nprofs > 1) {
		fprintf(f, "%zu events", rep->nprofs);
	} else {
		fputs("event ", f);
		put_field(f, rep->nprofs && rep->profs[0].pmc ? rep->profs[0].pmc->name :
			  st->event ? st->event : "(none)", "");
	}
	fputc('\n', f);
	stats_records(st, f);
	stats_events(rep, f);
	fputs("pmclog report: ", f);
	if (rep->nprofs > 1)
		fputs("in all, ", f);
	stats_counts(rs, f);
	if (rs->other_events)
		fprintf(f, "; %llu of other events", (unsigned long long)rs->other_events);
	fputc('\n', f);
	stats_objects(rep, f, verbosity);
	fprintf(f, "pmclog report: dropped by the kernel: %llu samples, %llu records\n",
		(unsigned long long)(st->closelog ? st->close_samples_dropped : st->drop_samples),
		(unsigned long long)(st->closelog ? st->close_records_dropped : st->drop_records));
	log_throttles(rep, &t);
	fprintf(f, "pmclog report: throttled by the kernel: ");
	throttle_words(&t, f);
	fputc('\n', f);
	if (st->records_late)
		fprintf(f, "pmclog report: %llu records later than the sort window (%.3f s): replayed where they were read, not at their time\n",
			(unsigned long long)st->records_late,
			st->sort_window_ns / 1e9);
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
