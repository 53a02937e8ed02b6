// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog writer: save a log, keep its counts, add the recorder's
 * records.  See pmclog_writer.h.
 *
 * The input is cut into records by their headers' lengths; a record split
 * between two calls waits in w->buf until it is whole.  Each record then
 * takes one of two ways:
 *
 *   - a PCSAMPLE, once INITIALIZE is in (most of a log): checked and
 *     counted here, as the reader and the stats would, and saved, packed
 *     with its CPU's PCSAMPLEs before it into a PCSAMPLES with opts.pack;
 *   - any other record: handed to a pmclog_reader, whose records go to
 *     the writer's pmclog_tool (and on to the stats' tool and
 *     opts.tool), then saved as it came.  The reader is told how many
 *     bytes of PCSAMPLEs it did not see, so that its offsets are the
 *     log's.
 *
 * What is saved goes through w->out, which is written (compressed, with
 * opts.compression_level) when it fills and at the end of each call: a
 * recorder killed leaves its log cut where it stopped.  A record the
 * reader refuses, and everything after it, is saved as it came, not
 * counted; so is anything after CLOSELOG.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pmclog_internal.h"
#include "pmclog_writer.h"

/*
 * One CPU's run of PCSAMPLEs being packed: the first one, as it came, the
 * last tstamp and pc, and the deltas of the others.
 */
struct pack_run {
	__u32 run;		/* samples in it; 0: none */
	struct pmclog_pcsample first;
	__u64 last_tstamp, last_pc;
	size_t deltas_len;
	unsigned char deltas[PMCLOG_PACK_MAX - sizeof(struct pmclog_pcsamples)];
};

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
	__u32 ncpus;		/* INITIALIZE's, once the reader took it */
	size_t unseen;		/* bytes of PCSAMPLEs the reader was not given */

	unsigned char *buf;	/* the start of a record, held from an earlier call */
	size_t len, cap;
	__u64 base;		/* log offset of buf[0], or of the next input */
	unsigned char *out;	/* saved, not written yet */
	size_t out_len, out_cap;
	__u64 written;		/* bytes in the file */
	__u64 saved;		/* bytes of log saved (before compression) */
	ZSTD_CCtx *zc;		/* compressing: the stream, else NULL */
	unsigned char *zout;	/* its output, before write(2) */
	size_t zout_cap;

	/*
	 * opts.pack: the runs being packed, one per CPU that has one, made
	 * as its first sample comes (runs[] when the first sample does: a
	 * CPU is a __u16, below INITIALIZE's ncpus); open[] has their CPUs
	 * in the order the runs began.
	 */
	bool pack;
	struct pack_run **runs;
	__u32 *open;
	__u32 nopen;
	__u32 last_cpu;		/* the last sample's */
	__u64 span_end;		/* PACK_SPAN_NS after the oldest run's first */

	unsigned char *synth;	/* the synthetic records, staged */
	size_t synth_len, synth_cap;
	struct pmclog_buildid *bids;	/* BUILDIDs of START's kernel maps */
	size_t nbids, bids_cap;
};

/* Bytes of w->out that are written (compressed) at once. */
#define OUT_FLUSH	(64 * 1024)

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

/* Write [p, p + n) of log to the file, through zstd when compressing. */
static void write_log(struct pmclog_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	if (w->zc)
		compress_out(w, p, n, ZSTD_e_continue);
	else
		write_file(w, p, n);
}

static void flush_out(struct pmclog_writer *w)
{
	write_log(w, w->out, w->out_len);
	w->out_len = 0;
}

