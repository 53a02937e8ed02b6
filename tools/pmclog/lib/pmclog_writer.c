// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog writer: save a log, keep its counts, add the recorder's
 * records.  See pmclog_writer.h.
 *
 * The input not saved yet is log offsets [w->base, w->base + w->len +
 * w->cur_len): what an earlier call held back (an incomplete record, in
 * w->buf), then the rest of the caller's buffer in this call (w->cur).
 * Whole records are saved at once, from the caller's buffer, except that
 * CLOSELOG's callback saves what precedes it and then the synthetic
 * records, before CLOSELOG itself goes; only what is left at the end of a
 * call is copied.  The decoding is a pmclog_reader fed the same
 * bytes, and the writer is a pmclog_tool: every record also goes to the
 * stats' tool.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pmclog_internal.h"
#include "pmclog_writer.h"

struct pmclog_writer {
	struct pmclog_tool tool;
	struct pmclog_stats stats;
	struct pmclog_reader *reader;
	int fd;
	char *name;
	struct pmclog_kallsyms *ksyms;	/* NULL once its records are written */
	/*
	 * opts.ksyms_later, until pmclog_writer__add_ksyms(): the kernel
	 * PCs to mark then.
	 */
	bool ksyms_later;
	__u64 *pcs;
	size_t npcs, pcs_cap;
	bool pcs_lost;		/* out of memory for them: said once */
	char *sysfs;			/* NULL: no BUILDIDs of the kernel */
	struct pmclog_tool *observer;	/* opts.tool, or NULL */
	bool synth_done;		/* the synthetic records are written */
	struct pmclog_header init;	/* INITIALIZE's header */
	bool have_init;
	bool undecoded;		/* the reader stopped: the rest is saved as is */
	bool finished;
	int err;		/* sticky write(2) error, negative */
	__u64 closelog_end;	/* log offset just past CLOSELOG; 0: none yet */

	unsigned char *buf;	/* input held back from an earlier call */
	size_t len, cap;
	__u64 base;		/* log offset of buf[0] */
	const unsigned char *cur;	/* the caller's, during a call: after buf */
	size_t cur_len;
	__u64 written;		/* bytes in the file */
	__u64 saved;		/* bytes of log saved (before compression) */
	ZSTD_CCtx *zc;		/* compressing: the stream, else NULL */
	unsigned char *zout;	/* its output, before write(2) */
	size_t zout_cap;

	unsigned char *synth;	/* the synthetic records, staged */
	size_t synth_len, synth_cap;
	struct pmclog_buildid *bids;	/* BUILDIDs of START's kernel maps */
	size_t nbids, bids_cap;
};

static struct pmclog_writer *writer_of(struct pmclog_tool *tool)
{
	return container_of(tool, struct pmclog_writer, tool);
}

/* ------------------------------------------------------------------ */
/* Output                                                             */

static void write_file(struct pmclog_writer *w, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n && !w->err) {
		ssize_t k = write(w->fd, b, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			w->err = -errno;
			break;
		}
		b += k;
		n -= (size_t)k;
		w->written += (size_t)k;
	}
}

/*
 * Compress [p, p + n) into the stream (ZSTD_e_continue), flush what it
 * holds (ZSTD_e_flush, p NULL), or end the stream (ZSTD_e_end, p NULL).
 */
static void compress_out(struct pmclog_writer *w, const void *p, size_t n,
			 ZSTD_EndDirective how)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->zout, w->zout_cap, 0 };

		left = ZSTD_compressStream2(w->zc, &out, &in, how);
		if (ZSTD_isError(left)) {
			pr_warn("%s: cannot compress the log: zstd: %s\n", w->name,
				ZSTD_getErrorName(left));
			w->err = -ENOMEM;
			return;
		}
		write_file(w, w->zout, out.pos);
	} while (!w->err && (how == ZSTD_e_continue ? in.pos < in.size : left != 0));
}

