// SPDX-License-Identifier: GPL-2.0
/*
 * Write seed inputs for fuzz_reader into the directory argv[1]: valid
 * logs from tests/unit/log_builder.h, behind the chunk-size byte.
 */
#include <stdio.h>
#include <stdlib.h>

#include "log_builder.h"

static void write_seed(const char *dir, const char *name,
		       const struct logbuf *b, unsigned char chunk)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fputc(chunk, f) == EOF ||
	    fwrite(b->data, 1, b->len, f) != b->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static struct logbuf full, future;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	lb_full_log(&full);
	write_seed(argv[1], "full-log", &full, 255);
	write_seed(argv[1], "full-log-split7", &full, 6);

	lb_initialize(&future);
	lb_future(&future, 200);
	lb_pcsample(&future, 1, 2, 3, 0x400000, 1);
	lb_closelog(&future, 1, 0, 0);
	write_seed(argv[1], "future-type", &future, 255);
	return 0;
}
