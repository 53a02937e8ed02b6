// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog archive: the objects a log maps, copied while they are
 * mapped.  See pmclog_archive.h.
 *
 * Two threads: the recorder's, which delivers records to the tool and
 * only queues maps (on_map_in, on_buildid, under a->lock), and the
 * archive's own (worker()), which opens, checks and copies.  Everything
 * but the queue and the stats is the worker's alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "pmclog_internal.h"
#include "pmclog_archive.h"
#include "pmclog_file.h"

#define ARCHIVE_MAX_BYTES	(1ULL << 30)
#define ARCHIVE_MAX_TOTAL	(4ULL << 30)
#define ARCHIVE_QUEUE		4096
#define ARCHIVE_TIMEOUT_MS	10000
#define ARCHIVE_BUF		(1 << 16)

/* A map to copy, as the log gave it. */
struct job {
	__u32 pid;
	__u8 id_size;			/* 0: no BUILDID came for it */
	__u8 id[PMCLOG_BUILD_ID_MAX];
	__u64 start, end;
	char *path;
};

/* What is copied: a build, or a file without a build-id. */
struct copied {
	__u8 size;			/* 0: no build-id, keyed by path */
	__u8 id[PMCLOG_BUILD_ID_MAX];
	bool byid;			/* it has its name under .build-id */
	char *path;
	/* The file it was read from (0: none), to know it again unread. */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
};

struct pmclog_archive {
	struct pmclog_tool tool;
	char *dir;
	int root;			/* DIR, open */
	char *procfs;
	__u64 max_bytes, max_total;
	unsigned int timeout_ms;

	/* The worker's. */
	struct copied *copied;
	size_t ncopied, copied_cap;
	unsigned char *buf;		/* for copies without copy_file_range */
	bool said_full;

	/* Shared, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t more;		/* a job was queued, or stop */
	pthread_cond_t idle;		/* the queue ran empty (CLOCK_MONOTONIC) */
	struct job *q;
	size_t qcap, qhead, qlen;
	struct job *cur;		/* the worker's job, whose BUILDID may come late */
	/*
	 * The delivering thread's: the last MAP_IN, queued only with the
	 * record after it, which is its BUILDID when it has one (path NULL:
	 * none held).
	 */
	struct job held;
	bool stop;			/* no more jobs: the worker ends when done */
	bool orphan;			/* ... and frees the archive */
	pthread_t thread;
	bool have_thread;
	struct pmclog_archive_stats stats;
};

static void count(struct pmclog_archive *a, __u64 *field, __u64 n)
{
	pthread_mutex_lock(&a->lock);
	*field += n;
	pthread_mutex_unlock(&a->lock);
}

/* ------------------------------------------------------------------ */
/* Copies                                                             */

/*
 * Whether only root may have made the file open on fd what it is: root's,
 * writable by nobody else, on a file system that honours set-id bits
 * (a user's FUSE mount is nosuid, and may say any owner).  Only such a
 * file names a build under .build-id: a build-id is the file's own word.
 */
static bool trusted(int fd, const struct stat *st)
{
	struct statvfs vfs;

	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH)) &&
	       !fstatvfs(fd, &vfs) && !(vfs.f_flag & ST_NOSUID);
}

/* Whether st is the file c was read from: no need to read it again. */
static bool same_file(const struct copied *c, const struct stat *st)
{
	return c->ino && c->dev == st->st_dev && c->ino == st->st_ino &&
	       c->mtime.tv_sec == st->st_mtim.tv_sec &&
	       c->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* [off, off + n) of in to the same place of out. */
static int copy_span(struct pmclog_archive *a, int in, int out, off_t off, off_t n)
{
	off_t in_off = off, out_off = off, end = off + n;

	while (in_off < end) {
		ssize_t r = copy_file_range(in, &in_off, out, &out_off, (size_t)(end - in_off), 0);

		if (r > 0)
			continue;
		if (!r)
			return -EIO;	/* shorter than it said */
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
		    errno != EOPNOTSUPP)
			return -errno;
		/* Another file system, or an old kernel: by hand. */
		while (in_off < end) {
			size_t want = (size_t)(end - in_off) < ARCHIVE_BUF ?
				      (size_t)(end - in_off) : ARCHIVE_BUF;
			ssize_t got = pread(in, a->buf, want, in_off);

			if (got <= 0)
				return got ? -errno : -EIO;
			if (pwrite(out, a->buf, (size_t)got, in_off) != got)
				return -errno;
			in_off += got;
		}
	}
	return 0;
}

