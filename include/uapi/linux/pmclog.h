/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmclog: sampling profiler with tracking of dynamically loaded objects.
 *
 * This header is the whole contract between the kernel module (kmod/) and
 * userland (tools/pmclog/): the records read from /dev/pmclog and the
 * ioctls that configure a log.  It is the only file both sides include.
 *
 * Versioning.  PMCLOG_ABI_MAJOR changes when an existing record or ioctl
 * changes meaning or layout; readers refuse a log whose major they do not
 * know.  PMCLOG_ABI_MINOR changes when something is appended: a record
 * type, a field at the end of a record or of an ioctl argument, a flag.
 * Old readers skip record types they do not know and ignore bytes past the
 * fields they know.  PMCLOG_ABI_PATCH changes for fixes that change no byte.
 *
 * Records.  A log is a sequence of records, each starting with a
 * struct pmclog_header.  Record lengths are multiples of 8 and every
 * record starts 8-byte aligned in the stream.  Integers are in the byte
 * order of the machine that wrote the log.  Types are only ever appended.
 * Strings (paths, names) are NUL-terminated and the record is padded with
 * NULs to its length.  The first record of a log is INITIALIZE, the last
 * one is CLOSELOG.  Each record's comment below names the function of the
 * module that builds it (kmod/pmclog_record.c, pmclog_rec_<type>()), or
 * the part of the recorder that does (PCSAMPLES).
 *
 * Order.  The stream is not in tstamp order, not even per CPU: samples
 * wait in a small per-CPU buffer (the module parameter nsamples) until
 * that CPU's next tick, and THROTTLE and UNTHROTTLE with them, while
 * MAP_IN, MAP_OUT, PROC* and KSYMBOL are written when the change happens,
 * and an interrupt may drain samples between the moment such a record is
 * stamped and the moment it is written.
 * A reader that attributes samples to objects first sorts the records by
 * (tstamp, position in the stream); it then sees every MAP_IN before the
 * samples inside it and every MAP_OUT after them.  The MAP_INs of what was
 * already mapped at START (PMCLOG_MAP_F_INITIAL) carry START's time.
 * Records that the recorder adds (PMCLOG_HF_SYNTH) describe the kernel as
 * it was at the start: they carry INITIALIZE's tstamp wherever they are in
 * the file (pmclog record writes them just before CLOSELOG).
 *
 * Reading.  read(2) returns whole records only, as many as fit in the
 * buffer; a buffer too small for the next record fails with EINVAL.
 * poll(2) reports POLLIN when a record is waiting.  After
 * PMCLOG_IOC_STOP the log ends with CLOSELOG and read(2) then returns 0.
 * When the reader falls behind, the kernel drops records (never blocks)
 * and says how many in the next DROPNOTIFY.  The last DROPNOTIFYs and
 * CLOSELOG are never dropped: when STOP finds the log too full for them,
 * they go in as read(2) makes room.
 */
#ifndef _UAPI_LINUX_PMCLOG_H
#define _UAPI_LINUX_PMCLOG_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define PMCLOG_ABI_MAJOR	1
/*
 * Minor 1: PMCLOG_IOC_GET_PMU; 2: THROTTLE, UNTHROTTLE, PMCLOG_HF_UNFOLLOWED;
 * 3: pmclog_alloc.name, written as PMCALLOCATE's name; 4: BUILDID;
 * 5: CALLCHAIN, PMCLOG_PMC_F_CALLCHAIN, pmclog_alloc.callchain_depth;
 * 6: PMCLOG_HF_BPF; 7: PCSAMPLES.
 */
#define PMCLOG_ABI_MINOR	7
#define PMCLOG_ABI_PATCH	0

/* Packed ABI version, as in INITIALIZE's abi_version: 0xMMmmpppp. */
#define PMCLOG_ABI_VERSION(major, minor, patch) \
	((((__u32)(major) & 0xff) << 24) | (((__u32)(minor) & 0xff) << 16) | \
	 ((__u32)(patch) & 0xffff))
#define PMCLOG_ABI_VERSION_MAJOR(v)	(((__u32)(v) >> 24) & 0xff)
#define PMCLOG_ABI_VERSION_MINOR(v)	(((__u32)(v) >> 16) & 0xff)
#define PMCLOG_ABI_VERSION_PATCH(v)	((__u32)(v) & 0xffff)
#define PMCLOG_ABI_CURRENT \
	PMCLOG_ABI_VERSION(PMCLOG_ABI_MAJOR, PMCLOG_ABI_MINOR, PMCLOG_ABI_PATCH)

#define PMCLOG_DEVICE_PATH	"/dev/pmclog"

/*
 * Record header, 16 bytes, at the start of every record.
 *
 *   magic   PMCLOG_HEADER_MAGIC
 *   type    enum pmclog_type
 *   length  bytes in the whole record, header included; a multiple of 8,
 *           at least the size of the record's structure below
 *   cpu     CPU that produced the record
 *   flags   PMCLOG_HF_*
 *   pmcid   PMCALLOCATE, PCSAMPLE, CALLCHAIN, THROTTLE, UNTHROTTLE: the
 *           PMC the record is about; 0 otherwise
 *   tstamp  nanoseconds on the clock named in INITIALIZE
 */
struct pmclog_header {
	__u8	magic;
	__u8	type;
	__u16	length;
	__u16	cpu;
	__u8	flags;
	__u8	pmcid;
	__u64	tstamp;
};

#define PMCLOG_HEADER_MAGIC	0xeeU
#define PMCLOG_RECORD_ALIGN	8U
#define PMCLOG_RECORD_MAX	65528U	/* largest multiple of 8 in a __u16 */