static void write_out(struct pmclog_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	w->saved += n;
	if (w->zc)
		compress_out(w, p, n, ZSTD_e_continue);
	else
		write_file(w, p, n);
}

/* The log offset just past the input given so far. */
static __u64 input_end(const struct pmclog_writer *w)
{
	return w->base + w->len + w->cur_len;
}

/* Save the input up to log offset upto: what was held, then the caller's. */
static void save_input(struct pmclog_writer *w, __u64 upto)
{
	size_t n = (size_t)(upto - w->base);
	size_t held = n < w->len ? n : w->len;

	if (held) {
		write_out(w, w->buf, held);
		memmove(w->buf, w->buf + held, w->len - held);
		w->len -= held;
	}
	n -= held;
	if (n) {
		write_out(w, w->cur, n);
		w->cur += n;
		w->cur_len -= n;
	}
	w->base = upto;
}

/* ------------------------------------------------------------------ */
/* Synthetic records                                                  */

/* Stage the synthetic record raw (its header says its length), counted. */
static int stage_record(struct pmclog_writer *w, const void *raw)
{
	size_t n = ((const struct pmclog_header *)raw)->length;
	struct pmclog_record rec;

	if (PMCLOG_GROW(w->synth, w->synth_cap, w->synth_len + n))
		return -ENOMEM;
	memcpy(w->synth + w->synth_len, raw, n);
	pmclog_record__describe(&rec, w->synth + w->synth_len,
				w->base + w->synth_len);
	w->synth_len += n;
	return pmclog_tool__deliver(&w->stats.tool, &rec);
}

static int stage_synth(void *ctx, const struct pmclog_ksymbol *ks)
{
	return stage_record(ctx, ks);
}

/*
 * The GNU build-id among the ELF notes in p (n bytes, as sysfs shows a
 * notes section): 1 and *b filled, or 0.
 */
static int note_build_id(const unsigned char *p, size_t n,
			 struct pmclog_buildid *b)
{
	size_t off = 0;

	while (n - off >= 12) {
		__u32 namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name = ((size_t)namesz + 3) & ~(size_t)3;
		desc = ((size_t)descsz + 3) & ~(size_t)3;
		if (name > n - off - 12 || desc > n - off - 12 - name)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    !memcmp(p + off + 12, "GNU", 4) && descsz &&
		    descsz <= PMCLOG_BUILD_ID_MAX) {
			b->size = (__u8)descsz;
			memcpy(b->build_id, p + off + 12 + name, descsz);
			return 1;
		}
		off += 12 + name + desc;
	}
	return 0;
}

/*
 * START's MAP_IN of the kernel or of a module: its build-id, from sysfs
 * now, kept for the synthetic records.  A module that sysfs no longer
 * shows (unloaded since START) goes without.
 */
static int note_kernel_map(struct pmclog_writer *w, const struct pmclog_record *rec)
{
	const struct pmclog_map_in *m = rec->rec.map_in;
	struct pmclog_buildid b = { 0 };
	unsigned char notes[4096];
	char path[PATH_MAX];
	ssize_t n;
	int fd, len;

	if (m->flags & PMCLOG_MAP_F_KMODULE)
		len = snprintf(path, sizeof(path), "%s/module/%s/notes/.note.gnu.build-id",
			       w->sysfs, rec->path);
	else
		len = snprintf(path, sizeof(path), "%s/kernel/notes", w->sysfs);
	if (len < 0 || (size_t)len >= sizeof(path) || strchr(rec->path, '/'))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	do
		n = read(fd, notes, sizeof(notes));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0 || !note_build_id(notes, (size_t)n, &b))
		return 0;
	if (PMCLOG_GROW(w->bids, w->bids_cap, w->nbids + 1))
		return -ENOMEM;
	b.header = (struct pmclog_header){
		.magic = PMCLOG_HEADER_MAGIC, .type = PMCLOG_TYPE_BUILDID,
		.length = sizeof(b), .flags = PMCLOG_HF_SYNTH,
	};
	b.pid = PMCLOG_PID_KERNEL;
	b.start = m->start;
	w->bids[w->nbids++] = b;
	return 0;
}

