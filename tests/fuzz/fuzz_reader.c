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
 * else) and count no more than it was given, whatever it could decode;
 * packing the samples (opts.pack), it must save what reads back as the
 * same records, up to the same end or error.
 */
#include <sys/mman.h>

#include "fuzz_common.h"
#include "pmclog_common.h"
#include "pmclog_format.h"
#include "pmclog_writer.h"
#include "rec_list.h"

/*
 * The file of a writer given data in chunks, in *len bytes of malloc();
 * its counts in *st.
 */
static unsigned char *written(const uint8_t *data, size_t size, size_t chunk,
			      bool pack, size_t *len, struct pmclog_stats *st)
{
	struct pmclog_writer_opts opts = PMCLOG_WRITER_OPTS_INIT;
	int fd = memfd_create("fuzz_writer", MFD_CLOEXEC);
	struct pmclog_writer *w;
	unsigned char *p;

	if (fd < 0)
		fz_fail("memfd_create: %s", strerror(errno));
	opts.pack = pack;
	w = pmclog_writer__new(fd, &opts);
	if (!w)
		fz_fail("pmclog_writer__new: %s", strerror(errno));
	pmclog_set_print(NULL);	/* what it cannot decode, it says: not here */
	for (size_t off = 0; off < size; off += chunk)
		FZ_CHECK(!pmclog_writer__write(w, data + off,
					       size - off < chunk ? size - off : chunk),
			 "write to a memfd failed");
	FZ_CHECK(!pmclog_writer__finish(w), "finish failed");
	*len = pmclog_writer__written(w);
	*st = *pmclog_writer__stats(w);
	p = malloc(*len + 1);
	if (!p)
		fz_fail("out of memory");
	FZ_CHECK(pread(fd, p, *len, 0) == (ssize_t)*len, "the file is not %zu bytes", *len);
	pmclog_writer__free(w);
	close(fd);
	return p;
}

/*
 * Unpacked, the file is the input; packed, it reads back as the same
 * records, in an order that packing keeps (rec_list.h: samples of
 * different CPUs may move past one another), up to the same end or
 * error; the counts are the same.
 */
static void check_writer(const uint8_t *data, size_t size, size_t chunk)
{
	struct pmclog_stats sa, sb;
	size_t alen, blen, at;
	unsigned char *a = written(data, size, chunk, false, &alen, &sa);
	unsigned char *b = written(data, size, chunk, true, &blen, &sb);
	struct pmclog_reader *ra = pmclog_reader__new(NULL);
	struct pmclog_reader *rb = pmclog_reader__new(NULL);
	struct rec_list la, lb;
	const char *why;
	int reta, retb;

	if (!ra || !rb)
		fz_fail("pmclog_reader__new: %s", strerror(errno));
	FZ_CHECK(alen == size, "%zu bytes saved of %zu", alen, size);
	FZ_CHECK(!memcmp(a, data, size), "the file is not the input");
	/* A sample counts 32 bytes, packed or not; other records as given. */
	FZ_CHECK(sa.bytes >= sa.samples * sizeof(struct pmclog_pcsample) &&
		 sa.bytes - sa.samples * sizeof(struct pmclog_pcsample) <= size,
		 "more bytes counted than given");
	FZ_CHECK(sa.records == sb.records && sa.bytes == sb.bytes &&
		 sa.samples == sb.samples, "packed, the counts differ");
	pmclog_reader__feed(ra, a, alen);
	pmclog_reader__feed(rb, b, blen);
	pmclog_reader__feed_eof(ra);
	pmclog_reader__feed_eof(rb);
	reta = rec_list_read(ra, &la);
	retb = rec_list_read(rb, &lb);
	if (reta == -ENOMEM || retb == -ENOMEM)
		fz_fail("out of memory");
	why = rec_list_packed_diff(&la, &lb, &at);
	FZ_CHECK(!why, "record %zu once packed: %s", at, why ? why : "");
	FZ_CHECK(reta == retb, "after %zu records: %d unpacked, %d packed", la.n, reta, retb);
	rec_list_free(&la);
	rec_list_free(&lb);
	pmclog_reader__free(ra);
	pmclog_reader__free(rb);
	free(a);
	free(b);
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
