// SPDX-License-Identifier: GPL-2.0
/*
 * Write the seed inputs of the fuzz targets (tests/unit/log_builder.h
 * logs, and the ELF files the Makefile built) into a directory:
 *
 *   gen_seeds reader DIR        logs behind fuzz_reader's chunk-size byte
 *   gen_seeds replay DIR        logs whose maps fork, exec, split, reorder
 *   gen_seeds report ROOT DIR   logs sampling the functions of ROOT's files,
 *                               behind fuzz_report's option bytes
 *   gen_seeds elf DIR ROLE:FILE...  FILE behind fuzz_elf's role byte, whole
 *                               and truncated; for roles 5, 6 and 7
 *                               compressed (gzip, xz, zstd), also as two
 *                               members, streams or frames
 *   gen_seeds srcline DIR OPTS:FILE...  FILE behind fuzz_srcline's option
 *                               byte, whole and truncated
 *   gen_seeds archive DIR FILE...  fuzz_archive's: FILE (an ELF file),
 *                               and a copy without section headers, for
 *                               its build-id; build-id paths; relative
 *                               paths below a root where things are
 *                               planted
 *   gen_seeds debug DIR OPTS:OBJECT:DEBUG...  the pair behind fuzz_debug's
 *                               option byte and the object's length;
 *                               again with the debug file cut short (its
 *                               CRC-32 patched in: bit 2)
 *   gen_seeds bpf_maps DIR      /proc/PID/maps texts and BPF ring events
 *                               behind fuzz_bpf_maps's mode byte
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "log_builder.h"
#include "pmclog_internal.h"
#include "pmclog_symtab.h"
#include "../bpf/pmclog_bpf_events.h"

static const char *outdir;

static void write_seed(const char *name, const void *pre, size_t prelen,
		       const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(pre, 1, prelen, f) != prelen ||
	    fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void write_log(const char *name, const struct logbuf *b)
{
	write_seed(name, "", 0, b->data, b->len);
}

static void at(struct logbuf *b, size_t off, __u64 ts)
{
	lb_header(b, off)->tstamp = ts;
}

/*
 * Stacks (-g): user and kernel samples with their CALLCHAINs, one cut
 * short (flags), one of a hidden kernel PC, one of another thread (not
 * its sample's), one after no sample.
 */
static void stack_log(struct logbuf *b)
{
	static const __u64 k[] = { 0xffffffff81000010ULL, 0xffffffff81000400ULL,
				   0xffffffff81000800ULL };
	static const __u64 u[] = { 0x401010, 0x401400, 0x401800, 0x7f0000001000ULL };
	size_t off;

	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		       1000, "cpu-clock");
	lb_map_in(b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff82000000ULL,
		  0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]");
	lb_ksymbol(b, 0xffffffff81000000ULL, 0x400, 0, "inner");
	lb_ksymbol(b, 0xffffffff81000400ULL, 0x400, 0, "outer");
	lb_procexec(b, 9, "/bin/prog");
	lb_map_in(b, 9, 0x400000, 0x402000, 0, 0, "/bin/prog");
	lb_map_in(b, 9, 0x7f0000000000ULL, 0x7f0000004000ULL, 0, 0, "/lib/libx.so");
	lb_sample_stack(b, 0, 9, u[0], 1, NULL, 0, u, 4);
	lb_sample_stack(b, 1, 9, k[0], 0, k, 3, u + 1, 3);
	off = lb_pcsample(b, 0, 9, 9, k[0], 0);
	lb_callchain(b, lb_header(b, off)->tstamp, 0, 9, 9, 0,
		     PMCLOG_CC_F_KERNEL_TRUNC | PMCLOG_CC_F_USER_FAULT, k, 2, u, 1);
	off = lb_pcsample(b, 1, 9, 9, 0, 0);
	lb_callchain(b, lb_header(b, off)->tstamp, 1, 9, 9, 0, PMCLOG_CC_F_KERNEL_HIDDEN,
		     NULL, 0, u + 2, 2);
	off = lb_pcsample(b, 0, 9, 9, u[1], 1);
	lb_callchain(b, lb_header(b, off)->tstamp, 0, 9, 10, 1, 0, NULL, 0, u + 1, 1);
	lb_callchain(b, 12345, 2, 9, 9, 1, PMCLOG_CC_F_USER_BADFRAME, NULL, 0, u, 2);
	lb_map_out(b, 9, 0x7f0000000000ULL, 0x7f0000004000ULL);
	lb_sample_stack(b, 0, 9, u[0], 1, NULL, 0, u, 4);
	lb_closelog(b, 6, 0, 0);
}

/* ------------------------------------------------------------------ */
/* reader                                                             */

