// SPDX-License-Identifier: GPL-2.0
/*
 * mapper DIR: change executable mappings in every way the kernel tracks,
 * saving /proc/self/maps after each step as DIR/maps-N.txt, for a scenario
 * to compare with the MAP_IN/MAP_OUT records:
 *
 *   1  mmap(PROT_READ) of 4 pages of this program, then mprotect(+EXEC)
 *   2  munmap of the second page (a hole in the middle)
 *   3  mprotect(-EXEC) of the first page
 *   4  mremap of the last two pages elsewhere (a move)
 *   5  an anonymous PROT_EXEC mapping (JIT code)
 *   6  a munmap that fails (an unaligned address): nothing changes
 *   7  3 pages mapped executable, then a munmap and an mprotect(-EXEC) of
 *      the middle one that fail (ENOMEM: splitting the mapping would pass
 *      vm.max_map_count): only the new mapping is there.  The limit is
 *      system-wide: it is lowered only to half this process's own map
 *      count, taken to thousands first, so that no other process (the
 *      recorder, allocating as it converts and saves the log) is refused
 *      a mapping meanwhile.
 *   8  a file mapping without PROT_EXEC put MAP_FIXED over the middle page
 *      of those three (6.12 clears the old page tables before the file's
 *      mmap op runs)
 *   9  an anonymous read-write mapping put MAP_FIXED over the first one
 *  10  another page of this program mapped executable MAP_FIXED over the
 *      last one: its MAP_OUT must come before the new MAP_IN, which a
 *      reader takes for the range's new code
 *  11  a MAP_FIXED mapping over that page that fails in the file's mmap
 *      op (/dev/mem at an offset past the physical address space: EINVAL),
 *      once the kernel has taken the old page away: it leaves a gap (the
 *      kernel cannot put back a mapping whose close op has run).  6.1
 *      unmaps the range first and, failing, takes the new mapping's page
 *      tables away with the process's whole tree of vmas in hand; 6.12
 *      unmaps it inside mmap_region() and leaves the gap on its error
 *      path.  Its MAP_OUT is owed, and nothing else may go.
 *  12  a System V shared memory segment attached executable (shmat
 *      SHM_EXEC)
 *  13  that segment detached (shmdt): 6.12's shmdt() unmaps it without
 *      do_vmi_munmap(), as brk shrinking does
 *  14  the heap grown by 4 pages with brk(2) under the READ_IMPLIES_EXEC
 *      personality, which makes brk memory executable: a new
 *      anonymous executable vma past the heap
 *  15  the heap shrunk back by those 4 pages: brk's own unmap (6.12's
 *      brk() calls do_vmi_align_munmap(), past do_vmi_munmap())
 *
 * From step 14 on nothing may call malloc(), which would take the heap's
 * top for its own: save_maps() and end_step() use plain system calls.
 *
 * After saving maps-N.txt, a marker mapping of this program at file offset
 * (MARK_BASE + N) pages is mapped executable and unmapped again, so that a
 * reader of the log knows where step N ends.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/shm.h>
#include <unistd.h>
#include "common.h"

#define MARK_BASE	64
#define STEPS		15
#define SHM_ADDR	0x200000000UL	/* step 12's segment */

static const char *dir;
static long pg;
static int self_fd;

static void die(const char *what)
{
	fprintf(stderr, "mapper: %s: %s\n", what, strerror(errno));
	exit(71);	/* EX_OSERR */
}

/* No stdio, which allocates: steps 14 and 15 own the heap's top. */
static void save_maps(int step)
{
	char path[4096], buf[4096];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/maps-%d.txt", dir, step);
	in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0)
		die(path);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			die(path);
	if (n < 0)
		die("/proc/self/maps");
	close(in);
	if (close(out))
		die(path);
}

/* Save the maps of step @step, then log the end-of-step marker. */
static void end_step(int step)
{
	void *m;

	save_maps(step);
	m = mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, self_fd,
		 (off_t)(MARK_BASE + step) * pg);
	if (m == MAP_FAILED)
		die("mmap marker");
	if (munmap(m, pg))
		die("munmap marker");
}

/*
 * Write @val to /proc/sys/vm/max_map_count (-1: leave it); returns the
 * old value.
 */