/*
 * The size bytes of in to out, holes left as holes: a sparse file costs
 * what it holds, not what it says.
 */
static int copy_sparse(struct pmclog_archive *a, int in, int out, off_t size)
{
	off_t off = 0;
	int err;

	while (off < size) {
		off_t data = lseek(in, off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;		/* a hole to the end */
		if (data < 0) {
			/* No SEEK_DATA here: all of it is data. */
			data = off;
			hole = size;
		} else {
			hole = lseek(in, data, SEEK_HOLE);
			if (hole < 0 || hole > size)
				hole = size;
		}
		if (data >= size)
			break;
		err = copy_span(a, in, out, data, hole - data);
		if (err)
			return err;
		off = hole;
	}
	return ftruncate(out, size) ? -errno : 0;
}

/*
 * A path of the log that names a place below the archive: no ".", "..",
 * and not the archive's own .build-id, which only the archive names.
 */
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
		if (c == p + strspn(p, "/") && n == 9 && !strncmp(c, ".build-id", 9))
			return false;
		if (!next)
			break;
	}
	return true;
}

/*
 * The copy of that build (size > 0), or of that path without a build-id,
 * that stands: a build is copied once, unless only a copy without its
 * .build-id name stands and this one may have it (trust).
 */
static struct copied *already(struct pmclog_archive *a, const __u8 *id, int size,
			      const char *path, bool trust)
{
	for (size_t i = 0; i < a->ncopied; i++) {
		struct copied *c = &a->copied[i];

		if (c->size != size ||
		    (size ? memcmp(c->id, id, (size_t)size) : strcmp(c->path, path)))
			continue;
		if (!size || c->byid || !trust)
			return c;
	}
	return NULL;
}

/* That build (size > 0), or that path, is done with: copied, or said. */
static int remember(struct pmclog_archive *a, const __u8 *id, int size, const char *path,
		    const struct stat *st, bool byid)
{
	struct copied *c;

	if (PMCLOG_GROW(a->copied, a->copied_cap, a->ncopied + 1))
		return -ENOMEM;
	c = &a->copied[a->ncopied];
	*c = (struct copied){ .size = (__u8)size, .byid = byid };
	if (st) {
		c->dev = st->st_dev;
		c->ino = st->st_ino;
		c->mtime = st->st_mtim;
	}
	if (size)
		memcpy(c->id, id, (size_t)size);
	if (!(c->path = strdup(path)))
		return -ENOMEM;
	a->ncopied++;
	return 0;
}

/*
 * Why the file of path is not in the archive: said and counted once for
 * each path; refused: a file the archive would not take.
 */
__attribute__((format(printf, 4, 5)))
static void not_copied(struct pmclog_archive *a, const char *path, bool refused,
		       const char *fmt, ...)
{
	char e[PMCLOG_ESCAPED_PATH], why[256];
	va_list ap;

	if (already(a, NULL, 0, path, false))
		return;
	pthread_mutex_lock(&a->lock);
	a->stats.failed++;
	a->stats.refused += refused;
	pthread_mutex_unlock(&a->lock);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_warn("archive: %s not copied: %s\n", pmclog_escape(e, sizeof(e), path), why);
	remember(a, NULL, 0, path, NULL, false);
}

/*
 * Whether the file open on fd is the one the MAP_IN named path: what the
 * kernel calls it now, in the mapping process's view of the file system.
 */
static bool is_mapped_path(int fd, const char *path, bool *deleted)
{
	static const char suffix[] = " (deleted)";
	char self[64], now[PATH_MAX + sizeof(suffix)];
	size_t n = strlen(path);
	ssize_t len;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	len = readlink(self, now, sizeof(now) - 1);
	if (len < 0)
		return false;
	now[len] = '\0';
	*deleted = (size_t)len == n + sizeof(suffix) - 1 && !strncmp(now, path, n) &&
		   !strcmp(now + n, suffix);
	return *deleted || !strcmp(now, path);
}