static void reader_seeds(void)
{
	static struct logbuf full, future;
	unsigned char c;

	lb_full_log(&full);
	c = 255;
	write_seed("full-log", &c, 1, full.data, full.len);
	c = 6;
	write_seed("full-log-split7", &c, 1, full.data, full.len);
	lb_initialize(&future);
	lb_future(&future, 200);
	lb_pcsample(&future, 1, 2, 3, 0x400000, 1);
	lb_closelog(&future, 1, 0, 0);
	c = 255;
	write_seed("future-type", &c, 1, future.data, future.len);
	stack_log(&future);
	c = 3;
	write_seed("callchain", &c, 1, future.data, future.len);
	/* Samples to pack, and samples packed (ABI 1.7). */
	{
		static const __u64 ts[] = { 2000000000, 2000100000, 2000099000, 2000300000 };
		static const __u64 pc[] = { 0x401000, 0x401010, 0xffffffff81000040ULL, 0x401000 };

		memset(&future, 0, sizeof(future));
		lb_initialize(&future);
		for (int i = 0; i < 6; i++)
			lb_pcsample(&future, 1, 42, 42 + i / 4, 0x401000 + 16 * i, 1);
		lb_pcsamples(&future, 1, 42, 42, 1, ts, pc, 4);
		lb_pcsample(&future, 1, 42, 42, 0x401000, 1);
		lb_closelog(&future, 11, 0, 0);
		c = 255;
		write_seed("pcsamples", &c, 1, future.data, future.len);
		c = 9;
		write_seed("pcsamples-split10", &c, 1, future.data, future.len);
		/* Two CPUs in turn, as the BPF collector's ring gives them. */
		memset(&future, 0, sizeof(future));
		lb_initialize(&future);
		for (int i = 0; i < 12; i++) {
			lb_pcsample(&future, i % 2, 42 + i % 2, 42 + i % 2, 0x401000 + 16 * i, 1);
			if (i == 6)
				lb_callchain(&future, LB_TS_BASE, 0, 42, 42, 1, 0, NULL, 0, pc, 2);
		}
		lb_closelog(&future, 12, 0, 0);
		c = 255;
		write_seed("pcsamples-cpus", &c, 1, future.data, future.len);
	}
	/* Compressed as pmclog record saves logs: whole, and fed in pieces. */
	{
		static unsigned char z[sizeof(full.data) + 1024];
		size_t n = ZSTD_compress(z, sizeof(z), full.data, full.len, 1);

		if (ZSTD_isError(n)) {
			fprintf(stderr, "gen_seeds: zstd: %s\n", ZSTD_getErrorName(n));
			exit(1);
		}
		c = 255;
		write_seed("full-log-zstd", &c, 1, z, n);
		c = 4;
		write_seed("full-log-zstd-split5", &c, 1, z, n);
	}
}

/* ------------------------------------------------------------------ */
/* replay                                                             */

