// SPDX-License-Identifier: GPL-2.0
/*
 * recorder_path SAMPLES [LEVEL [PACK]]: what pmclog record does with each
 * sample the device gives it, run under callgrind (tests/bench/run.sh):
 * the log of one thread sampled at 10 kHz (a PCSAMPLE every 100 us, give
 * or take 5 us, in 64 functions of 256 bytes, one in 40 in the kernel)
 * handed to libpmclog's writer 1000 records at a time, as read(2) hands
 * them over at 10 kHz (the module wakes the recorder every 100 ms), to
 * /dev/null, packed (PACK 1, the default) or not, zstd at LEVEL (0, the
 * default: none).  The instructions of pmclog_writer__write() and
 * pmclog_writer__finish() over SAMPLES are the recorder's per-sample
 * cost, without read(2) and write(2) themselves.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pmclog.h>

#include "xorshift.h"

#include "pmclog_writer.h"

#define PER_WRITE	1000
#define KBASE		0xffffffff81000000ULL
#define UBASE		0x55d0c0a00000ULL


static void header(void *rec, unsigned int type, size_t len, __u8 flags,
		   __u8 pmcid, __u64 ts)
{
	struct pmclog_header *h = rec;

	*h = (struct pmclog_header){
		.magic = PMCLOG_HEADER_MAGIC, .type = (__u8)type,
		.length = (__u16)len, .flags = flags, .pmcid = pmcid,
		.tstamp = ts,
	};
}

int main(int argc, char **argv)
{
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	struct pmclog_initialize init = { .abi_version = PMCLOG_ABI_CURRENT, .ncpus = 2,
					  .clock = PMCLOG_CLOCK_MONOTONIC };
	struct pmclog_pmcallocate alloc = { .event = PMCLOG_EV_CPU_CLOCK, .period = 100000,
					    .name = "cpu-clock" };
	struct pmclog_closelog fin = { .samples = n };
	struct pmclog_pcsample *s;
	struct pmclog_writer *w;
	__u64 ts = 1000000000ULL;
	int fd;

	opts.compression_level = argc > 2 ? atoi(argv[2]) : 0;
	opts.pack = argc > 3 ? atoi(argv[3]) : 1;
	s = calloc(n, sizeof(*s));
	fd = open("/dev/null", O_WRONLY);
	if (!s || fd < 0) {
		perror("recorder_path");
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		bool kernel = next_rand() % 40 == 0;
		__u64 fn = next_rand() % 64, off = next_rand() % 256;

		ts += 97500 + next_rand() % 5000;
		header(&s[i], PMCLOG_TYPE_PCSAMPLE, sizeof(s[i]), kernel ? 0 : PMCLOG_HF_USER,
		       1, ts);
		s[i].pid = s[i].tid = 4242;
		s[i].pc = (kernel ? KBASE : UBASE) + fn * 4096 + off;
	}
	header(&init, PMCLOG_TYPE_INITIALIZE, sizeof(init), 0, 0, 1000000000ULL);
	header(&alloc, PMCLOG_TYPE_PMCALLOCATE, sizeof(alloc), 0, 1, 1000000000ULL);
	header(&fin, PMCLOG_TYPE_CLOSELOG, sizeof(fin), 0, 0, ts);
	w = pmclog_writer__new(fd, &opts);
	if (!w || pmclog_writer__write(w, &init, sizeof(init)) ||
	    pmclog_writer__write(w, &alloc, sizeof(alloc))) {
		perror("recorder_path: writer");
		return 1;
	}
	for (unsigned long i = 0; i < n; i += PER_WRITE)
		if (pmclog_writer__write(w, &s[i], (n - i < PER_WRITE ? n - i : PER_WRITE) *
					 sizeof(*s)))
			return 1;
	if (pmclog_writer__write(w, &fin, sizeof(fin)) || pmclog_writer__finish(w))
		return 1;
	printf("recorder_path samples=%lu level=%d pack=%d log=%llu file=%llu\n", n,
	       opts.compression_level, opts.pack,
	       (unsigned long long)pmclog_writer__saved(w),
	       (unsigned long long)pmclog_writer__written(w));
	pmclog_writer__free(w);
	free(s);
	close(fd);
	return 0;
}
