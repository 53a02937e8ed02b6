// SPDX-License-Identifier: GPL-2.0
/*
 * The device API (pmclog_device.h): opening and its messages, on files
 * that are not the module (a missing path, /dev/null), and every
 * operation against a stand-in for the module (the ioctls of a
 * pmclog_device_ops, records through a pipe): the ABI major checked,
 * arguments passed as the ABI lays them out, errors as negative errnos.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "log_builder.h"
#include "print_capture.h"
#include "pmclog_device.h"
#include "pmclog_internal.h"

static int setup(void **state)
{
	unsetenv("PMCLOG_DEVICE");
	return print_capture_start(state);
}

/* The stand-in module: what it was asked, and how to answer. */
struct fake {
	__u32 abi;
	unsigned long reqs[16];		/* in order */
	unsigned int nreqs;
	unsigned long fail_req;		/* fails with fail_errno */
	int fail_errno;
	bool old_alloc;			/* a module before ABI 1.3 */
	struct pmclog_alloc alloc;	/* the last ALLOCATE, as received */
	struct pmclog_attach attach;
	unsigned int pmcs;
};

static int fake_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct fake *f = ctx;

	(void)fd;
	if (f->nreqs < 16)
		f->reqs[f->nreqs++] = req;
	if (req == f->fail_req) {
		errno = f->fail_errno;
		return -1;
	}
	if (_IOC_TYPE(req) == PMCLOG_IOC_MAGIC &&
	    _IOC_NR(req) == _IOC_NR(PMCLOG_IOC_ALLOCATE)) {
		/* As copy_struct_from_user() in a module of either kind. */
		if (_IOC_SIZE(req) != PMCLOG_ALLOC_SIZE_VER0 &&
		    (f->old_alloc || req != PMCLOG_IOC_ALLOCATE)) {
			errno = E2BIG;
			return -1;
		}
		memset(&f->alloc, 0, sizeof(f->alloc));
		memcpy(&f->alloc, arg, _IOC_SIZE(req));
		((struct pmclog_alloc *)arg)->pmcid = ++f->pmcs;
		return 0;
	}
	switch (req) {
	case PMCLOG_IOC_GET_VERSION:
		((struct pmclog_version *)arg)->abi_version = f->abi;
		return 0;
	case PMCLOG_IOC_GET_PMU:
		/* A module that fills reason to the last byte. */
		memset(((struct pmclog_pmu_info *)arg)->reason, 'x',
		       sizeof(((struct pmclog_pmu_info *)arg)->reason));
		((struct pmclog_pmu_info *)arg)->ngp = 4;
		return 0;
	case PMCLOG_IOC_ATTACH:
		f->attach = *(const struct pmclog_attach *)arg;
		return 0;
	case PMCLOG_IOC_START:
	case PMCLOG_IOC_STOP:
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}

static const struct pmclog_device_ops fake_ops = { .ioctl = fake_ioctl };

/* A device on the read end of a pipe; *wr is its write end. */
static struct pmclog_device *fake_device(struct fake *f, int *wr, bool any_abi)
{
	int p[2];
	struct pmclog_device *dev;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	dev = pmclog_device__new(p[0], "/dev/fake", &fake_ops, f, any_abi);
	if (wr)
		*wr = p[1];
	else
		close(p[1]);
	return dev;
}

static void test_open_missing(void **state)
{
	struct pmclog_device_opts opts = PMCLOG_DEVICE_OPTS_INIT;
	(void)state;

	opts.path = "/nonexistent/pmclog";
	assert_null(pmclog_device__open(&opts));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(said,
		"cannot open /nonexistent/pmclog: No such file or directory; is the module loaded? (insmod pmclog.ko)\n");
}

/* $PMCLOG_DEVICE names the device; a file that is not one is refused. */
static void test_open_not_a_device(void **state)
{
	(void)state;

	setenv("PMCLOG_DEVICE", "/dev/null", 1);
	assert_null(pmclog_device__open(NULL));
	assert_int_equal(errno, EPROTO);
	assert_non_null(strstr(said, "/dev/null: PMCLOG_IOC_GET_VERSION failed: "));
	assert_non_null(strstr(said, "is /dev/null a pmclog device?"));
	unsetenv("PMCLOG_DEVICE");
}

