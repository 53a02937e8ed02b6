// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the reader, the dump formatter and the log writer on
 * arbitrary bytes.
 *
 * The first input byte chooses how the rest is fed (chunks of 1 to 256
 * bytes), so that record boundaries fall across feeds at every position.
 * The reader must never crash, read out of bounds, loop, or leak; every
 * record it accepts must be printable.  The writer, given the same
 * chunks, must save every byte as given (with no symbols to add, nothing
 * else) and count no more than it was given, whatever it could decode.
 */
#include <sys/mman.h>

#include "fuzz_common.h"
#include "pmclog_common.h"
#include "pmclog_format.h"
#include "pmclog_writer.h"

static void check_writer(const uint8_t *data, size_t size, size_t chunk)
{
	static unsigned char back[65536];
	struct pmclog_writer *w;
	int fd = memfd_create("fuzz_writer", MFD_CLOEXEC);

	if (fd < 0)
		fz_fail("memfd_create: %s", strerror(errno));
	w = pmclog_writer__new(fd, NULL);
	if (!w)
		fz_fail("pmclog_writer__new: %s", strerror(errno));
	pmclog_set_print(NULL);	/* what it cannot decode, it says: not here */
	for (size_t off = 0; off < size; off += chunk)
		FZ_CHECK(!pmclog_writer__write(w, data + off,
					       size - off < chunk ? size - off : chunk),
			 "write to a memfd failed");
	FZ_CHECK(!pmclog_writer__finish(w), "finish failed");
	FZ_CHECK(pmclog_writer__written(w) == size, "%llu bytes saved of %zu",
		 (unsigned long long)pmclog_writer__written(w), size);
	FZ_CHECK(pmclog_writer__stats(w)->bytes <= size, "more bytes counted than given");
	if (size <= sizeof(back))
		FZ_CHECK(pread(fd, back, size, 0) == (ssize_t)size &&
			 !memcmp(back, data, size), "the file is not the input");
	pmclog_writer__free(w);
	close(fd);
}

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
	check_writer(data, size, chunk);
	return 0;
}
