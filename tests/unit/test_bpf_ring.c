// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF collector's ring made into records (lib/pmclog_bpf_ring.c):
 * events as bpf/pmclog.bpf.c writes them, the records the log gets.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pmclog_internal.h"
#include "../bpf/pmclog_bpf_events.h"

#define PID	42

static struct pmclog_bpf_ring *ring;

/*
 * The library's allocations (linked with --wrap): while out_of_memory is
 * set, each fails as malloc(3) does.
 */
static bool out_of_memory;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);

/* Whether an allocation fails now (errno set as malloc(3) sets it). */
static bool alloc_fails(void)
{
	if (out_of_memory)
		errno = ENOMEM;
	return out_of_memory;
}

void *__wrap_malloc(size_t size)
{
	return alloc_fails() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return alloc_fails() ? NULL : __real_realloc(p, size);
}

static int setup(void **state)
{
	(void)state;
	ring = pmclog_bpf_ring__new();
	return ring ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	out_of_memory = false;
	pmclog_bpf_ring__free(ring);
	return 0;
}

static void hdr(struct pmclog_header *h, unsigned int type, size_t len, __u64 ts)
{
	memset(h, 0, sizeof(*h));
	h->magic = PMCLOG_HEADER_MAGIC;
	h->type = type;
	h->length = len;
	h->cpu = 1;
	h->tstamp = ts;
}

/* An EV_MAP_IN (or EV_EXEC) of pid with the components, leaf first. */
static void map_in(unsigned int type, __u32 pid, __u64 start, __u64 end, __u64 ts,
		   __u32 flags, int ncomp, ...)
{
	static struct pmclog_bpf_map_in e;
	va_list ap;
	int i;

	memset(&e, 0, sizeof(e));
	hdr(&e.header, type, 0, ts);
	e.pid = pid;
	e.flags = flags;
	e.start = start;
	e.end = end;
	e.offset = 0x1000;
	va_start(ap, ncomp);
	for (i = 0; i < ncomp; i++) {
		const char *s = va_arg(ap, const char *);

		memcpy(e.names + e.nbytes, s, strlen(s) + 1);
		e.nbytes += strlen(s) + 1;
	}
	va_end(ap);
	e.ncomp = ncomp;
	pmclog_bpf_ring__record(ring, &e, offsetof(struct pmclog_bpf_map_in, names) + e.nbytes);
}

static void unmap(__u32 pid, __u64 start, __u64 end, __u64 ts)
{
	struct pmclog_bpf_unmap e = { .pid = pid, .start = start, .end = end };

	hdr(&e.header, PMCLOG_BPF_EV_UNMAP, sizeof(e), ts);
	pmclog_bpf_ring__record(ring, &e, sizeof(e));
}

/* The records made so far, one line each; then forgotten. */
static const char *taken(void)
{
	static char text[8192];
	const unsigned char *p;
	size_t len, off = 0, n = 0;

	p = pmclog_bpf_ring__output(ring, &len);
	text[0] = '\0';
	while (off + sizeof(struct pmclog_header) <= len) {
		const struct pmclog_header *h = (const void *)(p + off);

		assert_int_equal(h->magic, PMCLOG_HEADER_MAGIC);
		assert_int_equal(h->length % PMCLOG_RECORD_ALIGN, 0);
		assert_true(h->length >= sizeof(*h) && off + h->length <= len);
		switch (h->type) {
		case PMCLOG_TYPE_MAP_IN: {
			const struct pmclog_map_in *r = (const void *)h;

			n += snprintf(text + n, sizeof(text) - n, "MAP_IN %u %llx-%llx %#x %s\n",
				      r->pid, (unsigned long long)r->start,
				      (unsigned long long)r->end, r->flags, r->path);
			break;
		}
		case PMCLOG_TYPE_MAP_OUT: {
			const struct pmclog_map_out *r = (const void *)h;

			n += snprintf(text + n, sizeof(text) - n, "MAP_OUT %u %llx-%llx @%llu\n",
				      r->pid, (unsigned long long)r->start,
				      (unsigned long long)r->end, (unsigned long long)h->tstamp);
			break;
		}
		case PMCLOG_TYPE_PROCEXEC: {
			const struct pmclog_procexec *r = (const void *)h;

			n += snprintf(text + n, sizeof(text) - n, "PROCEXEC %u %s\n", r->pid, r->path);
			break;
		}
		case PMCLOG_TYPE_KSYMBOL: {
			const struct pmclog_ksymbol *r = (const void *)h;

			n += snprintf(text + n, sizeof(text) - n, "KSYMBOL %llx %llu %s\n",
				      (unsigned long long)r->start, (unsigned long long)r->size,
				      r->name);
			break;
		}
		default:
			n += snprintf(text + n, sizeof(text) - n, "type %u len %u\n", h->type,
				      h->length);
			break;
		}
		off += h->length;
	}
	assert_int_equal(off, len);
	pmclog_bpf_ring__taken(ring);
	return text;
}

