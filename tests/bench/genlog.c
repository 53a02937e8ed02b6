// SPDX-License-Identifier: GPL-2.0
/*
 * genlog [-n SAMPLES] [-F HZ] [-c CPUS] OUT EXE LIB: write a pmclog log
 * shaped as a long system-wide recording is, for the benchmark of
 * `pmclog report` (tests/bench/run.sh):
 *
 *   INITIALIZE, PMCALLOCATE (cpu-clock, HZ), START's maps: the kernel
 *   image, EXE and LIB (two real ELF files, mapped by their executable
 *   PT_LOAD, so that the report resolves their symbols) of one process;
 *   then SAMPLES samples, HZ per CPU on CPUS CPUs, written as the module
 *   drains them: a tick's worth (4 ms) per CPU at a time, the CPUs one
 *   after the other, so the stream is out of order by up to a tick
 *   across CPUs; 70% user (EXE, LIB), 30% kernel, on 4096 hot addresses
 *   per object; every second a child forks, execs EXE, maps LIB again
 *   at another address, samples there, unmaps it and exits; last, 2000
 *   of the recorder's KSYMBOLs over the kernel map (INITIALIZE's time,
 *   as pmclog record writes them) and CLOSELOG.
 *
 * Deterministic: a fixed generator, no clock, no randomness from outside.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pmclog.h>

#include "xorshift.h"

#define T0		1000000000ULL
#define TICK_NS		4000000ULL	/* HZ=250 */
#define KBASE		0xffffffff81000000ULL
#define KSIZE		0x1000000ULL
#define PID		1000
#define HOT		4096

struct text {
	const char *path;
	__u64 start, end, offset;	/* as mapped at base */
	__u64 hot[HOT];
};

static FILE *out;
static const char *out_path;
static __u64 nrecords;

static void put(void *rec, unsigned int type, size_t len, __u16 cpu,
		__u8 flags, __u64 ts)
{
	struct pmclog_header *h = rec;

	h->magic = PMCLOG_HEADER_MAGIC;
	h->type = (__u8)type;
	h->length = (__u16)len;
	h->cpu = cpu;
	h->flags = flags;
	h->pmcid = type == PMCLOG_TYPE_PCSAMPLE || type == PMCLOG_TYPE_PMCALLOCATE;
	h->tstamp = ts;
	if (fwrite(rec, len, 1, out) != 1) {
		fprintf(stderr, "genlog: %s: %s\n", out_path, strerror(errno));
		exit(1);
	}
	nrecords++;
}

/* A record with a string at its end, padded: MAP_IN, PROCEXEC, KSYMBOL. */
static void put_str(void *rec, size_t size, const char *s, unsigned int type,
		    __u16 cpu, __u8 flags, __u64 ts)
{
	_Alignas(8) unsigned char buf[PMCLOG_RECORD_MAX];
	size_t len = PMCLOG_RECORD_LEN(size + strlen(s) + 1);

	memset(buf, 0, len);
	memcpy(buf, rec, size);
	memcpy(buf + size, s, strlen(s));
	put(buf, type, len, cpu, flags, ts);
}

static void map_in(__u32 pid, __u64 start, __u64 end, __u64 offset, __u32 flags,
		   const char *path, __u64 ts)
{
	struct pmclog_map_in m = {
		.pid = pid, .flags = flags, .start = start, .end = end, .offset = offset,
	};

	put_str(&m, sizeof(m), path, PMCLOG_TYPE_MAP_IN, 0, 0, ts);
}

static void sample(__u16 cpu, __u32 pid, __u64 pc, int user, __u64 ts)
{
	struct pmclog_pcsample s = { .pid = pid, .tid = pid, .pc = pc };

	put(&s, PMCLOG_TYPE_PCSAMPLE, sizeof(s), cpu, user ? PMCLOG_HF_USER : 0, ts);
}

/* The first executable PT_LOAD of the ELF file at path, mapped at base. */
static void load_text(struct text *t, const char *path, __u64 base)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "genlog: %s: not a readable ELF64 file\n", path);
		exit(1);
	}
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		t->path = path;
		t->start = base + (ph.p_vaddr & ~0xfffULL);
		t->end = base + ((ph.p_vaddr + ph.p_filesz + 0xfff) & ~0xfffULL);
		t->offset = ph.p_offset & ~0xfffULL;
		for (int k = 0; k < HOT; k++)
			t->hot[k] = base + ph.p_vaddr + next_rand() % ph.p_filesz;
		close(fd);
		return;
	}
	fprintf(stderr, "genlog: %s: no executable segment\n", path);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: genlog [-n SAMPLES] [-F HZ] [-c CPUS] OUT EXE LIB\n");
	exit(64);
}

