// SPDX-License-Identifier: GPL-2.0
/*
 * The debuginfod client (pmclog_debuginfod.c) against a server of this
 * test's own, on 127.0.0.1, through the real libdebuginfod.so.1: every
 * test is skipped where libdebuginfod1 is not installed.
 *
 *   - a file whose build-id is the one asked for is used; one whose
 *     build-id is another is refused with a warning, and not asked for
 *     again;
 *   - at most 64 distinct build-ids are asked per client, or
 *     PMCLOG_DEBUGINFOD_MAX; one not found is not asked again;
 *   - an http:// server is warned about, once; an https:// one is not;
 *   - DEBUGINFOD_TIMEOUT is given a default when unset, and left alone
 *     when set.
 *
 * The server answers GET /buildid/HEX/debuginfo with dir/srv/HEX, else
 * 404, and writes each path asked into dir/requests.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_fixture.h"
#include "print_capture.h"
#include "pmclog_internal.h"

#define ID_A	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static bool have_lib;
static pid_t server;
static char url[64];

/* Answer requests until killed: dir/srv/HEX for its build-id, else 404. */
static void __attribute__((noreturn)) serve(int ls)
{
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		char req[4096], path[512], hex[160], file[512], buf[65536];
		int c = accept(ls, NULL, NULL), fd = -1, log;
		size_t n = 0;
		ssize_t r;
		struct stat st;

		if (c < 0)
			continue;
		while (n < sizeof(req) - 1 && (r = read(c, req + n, sizeof(req) - 1 - n)) > 0) {
			n += (size_t)r;
			req[n] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[n] = '\0';
		if (sscanf(req, "GET %511s", path) == 1) {
			snprintf(file, sizeof(file), "%s/requests", dir);
			log = open(file, O_WRONLY | O_CREAT | O_APPEND, 0600);
			if (log >= 0) {
				dprintf(log, "%s\n", path);
				close(log);
			}
			if (sscanf(path, "/buildid/%159[0-9a-f]/debuginfo", hex) == 1) {
				snprintf(file, sizeof(file), "%s/srv/%s", dir, hex);
				fd = open(file, O_RDONLY);
			}
		}
		if (fd >= 0 && fstat(fd, &st) == 0) {
			dprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
				(long long)st.st_size);
			while ((r = read(fd, buf, sizeof(buf))) > 0)
				if (write(c, buf, (size_t)r) != r)
					break;
		} else {
			dprintf(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		}
		if (fd >= 0)
			close(fd);
		close(c);
	}
}

static int setup(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int ls;

	(void)state;
	/* Not dlclose()d, as the client leaves it: see pmclog_debuginfod__free(). */
	have_lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL) != NULL;
	if (!have_lib) {
		print_message("libdebuginfod.so.1 not loaded (%s): install libdebuginfod1; skipped\n",
			      dlerror());
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/pmclog-debuginfod-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* Build-id A; B is served A's file. */
	run("cd %s && mkdir srv && echo 'int f(void) { return 1; }' | "
	    "cc -shared -fPIC -x c -o a.so - -Wl,--build-id=0x" ID_A " && "
	    "cp a.so srv/" ID_A " && cp a.so srv/" ID_B, dir);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(ls, 16) || getsockname(ls, (struct sockaddr *)&sa, &len))
		return -1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned int)ntohs(sa.sin_port));
	fflush(NULL);
	server = fork();
	if (server < 0)
		return -1;
	if (server == 0)
		serve(ls);
	close(ls);
	return 0;
}

static int group_teardown(void **state)
{
	if (!have_lib)
		return 0;
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	return teardown(state);
}

/*
 * Each test: its own cache (libdebuginfod keeps what it found, and
 * what it did not, there), no requests yet, the server named by
 * DEBUGINFOD_URLS, the limits unset.
 */
static int test_setup(void **state)
{
	static int n;
	char cache[128];

	if (!have_lib)
		return 0;
	snprintf(cache, sizeof(cache), "%s/cache%d", dir, n++);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	setenv("DEBUGINFOD_URLS", url, 1);
	unsetenv("PMCLOG_DEBUGINFOD_MAX");
	unsetenv("DEBUGINFOD_TIMEOUT");
	run("rm -f %s/requests", dir);
	return print_capture_start(state);
}