static void test_path_joined(void **state)
{
	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x1000, 0x3000, 10, 0, 3,
	       "libc.so.6", "x86_64-linux-gnu", "lib");
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x5000, 0x6000, 11, 0, 0);
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x7000, 0x8000, 12, PMCLOG_MAP_F_ANON, 1, "[vdso]");
	assert_string_equal(taken(),
			    "MAP_IN 42 1000-3000 0 /lib/x86_64-linux-gnu/libc.so.6\n"
			    "MAP_IN 42 5000-6000 0 /\n"
			    "MAP_IN 42 7000-8000 0x1 [vdso]\n");
}

/*
 * A walk that stopped short of the root (PMCLOG_BPF_PATH_DEPTH names, or
 * the names' buffer full) holds the tail of the path: hung from the root
 * it would name another file, here /etc/shadow for /home/u/etc/shadow.
 * The MAP_IN keeps its range, so that its samples still fall in a map,
 * and its path is the module's when d_path() fails.
 */
static void test_truncated_path_unreachable(void **state)
{
	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x1000, 0x3000, 10, PMCLOG_BPF_PATH_TRUNC, 2,
	       "shadow", "etc");
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x5000, 0x6000, 11, PMCLOG_BPF_PATH_TRUNC, 0);
	unmap(PID, 0x5000, 0x6000, 12);
	map_in(PMCLOG_BPF_EV_EXEC, PID, 0, 0, 13, PMCLOG_BPF_PATH_TRUNC, 2, "sh", "bin");
	assert_string_equal(taken(),
			    "MAP_IN 42 1000-3000 0 [unreachable]\n"
			    "MAP_IN 42 5000-6000 0 [unreachable]\n"
			    "MAP_OUT 42 5000-6000 @12\n"
			    "MAP_OUT 42 1000-3000 @13\n"
			    "PROCEXEC 42 [unreachable]\n");
}

/*
 * An EV_MAP_IN of ncomp names in names[0, nbytes), sent as size bytes
 * (a copy of exactly that many: nothing may be read past them).
 */
static void map_in_raw(__u32 ncomp, __u32 nbytes, const void *names, size_t len, size_t size)
{
	struct pmclog_bpf_map_in *e = calloc(1, sizeof(*e));
	void *copy;

	assert_non_null(e);
	hdr(&e->header, PMCLOG_BPF_EV_MAP_IN, 0, 10);
	e->pid = PID;
	e->start = 0x1000;
	e->end = 0x2000;
	e->ncomp = ncomp;
	e->nbytes = nbytes;
	memcpy(e->names, names, len);
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, e, size);
	pmclog_bpf_ring__record(ring, copy, size);
	free(copy);
	free(e);
}

/* Names that are not what the programs write make no path either. */
static void test_path_names_inconsistent(void **state)
{
	const size_t at = offsetof(struct pmclog_bpf_map_in, names);

	(void)state;
	map_in_raw(3, 11, "shadow\0etc", 11, at + 11);		/* a name missing */
	map_in_raw(1, 11, "shadow\0etc", 11, at + 11);		/* one too many */
	map_in_raw(2, 10, "shadow\0etc", 10, at + 10);		/* the last without its NUL */
	map_in_raw(2, 11, "shadow\0etc", 11, at + 9);		/* past the event's end */
	map_in_raw(PMCLOG_BPF_PATH_DEPTH + 1, 11, "shadow\0etc", 11, at + 11);
	map_in_raw(2, 11, "shadow\0etc", 11, at + 11);
	assert_string_equal(taken(),
			    "MAP_IN 42 1000-2000 0 [unreachable]\n"
			    "MAP_IN 42 1000-2000 0 [unreachable]\n"
			    "MAP_IN 42 1000-2000 0 [unreachable]\n"
			    "MAP_IN 42 1000-2000 0 [unreachable]\n"
			    "MAP_IN 42 1000-2000 0 [unreachable]\n"
			    "MAP_IN 42 1000-2000 0 /etc/shadow\n");
}