/*
 * The recorder's records: the KSYMBOLs of the kernel functions the
 * samples fell in, from the symbols read at START, then the BUILDIDs of
 * START's kernel maps, with INITIALIZE's tstamp and cpu: they describe
 * the kernel as it was then, wherever they sit in the file.  Once.
 */
static void add_synth(struct pmclog_writer *w)
{
	struct pmclog_stats before = w->stats;
	int ret = 0;

	if (w->synth_done || (!w->ksyms && !w->nbids))
		return;
	w->synth_done = true;
	w->synth_len = 0;
	if (!w->have_init)
		ret = -EINVAL;
	if (!ret && w->ksyms)
		ret = pmclog_kallsyms__foreach_record(w->ksyms, true, w->init.tstamp,
						      w->init.cpu, stage_synth, w);
	for (size_t i = 0; !ret && i < w->nbids; i++) {
		w->bids[i].header.tstamp = w->init.tstamp;
		w->bids[i].header.cpu = w->init.cpu;
		ret = stage_record(w, &w->bids[i]);
	}
	pmclog_kallsyms__free(w->ksyms);
	w->ksyms = NULL;
	if (ret) {
		w->stats = before;
		pr_warn("cannot add the kernel's symbols and build-ids to %s: %s\n",
			w->name, w->have_init ? "out of memory" : "the log has no INITIALIZE");
		return;
	}
	write_out(w, w->synth, w->synth_len);
}

/* ------------------------------------------------------------------ */
/* The records                                                        */

static int on_record(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_writer *w = writer_of(tool);
	int ret = pmclog_tool__deliver(&w->stats.tool, rec);

	if (w->observer)
		pmclog_tool__deliver(w->observer, rec);
	return ret;
}

static int on_initialize(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_writer *w = writer_of(tool);

	w->init = *rec->rec.header;
	w->have_init = true;
	return 0;
}

static int on_map_in(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_writer *w = writer_of(tool);
	const struct pmclog_map_in *m = rec->rec.map_in;

	if (!w->sysfs || w->synth_done || m->pid != PMCLOG_PID_KERNEL ||
	    !(m->flags & PMCLOG_MAP_F_INITIAL) || (m->flags & PMCLOG_MAP_F_INIT))
		return 0;
	if (note_kernel_map(w, rec)) {
		pr_warn("%s: out of memory: the build-ids of the kernel and its modules are not added\n",
			w->name);
		free(w->sysfs);
		w->sysfs = NULL;
	}
	return 0;
}

/* Mark the kernel function of pc, now or once the symbols come. */
static void mark_pc(struct pmclog_writer *w, __u64 pc)
{
	if (w->ksyms) {
		pmclog_kallsyms__mark(w->ksyms, pc);
		return;
	}
	if (!w->ksyms_later || (w->npcs && w->pcs[w->npcs - 1] == pc))
		return;
	if (PMCLOG_GROW(w->pcs, w->pcs_cap, w->npcs + 1)) {
		if (!w->pcs_lost)
			pr_warn("%s: out of memory: some kernel functions sampled before the kernel's symbols were read will not be named\n",
				w->name);
		w->pcs_lost = true;
		return;
	}
	w->pcs[w->npcs++] = pc;
}

/* A kernel sample marks the function it fell in, for add_synth(). */
static int on_pcsample(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_writer *w = writer_of(tool);

	if (!(rec->flags & PMCLOG_HF_USER))
		mark_pc(w, rec->rec.pcsample->pc);
	return 0;
}

/*
 * A stack's kernel frames mark theirs too (pc - 1 for a return address:
 * the call; the PC itself for the first frame and one after
 * PMCLOG_CC_EXACT), so that a report names every kernel caller.
 */
