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
#include <time.h>
#include <unistd.h>

#include "pmclog_internal.h"
#include "pmclog_archive.h"
#include "pmclog_file.h"

#define ARCHIVE_MAX_BYTES	(1ULL << 30)
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
	bool trusted;			/* from a file that only root may write */
	bool wrote_path;		/* this run made DIR/path from it */
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
	__u64 max_bytes;
	unsigned int timeout_ms;

	/* The worker's. */
	struct copied *copied;
	size_t ncopied, copied_cap;
	unsigned char *buf;		/* for copies without copy_file_range */

	/* Shared, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t more;		/* a job was queued, or stop */
	pthread_cond_t idle;		/* the queue ran empty */
	struct job *q;
	size_t qcap, qhead, qlen;
	bool busy;			/* the worker holds a job */
	bool stop;			/* no more jobs: the worker ends when done */
	bool orphan;			/* ... and frees the archive */
	pthread_t thread;
	bool have_thread;
	struct pmclog_archive_stats stats;
};

/* s, escaped for one line of a message (a path is another user's to name). */
static const char *esc(char *buf, size_t len, const char *s)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f)
		return "(unprintable)";
	pmclog_put_escaped(f, s, "");
	if (fclose(f))
		buf[len - 1] = '\0';
	return buf;
}

static void count(struct pmclog_archive *a, __u64 *field, __u64 n)
{
	pthread_mutex_lock(&a->lock);
	*field += n;
	pthread_mutex_unlock(&a->lock);
}

/* ------------------------------------------------------------------ */
/* Copies                                                             */