/*
 * The length of a record whose structure and string take n bytes: n
 * rounded up to PMCLOG_RECORD_ALIGN, in n's own (unsigned) type.  The
 * padding is NULs.
 */
#define PMCLOG_RECORD_LEN(n) \
	(((n) + (PMCLOG_RECORD_ALIGN - 1)) / PMCLOG_RECORD_ALIGN * PMCLOG_RECORD_ALIGN)

/* Header flags. */
#define PMCLOG_HF_USER		0x01U	/* PCSAMPLE, CALLCHAIN: the CPU was in user mode */
#define PMCLOG_HF_SYNTH		0x02U	/* written by the recorder, not the kernel */
/*
 * PROCFORK of a log that follows descendants: the child is not followed
 * (the log's table of them is full), so its records and samples are
 * missing from the log.  ABI 1.2.
 */
#define PMCLOG_HF_UNFOLLOWED	0x04U
/*
 * INITIALIZE: the log was written by the BPF collector (pmclog record
 * --bpf, libpmclog's pmclog_device__open_bpf()), not by the module; its
 * abi_version is the library's.  ABI 1.6.
 */
#define PMCLOG_HF_BPF		0x08U

/*
 * The record types, each written once: X(NAME, value, type) gives
 * PMCLOG_TYPE_NAME its value and the structure its records start with.
 * The enum below, the module's builders (each record's comment names its
 * own) and the reader's tables of names ("MAP_IN") and fixed sizes are
 * expanded from this list.  Values never change; append a type at the end,
 * under its ABI version, raise PMCLOG_TYPE_MAX_KNOWN and PMCLOG_ABI_MINOR.
 */
#define PMCLOG_RECORD_TYPES(X)						\
	/* ABI 1.0 */							\
	X(INITIALIZE,	1,	struct pmclog_initialize)		\
	X(CLOSELOG,	2,	struct pmclog_closelog)			\
	X(PMCALLOCATE,	3,	struct pmclog_pmcallocate)		\
	X(PCSAMPLE,	4,	struct pmclog_pcsample)			\
	X(MAP_IN,	5,	struct pmclog_map_in)			\
	X(MAP_OUT,	6,	struct pmclog_map_out)			\
	X(PROCEXEC,	7,	struct pmclog_procexec)			\
	X(PROCFORK,	8,	struct pmclog_procfork)			\
	X(PROCEXIT,	9,	struct pmclog_procexit)			\
	X(DROPNOTIFY,	10,	struct pmclog_dropnotify)		\
	X(KSYMBOL,	11,	struct pmclog_ksymbol)			\
	/* ABI 1.2 */							\
	X(THROTTLE,	12,	struct pmclog_throttle)			\
	X(UNTHROTTLE,	13,	struct pmclog_throttle)			\
	/* ABI 1.4 */							\
	X(BUILDID,	14,	struct pmclog_buildid)			\
	/* ABI 1.5 */							\
	X(CALLCHAIN,	15,	struct pmclog_callchain)		\
	/* ABI 1.7 */							\
	X(PCSAMPLES,	16,	struct pmclog_pcsamples)

#define __PMCLOG_TYPE_ENUM(name, value, type)	PMCLOG_TYPE_##name = (value),
enum pmclog_type {
	PMCLOG_RECORD_TYPES(__PMCLOG_TYPE_ENUM)
	PMCLOG_TYPE_MAX_KNOWN	= PMCLOG_TYPE_PCSAMPLES,
};

#undef __PMCLOG_TYPE_ENUM

/* The pid of records about the kernel and its modules (MAP_IN, MAP_OUT). */
#define PMCLOG_PID_KERNEL	0xffffffffU

/*
 * INITIALIZE, 56 bytes: the first record of a log.
 *
 *   abi_version   PMCLOG_ABI_VERSION() of the module that wrote the log
 *   ncpus         nr_cpu_ids: every cpu field is below it
 *   clock         PMCLOG_CLOCK_*: the clock of every tstamp
 *   cpu_vendor    PMCLOG_CPU_VENDOR_*: whose PMU conventions the CPU
 *                 follows (Zhaoxin: INTEL, Hygon: AMD; cpu_id names it)
 *   cpu_family, cpu_model, cpu_stepping   as in /proc/cpuinfo (x86)
 *   pmu           PMCLOG_PMU_*: the hardware PMU the module found, if any
 *   realtime_ns   CLOCK_REALTIME at the same moment as header.tstamp, so
 *                 that a report can print wall-clock dates
 *   cpu_id        CPUID vendor string ("GenuineIntel"), NUL-padded
 *
 * Built by pmclog_rec_initialize().
 */
struct pmclog_initialize {
	struct pmclog_header header;
	__u32	abi_version;
	__u32	ncpus;
	__u16	clock;
	__u8	cpu_vendor;
	__u8	cpu_family;
	__u8	cpu_model;
	__u8	cpu_stepping;
	__u16	pmu;
	__u64	realtime_ns;
	char	cpu_id[16];
};

#define PMCLOG_CLOCK_MONOTONIC	1	/* CLOCK_MONOTONIC, read NMI-safe */

#define PMCLOG_CPU_VENDOR_UNKNOWN	0
#define PMCLOG_CPU_VENDOR_INTEL		1
#define PMCLOG_CPU_VENDOR_AMD		2

/*
 * The kinds of hardware PMU (INITIALIZE.pmu, pmclog_pmu_info.pmu):
 * X(NAME, value, name) gives PMCLOG_PMU_NAME its value and the name tools
 * print for it.  Values never change; new kinds are appended.
 *
 *   NONE        no usable hardware PMU
 *   INTEL_ARCH  Intel architectural perfmon
 *   AMD_CORE    AMD perfctr_core (0xc0010200)
 *   AMD_K7      AMD legacy counters (0xc0010000)
 */
