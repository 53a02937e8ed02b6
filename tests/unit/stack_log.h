/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log of a real program that test_pprof and test_script share: ELF
 * files built here with frame pointers and DWARF (prog: main -> path_a
 * and path_b -> hot; libcg.so, C++), and a log of two events over them
 * with kernel, module and user frames, the library dlclosed and opened
 * again at the same address (program_log()).  Include after cmocka.h and
 * elf_fixture.h.
 */
#ifndef STACK_LOG_H
#define STACK_LOG_H

#include "log_builder.h"

static const char source[] =
	"__attribute__((noinline)) unsigned long hot(unsigned long n)\n"
	"{\n"
	"	volatile unsigned long x = 0;\n"
	"	for (unsigned long i = 0; i < n; i++)\n"
	"		x += i;\n"
	"	return x;\n"
	"}\n"
	"__attribute__((noinline)) unsigned long path_a(void) { return hot(200) + 1; }\n"
	"__attribute__((noinline)) unsigned long path_b(void) { return hot(100) + 1; }\n"
	"int main(void) { return (int)(path_a() + path_b()); }\n";

/* C++: its symbol is mangled, the report demangles it. */
static const char lib_source[] =
	"__attribute__((noinline)) int lib_fn(int x) { return x * 3 + 1; }\n";

/* The test group's setup: the ELF files, in dir (from tmpl). */
static inline int stack_log_setup(const char *tmpl)
{
	snprintf(dir, sizeof(dir), "%s", tmpl);
	if (!mkdtemp(dir))
		return -1;
	put("prog.c", source);
	put("lib.cc", lib_source);
	run("cd %s && cc -O0 -g -fno-omit-frame-pointer -fno-pie -no-pie -Wl,--build-id "
	    "-o prog prog.c", dir);
	run("cd %s && c++ -O0 -g -fno-omit-frame-pointer -fPIC -shared -Wl,--build-id "
	    "-o libcg.so lib.cc", dir);
	return 0;
}

/* file's GNU build-id, as readelf -n prints it, into id; its size. */
static inline __u8 build_id_of(const char *file, __u8 *id)
{
	char cmd[512], line[256];
	unsigned int v;
	__u8 n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n %s/%s | awk '/Build ID:/ { print $3 }'", dir, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	for (const char *s = line; n < PMCLOG_BUILD_ID_MAX && sscanf(s, "%2x", &v) == 1; s += 2)
		id[n++] = (__u8)v;
	assert_true(n >= 16);
	return n;
}

/* A BUILDID of the object pid maps at start: file's real one. */
static inline void buildid_of_file(struct logbuf *b, __u32 pid, __u64 start, const char *file)
{
	struct pmclog_buildid r = { .pid = pid, .start = start };

	r.size = build_id_of(file, r.build_id);
	lb_put(b, PMCLOG_TYPE_BUILDID, sizeof(r), &r, sizeof(r));
}

/* Every record of the sample at off (PCSAMPLE, CALLCHAIN) for PMC 2. */
static inline void pmc2(struct logbuf *b, size_t off)
{
	lb_header(b, off)->pmcid = 2;
	lb_header(b, off + lb_header(b, off)->length)->pmcid = 2;
}

#define KBASE	0xffffffff81000000ULL
#define MBASE	0xffffffffc0000000ULL
#define LIB	0x7f0000000000ULL
#define CYCLES_PERIOD	100000

/*
 * pid 3 runs prog (non-PIE at 0x400000, offset 0, its BUILDID) and maps
 * libcg.so at LIB.  cpu-clock at 1000 Hz (PMC 1): 20 hot <- path_a <-
 * main, 10 hot <- path_b <- main, 5 ksys_read <- do_syscall_64 <-
 * entry_SYSCALL_64 (kernel) over main, 3 busy_fn (module pm_test) <-
 * ksys_write over main, 4 lib_fn <- main, one sample in hot without a
 * stack.  Then libcg.so is unmapped (dlclose) and mapped again at LIB;
 * cycles every CYCLES_PERIOD (PMC 2): 6 hot <- path_a <- main, 2 lib_fn
 * <- main.
 */
