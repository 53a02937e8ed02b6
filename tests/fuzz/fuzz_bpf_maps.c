// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what the BPF collector, running as root, makes of
 * names that any user chooses: the lines of /proc/PID/maps at START
 * (pmclog_maps_line.c), and the paths of the ring's MAP_IN and EXEC
 * events (pmclog_bpf_ring.c).
 *
 * Input: 1 byte choosing, then
 *
 *   bit 0 clear   maps text, read with pmclog_maps_line__next() to its
 *                 end: one call per line, a line taken only whole (its
 *                 newline there), its fields as sscanf() reads them, and
 *                 its path, with its newlines written "\012" again, the
 *                 line's own after the padding
 *   bit 0 set     an event's bytes (struct pmclog_bpf_map_in), of type
 *                 EV_EXEC with bit 1, else EV_MAP_IN: one record made
 *                 (MAP_OUTs before a PROCEXEC aside), whose path is "/"
 *                 and the event's names, leaf last, when the event holds
 *                 a whole path as the programs write one, and
 *                 "[unreachable]" when not; never a path cut short
 */
#include <inttypes.h>

#include "fuzz_common.h"
#include "pmclog_internal.h"
#include "../bpf/pmclog_bpf_events.h"

#define MODE_EVENT	0x1
#define MODE_EXEC	0x2

/* ------------------------------------------------------------------ */
/* /proc/PID/maps                                                     */

/* raw (len bytes, with its newline) and what was made of it. */
static void check_line(const char *raw, size_t len, const struct pmclog_maps_line *l)
{
	unsigned long long start, end, off, inode;
	unsigned int major, minor;
	char perms[5] = "", *line, *again, *w;
	const char *tail;
	int n = -1;

	FZ_CHECK(len && raw[len - 1] == '\n' && !memchr(raw, '\0', len),
		 "a line taken without its newline, or with a NUL");
	/* A string, for sscanf(). */
	line = strndup(raw, len);
	if (!line)
		fz_fail("out of memory");
	FZ_CHECK(sscanf(line, "%llx-%llx %4c %llx %x:%x %llu%n", &start, &end, perms, &off,
			&major, &minor, &inode, &n) == 7 && n > 0 && line[n] == ' ',
		 "a line taken that sscanf() does not read: %.*s", (int)len, line);
	FZ_CHECK(start == l->start && end == l->end && off == l->offset && major == l->major &&
		 minor == l->minor && inode == l->inode && !strcmp(perms, l->perms),
		 "a line's fields read otherwise: %.*s", (int)len, line);
	FZ_CHECK(l->start < l->end && strchr("r-", l->perms[0]) && strchr("w-", l->perms[1]) &&
		 strchr("x-", l->perms[2]) && strchr("sp", l->perms[3]),
		 "a range or permissions taken that the kernel never writes: %.*s", (int)len,
		 line);
	/* The path, escaped again, is what follows the padding. */
	for (tail = line + n; *tail == ' '; tail++)
		;
	again = malloc(4 * strlen(l->path) + 1);
	if (!again)
		fz_fail("out of memory");
	w = again;
	for (const char *p = l->path; *p; p++) {
		if (*p == '\n') {
			memcpy(w, "\\012", 4);
			w += 4;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	FZ_CHECK(strlen(again) == (size_t)(line + len - 1 - tail) &&
		 !memcmp(again, tail, strlen(again)),
		 "path \"%s\" is not the line's: %.*s", l->path, (int)len, line);
	free(again);
	free(line);
}

static void maps_text(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct pmclog_maps_line l;
	char *buf = NULL;
	size_t cap = 0, lines = 0, calls = 0, off = 0;
	int ret;

	if (!size)
		return;
	if (!f)
		fz_fail("fmemopen: %s", strerror(errno));
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines += data[size - 1] != '\n';
	while ((ret = pmclog_maps_line__next(f, &buf, &cap, &l))) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) + 1 : size - off;

		FZ_CHECK(ret == 1 || ret == -EINVAL, "line %zu: %d", calls, ret);
		FZ_CHECK(++calls <= lines, "%zu calls for %zu lines", calls, lines);
		if (ret == 1)
			check_line((const char *)data + off, len, &l);
		off += len;
	}
	FZ_CHECK(calls == lines && off == size, "%zu calls for %zu lines", calls, lines);
	free(buf);
	fclose(f);
}

/* ------------------------------------------------------------------ */
/* The ring's paths                                                   */

/*
 * The path e (size bytes) names, into want: its names split at their
 * NULs, from the last to the first, or "[unreachable]".
 */
