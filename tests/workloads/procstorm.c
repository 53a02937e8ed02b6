// SPDX-License-Identifier: GPL-2.0
/*
 * procstorm [-n CHILDREN] [-t THREADS] FILE: fork CHILDREN children
 * (default 24) at once, of the kinds below in turn, wait for them all, and
 * append one line per process of the tree, itself included, to FILE:
 *
 *   PID PPID KIND EXECS STATUS
 *
 * PPID is the process that forked it, EXECS how many execs it did (the
 * PROCEXEC records owed), STATUS its exit status as wait(2) reports it
 * (PROCEXIT's status).  Every process exits once: one PROCFORK (but the
 * root, forked before the log started), one PROCEXIT.
 *
 *   exec     exec this program with -x CODE, which exits CODE
 *   group    THREADS threads; once they all run, the main thread calls
 *            exit_group(CODE): every thread exits at the same moment
 *   threads  THREADS threads; they and the main thread call exit(2), each
 *            its own, at the same moment: whichever is last out ends the
 *            process
 *   texec    THREADS threads; one that is not the main thread execs this
 *            program with -x CODE (the kernel kills the others)
 *   nest     fork a grandchild of kind exec, wait for it, exit CODE
 *   vmshare  as threads, while a process sharing its memory (a "peer",
 *            clone(CLONE_VM), not a thread) keeps changing that memory's
 *            protection, holding its mmap_lock for writing: the exiting
 *            threads wait for it in do_exit(), between the moment each is
 *            counted out of the process and the end of its exit.  The peer
 *            is a child of the root (CLONE_PARENT), which reaps it; its
 *            line says PPID the vmshare process, STATUS the code it exits
 *            with.
 *   leader   THREADS threads; the main thread calls exit(2) with CODE
 *            first, the others 50 ms later with CODE + 1: the process's
 *            status is that of the last thread out (Linux >= 6.1 marks
 *            the group exited with it, synchronize_group_exit())
 *
 * The root's own line says EXECS 1 (the exec that started it, under
 * `pmclog record -- procstorm`) and STATUS 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

enum kind {
	K_EXEC, K_GROUP, K_THREADS, K_TEXEC, K_NEST, K_VMSHARE, K_LEADER, K_NR
};

static const char *const kind_names[K_NR] = {
	"exec", "group", "threads", "texec", "nest", "vmshare", "leader",
};

#define PEER_REGION	(8L << 20)	/* mprotect of its 2048 PTEs: ms under TCG */
#define PEER_STACK	(64L << 10)
#define PEER_MAX_LOOPS	100000L		/* if the threads never came */

static const char *out_path;
static long nthreads = 4;
static pthread_barrier_t ready;
static int code;

/* Between a vmshare process and its peer, in the memory they share. */
static struct {
	char *region;
	long loops;	/* peer's mprotect calls; read by the main thread */
	long exiting;	/* threads about to exit(2) */
} share;

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "procstorm: %s: %s\n", what, strerror(errno));
	exit(71);	/* EX_OSERR */
}

/* One line, one write(2) on an O_APPEND file: lines never interleave. */
static void note(long pid, long ppid, const char *kind, int execs, int status)
{
	char line[128];
	int fd, n;

	n = snprintf(line, sizeof(line), "%ld %ld %s %d %d\n", pid, ppid, kind,
		     execs, status);
	fd = open(out_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != n || close(fd))
		die(out_path);
}

static void __attribute__((noreturn)) exec_self(void)
{
	char arg[16];

	snprintf(arg, sizeof(arg), "%d", code);
	execl("/proc/self/exe", "procstorm", "-x", arg, (char *)NULL);
	die("exec /proc/self/exe");
}

/* Wait to be killed by the kernel (exit_group, exec). */
static void *waiting_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

/* exit(2) of this thread alone, with status @c. */
static void __attribute__((noreturn)) thread_exit(int c)
{
	__atomic_add_fetch(&share.exiting, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_exit, c);
	__builtin_unreachable();
}

static void *exit_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	thread_exit(code);
}

/* Outlive the main thread, then exit with another code. */
static void *late_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	usleep(50000);
	thread_exit(code + 1);
}

/* The thread given a non-NULL @arg execs; the others wait to be killed. */
static void *texec_thread(void *arg)
{
	if (!arg)
		return waiting_thread(arg);
	pthread_barrier_wait(&ready);
	exec_self();
}