static inline void program_log(struct logbuf *b)
{
	char prog[128], lib[128];
	__u64 hot = nm_value("prog", "hot"), pa = nm_value("prog", "path_a");
	__u64 pb = nm_value("prog", "path_b"), mn = nm_value("prog", "main");
	__u64 lf = LIB + nm_value("libcg.so", "_Z6lib_fni");
	const __u64 ua[] = { hot + 4, pa + 9, mn + 9 }, ub[] = { hot + 4, pb + 9, mn + 14 };
	const __u64 kr[] = { KBASE + 0x210, KBASE + 0x120, KBASE + 0x40 };
	const __u64 km[] = { MBASE + 0x18, KBASE + 0x320, KBASE + 0x120, KBASE + 0x40 };
	const __u64 ur[] = { mn + 20 }, ul[] = { lf + 4, mn + 24 };

	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(lib, sizeof(lib), "%s/libcg.so", dir);
	lb_initialize(b);
	lb_pmcallocate(b, 1, PMCLOG_EV_CPU_CLOCK, PMCLOG_PMC_F_FREQ | PMCLOG_PMC_F_CALLCHAIN,
		       1000, "cpu-clock");
	lb_pmcallocate(b, 2, PMCLOG_EV_CYCLES, PMCLOG_PMC_F_USER | PMCLOG_PMC_F_CALLCHAIN,
		       CYCLES_PERIOD, "cycles");
	lb_map_in(b, PMCLOG_PID_KERNEL, KBASE, KBASE + 0x1000000, KBASE, 0, "[kernel]");
	lb_ksymbol(b, KBASE, 0x100, 0, "entry_SYSCALL_64");
	lb_ksymbol(b, KBASE + 0x100, 0x100, 0, "do_syscall_64");
	lb_ksymbol(b, KBASE + 0x200, 0x100, 0, "ksys_read");
	lb_ksymbol(b, KBASE + 0x300, 0x100, 0, "ksys_write");
	lb_map_in(b, PMCLOG_PID_KERNEL, MBASE, MBASE + 0x1000, 0, PMCLOG_MAP_F_KMODULE, "pm_test");
	lb_ksymbol(b, MBASE, 0x40, 0, "busy_fn");
	lb_procexec(b, 3, prog);
	lb_map_in(b, 3, 0x400000, 0x500000, 0, 0, prog);
	buildid_of_file(b, 3, 0x400000, "prog");
	lb_map_in(b, 3, LIB, LIB + 0x10000, 0, 0, lib);
	for (int i = 0; i < 20; i++)
		lb_sample_stack(b, (__u16)(i % 2), 3, ua[0], 1, NULL, 0, ua, 3);
	for (int i = 0; i < 10; i++)
		lb_sample_stack(b, 0, 3, ub[0], 1, NULL, 0, ub, 3);
	for (int i = 0; i < 5; i++)
		lb_sample_stack(b, 1, 3, kr[0], 0, kr, 3, ur, 1);
	for (int i = 0; i < 3; i++)
		lb_sample_stack(b, 1, 3, km[0], 0, km, 4, ur, 1);
	for (int i = 0; i < 4; i++)
		lb_sample_stack(b, 0, 3, ul[0], 1, NULL, 0, ul, 2);
	lb_pcsample(b, 0, 3, 3, hot + 4, 1);
	lb_map_out(b, 3, LIB, LIB + 0x10000);
	lb_map_in(b, 3, LIB, LIB + 0x10000, 0, 0, lib);
	for (int i = 0; i < 6; i++)
		pmc2(b, lb_sample_stack(b, 0, 3, ua[0], 1, NULL, 0, ua, 3));
	for (int i = 0; i < 2; i++)
		pmc2(b, lb_sample_stack(b, 1, 3, ul[0], 1, NULL, 0, ul, 2));
	lb_closelog(b, 51, 0, 0);
}

#endif /* STACK_LOG_H */