static void replay_seeds(void)
{
	static struct logbuf b;

	lb_full_log(&b);
	write_log("full-log", &b);

	/* fork copies, exec empties, a late sample sorts before the exit */
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	at(&b, lb_map_in(&b, 5, 0x400000, 0x403000, 0, PMCLOG_MAP_F_INITIAL, "/bin/sh"), 10);
	at(&b, lb_procfork(&b, 5, 6), 20);
	at(&b, lb_pcsample(&b, 0, 6, 6, 0x400100, 1), 25);
	at(&b, lb_procexec(&b, 6, "/bin/busy"), 30);
	at(&b, lb_pcsample(&b, 0, 6, 6, 0x400100, 1), 31);
	at(&b, lb_map_in(&b, 6, 0x400000, 0x402000, 0, 0, "/bin/busy"), 32);
	at(&b, lb_map_in(&b, 6, 0x7f0000000000, 0x7f0000004000, 0x1000, 0, "/lib/libc.so.6"), 33);
	at(&b, lb_map_in(&b, 6, 0x7fff0000, 0x7fff2000, 0, PMCLOG_MAP_F_ANON, "[vdso]"), 33);
	at(&b, lb_pcsample(&b, 0, 6, 6, 0x7f0000001234, 1), 40);
	at(&b, lb_procexit(&b, 6, 0), 50);
	at(&b, lb_pcsample(&b, 1, 6, 6, 0x401100, 1), 49);
	at(&b, lb_pcsample(&b, 1, 5, 5, 0x400100, 1), 60);
	at(&b, lb_dropnotify(&b, 1, 3, 0), 61);
	lb_closelog(&b, 5, 3, 0);
	write_log("fork-exec-exit", &b);

	/* munmap of the middle splits; MAP_IN over a part replaces it */
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, 7, 0x10000, 0x20000, 0x3000, 0, "/lib/a.so");
	lb_pcsample(&b, 0, 7, 7, 0x18000, 1);
	lb_map_out(&b, 7, 0x14000, 0x16000);
	lb_pcsample(&b, 0, 7, 7, 0x15000, 1);
	lb_pcsample(&b, 0, 7, 7, 0x17000, 1);
	lb_map_in(&b, 7, 0x1f000, 0x22000, 0, 0, "/lib/b.so");
	lb_pcsample(&b, 0, 7, 7, 0x1f800, 1);
	lb_map_out(&b, 7, 0x0, 0x11000);
	lb_pcsample(&b, 0, 7, 7, 0x11800, 1);
	lb_map_out(&b, 7, 0x30000, 0x20000);	/* end <= start: ignored */
	lb_closelog(&b, 5, 0, 0);
	write_log("split-replace", &b);

	/* more processes than the pid table starts with */
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_map_in(&b, 1, 0x400000, 0x401000, 0, 0, "/sbin/init");
	for (__u32 pid = 2; pid < 80; pid++) {
		lb_procfork(&b, pid / 2, pid);
		if (pid % 8 == 0)
			lb_pcsample(&b, 0, pid, pid, 0x400010 + pid, 1);
	}
	lb_closelog(&b, 9, 0, 0);
	write_log("many-pids", &b);

	/* the recorder's KSYMBOLs wait for [kernel]; a module loaded twice */
	memset(&b, 0, sizeof(b));
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_ksymbol(&b, 0xffffffff91000000ULL, 0x100, 1, "_stext"), 1);
	at(&b, lb_ksymbol(&b, 0xffffffff91000100ULL, 0, 1, "do_work"), 1);
	at(&b, lb_ksymbol(&b, 0xffffffffa0000000ULL, 0x10, 1, "nowhere"), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 0xffffffff92000000ULL,
			 0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]"), 5);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0xffffffff91000180ULL, 0), 6);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0, 0), 7);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "testmod"), 10);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0100000ULL, 0xffffffffc0101000ULL,
			 0, PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INIT, "testmod"), 10);
	at(&b, lb_ksymbol(&b, 0xffffffffc0001040ULL, 0x40, 0, "testmod_busy"), 10);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc0001050ULL, 0), 11);
	at(&b, lb_map_out(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL), 12);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0009000ULL, 0xffffffffc000a000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "testmod"), 20);
	at(&b, lb_ksymbol(&b, 0xffffffffc0009040ULL, 0x40, 0, "testmod_busy"), 20);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc0009060ULL, 0), 21);
	at(&b, lb_closelog(&b, 4, 0, 0), 30);
	write_log("kernel", &b);

	/*
	 * Build-ids: the recorder's for [kernel] waits for START's MAP_IN; a
	 * module rebuilt and reloaded at the same address, each build with
	 * its own symbol there; a library; one of no map.
	 */
	memset(&b, 0, sizeof(b));
	at(&b, lb_initialize(&b), 1);
	at(&b, lb_ksymbol(&b, 0xffffffff91000000ULL, 0x100, 1, "_stext"), 1);
	at(&b, lb_buildid(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 20, 1), 1);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 0xffffffff92000000ULL,
			 0xffffffff81000000ULL, PMCLOG_MAP_F_INITIAL, "[kernel]"), 5);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0xffffffff91000080ULL, 0), 6);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "testmod"), 10);
	at(&b, lb_buildid(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 20, 0), 10);
	at(&b, lb_ksymbol(&b, 0xffffffffc0001040ULL, 0x40, 0, "testmod_busy"), 10);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc0001050ULL, 0), 11);
	at(&b, lb_map_out(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL), 12);
	at(&b, lb_map_in(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 0xffffffffc0002000ULL,
			 0, PMCLOG_MAP_F_KMODULE, "testmod"), 20);
	at(&b, lb_buildid(&b, PMCLOG_PID_KERNEL, 0xffffffffc0001000ULL, 8, 0), 20);
	at(&b, lb_ksymbol(&b, 0xffffffffc0001040ULL, 0x40, 0, "testmod_spin"), 20);
	at(&b, lb_pcsample(&b, 1, 9, 9, 0xffffffffc0001050ULL, 0), 21);
	at(&b, lb_map_in(&b, 9, 0x7f0000000000ULL, 0x7f0000004000ULL, 0x1000, 0,
			 "/lib/libc.so.6"), 22);
	at(&b, lb_buildid(&b, 9, 0x7f0000000000ULL, 20, 0), 22);
	at(&b, lb_pcsample(&b, 0, 9, 9, 0x7f0000001234ULL, 1), 23);
	at(&b, lb_buildid(&b, 9, 0x7f0000100000ULL, 20, 0), 24);
	at(&b, lb_closelog(&b, 4, 0, 0), 30);
	write_log("buildid", &b);

	stack_log(&b);
	write_log("callchain", &b);
}

/* ------------------------------------------------------------------ */
/* report                                                             */

#define PROG_PID	10
#define PIE_PID		11
#define PIE_BASE	0x555555554000ULL
#define LIB_BASE	0x7f0000000000ULL
#define KERNEL_START	0xffffffff81000000ULL
#define MOD_START	0xffffffffc0001000ULL
#define MOD_INIT_START	0xffffffffc0100000ULL

static struct pmclog_elf *load(struct pmclog_strings *st, const char *root,
			       const char *file)
{
	char path[4096], err[512];
	struct pmclog_elf *e = NULL;

	snprintf(path, sizeof(path), "%s%s", root, file);
	if (pmclog_elf__load(path, st, &e, err, sizeof(err))) {
		fprintf(stderr, "gen_seeds: %s\n", err);
		exit(1);
	}
	return e;
}

/* MAP_IN of each PT_LOAD segment at base, as the kernel's mmap does. */
static void map_object(struct logbuf *b, __u32 pid, const struct pmclog_elf *e,
		       __u64 base, const char *path)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct pmclog_elf_segment *s = &e->segs[i];
		__u64 start = base + (s->vaddr & ~0xfffULL);
		__u64 end = (base + s->vaddr + s->filesz + 0xfff) & ~0xfffULL;

		lb_map_in(b, pid, start, end, s->offset & ~0xfffULL, 0, path);
	}
}

/*
 * Stacks through the functions of user (and of kern, below them): each
 * function the leaf of one, its successors its callers.
 */
