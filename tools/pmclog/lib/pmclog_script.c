// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog script: samples and events as perf script prints them.  See
 * pmclog_script.h.
 *
 * The replay hands samples and the other records in time order; both are
 * kept as they come (a sample's frames copied, a record by its place in
 * the replay's copy of the log, which outlives the replay's run), and
 * printed once the run is over: only then are the log's KSYMBOLs, and so
 * the kernel's names, complete.  The field formats are those of perf's
 * builtin-script.c (perf_sample__fprintf_start(), sample__fprintf_sym(),
 * sample__fprintf_callchain()), so that what reads perf script's text
 * reads this.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_internal.h"
#include "pmclog_script.h"

struct sc_ent {
	__u64 tstamp;
	__u32 pid, tid, cpu, pmcid;
	const char *comm;	/* interned executable's name then; NULL: none */
	bool record;		/* an event: recs[idx]; else a sample */
	bool stack;		/* a sample with a CALLCHAIN */
	size_t idx;		/* record index, or first frame in frames */
	__u32 n;		/* frames */
};

struct fork_ent {
	__u32 pid, ppid;
};

struct pmclog_script {
	struct pmclog_report *rep;
	struct pmclog_script_opts opts;
	struct sc_ent *ents;
	size_t nents, ents_cap;
	struct pmclog_frame *frames;
	size_t nframes, frames_cap;
	struct pmclog_record *recs;
	size_t nrecs, recs_cap;
	struct fork_ent *forks;
	size_t nforks, forks_cap;
	const char *unknown;
};

static const struct {
	const char *name;
	__u32 field;
} field_names[] = {
	{ "comm", PMCLOG_SCRIPT_F_COMM },	{ "pid", PMCLOG_SCRIPT_F_PID },
	{ "tid", PMCLOG_SCRIPT_F_TID },		{ "cpu", PMCLOG_SCRIPT_F_CPU },
	{ "time", PMCLOG_SCRIPT_F_TIME },	{ "period", PMCLOG_SCRIPT_F_PERIOD },
	{ "event", PMCLOG_SCRIPT_F_EVENT },	{ "ip", PMCLOG_SCRIPT_F_IP },
	{ "sym", PMCLOG_SCRIPT_F_SYM },		{ "symoff", PMCLOG_SCRIPT_F_SYMOFF },
	{ "dso", PMCLOG_SCRIPT_F_DSO },
};

__u32 pmclog_script__field(const char *name)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (!strcmp(name, field_names[i].name))
			return field_names[i].field;
	return 0;
}

static __u32 ppid_of(const struct pmclog_script *sc, __u32 pid)
{
	for (size_t i = sc->nforks; i-- > 0;)
		if (sc->forks[i].pid == pid)
			return sc->forks[i].ppid;
	return 0;
}

/*
 * The executable's name of pid now, as perf's comm: its basename; a child
 * that has not exec'd has its parent's (a few generations up).
 */
static const char *comm_now(struct pmclog_script *sc, __u32 pid)
{
	const char *path = NULL, *base;
	__u32 p = pid;

	if (pid == PMCLOG_PID_KERNEL)
		return NULL;
	for (int up = 0; up < 8 && p && !(path = pmclog_replay__comm(sc->rep->replay, p)); up++)
		p = ppid_of(sc, p);
	if (!path)
		return pid ? NULL : "swapper";	/* perf's name of the idle task */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return *base ? pmclog_strings__intern(sc->rep->strings, base) : NULL;
}

static struct sc_ent *ent_new(struct pmclog_script *sc)
{
	if (PMCLOG_GROW(sc->ents, sc->ents_cap, sc->nents + 1))
		return NULL;
	return memset(&sc->ents[sc->nents++], 0, sizeof(*sc->ents));
}

int pmclog_script__sample(void *ctx, const struct pmclog_sample_loc *s)
{
	struct pmclog_script *sc = ctx;
	size_t n = s->nframes ? s->nframes : 1;
	struct sc_ent *e;

	if (!pmclog_report__wanted(sc->rep, s))
		return 0;
	if (PMCLOG_GROW(sc->frames, sc->frames_cap, sc->nframes + n) || !(e = ent_new(sc)))
		return -(errno = ENOMEM);
	*e = (struct sc_ent){
		.tstamp = s->tstamp, .pid = s->pid, .tid = s->tid, .cpu = s->cpu,
		.pmcid = s->pmcid, .comm = comm_now(sc, s->pid), .stack = s->nframes,
		.idx = sc->nframes, .n = (__u32)n,
	};
	if (s->nframes) {
		memcpy(sc->frames + sc->nframes, s->frames, n * sizeof(*s->frames));
	} else {
		sc->frames[sc->nframes] = (struct pmclog_frame){
			.pc = s->pc, .obj = s->obj, .objaddr = s->objaddr, .user = s->user,
			.hidden = s->hidden, .map_start = s->map_start, .map_end = s->map_end,
			.map_base = s->map_base,
		};
	}
	sc->nframes += n;
	return 0;
}

