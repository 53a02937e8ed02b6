// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the reader and the dump formatter on arbitrary bytes.
 *
 * The first input byte chooses how the rest is fed (chunks of 1 to 256
 * bytes), so that record boundaries fall across feeds at every position.
 * The reader must never crash, read out of bounds, loop, or leak; every
 * record it accepts must be printable.
 */
#include "fuzz_common.h"
#include "pmclog_format.h"

/*
 * Read records until the reader wants more bytes (1) or is done (0).  An
 * error is sticky and says where and why.
 */
static int read_available(struct pmclog_reader *r)
{
	struct pmclog_record rec;
	int ret;

	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		fz_check_record(&rec);
		FZ_CHECK(!pmclog_format_record(fz_devnull(), &rec),
			 "record at offset %llu not printed", (unsigned long long)rec.offset);
	}
	if (ret == -EAGAIN)
		return 1;
	if (ret < 0) {
		FZ_CHECK(pmclog_reader__error(r) == ret && pmclog_reader__errmsg(r)[0],
			 "error %d without its message", ret);
		FZ_CHECK(pmclog_reader__next(r, &rec) == ret, "error %d not sticky", ret);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmclog_reader *r;
	size_t chunk, off;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] + 1;
	data++;
	size--;

	r = pmclog_reader__new(NULL);
	if (!r)
		fz_fail("pmclog_reader__new: %s", strerror(errno));
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