/*
 * The longest path a walk makes whole (names full: 17 names of 255
 * bytes) is joined whole, not cut to the directory above its file.
 */
static void test_long_path_whole(void **state)
{
	static char want[PMCLOG_BPF_NAMES + PMCLOG_BPF_NAME_MAX + 64];
	const size_t at = offsetof(struct pmclog_bpf_map_in, names);
	const size_t name = PMCLOG_BPF_NAME_MAX - 1;
	const unsigned int n = (PMCLOG_BPF_NAMES + PMCLOG_BPF_NAME_MAX) / PMCLOG_BPF_NAME_MAX;
	static char names[PMCLOG_BPF_NAMES + PMCLOG_BPF_NAME_MAX];
	size_t len;

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		memset(names + i * (name + 1), 'a' + i, name);
		names[i * (name + 1) + name] = '\0';
	}
	len = sprintf(want, "MAP_IN 42 1000-2000 0 ");
	for (unsigned int i = n; i--; ) {
		want[len++] = '/';
		memset(want + len, 'a' + i, name);
		len += name;
	}
	strcpy(want + len, "\n");
	map_in_raw(n, sizeof(names), names, sizeof(names), at + sizeof(names));
	assert_string_equal(taken(), want);
}

/* dlclose unmaps a library's whole range: only its text had a MAP_IN. */
static void test_unmap_takes_executable_parts(void **state)
{
	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x11000, 0x13000, 10, 0, 1, "lib.so");
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x21000, 0x24000, 10, 0, 1, "other.so");
	taken();
	unmap(PID, 0x10000, 0x18000, 20);
	unmap(PID, 0x30000, 0x38000, 21);	/* nothing executable there */
	unmap(PID + 1, 0x21000, 0x24000, 22);	/* another process */
	unmap(PID, 0x22000, 0x23000, 23);	/* a middle page */
	unmap(PID, 0x20000, 0x30000, 24);	/* the rest, in two parts */
	assert_string_equal(taken(),
			    "MAP_OUT 42 11000-13000 @20\n"
			    "MAP_OUT 42 22000-23000 @23\n"
			    "MAP_OUT 42 21000-22000 @24\n"
			    "MAP_OUT 42 23000-24000 @24\n");
}

/*
 * 6.12's mmap_region() over a MAP_FIXED range: the unmap is stamped at
 * the call's entry, after which the new mapping was made; the new one
 * stays, the old one goes.
 */
static void test_unmap_spares_later_mappings(void **state)
{
	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x40000, 0x42000, 10, 0, 1, "old.so");
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x41000, 0x42000, 30, 0, 1, "new.so");
	taken();
	unmap(PID, 0x40000, 0x42000, 25);
	assert_string_equal(taken(), "MAP_OUT 42 40000-41000 @25\n");
	unmap(PID, 0x40000, 0x42000, 35);
	assert_string_equal(taken(), "MAP_OUT 42 41000-42000 @35\n");
}

/* exec ends the old image's mappings before PROCEXEC; fork copies them. */
static void test_exec_fork_exit(void **state)
{
	struct pmclog_procfork f = { .ppid = PID, .pid = PID + 1 };
	struct pmclog_procexit x = { .pid = PID + 1 };

	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x1000, 0x2000, 10, 0, 2, "true", "bin");
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x5000, 0x6000, 11, 0, 2, "ld.so", "lib");
	hdr(&f.header, PMCLOG_TYPE_PROCFORK, sizeof(f), 12);
	pmclog_bpf_ring__record(ring, &f, sizeof(f));
	map_in(PMCLOG_BPF_EV_EXEC, PID, 0, 0, 13, 0, 2, "sh", "bin");
	hdr(&x.header, PMCLOG_TYPE_PROCEXIT, sizeof(x), 14);
	pmclog_bpf_ring__record(ring, &x, sizeof(x));
	unmap(PID, 0, 0x10000, 15);	/* nothing left of the old image */
	assert_string_equal(taken(),
			    "MAP_IN 42 1000-2000 0 /bin/true\n"
			    "MAP_IN 42 5000-6000 0 /lib/ld.so\n"
			    "type 8 len 24\n"
			    "MAP_OUT 42 1000-2000 @13\n"
			    "MAP_OUT 42 5000-6000 @13\n"
			    "PROCEXEC 42 /bin/sh\n"
			    "MAP_OUT 43 1000-2000 @14\n"
			    "MAP_OUT 43 5000-6000 @14\n"
			    "type 9 len 24\n");
}