static void stack_samples(struct logbuf *b, __u32 pid, const struct pmclog_symtab *user,
			  __u64 udelta, const struct pmclog_symtab *kern, __u64 kdelta)
{
	size_t nu = pmclog_symtab__count(user), nk = pmclog_symtab__count(kern);
	__u64 u[4], k[3];

	for (size_t i = 0; i < nu && i < 8; i++) {
		for (size_t j = 0; j < 4; j++)
			u[j] = pmclog_symtab__at(user, (i + j) % nu)->addr + udelta + (j ? 5 : 1);
		lb_sample_stack(b, (__u16)(i % 4), pid, u[0], 1, NULL, 0, u, 4);
		if (nk < 3)
			continue;
		for (size_t j = 0; j < 3; j++)
			k[j] = pmclog_symtab__at(kern, (i + j) % nk)->addr + kdelta + (j ? 5 : 1);
		lb_sample_stack(b, (__u16)(i % 4), pid, k[0], 0, k, 3, u + 1, 3);
	}
}

/* A sample at the start and in the middle of every function of t. */
static void sample_functions(struct logbuf *b, __u32 pid, const struct pmclog_symtab *t,
			     __u64 delta, int user)
{
	for (size_t i = 0; i < pmclog_symtab__count(t); i++) {
		const struct pmclog_sym *s = pmclog_symtab__at(t, i);

		lb_pcsample(b, i % 4, pid, pid, s->addr + delta, user);
		lb_pcsample(b, i % 4, pid, pid, s->addr + delta + s->size / 2, user);
	}
}

static __u64 lowest(const struct pmclog_symtab *t)
{
	return pmclog_symtab__count(t) ? pmclog_symtab__at(t, 0)->addr & ~0xfffULL : 0;
}

/*
 * The program, the PIE with the shared object (or its stripped copy), the
 * kernel and the module, each function sampled; with kernel KSYMBOLs when
 * ksyms.
 */
static void report_log(struct logbuf *b, const char *root, bool stripped, bool ksyms)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *prog = load(st, root, "/bin/prog");
	struct pmclog_elf *pie = load(st, root, "/bin/pie");
	const char *lib_path = stripped ? "/lib/libseed-stripped.so" : "/lib/libseed.so";
	struct pmclog_elf *lib = load(st, root, lib_path);
	struct pmclog_elf *vmlinux = load(st, root, "/kernel/vmlinux");
	struct pmclog_elf *mod = load(st, root, "/kernel/extra/seedmod.ko");
	__u64 kbase = lowest(vmlinux->text);

	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ, 997, "cpu-clock");
	if (ksyms) {
		for (size_t i = 0; i < pmclog_symtab__count(vmlinux->text); i++) {
			const struct pmclog_sym *s = pmclog_symtab__at(vmlinux->text, i);

			lb_ksymbol(b, s->addr - kbase + KERNEL_START, s->size, 1, s->name);
		}
	}
	lb_map_in(b, PMCLOG_PID_KERNEL, KERNEL_START, KERNEL_START + 0x1000000, kbase,
		  PMCLOG_MAP_F_INITIAL, "[kernel]");
	lb_map_in(b, PMCLOG_PID_KERNEL, MOD_START, MOD_START + ((mod->text_size + 0xfff) & ~0xfffULL),
		  0, PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INITIAL, "seedmod");
	lb_map_in(b, PMCLOG_PID_KERNEL, MOD_INIT_START,
		  MOD_INIT_START + ((mod->init_size + 0xfff) & ~0xfffULL), 0,
		  PMCLOG_MAP_F_KMODULE | PMCLOG_MAP_F_INIT, "seedmod");
	lb_map_in(b, PMCLOG_PID_KERNEL, 0xffffffffc0200000ULL, 0xffffffffc0201000ULL, 0,
		  PMCLOG_MAP_F_KMODULE, "logmod");
	lb_ksymbol(b, 0xffffffffc0200100ULL, 0x80, 0, "logmod_fn");

	lb_procexec(b, PROG_PID, "/bin/prog");
	map_object(b, PROG_PID, prog, 0, "/bin/prog");
	lb_procexec(b, PIE_PID, "/bin/pie");
	map_object(b, PIE_PID, pie, PIE_BASE, "/bin/pie");
	map_object(b, PIE_PID, lib, LIB_BASE, lib_path);
	lb_map_in(b, PIE_PID, 0x7fff0000ULL, 0x7fff2000ULL, 0, PMCLOG_MAP_F_ANON, "[vdso]");

	sample_functions(b, PROG_PID, prog->text, 0, 1);
	sample_functions(b, PIE_PID, pie->text, PIE_BASE, 1);
	sample_functions(b, PIE_PID, lib->text, LIB_BASE, 1);
	sample_functions(b, PROG_PID, vmlinux->text, KERNEL_START - kbase, 0);
	sample_functions(b, PIE_PID, mod->text, MOD_START, 0);
	sample_functions(b, PIE_PID, mod->init, MOD_INIT_START, 0);
	stack_samples(b, PROG_PID, prog->text, 0, vmlinux->text, KERNEL_START - kbase);
	stack_samples(b, PIE_PID, lib->text, LIB_BASE, mod->text, MOD_START);
	lb_pcsample(b, 0, PIE_PID, PIE_PID, 0xffffffffc0200140ULL, 0);
	lb_pcsample(b, 0, PIE_PID, PIE_PID, 0x7fff0100ULL, 1);	/* [vdso] */
	lb_pcsample(b, 0, PIE_PID, PIE_PID, 0x1234, 1);		/* no map */
	lb_pcsample(b, 0, PIE_PID, PIE_PID, 0, 0);		/* hidden */
	lb_procfork(b, PROG_PID, 12);
	lb_pcsample(b, 1, 12, 12, pmclog_symtab__at(prog->text, 0)->addr, 1);
	lb_procexit(b, 12, 0);
	lb_dropnotify(b, 2, 4, 1);
	lb_closelog(b, 0, 4, 1);

	pmclog_elf__free(prog);
	pmclog_elf__free(pie);
	pmclog_elf__free(lib);
	pmclog_elf__free(vmlinux);
	pmclog_elf__free(mod);
	pmclog_strings__free(st);
}

