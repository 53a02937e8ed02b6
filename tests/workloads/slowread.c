// SPDX-License-Identifier: GPL-2.0
/*
 * slowread [-s] [-F HZ] [-b BYTES] [-d MS] -o FILE CMD [ARGS...]: a reader
 * of /dev/pmclog that falls behind on purpose, so that the log overflows.
 *
 * It profiles CMD (cpu-clock at HZ, default 1000) as `pmclog record --
 * CMD` does, but reads at most BYTES (default 512) per read(2) and sleeps
 * MS milliseconds (default 20) after each, while CMD runs.  Once CMD has
 * exited nothing new comes into the log: it reads what is left, stops the
 * log, and reads up to CLOSELOG and read(2)'s 0.  With -s it reads
 * nothing at all until CMD has exited, then stops the log at once: STOP
 * finds the log as full as CMD left it.  Every byte read goes to FILE
 * unchanged, a log for `pmclog dump`.  Prints
 *
 *   slowread: reads=N bytes=N small_reads=N small_max=N records=N
 *             dropnotify=N samples_dropped=N records_dropped=N
 *             closelog=N after_stop=N status=S
 *
 * (on one line): all reads and bytes; the reads of at most BYTES while CMD
 * ran and the most one of them returned; the sums over the DROPNOTIFY
 * records it read; the CLOSELOG records it read and the bytes read after
 * STOP; CMD's wait(2) status.  Exits 0 when every read(2) returned whole
 * records and CMD exited 0; 65 (EX_DATAERR) on a malformed read, 71 on
 * other errors.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/pmclog.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

#define BIG	(256 * 1024)

static int dev, out;
static unsigned long long reads, bytes, records, dropnotify, closelog;
static unsigned long long samples_dropped, records_dropped;
static unsigned long long small_reads, small_max;

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "slowread: %s: %s\n", what, strerror(errno));
	exit(71);	/* EX_OSERR */
}

/* Account @n bytes of records and save them; exit 65 if they are not whole. */
static void take(const unsigned char *buf, size_t n)
{
	const struct pmclog_header *h;
	struct pmclog_dropnotify dn;
	size_t off = 0;

	while (off < n) {
		h = (const void *)(buf + off);
		if (n - off < sizeof(*h) || h->magic != PMCLOG_HEADER_MAGIC ||
		    h->length < sizeof(*h) || h->length % PMCLOG_RECORD_ALIGN ||
		    h->length > n - off) {
			fprintf(stderr, "slowread: read %llu: no whole record at byte %zu of %zu\n",
				reads, off, n);
			exit(65);	/* EX_DATAERR */
		}
		if (h->type == PMCLOG_TYPE_DROPNOTIFY && h->length >= sizeof(dn)) {
			memcpy(&dn, h, sizeof(dn));
			dropnotify++;
			samples_dropped += dn.samples;
			records_dropped += dn.records;
		}
		closelog += h->type == PMCLOG_TYPE_CLOSELOG;
		records++;
		off += h->length;
	}
	if (write(out, buf, n) != (ssize_t)n)
		die("write");
	reads++;
	bytes += n;
}

/*
 * One read(2) of at most @want bytes; 0 at the end of the log, -1 when
 * nothing is waiting (O_NONBLOCK).  A record longer than @want (EINVAL)
 * is read with a bigger buffer, as a reader must.
 */
static ssize_t read_some(unsigned char *buf, size_t want)
{
	ssize_t n;

	do
		n = read(dev, buf, want);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EINVAL && want < BIG)
		return read_some(buf, BIG);
	if (n < 0 && errno == EAGAIN)
		return -1;
	if (n < 0)
		die("read /dev/pmclog");
	if (n > 0)
		take(buf, (size_t)n);
	if (n > 0 && want < BIG) {
		small_reads++;
		if ((unsigned long long)n > small_max)
			small_max = (unsigned long long)n;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct pmclog_alloc alloc = {
		.event = PMCLOG_EV_CPU_CLOCK, .flags = PMCLOG_PMC_F_FREQ,
		.period = 1000,
	};
	struct pmclog_attach at = { .mode = PMCLOG_ATTACH_PROCESS };
	struct pollfd pfd = { .events = POLLIN };
	unsigned long long ms = 20;
	unsigned char *buf;
	const char *path = NULL;
	unsigned long long stopped_at;
	size_t want = 512;
	int go[2], opt, status = 0, late = 0;
	pid_t pid;
	char c = 'g';

	while ((opt = getopt(argc, argv, "+sF:b:d:o:")) != -1) {
		switch (opt) {
		case 's':
			late = 1;
			break;
		case 'F':
			alloc.period = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			want = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			ms = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			path = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!path || optind >= argc || !want || want > BIG)
		goto usage;
	buf = malloc(BIG);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (!buf || out < 0)
		die(path);
	dev = open(PMCLOG_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		die(PMCLOG_DEVICE_PATH);
	if (ioctl(dev, PMCLOG_IOC_ALLOCATE, &alloc))
		die("PMCLOG_IOC_ALLOCATE");

	/* CMD waits on the pipe until the log has started. */
	if (pipe2(go, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "slowread: exec %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	at.pid = (__u32)pid;
	if (ioctl(dev, PMCLOG_IOC_ATTACH, &at))
		die("PMCLOG_IOC_ATTACH");
	if (ioctl(dev, PMCLOG_IOC_START))
		die("PMCLOG_IOC_START");
	if (write(go[1], &c, 1) != 1)
		die("release CMD");
	close(go[1]);

	pfd.fd = dev;
	if (late) {
		/* Not there at all while CMD runs. */
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
	} else {
		/* Behind on purpose while CMD runs. */
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (poll(&pfd, 1, 100) > 0 && read_some(buf, want) == 0)
				break;
			usleep(ms * 1000);
		}
		/* CMD is gone: catch up, then STOP finds room for CLOSELOG. */
		if (fcntl(dev, F_SETFL, O_NONBLOCK))
			die("fcntl O_NONBLOCK");
		while (read_some(buf, BIG) > 0)
			;
		if (fcntl(dev, F_SETFL, 0))
			die("fcntl");
	}
	if (ioctl(dev, PMCLOG_IOC_STOP))
		die("PMCLOG_IOC_STOP");
	stopped_at = bytes;
	while (read_some(buf, BIG) > 0)
		;
	if (close(out))
		die(path);

	printf("slowread: reads=%llu bytes=%llu small_reads=%llu small_max=%llu records=%llu dropnotify=%llu samples_dropped=%llu records_dropped=%llu closelog=%llu after_stop=%llu status=%d\n",
	       reads, bytes, small_reads, small_max, records, dropnotify,
	       samples_dropped, records_dropped, closelog, bytes - stopped_at,
	       status);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;

usage:
	fprintf(stderr, "usage: slowread [-s] [-F HZ] [-b BYTES] [-d MS] -o FILE CMD [ARGS...]\n");
	return 64;	/* EX_USAGE */
}
