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
 * The kprobe handlers of pmclog.bpf.c that its kprobe.multi dispatchers
 * call, X(id, handler): a probed function's entry (or return) is attached
 * with the cookie PMCLOG_BPF_P_<id>, and the dispatcher calls <handler>'s
 * body for it.  The dispatchers, the cookies and userland's table of them
 * (lib/pmclog_bpf.c) are all made from these two lists.
 */
#define PMCLOG_BPF_ENTRY_PROBES(X)				\
	X(VMA_ADJUST,		pmclog_vma_adjust_entry)	\
	X(MUNMAP,		pmclog_munmap_entry)		\
	X(MUNMAP_ALIGN,		pmclog_munmap_align_entry)	\
	X(MMAP_REGION,		pmclog_mmap_region_entry)	\
	X(MMAP_GAP,		pmclog_mmap_gap)		\
	X(MMAP,			pmclog_mmap)			\
	X(MPROTECT,		pmclog_mprotect_entry)		\
	X(EXEC,			pmclog_exec)			\
	X(EXIT,			pmclog_exit)			\
	X(MODULE_LOAD,		pmclog_module_load)		\
	X(MODULE_UNLOAD,	pmclog_module_unload)

#define PMCLOG_BPF_RETURN_PROBES(X)				\
	X(COPY_VMA_RET,		pmclog_copy_vma)		\
	X(MERGE_EXTEND_RET,	pmclog_vma_merge_extend)	\
	X(VMA_ADJUST_RET,	pmclog_vma_adjust_exit)		\
	X(MUNMAP_RET,		pmclog_munmap_exit)		\
	X(MMAP_REGION_RET,	pmclog_mmap_region_exit)	\
	X(MPROTECT_RET,		pmclog_mprotect_exit)		\
	X(MODULE_LIVE_RET,	pmclog_module_live)

#define PMCLOG_BPF_P_ENUM(id, handler)	PMCLOG_BPF_P_##id,
enum pmclog_bpf_probe {
	PMCLOG_BPF_P_NONE,	/* 0: no cookie */
	PMCLOG_BPF_ENTRY_PROBES(PMCLOG_BPF_P_ENUM)
	PMCLOG_BPF_RETURN_PROBES(PMCLOG_BPF_P_ENUM)
};
#undef PMCLOG_BPF_P_ENUM

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
