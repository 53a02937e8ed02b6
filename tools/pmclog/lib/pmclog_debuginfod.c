// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog debuginfod client: debug files by build-id from the servers
 * DEBUGINFOD_URLS names, through libdebuginfod (elfutils).
 *
 * As elfutils' own libdwfl does, the library is loaded with dlopen() when
 * a report first needs it, and only when DEBUGINFOD_URLS is set: a
 * program that links libpmclog does not pull libcurl and its TLS stack in,
 * and a machine without libdebuginfod1 still reads every local debug file.
 * Its environment (DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT, ...) applies
 * as for every other client.
 *
 * A log names whatever objects its processes mapped, and whoever ran them
 * can map thousands without a .symtab, each worth a lookup; so what one
 * client (one report) asks is bounded:
 *
 *   - at most LOOKUPS_MAX distinct build-ids (PMCLOG_DEBUGINFOD_MAX);
 *   - each build-id asked once: a failure is remembered;
 *   - each lookup in time: DEBUGINFOD_TIMEOUT, unless set, is TIMEOUT_S
 *     (libdebuginfod's own is 90 s: a server that sends less than 100 KiB
 *     in that time is skipped), and a lookup still going after LOOKUP_S
 *     is abandoned, unless DEBUGINFOD_MAXTIME sets that limit;
 *   - after one failure that is not "no such file" (no server reachable,
 *     a timeout) no other object is asked for.
 *
 * What comes back is checked as far as it can be: a file whose build-id
 * is not the one asked for is refused, with a warning, and a build-id
 * longer than pmclog_fd_build_id() reads is not asked for.  That build-id
 * is all a file is checked by: a server named with http:// (not https) is
 * warned about once, as anyone on the way can send a file that has it.
 *
 * DEBUGINFOD_TIMEOUT is set with setenv() when the first lookup loads the
 * library, libdebuginfod having no other way to be given it: a program
 * whose other threads read the environment meanwhile sets it first.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "pmclog_internal.h"

#define LOOKUPS_MAX	64	/* distinct build-ids per client */
#define TIMEOUT_S	"15"	/* DEBUGINFOD_TIMEOUT unless set */
#define LOOKUP_S	120	/* one lookup in all, unless DEBUGINFOD_MAXTIME */

/* A build-id asked for, and how that went. */
struct asked {
	__u8 id[PMCLOG_BUILD_ID_MAX];
	size_t len;
	int err;		/* 0: found; else why not, an errno */
	char why[160];		/* with err: what the first lookup said */
};

struct pmclog_debuginfod {
	void *dl;		/* never dlclose()d: see pmclog_debuginfod__free() */
	debuginfod_client *client;
	bool tried;		/* dlopen and debuginfod_begin done (or failed) */
	int dead;		/* a failure that ends the asking: its errno */
	char dead_why[160];	/* and what it said */
	char why[160];		/* why there is no client */
	size_t max_lookups;	/* distinct build-ids this client may ask */
	struct asked *asked;	/* those it did, at most max_lookups */
	size_t nasked, asked_cap;
	bool budget_said;	/* warned that max_lookups ran out */
	bool user_maxtime;	/* DEBUGINFOD_MAXTIME set: no LOOKUP_S */
	struct timespec started;	/* the lookup under way */
	bool abandoned;		/* progress() gave it up: LOOKUP_S */
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
};

/* The progress callback's way back to its pmclog_debuginfod. */
static void *(*get_user_data)(debuginfod_client *);

/* PMCLOG_DEBUGINFOD_MAX, a count; LOOKUPS_MAX when unset or not a count (said). */
static size_t max_lookups(void)
{
	const char *s = getenv("PMCLOG_DEBUGINFOD_MAX");
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return LOOKUPS_MAX;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-' || v > 1000000) {
		pr_warn("PMCLOG_DEBUGINFOD_MAX=%s is not a number of lookups (0 to 1000000): %d per report\n",
			s, LOOKUPS_MAX);
		return LOOKUPS_MAX;
	}
	return (size_t)v;
}

struct pmclog_debuginfod *pmclog_debuginfod__new(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct pmclog_debuginfod *d;

	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->max_lookups = max_lookups();
	return d;
}

