// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what `pmclog record --archive` does with what it is
 * given (pmclog_archive.c): the build-id of a mapped file, the path of
 * that build in the archive, the folders of a mapped path below the
 * archive's root.
 *
 * Input: 1 byte choosing the role, then:
 *
 *   0  a file, whose build-id pmclog_fd_build_id() reads (through a
 *      descriptor, as the archive does) and pmclog_elf__build_id() gives
 *      after pmclog_elf__load_mem(): the same, when the file loads and
 *      its build-id fits a log's BUILDID (20 bytes), else none; then the
 *      build's path, as below.
 *   1  n (1 to 64, from a byte), len (2 bytes, little-endian), n bytes of
 *      build-id, then DIR: pmclog_build_id_path() into a buffer of len
 *      bytes is exactly DIR/.build-id/NN/REST (the id in lowercase hex),
 *      or -ENAMETOOLONG when that does not fit.
 *   2  a byte: the mode of the folders (0700 and bits 0-5 as group and
 *      others' bits) and the umask (bits 6-7: 022, 0, 077, 002); then
 *      lines: each but the last plants a thing below a scratch ROOT
 *      ("D path" a folder, "F" a file, "L" a symbolic link to a folder
 *      outside ROOT, "W" a folder others may write to, "T" the same,
 *      sticky, "G" one its group may write to, "O" another user's
 *      folder, as root only); the last is the relative path given to
 *      pmclog_file__mkdirs_at(ROOT).  It must return a folder of the
 *      caller's that nobody else may write to, where the path's folders
 *      lead below ROOT, and a base name that is the path's last
 *      component (no '/', not "", "." or ".."); refuse a path with a "."
 *      or ".." component (-EINVAL, and succeed on any other when nothing
 *      was planted), refuse a link or a file on its way (-ELOOP) and a
 *      folder of another or that others may write to (-EPERM); and make
 *      nothing outside ROOT.
 */
#include <limits.h>

#include "fuzz_common.h"
#include "pmclog_file.h"
#include "pmclog_internal.h"
#include "pmclog_symtab.h"

enum role { ROLE_BUILD_ID, ROLE_PATH, ROLE_MKDIRS, ROLES };

#define NOBODY		65534

/* ------------------------------------------------------------------ */
/* pmclog_build_id_path()                                             */

/*
 * pmclog_build_id_path(.., len, dir, id, n) into a buffer of exactly
 * len bytes.
 */
static void check_path(size_t len, const char *dir, const __u8 *id, size_t n)
{
	char *want, *buf = malloc(len ? len : 1);
	size_t wlen = strlen(dir) + sizeof("/.build-id/") + 1 + 2 * n;
	int ret;

	want = malloc(wlen + 1);
	if (!buf || !want)
		fz_fail("out of memory");
	/* What the archive's and perf's build-id caches lay out. */
	wlen = (size_t)sprintf(want, "%s/.build-id/", dir);
	for (size_t i = 0; i < n; i++)
		wlen += (size_t)sprintf(want + wlen, "%s%02x", i == 1 ? "/" : "", id[i]);
	if (n == 1)
		wlen += (size_t)sprintf(want + wlen, "/");
	memset(buf, 'x', len);
	ret = pmclog_build_id_path(buf, len, dir, id, n);
	if (wlen < len) {
		FZ_CHECK(!ret && !strcmp(buf, want), "build-id path '%.*s' (%d), expected '%s'",
			 (int)len, buf, ret, want);
	} else {
		FZ_CHECK(ret == -ENAMETOOLONG, "%zu bytes for %zu: %d", len, wlen + 1, ret);
		FZ_CHECK(!len || memchr(buf, '\0', len), "cut short without its NUL");
	}
	free(buf);
	free(want);
}

static void role_path(const uint8_t *data, size_t size)
{
	size_t n, len;
	char *dir;

	if (size < 3)
		return;
	n = data[0] % PMCLOG_ELF_BUILD_ID_MAX + 1;
	len = data[1] | (size_t)data[2] << 8;
	data += 3;
	size -= 3;
	if (size < n)
		return;
	dir = strndup((const char *)data + n, size - n);
	if (!dir)
		fz_fail("out of memory");
	check_path(len, dir, data, n);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* pmclog_fd_build_id(), pmclog_elf__build_id()                        */

static void role_build_id(const uint8_t *data, size_t size)
{
	__u8 *id = malloc(PMCLOG_BUILD_ID_MAX);
	struct pmclog_strings *strings = pmclog_strings__new();
	struct pmclog_elf *e = NULL;
	char path[PATH_MAX], err[512];
	const __u8 *eid;
	size_t elen = 1;
	int fd, n;

	if (!id || !strings)
		fz_fail("out of memory");
	snprintf(path, sizeof(path), "%s/file", fz_scratch_dir());
	fz_write_file(path, data, size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fz_fail("open %s: %s", path, strerror(errno));
	n = pmclog_fd_build_id(fd, id);
	close(fd);
	FZ_CHECK(n >= 0 && n <= PMCLOG_BUILD_ID_MAX, "a build-id of %d bytes", n);

	if (!pmclog_elf__load_mem(data, size, "fuzz input", strings, &e, err, sizeof(err))) {
		eid = pmclog_elf__build_id(e, &elen);
		FZ_CHECK((eid != NULL) == (elen != 0) && elen <= PMCLOG_ELF_BUILD_ID_MAX,
			 "pmclog_elf__build_id: %p, %zu bytes", (const void *)eid, elen);
		if (elen > PMCLOG_BUILD_ID_MAX)
			elen = 0;	/* more than a BUILDID holds: none */
		FZ_CHECK((size_t)n == elen && (!n || !memcmp(id, eid, elen)),
			 "the build-id read through a descriptor (%d bytes) is not the loader's (%zu)",
			 n, elen);
	}
	if (n) {
		check_path(4096, "/var/tmp/archive", id, (size_t)n);
		/* Around the length of "./.build-id/NN/REST": one byte short, the NUL's. */
		for (size_t len = 12 + 2 * (size_t)n; len <= 15 + 2 * (size_t)n; len++)
			check_path(len, ".", id, (size_t)n);
	}
	pmclog_elf__free(e);
	pmclog_strings__free(strings);
	free(id);
}

/* ------------------------------------------------------------------ */
/* pmclog_file__mkdirs_at()                                           */

static char scratch[PATH_MAX], root[PATH_MAX], outside[PATH_MAX];

/* What was planted: what a refusal may be for. */
struct planted {
	bool any;
	bool loop;	/* a link or a file */
	bool perm;	/* a folder another's, or that others may write to */
};

/*
 * The folder (fd) that holds rel's last component below ROOT, made as
 * the planting goes, without following a link; -1 when rel leads
 * through something that is not a folder, or out of ROOT.  *base: the
 * last component.
 */
static int plant_dir(int rootfd, char *rel, char **base)
{
	int fd = dup(rootfd);
	char *c = rel, *slash;

	while (*c == '/')
		c++;
	while (fd >= 0 && (slash = strchr(c, '/'))) {
		int next;

		*slash = '\0';
		if (!strcmp(c, "..") || !strcmp(c, ".")) {
			close(fd);
			return -1;
		}
		if (*c) {
			mkdirat(fd, c, 0755);
			next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(fd);
			fd = next;
		}
		c = slash + 1;
	}
	*base = c;
	if (fd >= 0 && (!*c || !strcmp(c, "..") || !strcmp(c, "."))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void plant(int rootfd, char kind, char *rel, struct planted *p)
{
	char *base;
	int dir = plant_dir(rootfd, rel, &base), ret = 0;

	if (dir < 0)
		return;
	switch (kind) {
	case 'D':
		ret = mkdirat(dir, base, 0755);
		break;
	case 'F':
		ret = close(openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
		p->loop |= !ret;
		break;
	case 'L':
		ret = symlinkat(outside, dir, base);
		p->loop |= !ret;
		break;
	case 'W':
	case 'T':
	case 'G':
		ret = mkdirat(dir, base, 0755) ||
		      fchmodat(dir, base, kind == 'W' ? 0777 : kind == 'T' ? 01777 : 0775, 0);
		p->perm |= !ret;
		break;
	case 'O':
		ret = mkdirat(dir, base, 0755) ||
		      fchownat(dir, base, NOBODY, NOBODY, AT_SYMLINK_NOFOLLOW);
		p->perm |= !ret;
		break;
	default:
		ret = -1;
		break;
	}
	p->any |= !ret;
	close(dir);
}

/*
 * What pmclog_file__mkdirs_at() must make of rel: whether a component
 * is "." or "..", or longer than NAME_MAX, or the last is empty; the
 * path its folder must have below ROOT (components joined by one '/').
 */
static bool bad_rel(const char *rel, char *want, size_t len)
{
	const char *c = rel, *end;
	bool bad = false;
	size_t w = (size_t)snprintf(want, len, "%s", root), n;

	for (;;) {
		while (*c == '/')
			c++;
		end = strchr(c, '/');
		n = end ? (size_t)(end - c) : strlen(c);
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') ||
		    n > NAME_MAX || (!end && !n))
			bad = true;
		if (!end)
			return bad;
		if (w < len)
			w += (size_t)snprintf(want + w, len - w, "/%.*s", (int)n, c);
		c = end + 1;
	}
}

static size_t count_one;

static int count_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)flag;
	(void)ftw;
	count_one++;
	return 0;
}

/* Entries below path (itself included), links not followed. */
static size_t count_tree(const char *path)
{
	count_one = 0;
	nftw(path, count_entry, 16, FTW_PHYS);
	return count_one;
}

/* Entries of the scratch folder that are neither ROOT's nor outside's. */
static size_t count_else(void)
{
	return count_tree(scratch) - count_tree(root) - count_tree(outside);
}

static void check_made(int fd, const char *rel, const char *base, const char *want,
		       mode_t mode, mode_t mask)
{
	char self[64], got[PATH_MAX];
	struct stat st;
	ssize_t n;

	FZ_CHECK(base >= rel && base <= rel + strlen(rel) && !strchr(base, '/') &&
		 *base && strcmp(base, ".") && strcmp(base, "..") && strlen(base) <= NAME_MAX,
		 "'%s': base '%s'", rel, base);
	FZ_CHECK(!fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		 !(st.st_mode & (S_IWGRP | S_IWOTH)),
		 "'%s': a folder of uid %u, mode %o (mode %o, umask %03o)", rel,
		 (unsigned int)st.st_uid, (unsigned int)st.st_mode, (unsigned int)mode,
		 (unsigned int)mask);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, got, sizeof(got) - 1);
	if (n < 0)
		return;	/* no /proc */
	got[n] = '\0';
	FZ_CHECK(!strcmp(got, want), "'%s': the folder is %s, expected %s", rel, got, want);
}

static void role_mkdirs(const uint8_t *data, size_t size)
{
	char *text, *line, *rel, *nl, want[2 * PATH_MAX];
	mode_t mode, mask, open_mode;
	struct planted p = { 0 };
	const char *base = NULL;
	size_t in_outside, in_else, longest;
	struct stat rst, now;
	int rootfd, fd;
	bool bad;

	if (size < 1)
		return;
	mode = 0700 | (data[0] & 077);
	mask = (mode_t[]){ 022, 0, 077, 002 }[data[0] >> 6];
	text = strndup((const char *)data + 1, size - 1);
	if (!text)
		fz_fail("out of memory");

	/* Paths the kernel could give (d_path(): PATH_MAX), that nftw() can walk. */
	longest = PATH_MAX - strlen(root) - 2;
	fz_rm_tree(root);
	fz_rm_tree(outside);
	if (!access(root, F_OK) || !access(outside, F_OK))
		fz_fail("%s: the last input's tree could not be removed", scratch);
	fz_mkdir(root);
	fz_mkdir(outside);
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || fstat(rootfd, &rst))
		fz_fail("open %s: %s", root, strerror(errno));
	for (line = text; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (line[0] && line[1] == ' ' && strlen(line + 2) <= longest)
			plant(rootfd, line[0], line + 2, &p);
	}
	rel = line;
	if (strlen(rel) > longest) {
		close(rootfd);
		free(text);
		return;
	}
	in_outside = count_tree(outside);
	in_else = count_else();

	bad = bad_rel(rel, want, sizeof(want));
	umask(mask);
	fd = pmclog_file__mkdirs_at(rootfd, rel, mode, &base);
	umask(022);
	/* Folders it makes are open to others: refused (-EPERM) once made. */
	open_mode = mode & ~mask & (S_IWGRP | S_IWOTH);
	if (fd >= 0) {
		FZ_CHECK(!bad, "'%s' not refused", rel);
		FZ_CHECK(fd != rootfd, "the root's own descriptor returned");
		check_made(fd, rel, base, want, mode, mask);
		close(fd);
	} else {
		FZ_CHECK(fd == -EINVAL || fd == -ELOOP || fd == -EPERM ||
			 (fd == -EACCES && geteuid()),
			 "'%s': %d (%s)", rel, fd, strerror(-fd));
		FZ_CHECK(fd != -EINVAL || bad, "'%s' refused as invalid", rel);
		FZ_CHECK(fd != -ELOOP || p.loop, "'%s': -ELOOP, no link or file planted", rel);
		FZ_CHECK(fd != -EPERM || p.perm || open_mode,
			 "'%s': -EPERM, no folder of another or open to others", rel);
		FZ_CHECK(p.any || open_mode || fd == -EINVAL,
			 "'%s' refused (%s), nothing planted", rel, strerror(-fd));
	}
	/* Nothing made outside ROOT, through a link or otherwise. */
	FZ_CHECK(count_tree(outside) == in_outside && count_else() == in_else,
		 "'%s': something made outside ROOT", rel);
	FZ_CHECK(!fstat(rootfd, &now) && now.st_mode == rst.st_mode && now.st_uid == rst.st_uid,
		 "'%s': ROOT changed", rel);
	close(rootfd);
	free(text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	umask(022);
	/* Compared with what /proc/self/fd shows: without links on its way. */
	if (!realpath(fz_scratch_dir(), scratch))
		fz_fail("realpath %s: %s", fz_scratch_dir(), strerror(errno));
	snprintf(root, sizeof(root), "%s/root", scratch);
	snprintf(outside, sizeof(outside), "%s/outside", scratch);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % ROLES) {
	case ROLE_BUILD_ID:
		role_build_id(data + 1, size - 1);
		break;
	case ROLE_PATH:
		role_path(data + 1, size - 1);
		break;
	default:
		role_mkdirs(data + 1, size - 1);
		break;
	}
	return 0;
}