/*
 * The kernel at the top of the address space, a second kernel object and
 * a program called kernel: what the gprof files' names and ranges must
 * survive.
 */
static void report_gmon_log(struct logbuf *b)
{
	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	lb_map_in(b, PMCLOG_PID_KERNEL, 0xffffffff81000000ULL, 0xffffffff81001000ULL,
		  0xfffffffffffff000ULL, 0, "[kernel]");
	lb_map_in(b, PMCLOG_PID_KERNEL, 0xffffffff91000000ULL, 0xffffffff91100000ULL,
		  0x400000, 0, "[kernel2]");
	lb_map_in(b, PROG_PID, 0x400000, 0x500000, 0, 0, "/kernel/vmlinux");
	lb_pcsample(b, 0, PROG_PID, PROG_PID, 0xffffffff81000000ULL, 0);
	lb_pcsample(b, 0, PROG_PID, PROG_PID, 0xffffffff81000fffULL, 0);
	lb_pcsample(b, 0, PROG_PID, PROG_PID, 0xffffffff91001010ULL, 0);
	lb_pcsample(b, 0, PROG_PID, PROG_PID, 0x401010, 1);
	lb_closelog(b, 4, 0, 0);
}

/*
 * Three PMCs, two of them cpu-clock at different periods, each sampling
 * the program's functions (a profile each), and a PMC no PMCALLOCATE
 * announced.
 */
static void report_events_log(struct logbuf *b, const char *root)
{
	struct pmclog_strings *st = pmclog_strings__new();
	struct pmclog_elf *prog = load(st, root, "/bin/prog");

	memset(b, 0, sizeof(*b));
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, 0, 1000000, "cpu-clock");
	lb_pmcallocate(b, 2, PMCLOG_EV_CPU_CLOCK, 0, 3000000, "cpu-clock");
	lb_pmcallocate(b, 3, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_FREQ, 4000, "cycles:u");
	lb_procexec(b, PROG_PID, "/bin/prog");
	map_object(b, PROG_PID, prog, 0, "/bin/prog");
	for (size_t i = 0; i < pmclog_symtab__count(prog->text); i++) {
		const struct pmclog_sym *s = pmclog_symtab__at(prog->text, i);

		for (__u8 pmc = 1; pmc <= 4; pmc++)
			lb_pcsample_pmc(b, pmc, (__u16)(i % 4), PROG_PID, PROG_PID,
					s->addr + pmc, 1);
	}
	lb_throttle(b, PMCLOG_TYPE_THROTTLE, 1, 3, PMCLOG_THROTTLE_RATE, 1, 0);
	lb_closelog(b, 0, 0, 0);
	pmclog_elf__free(prog);
	pmclog_strings__free(st);
}

static void report_seeds(const char *root)
{
	/* See fuzz_report.c for what the bytes mean. */
	static const unsigned char opts[][4] = {
		{ 0x88, 0x01, 0, 0 },		/* dso,sym demangled, -g, -k /kernel */
		{ 0x14, 0x02, 0, 0 },		/* pid,dso,sym, full paths, -k vmlinux */
		{ 0x63, 0x07, 10, 255 },	/* pid, --time, --pid, -k System.map, ROOT/ */
		{ 0x05, 0x00, 0, 0 },		/* sym,dso,pid, no -k */
	};
	static struct logbuf b;
	char name[64];

	/* -g, then --event 2, then --event cpu-clock (two PMCs' name). */
	static const unsigned char event_opts[][4] = {
		{ 0x80, 0x00, 0, 0 }, { 0x00, 0x08, 2, 0 }, { 0x04, 0x18, 0, 0 },
	};

	report_gmon_log(&b);
	write_seed("gmon", opts[0], sizeof(opts[0]), b.data, b.len);
	report_events_log(&b, root);
	for (size_t i = 0; i < sizeof(event_opts) / sizeof(event_opts[0]); i++) {
		snprintf(name, sizeof(name), "events-%zu", i);
		write_seed(name, event_opts[i], sizeof(event_opts[i]), b.data, b.len);
	}
	for (int v = 0; v < 3; v++) {
		report_log(&b, root, v == 1, v == 2);
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
			snprintf(name, sizeof(name), "%s-%zu",
				 v == 0 ? "files" : v == 1 ? "stripped" : "ksymbols", i);
			write_seed(name, opts[i], sizeof(opts[i]), b.data, b.len);
		}
	}
}

/* ------------------------------------------------------------------ */
/* elf                                                                */

/* fuzz_elf's roles of compressed modules. */
enum { ELF_ROLE_GZ = 5, ELF_ROLE_XZ, ELF_ROLE_ZST };

static void compress_fail(const char *what)
{
	fprintf(stderr, "gen_seeds: %s failed\n", what);
	exit(1);
}

/*
 * in as a gzip member, an xz stream or a zstd frame at out; the last two
 * with their check (CRC-64, XXH64) when check, whose mutations a decoder
 * then refuses before the module is read.
 */