static long set_max_map_count(long val)
{
	const char *path = "/proc/sys/vm/max_map_count";
	long old;
	FILE *f;

	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &old) != 1)
		die(path);
	fclose(f);
	if (val < 0)
		return old;
	f = fopen(path, "w");
	if (!f)
		die(path);
	fprintf(f, "%ld\n", val);
	if (fclose(f))
		die(path);
	return old;
}

/* How many mappings (vmas) process @pid has: -1 if it is gone. */
static long map_count(const char *pid)
{
	char path[64], line[4096];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n') && !strstr(line, "[vsyscall]"))
			n++;
	fclose(f);
	return n;
}

/* The most mappings any process but this one has. */
static long others_max_map_count(void)
{
	struct dirent *d;
	long max = 0, n;
	DIR *proc;
	char self[32];

	snprintf(self, sizeof(self), "%d", (int)getpid());
	proc = opendir("/proc");
	if (!proc)
		die("/proc");
	while ((d = readdir(proc)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9' && strcmp(d->d_name, self) &&
		    (n = map_count(d->d_name)) > max)
			max = n;
	closedir(proc);
	return max;
}

/*
 * Take this process to about @n more mappings: every other page of an
 * inaccessible reservation made readable, each page a vma of its own.
 */
static void add_mappings(long n)
{
	long pages = n | 1, i;
	char *base;

	base = mmap(NULL, pages * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (base == MAP_FAILED)
		die("mmap reservation");
	for (i = 1; i < pages; i += 2)
		if (mprotect(base + i * pg, pg, PROT_READ))
			die("mprotect reservation");
}

/* @what must have failed (@ret) with @err (its errno was @errnum). */
static void must_fail(int ret, int errnum, int err, const char *what)
{
	if (ret == 0 || errnum != err) {
		fprintf(stderr, "mapper: %s: want %s, got %s\n", what,
			strerror(err), ret ? strerror(errnum) : "success");
		exit(70);	/* EX_SOFTWARE */
	}
}

int main(int argc, char **argv)
{
	long max_map_count, limit, others, want;
	int ret, ret2, munmap_errno, mprotect_errno, mem_fd, shm_id;
	char *p, *q, *r, *jit;
	unsigned char resident;
	char *heap;
	void *shm;

	if (argc != 2) {
		fprintf(stderr, "usage: mapper DIR\n");
		return 64;	/* EX_USAGE */
	}
	dir = argv[1];
	pg = sysconf(_SC_PAGESIZE);
	self_fd = open("/proc/self/exe", O_RDONLY);
	if (self_fd < 0)
		die("/proc/self/exe");
	if (lseek(self_fd, 0, SEEK_END) < (off_t)(MARK_BASE + STEPS + 1) * pg) {
		fprintf(stderr, "mapper: this program is too small for its markers\n");
		return 70;	/* EX_SOFTWARE */
	}

	p = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE, self_fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	if (mprotect(p, 4 * pg, PROT_READ | PROT_EXEC))
		die("mprotect +exec");
	end_step(1);
	if (munmap(p + pg, pg))
		die("munmap middle");
	end_step(2);
	if (mprotect(p, pg, PROT_READ))
		die("mprotect -exec");
	end_step(3);
	/* Reserve a free range, then move the last two pages onto it. */
	q = mmap(NULL, 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		die("mmap target");
	q = mremap(p + 2 * pg, 2 * pg, 2 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, q);
	if (q == MAP_FAILED)
		die("mremap");
	end_step(4);
	jit = mmap(NULL, pg, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit == MAP_FAILED)
		die("mmap anon exec");
	jit[0] = (char)0xc3;	/* ret */
	end_step(5);
	ret = munmap(q + 1, pg);
	must_fail(ret, errno, EINVAL, "munmap unaligned");
	end_step(6);
	/*
	 * A middle page of three: unmapping it or changing its protection
	 * splits the mapping twice, which a map count at its maximum refuses.
	 * The maximum goes to half of this process's count, twice the most
	 * any other has or more; nothing may be mapped here until it is back,
	 * and it is back before anything is judged.
	 */
	others = others_max_map_count();
	want = others * 4 > 4096 ? others * 4 : 4096;
	max_map_count = set_max_map_count(-1);
	if (map_count("self") + want >= max_map_count) {
		fprintf(stderr, "mapper: another process has %ld mappings: %ld more here would pass vm.max_map_count (%ld)\n",
			others, want, max_map_count);
		return 70;	/* EX_SOFTWARE */
	}
	add_mappings(want);
	r = mmap(NULL, 3 * pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, self_fd, 0);
	if (r == MAP_FAILED)
		die("mmap three pages");
	limit = map_count("self") / 2;
	others = others_max_map_count();
	if (limit < 2 * others) {
		fprintf(stderr, "mapper: another process has %ld mappings, too close to %ld\n",
			others, limit);
		return 70;	/* EX_SOFTWARE */
	}
	set_max_map_count(limit);
	ret = munmap(r + pg, pg);
	munmap_errno = errno;
	ret2 = mprotect(r + pg, pg, PROT_READ);
	mprotect_errno = errno;
	set_max_map_count(max_map_count);
	must_fail(ret, munmap_errno, ENOMEM, "munmap past max_map_count");
	must_fail(ret2, mprotect_errno, ENOMEM, "mprotect past max_map_count");
	end_step(7);
	if (mmap(r + pg, pg, PROT_READ, MAP_PRIVATE | MAP_FIXED, self_fd, 0) !=
	    r + pg)
		die("mmap file MAP_FIXED");
	end_step(8);
	if (mmap(r, pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0) != r)
		die("mmap anon MAP_FIXED");
	end_step(9);
	if (mmap(r + 2 * pg, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
		 self_fd, 5 * pg) != r + 2 * pg)
		die("mmap exec MAP_FIXED");
	end_step(10);
	mem_fd = open("/dev/mem", O_RDONLY);
	if (mem_fd < 0)
		die("/dev/mem");
	/* 2^62: past any x86-64 CPU's physical address bits (52 at most). */
	ret = mmap(r + 2 * pg, pg, PROT_READ, MAP_SHARED | MAP_FIXED, mem_fd,
		   (off_t)1 << 62) == MAP_FAILED ? -1 : 0;
	must_fail(ret, errno, EINVAL, "mmap /dev/mem past the physical address space MAP_FIXED");
	close(mem_fd);
	/*
	 * The step is about the gap: a kernel that refused the mapping
	 * before taking the old page away would test nothing here.
	 */
	if (mincore(r + 2 * pg, pg, &resident) == 0 || errno != ENOMEM) {
		fprintf(stderr, "mapper: the failed MAP_FIXED left the old page mapped: this kernel refuses it before unmapping, and step 11 tests nothing\n");
		return 70;	/* EX_SOFTWARE */
	}
	end_step(11);
	/* Execute permission on the segment is what SHM_EXEC asks for. */
	shm_id = shmget(IPC_PRIVATE, pg, IPC_CREAT | 0700);
	if (shm_id < 0)
		die("shmget");
	/*
	 * Far below the mmap area: the next marker would take the hole a
	 * detach leaves up there, and a MAP_IN at the same address ends a
	 * stale mapping in a reader's replay, whether the MAP_OUT came or not.
	 */
	shm = shmat(shm_id, (void *)SHM_ADDR, SHM_RDONLY | SHM_EXEC);
	ret = shm == (void *)-1 ? errno : 0;
	/* Gone with its last detach; none left behind if this fails. */
	shmctl(shm_id, IPC_RMID, NULL);
	if (ret) {
		errno = ret;
		die("shmat SHM_EXEC");
	}
	end_step(12);
	if (shmdt(shm))
		die("shmdt");
	end_step(13);
	if (personality(personality(0xffffffff) | READ_IMPLIES_EXEC) < 0)
		die("personality READ_IMPLIES_EXEC");
	heap = sbrk(0);
	if (sbrk(4 * pg) != heap)
		die("sbrk +4 pages");
	end_step(14);
	/* Only if nothing else moved the break meanwhile. */
	if (sbrk(0) != heap + 4 * pg) {
		fprintf(stderr, "mapper: something else moved the break in step 14\n");
		return 70;	/* EX_SOFTWARE */
	}
	if (sbrk(-4 * pg) == (void *)-1)
		die("sbrk -4 pages");
	end_step(15);
	return 0;
}
