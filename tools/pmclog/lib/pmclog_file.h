/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog's files by paths it did not choose: the objects a log names,
 * the outputs a command writes, the folders of an archive.  pmclog runs
 * as root and reads what every user maps, so another local user may
 * have planted a symbolic link, a FIFO, a device node or a huge sparse
 * file at any of those paths.  Everything here is opened so that:
 *
 *   - nothing is read before it is known to be a regular file of a
 *     bounded size (an O_PATH descriptor is checked, then reopened: a
 *     device's open() is never called, a FIFO never blocks the open);
 *   - nothing is written through a symbolic link or into a file that
 *     another user made; a new file is made with O_EXCL, mode 0600;
 *   - a folder below a tree pmclog writes (record --archive) is walked
 *     one component at a time with O_NOFOLLOW, and must be the caller's
 *     and writable by nobody else.
 *
 * Internal to libpmclog and the tool (not in libpmclog.map).
 */
#ifndef PMCLOG_FILE_H
#define PMCLOG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <linux/types.h>

/* pmclog_file__open_read(): a symbolic link as the last component is followed. */
#define PMCLOG_FILE_FOLLOW	0x1U

/*
 * What an object named by a log may weigh before it is read: a kernel's
 * vmlinux with its DWARF is about 700 MiB; a file larger than this is not
 * a program (or is a sparse file meant to exhaust memory).
 */
#define PMCLOG_FILE_READ_MAX	(2ULL << 30)

/*
 * Open path (relative to dirfd, AT_FDCWD for the working directory) to
 * read it: a regular file of at most max bytes (0: PMCLOG_FILE_READ_MAX),
 * never through a symbolic link at its end unless flags has
 * PMCLOG_FILE_FOLLOW.  *st (may be NULL) gets what it is.
 * Return: a descriptor (O_RDONLY | O_CLOEXEC), or -ELOOP (a symbolic
 * link), -EISDIR, -EINVAL (not a regular file: device, FIFO, socket),
 * -EFBIG (over max), or open(2)'s error.
 */
int pmclog_file__open_read(int dirfd, const char *path, unsigned int flags, __u64 max,
			   struct stat *st);

/*
 * Whether err, from pmclog_file__open_read(), is a refusal of what the
 * path names (a symbolic link, a device, a FIFO, a socket, a folder, a
 * huge file), which a log may name because another user put it there:
 * to be said, unlike a file that is not there.
 */
static inline bool pmclog_file__refused(int err)
{
	return err == -ELOOP || err == -EINVAL || err == -EISDIR || err == -EFBIG;
}

/* pmclog_file__create(): an existing regular file is renamed PATH.old (perf.data's way). */
#define PMCLOG_FILE_KEEP_OLD	0x2U

/*
 * Create path to write it, as a new file of mode mode, made with O_EXCL
 * in a folder that others cannot write to unless it is sticky (/tmp).
 * An existing regular file is replaced, never written into: removed, or
 * renamed PATH.old with PMCLOG_FILE_KEEP_OLD.  An existing character
 * device (/dev/null) is written to; an existing FIFO or socket only if
 * it is the caller's; a symbolic link is followed only if it is the
 * caller's or root's (/dev/stdout) and names one of those, never a
 * regular file.  *created (may be NULL): whether the file is new, so that a
 * failed command may remove it.  why (len bytes, may be NULL) gets the
 * reason of a refusal, naming path.
 * Return: a descriptor (O_WRONLY | O_CLOEXEC), or -errno: -EPERM for a
 * refusal (why says which), else the failing call's.
 */
int pmclog_file__create(const char *path, mode_t mode, unsigned int flags, bool *created,
			char *why, size_t len);

/*
 * Open, or make with mode, the folder path as the root of a tree that
 * pmclog writes into: not a symbolic link, the caller's, and writable by
 * nobody else (whoever may rename its entries can swap a link into a
 * path between two calls).  Return: a descriptor (O_DIRECTORY | O_CLOEXEC), or
 * -errno (-EPERM with why filled for a refusal).
 */
int pmclog_file__open_tree(const char *path, mode_t mode, char *why, size_t len);

/*
 * The folder that holds rel (a relative path, "a/b/name") below the tree
 * root: each folder made with mode if missing, entered with O_NOFOLLOW,
 * and refused unless it is the caller's and writable by nobody else.
 * *base gets rel's last component (a pointer into rel).  ".." and "."
 * components are refused.
 * Return: a descriptor of that folder (the caller closes it), or -errno:
 * -ELOOP for a symbolic link (or a file) where a folder should be,
 * -EPERM for another's or a shared folder,
 * -EINVAL for a bad rel.
 */
int pmclog_file__mkdirs_at(int root, const char *rel, mode_t mode, const char **base);

/*
 * A new, empty file of mode 0600 in folder dirfd, under a name of its own
 * (".pmclog-XXXXXX", written into name, len >= 16), made with O_EXCL.
 * Return: a descriptor (O_RDWR | O_CLOEXEC), or -errno.
 */
int pmclog_file__tmp_at(int dirfd, char *name, size_t len);

/*
 * A new, empty file of mode 0600 in folder dirfd that has no name
 * (O_TMPFILE): it is gone with its descriptor, whatever happens, unless
 * pmclog_file__link_new() names it.  On a file system without O_TMPFILE,
 * as pmclog_file__tmp_at(), and the caller removes name.  name (len >=
 * 16) is "" for a file without a name.
 * Return: a descriptor (O_RDWR | O_CLOEXEC), or -errno.
 */
int pmclog_file__tmpfile_at(int dirfd, char *name, size_t len);

/*
 * Give the file of pmclog_file__tmpfile_at() (fd, and name in fromfd) the
 * name to in folder tofd too, unless to exists (-EEXIST).
 */
int pmclog_file__link_new(int fd, int fromfd, const char *name, int tofd, const char *to);

#endif /* PMCLOG_FILE_H */
