// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the reader and the dump formatter on arbitrary bytes.
 *
 * The first input byte chooses how the rest is fed (chunks of 1 to 256
 * bytes), so that record boundaries fall across feeds at every position.
 * The reader must never crash, read out of bounds, loop, or leak; every
 * record it accepts must be printable.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmclog_format.h"
#include "pmclog_reader.h"

static FILE *devnull;

/* What the reader promises of every record it accepts. */
static void check_record(const struct pmclog_record *rec)
{
	if (rec->length < sizeof(struct pmclog_header) ||
	    rec->length % PMCLOG_RECORD_ALIGN ||
	    rec->length < pmclog_record_min_size(rec->type))
		abort();
	if ((rec->type == PMCLOG_TYPE_MAP_IN ||
	     rec->type == PMCLOG_TYPE_PROCEXEC) && !rec->path)
		abort();
}

/* Read records until the reader wants more bytes; 0 once it is done. */
static int read_available(struct pmclog_reader *r)
{
	struct pmclog_record rec;
	int ret;

	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		check_record(&rec);
		pmclog_format_record(devnull, &rec);
	}
	return ret == -EAGAIN ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmclog_reader *r;
	size_t chunk, off;

	if (size < 1)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	chunk = (size_t)data[0] + 1;
	data++;
	size--;

	r = pmclog_reader__new(NULL);
	if (!r)
		return 0;
	for (off = 0; off < size; off += chunk) {
		size_t len = size - off < chunk ? size - off : chunk;

		pmclog_reader__feed(r, data + off, len);
		if (!read_available(r))
			break;
	}
	pmclog_reader__feed_eof(r);
	read_available(r);
	pmclog_reader__free(r);
	return 0;
}
