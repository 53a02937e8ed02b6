// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog archive: the objects a log maps, copied while they are
 * mapped.  See pmclog_archive.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmclog_internal.h"
#include "pmclog_archive.h"

/* What is copied: a build, or a file without a build-id. */
struct copied {
	__u8 size;			/* 0: no build-id, keyed by path */
	__u8 id[PMCLOG_BUILD_ID_MAX];
	char *path;			/* with size 0 */
	/* The file it was read from (0: none), to know it again unread. */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
};

/* Whether st is the file c was read from: no need to read it again. */
static bool same_file(const struct copied *c, const struct stat *st)
{
	return c->ino && c->dev == st->st_dev && c->ino == st->st_ino &&
	       c->mtime.tv_sec == st->st_mtim.tv_sec &&
	       c->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

struct pmclog_archive {
	struct pmclog_tool tool;
	char *dir;
	char *procfs;
	struct copied *copied;
	size_t ncopied, copied_cap;
	struct pmclog_archive_stats stats;
	unsigned char *buf;		/* for copies without copy_file_range */
};

#define ARCHIVE_BUF	(1 << 16)

/* ------------------------------------------------------------------ */
/* Copies                                                             */

/* dir/rel's folders, made. */
static int make_parents(char *path, size_t skip)
{
	for (char *s = strchr(path + skip, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = errno;

			*s = '/';
			return -err;
		}
		*s = '/';
	}
	return 0;
}

/* Copy fd (from its start) to path, through a temporary name. */
static int copy_to(struct pmclog_archive *a, int fd, const char *path, __u64 *bytes)
{
	char tmp[PATH_MAX];
	int out, err = 0;
	off_t in_off = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >=
	    sizeof(tmp))
		return -ENAMETOOLONG;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	*bytes = 0;
	for (;;) {
		ssize_t n = copy_file_range(fd, &in_off, out, NULL, 1 << 30, 0);

		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP)) {
			/* procfs or an old kernel: by hand. */
			while ((n = pread(fd, a->buf, ARCHIVE_BUF, in_off)) > 0) {
				if (write(out, a->buf, (size_t)n) != n) {
					n = -1;
					break;
				}
				in_off += n;
				*bytes += (__u64)n;
			}
		} else if (n > 0) {
			*bytes += (__u64)n;
			continue;
		}
		if (n < 0)
			err = -errno;
		break;
	}
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* A path of the log that names a place below the archive: no ".", "..". */
static bool path_ok(const char *p)
{
	if (p[0] != '/')
		return false;
	for (const char *c = p; *c; c = strchr(c, '/') ? strchr(c, '/') : c + strlen(c)) {
		const char *next;
		size_t n;

		while (*c == '/')
			c++;
		next = strchr(c, '/');
		n = next ? (size_t)(next - c) : strlen(c);
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!next)
			break;
	}
	return true;
}

static bool already(const struct pmclog_archive *a, const __u8 *id, int size,
		    const char *path)
{
	for (size_t i = 0; i < a->ncopied; i++) {
		const struct copied *c = &a->copied[i];

		if (c->size == size &&
		    (size ? !memcmp(c->id, id, (size_t)size) : !strcmp(c->path, path)))
			return true;
	}
	return false;
}

/* That build (size > 0), or that path, is done with: copied, or said. */
static int remember(struct pmclog_archive *a, const __u8 *id, int size,
		    const char *path, const struct stat *st)
{
	struct copied *c;

	if (PMCLOG_GROW(a->copied, a->copied_cap, a->ncopied + 1))
		return -ENOMEM;
	c = &a->copied[a->ncopied];
	*c = (struct copied){ .size = (__u8)size };
	if (st) {
		c->dev = st->st_dev;
		c->ino = st->st_ino;
		c->mtime = st->st_mtim;
	}
	if (size)
		memcpy(c->id, id, (size_t)size);
	else if (!(c->path = strdup(path)))
		return -ENOMEM;
	a->ncopied++;
	return 0;
}

/*
 * The file of the MAP_IN of pid at [start, end) named path: into the
 * archive, unless that build (or that path, without a build-id) is there.
 */
