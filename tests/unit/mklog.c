// SPDX-License-Identifier: GPL-2.0
/*
 * mklog KIND FILE: write a log of the kind check_cli.sh runs the pmclog
 * binary on, built with log_builder.h:
 *
 *   full       one record of every type, CLOSELOG last
 *   noclose    the same without CLOSELOG (a recorder that was killed)
 *   cut        the same, cut 20 bytes into its last record (CLOSELOG)
 *   corrupt    full, the magic of its third record zeroed
 *   notalog    a PCSAMPLE first: records, but not the start of a log
 *   text       a line of text
 *   empty      no bytes at all
 *
 * mklog stacks FILE PROG: a log recorded with -g of PROG, a program with
 * main, path_a, path_b and hot (check_flamegraph.sh builds it), mapped
 * non-PIE at 0x400000; two PMCs:
 *
 *   cpu-clock     20 hot <- path_a <- main, 10 hot <- path_b <- main,
 *                 5 ksys_read <- do_syscall_64 <- entry_SYSCALL_64 (the
 *                 kernel's) below main
 *   instructions  4 path_b <- main, 2 in a kernel function named
 *                 "</script><b>x" and a byte that is not UTF-8, below
 *                 do_syscall_64 and main
 *
 * mklog paths FILE PATH...: a log recorded with -g of one process that
 * mapped each PATH (whatever it names, whatever bytes its name holds),
 * 16 MiB apart from 0x10000000, with 3 samples in each, a stack of two
 * frames in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_builder.h"

static struct logbuf b;

/* lb_full_log() up to, not including, CLOSELOG; its offset. */
static size_t full_but_closelog(void)
{
	lb_full_log(&b);
	return b.len - sizeof(struct pmclog_closelog);
}

/* The value of function name in prog, as nm(1) prints it; 0: none. */
static __u64 nm_value(const char *prog, const char *name)
{
	char cmd[4200], line[512], type[8], sym[256];
	unsigned long long v;
	__u64 found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", prog);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %7s %255s", &v, type, sym) == 3 && !strcmp(sym, name))
			found = v;
	pclose(p);
	return found;
}

#define KBASE	0xffffffff81000000ULL

static int stacks_log(const char *prog)
{
	__u64 hot = nm_value(prog, "hot"), pa = nm_value(prog, "path_a");
	__u64 pb = nm_value(prog, "path_b"), mn = nm_value(prog, "main");
	const __u64 ua[] = { hot + 4, pa + 9, mn + 9 }, ub[] = { hot + 4, pb + 9, mn + 14 };
	const __u64 kr[] = { KBASE + 0x210, KBASE + 0x120, KBASE + 0x40 }, ur[] = { mn + 20 };
	const __u64 ib[] = { pb + 4, mn + 14 }, kx[] = { KBASE + 0x310, KBASE + 0x120 };

	if (!hot || !pa || !pb || !mn) {
		fprintf(stderr, "mklog: %s: no hot, path_a, path_b or main (nm)\n", prog);
		return 65;
	}
	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		       1000, "cpu-clock");
	lb_pmcallocate(&b, 2, PMCLOG_EV_INSTRUCTIONS, PMCLOG_PMC_F_CALLCHAIN, 100000,
		       "instructions");
	lb_map_in(&b, PMCLOG_PID_KERNEL, KBASE, KBASE + 0x1000000, KBASE, 0, "[kernel]");
	lb_ksymbol(&b, KBASE, 0x100, 0, "entry_SYSCALL_64");
	lb_ksymbol(&b, KBASE + 0x100, 0x100, 0, "do_syscall_64");
	lb_ksymbol(&b, KBASE + 0x200, 0x100, 0, "ksys_read");
	lb_ksymbol(&b, KBASE + 0x300, 0x100, 0, "</script><b>x\xff");
	lb_procexec(&b, 3, prog);
	lb_map_in(&b, 3, 0x400000, 0x500000, 0, 0, prog);
	for (int i = 0; i < 20; i++)
		lb_sample_stack(&b, (__u16)(i % 2), 3, ua[0], 1, NULL, 0, ua, 3);
	for (int i = 0; i < 10; i++)
		lb_sample_stack(&b, 0, 3, ub[0], 1, NULL, 0, ub, 3);
	for (int i = 0; i < 5; i++)
		lb_sample_stack(&b, 1, 3, kr[0], 0, kr, 3, ur, 1);
	for (int i = 0; i < 6; i++) {
		size_t off = i < 4 ? lb_sample_stack(&b, 0, 3, ib[0], 1, NULL, 0, ib, 2) :
				     lb_sample_stack(&b, 1, 3, kx[0], 0, kx, 2, ur, 1);

		lb_header(&b, off)->pmcid = 2;
		lb_header(&b, off + lb_header(&b, off)->length)->pmcid = 2;
	}
	lb_closelog(&b, 41, 0, 0);
	return 0;
}

static void paths_log(char **paths, int n)
{
	const __u64 base = 0x10000000, span = 0x1000000;

	lb_initialize(&b);
	lb_pmcallocate(&b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		       1000, "cpu-clock");
	lb_procexec(&b, 3, paths[0]);
	for (int i = 0; i < n; i++) {
		__u64 at = base + (__u64)i * span;
		const __u64 stack[] = { at + 0x110, at + 0x220 };

		lb_map_in(&b, 3, at, at + 0x100000, 0, 0, paths[i]);
		for (int k = 0; k < 3; k++)
			lb_sample_stack(&b, 0, 3, stack[0], 1, NULL, 0, stack, 2);
	}
	lb_closelog(&b, (__u64)n * 3, 0, 0);
}

int main(int argc, char **argv)
{
	const char *kind = argc == 3 || (argc == 4 && !strcmp(argv[1], "stacks")) ||
			   (argc >= 4 && !strcmp(argv[1], "paths")) ? argv[1] : "";
	const void *data = b.data;
	size_t len, closelog;
	FILE *f;

	if (!strcmp(kind, "full")) {
		lb_full_log(&b);
		len = b.len;
	} else if (!strcmp(kind, "noclose")) {
		len = full_but_closelog();
	} else if (!strcmp(kind, "cut")) {
		closelog = full_but_closelog();
		len = closelog + 20;
	} else if (!strcmp(kind, "corrupt")) {
		lb_full_log(&b);
		len = b.len;
		/* INITIALIZE, PMCALLOCATE, then the kernel's MAP_IN. */
		lb_header(&b, lb_header(&b, 0)->length +
			  lb_header(&b, lb_header(&b, 0)->length)->length)->magic = 0;
	} else if (!strcmp(kind, "notalog")) {
		lb_pcsample(&b, 0, 42, 42, 0x400123, 1);
		lb_closelog(&b, 1, 0, 0);
		len = b.len;
	} else if (!strcmp(kind, "text")) {
		data = "this is a text file, not a pmclog log\n";
		len = strlen(data);
	} else if (!strcmp(kind, "empty")) {
		len = 0;
	} else if (!strcmp(kind, "stacks")) {
		int ret = stacks_log(argv[3]);

		if (ret)
			return ret;
		len = b.len;
	} else if (!strcmp(kind, "paths")) {
		paths_log(argv + 3, argc - 3);
		len = b.len;
	} else {
		fprintf(stderr, "usage: mklog full|noclose|cut|corrupt|notalog|text|empty FILE\n"
				"       mklog stacks FILE PROG\n"
				"       mklog paths FILE PATH...\n");
		return 64;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(argv[2]);
		return 73;
	}
	return 0;
}