#define PMCLOG_PMU_KINDS(X)						\
	X(NONE,		0,	"none")					\
	X(INTEL_ARCH,	1,	"intel-arch")				\
	X(AMD_CORE,	2,	"amd-core")				\
	X(AMD_K7,	3,	"amd-k7")

#define __PMCLOG_PMU_ENUM(name, value, str)	PMCLOG_PMU_##name = (value),
enum pmclog_pmu_kind {
	PMCLOG_PMU_KINDS(__PMCLOG_PMU_ENUM)
	PMCLOG_PMU_MAX_KNOWN	= PMCLOG_PMU_AMD_K7,
};

#undef __PMCLOG_PMU_ENUM

/*
 * CLOSELOG, 40 bytes: the last record of a log.  Totals over the whole
 * log, so that a reader can check that what it saw adds up:
 *
 *   samples          samples the sources took, dropped ones included
 *   samples_dropped  samples lost because a per-CPU buffer was full
 *   records_dropped  records lost because the log was full (reader too slow)
 *
 * A complete log holds samples - samples_dropped - (PCSAMPLE records among
 * records_dropped) PCSAMPLE records; the DROPNOTIFY records sum to the two
 * dropped totals.
 *
 * Built by pmclog_rec_closelog().
 */
struct pmclog_closelog {
	struct pmclog_header header;
	__u64	samples;
	__u64	samples_dropped;
	__u64	records_dropped;
};

/* The size of an event's name, NUL included (PMCALLOCATE, pmclog_alloc). */
#define PMCLOG_EVENT_NAME_LEN	32

/*
 * PMCALLOCATE, 72 bytes: a sampling PMC was allocated; header.pmcid is its
 * id in PCSAMPLE records.
 *
 *   event    PMCLOG_EV_*
 *   flags    PMCLOG_PMC_F_*
 *   config   PMCLOG_EV_RAW: the event select (vendor encoding); else 0
 *   period   events (nanoseconds for cpu-clock) between samples, or the
 *            target rate in Hz with PMCLOG_PMC_F_FREQ
 *   name     the event as the recorder was asked for it, NUL-padded
 *            ("cpu-clock", "cycles:u", "r01c2:u"): pmclog_alloc.name.  When
 *            the recorder gave none, the module's spelling of the same
 *            event: its PMCLOG_EVENTS name, or r and config in hex for
 *            PMCLOG_EV_RAW, then :u or :k if only that mode is counted
 *            ("r1c2:u").  Before ABI 1.3 the module wrote the
 *            PMCLOG_EVENTS name alone ("raw" for every raw event).
 *
 * Built by pmclog_rec_pmcallocate().
 */
struct pmclog_pmcallocate {
	struct pmclog_header header;
	__u32	event;
	__u32	flags;
	__u64	config;
	__u64	period;
	char	name[PMCLOG_EVENT_NAME_LEN];
};

/*
 * PCSAMPLE, 32 bytes: the PC of an interrupted thread.  header.cpu is the
 * CPU, header.pmcid the PMC, PMCLOG_HF_USER in header.flags says user mode.
 * pid and tid are in the initial pid namespace; pid 0 is the idle task.
 *
 * Built by pmclog_rec_pcsample().
 */
struct pmclog_pcsample {
	struct pmclog_header header;
	__u32	pid;
	__u32	tid;
	__u64	pc;
};

/*
 * PCSAMPLES, 40 bytes + deltas (ABI 1.7): a run of count PCSAMPLE records
 * with the same header.cpu, header.pmcid, header.flags, pid and tid that
 * followed one another among that CPU's samples, with no record but
 * other CPUs' PCSAMPLEs between them, packed by the recorder as it saves
 * the log (pmclog record; --no-pack keeps them as they came).  The
 * module never writes one: it is found in files, never in read(2) from
 * the device.  Unpacked, it is the run again, record for record, in its
 * place in the stream; the other CPUs' samples that came between go
 * before or after it (sorted back by tstamp, as above: the recorder
 * moves none past a record of another type, and saves every run once a
 * sample comes 100 ms after the first of the oldest run):
 *
 *   header.tstamp, pc   the first sample's
 *   count               samples in the run, 2 or more
 *   size                bytes of deltas after the structure
 *
 * Each sample after the first is the one before it plus two deltas, its
 * tstamp's then its pc's, each the difference of two __u64 taken as an
 * __s64, zigzag-encoded ((d << 1) ^ (d >> 63)) and written as a ULEB128
 * (7 bits a byte, low first, the top bit set on all but the last byte):
 * 1 to 10 bytes each.  The deltas fill size bytes exactly; NULs pad the
 * record to its length, PMCLOG_RECORD_LEN(40 + size).  A run of samples
 * of one thread, some 100 us and a few hundred bytes of code apart, takes
 * 4 to 6 bytes a sample, against PCSAMPLE's 32.
 *
 * Built by pmclog_writer (tools/pmclog/lib/pmclog_writer.c).
 */
struct pmclog_pcsamples {
	struct pmclog_header header;
	__u32	pid;
	__u32	tid;
	__u64	pc;
	__u32	count;
	__u32	size;
	__u8	deltas[];
};

