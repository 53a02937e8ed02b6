// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "pmclog_events.h"
#include "pmclog_format.h"
#include "pmclog_internal.h"
#include "pmclog_tool.h"

/* A line being printed: the tool the callbacks get, and its stream. */
struct format_out {
	struct pmclog_tool tool;
	FILE *f;
};

static FILE *out(struct pmclog_tool *tool)
{
	return container_of(tool, struct format_out, tool)->f;
}

static const char *clock_name(unsigned int clock)
{
	return clock == PMCLOG_CLOCK_MONOTONIC ? "monotonic" : NULL;
}

static const char *vendor_name(unsigned int vendor)
{
	switch (vendor) {
	case PMCLOG_CPU_VENDOR_INTEL:
		return "intel";
	case PMCLOG_CPU_VENDOR_AMD:
		return "amd";
	case PMCLOG_CPU_VENDOR_UNKNOWN:
		return "unknown";
	default:
		return NULL;
	}
}

#define PMU_NAME(name, value, str)	[PMCLOG_PMU_##name] = str,
static const char *const pmu_names[] = {
	PMCLOG_PMU_KINDS(PMU_NAME)
};
#undef PMU_NAME

_Static_assert(sizeof(pmu_names) / sizeof(pmu_names[0]) ==
	       PMCLOG_PMU_MAX_KNOWN + 1, "a name for every PMU kind");

const char *pmclog_pmu_name(unsigned int pmu)
{
	return pmu <= PMCLOG_PMU_MAX_KNOWN ? pmu_names[pmu] : NULL;
}

const char *pmclog_throttle_reason_name(unsigned int reason)
{
	switch (reason) {
	case PMCLOG_THROTTLE_RATE:
		return "rate";
	case PMCLOG_THROTTLE_CPU_TIME:
		return "cpu-time";
	case PMCLOG_THROTTLE_BUSY:
		return "busy";
	case PMCLOG_THROTTLE_ABSENT:
		return "absent";
	default:
		return NULL;
	}
}

/* " key=name", or " key=N" for a value a newer module added. */
static void put_enum(FILE *f, const char *key, const char *name, unsigned int v)
{
	if (name)
		fprintf(f, " %s=%s", key, name);
	else
		fprintf(f, " %s=%u", key, v);
}

/* " key=pid", with the kernel's pid as -1. */
static void put_pid(FILE *f, const char *key, __u32 pid)
{
	if (pid == PMCLOG_PID_KERNEL)
		fprintf(f, " %s=-1", key);
	else
		fprintf(f, " %s=%" PRIu32, key, pid);
}

/* " key=string", escaped so that it stays on one line. */
static void put_string(FILE *f, const char *key, const char *s)
{
	fprintf(f, " %s=", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static int put_initialize(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_initialize *in = rec->rec.initialize;

	fprintf(f, " abi=%u.%u.%u ncpus=%" PRIu32,
		PMCLOG_ABI_VERSION_MAJOR(in->abi_version),
		PMCLOG_ABI_VERSION_MINOR(in->abi_version),
		PMCLOG_ABI_VERSION_PATCH(in->abi_version), in->ncpus);
	put_enum(f, "clock", clock_name(in->clock), in->clock);
	put_enum(f, "vendor", vendor_name(in->cpu_vendor), in->cpu_vendor);
	fprintf(f, " family=%u model=%u stepping=%u",
		in->cpu_family, in->cpu_model, in->cpu_stepping);
	put_enum(f, "pmu", pmclog_pmu_name(in->pmu), in->pmu);
	put_string(f, "cpuid", rec->name);
	if (rec->flags & PMCLOG_HF_BPF)
		fprintf(f, " collector=bpf");
	return 0;
}

static int put_pmcallocate(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_pmcallocate *pa = rec->rec.pmcallocate;

	fprintf(f, " pmc=%" PRIu32, rec->pmcid);
	put_enum(f, "event", pmclog_event_name(pa->event), pa->event);
	fprintf(f, " flags=0x%" PRIx32 " config=0x%" PRIx64 " period=%" PRIu64
		" freq=%d", pa->flags, (uint64_t)pa->config, (uint64_t)pa->period,
		!!(pa->flags & PMCLOG_PMC_F_FREQ));
	put_string(f, "name", rec->name);
	return 0;
}

static int put_pcsample(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_pcsample *ps = rec->rec.pcsample;

	fprintf(f, " pmc=%" PRIu32, rec->pmcid);
	put_pid(f, "pid", ps->pid);
	put_pid(f, "tid", ps->tid);
	fprintf(f, " pc=0x%" PRIx64 " mode=%s", (uint64_t)ps->pc,
		rec->flags & PMCLOG_HF_USER ? "user" : "kernel");
	return 0;
}

static int put_map_in(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_map_in *mi = rec->rec.map_in;

	put_pid(f, "pid", mi->pid);
	fprintf(f, " start=0x%" PRIx64 " end=0x%" PRIx64 " offset=0x%" PRIx64
		" flags=0x%" PRIx32, (uint64_t)mi->start, (uint64_t)mi->end,
		(uint64_t)mi->offset, mi->flags);
	put_string(f, "path", rec->path);
	return 0;
}

static int put_map_out(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_map_out *mo = rec->rec.map_out;

	put_pid(f, "pid", mo->pid);
	fprintf(f, " start=0x%" PRIx64 " end=0x%" PRIx64,
		(uint64_t)mo->start, (uint64_t)mo->end);
	return 0;
}

static int put_procexec(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);

	put_pid(f, "pid", rec->rec.procexec->pid);
	put_string(f, "path", rec->path);
	return 0;
}

static int put_procfork(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);

	put_pid(f, "ppid", rec->rec.procfork->ppid);
	put_pid(f, "pid", rec->rec.procfork->pid);
	if (rec->flags & PMCLOG_HF_UNFOLLOWED)
		fputs(" unfollowed", f);
	return 0;
}