/* A PCSAMPLE and its CALLCHAIN come in one ring record: both kept. */
static void test_records_pass_as_they_are(void **state)
{
	struct {
		struct pmclog_pcsample s;
		struct pmclog_callchain c;
		__u64 pc[2];
	} two = { 0 };
	struct pmclog_bpf_ksymbol k = { .start = 0xffffffffc0001000ULL, .size = 64 };
	const unsigned char *out;
	size_t len;

	(void)state;
	hdr(&two.s.header, PMCLOG_TYPE_PCSAMPLE, sizeof(two.s), 50);
	hdr(&two.c.header, PMCLOG_TYPE_CALLCHAIN, sizeof(two.c) + sizeof(two.pc), 50);
	two.c.nuser = 2;
	two.pc[0] = 0x401000;
	two.pc[1] = 0x401234;
	pmclog_bpf_ring__record(ring, &two, sizeof(two));
	out = pmclog_bpf_ring__output(ring, &len);
	assert_int_equal(len, sizeof(two));
	assert_memory_equal(out, &two, sizeof(two));
	taken();
	hdr(&k.header, PMCLOG_BPF_EV_KSYMBOL, sizeof(k), 51);
	strcpy(k.name, "pmclog_testmod_busy");
	pmclog_bpf_ring__record(ring, &k, sizeof(k));
	assert_string_equal(taken(), "KSYMBOL ffffffffc0001000 64 pmclog_testmod_busy\n");
}

/* Too short to be what its type says: nothing, and nothing read past it. */
static void test_short_events(void **state)
{
	struct pmclog_bpf_unmap e = { .pid = PID, .start = 0, .end = ~0ULL };

	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x1000, 0x2000, 10, 0, 1, "a");
	taken();
	hdr(&e.header, PMCLOG_BPF_EV_UNMAP, sizeof(e), 20);
	pmclog_bpf_ring__record(ring, &e, sizeof(e) - 8);
	pmclog_bpf_ring__record(ring, &e, 4);
	map_in_raw(1, 2, "a", 2, offsetof(struct pmclog_bpf_map_in, flags));
	assert_string_equal(taken(), "");
	unmap(PID, 0, ~0ULL, 21);
	assert_string_equal(taken(), "MAP_OUT 42 1000-2000 @21\n");
}

/*
 * Short of memory (vm.max_map_count reached, say: malloc cannot map a
 * new arena), the converter still writes every MAP_OUT of what it knows,
 * and counts what it cannot keep, whose MAP_OUT would be missing later.
 */
static void test_unmap_without_memory(void **state)
{
	(void)state;
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x11000, 0x13000, 10, 0, 1, "lib.so");
	map_in(PMCLOG_BPF_EV_MAP_IN, PID, 0x21000, 0x24000, 11, 0, 1, "other.so");
	taken();
	out_of_memory = true;
	unmap(PID, 0x10000, 0x18000, 20);
	unmap(PID, 0x22000, 0x23000, 21);	/* a split: the slot is there */
	assert_string_equal(taken(),
			    "MAP_OUT 42 11000-13000 @20\n"
			    "MAP_OUT 42 22000-23000 @21\n");
	assert_int_equal(pmclog_bpf_ring__lost(ring), 0);
	/* A new process's first mapping needs memory to be kept. */
	map_in(PMCLOG_BPF_EV_MAP_IN, PID + 1, 0x31000, 0x32000, 22, 0, 1, "third.so");
	assert_string_equal(taken(), "MAP_IN 43 31000-32000 0 /third.so\n");
	assert_int_equal(pmclog_bpf_ring__lost(ring), 1);
	out_of_memory = false;
	unmap(PID, 0, ~0ULL, 23);
	assert_string_equal(taken(),
			    "MAP_OUT 42 21000-22000 @23\n"
			    "MAP_OUT 42 23000-24000 @23\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_joined, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_path_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_names_inconsistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_path_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_takes_executable_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_spares_later_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_fork_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records_pass_as_they_are, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_without_memory, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
