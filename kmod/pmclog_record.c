// SPDX-License-Identifier: GPL-2.0
/*
 * Every record the module writes is built here, one pmclog_rec_<type>()
 * per record type (hwpmc_logging.c's pmclog_process_<type>(), perf's
 * record builders in kernel/events/core.c):
 *
 *   INITIALIZE   pmclog_rec_initialize()   at open (pmclog_owner.c)
 *   CLOSELOG     pmclog_rec_closelog()     at STOP (pmclog_log.c)
 *   PMCALLOCATE  pmclog_rec_pmcallocate()  at ALLOCATE (pmclog_owner.c)
 *   PCSAMPLE     pmclog_rec_pcsample()     drain of a CPU's ring (pmclog_sample.c)
 *   CALLCHAIN    pmclog_rec_callchain()    the same, after its PCSAMPLE
 *   MAP_IN       pmclog_rec_map_in()       kobj, vma, defer
 *   MAP_OUT      pmclog_rec_map_out()      kobj, vma
 *   PROCEXEC     pmclog_rec_procexec()     defer (exec, from pmclog_proc.c)
 *   PROCFORK     pmclog_rec_procfork()     pmclog_proc.c
 *   PROCEXIT     pmclog_rec_procexit()     pmclog_proc.c
 *   DROPNOTIFY   pmclog_rec_dropnotify()   pmclog_log.c, ahead of a record
 *   KSYMBOL      pmclog_rec_ksymbol()      module load (pmclog_kobj.c)
 *   THROTTLE     pmclog_rec_throttle()     drain, or a PMC that did not start
 *   UNTHROTTLE   pmclog_rec_unthrottle()   the same
 *   BUILDID      pmclog_rec_buildid()      after a MAP_IN (defer, vma, kobj)
 *
 * A builder packs a record into the caller's memory and returns; where it
 * goes (one log, every log that wants it, a deferred queue) and when is
 * the caller's business, and pmclog_log.c only moves bytes.  Builders take
 * no lock, allocate nothing and never sleep: any context but NMI (nothing
 * is built in NMI; samples and throttles wait in the per-CPU state as
 * plain values), except pmclog_rec_initialize(), which reads the wall
 * clock.  @cpu and @tstamp are where and when the change was seen.
 *
 * Each builder names its type once, in pmclog_rec_hdr(), which checks at
 * compile time that the record is the structure PMCLOG_RECORD_TYPES gives
 * that type (include/uapi/linux/pmclog.h).
 */
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/processor.h>

#include "pmclog_kern.h"

/*
 * pmclog_rec_header_<TYPE>(r): &r->header, for r of the structure of
 * PMCLOG_TYPE_<TYPE> and nothing else (incompatible-pointer-types is an
 * error in kernel builds).
 */
#define PMCLOG_REC_HEADER(name, value, type)				\
	static inline struct pmclog_header *				\
	pmclog_rec_header_##name(typeof(type) *r)			\
	{								\
		return &r->header;					\
	}
PMCLOG_RECORD_TYPES(PMCLOG_REC_HEADER)
#undef PMCLOG_REC_HEADER

static void pmclog_hdr_init(struct pmclog_header *h, unsigned int type,
			    size_t len, unsigned int cpu, u64 tstamp)
{
	h->magic = PMCLOG_HEADER_MAGIC;
	h->type = type;
	h->length = len;
	h->cpu = cpu;
	h->flags = 0;
	h->pmcid = 0;
	h->tstamp = tstamp;
}

/* The header of record @r of type PMCLOG_TYPE_<@name>, @len bytes long. */
#define pmclog_rec_hdr(r, name, len, cpu, tstamp)			\
	pmclog_hdr_init(pmclog_rec_header_##name(r), PMCLOG_TYPE_##name, \
			len, cpu, tstamp)

/*
 * Put the NUL-terminated @str at the end of the fixed part (@fixed bytes)
 * of record @rec, padded with NULs to PMCLOG_RECORD_ALIGN; @str may lie in
 * @rec's own tail (d_path() output).  The record never grows past
 * PMCLOG_SCRATCH_SIZE, the size of every buffer records with a string are
 * built in: a longer string (a module's symbol name has no bound) is cut
 * there.  Returns the record's length.
 */
static size_t pmclog_rec_put_str(void *rec, size_t fixed, const char *str)
{
	size_t n = strnlen(str, PMCLOG_SCRATCH_SIZE - fixed - 1);
	size_t len = ALIGN(fixed + n + 1, PMCLOG_RECORD_ALIGN);

	BUILD_BUG_ON(!IS_ALIGNED(PMCLOG_SCRATCH_SIZE, PMCLOG_RECORD_ALIGN));
	memmove((char *)rec + fixed, str, n);
	memset((char *)rec + fixed + n, 0, len - fixed - n);
	return len;
}

