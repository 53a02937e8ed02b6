/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build pmclog logs as byte arrays, for the unit tests and fuzz seeds.
 *
 * Each lb_*() appends one record, laid out through the ABI structures,
 * and returns its offset in the log, so that a test can corrupt it
 * (lb_header()) or check the offset a reader reports.
 */
#ifndef LOG_BUILDER_H
#define LOG_BUILDER_H

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/pmclog.h>

#define LB_TS_BASE	1000000000ULL

struct logbuf {
	size_t len;
	_Alignas(8) unsigned char data[16384];
};

/* Append length bytes: the record in rec (size bytes), then NULs. */
static inline size_t lb_put(struct logbuf *b, unsigned int type,
			    size_t length, void *rec, size_t size)
{
	struct pmclog_header *h = rec;
	size_t off = b->len;

	assert(off + length <= sizeof(b->data) && size <= length);
	h->magic = PMCLOG_HEADER_MAGIC;
	h->type = (__u8)type;
	h->length = (__u16)length;
	if (!h->tstamp)
		h->tstamp = LB_TS_BASE + off;
	memset(b->data + off, 0, length);
	memcpy(b->data + off, rec, size);
	b->len += length;
	return off;
}

static inline struct pmclog_header *lb_header(struct logbuf *b, size_t off)
{
	return (struct pmclog_header *)(b->data + off);
}

static inline size_t lb_initialize_abi(struct logbuf *b, __u32 abi, __u32 ncpus)
{
	struct pmclog_initialize r = {
		.abi_version = abi, .ncpus = ncpus,
		.clock = PMCLOG_CLOCK_MONOTONIC,
		.cpu_vendor = PMCLOG_CPU_VENDOR_INTEL,
		.cpu_family = 6, .cpu_model = 85, .cpu_stepping = 4,
		.pmu = PMCLOG_PMU_NONE, .realtime_ns = 1700000000000000000ULL,
		.cpu_id = "GenuineIntel",
	};

	return lb_put(b, PMCLOG_TYPE_INITIALIZE, sizeof(r), &r, sizeof(r));
}

static inline size_t lb_initialize(struct logbuf *b)
{
	return lb_initialize_abi(b, PMCLOG_ABI_CURRENT, 4);
}

static inline size_t lb_pmcallocate(struct logbuf *b, __u8 pmcid, __u32 event,
				    __u32 flags, __u64 period, const char *name)
{
	struct pmclog_pmcallocate r = {
		.header.pmcid = pmcid, .event = event, .flags = flags,
		.period = period,
	};

	snprintf(r.name, sizeof(r.name), "%s", name);
	return lb_put(b, PMCLOG_TYPE_PMCALLOCATE, sizeof(r), &r, sizeof(r));
}

/* A sample of PMC pmcid. */
static inline size_t lb_pcsample_pmc(struct logbuf *b, __u8 pmcid, __u16 cpu,
				     __u32 pid, __u32 tid, __u64 pc, int user)
{
	struct pmclog_pcsample r = {
		.header.cpu = cpu, .header.pmcid = pmcid,
		.header.flags = user ? PMCLOG_HF_USER : 0,
		.pid = pid, .tid = tid, .pc = pc,
	};

	return lb_put(b, PMCLOG_TYPE_PCSAMPLE, sizeof(r), &r, sizeof(r));
}

/* A sample of PMC 1. */
static inline size_t lb_pcsample(struct logbuf *b, __u16 cpu, __u32 pid,
				 __u32 tid, __u64 pc, int user)
{
	return lb_pcsample_pmc(b, 1, cpu, pid, tid, pc, user);
}

static inline size_t lb_map_in(struct logbuf *b, __u32 pid, __u64 start,
			       __u64 end, __u64 offset, __u32 flags,
			       const char *path)
{
	struct pmclog_map_in r = {
		.pid = pid, .flags = flags, .start = start, .end = end,
		.offset = offset,
	};
	size_t len = PMCLOG_RECORD_LEN(sizeof(r) + strlen(path) + 1);
	size_t off = lb_put(b, PMCLOG_TYPE_MAP_IN, len, &r, sizeof(r));

	memcpy(b->data + off + sizeof(r), path, strlen(path));
	return off;
}

static inline size_t lb_map_out(struct logbuf *b, __u32 pid, __u64 start,
				__u64 end)
{
	struct pmclog_map_out r = { .pid = pid, .start = start, .end = end };

	return lb_put(b, PMCLOG_TYPE_MAP_OUT, sizeof(r), &r, sizeof(r));
}

