// SPDX-License-Identifier: GPL-2.0
/*
 * dlswap [-p PIDFILE] [-m DIR] LIBDIR SECONDS: dlopen() LIBDIR/libhot_a.so,
 * spin SECONDS in its hot_a(), dlclose() it, then the same with
 * libhot_b.so and hot_b() (the loader often reuses the same addresses).
 * -m DIR saves /proc/self/maps while each library is loaded
 * (DIR/maps-a.txt, DIR/maps-b.txt) and after each dlclose()
 * (DIR/maps-a-closed.txt, DIR/maps-b-closed.txt), for comparison with the
 * MAP_IN and MAP_OUT records.
 */
#include <dlfcn.h>
#include <unistd.h>
#include "common.h"

static const char *maps_dir;

static void save_maps(const char *name)
{
	char path[4096], buf[4096];
	FILE *in, *out;
	size_t n;

	if (!maps_dir)
		return;
	snprintf(path, sizeof(path), "%s/maps-%s.txt", maps_dir, name);
	in = fopen("/proc/self/maps", "r");
	out = fopen(path, "w");
	if (!in || !out) {
		fprintf(stderr, "dlswap: cannot copy /proc/self/maps to %s\n", path);
		exit(74);	/* EX_IOERR */
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out)) {
		fprintf(stderr, "dlswap: writing %s failed\n", path);
		exit(74);
	}
}

static void run_lib(const char *dir, char which, double seconds)
{
	char path[4096], fn[8], tag[16];
	unsigned long (*hot)(double);
	void *h;

	snprintf(path, sizeof(path), "%s/libhot_%c.so", dir, which);
	snprintf(fn, sizeof(fn), "hot_%c", which);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		exit(66);	/* EX_NOINPUT */
	}
	*(void **)&hot = dlsym(h, fn);
	if (!hot) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		exit(65);	/* EX_DATAERR */
	}
	snprintf(tag, sizeof(tag), "%c", which);
	save_maps(tag);
	hot(seconds);
	dlclose(h);
	snprintf(tag, sizeof(tag), "%c-closed", which);
	save_maps(tag);
}

int main(int argc, char **argv)
{
	double seconds;
	int opt;

	while ((opt = getopt(argc, argv, "p:m:")) != -1) {
		switch (opt) {
		case 'p':
			write_pid("dlswap", optarg, (long)getpid());
			break;
		case 'm':
			maps_dir = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	seconds = parse_seconds("dlswap", argv[optind + 1]);
	run_lib(argv[optind], 'a', seconds);
	run_lib(argv[optind], 'b', seconds);
	return 0;
usage:
	fprintf(stderr, "usage: dlswap [-p PIDFILE] [-m DIR] LIBDIR SECONDS\n");
	return 64;	/* EX_USAGE */
}
