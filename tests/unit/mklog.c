// SPDX-License-Identifier: GPL-2.0
/*
 * mklog KIND FILE: write a log of the kind check_cli.sh runs the pmclog
 * binary on, built with log_builder.h:
 *
 *   full       one record of every type, CLOSELOG last
 *   noclose    the same without CLOSELOG (a recorder that was killed)
 *   cut        the same, cut 20 bytes into its last record (CLOSELOG)
 *   corrupt    full, the magic of its third record zeroed
 *   notalog    a PCSAMPLE first: records, but not the start of a log
 *   text       a line of text
 *   empty      no bytes at all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_builder.h"

static struct logbuf b;

/* lb_full_log() up to, not including, CLOSELOG; its offset. */
static size_t full_but_closelog(void)
{
	lb_full_log(&b);
	return b.len - sizeof(struct pmclog_closelog);
}

int main(int argc, char **argv)
{
	const char *kind = argc == 3 ? argv[1] : "";
	const void *data = b.data;
	size_t len, closelog;
	FILE *f;

	if (!strcmp(kind, "full")) {
		lb_full_log(&b);
		len = b.len;
	} else if (!strcmp(kind, "noclose")) {
		len = full_but_closelog();
	} else if (!strcmp(kind, "cut")) {
		closelog = full_but_closelog();
		len = closelog + 20;
	} else if (!strcmp(kind, "corrupt")) {
		lb_full_log(&b);
		len = b.len;
		/* INITIALIZE, PMCALLOCATE, then the kernel's MAP_IN. */
		lb_header(&b, lb_header(&b, 0)->length +
			  lb_header(&b, lb_header(&b, 0)->length)->length)->magic = 0;
	} else if (!strcmp(kind, "notalog")) {
		lb_pcsample(&b, 0, 42, 42, 0x400123, 1);
		lb_closelog(&b, 1, 0, 0);
		len = b.len;
	} else if (!strcmp(kind, "text")) {
		data = "this is a text file, not a pmclog log\n";
		len = strlen(data);
	} else if (!strcmp(kind, "empty")) {
		len = 0;
	} else {
		fprintf(stderr, "usage: mklog full|noclose|cut|corrupt|notalog|text|empty FILE\n");
		return 64;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(argv[2]);
		return 73;
	}
	return 0;
}
