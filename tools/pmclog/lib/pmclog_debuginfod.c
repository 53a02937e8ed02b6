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
 * as for every other client.  Two guards keep a report from waiting on
 * the network: a transfer that makes no progress for STALL_S seconds is
 * abandoned (unless DEBUGINFOD_TIMEOUT says otherwise), and after one
 * failure that is not "no such file" (no server reachable, a timeout) no
 * other object is asked for.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmclog_internal.h"

#define STALL_S		15

struct pmclog_debuginfod {
	void *dl;		/* never dlclose()d: see pmclog_debuginfod__free() */
	debuginfod_client *client;
	bool tried;		/* dlopen and debuginfod_begin done (or failed) */
	int dead;		/* a failure that ends the asking: its errno */
	char why[160];		/* why there is no client */
	struct timespec progress_at;	/* the last time bytes came */
	long last;		/* bytes so far */
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
};

/* The progress callback's way back to its pmclog_debuginfod. */
static void *(*get_user_data)(debuginfod_client *);

struct pmclog_debuginfod *pmclog_debuginfod__new(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	return calloc(1, sizeof(struct pmclog_debuginfod));
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
	free(d);
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Nonzero abandons the transfer. */
static int progress(debuginfod_client *client, long a, long b)
{
	struct pmclog_debuginfod *d;

	(void)b;
	if (getenv("DEBUGINFOD_TIMEOUT"))
		return 0;
	d = get_user_data ? get_user_data(client) : NULL;
	if (!d)
		return 0;
	if (a != d->last) {
		d->last = a;
		clock_gettime(CLOCK_MONOTONIC, &d->progress_at);
		return 0;
	}
	return since(&d->progress_at) > STALL_S;
}

static bool client_open(struct pmclog_debuginfod *d)
{
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
	d->client = d->begin();
	if (!d->client) {
		snprintf(d->why, sizeof(d->why), "debuginfod_begin() failed");
		return false;
	}
	if (d->set_progressfn && d->set_user_data && get_user_data) {
		d->set_user_data(d->client, d);
		d->set_progressfn(d->client, progress);
	}
	return true;
}

int pmclog_debuginfod__find(struct pmclog_debuginfod *d, const __u8 *id, size_t len,
			    char **path, char *msg, size_t msglen)
{
	int fd;

	*path = NULL;
	if (!client_open(d)) {
		snprintf(msg, msglen, "%s", d->why);
		return -ENOSYS;
	}
	if (d->dead) {
		snprintf(msg, msglen, "not asked, after an earlier failure (%s)",
			 strerror(d->dead));
		return -d->dead;
	}
	d->last = -1;
	clock_gettime(CLOCK_MONOTONIC, &d->progress_at);
	fd = d->find_debuginfo(d->client, id, (int)len, path);
	if (fd >= 0)
		return fd;
	free(*path);
	*path = NULL;
	snprintf(msg, msglen, "%s", strerror(-fd));
	/* No such file: the servers answered; anything else: stop asking. */
	if (fd != -ENOENT)
		d->dead = -fd;
	return fd;
}