static unsigned long long number(const char *s, unsigned long long lo,
				 unsigned long long hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "genlog: '%s': not a number in %llu..%llu\n", s, lo, hi);
		exit(64);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long nsamples = 10000000, hz = 20000, ncpus = 2, done = 0;
	static struct text exe, lib, lib2, kern;
	__u64 period, tick_start, next_child = T0 + 1000000000ULL;
	int opt;

	while ((opt = getopt(argc, argv, "n:F:c:")) != -1) {
		switch (opt) {
		case 'n': nsamples = number(optarg, 1, 1ULL << 40); break;
		case 'F': hz = number(optarg, 1, 1000000); break;
		case 'c': ncpus = number(optarg, 1, 4096); break;
		default: usage();
		}
	}
	if (argc - optind != 3)
		usage();
	out_path = argv[optind];
	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "genlog: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	load_text(&exe, argv[optind + 1], 0x555555554000ULL);
	load_text(&lib, argv[optind + 2], 0x7f0000000000ULL);
	load_text(&lib2, argv[optind + 2], 0x7f1000000000ULL);
	kern.path = "[kernel]";
	kern.start = KBASE;
	kern.end = KBASE + KSIZE;
	for (int k = 0; k < HOT; k++)
		kern.hot[k] = KBASE + next_rand() % KSIZE;
	period = 1000000000ULL / hz;

	{
		struct pmclog_initialize in = {
			.abi_version = PMCLOG_ABI_CURRENT, .ncpus = (__u32)ncpus,
			.clock = PMCLOG_CLOCK_MONOTONIC, .pmu = PMCLOG_PMU_NONE,
			.realtime_ns = 1700000000000000000ULL, .cpu_id = "GenuineIntel",
		};
		struct pmclog_pmcallocate pa = {
			.event = PMCLOG_EV_CPU_CLOCK, .flags = PMCLOG_PMC_F_FREQ,
			.period = hz, .name = "cpu-clock",
		};

		put(&in, PMCLOG_TYPE_INITIALIZE, sizeof(in), 0, 0, T0);
		put(&pa, PMCLOG_TYPE_PMCALLOCATE, sizeof(pa), 0, 0, T0);
	}
	map_in(PMCLOG_PID_KERNEL, kern.start, kern.end, KBASE, PMCLOG_MAP_F_INITIAL,
	       "[kernel]", T0 + 1000);
	map_in(PID, exe.start, exe.end, exe.offset, PMCLOG_MAP_F_INITIAL, exe.path, T0 + 1000);
	map_in(PID, lib.start, lib.end, lib.offset, PMCLOG_MAP_F_INITIAL, lib.path, T0 + 1000);

	for (tick_start = T0 + 2000; done < nsamples; tick_start += TICK_NS) {
		__u32 child = 0;

		/* A child's life in this tick, its records at their times. */
		if (tick_start >= next_child) {
			struct pmclog_procfork f = { .ppid = PID, .pid = PID + 1 };
			struct pmclog_procexec e = { .pid = PID + 1 };
			struct pmclog_procexit x = { .pid = PID + 1 };
			struct pmclog_map_out mo = {
				.pid = PID + 1, .start = lib2.start, .end = lib2.end,
			};

			child = PID + 1;
			put(&f, PMCLOG_TYPE_PROCFORK, sizeof(f), 0, 0, tick_start + 1);
			put_str(&e, sizeof(e), exe.path, PMCLOG_TYPE_PROCEXEC, 0, 0,
				tick_start + 2);
			map_in(child, exe.start, exe.end, exe.offset, 0, exe.path, tick_start + 3);
			map_in(child, lib2.start, lib2.end, lib2.offset, 0, lib2.path,
			       tick_start + 4);
			/* Its samples come later, with the tick's drain. */
			put(&mo, PMCLOG_TYPE_MAP_OUT, sizeof(mo), 0, 0, tick_start + TICK_NS - 2);
			put(&x, PMCLOG_TYPE_PROCEXIT, sizeof(x), 0, 0, tick_start + TICK_NS - 1);
			next_child += 1000000000ULL;
		}
		for (unsigned long long cpu = 0; cpu < ncpus && done < nsamples; cpu++) {
			for (__u64 t = tick_start + cpu * 1000; t < tick_start + TICK_NS &&
			     done < nsamples; t += period, done++) {
				__u64 r = next_rand();
				const struct text *o;
				__u32 pid = PID;

				if (r % 10 < 3) {
					sample((__u16)cpu, pid, kern.hot[(r >> 8) % HOT], 0, t);
					continue;
				}
				o = r % 10 < 6 ? &exe : &lib;
				if (child && cpu == 1 && t < tick_start + TICK_NS - 2) {
					pid = child;
					o = r % 2 ? &exe : &lib2;
				}
				sample((__u16)cpu, pid, o->hot[(r >> 8) % HOT], 1, t);
			}
		}
	}
	/* The recorder's KSYMBOLs: /proc/kallsyms at START, written last. */
	for (int k = 0; k < 2000; k++) {
		struct pmclog_ksymbol ks = {
			.pid = PMCLOG_PID_KERNEL, .start = KBASE + (__u64)k * (KSIZE / 2000),
			.size = KSIZE / 2000,
		};
		char name[32];

		snprintf(name, sizeof(name), "kfunc_%04d", k);
		put_str(&ks, sizeof(ks), name, PMCLOG_TYPE_KSYMBOL, 0, PMCLOG_HF_SYNTH, T0);
	}
	{
		struct pmclog_closelog c = { .samples = done };

		put(&c, PMCLOG_TYPE_CLOSELOG, sizeof(c), 0, 0, tick_start);
	}
	if (fclose(out)) {
		fprintf(stderr, "genlog: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	printf("genlog: %s: %llu samples, %llu records\n", out_path, done,
	       (unsigned long long)nrecords);
	return 0;
}