/*
 * MAP_IN, 48 bytes + path: [start, end) of process pid now holds
 * executable code.
 *
 *   pid      process, or PMCLOG_PID_KERNEL for the kernel image and modules
 *   flags    PMCLOG_MAP_F_*
 *   start    first byte
 *   end      first byte past the mapping
 *   offset   a file mapping: the file offset of start, in bytes;
 *            "[kernel]": the link-time address of start, so that a symbol
 *            of vmlinux or System.map at A runs at A - offset + start;
 *            a module: 0
 *   path     NUL-terminated: the file; "[kernel]"; a module's name; for
 *            PMCLOG_MAP_F_ANON "[anon exec]" or the kernel's name of a
 *            special mapping ("[vdso]")
 *
 * A MAP_IN over addresses already mapped replaces what was there.
 *
 * Built by pmclog_rec_map_in().
 */
struct pmclog_map_in {
	struct pmclog_header header;
	__u32	pid;
	__u32	flags;
	__u64	start;
	__u64	end;
	__u64	offset;
	char	path[];
};

#define PMCLOG_MAP_F_ANON	0x1U	/* anonymous executable memory (JIT) */
#define PMCLOG_MAP_F_KMODULE	0x2U	/* a kernel module's text */
#define PMCLOG_MAP_F_INITIAL	0x4U	/* already there when the log started */
#define PMCLOG_MAP_F_INIT	0x8U	/* a module's init text, gone once live */

/*
 * MAP_OUT, 40 bytes: [start, end) of pid no longer holds code.
 *
 * Built by pmclog_rec_map_out().
 */
struct pmclog_map_out {
	struct pmclog_header header;
	__u32	pid;
	__u32	__reserved;
	__u64	start;
	__u64	end;
};

/*
 * PROCEXEC, 24 bytes + path: pid replaced its image with the executable
 * path.  Written when the old address space is gone and before the MAP_INs
 * of the new image: a reader forgets every map of pid here.
 *
 * Built by pmclog_rec_procexec().
 */
struct pmclog_procexec {
	struct pmclog_header header;
	__u32	pid;
	__u32	__reserved;
	char	path[];
};

/*
 * PROCFORK, 24 bytes: ppid created the process pid, whose maps start as a
 * copy of ppid's.  PMCLOG_HF_UNFOLLOWED in header.flags: a log that
 * follows descendants could not follow this one.
 *
 * Built by pmclog_rec_procfork().
 */
struct pmclog_procfork {
	struct pmclog_header header;
	__u32	ppid;
	__u32	pid;
};

/*
 * PROCEXIT, 24 bytes: the last thread of pid exited with status; one per
 * process, written when no thread of it can run user code any more.  Its
 * maps stay valid for samples taken before this record.
 *
 * Built by pmclog_rec_procexit().
 */
struct pmclog_procexit {
	struct pmclog_header header;
	__u32	pid;
	__u32	status;	/* as wait(2) reports it */
};

/*
 * DROPNOTIFY, 32 bytes: what header.cpu lost since its previous
 * DROPNOTIFY.  Written before the next record that CPU manages to log.
 *
 * Built by pmclog_rec_dropnotify().
 */
struct pmclog_dropnotify {
	struct pmclog_header header;
	__u64	samples;	/* the per-CPU sample buffer was full */
	__u64	records;	/* the log was full */
};

/*
 * KSYMBOL, 40 bytes + name: a function of a kernel object, at its run-time
 * address, so that a report names it without the object's file, for
 * modules loaded and unloaded during the run alike.  The module writes
 * these for the modules that load while the log runs (their .init.text
 * functions included); the recorder writes them, with PMCLOG_HF_SYNTH,
 * for the functions of the kernel and of the modules already loaded that
 * its samples fell in (from /proc/kallsyms, read at START).
 *
 *   pid     PMCLOG_PID_KERNEL
 *   start   first byte of the function
 *   size    its size in bytes; 0 if unknown (up to the next symbol)
 *   name    NUL-terminated function name
 *
 * Built by pmclog_rec_ksymbol().
 */
struct pmclog_ksymbol {
	struct pmclog_header header;
	__u32	pid;
	__u32	__reserved;
	__u64	start;
	__u64	size;
	char	name[];
};

/*
 * THROTTLE, UNTHROTTLE, 32 bytes (ABI 1.2): PMC header.pmcid stopped
 * sampling on CPU header.cpu (THROTTLE), then sampled there again, or was
 * stopped there for good: STOP, the CPU going offline (UNTHROTTLE).
 * header.tstamp is the time of the change.
 *
 *   reason      PMCLOG_THROTTLE_*: why it stopped; an UNTHROTTLE carries
 *               the reason of the throttle it ends
 *   count       the changes of this type, CPU, PMC and reason the record
 *               stands for, the last one at tstamp: 1, or more when the
 *               module's drain of that CPU ran late
 *   stopped_ns  UNTHROTTLE: how long the PMC did not sample on that CPU
 *               in the throttles it ends, in all; THROTTLE: 0
 *
 * PMCLOG_THROTTLE_RATE and _CPU_TIME stop a hardware PMC until the end of
 * the tick (about 1/HZ s) in which its CPU spent too much in the overflow
 * interrupt: more than max_sample_rate / HZ overflows of that PMC, or more
 * than cpu_time_max_percent of the tick in the handler (the module's
 * parameters, as perf's kernel.perf_event_max_sample_rate and
 * kernel.perf_cpu_time_max_percent).  Without them a counter that
 * overflows faster than its interrupt is handled keeps its CPU in NMIs.
 * PMCLOG_THROTTLE_BUSY and _ABSENT say a PMC did not start on a CPU (at
 * START, or when the CPU came online): its counter was in use there by
 * someone else, or that CPU has no such counter (CPUs of different kinds).
 * The samples of a CPU between a THROTTLE and its UNTHROTTLE are missing,
 * not lost: no drop counter includes them.  A log may end (CLOSELOG) with
 * PMCs still throttled.
 *
 * Built by pmclog_rec_throttle(), pmclog_rec_unthrottle().
 */