static int put_procexit(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);

	put_pid(f, "pid", rec->rec.procexit->pid);
	fprintf(f, " status=%" PRIu32, rec->rec.procexit->status);
	return 0;
}

static int put_dropnotify(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_dropnotify *dn = rec->rec.dropnotify;

	fprintf(f, " samples=%" PRIu64 " records=%" PRIu64,
		(uint64_t)dn->samples, (uint64_t)dn->records);
	return 0;
}

static int put_closelog(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_closelog *cl = rec->rec.closelog;

	fprintf(f, " samples=%" PRIu64 " samples_dropped=%" PRIu64
		" records_dropped=%" PRIu64, (uint64_t)cl->samples,
		(uint64_t)cl->samples_dropped, (uint64_t)cl->records_dropped);
	return 0;
}

static int put_ksymbol(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_ksymbol *ks = rec->rec.ksymbol;

	put_pid(f, "pid", ks->pid);
	fprintf(f, " start=0x%" PRIx64 " size=%" PRIu64 " synth=%d",
		(uint64_t)ks->start, (uint64_t)ks->size,
		!!(rec->flags & PMCLOG_HF_SYNTH));
	put_string(f, "name", rec->name);
	return 0;
}

/* THROTTLE and UNTHROTTLE; only the second has a stopped time. */
static int put_throttle(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_throttle *th = rec->rec.throttle;

	fprintf(f, " pmc=%" PRIu32, rec->pmcid);
	put_enum(f, "reason", pmclog_throttle_reason_name(th->reason), th->reason);
	fprintf(f, " count=%" PRIu32, th->count);
	if (rec->type == PMCLOG_TYPE_UNTHROTTLE)
		fprintf(f, " stopped_ns=%" PRIu64, (uint64_t)th->stopped_ns);
	return 0;
}

static int put_buildid(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);
	const struct pmclog_buildid *b = rec->rec.buildid;

	put_pid(f, "pid", b->pid);
	fprintf(f, " start=0x%" PRIx64 " synth=%d build_id=", (uint64_t)b->start,
		!!(rec->flags & PMCLOG_HF_SYNTH));
	for (unsigned int i = 0; i < b->size; i++)
		fprintf(f, "%02x", b->build_id[i]);
	return 0;
}

/* A part's frames, comma-separated, innermost first; "-" for none. */
static void put_frames(FILE *f, const char *key, const __u64 *pc, unsigned int n)
{
	fprintf(f, " %s=", key);
	if (!n)
		fputc('-', f);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s0x%" PRIx64, i ? "," : "", (uint64_t)pc[i]);
}

static int put_callchain(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	static const struct { __u32 bit; const char *name; } cc_flags[] = {
		{ PMCLOG_CC_F_KERNEL_TRUNC, "kernel-truncated" },
		{ PMCLOG_CC_F_USER_TRUNC, "user-truncated" },
		{ PMCLOG_CC_F_USER_FAULT, "user-fault" },
		{ PMCLOG_CC_F_USER_BADFRAME, "user-badframe" },
		{ PMCLOG_CC_F_KERNEL_HIDDEN, "kernel-hidden" },
	};
	FILE *f = out(tool);
	const struct pmclog_callchain *c = rec->rec.callchain;
	bool any = false;

	fprintf(f, " pmc=%" PRIu32, rec->pmcid);
	put_pid(f, "pid", c->pid);
	put_pid(f, "tid", c->tid);
	fprintf(f, " mode=%s flags=0x%" PRIx32,
		rec->flags & PMCLOG_HF_USER ? "user" : "kernel", c->flags);
	for (size_t i = 0; i < sizeof(cc_flags) / sizeof(cc_flags[0]); i++) {
		if (c->flags & cc_flags[i].bit) {
			fprintf(f, "%c%s", any ? ',' : '(', cc_flags[i].name);
			any = true;
		}
	}
	if (any)
		fputc(')', f);
	put_frames(f, "kernel", c->pc, c->nkernel);
	put_frames(f, "user", c->pc + c->nkernel, c->nuser);
	return 0;
}

static int put_unknown(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	FILE *f = out(tool);

	fprintf(f, " type=%" PRIu32 " length=%" PRIu32, rec->type, rec->length);
	return 0;
}

/* The fields of each type, after the name, cpu and ts every line starts with. */
static const struct pmclog_tool format_tool = {
	.initialize	= put_initialize,
	.closelog	= put_closelog,
	.pmcallocate	= put_pmcallocate,
	.pcsample	= put_pcsample,
	.map_in		= put_map_in,
	.map_out	= put_map_out,
	.procexec	= put_procexec,
	.procfork	= put_procfork,
	.procexit	= put_procexit,
	.dropnotify	= put_dropnotify,
	.ksymbol	= put_ksymbol,
	.throttle	= put_throttle,
	.unthrottle	= put_throttle,
	.unknown	= put_unknown,
	.buildid	= put_buildid,
	.callchain	= put_callchain,
};

int pmclog_format_record(FILE *f, const struct pmclog_record *rec)
{
	struct format_out o = { .tool = format_tool, .f = f };
	const char *name = pmclog_type_name(rec->type);

	fprintf(f, "%s cpu=%" PRIu32 " ts=%" PRIu64, name ? name : "UNKNOWN",
		rec->cpu, (uint64_t)rec->tstamp);
	pmclog_tool__deliver(&o.tool, rec);
	return fputc('\n', f) == EOF ? -1 : 0;
}