static void test_open_bad_opts(void **state)
{
	struct {
		struct pmclog_device_opts o;
		long newer;
	} big = { .o = { .sz = sizeof(big) }, .newer = 1 };
	(void)state;

	assert_null(pmclog_device__open(&big.o));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(said, "");
}

/* Another ABI major: refused, said; with any_abi only its version. */
static void test_other_major(void **state)
{
	struct fake f = { .abi = PMCLOG_ABI_VERSION(PMCLOG_ABI_MAJOR + 1, 0, 3) };
	struct pmclog_alloc a = { .event = PMCLOG_EV_CPU_CLOCK, .period = 1000 };
	struct pmclog_device *dev;
	char want[256];
	(void)state;

	assert_null(fake_device(&f, NULL, false));
	assert_int_equal(errno, EPROTONOSUPPORT);
	snprintf(want, sizeof(want),
		 "/dev/fake: the module has ABI version %u.0.3; this pmclog speaks major %u only: build the tool and the module from the same tree\n",
		 PMCLOG_ABI_MAJOR + 1, PMCLOG_ABI_MAJOR);
	assert_string_equal(said, want);

	f.nreqs = 0;
	dev = fake_device(&f, NULL, true);
	assert_non_null(dev);
	assert_int_equal(pmclog_device__abi_version(dev), f.abi);
	assert_int_equal(pmclog_device__allocate(dev, &a), -EPROTONOSUPPORT);
	assert_int_equal(pmclog_device__start(dev), -EPROTONOSUPPORT);
	/* Nothing but GET_VERSION reached a module it cannot speak to. */
	assert_int_equal(f.nreqs, 1);
	pmclog_device__close(dev);
}

/* A log's ioctls, in order, with the ABI's arguments. */
static void test_ioctls(void **state)
{
	struct fake f = { .abi = PMCLOG_ABI_CURRENT };
	struct pmclog_alloc a = {
		.event = PMCLOG_EV_CYCLES, .flags = PMCLOG_PMC_F_FREQ, .period = 999,
		.name = "cycles:u",
	};
	struct pmclog_attach at = {
		.mode = PMCLOG_ATTACH_PROCESS, .pid = 42, .flags = PMCLOG_ATTACH_F_CHILDREN,
	};
	struct pmclog_pmu_info info;
	struct pmclog_device *dev = fake_device(&f, NULL, false);
	static const unsigned long want[] = {
		PMCLOG_IOC_GET_VERSION, PMCLOG_IOC_ALLOCATE, PMCLOG_IOC_ALLOCATE,
		PMCLOG_IOC_GET_PMU, PMCLOG_IOC_ATTACH, PMCLOG_IOC_START,
		PMCLOG_IOC_STOP,
	};
	(void)state;

	assert_non_null(dev);
	assert_string_equal(pmclog_device__path(dev), "/dev/fake");
	assert_true(pmclog_device__fd(dev) >= 0);
	assert_int_equal(pmclog_device__abi_version(dev), PMCLOG_ABI_CURRENT);
	assert_int_equal(pmclog_device__allocate(dev, &a), 0);
	assert_int_equal(a.pmcid, 1);
	assert_int_equal(f.alloc.event, PMCLOG_EV_CYCLES);
	assert_int_equal(f.alloc.period, 999);
	assert_string_equal(f.alloc.name, "cycles:u");
	assert_int_equal(pmclog_device__allocate(dev, &a), 0);
	assert_int_equal(a.pmcid, 2);
	assert_int_equal(pmclog_device__pmu_info(dev, &info), 0);
	assert_int_equal(info.ngp, 4);
	assert_int_equal(strlen(info.reason), sizeof(info.reason) - 1);
	assert_int_equal(pmclog_device__attach(dev, &at), 0);
	assert_int_equal(f.attach.mode, PMCLOG_ATTACH_PROCESS);
	assert_int_equal(f.attach.pid, 42);
	assert_int_equal(f.attach.flags, PMCLOG_ATTACH_F_CHILDREN);
	assert_int_equal(pmclog_device__start(dev), 0);
	assert_int_equal(pmclog_device__stop(dev), 0);
	assert_int_equal(f.nreqs, sizeof(want) / sizeof(want[0]));
	assert_memory_equal(f.reqs, want, sizeof(want));
	pmclog_device__close(dev);
	assert_string_equal(said, "");	/* operations do not print */
}

/*
 * A module before ABI 1.3 refuses the name (E2BIG): ALLOCATE is asked
 * again with the ABI 1.0 structure, and succeeds.
 */