static int on_callchain(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_writer *w = writer_of(tool);
	const struct pmclog_callchain *c = rec->rec.callchain;

	for (unsigned int i = 0; (w->ksyms || w->ksyms_later) && i < c->nkernel; i++) {
		bool exact = !i || c->pc[i - 1] == PMCLOG_CC_EXACT;

		if (c->pc[i] && c->pc[i] != PMCLOG_CC_EXACT)
			mark_pc(w, exact ? c->pc[i] : c->pc[i] - 1);
	}
	return 0;
}

/* CLOSELOG is the last record: the recorder's go just before it. */
static int on_closelog(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_writer *w = writer_of(tool);

	save_input(w, rec->offset);
	add_synth(w);
	w->closelog_end = rec->offset + rec->length;
	return 0;
}

static const struct pmclog_tool writer_tool = {
	.record		= on_record,
	.initialize	= on_initialize,
	.map_in		= on_map_in,
	.pcsample	= on_pcsample,
	.callchain	= on_callchain,
	.closelog	= on_closelog,
};

/* Decode what was fed, and save the whole records. */
static void decode(struct pmclog_writer *w)
{
	int ret = pmclog_tool__process(&w->tool, w->reader);

	if (ret == -EAGAIN) {
		/* Where the reader waits: the start of an incomplete record. */
		save_input(w, pmclog_reader__offset(w->reader));
		return;
	}
	w->undecoded = true;
	if (ret == 0 && input_end(w) > w->closelog_end)
		pr_warn("%s: %llu bytes after CLOSELOG (offset %llu), which ends a log: saved as read, not counted\n",
			w->name, (unsigned long long)(input_end(w) - w->closelog_end),
			(unsigned long long)w->closelog_end);
	else if (ret)
		pr_warn("%s: %s; the log is saved as read from there on, but not counted\n",
			w->name, pmclog_reader__errmsg(w->reader));
}

/* ------------------------------------------------------------------ */
/* API                                                                */

struct pmclog_writer *pmclog_writer__new(int fd,
					 const struct pmclog_writer_opts *opts)
{
	struct pmclog_kallsyms *ksyms = OPTS_GET(opts, ksyms, NULL);
	const char *name = OPTS_GET(opts, name, NULL);
	const char *sysfs = OPTS_GET(opts, sysfs, NULL);
	struct pmclog_tool *observer = OPTS_GET(opts, tool, NULL);
	int level = OPTS_GET(opts, compression_level, 0);
	struct pmclog_writer *w;

	if (!OPTS_VALID(opts, pmclog_writer_opts__last_field) || fd < 0 ||
	    level < 0 || level > ZSTD_maxCLevel()) {
		pmclog_kallsyms__free(ksyms);
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		pmclog_kallsyms__free(ksyms);
		errno = ENOMEM;
		return NULL;
	}
	w->tool = writer_tool;
	pmclog_stats__init(&w->stats);
	w->fd = fd;
	w->ksyms = ksyms;
	w->ksyms_later = !ksyms && OPTS_GET(opts, ksyms_later, false);
	w->name = strdup(name ? name : "the log");
	w->reader = pmclog_reader__new(NULL);
	if (w->reader)
		pmclog_reader__plain(w->reader);
	w->sysfs = sysfs ? strdup(sysfs) : NULL;
	w->observer = observer;
	if (!w->name || !w->reader || (sysfs && !w->sysfs)) {
		pmclog_writer__free(w);
		errno = ENOMEM;
		return NULL;
	}
	if (level) {
		w->zc = ZSTD_createCCtx();
		w->zout_cap = ZSTD_CStreamOutSize();
		w->zout = malloc(w->zout_cap);
		/* A checksum per frame: damage the records did not show is found. */
		if (!w->zc || !w->zout ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1))) {
			pmclog_writer__free(w);
			errno = ENOMEM;
			return NULL;
		}
	}
	return w;
}