/* Whether only root may change the file st. */
static bool trusted(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
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

/*
 * The copy of that build (size > 0) or that path that stands: one of a
 * file that root alone may change stands against any; one of another
 * user's file only against another user's.
 */
static struct copied *already(struct pmclog_archive *a, const __u8 *id, int size,
			      const char *path, bool trust, bool *weaker)
{
	*weaker = false;
	for (size_t i = 0; i < a->ncopied; i++) {
		struct copied *c = &a->copied[i];

		if (c->size != size ||
		    (size ? memcmp(c->id, id, (size_t)size) : strcmp(c->path, path)))
			continue;
		if (c->trusted || !trust)
			return c;
		*weaker = true;
	}
	return NULL;
}

/* The copy this run made at DIR/path from another user's file, if any. */
static bool path_written_untrusted(const struct pmclog_archive *a, const char *path)
{
	for (size_t i = 0; i < a->ncopied; i++)
		if (a->copied[i].wrote_path && !a->copied[i].trusted &&
		    !strcmp(a->copied[i].path, path))
			return true;
	return false;
}

/* That build (size > 0), or that path, is done with: copied, or said. */
static int remember(struct pmclog_archive *a, const __u8 *id, int size, const char *path,
		    const struct stat *st, bool wrote_path)
{
	struct copied *c;

	if (PMCLOG_GROW(a->copied, a->copied_cap, a->ncopied + 1))
		return -ENOMEM;
	c = &a->copied[a->ncopied];
	*c = (struct copied){ .size = (__u8)size, .wrote_path = wrote_path };
	if (st) {
		c->dev = st->st_dev;
		c->ino = st->st_ino;
		c->mtime = st->st_mtim;
		c->trusted = trusted(st);
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
	char e[PATH_MAX * 4 + 1], why[256];
	bool weaker;
	va_list ap;

	if (already(a, NULL, 0, path, false, &weaker))
		return;
	pthread_mutex_lock(&a->lock);
	a->stats.failed++;
	a->stats.refused += refused;
	pthread_mutex_unlock(&a->lock);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_warn("archive: %s not copied: %s\n", esc(e, sizeof(e), path), why);
	remember(a, NULL, 0, path, NULL, false);
}

/* Whether the file open on fd is the one the MAP_IN named path. */
static bool is_mapped_path(int fd, const char *path)
{
	static const char deleted[] = " (deleted)";
	char self[64], now[PATH_MAX + sizeof(deleted)];
	size_t n = strlen(path);
	ssize_t len;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	len = readlink(self, now, sizeof(now) - 1);
	if (len < 0)
		return false;
	now[len] = '\0';
	return !strcmp(now, path) ||
	       ((size_t)len == n + sizeof(deleted) - 1 && !strncmp(now, path, n) &&
		!strcmp(now + n, deleted));
}

/*
 * A new file named rel below DIR holding in's size bytes, mode mode;
 * replace: over whatever is there, else not if something is (-EEXIST).
 */
static int write_copy(struct pmclog_archive *a, int in, off_t size, mode_t mode,
		      const char *rel, bool replace)
{
	char tmp[32];
	const char *base;
	int dir, out, err;

	dir = pmclog_file__mkdirs_at(a->root, rel, 0755, &base);
	if (dir < 0)
		return dir;
	out = pmclog_file__tmp_at(dir, tmp, sizeof(tmp));
	if (out < 0) {
		close(dir);
		return out;
	}
	err = copy_sparse(a, in, out, size);
	if (!err && fchmod(out, mode))
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	if (!err)
		err = replace ? (renameat(dir, tmp, dir, base) ? -errno : 0) :
		      pmclog_file__rename_new(dir, tmp, dir, base);
	if (err)
		unlinkat(dir, tmp, 0);
	close(dir);
	return err;
}

/* Whether rel names anything below DIR (a link included). */
static bool exists(struct pmclog_archive *a, const char *rel)
{
	struct stat st;

	return !fstatat(a->root, rel, &st, AT_SYMLINK_NOFOLLOW);
}

/* Give rel's file below DIR a second name, rel2 (its folders made). */
static int link_copy(struct pmclog_archive *a, const char *rel, const char *rel2,
		     bool replace)
{
	const char *base;
	int dir, err;

	dir = pmclog_file__mkdirs_at(a->root, rel2, 0755, &base);
	if (dir < 0)
		return dir;
	if (replace)
		unlinkat(dir, base, 0);
	err = linkat(a->root, rel, dir, base, 0) ? -errno : 0;
	close(dir);
	return err;
}

static const char *copy_error(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link stands on its way in the archive";
	case -EPERM:
		return "a folder on its way in the archive is another user's, or others may write to it";
	default:
		return strerror(-err);
	}
}

/* The file of a queued MAP_IN: into the archive, if it is what was mapped. */
static void archive_job(struct pmclog_archive *a, const struct job *j)
{
	char src[PATH_MAX], byid[PATH_MAX], magic[4];
	const char *rel = j->path;
	__u8 id[PMCLOG_BUILD_ID_MAX];
	bool trust, weaker, replace_path = false, replace_id = false, wrote = false;
	struct stat st;
	int fd, size, err = 0;

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
	if (!is_mapped_path(fd, j->path)) {
		close(fd);
		count(a, &a->stats.gone, 1);
		return;
	}
	if (pread(fd, magic, sizeof(magic), 0) != sizeof(magic) || memcmp(magic, "\177ELF", 4)) {
		close(fd);
		not_copied(a, j->path, true, "not an ELF file");
		return;
	}
	size = pmclog_fd_build_id(fd, id);
	if (j->id_size && (size != j->id_size || memcmp(id, j->id, (size_t)size))) {
		close(fd);
		not_copied(a, j->path, true, "its build-id is not the one the log mapped");
		return;
	}
	trust = trusted(&st);
	if (already(a, id, size, j->path, trust, &weaker)) {
		close(fd);
		return;
	}
	/* A build another user's file claimed first: root's takes its names. */
	replace_id = weaker && size;
	replace_path = trust && path_written_untrusted(a, j->path);
	if (size)
		err = pmclog_build_id_path(byid, sizeof(byid), ".", id, (size_t)size);
	if (!err && (replace_path || !exists(a, rel))) {
		err = write_copy(a, fd, st.st_size, st.st_mode & 0777, rel, replace_path);
		if (err == -EEXIST)
			err = 0;	/* made since: by this run's last copy, or another's */
		else
			wrote = !err;
	}
	/* One copy where one will do; none if an earlier run made it. */
	if (!err && size && (replace_id || !exists(a, byid + 2))) {
		err = wrote ? link_copy(a, rel, byid + 2, replace_id) : -EXDEV;
		if (err)
			err = write_copy(a, fd, st.st_size, st.st_mode & 0777, byid + 2,
					 replace_id);
		if (err == -EEXIST)
			err = 0;
	}
	close(fd);
	if (err) {
		not_copied(a, j->path, err == -ELOOP || err == -EPERM, "%s", copy_error(err));
		return;
	}
	pthread_mutex_lock(&a->lock);
	a->stats.objects++;
	a->stats.bytes += (__u64)st.st_size;
	pthread_mutex_unlock(&a->lock);
	remember(a, id, size, j->path, &st, wrote);
}

/* ------------------------------------------------------------------ */
/* The queue                                                          */

static void free_archive(struct pmclog_archive *a)
{
	for (size_t i = 0; i < a->ncopied; i++)
		free(a->copied[i].path);
	for (size_t i = 0; i < a->qlen; i++)
		free(a->q[(a->qhead + i) % a->qcap].path);
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
		a->busy = true;
		pthread_mutex_unlock(&a->lock);

		archive_job(a, &j);
		free(j.path);

		pthread_mutex_lock(&a->lock);
		a->busy = false;
		if (!a->qlen)
			pthread_cond_broadcast(&a->idle);
	}
	orphan = a->orphan;
	pthread_mutex_unlock(&a->lock);
	if (orphan)
		free_archive(a);
	return NULL;
}