static size_t compress_one(int role, const void *in, size_t len, unsigned char *out, size_t cap,
			   bool check)
{
	size_t n = 0;

	if (role == ELF_ROLE_GZ) {
		z_stream z = { 0 };

		if (deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			compress_fail("deflateInit2");
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)len;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			compress_fail("deflate");
		n = z.total_out;
		deflateEnd(&z);
	} else if (role == ELF_ROLE_XZ) {
		if (lzma_easy_buffer_encode(6, check ? LZMA_CHECK_CRC64 : LZMA_CHECK_NONE, NULL,
					    in, len, out, &n, cap) != LZMA_OK)
			compress_fail("lzma_easy_buffer_encode");
	} else {
		ZSTD_CCtx *c = ZSTD_createCCtx();

		if (!c || ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, check)))
			compress_fail("ZSTD_createCCtx");
		n = ZSTD_compress2(c, out, cap, in, len);
		if (ZSTD_isError(n))
			compress_fail("ZSTD_compress2");
		ZSTD_freeCCtx(c);
	}
	return n;
}

/*
 * buf (len bytes) compressed as role's module is, into *out: one member,
 * stream or frame; or two, each of one half, when halves.
 */
static size_t compress_seed(int role, const void *buf, size_t len, bool halves, bool check,
			    void **out)
{
	size_t cap = 2 * len + 1024, half = halves ? len / 2 : len, n;
	unsigned char *o = malloc(cap);

	if (!o)
		compress_fail("malloc");
	n = compress_one(role, buf, half, o, cap, check);
	if (halves)
		n += compress_one(role, (const char *)buf + half, len - half, o + n, cap - n, check);
	*out = o;
	return n;
}

/* compress: roles ELF_ROLE_GZ to ELF_ROLE_ZST are compressed modules (fuzz_elf's). */
static void elf_seeds(int argc, char **argv, bool compress)
{
	for (int i = 0; i < argc; i++) {
		const char *file = strchr(argv[i], ':'), *base;
		unsigned char role = (unsigned char)atoi(argv[i]);
		void *buf;
		size_t len;
		char name[64];
		int ret;

		if (!file) {
			fprintf(stderr, "gen_seeds: %s: expected ROLE:FILE\n", argv[i]);
			exit(2);
		}
		ret = pmclog_read_file(AT_FDCWD, ++file, 0, &buf, &len, NULL);
		if (ret) {
			fprintf(stderr, "gen_seeds: %s: %s\n", file, strerror(-ret));
			exit(1);
		}
		base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		if (compress && role >= ELF_ROLE_GZ && role <= ELF_ROLE_ZST) {
			void *z;
			size_t zlen;

			/* Two members, streams or frames; xz and zstd without their check. */
			zlen = compress_seed(role, buf, len, true, true, &z);
			snprintf(name, sizeof(name), "%d-%s-two", role, base);
			write_seed(name, &role, 1, z, zlen);
			free(z);
			if (role != ELF_ROLE_GZ) {
				zlen = compress_seed(role, buf, len, false, false, &z);
				snprintf(name, sizeof(name), "%d-%s-nocheck", role, base);
				write_seed(name, &role, 1, z, zlen);
				free(z);
			}
			zlen = compress_seed(role, buf, len, false, true, &z);
			free(buf);
			buf = z;
			len = zlen;
		}
		snprintf(name, sizeof(name), "%d-%s", role, base);
		write_seed(name, &role, 1, buf, len);
		/* Cut short: the header only, a third, two thirds. */
		for (int k = 0; k < 3; k++) {
			size_t cut = k ? len * (size_t)k / 3 : 64;

			snprintf(name, sizeof(name), "%d-%s-cut%zu", role, base, cut);
			if (cut < len)
				write_seed(name, &role, 1, buf, cut);
		}
		free(buf);
	}
}

/* ------------------------------------------------------------------ */
/* bpf_maps                                                           */

#define MAPS_PAD	"                         "

/*
 * A line of 5000 bytes whose path has newlines ("\012") and, 4223 bytes
 * in, a directory named like a line of maps; then a line cut short.
 */
static size_t maps_forged(char *text)
{
	size_t len = sprintf(text, "7f0000000000-7f0000002000 r-xp 00001000 fe:01 1234" MAPS_PAD
			     "/home/user/");

	while (len < 4222)
		len += sprintf(text + len, "%s", 4222 - len >= 4 ? "\\012" : "x");
	len += sprintf(text + len, "/1000-2000 r-xp 00000000 00:00 0 /etc/shadow");
	for (; len < 4999; len++)
		text[len] = len % 200 ? 'y' : '/';
	text[len++] = '\n';
	len += sprintf(text + len, "7f0000200000-7f0000201000 r-xp 00000000 fe:01 8 /usr/lib/cut");
	return len;
}

static void bpf_event_seed(const char *name, unsigned char mode, __u32 pid, __u32 flags,
			   int ncomp, const char *const *comps)
{
	static struct pmclog_bpf_map_in e;

	memset(&e, 0, sizeof(e));
	e.header.magic = PMCLOG_HEADER_MAGIC;
	e.header.type = mode & 2 ? PMCLOG_BPF_EV_EXEC : PMCLOG_BPF_EV_MAP_IN;
	e.header.cpu = 1;
	e.header.tstamp = 1000;
	e.pid = pid;
	e.flags = flags;
	e.start = mode & 2 ? 0 : 0x7f0000001000ULL;
	e.end = mode & 2 ? 0 : 0x7f0000003000ULL;
	e.offset = mode & 2 ? 0 : 0x1000;
	for (int i = 0; i < ncomp; i++) {
		size_t l = strlen(comps[i]) + 1;

		memcpy(e.names + e.nbytes, comps[i], l);
		e.nbytes += l;
	}
	e.ncomp = ncomp;
	write_seed(name, &mode, 1, &e, offsetof(struct pmclog_bpf_map_in, names) + e.nbytes);
}

