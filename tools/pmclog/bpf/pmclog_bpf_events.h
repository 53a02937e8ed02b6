/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF collector's ring buffer: what pmclog.bpf.c writes and
 * lib/pmclog_bpf.c reads.  Both sides include this file.
 *
 * Fixed-size records are written by the BPF programs exactly as the
 * module writes them (include/uapi/linux/pmclog.h): PCSAMPLE, PROCFORK,
 * PROCEXIT, MAP_OUT and DROPNOTIFY go to the log unchanged.  What needs
 * userland before it is a record comes as one of the events below, each
 * starting with a struct pmclog_header whose type is PMCLOG_BPF_EV_*
 * (above every record type, never in a log): a path, walked dentry by
 * dentry, is assembled there, and the executable mappings each process
 * holds are known only there (BPF cannot walk a maple tree), so an unmap
 * becomes the MAP_OUTs of the executable parts of its range.
 */
#ifndef PMCLOG_BPF_EVENTS_H
#define PMCLOG_BPF_EVENTS_H

#include <linux/types.h>

#define PMCLOG_BPF_EV_MAP_IN	0x80	/* struct pmclog_bpf_map_in */
#define PMCLOG_BPF_EV_UNMAP	0x81	/* struct pmclog_bpf_unmap */
#define PMCLOG_BPF_EV_EXEC	0x82	/* struct pmclog_bpf_map_in: start, end 0 */
#define PMCLOG_BPF_EV_KSYMBOL	0x83	/* struct pmclog_bpf_ksymbol */

/*
 * The cookies of the kprobe.multi links: which handler of pmclog.bpf.c
 * a probed function's entry (or, _RET, return) is for.
 */
enum pmclog_bpf_probe {
	PMCLOG_BPF_P_VMA_ADJUST = 1,
	PMCLOG_BPF_P_MUNMAP,
	PMCLOG_BPF_P_MUNMAP_ALIGN,
	PMCLOG_BPF_P_MMAP_REGION,
	PMCLOG_BPF_P_MMAP_GAP,
	PMCLOG_BPF_P_MMAP,
	PMCLOG_BPF_P_MPROTECT,
	PMCLOG_BPF_P_EXEC,
	PMCLOG_BPF_P_EXIT,
	PMCLOG_BPF_P_MODULE_LOAD,
	PMCLOG_BPF_P_MODULE_UNLOAD,
	PMCLOG_BPF_P_COPY_VMA_RET,
	PMCLOG_BPF_P_MERGE_EXTEND_RET,
	PMCLOG_BPF_P_VMA_ADJUST_RET,
	PMCLOG_BPF_P_MUNMAP_RET,
	PMCLOG_BPF_P_MMAP_REGION_RET,
	PMCLOG_BPF_P_MPROTECT_RET,
	PMCLOG_BPF_P_MODULE_LIVE_RET,
};

/*
 * Path components, leaf first, each NUL-terminated, one after the other
 * in names[0 .. nbytes).  ncomp 0 and nbytes 0: "/".  For an anonymous
 * mapping or a module, names holds the whole name ("[vdso]", "ext4"), one
 * component.  PMCLOG_BPF_PATH_TRUNC in flags: the walk stopped at
 * PMCLOG_BPF_PATH_DEPTH components or at the buffer's end.
 */
#define PMCLOG_BPF_NAMES	4096	/* a power of two: offsets are masked */
#define PMCLOG_BPF_NAME_MAX	256	/* NAME_MAX + 1 */
#define PMCLOG_BPF_PATH_DEPTH	64

#define PMCLOG_BPF_PATH_TRUNC	0x80000000U

/*
 * MAP_IN (and EXEC, which names pid's new image and has no range): as
 * struct pmclog_map_in, the path still in pieces.
 */
struct pmclog_bpf_map_in {
	struct pmclog_header	header;
	__u32	pid;
	__u32	flags;		/* PMCLOG_MAP_F_*, PMCLOG_BPF_PATH_TRUNC */
	__u64	start;
	__u64	end;
	__u64	offset;
	__u32	ncomp;
	__u32	nbytes;
	char	names[PMCLOG_BPF_NAMES + PMCLOG_BPF_NAME_MAX];
};

/*
 * [start, end) of pid was unmapped, or lost PROT_EXEC, at header.tstamp
 * (the call's entry: what was mapped before then is gone, what was
 * mapped after is not).
 */
struct pmclog_bpf_unmap {
	struct pmclog_header	header;
	__u32	pid;
	__u32	__reserved;
	__u64	start;
	__u64	end;
};

/* A function of a module that is loading: KSYMBOL, its name bounded. */
#define PMCLOG_BPF_KSYM_NAME	512	/* KSYM_NAME_LEN */
struct pmclog_bpf_ksymbol {
	struct pmclog_header	header;
	__u64	start;
	__u64	size;
	char	name[PMCLOG_BPF_KSYM_NAME];
};

/*
 * Per-CPU totals (the stats map, one struct per CPU).  pend_* are the
 * losses not yet said in a DROPNOTIFY of that CPU.
 */
struct pmclog_bpf_cpu_stats {
	__u64	samples;
	__u64	samples_dropped;
	__u64	records_dropped;
	__u64	pend_samples;
	__u64	pend_records;
};

#endif /* PMCLOG_BPF_EVENTS_H */