/* The machine, as INITIALIZE says it.  Process context: reads CLOCK_REALTIME. */
void pmclog_rec_initialize(struct pmclog_initialize *r, unsigned int cpu,
			   u64 tstamp)
{
	const struct cpuinfo_x86 *c = &boot_cpu_data;

	memset(r, 0, sizeof(*r));
	pmclog_rec_hdr(r, INITIALIZE, sizeof(*r), cpu, tstamp);
	r->realtime_ns = ktime_get_real_ns();
	r->abi_version = PMCLOG_ABI_CURRENT;
	r->ncpus = nr_cpu_ids;
	r->clock = PMCLOG_CLOCK_MONOTONIC;
	/* The vendor and PMU the sources drive (pmclog_x86_pmu.c). */
	r->cpu_vendor = pmclog_x86_pmu_vendor();
	r->pmu = pmclog_x86_pmu_kind();
	r->cpu_family = c->x86;
	r->cpu_model = c->x86_model;
	r->cpu_stepping = c->x86_stepping;
	strscpy(r->cpu_id, c->x86_vendor_id, sizeof(r->cpu_id));
}

void pmclog_rec_closelog(struct pmclog_closelog *r, u64 samples,
			 u64 samples_dropped, u64 records_dropped,
			 unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, CLOSELOG, sizeof(*r), cpu, tstamp);
	r->samples = samples;
	r->samples_dropped = samples_dropped;
	r->records_dropped = records_dropped;
}

/* From PMCLOG_EVENTS, the uapi header's one list of them. */
#define PMCLOG_EVENT_NAME(name, value, str) \
	[PMCLOG_EV_##name] = str,
static const char *const pmclog_event_names[] = {
	PMCLOG_EVENTS(PMCLOG_EVENT_NAME)
};

#undef PMCLOG_EVENT_NAME
static_assert(ARRAY_SIZE(pmclog_event_names) == PMCLOG_EV_MAX_KNOWN + 1);

/*
 * @pmc, allocated.  Its name is the caller's (pmclog_alloc.name); for a
 * caller that gave none, a spec that `pmclog record -e` takes back for
 * the same event and modes: the event's name or r<config>, :u or :k.
 */
void pmclog_rec_pmcallocate(struct pmclog_pmcallocate *r,
			    const struct pmclog_pmc *pmc, unsigned int cpu,
			    u64 tstamp)
{
	u32 modes = pmc->flags & (PMCLOG_PMC_F_USER | PMCLOG_PMC_F_KERNEL);
	const char *mod = modes == PMCLOG_PMC_F_USER ? ":u" :
			  modes == PMCLOG_PMC_F_KERNEL ? ":k" : "";

	memset(r, 0, sizeof(*r));
	pmclog_rec_hdr(r, PMCALLOCATE, sizeof(*r), cpu, tstamp);
	r->header.pmcid = pmc->id;
	r->event = pmc->event;
	r->flags = pmc->flags;
	r->config = pmc->config;
	r->period = pmc->period;
	if (pmc->name[0])
		strscpy(r->name, pmc->name, sizeof(r->name));
	else if (pmc->event == PMCLOG_EV_RAW)
		snprintf(r->name, sizeof(r->name), "r%llx%s",
			 (unsigned long long)pmc->config, mod);
	else
		snprintf(r->name, sizeof(r->name), "%s%s",
			 pmclog_event_names[pmc->event], mod);
}

/*
 * Sample @s of @cpu's ring.  Its kernel PC only when @kernel_addrs: the
 * log's opener may read them in /proc/kallsyms.  Once per sample, with
 * the log's raw lock held: keep it cheap.
 */
void pmclog_rec_pcsample(struct pmclog_pcsample *r,
			 const struct pmclog_sample *s, bool kernel_addrs,
			 unsigned int cpu)
{
	pmclog_rec_hdr(r, PCSAMPLE, sizeof(*r), cpu, s->tstamp);
	r->header.flags = s->flags;
	r->header.pmcid = s->pmcid;
	r->pid = s->pid;
	r->tid = s->tid;
	r->pc = (s->flags & PMCLOG_HF_USER) || kernel_addrs ? s->pc : 0;
}

/*
 * The header and fixed part of the CALLCHAIN @r of sample @s, whose
 * frames, counts and flags pmclog_callchain_take() put there; those of
 * @s's PCSAMPLE, so that a reader pairs them.  With the log's raw lock.
 */
void pmclog_rec_callchain(struct pmclog_callchain *r,
			  const struct pmclog_sample *s, unsigned int cpu)
{
	pmclog_rec_hdr(r, CALLCHAIN,
		       struct_size(r, pc, r->nkernel + r->nuser), cpu,
		       s->tstamp);
	r->header.flags = s->flags;
	r->header.pmcid = s->pmcid;
	r->pid = s->pid;
	r->tid = s->tid;
}

/*
 * MAP_IN into @r (PMCLOG_SCRATCH_SIZE bytes); @path may lie in r->path
 * itself (d_path() output).
 */
void pmclog_rec_map_in(struct pmclog_map_in *r, u32 pid, u32 flags,
		       u64 start, u64 end, u64 offset, const char *path,
		       unsigned int cpu, u64 tstamp)
{
	size_t len = pmclog_rec_put_str(r, sizeof(*r), path);

	pmclog_rec_hdr(r, MAP_IN, len, cpu, tstamp);
	r->pid = pid;
	r->flags = flags;
	r->start = start;
	r->end = end;
	r->offset = offset;
}

void pmclog_rec_map_out(struct pmclog_map_out *r, u32 pid, u64 start,
			u64 end, unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, MAP_OUT, sizeof(*r), cpu, tstamp);
	r->pid = pid;
	r->__reserved = 0;
	r->start = start;
	r->end = end;
}