/*
 * Whether path names the file st in the recorder's own view of the file
 * system.  The kernel names a mapped file from the mapping process's
 * root: a process in a mount namespace of its own may show any path
 * (a bind mount over /usr/lib/libc.so.6, a file at "/usr"), and only
 * the recorder's view says what DIR/PATH may hold.  O_PATH: nothing is
 * opened for reading, no device's or FIFO's open() called.
 */
static bool names_it_here(const char *path, const struct stat *st)
{
	struct stat here;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	bool same;

	if (fd < 0)
		return false;
	same = !fstat(fd, &here) && S_ISREG(here.st_mode) && here.st_dev == st->st_dev &&
	       here.st_ino == st->st_ino;
	close(fd);
	return same;
}

/* Whether rel names anything below DIR (a link included). */
static bool exists(struct pmclog_archive *a, const char *rel)
{
	struct stat st;

	return !fstatat(a->root, rel, &st, AT_SYMLINK_NOFOLLOW);
}

/* Whether build id has its name under .build-id already. */
static bool has_build_id_name(struct pmclog_archive *a, const __u8 *id, int size)
{
	char byid[PATH_MAX];

	return !pmclog_build_id_path(byid, sizeof(byid), ".", id, (size_t)size) &&
	       exists(a, byid + 2);
}

/*
 * Name the staged copy (fd, and name in DIR if it has one) rel below DIR,
 * its folders made, unless rel is there (-EEXIST).  Folders are 0700: a
 * copy keeps its source's mode, and so must the folders a private file
 * was in (the copies are of every user's programs).
 */
static int name_copy(struct pmclog_archive *a, int fd, const char *name, const char *rel)
{
	const char *base;
	int dir, err;

	dir = pmclog_file__mkdirs_at(a->root, rel, 0700, &base);
	if (dir < 0)
		return dir;
	err = pmclog_file__link_new(fd, a->root, name, dir, base);
	close(dir);
	return err;
}

static const char *copy_error(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link, or a file, stands where its path needs a folder in the archive";
	case -EPERM:
		return "a folder on its way in the archive is another user's, or others may write to it";
	default:
		return strerror(-err);
	}
}

/*
 * The file of a queued MAP_IN: into the archive, if it is what was mapped.
 * Copied first, then read: the build-id is the copy's, which nobody else
 * can change while it is read (libelf's reading of another user's file
 * could be cut short under it, and their bytes changed after the check).
 */