static void bpf_maps_seeds(void)
{
	static const char proc[] =
		"55c5bda72000-55c5bda74000 r--p 00000000 fe:00 247134" MAPS_PAD "/usr/bin/cat\n"
		"55c5bda74000-55c5bda79000 r-xp 00002000 fe:00 247134" MAPS_PAD "/usr/bin/cat\n"
		"55c5bf0b2000-55c5bf0d3000 rw-p 00000000 00:00 0" MAPS_PAD "      [heap]\n"
		"7f2a1c000000-7f2a1c021000 rwxp 00000000 00:00 0 \n"
		"7f2a1d828000-7f2a1d97d000 r-xp 00028000 fe:00 263318" MAPS_PAD
		"/usr/lib/x86_64-linux-gnu/libc.so.6\n"
		"7f2a1d990000-7f2a1d991000 r-xs 00000000 00:01 1043" MAPS_PAD "  /memfd:jit (deleted)\n"
		"7f2a1d9a0000-7f2a1d9a1000 r-xp 00000000 fe:00 99" MAPS_PAD "/tmp/old.so (deleted)\n"
		"7ffd2c1f0000-7ffd2c211000 rw-p 00000000 00:00 0" MAPS_PAD "      [stack]\n"
		"7ffd2c3e5000-7ffd2c3e7000 r-xp 00000000 00:00 0" MAPS_PAD "      [vdso]\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0" MAPS_PAD "[vsyscall]\n";
	static const char escaped[] =
		"7f0000001000-7f0000002000 r-xp 00000000 fe:00 12" MAPS_PAD "/tmp/a\\012b\\012\n"
		"7f0000003000-7f0000004000 r-xp 00000000 fe:00 13" MAPS_PAD "/tmp/\\\\012\\01\\134 x\n"
		"7f0000005000-7f0000006000 r-xp 00000000 fe:00 14" MAPS_PAD "/tmp/last";
	static const char *const lib[] = { "libc.so.6", "x86_64-linux-gnu", "lib" };
	static const char *const sh[] = { "sh", "bin" };
	static const char *const vdso[] = { "[vdso]" };
	static const char *const ext4[] = { "ext4" };
	static char text[8192], names[17][256];
	const char *deep[17];
	unsigned char zero = 0;

	write_seed("maps-proc", &zero, 1, proc, sizeof(proc) - 1);
	write_seed("maps-escaped", &zero, 1, escaped, sizeof(escaped) - 1);
	write_seed("maps-forged", &zero, 1, text, maps_forged(text));
	bpf_event_seed("map-in", 1, 42, 0, 3, lib);
	bpf_event_seed("map-in-root", 1, 42, 0, 0, NULL);
	bpf_event_seed("map-in-trunc", 1, 42, PMCLOG_BPF_PATH_TRUNC, 2, lib);
	bpf_event_seed("map-in-anon", 1, 42, PMCLOG_MAP_F_ANON, 1, vdso);
	bpf_event_seed("map-in-module", 1, PMCLOG_PID_KERNEL, PMCLOG_MAP_F_KMODULE, 1, ext4);
	bpf_event_seed("exec", 3, 42, 0, 2, sh);
	bpf_event_seed("exec-trunc", 3, 42, PMCLOG_BPF_PATH_TRUNC, 1, sh);
	/* names full: 17 names of 255 bytes */
	for (int i = 0; i < 17; i++) {
		memset(names[i], 'a' + i, 255);
		names[i][255] = '\0';
		deep[i] = names[i];
	}
	bpf_event_seed("map-in-deep", 1, 42, 0, 17, deep);
}

/* ------------------------------------------------------------------ */
/* debug                                                              */

static void *read_or_die(const char *file, size_t *len)
{
	void *buf;
	int ret = pmclog_read_file(AT_FDCWD, file, 0, &buf, len, NULL);

	if (ret) {
		fprintf(stderr, "gen_seeds: %s: %s\n", file, strerror(-ret));
		exit(1);
	}
	return buf;
}

static void debug_seeds(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *obj = strchr(argv[i], ':'), *dbg = obj ? strchr(obj + 1, ':') : NULL;
		unsigned char opts = (unsigned char)atoi(argv[i]), pre[3];
		size_t olen, dlen;
		void *o, *d;
		char name[192];
		const char *base, *dbase;

		if (!dbg) {
			fprintf(stderr, "gen_seeds: %s: expected OPTS:OBJECT:DEBUG\n", argv[i]);
			exit(2);
		}
		*dbg++ = '\0';
		o = read_or_die(++obj, &olen);
		d = read_or_die(dbg, &dlen);
		if (olen > 0xffff) {
			fprintf(stderr, "gen_seeds: %s: over 64 KiB\n", obj);
			exit(1);
		}
		/* The object, then the debug file: one input. */
		o = realloc(o, olen + dlen);
		if (!o) {
			perror("realloc");
			exit(1);
		}
		memcpy((char *)o + olen, d, dlen);
		base = strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
		dbase = strrchr(dbg, '/') ? strrchr(dbg, '/') + 1 : dbg;
		pre[0] = opts;
		pre[1] = (unsigned char)olen;
		pre[2] = (unsigned char)(olen >> 8);
		snprintf(name, sizeof(name), "%d-%s+%s", opts, base, dbase);
		write_seed(name, pre, sizeof(pre), o, olen + dlen);
		pre[0] = opts | 4;
		snprintf(name, sizeof(name), "%d-%s+%s-cut", pre[0], base, dbase);
		write_seed(name, pre, sizeof(pre), o, olen + dlen * 2 / 3);
		free(o);
		free(d);
	}
}

