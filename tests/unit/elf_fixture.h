/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests on ELF files they build share: the scratch folder dir
 * (each test's setup makes it), files written and commands run there, its
 * removal unless
 * PMCLOG_TEST_KEEP is set, and symbol values as nm(1) prints them.
 */
#ifndef ELF_FIXTURE_H
#define ELF_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/types.h>

static char dir[64];

/* Run the command fmt makes; a failure fails the test. */
__attribute__((format(printf, 1, 2)))
static inline void run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* dir/name holding text. */
static inline void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static inline int teardown(void **state)
{
	(void)state;
	if (!getenv("PMCLOG_TEST_KEEP"))
		run("rm -rf %s", dir);
	return 0;
}

/* The value of symbol name (as nm prints it, mangled) in file; it must be there. */
static inline __u64 nm_value(const char *file, const char *name)
{
	char cmd[512], line[256];
	unsigned long long v = 0;
	bool found;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s | awk '$3 == \"%s\" { print $1 }'", dir, file, name);
	p = popen(cmd, "r");
	assert_non_null(p);
	found = fgets(line, sizeof(line), p);
	if (found)
		v = strtoull(line, NULL, 16);
	pclose(p);
	if (!found)
		fail_msg("no symbol %s in %s", name, file);
	return v;
}

#endif /* ELF_FIXTURE_H */