static void archive_job(struct pmclog_archive *a, const struct job *j)
{
	char src[PATH_MAX], byid[PATH_MAX], magic[4], tmp[32];
	const char *rel = j->path;
	__u8 id[PMCLOG_BUILD_ID_MAX], want[PMCLOG_BUILD_ID_MAX];
	bool trust, at_path, deleted, named = false, byid_named = false;
	struct stat st;
	int fd, out, size, want_size, err = 0;

	/* Below DIR: an absolute rel would leave it in every *at() call. */
	while (*rel == '/')
		rel++;
	if (!*rel)
		return;
	snprintf(src, sizeof(src), "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
		 a->procfs, j->pid, (uint64_t)j->start, (uint64_t)j->end);
	fd = pmclog_file__open_read(AT_FDCWD, src, PMCLOG_FILE_FOLLOW, a->max_bytes, &st);
	if (fd == -ENOENT || fd == -ESRCH) {
		count(a, &a->stats.gone, 1);
		return;
	}
	if (fd < 0) {
		if (fd == -EFBIG)
			not_copied(a, j->path, true, "larger than the archive's limit of %llu bytes",
				   (unsigned long long)a->max_bytes);
		else if (fd == -EINVAL || fd == -EISDIR)
			not_copied(a, j->path, true, "not a regular file");
		else
			not_copied(a, j->path, false, "%s", strerror(-fd));
		return;
	}
	/* Every process maps libc: the same file is not read again. */
	for (size_t i = 0; i < a->ncopied; i++) {
		if (same_file(&a->copied[i], &st)) {
			close(fd);
			return;
		}
	}
	/* The range now holds another file (the process mapped again). */
	if (!is_mapped_path(fd, j->path, &deleted)) {
		close(fd);
		count(a, &a->stats.gone, 1);
		return;
	}
	if (pread(fd, magic, sizeof(magic), 0) != sizeof(magic) || memcmp(magic, "\177ELF", 4)) {
		close(fd);
		not_copied(a, j->path, true, "not an ELF file");
		return;
	}
	trust = trusted(fd, &st);
	/* A file since deleted is named by what it was, when root's. */
	at_path = deleted ? trust : names_it_here(j->path, &st);
	if (!at_path && !trust) {
		/* Another view's file, or a claim: nowhere it may go. */
		close(fd);
		count(a, &a->stats.refused, 1);
		return;
	}
	if (a->stats.bytes + (__u64)st.st_size > a->max_total) {
		char e[PMCLOG_ESCAPED_PATH];

		close(fd);
		if (!a->said_full)
			pr_warn("archive: %s holds %llu bytes, its limit: the files mapped from now on are not copied\n",
				pmclog_escape(e, sizeof(e), a->dir), (unsigned long long)a->stats.bytes);
		a->said_full = true;
		count(a, &a->stats.refused, 1);
		return;
	}
	pthread_mutex_lock(&a->lock);
	want_size = j->id_size;
	memcpy(want, j->id, sizeof(want));
	pthread_mutex_unlock(&a->lock);
	/* A build the log named, whose names are there: nothing to copy. */
	if (want_size && (already(a, want, want_size, j->path, trust) ||
			  ((!at_path || exists(a, rel)) &&
			   (!trust || has_build_id_name(a, want, want_size))))) {
		close(fd);
		remember(a, want, want_size, j->path, &st, trust);
		return;
	}
	out = pmclog_file__tmpfile_at(a->root, tmp, sizeof(tmp));
	if (out < 0) {
		close(fd);
		not_copied(a, j->path, false, "%s", strerror(-out));
		return;
	}
	err = copy_sparse(a, fd, out, st.st_size);
	close(fd);
	if (!err && fchmod(out, st.st_mode & 0777))
		err = -errno;
	size = err ? 0 : pmclog_fd_build_id(out, id);
	pthread_mutex_lock(&a->lock);
	want_size = j->id_size;
	memcpy(want, j->id, sizeof(want));
	pthread_mutex_unlock(&a->lock);
	if (!err && want_size && (size != want_size || memcmp(id, want, (size_t)size))) {
		not_copied(a, j->path, true, "its build-id is not the one the log mapped");
		goto drop;
	}
	if (!err && already(a, id, size, j->path, trust))
		goto drop;
	/* DIR/PATH: the first build of PATH; .build-id: each build of root's. */
	if (!err && at_path) {
		err = name_copy(a, out, tmp, rel);
		named = !err;
		if (err == -EEXIST)
			err = 0;
	}
	if (!err && size && trust) {
		err = pmclog_build_id_path(byid, sizeof(byid), ".", id, (size_t)size);
		if (!err) {
			err = name_copy(a, out, tmp, byid + 2);
			named |= !err;
			if (err == -EEXIST)
				err = 0;
		}
		byid_named = !err;
	}
	if (err) {
		not_copied(a, j->path, err == -ELOOP || err == -EPERM,
			   "%s", copy_error(err));
		goto drop;
	}
	if (named) {
		pthread_mutex_lock(&a->lock);
		a->stats.objects++;
		a->stats.bytes += (__u64)st.st_size;
		pthread_mutex_unlock(&a->lock);
	}
	remember(a, id, size, j->path, &st, byid_named);
drop:
	if (tmp[0])
		unlinkat(a->root, tmp, 0);
	close(out);
}

/* ------------------------------------------------------------------ */
/* The queue                                                          */

