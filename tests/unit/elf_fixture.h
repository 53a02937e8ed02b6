/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests on ELF files they build share: the scratch folder dir
 * (each test's setup makes it), files written and commands run there, its
 * removal unless
 * PMCLOG_TEST_KEEP is set, symbol values as nm(1) prints them, and what
 * python3's json module makes of a text.
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

/*
 * The answer of python3's json module (a real parser: strict UTF-8, no
 * control characters in strings) to the JSON text json: the script gets
 * it as d, and raw(s), the bytes a string stands for (its \xNN back to
 * bytes), and prints what the test compares.  NULL if python3 refuses
 * the text.  The result is malloc'd.
 */
static inline char *python_json(const char *json, const char *script)
{
	static const char prologue[] =
		"import json, re, sys\n"
		"d = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8', 'strict'))\n"
		"def raw(s):\n"
		"    out = bytearray()\n"
		"    for part in re.split(r'(\\\\x[0-9a-f]{2})', s):\n"
		"        if re.fullmatch(r'\\\\x[0-9a-f]{2}', part):\n"
		"            out.append(int(part[2:], 16))\n"
		"        else:\n"
		"            out += part.encode('utf-8')\n"
		"    return bytes(out)\n";
	char jpath[128], spath[128], cmd[512], *out = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *f, *p;
	int st;

	snprintf(jpath, sizeof(jpath), "%s/report.json", dir);
	snprintf(spath, sizeof(spath), "%s/check.py", dir);
	f = fopen(jpath, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);
	f = fopen(spath, "w");
	assert_non_null(f);
	fputs(prologue, f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s %s", spath, jpath);
	p = popen(cmd, "r");
	assert_non_null(p);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, f);
	fclose(f);
	st = pclose(p);
	if (st) {
		free(out);
		return NULL;
	}
	return out;
}

#endif /* ELF_FIXTURE_H */
