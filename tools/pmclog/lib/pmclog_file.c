// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog's files by paths it did not choose.  See pmclog_file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmclog_internal.h"
#include "pmclog_file.h"

__attribute__((format(printf, 3, 4)))
static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EPERM;
}

/* Reopen the O_PATH descriptor fd for reading: the same file, for sure. */
static int reopen(int fd, int dirfd, const char *path, unsigned int flags,
		  const struct stat *st)
{
	char self[64];
	struct stat now;
	int rfd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rfd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (rfd >= 0 || errno != ENOENT)
		return rfd >= 0 ? rfd : -errno;
	/* No /proc: by the path again, and it must be the file checked. */
	rfd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		     (flags & PMCLOG_FILE_FOLLOW ? 0 : O_NOFOLLOW));
	if (rfd < 0)
		return -errno;
	if (fstat(rfd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(rfd);
		return -ESTALE;
	}
	return rfd;
}

int pmclog_file__open_read(int dirfd, const char *path, unsigned int flags, __u64 max,
			   struct stat *stp)
{
	struct stat st;
	int fd, rfd;

	fd = openat(dirfd, path, O_PATH | O_CLOEXEC |
		    (flags & PMCLOG_FILE_FOLLOW ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rfd = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rfd = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if ((__u64)st.st_size > (max ? max : PMCLOG_FILE_READ_MAX)) {
		rfd = -EFBIG;
		goto out;
	}
	rfd = reopen(fd, dirfd, path, flags, &st);
	if (rfd >= 0 && stp)
		*stp = st;
out:
	close(fd);
	return rfd;
}

/* ------------------------------------------------------------------ */
/* Outputs                                                            */

/* Whether another user may add, remove or rename entries of folder st. */
static bool shared_folder(const struct stat *st)
{
	return (st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX);
}

/* path's folder, opened (O_PATH), and its last component in *base. */
static int open_parent(const char *path, const char **base, char *why, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat st;
	int fd;

	*base = slash ? slash + 1 : path;
	if (!**base)
		return -EISDIR;
	if (!slash) {
		dir = strdup(".");
	} else {
		dir = strndup(path, (size_t)(slash - path));
		if (dir && !*dir) {
			free(dir);
			dir = strdup("/");
		}
	}
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
	} else if (fstat(fd, &st)) {
		close(fd);
		fd = -errno;
	} else if (shared_folder(&st)) {
		close(fd);
		fd = refuse(why, len, "%s is in %s, which any user may write to and which is not sticky: another user could replace it",
			    path, dir);
	}
	free(dir);
	return fd;
}

/*
 * An existing path that is not a regular file: a character device, or
 * the caller's FIFO or socket, opened to write; a symbolic link only if
 * it is the caller's or root's (/dev/stdout) and names one of those.  A
 * link names the file at its end through links of anyone's, so what it
 * names must be a thing that nobody without privilege can make at a path
 * (a device) or the caller's own; a regular file there is not written.
 */
static int open_existing(int dirfd, const char *base, const char *path,
			 const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();
	struct stat at = *st, now;
	int fd, oflags = O_WRONLY | O_CLOEXEC | O_NOCTTY;

	if (S_ISLNK(st->st_mode)) {
		if (st->st_uid != me && st->st_uid != 0)
			return refuse(why, len, "%s is a symbolic link of uid %u: pmclog does not write through it; remove it or name another file",
				      path, (unsigned int)st->st_uid);
		if (fstatat(dirfd, base, &at, 0))
			return -errno;
		if (S_ISREG(at.st_mode))
			return refuse(why, len, "%s is a symbolic link to a file: pmclog writes a new file, not through a link; name the file itself",
				      path);
	} else {
		oflags |= O_NOFOLLOW;
	}
	if (S_ISDIR(at.st_mode))
		return -EISDIR;
	if ((S_ISFIFO(at.st_mode) || S_ISSOCK(at.st_mode)) && at.st_uid != me)
		return refuse(why, len, "%s is a %s of uid %u: pmclog does not write into it; remove it or name another file",
			      path, S_ISFIFO(at.st_mode) ? "FIFO" : "socket",
			      (unsigned int)at.st_uid);
	if (S_ISBLK(at.st_mode))
		return refuse(why, len, "%s is a block device: pmclog does not write a log over it",
			      path);
	fd = openat(dirfd, base, oflags);
	if (fd < 0)
		return -errno;
	/* What was opened is what was checked. */
	if (fstat(fd, &now) || now.st_dev != at.st_dev || now.st_ino != at.st_ino) {
		close(fd);
		return refuse(why, len, "%s changed while pmclog opened it: not written", path);
	}
	return fd;
}

int pmclog_file__create(const char *path, mode_t mode, unsigned int flags, bool *created,
			char *why, size_t len)
{
	const char *base;
	struct stat st;
	int dirfd, fd = -EEXIST;

	if (created)
		*created = false;
	if (why && len)
		*why = '\0';
	dirfd = open_parent(path, &base, why, len);
	if (dirfd < 0)
		return dirfd;
	/* Twice at most: once more after an existing file was moved away. */
	for (int tries = 0; tries < 2 && fd == -EEXIST; tries++) {
		fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		if (fd >= 0) {
			if (created)
				*created = true;
			break;
		}
		fd = -errno;
		if (fd != -EEXIST)
			break;
		if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
			fd = errno == ENOENT ? -EEXIST : -errno;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			fd = open_existing(dirfd, base, path, &st, why, len);
			break;
		}
		if (tries) {
			fd = refuse(why, len, "%s was made again while pmclog replaced it: not written",
				    path);
			break;
		}
		if (flags & PMCLOG_FILE_KEEP_OLD) {
			char *old;

			if (asprintf(&old, "%s.old", base) < 0) {
				fd = -ENOMEM;
				break;
			}
			if (renameat(dirfd, base, dirfd, old))
				fd = -errno;
			free(old);
		} else if (unlinkat(dirfd, base, 0)) {
			fd = -errno;
		}
		if (fd != -EEXIST)
			break;
	}
	close(dirfd);
	return fd;
}