static void test_allocate_old_module(void **state)
{
	struct fake f = { .abi = PMCLOG_ABI_VERSION(1, 2, 0), .old_alloc = true };
	struct pmclog_alloc a = {
		.event = PMCLOG_EV_CPU_CLOCK, .period = 1000, .name = "cpu-clock",
	};
	struct pmclog_device *dev = fake_device(&f, NULL, false);
	(void)state;

	assert_non_null(dev);
	assert_int_equal(pmclog_device__allocate(dev, &a), 0);
	assert_int_equal(a.pmcid, 1);
	assert_int_equal(f.nreqs, 3);
	assert_int_equal(f.reqs[1], PMCLOG_IOC_ALLOCATE);
	assert_int_equal(_IOC_NR(f.reqs[2]), _IOC_NR(PMCLOG_IOC_ALLOCATE));
	assert_int_equal(_IOC_SIZE(f.reqs[2]), PMCLOG_ALLOC_SIZE_VER0);
	assert_int_equal(f.alloc.period, 1000);
	assert_string_equal(f.alloc.name, "");	/* not sent */
	pmclog_device__close(dev);
}

/* A refused ioctl: its errno, negative and in errno; nothing said. */
static void test_ioctl_errors(void **state)
{
	static const struct {
		unsigned long req;
		int err;
	} cases[] = {
		{ PMCLOG_IOC_ALLOCATE, ERANGE },
		{ PMCLOG_IOC_ALLOCATE, ENODEV },
		{ PMCLOG_IOC_ATTACH, ESRCH },
		{ PMCLOG_IOC_START, EBUSY },
		{ PMCLOG_IOC_STOP, EINVAL },
		{ PMCLOG_IOC_GET_PMU, ENOTTY },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake f = {
			.abi = PMCLOG_ABI_CURRENT, .fail_req = cases[i].req,
			.fail_errno = cases[i].err,
		};
		struct pmclog_device *dev = fake_device(&f, NULL, false);
		struct pmclog_alloc a = { .event = PMCLOG_EV_CPU_CLOCK, .period = 1 };
		struct pmclog_attach at = { .mode = PMCLOG_ATTACH_SYSTEM };
		struct pmclog_pmu_info info;
		int ret;

		assert_non_null(dev);
		errno = 0;
		if (cases[i].req == PMCLOG_IOC_ALLOCATE)
			ret = pmclog_device__allocate(dev, &a);
		else if (cases[i].req == PMCLOG_IOC_ATTACH)
			ret = pmclog_device__attach(dev, &at);
		else if (cases[i].req == PMCLOG_IOC_START)
			ret = pmclog_device__start(dev);
		else if (cases[i].req == PMCLOG_IOC_STOP)
			ret = pmclog_device__stop(dev);
		else
			ret = pmclog_device__pmu_info(dev, &info);
		assert_int_equal(ret, -cases[i].err);
		assert_int_equal(errno, cases[i].err);
		pmclog_device__close(dev);
	}
	assert_string_equal(said, "");
}

/* read(2) hands over what the module wrote; 0 once the log is over. */
static void test_read(void **state)
{
	static struct logbuf b;
	unsigned char buf[512];
	struct fake f = { .abi = PMCLOG_ABI_CURRENT };
	struct pmclog_device *dev;
	int wr;
	(void)state;

	dev = fake_device(&f, &wr, false);
	assert_non_null(dev);
	memset(&b, 0, sizeof(b));
	lb_initialize(&b);
	lb_closelog(&b, 0, 0, 0);
	assert_int_equal(write(wr, b.data, b.len), (ssize_t)b.len);
	close(wr);
	assert_int_equal(pmclog_device__read(dev, buf, sizeof(buf)), (ssize_t)b.len);
	assert_memory_equal(buf, b.data, b.len);
	assert_int_equal(pmclog_device__read(dev, buf, sizeof(buf)), 0);
	pmclog_device__close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_open_missing, setup),
		cmocka_unit_test_setup(test_open_not_a_device, setup),
		cmocka_unit_test_setup(test_open_bad_opts, setup),
		cmocka_unit_test_setup(test_other_major, setup),
		cmocka_unit_test_setup(test_ioctls, setup),
		cmocka_unit_test_setup(test_allocate_old_module, setup),
		cmocka_unit_test_setup(test_ioctl_errors, setup),
		cmocka_unit_test_setup(test_read, setup),
	};

	return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