/* How many requests the server had; how many for path, if not NULL. */
static int requests(const char *path)
{
	char file[128], line[512];
	int n = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/requests", dir);
	f = fopen(file, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n += !path || !strcmp(line, path);
	}
	fclose(f);
	return n;
}

static void hex_id(const char *hex, __u8 *id)
{
	for (size_t i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &id[i]);
}

/* find for the build-id hex (40 digits); its fd or error, msg and path set. */
static int find(struct pmclog_debuginfod *d, const char *hex, char *msg, size_t len,
		char **path)
{
	__u8 id[20];

	hex_id(hex, id);
	msg[0] = '\0';
	return pmclog_debuginfod__find(d, id, sizeof(id), path, msg, len);
}

/*
 * A's file is A's: used.  B's is A's too: refused, said, and not asked
 * for again (a second ask reaches no server).
 */
static void test_build_id_checked(void **state)
{
	struct pmclog_debuginfod *d;
	char msg[256], *path;
	__u8 got[PMCLOG_BUILD_ID_MAX], want[20];
	int fd;

	(void)state;
	if (!have_lib)
		skip();
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	fd = find(d, ID_A, msg, sizeof(msg), &path);
	assert_true(fd >= 0);
	assert_non_null(path);
	hex_id(ID_A, want);
	assert_int_equal(pmclog_fd_build_id(fd, got), 20);
	assert_memory_equal(got, want, 20);
	close(fd);
	free(path);

	fd = find(d, ID_B, msg, sizeof(msg), &path);
	assert_int_equal(fd, -EBADMSG);
	assert_null(path);
	assert_non_null(strstr(msg, "has build-id " ID_A ", not " ID_B ": refused"));
	assert_non_null(strstr(said, "debuginfod: the file a server sent for build-id " ID_B
				     " has build-id " ID_A ": not used"));
	assert_int_equal(requests("/buildid/" ID_B "/debuginfo"), 1);
	fd = find(d, ID_B, msg, sizeof(msg), &path);
	assert_int_equal(fd, -EBADMSG);
	assert_non_null(strstr(msg, "not asked again: "));
	assert_int_equal(requests("/buildid/" ID_B "/debuginfo"), 1);
	pmclog_debuginfod__free(d);
}

/* Build-id n as 40 hex digits, one the server does not have. */
static void unknown_id(char *hex, unsigned int n)
{
	snprintf(hex, 41, "c0ffee%034x", n);
}

/*
 * Distinct build-ids not found: 64 asked, then no more, said once;
 * PMCLOG_DEBUGINFOD_MAX=3, 3.  A build-id not found is not asked again,
 * and a second ask of it costs none of the 64.
 */
static void test_lookups_bounded(void **state)
{
	struct pmclog_debuginfod *d;
	char msg[256], hex[41], *path;
	int fd;

	(void)state;
	if (!have_lib)
		skip();
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	unknown_id(hex, 1);
	assert_int_equal(find(d, hex, msg, sizeof(msg), &path), -ENOENT);
	assert_int_equal(find(d, hex, msg, sizeof(msg), &path), -ENOENT);
	assert_non_null(strstr(msg, "not asked again: No such file or directory"));
	for (unsigned int i = 2; i <= 70; i++) {
		unknown_id(hex, i);
		fd = find(d, hex, msg, sizeof(msg), &path);
		assert_int_equal(fd, i <= 64 ? -ENOENT : -EDQUOT);
		assert_null(path);
	}
	assert_non_null(strstr(msg, "not asked: 64 build-ids asked already, the most per report (PMCLOG_DEBUGINFOD_MAX)"));
	assert_int_equal(requests(NULL), 64);
	assert_non_null(strstr(said, "debuginfod: 64 build-ids asked for, the most per report"));
	assert_null(strstr(strstr(said, "64 build-ids asked for") + 1, "64 build-ids asked for"));
	pmclog_debuginfod__free(d);

	run("rm -f %s/requests", dir);
	setenv("PMCLOG_DEBUGINFOD_MAX", "3", 1);
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	fd = find(d, ID_A, msg, sizeof(msg), &path);
	assert_true(fd >= 0);
	close(fd);
	free(path);
	for (unsigned int i = 100; i < 105; i++) {
		unknown_id(hex, i);
		assert_int_equal(find(d, hex, msg, sizeof(msg), &path), i < 102 ? -ENOENT : -EDQUOT);
	}
	assert_int_equal(requests(NULL), 3);
	/* A found before is asked again past the limit: libdebuginfod's cache has it. */
	fd = find(d, ID_A, msg, sizeof(msg), &path);
	assert_true(fd >= 0);
	close(fd);
	free(path);
	assert_int_equal(requests(NULL), 3);
	pmclog_debuginfod__free(d);

	/* Not a number: the default, said. */
	setenv("PMCLOG_DEBUGINFOD_MAX", "lots", 1);
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	assert_non_null(strstr(said, "PMCLOG_DEBUGINFOD_MAX=lots is not a number of lookups"));
	pmclog_debuginfod__free(d);
}