/* ------------------------------------------------------------------ */
/* Trees                                                              */

int pmclog_file__open_tree(const char *path, mode_t mode, char *why, size_t len)
{
	struct stat st;
	int fd;

	if (why && len)
		*why = '\0';
	if (mkdir(path, mode) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? refuse(why, len, "%s is not a folder (or is a symbolic link): pmclog does not write through it",
						 path) : -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return refuse(why, len, "%s is %s: another user could plant links in it; name a folder of your own, or a new one",
			      path, st.st_uid != geteuid() ? "another user's folder" :
			      "a folder that others may write to");
	}
	return fd;
}

/* Whether folder st is the caller's alone. */
static bool own_folder(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int pmclog_file__mkdirs_at(int root, const char *rel, mode_t mode, const char **base)
{
	int fd = root;
	const char *c = rel;

	for (;;) {
		const char *slash;
		char name[NAME_MAX + 1];
		struct stat st;
		size_t n;
		int next;

		while (*c == '/')
			c++;
		slash = strchr(c, '/');
		if (!slash)
			break;
		n = (size_t)(slash - c);
		if (n > NAME_MAX || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.')) {
			next = -EINVAL;
			goto fail;
		}
		memcpy(name, c, n);
		name[n] = '\0';
		if (mkdirat(fd, name, mode) && errno != EEXIST) {
			next = -errno;
			goto fail;
		}
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			next = errno == ENOTDIR ? -ELOOP : -errno;
			goto fail;
		}
		if (fstat(next, &st) || !own_folder(&st)) {
			close(next);
			next = -EPERM;
			goto fail;
		}
		if (fd != root)
			close(fd);
		fd = next;
		c = slash + 1;
		continue;
fail:
		if (fd != root)
			close(fd);
		return next;
	}
	if (!*c || !strcmp(c, ".") || !strcmp(c, "..") || strlen(c) > NAME_MAX) {
		if (fd != root)
			close(fd);
		return -EINVAL;
	}
	*base = c;
	if (fd == root) {
		fd = fcntl(root, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
	}
	return fd;
}

int pmclog_file__tmp_at(int dirfd, char *name, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	if (len < 16)
		return -EINVAL;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		int fd;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -errno;
		strcpy(name, ".pmclog-");
		for (size_t i = 0; i < sizeof(r); i++)
			name[8 + i] = digits[r[i] % (sizeof(digits) - 1)];
		name[8 + sizeof(r)] = '\0';
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int pmclog_file__tmpfile_at(int dirfd, char *name, size_t len)
{
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0) {
		if (len)
			name[0] = '\0';
		return fd;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	/* A file system without O_TMPFILE: a name of its own. */
	return pmclog_file__tmp_at(dirfd, name, len);
}

int pmclog_file__link_new(int fd, int fromfd, const char *name, int tofd, const char *to)
{
	char self[64];

	if (name[0])
		return linkat(fromfd, name, tofd, to, 0) ? -errno : 0;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, self, tofd, to, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != ENOENT)
		return -errno;
	/* No /proc: by the descriptor itself (CAP_DAC_READ_SEARCH). */
	return linkat(fd, "", tofd, to, AT_EMPTY_PATH) ? -errno : 0;
}