struct pmclog_throttle {
	struct pmclog_header header;
	__u32	reason;
	__u32	count;
	__u64	stopped_ns;
};

#define PMCLOG_THROTTLE_RATE		1	/* over max_sample_rate / HZ in a tick */
#define PMCLOG_THROTTLE_CPU_TIME	2	/* over cpu_time_max_percent of a tick */
#define PMCLOG_THROTTLE_BUSY		3	/* the counter was someone else's */
#define PMCLOG_THROTTLE_ABSENT		4	/* that CPU has no such counter */
#define PMCLOG_THROTTLE_MAX_KNOWN	PMCLOG_THROTTLE_ABSENT

/*
 * BUILDID, 56 bytes (ABI 1.4): the object that the MAP_IN of pid at start
 * maps has this GNU build-id (its NT_GNU_BUILD_ID note), so that a report
 * reads names only from that build of it, and tells apart the builds of
 * a module or library that were loaded one after the other.
 *
 *   pid     as in the MAP_IN
 *   size    bytes of build_id used, 1 to PMCLOG_BUILD_ID_MAX
 *   start   the MAP_IN's start
 *
 * The module writes one after the MAP_IN of a file mapping, with the
 * MAP_IN's tstamp and cpu, when the file's first pages are in the page
 * cache (read without I/O, as perf's build_id_parse()); and one after the
 * MAP_IN of a module's core text when the module loads while the log
 * runs.  The recorder writes them, with PMCLOG_HF_SYNTH (and so
 * INITIALIZE's tstamp), for the kernel image and for the modules already
 * loaded at START, from the notes that /sys shows of them: a reader keeps
 * those until START's MAP_IN at the same start.  An object mapped without
 * one has no known build-id: a file without the note, or whose pages were
 * not cached, an anonymous or special mapping.
 *
 * Built by pmclog_rec_buildid().
 */
#define PMCLOG_BUILD_ID_MAX	20	/* as the kernel's BUILD_ID_SIZE_MAX */

struct pmclog_buildid {
	struct pmclog_header header;
	__u32	pid;
	__u8	size;
	__u8	__reserved[3];
	__u64	start;
	__u8	build_id[PMCLOG_BUILD_ID_MAX];
	__u32	__reserved2;
};

/*
 * CALLCHAIN, 32 bytes + 8 per frame (ABI 1.5): the stack of the sample
 * just before it in the stream, for a PMC allocated with
 * PMCLOG_PMC_F_CALLCHAIN.  The header's cpu, flags, pmcid and tstamp and
 * pid and tid are the PCSAMPLE's; a reader pairs the two by them.  A
 * PCSAMPLE lost to a full log takes its CALLCHAIN with it (one record
 * drop each); a PCSAMPLE without one (another PMC, or its CALLCHAIN
 * lost) is a sample without a stack.
 *
 *   nkernel  kernel entries, first in pc[]: the interrupted PC of a kernel
 *            sample, then return addresses, innermost first, from the
 *            kernel's unwinder (ORC), each PC where an interrupt or an
 *            exception stopped the code below it preceded by the marker
 *            PMCLOG_CC_EXACT; 0 for a user sample, and with
 *            PMCLOG_CC_F_KERNEL_HIDDEN
 *   nuser    user frames, after them: the PC the thread was at in user
 *            mode (the interrupted PC of a user sample, its entry into
 *            the kernel for a kernel one), then return addresses,
 *            innermost first, from its frame pointers; 0 for a kernel
 *            thread
 *   flags    PMCLOG_CC_F_*: why a part ended before its outermost frame
 *
 * Each part holds at most the PMC's callchain depth of entries
 * (pmclog_alloc.callchain_depth), markers included.  A return address is
 * the instruction after the call: a reader names the caller from the
 * address before it; the first frame of each part, and a frame after
 * PMCLOG_CC_EXACT, are exact PCs, named from themselves.
 * The user walk follows the saved frame pointer chain (rbp, then the
 * return address above it), as perf does: a function built without frame
 * pointers (most of Debian's libraries) hides its caller, or ends the walk
 * on a frame the flags call bad.
 *
 * Built by pmclog_rec_callchain().
 */
struct pmclog_callchain {
	struct pmclog_header header;
	__u32	pid;
	__u32	tid;
	__u16	nkernel;
	__u16	nuser;
	__u32	flags;
	__u64	pc[];
};

#define PMCLOG_CC_F_KERNEL_TRUNC  0x01U	/* kernel stack deeper than the depth */
#define PMCLOG_CC_F_USER_TRUNC	  0x02U	/* user stack deeper than the depth */
#define PMCLOG_CC_F_USER_FAULT	  0x04U	/* a user frame could not be read */
#define PMCLOG_CC_F_USER_BADFRAME 0x08U	/* frame pointer not above the last, or misaligned */
#define PMCLOG_CC_F_KERNEL_HIDDEN 0x10U	/* kernel frames withheld (kallsyms) */
#define PMCLOG_CC_F_ALL		  0x1fU

/*
 * A pc[] entry that is no address (as perf's PERF_CONTEXT_* markers; the
 * top page is never code): the frame after it is an exact PC, the
 * interrupted code of an interrupt or exception frame the unwinder went
 * through, not a return address.
 */
#define PMCLOG_CC_EXACT		((__u64)-4095)