static void spawn_threads(void *(*fn)(void *), int with_arg)
{
	pthread_t t;
	long i;
	int err;

	/* The main thread is the last of nthreads + 1 at the barrier. */
	pthread_barrier_init(&ready, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&t, NULL, fn,
				     with_arg && i == 0 ? (void *)1 : NULL);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
}

/*
 * The peer of a vmshare process: system calls only, as it shares the C
 * library's memory with the process but has no thread of its own in it.
 * It exits a few calls after every thread of the process has begun to.
 */
static int peer(void *arg)
{
	long i, after = 0;

	for (i = 0; i < PEER_MAX_LOOPS && after < 4; i++) {
		syscall(SYS_mprotect, share.region, PEER_REGION,
			i & 1 ? PROT_READ | PROT_WRITE : PROT_READ);
		__atomic_store_n(&share.loops, i + 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&share.exiting, __ATOMIC_SEQ_CST) > nthreads)
			after++;
	}
	syscall(SYS_exit, (long)arg);
	return 0;
}

static void __attribute__((noreturn)) vmshare(void)
{
	char *stack;
	pid_t p;

	share.region = mmap(NULL, PEER_REGION, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = malloc(PEER_STACK);
	if (share.region == MAP_FAILED || !stack)
		die("peer memory");
	/* Small pages, all present: mprotect has every PTE to change. */
	madvise(share.region, PEER_REGION, MADV_NOHUGEPAGE);
	memset(share.region, 1, PEER_REGION);
	p = clone(peer, stack + PEER_STACK, CLONE_VM | CLONE_PARENT | SIGCHLD,
		  (void *)(long)(code + 1));
	if (p < 0)
		die("clone");
	note(p, getpid(), "peer", 0, (code + 1) << 8);
	spawn_threads(exit_thread, 0);
	while (!__atomic_load_n(&share.loops, __ATOMIC_SEQ_CST))
		sched_yield();
	pthread_barrier_wait(&ready);
	thread_exit(code);
}

/* Wait for @pid; its wait(2) status. */
static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return status;
}

static void __attribute__((noreturn)) child(enum kind k)
{
	pid_t g;

	switch (k) {
	case K_EXEC:
		exec_self();
	case K_GROUP:
		spawn_threads(waiting_thread, 0);
		pthread_barrier_wait(&ready);
		syscall(SYS_exit_group, code);
		break;
	case K_THREADS:
		spawn_threads(exit_thread, 0);
		pthread_barrier_wait(&ready);
		thread_exit(code);
	case K_TEXEC:
		spawn_threads(texec_thread, 1);
		pthread_barrier_wait(&ready);
		for (;;)
			pause();
	case K_NEST:
		g = fork();
		if (g < 0)
			die("fork");
		if (g == 0)
			exec_self();
		note(g, getpid(), "nested", 1, reap(g));
		_exit(code);
	case K_VMSHARE:
		vmshare();
	case K_LEADER:
		spawn_threads(late_thread, 0);
		pthread_barrier_wait(&ready);
		thread_exit(code);
	default:
		break;
	}
	_exit(127);
}

int main(int argc, char **argv)
{
	long nchildren = 24, i;
	pid_t *pids;
	int opt;

	while ((opt = getopt(argc, argv, "x:n:t:")) != -1) {
		switch (opt) {
		case 'x':
			return (int)strtol(optarg, NULL, 0);
		case 'n':
			nchildren = strtol(optarg, NULL, 0);
			break;
		case 't':
			nthreads = strtol(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || nchildren < 1 || nchildren > 1000 ||
	    nthreads < 1 || nthreads > 64)
		goto usage;
	out_path = argv[optind];

	pids = calloc(nchildren, sizeof(*pids));
	if (!pids)
		die("calloc");
	for (i = 0; i < nchildren; i++) {
		/* Distinct, non-zero exit codes: a PROCEXIT names its process. */
		code = (int)(i * 2 % 250) + 1;
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0)
			child((enum kind)(i % K_NR));
	}
	for (i = 0; i < nchildren; i++) {
		enum kind k = (enum kind)(i % K_NR);

		note(pids[i], getpid(), kind_names[k],
		     k == K_EXEC || k == K_TEXEC, reap(pids[i]));
	}
	/* The peers of vmshare children (CLONE_PARENT): noted by those. */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	note(getpid(), getppid(), "root", 1, 0);
	return 0;

usage:
	fprintf(stderr, "usage: procstorm [-n CHILDREN] [-t THREADS] FILE\n");
	return 64;	/* EX_USAGE */
}