/* PROCEXEC into @r (PMCLOG_SCRATCH_SIZE bytes); as MAP_IN. */
void pmclog_rec_procexec(struct pmclog_procexec *r, u32 pid, const char *path,
			 unsigned int cpu, u64 tstamp)
{
	size_t len = pmclog_rec_put_str(r, sizeof(*r), path);

	pmclog_rec_hdr(r, PROCEXEC, len, cpu, tstamp);
	r->pid = pid;
	r->__reserved = 0;
}

void pmclog_rec_procfork(struct pmclog_procfork *r, u32 ppid, u32 pid,
			 unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, PROCFORK, sizeof(*r), cpu, tstamp);
	r->ppid = ppid;
	r->pid = pid;
}

void pmclog_rec_procexit(struct pmclog_procexit *r, u32 pid, u32 status,
			 unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, PROCEXIT, sizeof(*r), cpu, tstamp);
	r->pid = pid;
	r->status = status;
}

/* What @cpu lost since its last DROPNOTIFY. */
void pmclog_rec_dropnotify(struct pmclog_dropnotify *r, u64 samples,
			   u64 records, unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, DROPNOTIFY, sizeof(*r), cpu, tstamp);
	r->samples = samples;
	r->records = records;
}

/*
 * KSYMBOL into @r (PMCLOG_SCRATCH_SIZE bytes): kernel function @name at
 * [@start, @start + @size).  A name too long for the buffer is cut.
 */
void pmclog_rec_ksymbol(struct pmclog_ksymbol *r, u64 start, u64 size,
			const char *name, unsigned int cpu, u64 tstamp)
{
	size_t len = pmclog_rec_put_str(r, sizeof(*r), name);

	pmclog_rec_hdr(r, KSYMBOL, len, cpu, tstamp);
	r->pid = PMCLOG_PID_KERNEL;
	r->__reserved = 0;
	r->start = start;
	r->size = size;
}

/*
 * THROTTLE and UNTHROTTLE: @count changes of PMC @pmcid on @cpu for
 * @reason, the last at @tstamp; UNTHROTTLE also how long it was stopped.
 */
void pmclog_rec_throttle(struct pmclog_throttle *r, unsigned int pmcid,
			 unsigned int reason, unsigned long count,
			 unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, THROTTLE, sizeof(*r), cpu, tstamp);
	r->header.pmcid = pmcid;
	r->reason = reason;
	r->count = min_t(unsigned long, count, U32_MAX);
	r->stopped_ns = 0;
}

void pmclog_rec_unthrottle(struct pmclog_throttle *r, unsigned int pmcid,
			   unsigned int reason, unsigned long count,
			   u64 stopped_ns, unsigned int cpu, u64 tstamp)
{
	pmclog_rec_hdr(r, UNTHROTTLE, sizeof(*r), cpu, tstamp);
	r->header.pmcid = pmcid;
	r->reason = reason;
	r->count = min_t(unsigned long, count, U32_MAX);
	r->stopped_ns = stopped_ns;
}

/* BUILDID: the object pid @pid maps at @start has build-id @id. */
void pmclog_rec_buildid(struct pmclog_buildid *r, u32 pid, u64 start,
			const struct pmclog_build_id *id, unsigned int cpu,
			u64 tstamp)
{
	pmclog_rec_hdr(r, BUILDID, sizeof(*r), cpu, tstamp);
	r->pid = pid;
	r->size = id->size;
	memset(r->__reserved, 0, sizeof(r->__reserved));
	r->start = start;
	memcpy(r->build_id, id->data, id->size);
	memset(r->build_id + id->size, 0, sizeof(r->build_id) - id->size);
	r->__reserved2 = 0;
}