/* The most frames a module takes per part (callchain_max_depth's bound). */
#define PMCLOG_CALLCHAIN_DEPTH_LIMIT	1024

/* ------------------------------------------------------------------ */
/* Events                                                             */

/*
 * The events, each written once: X(NAME, value, name) gives PMCLOG_EV_NAME
 * its value (PMCALLOCATE.event, pmclog_alloc.event) and the name that
 * `pmclog record -e` takes and tools print.  CPU_CLOCK is a per-CPU
 * hrtimer, the others count in the hardware PMU.  RAW is an event select
 * in the vendor's encoding, in config: "raw" names the kind, a
 * PMCALLOCATE's name which one ("r01c2").  Values never change; new
 * events are appended.
 */
#define PMCLOG_EVENTS(X)						\
	X(CPU_CLOCK,		1,	"cpu-clock")			\
	X(CYCLES,		2,	"cycles")			\
	X(INSTRUCTIONS,		3,	"instructions")			\
	X(REF_CYCLES,		4,	"ref-cycles")			\
	X(BRANCHES,		5,	"branches")			\
	X(BRANCH_MISSES,	6,	"branch-misses")		\
	X(CACHE_REFERENCES,	7,	"cache-references")		\
	X(CACHE_MISSES,		8,	"cache-misses")			\
	X(RAW,			9,	"raw")

#define __PMCLOG_EV_ENUM(name, value, str)	PMCLOG_EV_##name = (value),
enum pmclog_event_id {
	PMCLOG_EVENTS(__PMCLOG_EV_ENUM)
	PMCLOG_EV_MAX_KNOWN	= PMCLOG_EV_RAW,
};

#undef __PMCLOG_EV_ENUM

#define PMCLOG_PMC_F_FREQ	0x1U	/* period is a rate in Hz */
#define PMCLOG_PMC_F_USER	0x2U	/* count in user mode */
#define PMCLOG_PMC_F_KERNEL	0x4U	/* count in kernel mode */
#define PMCLOG_PMC_F_CALLCHAIN	0x8U	/* a CALLCHAIN after each PCSAMPLE (ABI 1.5) */
#define PMCLOG_PMC_F_ALL	0xfU

/* ------------------------------------------------------------------ */
/* ioctls                                                              */

/*
 * The argument structures only grow at the end.  The kernel takes the
 * size of the caller's structure from the ioctl number (_IOC_SIZE): a
 * shorter, older structure reads as if the missing fields were zero, and
 * a longer one is refused with E2BIG unless its extra bytes are zero.
 * Fields named __reserved must be zero.  Unknown commands fail with ENOTTY.
 *
 * A log goes through: open -> ALLOCATE (one or more) -> ATTACH -> START
 * -> STOP -> read until read(2) returns 0 -> close.  Closing the file at
 * any point stops sampling and frees everything.
 */
#define PMCLOG_IOC_MAGIC	0xe6

/* PMCLOG_IOC_GET_VERSION: the module's ABI version. */
struct pmclog_version {
	__u32	abi_version;	/* PMCLOG_ABI_VERSION() */
	__u32	__reserved;
};

/*
 * PMCLOG_IOC_ALLOCATE: add a sampling PMC to the log, before START.
 *
 *   in:  event, flags, config and period as in PMCALLOCATE; period 0 with
 *        PMCLOG_PMC_F_FREQ is refused; flags without USER or KERNEL mean
 *        both.  (ABI 1.3) name: the event as the user gave it
 *        (`pmclog record -e`), printable ASCII without spaces,
 *        NUL-terminated; the module writes it into PMCALLOCATE.  Empty
 *        (as from an older caller), the module writes its own spelling.
 *   out: pmcid, the id PCSAMPLE records carry
 *
 * Fails with ENODEV (and writes nothing) when the event needs a hardware
 * PMU this machine does not have, with EBUSY when every counter is taken,
 * with EINVAL for an unknown event, flag, a period out of range or (ABI
 * 1.3) a name that is not NUL-terminated or holds a space, a control
 * character or a byte above 0x7e, and
 * (ABI 1.2) with ERANGE when the PMC would sample faster than the module
 * parameter max_sample_rate allows (pmclog_pmu_info.max_sample_rate): a
 * PMCLOG_PMC_F_FREQ rate above it, or a cpu-clock period below
 * 1e9 / max_sample_rate ns.  A hardware PMC with a fixed period cannot be
 * judged beforehand; the module throttles it instead (THROTTLE).
 *
 * (ABI 1.5) With PMCLOG_PMC_F_CALLCHAIN in flags, each PCSAMPLE of the
 * PMC is followed by a CALLCHAIN of at most callchain_depth kernel and
 * as many user frames; callchain_depth 0 means the module parameter
 * callchain_max_depth (pmclog(4)), above which ALLOCATE fails with
 * EOVERFLOW (as perf's sample_max_stack above kernel.perf_event_max_stack).
 * callchain_depth without the flag is refused with EINVAL.  A module
 * older than ABI 1.5 refuses the flag with EINVAL.  The frames of every
 * sample waiting in a CPU's ring are kept at ALLOCATE's size: nsamples
 * times 16 bytes times the depth, per CPU; ENOMEM when that is too much.
 *
 * A module older than ABI 1.3 refuses a name with E2BIG (its structure is
 * shorter, and the bytes past it are not zero); a caller that wants to work
 * with it asks again with the first PMCLOG_ALLOC_SIZE_VER0 bytes, as perf
 * does with perf_event_attr.size: _IOC(_IOC_READ | _IOC_WRITE,
 * PMCLOG_IOC_MAGIC, _IOC_NR(PMCLOG_IOC_ALLOCATE), PMCLOG_ALLOC_SIZE_VER0).
 */