static void expected_path(const struct pmclog_bpf_map_in *e, size_t size, char *want,
			  size_t room)
{
	const size_t at = offsetof(struct pmclog_bpf_map_in, names);
	const char *comp[PMCLOG_BPF_PATH_DEPTH], *end;
	size_t n = 0, len = 0;

	strcpy(want, "[unreachable]");
	if ((e->flags & PMCLOG_BPF_PATH_TRUNC) || e->nbytes > sizeof(e->names) ||
	    e->nbytes > size - at)
		return;
	end = e->names + e->nbytes;
	for (const char *p = e->names; p < end; ) {
		const char *z = memchr(p, '\0', (size_t)(end - p));

		if (!z || n == PMCLOG_BPF_PATH_DEPTH)
			return;
		comp[n++] = p;
		p = z + 1;
	}
	if (n != e->ncomp)
		return;
	want[len++] = '/';
	while (n--) {
		size_t l = strlen(comp[n]);

		FZ_CHECK(len + l + 2 <= room, "a path longer than the names");
		memcpy(want + len, comp[n], l);
		len += l;
		want[len++] = '/';
	}
	want[len > 1 ? len - 1 : len] = '\0';
}

static void ring_event(uint8_t mode, const uint8_t *data, size_t size)
{
	const size_t at = offsetof(struct pmclog_bpf_map_in, names);
	static char want[sizeof(((struct pmclog_bpf_map_in *)0)->names) + 16];
	struct pmclog_bpf_ring *ring = pmclog_bpf_ring__new();
	struct pmclog_bpf_map_in *e;
	const unsigned char *out;
	const char *path = NULL;
	size_t len, off = 0;

	if (!ring)
		fz_fail("pmclog_bpf_ring__new: %s", strerror(errno));
	/* Exactly size bytes, so that ASan sees a read past them. */
	e = malloc(size ? size : 1);
	if (!e)
		fz_fail("out of memory");
	memcpy(e, data, size);
	if (size >= sizeof(e->header)) {
		e->header.magic = PMCLOG_HEADER_MAGIC;
		e->header.type = mode & MODE_EXEC ? PMCLOG_BPF_EV_EXEC : PMCLOG_BPF_EV_MAP_IN;
	}
	pmclog_bpf_ring__record(ring, e, size);
	out = pmclog_bpf_ring__output(ring, &len);
	while (off < len) {
		const struct pmclog_header *h = (const void *)(out + off);
		size_t fixed = h->type == PMCLOG_TYPE_MAP_IN ? sizeof(struct pmclog_map_in) :
			       sizeof(struct pmclog_procexec);

		FZ_CHECK(len - off >= sizeof(*h) && h->magic == PMCLOG_HEADER_MAGIC &&
			 h->length % PMCLOG_RECORD_ALIGN == 0 && h->length <= len - off,
			 "a record made that does not fit at %zu", off);
		FZ_CHECK(!path, "a record after the MAP_IN or PROCEXEC");
		if (h->type == PMCLOG_TYPE_MAP_OUT) {
			off += h->length;
			continue;
		}
		FZ_CHECK(h->type == (mode & MODE_EXEC ? PMCLOG_TYPE_PROCEXEC : PMCLOG_TYPE_MAP_IN),
			 "a record of type %u made", h->type);
		FZ_CHECK(h->length > fixed && memchr(out + off + fixed, '\0', h->length - fixed),
			 "a path without its NUL");
		path = (const char *)out + off + fixed;
		if (h->type == PMCLOG_TYPE_MAP_IN) {
			const struct pmclog_map_in *r = (const void *)h;

			FZ_CHECK(r->pid == e->pid && r->start == e->start && r->end == e->end &&
				 r->offset == e->offset &&
				 r->flags == (e->flags & ~PMCLOG_BPF_PATH_TRUNC),
				 "a MAP_IN that is not the event's");
		}
		off += h->length;
	}
	if (size < at) {
		FZ_CHECK(!len, "a record made of a short event");
		goto out;
	}
	FZ_CHECK(path, "no record made of an event");
	if (!(mode & MODE_EXEC) &&
	    (e->pid == PMCLOG_PID_KERNEL || (e->flags & PMCLOG_MAP_F_ANON))) {
		/* A name, as the programs wrote it ("[vdso]"). */
		FZ_CHECK(strlen(path) <= size - at && !strncmp(path, e->names, strlen(path)),
			 "an anonymous MAP_IN's name not the event's");
		goto out;
	}
	expected_path(e, size, want, sizeof(want));
	FZ_CHECK(!strcmp(path, want), "path \"%.64s\" (%zu bytes) where \"%.64s\" (%zu) is",
		 path, strlen(path), want, strlen(want));
out:
	free(e);
	pmclog_bpf_ring__free(ring);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & MODE_EVENT)
		ring_event(data[0], data + 1, size - 1);
	else
		maps_text(data + 1, size - 1);
	return 0;
}