void pmclog_debuginfod__free(struct pmclog_debuginfod *d)
{
	if (!d)
		return;
	if (d->client)
		d->end(d->client);
	/*
	 * The library stays loaded, as libdwfl leaves it: its constructor's
	 * curl_global_init() state does not survive dlclose(), and a second
	 * resolver would load it again.
	 */
	free(d->asked);
	free(d);
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/*
 * Nonzero abandons the lookup.  libdebuginfod calls it about once a
 * second from the start of a lookup, whether bytes came or not.
 */
static int progress(debuginfod_client *client, long a, long b)
{
	struct pmclog_debuginfod *d;

	(void)a;
	(void)b;
	d = get_user_data ? get_user_data(client) : NULL;
	if (!d || d->user_maxtime || since(&d->started) <= LOOKUP_S)
		return 0;
	d->abandoned = true;
	return 1;
}

/* The first http:// server of DEBUGINFOD_URLS (its length in *n), or NULL. */
static const char *plain_http_url(const char *urls, int *n)
{
	static const char sep[] = " \t\n";
	size_t len;

	for (const char *p = urls + strspn(urls, sep); *p; p += strspn(p, sep)) {
		len = strcspn(p, sep);
		if (len >= 7 && !strncasecmp(p, "http://", 7)) {
			*n = len > 200 ? 200 : (int)len;
			return p;
		}
		p += len;
	}
	return NULL;
}

static bool client_open(struct pmclog_debuginfod *d)
{
	const char *urls, *http;
	int n;

	if (d->tried)
		return d->client;
	d->tried = true;
	d->dl = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!d->dl) {
		snprintf(d->why, sizeof(d->why), "libdebuginfod.so.1 not loaded (%s): install libdebuginfod1",
			 dlerror());
		return false;
	}
	*(void **)&d->begin = dlsym(d->dl, "debuginfod_begin");
	*(void **)&d->end = dlsym(d->dl, "debuginfod_end");
	*(void **)&d->find_debuginfo = dlsym(d->dl, "debuginfod_find_debuginfo");
	*(void **)&d->set_progressfn = dlsym(d->dl, "debuginfod_set_progressfn");
	*(void **)&d->set_user_data = dlsym(d->dl, "debuginfod_set_user_data");
	*(void **)&get_user_data = dlsym(d->dl, "debuginfod_get_user_data");
	if (!d->begin || !d->end || !d->find_debuginfo) {
		snprintf(d->why, sizeof(d->why), "libdebuginfod.so.1 lacks debuginfod_begin/_find_debuginfo/_end");
		return false;
	}
	/* Read by libdebuginfod at each lookup; the user's, when set. */
	setenv("DEBUGINFOD_TIMEOUT", TIMEOUT_S, 0);
	d->user_maxtime = getenv("DEBUGINFOD_MAXTIME") != NULL;
	d->client = d->begin();
	if (!d->client) {
		snprintf(d->why, sizeof(d->why), "debuginfod_begin() failed");
		return false;
	}
	if (d->set_progressfn && d->set_user_data && get_user_data) {
		d->set_user_data(d->client, d);
		d->set_progressfn(d->client, progress);
	}
	urls = getenv("DEBUGINFOD_URLS");
	http = urls ? plain_http_url(urls, &n) : NULL;
	if (http)
		pr_warn("debuginfod: DEBUGINFOD_URLS names %.*s, plain http: a debug file from it is checked by nothing but its build-id, which whoever can change it on the way can give it too; prefer https:// servers\n",
			n, http);
	return true;
}

/* What this client did with build-id id, or NULL: not asked yet. */
static struct asked *asked_before(struct pmclog_debuginfod *d, const __u8 *id, size_t len)
{
	for (size_t i = 0; i < d->nasked; i++)
		if (d->asked[i].len == len && !memcmp(d->asked[i].id, id, len))
			return &d->asked[i];
	return NULL;
}

/*
 * The file at fd, found for build-id id: 0 if it has that build-id, else
 * -EBADMSG, said.
 */