static int on_map_in(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_archive *a = container_of(tool, struct pmclog_archive, tool);
	const struct pmclog_map_in *m = rec->rec.map_in;
	struct job *j;
	char *path;

	if (m->pid == PMCLOG_PID_KERNEL || (m->flags & PMCLOG_MAP_F_ANON) ||
	    !path_ok(rec->path))
		return 0;
	path = strdup(rec->path);
	pthread_mutex_lock(&a->lock);
	if (!path || a->qlen == a->qcap) {
		a->stats.dropped++;
		pthread_mutex_unlock(&a->lock);
		free(path);
		return 0;
	}
	j = &a->q[(a->qhead + a->qlen++) % a->qcap];
	*j = (struct job){ .pid = m->pid, .start = m->start, .end = m->end, .path = path };
	pthread_cond_signal(&a->more);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/* The build-id of a map still queued: what its file must have. */
static int on_buildid(struct pmclog_tool *tool, const struct pmclog_record *rec)
{
	struct pmclog_archive *a = container_of(tool, struct pmclog_archive, tool);
	const struct pmclog_buildid *b = rec->rec.buildid;

	if (b->pid == PMCLOG_PID_KERNEL || !b->size || b->size > PMCLOG_BUILD_ID_MAX)
		return 0;
	pthread_mutex_lock(&a->lock);
	/* It follows its MAP_IN: look from the newest. */
	for (size_t i = a->qlen; i-- > 0;) {
		struct job *j = &a->q[(a->qhead + i) % a->qcap];

		if (j->pid == b->pid && j->start == b->start) {
			if (!j->id_size) {
				j->id_size = b->size;
				memcpy(j->id, b->build_id, b->size);
			}
			break;
		}
	}
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
	pthread_cond_init(&a->idle, NULL);
	a->tool.map_in = on_map_in;
	a->tool.buildid = on_buildid;
	a->max_bytes = OPTS_GET(opts, max_bytes, 0) ?: ARCHIVE_MAX_BYTES;
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

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&a->lock);
	while ((a->qlen || a->busy) && !err)
		err = pthread_cond_timedwait(&a->idle, &a->lock, &until);
	if (err && !a->qlen && !a->busy)
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
		char e[PATH_MAX * 4 + 1];

		pthread_mutex_lock(&a->lock);
		pr_warn("archive: copies into %s did not end in %u ms (a file that does not answer?): %zu maps not copied\n",
			esc(e, sizeof(e), a->dir), a->timeout_ms, a->qlen + a->busy);
		/* Whatever is still queued is dropped; the worker ends after its copy. */
		for (size_t i = 0; i < a->qlen; i++)
			free(a->q[(a->qhead + i) % a->qcap].path);
		a->qlen = 0;
		if (a->busy) {
			a->stop = true;
			a->orphan = true;
			pthread_cond_signal(&a->more);
			pthread_mutex_unlock(&a->lock);
			pthread_detach(a->thread);
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