/* Save n bytes of log, after those saved before. */
static void save(struct pmclog_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	w->saved += n;
	if (n >= OUT_FLUSH) {
		flush_out(w);
		write_log(w, p, n);
		return;
	}
	if (w->out_len + n > 2 * OUT_FLUSH)
		flush_out(w);
	if (PMCLOG_GROW(w->out, w->out_cap, w->out_len + n)) {
		flush_out(w);
		write_log(w, p, n);
		return;
	}
	memcpy(w->out + w->out_len, p, n);
	w->out_len += n;
	if (w->out_len >= OUT_FLUSH)
		flush_out(w);
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
	save(w, w->synth, w->synth_len);
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

/* ------------------------------------------------------------------ */
/* Packing                                                            */

/*
 * The samples of a log come a CPU at a time from the module (each drain
 * moves one CPU's buffer), but in time order across CPUs from the BPF
 * collector, whose one ring the CPUs share: one run per CPU packs both.
 * A sample of one CPU then goes before those of another that came before
 * it, which a reader sorts back by tstamp (pmclog.h, "Order"), but never
 * past a record that is not a PCSAMPLE (every run is saved first), and
 * not for long: a sample PACK_SPAN_NS later than the first of the oldest
 * run saves them all first.
 */
#define PACK_SPAN_NS	100000000ULL

/* Save r: a PCSAMPLES, or the one PCSAMPLE as it came. */
static void run_save(struct pmclog_writer *w, struct pack_run *r)
{
	static const unsigned char nuls[PMCLOG_RECORD_ALIGN];
	struct pmclog_pcsamples ps;
	size_t len;

	if (r->run == 1)
		save(w, &r->first, sizeof(r->first));
	if (r->run < 2) {
		r->run = 0;
		return;
	}
	len = PMCLOG_RECORD_LEN(sizeof(ps) + r->deltas_len);
	ps = (struct pmclog_pcsamples){
		.header = r->first.header,
		.pid = r->first.pid,
		.tid = r->first.tid,
		.pc = r->first.pc,
		.count = r->run,
		.size = (__u32)r->deltas_len,
	};
	ps.header.type = PMCLOG_TYPE_PCSAMPLES;
	ps.header.length = (__u16)len;
	save(w, &ps, sizeof(ps));
	save(w, r->deltas, r->deltas_len);
	save(w, nuls, len - sizeof(ps) - r->deltas_len);
	r->run = 0;
}

/* The oldest run is another: when the runs must all be saved. */
static void span_from(struct pmclog_writer *w)
{
	__u64 t0 = w->nopen ? w->runs[w->open[0]]->first.header.tstamp : 0;

	w->span_end = w->nopen && t0 < UINT64_MAX - PACK_SPAN_NS ? t0 + PACK_SPAN_NS : UINT64_MAX;
}

/* Save CPU cpu's run, which ends. */
static void run_end(struct pmclog_writer *w, __u32 cpu)
{
	__u32 i = 0;

	run_save(w, w->runs[cpu]);
	while (w->open[i] != cpu)
		i++;
	w->nopen--;
	memmove(&w->open[i], &w->open[i + 1], (w->nopen - i) * sizeof(w->open[0]));
	if (!i)
		span_from(w);
}

/*
 * Save every run, in the order they began but the last sample's run
 * last: the record that came just before the next one (a CALLCHAIN, whose
 * sample is the one before it) is still just before it.
 */
static void pack_flush(struct pmclog_writer *w)
{
	bool last = false;

	for (__u32 i = 0; i < w->nopen; i++) {
		if (w->open[i] == w->last_cpu)
			last = true;
		else
			run_save(w, w->runs[w->open[i]]);
	}
	if (last)
		run_save(w, w->runs[w->last_cpu]);
	w->nopen = 0;
	w->span_end = UINT64_MAX;
}

/* CPU cpu's first run (the table of runs, at the first); NULL: no memory. */
static struct pack_run *run_new(struct pmclog_writer *w, __u32 cpu)
{
	if (!w->runs) {
		size_t n = w->ncpus < 65536 ? w->ncpus : 65536;

		w->runs = calloc(n, sizeof(*w->runs));
		w->open = calloc(n, sizeof(*w->open));
		if (!w->runs || !w->open) {
			free(w->runs);
			free(w->open);
			w->runs = NULL;
			w->open = NULL;
			return NULL;
		}
	}
	w->runs[cpu] = calloc(1, sizeof(*w->runs[cpu]));
	return w->runs[cpu];
}

static bool same_run(const struct pmclog_pcsample *a, const struct pmclog_pcsample *b)
{
	return a->header.cpu == b->header.cpu && a->header.flags == b->header.flags &&
	       a->header.pmcid == b->header.pmcid && a->pid == b->pid &&
	       a->tid == b->tid;
}

/*
 * Add s to its CPU's run, or end that run and start another with s; out of
 * memory for the run, s is saved as it came, after every run.
 */
static void pack_sample(struct pmclog_writer *w, const struct pmclog_pcsample *s)
{
	__u32 cpu = s->header.cpu;
	struct pack_run *r;

	if (s->header.tstamp > w->span_end)
		pack_flush(w);
	r = w->runs && w->runs[cpu] ? w->runs[cpu] : run_new(w, cpu);
	if (!r) {
		pack_flush(w);
		save(w, s, sizeof(*s));
	} else if (r->run && same_run(&r->first, s) &&
		   r->deltas_len + 2 * PMCLOG_DELTA_MAX <= sizeof(r->deltas)) {
		r->deltas_len += pmclog_delta_put(r->deltas + r->deltas_len,
						  r->last_tstamp, s->header.tstamp);
		r->deltas_len += pmclog_delta_put(r->deltas + r->deltas_len,
						  r->last_pc, s->pc);
		r->run++;
	} else {
		if (r->run)
			run_end(w, cpu);
		r->first = *s;
		r->deltas_len = 0;
		r->run = 1;
		w->open[w->nopen++] = cpu;
		if (w->nopen == 1)
			span_from(w);
	}
	if (r) {
		r->last_tstamp = s->header.tstamp;
		r->last_pc = s->pc;
	}
	w->last_cpu = cpu;
}

/* ------------------------------------------------------------------ */
/* The input                                                          */

/*
 * A PCSAMPLE the reader would take as it is, once INITIALIZE is in: the
 * checks of its pmclog_reader__next(), for the one record that needs no
 * more than its header.
 */
static bool plain_sample(const struct pmclog_writer *w, const struct pmclog_header *h)
{
	return h->type == PMCLOG_TYPE_PCSAMPLE && h->length == sizeof(struct pmclog_pcsample) &&
	       h->magic == PMCLOG_HEADER_MAGIC && h->cpu < w->ncpus;
}

/* A PCSAMPLE, counted and marked as the tools would, then saved. */
static void take_sample(struct pmclog_writer *w, const void *p, __u64 off)
{
	struct pmclog_pcsample s;

	memcpy(&s, p, sizeof(s));	/* the caller's bytes may be unaligned */
	w->stats.records++;
	w->stats.bytes += sizeof(s);
	w->stats.samples++;
	if (!(s.header.flags & PMCLOG_HF_USER))
		mark_pc(w, s.pc);
	if (w->observer) {
		struct pmclog_record rec;

		pmclog_record__describe(&rec, &s, off);
		pmclog_tool__deliver(w->observer, &rec);
	}
	w->unseen += sizeof(s);
	if (w->pack)
		pack_sample(w, &s);
	else
		save(w, &s, sizeof(s));
}

/*
 * From log offset off on, the input is saved as it comes, uncounted; the
 * run being packed, which came before, is saved first.
 */
static void stop_decoding(struct pmclog_writer *w, __u64 off, int ret)
{
	pack_flush(w);
	w->undecoded = true;
	if (ret == 0)
		pr_warn("%s: bytes after CLOSELOG (offset %llu), which ends a log: saved as read, not counted\n",
			w->name, (unsigned long long)off);
	else if (ret == -ENOMEM)
		pr_warn("%s: out of memory: the log is saved as read from offset %llu on, but not counted\n",
			w->name, (unsigned long long)off);
	else
		pr_warn("%s: %s; the log is saved as read from there on, but not counted\n",
			w->name, pmclog_reader__errmsg(w->reader));
}

/*
 * Any other record (n bytes at log offset off), or the first bytes of
 * input the headers cannot cut (a bad magic or length: n is all there
 * is): through the reader, then saved.  0, or what stopped the decoding:
 * 0 is also the end of the log, at CLOSELOG, when more comes.
 */
static int take_record(struct pmclog_writer *w, const void *p, size_t n, __u64 off)
{
	int ret;

	if (w->closelog_end)
		return 0;
	ret = w->unseen ? pmclog_reader__skip(w->reader, w->unseen) : 0;
	w->unseen = 0;
	if (!ret)
		ret = pmclog_reader__feed(w->reader, p, n);
	if (!ret) {
		ret = pmclog_tool__process(&w->tool, w->reader);
		if (ret == -EAGAIN || (!ret && w->closelog_end == off + n))
			ret = 1;
	}
	if (ret == 1) {
		save(w, p, n);
		if (!w->ncpus && pmclog_reader__initialize(w->reader))
			w->ncpus = pmclog_reader__initialize(w->reader)->ncpus;
	}
	return ret;
}

/*
 * The next record at [p, p + n) (log offset off), or the start of one:
 * its length when it was taken, 0 when it is not whole yet, or -1 when
 * decoding stopped at it.
 */
static ssize_t next_record(struct pmclog_writer *w, const unsigned char *p,
			   size_t n, __u64 off)
{
	struct pmclog_header h;
	int ret;

	if (n < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	if (w->ncpus && !w->closelog_end && plain_sample(w, &h)) {
		if (n < sizeof(struct pmclog_pcsample))
			return 0;
		take_sample(w, p, off);
		return h.length;
	}
	if (h.magic != PMCLOG_HEADER_MAGIC || h.length < sizeof(h) ||
	    h.length % PMCLOG_RECORD_ALIGN) {
		/* The reader says what is wrong with it. */
		stop_decoding(w, off, take_record(w, p, n, off));
		return -1;
	}
	if (n < h.length)
		return 0;
	pack_flush(w);
	ret = take_record(w, p, h.length, off);
	if (ret != 1) {
		stop_decoding(w, off, ret);
		return -1;
	}
	return h.length;
}

/*
 * Take the whole records at the start of [p, p + n), log offset w->base:
 * the bytes taken; all of them once decoding has stopped (saved as they
 * came).
 */
static size_t take_input(struct pmclog_writer *w, const unsigned char *p, size_t n)
{
	size_t done = 0;

	while (!w->undecoded && done < n) {
		ssize_t k = next_record(w, p + done, n - done, w->base);

		if (k <= 0)
			break;
		done += (size_t)k;
		w->base += (size_t)k;
	}
	if (w->undecoded) {
		save(w, p + done, n - done);
		w->base += n - done;
		done = n;
	}
	return done;
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
	w->pack = OPTS_GET(opts, pack, false);
	w->span_end = UINT64_MAX;
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

/*
 * The bytes of the record held in w->buf that it must have before it is
 * taken: its header, then all of it (as much as is held when the header
 * is bad: next_record() stops there).
 */
static size_t held_want(const struct pmclog_writer *w)
{
	struct pmclog_header h;

	if (w->len < sizeof(h))
		return sizeof(h);
	memcpy(&h, w->buf, sizeof(h));
	if (h.magic != PMCLOG_HEADER_MAGIC || h.length < sizeof(h) ||
	    h.length % PMCLOG_RECORD_ALIGN)
		return w->len;
	return h.length;
}

int pmclog_writer__write(struct pmclog_writer *w, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	int err = w->err;
	size_t k;

	if (w->finished || (!buf && len))
		return pmclog_err(EINVAL);
	/* The record begun in an earlier call, made whole first. */
	while (w->len && len) {
		size_t want = held_want(w);
		size_t n = want - w->len < len ? want - w->len : len;

		if (n && PMCLOG_GROW(w->buf, w->cap, w->len + n)) {
			stop_decoding(w, w->base, -ENOMEM);
			n = 0;
		}
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		p += n;
		len -= n;
		if (w->len < want && !w->undecoded)
			break;
		if (take_input(w, w->buf, w->len) == w->len)
			w->len = 0;
	}
	k = take_input(w, p, len);
	p += k;
	len -= k;
	/* Held back for the next call: the start of an incomplete record. */
	if (len && PMCLOG_GROW(w->buf, w->cap, w->len + len)) {
		stop_decoding(w, w->base, -ENOMEM);
		take_input(w, p, len);
		len = 0;
	}
	if (len) {
		memcpy(w->buf + w->len, p, len);
		w->len += len;
	}
	/*
	 * What was given is in the file, a zstd block at least (each one
	 * costs a few bytes, and the window is kept): a recorder killed
	 * leaves a log cut where it stopped, not a block before.
	 */
	pack_flush(w);
	flush_out(w);
	if (w->zc && !w->err)
		compress_out(w, NULL, 0, ZSTD_e_flush);
	return !err && w->err ? pmclog_err(-w->err) : 0;
}

int pmclog_writer__finish(struct pmclog_writer *w)
{
	if (w->finished)
		return w->err ? pmclog_err(-w->err) : 0;
	w->finished = true;
	pack_flush(w);
	if (w->len) {
		pr_warn("%s: the log ends inside a record at offset %llu: saved as read\n",
			w->name, (unsigned long long)w->base);
		save(w, w->buf, w->len);
		w->base += w->len;
		w->len = 0;
	}
	/* A log that stopped without CLOSELOG still gets its symbols. */
	add_synth(w);
	flush_out(w);
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
	free(w->out);
	free(w->synth);
	free(w->bids);
	ZSTD_freeCCtx(w->zc);
	free(w->zout);
	free(w->pcs);
	for (__u32 i = 0; w->runs && i < w->ncpus && i < 65536; i++)
		free(w->runs[i]);
	free(w->runs);
	free(w->open);
	free(w);
}