static int archive_map(struct pmclog_archive *a, __u32 pid, __u64 start, __u64 end,
		       const char *path)
{
	char src[PATH_MAX], dst[PATH_MAX], byid[PATH_MAX];
	__u8 id[PMCLOG_BUILD_ID_MAX];
	bool from_path = false, have_dst = false;
	struct stat st;
	__u64 bytes = 0;
	int fd, size, err;

	if (!path_ok(path))
		return 0;
	snprintf(src, sizeof(src), "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
		 a->procfs, pid, (uint64_t)start, (uint64_t)end);
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		from_path = true;
	}
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = fd < 0 ? errno : EINVAL;
		if (fd >= 0)
			close(fd);
		if (already(a, NULL, 0, path))
			return 0;
		a->stats.failed++;
		pr_warn("archive: cannot copy %s: %s\n", path,
			err == EINVAL ? "not a regular file" : strerror(err));
		return remember(a, NULL, 0, path, NULL);
	}
	/* Every process maps libc: the same file is not read again. */
	for (size_t i = 0; i < a->ncopied; i++) {
		if (same_file(&a->copied[i], &st)) {
			close(fd);
			return 0;
		}
	}
	size = pmclog_fd_build_id(fd, id);
	if (already(a, id, size, path)) {
		close(fd);
		return 0;
	}
	/* PATH holds the first build of it; each build is under .build-id. */
	err = (size_t)snprintf(dst, sizeof(dst), "%s%s", a->dir, path) >= sizeof(dst) ?
	      -ENAMETOOLONG : make_parents(dst, strlen(a->dir) + 1);
	if (!err && access(dst, F_OK)) {
		err = copy_to(a, fd, dst, &bytes);
		have_dst = !err;
	}
	if (!err && size) {
		err = pmclog_build_id_path(byid, sizeof(byid), a->dir, id, (size_t)size);
		if (!err)
			err = make_parents(byid, strlen(a->dir) + 1);
		/* One copy where one will do; none if an earlier run made it. */
		if (!err && access(byid, F_OK) && (!have_dst || link(dst, byid)))
			err = copy_to(a, fd, byid, &bytes);
	}
	close(fd);
	if (err) {
		a->stats.failed++;
		pr_warn("archive: cannot copy %s into %s: %s\n", path, a->dir,
			strerror(-err));
		return remember(a, NULL, 0, path, NULL);
	}
	a->stats.objects++;
	a->stats.bytes += (__u64)st.st_size;
	a->stats.from_path += from_path;
	return remember(a, id, size, path, &st);
}

static int on_map_in(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_archive *a = container_of(tool, struct pmclog_archive, tool);
	const struct pmclog_map_in *m = rec->rec.map_in;

	if (m->pid == PMCLOG_PID_KERNEL || (m->flags & PMCLOG_MAP_F_ANON))
		return 0;
	return archive_map(a, m->pid, m->start, m->end, rec->path);
}

/* ------------------------------------------------------------------ */
/* API                                                                */

struct pmclog_archive *pmclog_archive__new(const char *dir,
					   const struct pmclog_archive_opts *opts)
{
	const char *procfs = OPTS_GET(opts, procfs, NULL);
	struct pmclog_archive *a;
	char *d;
	int err;

	if (!OPTS_VALID(opts, pmclog_archive_opts__last_field) || !dir || !*dir) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	a->tool.map_in = on_map_in;
	a->dir = strdup(dir);
	a->procfs = strdup(procfs ? procfs : "/proc");
	a->buf = malloc(ARCHIVE_BUF);
	if (!a->dir || !a->procfs || !a->buf) {
		pmclog_archive__free(a);
		errno = ENOMEM;
		return NULL;
	}
	/* "DIR/" and "DIR" are the same folder. */
	for (size_t n = strlen(a->dir); n > 1 && a->dir[n - 1] == '/'; n--)
		a->dir[n - 1] = '\0';
	d = malloc(strlen(a->dir) + 2);
	if (!d) {
		pmclog_archive__free(a);
		errno = ENOMEM;
		return NULL;
	}
	sprintf(d, "%s/", a->dir);
	err = make_parents(d, 1);
	free(d);
	if (err) {
		pmclog_archive__free(a);
		errno = -err;
		return NULL;
	}
	return a;
}

struct pmclog_tool *pmclog_archive__tool(struct pmclog_archive *a)
{
	return &a->tool;
}

const struct pmclog_archive_stats *pmclog_archive__stats(const struct pmclog_archive *a)
{
	return &a->stats;
}

void pmclog_archive__free(struct pmclog_archive *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->ncopied; i++)
		free(a->copied[i].path);
	free(a->copied);
	free(a->dir);
	free(a->procfs);
	free(a->buf);
	free(a);
}