/* An http:// server: warned about once, at the first lookup; https://: not. */
static void test_plain_http_warned(void **state)
{
	struct pmclog_debuginfod *d;
	char msg[256], urls[160], hex[41], *path;
	const char *w;

	(void)state;
	if (!have_lib)
		skip();
	snprintf(urls, sizeof(urls), "https://127.0.0.1:1 %s", url);
	setenv("DEBUGINFOD_URLS", urls, 1);
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	assert_string_equal(said, "");
	assert_int_equal(find(d, ID_B, msg, sizeof(msg), &path), -EBADMSG);
	assert_int_equal(find(d, ID_A, msg, sizeof(msg), &path) >= 0, 1);
	free(path);
	w = strstr(said, "debuginfod: DEBUGINFOD_URLS names ");
	assert_non_null(w);
	assert_non_null(strstr(w, url));
	assert_non_null(strstr(w, "plain http: a debug file from it is checked by nothing but its build-id"));
	assert_null(strstr(w + strlen("debuginfod: "), "debuginfod: DEBUGINFOD_URLS names"));
	assert_null(strstr(said, "https://127.0.0.1:1"));
	pmclog_debuginfod__free(d);

	said[0] = '\0';
	setenv("DEBUGINFOD_URLS", "https://127.0.0.1:1/", 1);
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	unknown_id(hex, 200);	/* not in the cache: asked */
	assert_true(find(d, hex, msg, sizeof(msg), &path) < 0);
	assert_null(strstr(said, "DEBUGINFOD_URLS names"));
	pmclog_debuginfod__free(d);
}

/* DEBUGINFOD_TIMEOUT: 15 when unset, as set when set. */
static void test_timeout_default(void **state)
{
	struct pmclog_debuginfod *d;
	char msg[256], *path;
	int fd;

	(void)state;
	if (!have_lib)
		skip();
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	fd = find(d, ID_A, msg, sizeof(msg), &path);
	assert_true(fd >= 0);
	close(fd);
	free(path);
	assert_non_null(getenv("DEBUGINFOD_TIMEOUT"));
	assert_string_equal(getenv("DEBUGINFOD_TIMEOUT"), "15");
	pmclog_debuginfod__free(d);

	setenv("DEBUGINFOD_TIMEOUT", "7", 1);
	d = pmclog_debuginfod__new();
	assert_non_null(d);
	assert_int_equal(find(d, ID_B, msg, sizeof(msg), &path), -EBADMSG);
	assert_string_equal(getenv("DEBUGINFOD_TIMEOUT"), "7");
	pmclog_debuginfod__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_build_id_checked, test_setup),
		cmocka_unit_test_setup(test_lookups_bounded, test_setup),
		cmocka_unit_test_setup(test_plain_http_warned, test_setup),
		cmocka_unit_test_setup(test_timeout_default, test_setup),
	};

	return cmocka_run_group_tests_name("debuginfod", tests, setup, group_teardown);
}