/* ------------------------------------------------------------------ */
/* archive                                                            */

static void archive_seeds(int argc, char **argv)
{
	static const char *const mkdirs[] = {
		"usr/lib/libc.so.6",
		"/usr/lib/x86_64-linux-gnu//libc.so.6",
		"D usr/lib\nusr/lib/libm.so.6",
		"L home\nhome/att/job",
		"D a\nL a/b\na/b/c/d",
		"F a/b\na/b/c",
		"W tmp\ntmp/x",
		"T tmp\ntmp/x/y",
		"G g\ng/x",
		"O var\nvar/x",
		"usr/../etc/x",
		"usr/./x",
		"usr/lib/",
		"..",
		".build-id/12/3456789abcdef0123456789abcdef01234567",
	};
	static const char dir[] = "/var/tmp/archive";
	unsigned char role, pre[4];
	char name[64];
	size_t len;
	void *buf;

	for (int i = 0; i < argc; i++) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];

		buf = read_or_die(argv[i], &len);
		role = 0;
		snprintf(name, sizeof(name), "0-%s", base);
		write_seed(name, &role, 1, buf, len);
		/* No section headers: the build-id from PT_NOTE. */
		if (len >= sizeof(Elf64_Ehdr)) {
			Elf64_Ehdr *eh = buf;

			eh->e_shoff = 0;
			eh->e_shnum = 0;
			eh->e_shstrndx = 0;
			snprintf(name, sizeof(name), "0-%s-noshdr", base);
			write_seed(name, &role, 1, buf, len);
		}
		free(buf);
	}
	/* n, len (fits; one short of its NUL), the id, DIR. */
	for (int k = 0; k < 4; k++) {
		static const unsigned char n[] = { 20, 1, 64, 20 };
		static unsigned char id[64];
		/* DIR/.build-id/NN/REST and its NUL (REST empty for one byte). */
		size_t fit = sizeof(dir) + 12 + 2 * (size_t)n[k];

		for (size_t j = 0; j < sizeof(id); j++)
			id[j] = (unsigned char)(0x11 * (j + 1) + j);
		len = k == 3 ? fit - 1 : fit;
		pre[0] = 1;
		pre[1] = (unsigned char)(n[k] - 1);
		pre[2] = (unsigned char)len;
		pre[3] = (unsigned char)(len >> 8);
		buf = malloc(n[k] + sizeof(dir) - 1);
		if (!buf) {
			perror("malloc");
			exit(1);
		}
		memcpy(buf, id, n[k]);
		memcpy((char *)buf + n[k], dir, sizeof(dir) - 1);
		snprintf(name, sizeof(name), "1-path-%d", k);
		write_seed(name, pre, sizeof(pre), buf, n[k] + sizeof(dir) - 1);
		free(buf);
	}
	/* Folders 0755 under umask 022; the first also 0777 under umask 0. */
	for (size_t k = 0; k < sizeof(mkdirs) / sizeof(mkdirs[0]); k++) {
		pre[0] = 2;
		pre[1] = 055;
		snprintf(name, sizeof(name), "2-mkdirs-%zu", k);
		write_seed(name, pre, 2, mkdirs[k], strlen(mkdirs[k]));
		if (!k) {
			pre[1] = 0x40 | 077;
			write_seed("2-mkdirs-open", pre, 2, mkdirs[k], strlen(mkdirs[k]));
		}
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "reader")) {
		outdir = argv[2];
		reader_seeds();
	} else if (argc >= 3 && !strcmp(argv[1], "replay")) {
		outdir = argv[2];
		replay_seeds();
	} else if (argc >= 4 && !strcmp(argv[1], "report")) {
		outdir = argv[3];
		report_seeds(argv[2]);
	} else if (argc >= 3 && !strcmp(argv[1], "elf")) {
		outdir = argv[2];
		elf_seeds(argc - 3, argv + 3, true);
	} else if (argc >= 3 && !strcmp(argv[1], "srcline")) {
		outdir = argv[2];
		elf_seeds(argc - 3, argv + 3, false);
	} else if (argc >= 3 && !strcmp(argv[1], "archive")) {
		outdir = argv[2];
		archive_seeds(argc - 3, argv + 3);
	} else if (argc >= 3 && !strcmp(argv[1], "debug")) {
		outdir = argv[2];
		debug_seeds(argc - 3, argv + 3);
	} else if (argc >= 3 && !strcmp(argv[1], "bpf_maps")) {
		outdir = argv[2];
		bpf_maps_seeds();
	} else {
		fprintf(stderr, "usage: gen_seeds reader|replay|bpf_maps DIR | report ROOT DIR | elf|srcline DIR OPTS:FILE... | debug DIR OPTS:OBJECT:DEBUG... | archive DIR FILE...\n");
		return 2;
	}
	return 0;
}