/* Out of memory for the input at log offset off: save it undecoded. */
static void out_of_memory(struct pmclog_writer *w, __u64 off)
{
	if (!w->undecoded)
		pr_warn("%s: out of memory: the log is saved as read from offset %llu on, but not counted\n",
			w->name, (unsigned long long)off);
	w->undecoded = true;
}

int pmclog_writer__write(struct pmclog_writer *w, const void *buf, size_t len)
{
	__u64 off = input_end(w);	/* of buf */
	int err = w->err;

	if (w->finished || (!buf && len))
		return pmclog_err(EINVAL);
	w->cur = buf;
	w->cur_len = len;
	if (!w->undecoded && pmclog_reader__feed(w->reader, buf, len))
		out_of_memory(w, off);
	if (!w->undecoded)
		decode(w);
	if (w->undecoded)
		save_input(w, input_end(w));
	/* Held back for the next call: the start of an incomplete record. */
	if (w->cur_len && PMCLOG_GROW(w->buf, w->cap, w->len + w->cur_len)) {
		out_of_memory(w, input_end(w) - w->cur_len);
		save_input(w, input_end(w));
	}
	if (w->cur_len) {
		memcpy(w->buf + w->len, w->cur, w->cur_len);
		w->len += w->cur_len;
	}
	w->cur = NULL;
	w->cur_len = 0;
	/*
	 * What was given is in the file, a zstd block at least (each one
	 * costs a few bytes, and the window is kept): a recorder killed
	 * leaves a log cut where it stopped, not a block before.
	 */
	if (w->zc && !w->err)
		compress_out(w, NULL, 0, ZSTD_e_flush);
	return !err && w->err ? pmclog_err(-w->err) : 0;
}

int pmclog_writer__finish(struct pmclog_writer *w)
{
	if (w->finished)
		return w->err ? pmclog_err(-w->err) : 0;
	w->finished = true;
	if (w->len)
		pr_warn("%s: the log ends inside a record at offset %llu: saved as read\n",
			w->name, (unsigned long long)w->base);
	save_input(w, input_end(w));
	/* A log that stopped without CLOSELOG still gets its symbols. */
	add_synth(w);
	if (w->zc && !w->err)
		compress_out(w, NULL, 0, ZSTD_e_end);
	return w->err ? pmclog_err(-w->err) : 0;
}

const struct pmclog_stats *pmclog_writer__stats(const struct pmclog_writer *w)
{
	return &w->stats;
}

__u64 pmclog_writer__written(const struct pmclog_writer *w)
{
	return w->written;
}

int pmclog_writer__add_ksyms(struct pmclog_writer *w, struct pmclog_kallsyms *ks)
{
	if (!w->ksyms_later || w->synth_done) {
		pmclog_kallsyms__free(ks);
		return pmclog_err(EINVAL);
	}
	w->ksyms_later = false;
	w->ksyms = ks;
	for (size_t i = 0; ks && i < w->npcs; i++)
		pmclog_kallsyms__mark(ks, w->pcs[i]);
	free(w->pcs);
	w->pcs = NULL;
	w->npcs = w->pcs_cap = 0;
	return 0;
}

__u64 pmclog_writer__saved(const struct pmclog_writer *w)
{
	return w->saved;
}

int pmclog_writer__error(const struct pmclog_writer *w)
{
	return w->err;
}

void pmclog_writer__free(struct pmclog_writer *w)
{
	if (!w)
		return;
	pmclog_reader__free(w->reader);
	pmclog_kallsyms__free(w->ksyms);
	free(w->name);
	free(w->sysfs);
	free(w->buf);
	free(w->synth);
	free(w->bids);
	ZSTD_freeCCtx(w->zc);
	free(w->zout);
	free(w->pcs);
	free(w);
}