static inline size_t lb_procexec(struct logbuf *b, __u32 pid, const char *path)
{
	struct pmclog_procexec r = { .pid = pid };
	size_t len = PMCLOG_RECORD_LEN(sizeof(r) + strlen(path) + 1);
	size_t off = lb_put(b, PMCLOG_TYPE_PROCEXEC, len, &r, sizeof(r));

	memcpy(b->data + off + sizeof(r), path, strlen(path));
	return off;
}

static inline size_t lb_procfork(struct logbuf *b, __u32 ppid, __u32 pid)
{
	struct pmclog_procfork r = { .ppid = ppid, .pid = pid };

	return lb_put(b, PMCLOG_TYPE_PROCFORK, sizeof(r), &r, sizeof(r));
}

static inline size_t lb_procexit(struct logbuf *b, __u32 pid, __u32 status)
{
	struct pmclog_procexit r = { .pid = pid, .status = status };

	return lb_put(b, PMCLOG_TYPE_PROCEXIT, sizeof(r), &r, sizeof(r));
}

static inline size_t lb_dropnotify(struct logbuf *b, __u16 cpu, __u64 samples,
				   __u64 records)
{
	struct pmclog_dropnotify r = {
		.header.cpu = cpu, .samples = samples, .records = records,
	};

	return lb_put(b, PMCLOG_TYPE_DROPNOTIFY, sizeof(r), &r, sizeof(r));
}

static inline size_t lb_closelog(struct logbuf *b, __u64 samples,
				 __u64 samples_dropped, __u64 records_dropped)
{
	struct pmclog_closelog r = {
		.samples = samples, .samples_dropped = samples_dropped,
		.records_dropped = records_dropped,
	};

	return lb_put(b, PMCLOG_TYPE_CLOSELOG, sizeof(r), &r, sizeof(r));
}

static inline size_t lb_ksymbol(struct logbuf *b, __u64 start, __u64 size,
				int synth, const char *name)
{
	struct pmclog_ksymbol r = {
		.header.flags = synth ? PMCLOG_HF_SYNTH : 0,
		.pid = PMCLOG_PID_KERNEL, .start = start, .size = size,
	};
	size_t len = PMCLOG_RECORD_LEN(sizeof(r) + strlen(name) + 1);
	size_t off = lb_put(b, PMCLOG_TYPE_KSYMBOL, len, &r, sizeof(r));

	memcpy(b->data + off + sizeof(r), name, strlen(name));
	return off;
}

/* THROTTLE or UNTHROTTLE (type) of pmcid on cpu. */
static inline size_t lb_throttle(struct logbuf *b, unsigned int type, __u16 cpu,
				 __u8 pmcid, __u32 reason, __u32 count,
				 __u64 stopped_ns)
{
	struct pmclog_throttle r = {
		.header.cpu = cpu, .header.pmcid = pmcid,
		.reason = reason, .count = count, .stopped_ns = stopped_ns,
	};

	return lb_put(b, type, sizeof(r), &r, sizeof(r));
}

/* BUILDID of the object pid maps at start: size bytes 0x11, 0x22, ... */
static inline size_t lb_buildid(struct logbuf *b, __u32 pid, __u64 start,
				__u8 size, int synth)
{
	struct pmclog_buildid r = {
		.header.flags = synth ? PMCLOG_HF_SYNTH : 0,
		.pid = pid, .size = size, .start = start,
	};

	for (unsigned int i = 0; i < size && i < PMCLOG_BUILD_ID_MAX; i++)
		r.build_id[i] = (__u8)(0x11 * (i + 1));
	return lb_put(b, PMCLOG_TYPE_BUILDID, sizeof(r), &r, sizeof(r));
}

/*
 * CALLCHAIN of cpu, pid, tid at tstamp (a PCSAMPLE's, to pair with it):
 * nk kernel frames, then nu user frames.
 */
static inline size_t lb_callchain(struct logbuf *b, __u64 tstamp, __u16 cpu,
				  __u32 pid, __u32 tid, int user, __u32 flags,
				  const __u64 *kpc, unsigned int nk,
				  const __u64 *upc, unsigned int nu)
{
	_Alignas(8) unsigned char buf[sizeof(struct pmclog_callchain) + 64 * sizeof(__u64)];
	struct pmclog_callchain *c = (struct pmclog_callchain *)buf;
	size_t len = sizeof(*c) + (nk + nu) * sizeof(__u64);

	assert(nk + nu <= 64);
	memset(buf, 0, sizeof(buf));
	c->header.cpu = cpu;
	c->header.pmcid = 1;
	c->header.flags = user ? PMCLOG_HF_USER : 0;
	c->header.tstamp = tstamp;
	c->pid = pid;
	c->tid = tid;
	c->nkernel = (__u16)nk;
	c->nuser = (__u16)nu;
	c->flags = flags;
	if (nk)
		memcpy(c->pc, kpc, nk * sizeof(__u64));
	if (nu)
		memcpy(c->pc + nk, upc, nu * sizeof(__u64));
	return lb_put(b, PMCLOG_TYPE_CALLCHAIN, len, c, len);
}