struct pmclog_alloc {
	__u32	event;
	__u32	flags;
	__u64	config;
	__u64	period;
	__u32	pmcid;
	__u32	__reserved;
	/* ABI 1.3 */
	char	name[PMCLOG_EVENT_NAME_LEN];
	/* ABI 1.5 */
	__u32	callchain_depth;
	__u32	__reserved1;
};

#define PMCLOG_ALLOC_SIZE_VER0	32	/* ABI 1.0: up to __reserved */
#define PMCLOG_ALLOC_SIZE_VER1	64	/* ABI 1.3: name */
#define PMCLOG_ALLOC_SIZE_VER2	72	/* ABI 1.5: callchain_depth */

/*
 * PMCLOG_IOC_ATTACH: say whose samples the log wants, before START.
 *
 *   PMCLOG_ATTACH_SYSTEM: every CPU, every task; pid must be 0
 *   PMCLOG_ATTACH_PROCESS: the threads of process pid (in the caller's
 *   pid namespace), from now on, including threads it creates later
 *   PMCLOG_ATTACH_F_CHILDREN: with PROCESS, also its descendants
 */
struct pmclog_attach {
	__u32	mode;
	__u32	flags;
	__u32	pid;
	__u32	__reserved;
};

#define PMCLOG_ATTACH_SYSTEM		1
#define PMCLOG_ATTACH_PROCESS		2
#define PMCLOG_ATTACH_F_CHILDREN	0x1U

#define PMCLOG_IOC_GET_VERSION	_IOR(PMCLOG_IOC_MAGIC, 0x00, struct pmclog_version)
#define PMCLOG_IOC_ALLOCATE	_IOWR(PMCLOG_IOC_MAGIC, 0x01, struct pmclog_alloc)
#define PMCLOG_IOC_ATTACH	_IOW(PMCLOG_IOC_MAGIC, 0x02, struct pmclog_attach)
#define PMCLOG_IOC_START	_IO(PMCLOG_IOC_MAGIC, 0x03)
#define PMCLOG_IOC_STOP		_IO(PMCLOG_IOC_MAGIC, 0x04)

/*
 * PMCLOG_IOC_GET_PMU (ABI 1.1): the hardware PMU as the module sees it,
 * for `pmclog list` and for the messages of a refused ALLOCATE.  Any open
 * file may ask, at any time.
 *
 *   pmu          PMCLOG_PMU_*; PMCLOG_PMU_NONE: reason says why
 *   version      Intel architectural perfmon version; on AMD 2 with
 *                PerfMonV2 (Zen 4 and later: global control and status),
 *                else 0
 *   ngp, nfixed  general-purpose and fixed counters
 *   gp_width, fixed_width   their width in bits
 *   events       bit (1 << PMCLOG_EV_*) for each event this PMU counts
 *   counters     the counters: GP counter i is bit i, fixed counter j is
 *                bit 16 + j (the same numbering in busy, reserved, taken)
 *   busy         counters someone else enabled, on any online CPU
 *   reserved     GP counters the kernel's counter registry refused to
 *                pmclog when it last tried to take them (ALLOCATE): perf
 *                held them (the NMI watchdog, perf users, KVM).  Asking
 *                reserves nothing (ABI 1.2; before, it reserved each free
 *                counter for a moment, which could fail a perf user).
 *   taken        counters pmclog's own logs hold
 *   foreign_nmis PMU NMIs, while pmclog had counters, that were not its
 *   overflows    counter overflows pmclog handled, since the module loaded
 *   reason       NUL-terminated: why there is no PMU, or who holds it
 *
 * ABI 1.2 appended, filled with or without a PMU:
 *   throttles    THROTTLEs for the rate or CPU time, since the module loaded
 *   skipped      times a PMC did not start on a CPU: THROTTLE with
 *                PMCLOG_THROTTLE_BUSY or _ABSENT
 *   max_sample_rate       the module parameter: the highest rate, Hz,
 *                         that ALLOCATE accepts
 *   cpu_time_max_percent  the module parameter: the share of a tick the
 *                         overflow handler may take (100: no limit)
 *   flags        PMCLOG_PMU_INFO_F_*
 *
 * On CPUs of different kinds (Intel hybrid), ngp, nfixed, the widths,
 * events and counters are what every CPU has, the only counters
 * ALLOCATE uses; PMCLOG_PMU_INFO_F_HETERO is set.
 */
struct pmclog_pmu_info {
	__u16	pmu;
	__u8	version;
	__u8	ngp;
	__u8	nfixed;
	__u8	gp_width;
	__u8	fixed_width;
	__u8	__reserved0;
	__u32	events;
	__u32	counters;
	__u32	busy;
	__u32	reserved;
	__u32	taken;
	__u32	__reserved1;
	__u64	foreign_nmis;
	__u64	overflows;
	char	reason[128];
	/* ABI 1.2 */
	__u64	throttles;
	__u64	skipped;
	__u32	max_sample_rate;
	__u16	cpu_time_max_percent;
	__u16	flags;
};

#define PMCLOG_PMU_INFO_F_HETERO	0x1U	/* CPUs' counters differ */

#define PMCLOG_IOC_GET_PMU	_IOR(PMCLOG_IOC_MAGIC, 0x05, struct pmclog_pmu_info)

/*
 * Layout checks, compiled by both sides: the kernel includes this header
 * with __KERNEL__ (static_assert from linux/build_bug.h), userland with
 * C11 _Static_assert.
 */