int pmclog_script__record(void *ctx, const struct pmclog_record *rec)
{
	struct pmclog_script *sc = ctx;
	struct pmclog_sample_loc at = { .tstamp = rec->tstamp };
	struct sc_ent *e;
	void *copy;

	switch (rec->type) {
	case PMCLOG_TYPE_MAP_IN:
		at.pid = rec->rec.map_in->pid;
		if (!sc->opts.mmap_events)
			return 0;
		break;
	case PMCLOG_TYPE_MAP_OUT:
		at.pid = rec->rec.map_out->pid;
		if (!sc->opts.mmap_events)
			return 0;
		break;
	case PMCLOG_TYPE_PROCFORK:
		/* Its parent, for the child's EXIT. */
		if (PMCLOG_GROW(sc->forks, sc->forks_cap, sc->nforks + 1))
			return -(errno = ENOMEM);
		sc->forks[sc->nforks++] = (struct fork_ent){
			.pid = rec->rec.procfork->pid, .ppid = rec->rec.procfork->ppid,
		};
		at.pid = rec->rec.procfork->pid;
		if (!sc->opts.task_events)
			return 0;
		break;
	case PMCLOG_TYPE_PROCEXEC:
		at.pid = rec->rec.procexec->pid;
		if (!sc->opts.task_events)
			return 0;
		break;
	case PMCLOG_TYPE_PROCEXIT:
		at.pid = rec->rec.procexit->pid;
		if (!sc->opts.task_events)
			return 0;
		break;
	default:
		return 0;
	}
	/* The kernel's maps are every process's: --pid keeps them. */
	if (at.pid != PMCLOG_PID_KERNEL ? !pmclog_report__wanted(sc->rep, &at) :
	    !pmclog_report__time_wanted(sc->rep, rec->tstamp))
		return 0;
	if (PMCLOG_GROW(sc->recs, sc->recs_cap, sc->nrecs + 1) || !(e = ent_new(sc)))
		return -(errno = ENOMEM);
	/*
	 * The record's bytes are the replay's only while it is delivered (a
	 * slot of its sort window): printed at the end, it keeps a copy.
	 */
	copy = malloc(rec->length);
	if (!copy) {
		sc->nents--;
		return -(errno = ENOMEM);
	}
	memcpy(copy, rec->rec.header, rec->length);
	pmclog_record__describe(&sc->recs[sc->nrecs], copy, rec->offset);
	*e = (struct sc_ent){
		.tstamp = rec->tstamp, .pid = at.pid, .tid = at.pid, .cpu = rec->cpu,
		.comm = comm_now(sc, at.pid), .record = true, .idx = sc->nrecs++,
	};
	return 0;
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */

static const char *event_name(const struct pmclog_script *sc, __u32 pmcid, char *buf,
			      size_t len)
{
	const struct pmclog_replay *rp = sc->rep->replay;

	for (size_t i = 0; i < pmclog_replay__npmcs(rp); i++) {
		const struct pmclog_replay_pmc *p = pmclog_replay__pmc(rp, i);

		if (p->pmcid == pmcid && p->name && *p->name)
			return p->name;
	}
	snprintf(buf, len, "pmc%u", pmcid);
	return buf;
}

/* A sample's period: what perf's sample->period would be. */
static __u64 period_of(const struct pmclog_script *sc, __u32 pmcid)
{
	const struct pmclog_replay *rp = sc->rep->replay;

	for (size_t i = 0; i < pmclog_replay__npmcs(rp); i++) {
		const struct pmclog_replay_pmc *p = pmclog_replay__pmc(rp, i);

		if (p->pmcid != pmcid)
			continue;
		if (!(p->flags & PMCLOG_PMC_F_FREQ))
			return p->period ? p->period : 1;
		if (p->event == PMCLOG_EV_CPU_CLOCK && p->period)
			return (1000000000ULL + p->period / 2) / p->period;
		return 1;
	}
	return 1;
}

/* perf_sample__fprintf_start(): comm, pid/tid, [cpu], time. */
static void print_start(const struct pmclog_script *sc, const struct sc_ent *e, bool stack,
			FILE *f)
{
	__u32 fl = sc->opts.fields;
	const char *comm = e->comm ? e->comm :
			   e->pid == PMCLOG_PID_KERNEL ? ":-1" : sc->unknown;
	int pid = (int)e->pid, tid = (int)e->tid;

	if (fl & PMCLOG_SCRIPT_F_COMM) {
		/* perf: "%s " before a stack, else "%16s ". */
		if (!stack && strlen(comm) < 16)
			fprintf(f, "%*s", (int)(16 - strlen(comm)), "");
		pmclog_put_escaped(f, comm, "");
		fputc(' ', f);
	}
	if ((fl & PMCLOG_SCRIPT_F_PID) && (fl & PMCLOG_SCRIPT_F_TID))
		fprintf(f, "%5d/%-5d ", pid, tid);
	else if (fl & PMCLOG_SCRIPT_F_PID)
		fprintf(f, "%5d ", pid);
	else if (fl & PMCLOG_SCRIPT_F_TID)
		fprintf(f, "%5d ", tid);
	if (fl & PMCLOG_SCRIPT_F_CPU)
		fprintf(f, "[%03u] ", e->cpu);
	if (fl & PMCLOG_SCRIPT_F_TIME) {
		char t[32];

		snprintf(t, sizeof(t), "%llu.%06llu",
			 (unsigned long long)(e->tstamp / 1000000000ULL),
			 (unsigned long long)(e->tstamp % 1000000000ULL / 1000));
		fprintf(f, "%12s: ", t);
	}
}

/* The object as perf's dso name: the file, [kernel.kallsyms], [MODULE]. */
static void print_dso(const struct pmclog_object *obj, FILE *f)
{
	if (!obj) {
		fputs("[unknown]", f);
		return;
	}
	switch (obj->kind) {
	case PMCLOG_OBJ_KERNEL:
		fputs("[kernel.kallsyms]", f);
		break;
	case PMCLOG_OBJ_KMODULE:
	case PMCLOG_OBJ_KMODULE_INIT:
		fputc('[', f);
		pmclog_put_escaped(f, obj->path, "");
		fputc(']', f);
		break;
	default:
		pmclog_put_escaped(f, obj->path, "");
	}
}

/*
 * One frame: "ADDR SYM+0xOFF (DSO)" as the fields say.  ADDR is perf's:
 * the file's address for user code (the one the lookup found, plus the
 * byte a return address was looked up before), the pc for the kernel.
 */
static int print_frame(struct pmclog_script *sc, const struct pmclog_frame *fr, FILE *f)
{
	__u32 fl = sc->opts.fields;
	struct pmclog_resolved rv = { 0 };
	struct pmclog_frame_name nm = { 0 };
	__u64 addr = fr->pc, back = 0;
	int ret;

	if (fr->obj && !fr->hidden) {
		back = fr->pc - fr->map_start + fr->map_base - fr->objaddr;
		ret = pmclog_resolver__resolve(sc->rep->res, fr->obj, fr->objaddr, &rv);
		if (!ret)
			ret = pmclog_report__frame_name(sc->rep, fr->obj, fr->objaddr, fr->user,
							false, &nm);
		if (ret)
			return ret;
		if (fr->obj->kind == PMCLOG_OBJ_FILE || fr->obj->kind == PMCLOG_OBJ_ANON)
			addr = rv.addr + back;
	}
	if (fl & PMCLOG_SCRIPT_F_IP)
		fprintf(f, "%16llx", (unsigned long long)addr);
	if (fl & PMCLOG_SCRIPT_F_SYM) {
		fputc(' ', f);
		if (rv.symbol) {
			pmclog_put_escaped(f, nm.symbol ? nm.symbol : rv.symbol, "");
			if (fl & PMCLOG_SCRIPT_F_SYMOFF)
				fprintf(f, "+0x%llx", (unsigned long long)(rv.symoff + back));
		} else {
			fputs("[unknown]", f);
		}
	}
	if (fl & PMCLOG_SCRIPT_F_DSO) {
		fputs(" (", f);
		print_dso(fr->hidden ? NULL : fr->obj, f);
		fputc(')', f);
	}
	return 0;
}

static void print_record(const struct pmclog_script *sc, const struct pmclog_record *rec,
			 FILE *f)
{
	int pid;

	switch (rec->type) {
	case PMCLOG_TYPE_MAP_IN: {
		const struct pmclog_map_in *m = rec->rec.map_in;

		pid = (int)m->pid;
		fprintf(f, "PERF_RECORD_MMAP2 %d/%d: [%#llx(%#llx) @ %#llx 00:00 0 0]: r-xp ",
			pid, pid == -1 ? 0 : pid, (unsigned long long)m->start,
			(unsigned long long)(m->end - m->start), (unsigned long long)m->offset);
		if (m->flags & PMCLOG_MAP_F_KMODULE)
			fputc('[', f);
		pmclog_put_escaped(f, rec->path, "");
		if (m->flags & PMCLOG_MAP_F_KMODULE)
			fputc(']', f);
		break;
	}
	case PMCLOG_TYPE_MAP_OUT: {
		const struct pmclog_map_out *m = rec->rec.map_out;

		pid = (int)m->pid;
		fprintf(f, "PMCLOG_RECORD_MAP_OUT %d/%d: [%#llx(%#llx)]", pid, pid == -1 ? 0 : pid,
			(unsigned long long)m->start, (unsigned long long)(m->end - m->start));
		break;
	}
	case PMCLOG_TYPE_PROCEXEC: {
		const char *base = strrchr(rec->path, '/');

		pid = (int)rec->rec.procexec->pid;
		fputs("PERF_RECORD_COMM exec: ", f);
		pmclog_put_escaped(f, base ? base + 1 : rec->path, "");
		fprintf(f, ":%d/%d", pid, pid);
		break;
	}
	case PMCLOG_TYPE_PROCFORK: {
		const struct pmclog_procfork *p = rec->rec.procfork;

		fprintf(f, "PERF_RECORD_FORK(%d:%d):(%d:%d)", (int)p->pid, (int)p->pid,
			(int)p->ppid, (int)p->ppid);
		break;
	}
	case PMCLOG_TYPE_PROCEXIT: {
		__u32 ppid;

		pid = (int)rec->rec.procexit->pid;
		ppid = ppid_of(sc, (__u32)pid);
		fprintf(f, "PERF_RECORD_EXIT(%d:%d):(%d:%d)", pid, pid, (int)ppid, (int)ppid);
		break;
	}
	}
	fputc('\n', f);
}

int pmclog_script__print(struct pmclog_script *sc, FILE *f)
{
	__u32 fl = sc->opts.fields;
	char buf[32];
	int width = 0, ret = 0;

	/* perf pads event names to the longest of the log's. */
	for (size_t i = 0; i < sc->nents; i++)
		if (!sc->ents[i].record) {
			int w = (int)strlen(event_name(sc, sc->ents[i].pmcid, buf, sizeof(buf)));

			width = w > width ? w : width;
		}
	for (size_t i = 0; i < sc->nents && !ret; i++) {
		const struct sc_ent *e = &sc->ents[i];
		bool stack = e->stack && (fl & (PMCLOG_SCRIPT_F_IP | PMCLOG_SCRIPT_F_SYM |
						PMCLOG_SCRIPT_F_DSO));

		if (e->record) {
			print_start(sc, e, stack, f);
			print_record(sc, &sc->recs[e->idx], f);
			continue;
		}
		print_start(sc, e, stack, f);
		if (fl & PMCLOG_SCRIPT_F_PERIOD)
			fprintf(f, "%10llu ", (unsigned long long)period_of(sc, e->pmcid));
		if (fl & PMCLOG_SCRIPT_F_EVENT) {
			const char *ev = event_name(sc, e->pmcid, buf, sizeof(buf));

			/* perf's "%*s: ", the name escaped as every name is. */
			fprintf(f, "%*s", width - (int)strlen(ev), "");
			pmclog_put_escaped(f, ev, "");
			fputs(": ", f);
		}
		if (!(fl & (PMCLOG_SCRIPT_F_IP | PMCLOG_SCRIPT_F_SYM | PMCLOG_SCRIPT_F_DSO))) {
			fputc('\n', f);
			continue;
		}
		if (!stack) {
			fputc(' ', f);
			ret = print_frame(sc, &sc->frames[e->idx], f);
			fputc('\n', f);
			continue;
		}
		fputc('\n', f);
		for (__u32 j = 0; j < e->n && !ret; j++) {
			fputc('\t', f);
			ret = print_frame(sc, &sc->frames[e->idx + j], f);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
	return ret ? pmclog_err(-ret) : 0;
}

/* ------------------------------------------------------------------ */

struct pmclog_script *pmclog_script__new(struct pmclog_report *rep,
					 const struct pmclog_script_opts *opts)
{
	struct pmclog_script *sc;

	if (!rep || (opts && !OPTS_VALID(opts, task_events))) {
		errno = EINVAL;
		return NULL;
	}
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	sc->rep = rep;
	sc->opts.fields = OPTS_GET(opts, fields, 0);
	if (!sc->opts.fields)
		sc->opts.fields = PMCLOG_SCRIPT_F_ALL;
	sc->opts.mmap_events = OPTS_GET(opts, mmap_events, false);
	sc->opts.task_events = OPTS_GET(opts, task_events, false);
	sc->unknown = pmclog_strings__intern(rep->strings, ":-1");
	if (!sc->unknown) {
		free(sc);
		return NULL;
	}
	return sc;
}

void pmclog_script__free(struct pmclog_script *sc)
{
	if (!sc)
		return;
	free(sc->ents);
	free(sc->frames);
	for (size_t i = 0; i < sc->nrecs; i++)
		free((void *)sc->recs[i].rec.header);
	free(sc->recs);
	free(sc->forks);
	free(sc);
}