/* A PCSAMPLE at pc and its CALLCHAIN (frames as for lb_callchain()). */
static inline size_t lb_sample_stack(struct logbuf *b, __u16 cpu, __u32 pid,
				     __u64 pc, int user, const __u64 *kpc,
				     unsigned int nk, const __u64 *upc,
				     unsigned int nu)
{
	size_t off = lb_pcsample(b, cpu, pid, pid, pc, user);

	lb_callchain(b, lb_header(b, off)->tstamp, cpu, pid, pid, user, 0,
		     kpc, nk, upc, nu);
	return off;
}

/*
 * The zigzag ULEB128 of b - a at p (PCSAMPLES' deltas, written here from
 * the ABI's words, not with the library's code): the bytes written.
 */
static inline size_t lb_delta(unsigned char *p, __u64 a, __u64 b)
{
	__u64 d = b - a, u = (d << 1) ^ (d >> 63 ? ~(__u64)0 : 0);
	size_t n = 0;

	do {
		p[n] = (unsigned char)(u & 0x7f);
		u >>= 7;
		if (u)
			p[n] |= 0x80;
		n++;
	} while (u);
	return n;
}

/*
 * A PCSAMPLES of PMC 1: n samples (2 or more) at ts[i], pc[i], of one
 * cpu, mode, pid and tid.
 */
static inline size_t lb_pcsamples(struct logbuf *b, __u16 cpu, __u32 pid,
				  __u32 tid, int user, const __u64 *ts,
				  const __u64 *pc, unsigned int n)
{
	struct pmclog_pcsamples r = {
		.header.cpu = cpu, .header.pmcid = 1,
		.header.flags = user ? PMCLOG_HF_USER : 0,
		.header.tstamp = ts[0],
		.pid = pid, .tid = tid, .pc = pc[0], .count = n,
	};
	unsigned char d[4096];
	size_t off;

	for (unsigned int i = 1; i < n; i++) {
		assert(r.size + 20 <= sizeof(d));
		r.size += (__u32)lb_delta(d + r.size, ts[i - 1], ts[i]);
		r.size += (__u32)lb_delta(d + r.size, pc[i - 1], pc[i]);
	}
	off = lb_put(b, PMCLOG_TYPE_PCSAMPLES, PMCLOG_RECORD_LEN(sizeof(r) + r.size),
		     &r, sizeof(r));
	memcpy(b->data + off + sizeof(r), d, r.size);
	return off;
}

/* A record of a type this reader does not know, with a 16-byte body. */
static inline size_t lb_future(struct logbuf *b, unsigned int type)
{
	struct pmclog_header r = { 0 };

	return lb_put(b, type, sizeof(r) + 16, &r, sizeof(r));
}

/* One of every record type, INITIALIZE first and CLOSELOG last. */
static inline void lb_full_log(struct logbuf *b)
{
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 1000,
		       "cpu-clock");
	lb_map_in(b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL,
		  0xffffffff82000000ULL, 0, 0, "[kernel]");
	lb_procexec(b, 42, "/usr/bin/true");
	lb_map_in(b, 42, 0x400000, 0x401000, 0x1000, PMCLOG_MAP_F_INITIAL,
		  "/usr/bin/true");
	lb_buildid(b, 42, 0x400000, 4, 0);
	lb_pcsample(b, 1, 42, 43, 0x400123, 1);
	lb_pcsample(b, 2, 42, 43, 0xffffffff81000010ULL, 0);
	lb_procfork(b, 42, 44);
	lb_dropnotify(b, 3, 5, 1);
	lb_map_out(b, 42, 0x400000, 0x401000);
	lb_procexit(b, 42, 0);
	lb_ksymbol(b, 0xffffffffc0001000ULL, 0x120, 0, "ext4_readdir");
	lb_throttle(b, PMCLOG_TYPE_THROTTLE, 2, 1, PMCLOG_THROTTLE_RATE, 1, 0);
	lb_throttle(b, PMCLOG_TYPE_UNTHROTTLE, 2, 1, PMCLOG_THROTTLE_RATE, 1,
		    3999000);
	lb_closelog(b, 7, 5, 1);
}

#define LB_FULL_LOG_RECORDS 16

#endif /* LOG_BUILDER_H */
