/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog report internals, shared by pmclog_report.c (counting,
 * resolution, rows), pmclog_report_fmt.c (formats) and pmclog_gmon.c.
 */
#ifndef PMCLOG_REPORT_INT_H
#define PMCLOG_REPORT_INT_H

#include "pmclog_report.h"

#define AE_USER		0x1
#define AE_HIDDEN	0x2

/* A distinct sampled address; count 0 marks a free hash slot. */
struct addr_ent {
	struct pmclog_object *obj;	/* NULL: in no map; addr is the pc */
	__u64 addr;			/* object address */
	__u64 count;
	__u32 pid;			/* 0 unless sorting by pid */
	__u8 flags;			/* AE_* */
};

/* A distinct address, named. */
struct res_ent {
	struct pmclog_object *obj;	/* NULL: none */
	const char *object;		/* display name, interned */
	const char *symbol;		/* function, or "0x..." */
	__u64 addr;			/* vaddr when has_vaddr, else objaddr */
	__u64 count;
	__u32 pid;
	bool kernel;
	bool has_vaddr;
};

struct pmclog_report {
	struct pmclog_strings *strings;
	struct pmclog_replay *replay;
	struct pmclog_resolver *res;
	struct pmclog_report_opts opts;
	bool by_pid;
	const char *kernel_name, *unknown_name, *hidden_name;

	struct addr_ent *addrs;		/* hash */
	size_t naddrs, addrs_cap;
	struct res_ent *ents;
	size_t nents;
	struct pmclog_row *rows;
	size_t nrows;
	struct pmclog_report_stats stats;

	bool dl_tried;
	void *dl;			/* libstdc++, for __cxa_demangle */
	void *cxa_demangle;
};

#endif /* PMCLOG_REPORT_INT_H */