static void free_archive(struct pmclog_archive *a)
{
	for (size_t i = 0; i < a->ncopied; i++)
		free(a->copied[i].path);
	for (size_t i = 0; i < a->qlen; i++)
		free(a->q[(a->qhead + i) % a->qcap].path);
	free(a->held.path);
	free(a->copied);
	free(a->q);
	free(a->dir);
	free(a->procfs);
	free(a->buf);
	if (a->root >= 0)
		close(a->root);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->more);
	pthread_cond_destroy(&a->idle);
	free(a);
}

static void *worker(void *arg)
{
	struct pmclog_archive *a = arg;
	bool orphan;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct job j;

		while (!a->qlen && !a->stop)
			pthread_cond_wait(&a->more, &a->lock);
		if (!a->qlen)
			break;
		j = a->q[a->qhead];
		a->qhead = (a->qhead + 1) % a->qcap;
		a->qlen--;
		a->cur = &j;
		pthread_mutex_unlock(&a->lock);

		archive_job(a, &j);
		free(j.path);

		pthread_mutex_lock(&a->lock);
		a->cur = NULL;
		if (!a->qlen)
			pthread_cond_broadcast(&a->idle);
	}
	orphan = a->orphan;
	pthread_mutex_unlock(&a->lock);
	if (orphan)
		free_archive(a);
	return NULL;
}

/* The held MAP_IN, if any, to the worker. */
static void release_held(struct pmclog_archive *a)
{
	if (!a->held.path)
		return;
	pthread_mutex_lock(&a->lock);
	if (a->qlen == a->qcap) {
		a->stats.dropped++;
		free(a->held.path);
	} else {
		a->q[(a->qhead + a->qlen++) % a->qcap] = a->held;
		pthread_cond_signal(&a->more);
	}
	pthread_mutex_unlock(&a->lock);
	a->held.path = NULL;
}

/* Any record but a BUILDID ends the wait of the MAP_IN before it. */
static int on_record(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	if (rec->type != PMCLOG_TYPE_BUILDID)
		release_held(container_of(tool, struct pmclog_archive, tool));
	return 0;
}

static int on_map_in(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_archive *a = container_of(tool, struct pmclog_archive, tool);
	const struct pmclog_map_in *m = rec->rec.map_in;
	char *path;

	if (m->pid == PMCLOG_PID_KERNEL || (m->flags & PMCLOG_MAP_F_ANON) ||
	    !path_ok(rec->path))
		return 0;
	path = strdup(rec->path);
	if (!path) {
		count(a, &a->stats.dropped, 1);
		return 0;
	}
	a->held = (struct job){ .pid = m->pid, .start = m->start, .end = m->end, .path = path };
	return 0;
}

/*
 * j is the map b is of: its file must have b's build-id.  Lock held, or
 * j the held MAP_IN.
 */
static bool take_buildid(struct job *j, const struct pmclog_buildid *b)
{
	if (!j || j->pid != b->pid || j->start != b->start)
		return false;
	if (!j->id_size) {
		j->id_size = b->size;
		memcpy(j->id, b->build_id, b->size);
	}
	return true;
}

/*
 * The build-id of the MAP_IN just before it, as the module writes them,
 * which goes to the worker with it; else of a map queued, or being
 * copied: the worker compares it with its copy's once the copy is made.
 */