#ifdef __KERNEL__
#include <linux/build_bug.h>
#define __PMCLOG_ASSERT(e, m)	static_assert(e, m)
#elif defined(__cplusplus)
#define __PMCLOG_ASSERT(e, m)	static_assert(e, m)
#else
#define __PMCLOG_ASSERT(e, m)	_Static_assert(e, m)
#endif
#define __PMCLOG_OFFSET(t, f)	__builtin_offsetof(struct t, f)
#define __PMCLOG_ONE(name, value, x)	+ 1

/* Each list ends at its MAX_KNOWN: an entry appended alone fails here. */
__PMCLOG_ASSERT(0 PMCLOG_RECORD_TYPES(__PMCLOG_ONE) == PMCLOG_TYPE_MAX_KNOWN,
		"PMCLOG_RECORD_TYPES and PMCLOG_TYPE_MAX_KNOWN");
__PMCLOG_ASSERT(0 PMCLOG_EVENTS(__PMCLOG_ONE) == PMCLOG_EV_MAX_KNOWN,
		"PMCLOG_EVENTS and PMCLOG_EV_MAX_KNOWN");
__PMCLOG_ASSERT(0 PMCLOG_PMU_KINDS(__PMCLOG_ONE) == PMCLOG_PMU_MAX_KNOWN + 1,
		"PMCLOG_PMU_KINDS and PMCLOG_PMU_MAX_KNOWN");

__PMCLOG_ASSERT(sizeof(struct pmclog_header) == 16, "header");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_header, length) == 2, "header.length");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_header, cpu) == 4, "header.cpu");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_header, pmcid) == 7, "header.pmcid");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_header, tstamp) == 8, "header.tstamp");
__PMCLOG_ASSERT(sizeof(struct pmclog_initialize) == 56, "INITIALIZE");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_initialize, realtime_ns) == 32, "INITIALIZE.realtime_ns");
__PMCLOG_ASSERT(sizeof(struct pmclog_closelog) == 40, "CLOSELOG");
__PMCLOG_ASSERT(sizeof(struct pmclog_pmcallocate) == 72, "PMCALLOCATE");
__PMCLOG_ASSERT(sizeof(struct pmclog_pcsample) == 32, "PCSAMPLE");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_pcsample, pc) == 24, "PCSAMPLE.pc");
__PMCLOG_ASSERT(sizeof(struct pmclog_pcsamples) == 40, "PCSAMPLES");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_pcsamples, deltas) == 40, "PCSAMPLES.deltas");
__PMCLOG_ASSERT(sizeof(struct pmclog_map_in) == 48, "MAP_IN");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_map_in, path) == 48, "MAP_IN.path");
__PMCLOG_ASSERT(PMCLOG_RECORD_LEN(sizeof(struct pmclog_map_in) + 1) == 56,
		"PMCLOG_RECORD_LEN: MAP_IN of a 1-byte path");
__PMCLOG_ASSERT(sizeof(struct pmclog_map_out) == 40, "MAP_OUT");
__PMCLOG_ASSERT(sizeof(struct pmclog_buildid) == 56, "BUILDID");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_buildid, build_id) == 32, "BUILDID.build_id");
__PMCLOG_ASSERT(sizeof(struct pmclog_procexec) == 24, "PROCEXEC");
__PMCLOG_ASSERT(sizeof(struct pmclog_procfork) == 24, "PROCFORK");
__PMCLOG_ASSERT(sizeof(struct pmclog_procexit) == 24, "PROCEXIT");
__PMCLOG_ASSERT(sizeof(struct pmclog_dropnotify) == 32, "DROPNOTIFY");
__PMCLOG_ASSERT(sizeof(struct pmclog_ksymbol) == 40, "KSYMBOL");
__PMCLOG_ASSERT(sizeof(struct pmclog_throttle) == 32, "THROTTLE");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_throttle, stopped_ns) == 24, "THROTTLE.stopped_ns");
__PMCLOG_ASSERT(sizeof(struct pmclog_version) == 8, "pmclog_version");
__PMCLOG_ASSERT(sizeof(struct pmclog_callchain) == 32, "CALLCHAIN");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_callchain, pc) == 32, "CALLCHAIN.pc");
__PMCLOG_ASSERT(sizeof(struct pmclog_callchain) + 2 * 8 * PMCLOG_CALLCHAIN_DEPTH_LIMIT <=
		PMCLOG_RECORD_MAX, "CALLCHAIN of the deepest stacks");
__PMCLOG_ASSERT(sizeof(struct pmclog_alloc) == PMCLOG_ALLOC_SIZE_VER2, "pmclog_alloc");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_alloc, callchain_depth) == PMCLOG_ALLOC_SIZE_VER1,
		"pmclog_alloc.callchain_depth");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_alloc, name) == PMCLOG_ALLOC_SIZE_VER0,
		"pmclog_alloc.name");
__PMCLOG_ASSERT(sizeof(struct pmclog_attach) == 16, "pmclog_attach");
__PMCLOG_ASSERT(sizeof(struct pmclog_pmu_info) == 200, "pmclog_pmu_info");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_pmu_info, events) == 8, "pmclog_pmu_info.events");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_pmu_info, foreign_nmis) == 32,
		"pmclog_pmu_info.foreign_nmis");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_pmu_info, reason) == 48, "pmclog_pmu_info.reason");
__PMCLOG_ASSERT(__PMCLOG_OFFSET(pmclog_pmu_info, throttles) == 176,
		"pmclog_pmu_info.throttles");

#undef __PMCLOG_ONE
#undef __PMCLOG_OFFSET
#undef __PMCLOG_ASSERT

#endif /* _UAPI_LINUX_PMCLOG_H */