static int check_build_id(int fd, const char *path, const __u8 *id, size_t len,
			  char *msg, size_t msglen)
{
	char want[2 * PMCLOG_BUILD_ID_MAX + 1], got[2 * PMCLOG_BUILD_ID_MAX + 1];
	__u8 has[PMCLOG_BUILD_ID_MAX];
	int n = pmclog_fd_build_id(fd, has);

	if (n > 0 && (size_t)n == len && !memcmp(has, id, len))
		return 0;
	pmclog_hex(want, sizeof(want), id, len);
	if (n > 0)
		pmclog_hex(got, sizeof(got), has, (size_t)n);
	else
		snprintf(got, sizeof(got), "none");
	if (!path)
		path = "the file";
	snprintf(msg, msglen, "%s has build-id %s, not %s: refused", path, got, want);
	pr_warn("debuginfod: the file a server sent for build-id %s has build-id %s: not used; the server, or something between it and this machine, sends files that are not what they claim to be (remove %s from the debuginfod cache)\n",
		want, got, path);
	return -EBADMSG;
}

int pmclog_debuginfod__find(struct pmclog_debuginfod *d, const __u8 *id, size_t len,
			    char **path, char *msg, size_t msglen)
{
	struct asked *a;
	int fd;

	*path = NULL;
	if (!client_open(d)) {
		snprintf(msg, msglen, "%s", d->why);
		return -ENOSYS;
	}
	/* What pmclog_fd_build_id() reads, as a log's BUILDID: no more can be checked. */
	if (!len || len > PMCLOG_BUILD_ID_MAX) {
		snprintf(msg, msglen, "not asked: a build-id of %zu bytes, which pmclog cannot check a file against (1 to %d)",
			 len, PMCLOG_BUILD_ID_MAX);
		return -EINVAL;
	}
	a = asked_before(d, id, len);
	if (a && a->err) {
		snprintf(msg, msglen, "not asked again: %s", a->why);
		return -a->err;
	}
	if (d->dead) {
		snprintf(msg, msglen, "not asked, after an earlier failure (%s)", d->dead_why);
		return -d->dead;
	}
	/* One found before is not counted again: libdebuginfod's cache has it. */
	if (!a) {
		if (d->nasked == d->max_lookups) {
			snprintf(msg, msglen, "not asked: %zu build-ids asked already, the most per report (PMCLOG_DEBUGINFOD_MAX)",
				 d->max_lookups);
			if (!d->budget_said)
				pr_warn("debuginfod: %zu build-ids asked for, the most per report: the other objects without symbols are not asked for (PMCLOG_DEBUGINFOD_MAX sets another limit)\n",
					d->max_lookups);
			d->budget_said = true;
			return -EDQUOT;
		}
		if (PMCLOG_GROW(d->asked, d->asked_cap, d->nasked + 1)) {
			snprintf(msg, msglen, "not asked: out of memory");
			return -ENOMEM;
		}
		a = &d->asked[d->nasked++];
		memcpy(a->id, id, len);
		a->len = len;
	}
	d->abandoned = false;
	clock_gettime(CLOCK_MONOTONIC, &d->started);
	fd = d->find_debuginfo(d->client, id, (int)len, path);
	if (fd >= 0) {
		a->err = -check_build_id(fd, *path, id, len, msg, msglen);
		if (!a->err)
			return fd;
		snprintf(a->why, sizeof(a->why), "%s", msg);
		close(fd);
		free(*path);
		*path = NULL;
		return -a->err;
	}
	free(*path);
	*path = NULL;
	/* libdebuginfod says ENOENT for a lookup its progress callback ended. */
	if (d->abandoned) {
		fd = -ETIMEDOUT;
		snprintf(msg, msglen, "abandoned after %d s (DEBUGINFOD_MAXTIME sets another limit)",
			 LOOKUP_S);
	} else {
		snprintf(msg, msglen, "%s", strerror(-fd));
	}
	a->err = -fd;
	snprintf(a->why, sizeof(a->why), "%s", msg);
	/* No such file: the servers answered; anything else: stop asking. */
	if (fd != -ENOENT) {
		d->dead = -fd;
		snprintf(d->dead_why, sizeof(d->dead_why), "%s", msg);
	}
	return fd;
}