static int on_buildid(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_archive *a = container_of(tool, struct pmclog_archive, tool);
	const struct pmclog_buildid *b = rec->rec.buildid;
	bool found = false;

	if (b->pid == PMCLOG_PID_KERNEL || !b->size || b->size > PMCLOG_BUILD_ID_MAX) {
		release_held(a);
		return 0;
	}
	if (a->held.path && take_buildid(&a->held, b)) {
		release_held(a);
		return 0;
	}
	release_held(a);
	pthread_mutex_lock(&a->lock);
	/* It follows its MAP_IN: look from the newest. */
	for (size_t i = a->qlen; i-- > 0 && !found;)
		found = take_buildid(&a->q[(a->qhead + i) % a->qcap], b);
	if (!found)
		take_buildid(a->cur, b);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* API                                                                */

struct pmclog_archive *pmclog_archive__new(const char *dir,
					   const struct pmclog_archive_opts *opts)
{
	const char *procfs = OPTS_GET(opts, procfs, NULL);
	char why[PATH_MAX + 160];
	pthread_condattr_t cattr;
	sigset_t all, old;
	struct pmclog_archive *a;
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
	a->root = -1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->more, NULL);
	/* Timed waits on it measure time elapsed, not the wall clock. */
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&a->idle, &cattr);
	pthread_condattr_destroy(&cattr);
	a->tool.record = on_record;
	a->tool.map_in = on_map_in;
	a->tool.buildid = on_buildid;
	a->max_bytes = OPTS_GET(opts, max_bytes, 0) ?: ARCHIVE_MAX_BYTES;
	a->max_total = OPTS_GET(opts, max_total, 0) ?: ARCHIVE_MAX_TOTAL;
	a->qcap = OPTS_GET(opts, queue, 0) ?: ARCHIVE_QUEUE;
	a->timeout_ms = OPTS_GET(opts, timeout_ms, 0) ?: ARCHIVE_TIMEOUT_MS;
	a->dir = strdup(dir);
	a->procfs = strdup(procfs ? procfs : "/proc");
	a->buf = malloc(ARCHIVE_BUF);
	a->q = calloc(a->qcap, sizeof(*a->q));
	if (!a->dir || !a->procfs || !a->buf || !a->q) {
		free_archive(a);
		errno = ENOMEM;
		return NULL;
	}
	/* "DIR/" and "DIR" are the same folder. */
	for (size_t n = strlen(a->dir); n > 1 && a->dir[n - 1] == '/'; n--)
		a->dir[n - 1] = '\0';
	/* 0700: copies keep their modes, but their names are the users'. */
	a->root = pmclog_file__open_tree(a->dir, 0700, why, sizeof(why));
	if (a->root < 0) {
		err = -a->root;
		if (*why)
			pr_warn("archive: %s\n", why);
		a->root = -1;
		free_archive(a);
		errno = err;
		return NULL;
	}
	/* Signals are the recorder's to take, in its own thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&a->thread, NULL, worker, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free_archive(a);
		errno = err;
		return NULL;
	}
	a->have_thread = true;
	return a;
}

struct pmclog_tool *pmclog_archive__tool(struct pmclog_archive *a)
{
	return &a->tool;
}

int pmclog_archive__flush(struct pmclog_archive *a, unsigned int timeout_ms)
{
	struct timespec until;
	int err = 0;

	release_held(a);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&a->lock);
	while ((a->qlen || a->cur) && !err)
		err = pthread_cond_timedwait(&a->idle, &a->lock, &until);
	if (err && !a->qlen && !a->cur)
		err = 0;
	pthread_mutex_unlock(&a->lock);
	return err ? pmclog_err(ETIMEDOUT) : 0;
}

const struct pmclog_archive_stats *pmclog_archive__stats(const struct pmclog_archive *a)
{
	return &a->stats;
}

void pmclog_archive__free(struct pmclog_archive *a)
{
	if (!a)
		return;
	if (!a->have_thread) {
		free_archive(a);
		return;
	}
	if (pmclog_archive__flush(a, a->timeout_ms)) {
		char e[PMCLOG_ESCAPED_PATH];

		pthread_mutex_lock(&a->lock);
		pr_warn("archive: copies into %s did not end in %u ms (a file that does not answer?): %zu maps not copied\n",
			pmclog_escape(e, sizeof(e), a->dir), a->timeout_ms, a->qlen + !!a->cur);
		/* Whatever is still queued is dropped; the worker ends after its copy. */
		for (size_t i = 0; i < a->qlen; i++)
			free(a->q[(a->qhead + i) % a->qcap].path);
		a->qlen = 0;
		if (a->cur) {
			/* Detached before the worker can see orphan and free a. */
			pthread_detach(a->thread);
			a->stop = true;
			a->orphan = true;
			pthread_cond_signal(&a->more);
			pthread_mutex_unlock(&a->lock);
			return;
		}
		pthread_mutex_unlock(&a->lock);
	}
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->more);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	free_archive(a);
}
