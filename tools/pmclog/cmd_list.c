// SPDX-License-Identifier: GPL-2.0
/*
 * pmclog list: the events `pmclog record -e` takes, and which of them
 * this machine can count, from the loaded module (PMCLOG_IOC_GET_PMU).
 *
 *   pmu: intel-arch v4, 4 general-purpose counters (48 bits), 3 fixed (48 bits)
 *   counters: gp0:perf gp1:free ... fixed0:free fixed1:busy
 *   limits: 100000 samples per second per PMC and CPU (max_sample_rate), ...
 *   since load: 0 throttles, 0 times a PMC did not start on a CPU
 *   cpu-clock          available   (hrtimer)
 *   cycles             available
 *   ref-cycles         unavailable: not counted by this PMU
 *   rHEX[:u|:k]        available   raw event select
 *
 * Without a PMU every hardware event is listed as unavailable with the
 * module's reason.  "perf" is a counter the kernel's registry refused
 * the last time pmclog tried to take it; asking reserves nothing, so
 * before a first try perf's counters show as busy (the NMI watchdog's
 * counts) or free.  Exit status 0 whenever the list could be made.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "builtin.h"
#include "pmclog_device.h"
#include "pmclog_events.h"
#include "pmclog_format.h"

struct list_ctx {
	const struct pmclog_pmu_info *pmu;	/* NULL: module predates 1.1 */
};

static __u32 event_of(const char *name)
{
	struct pmclog_alloc a = { 0 };

	return pmclog_event_parse(name, &a) ? 0 : a.event;
}

static void print_event(const char *name, __u32 ev, const struct list_ctx *c)
{
	const char *why = NULL;

	if (!pmclog_event_needs_pmu(ev)) {
		printf("  %-18s available   (hrtimer, any machine)\n", name);
		return;
	}
	if (!c->pmu)
		why = "the module predates PMCLOG_IOC_GET_PMU (ABI 1.1)";
	else if (c->pmu->pmu == PMCLOG_PMU_NONE)
		why = c->pmu->reason;
	else if (!(c->pmu->events & (1U << ev)))
		why = "not counted by this PMU";
	if (why)
		printf("  %-18s unavailable: %s\n", name, why);
	else
		printf("  %-18s available\n", name);
}

static void list_one(const char *name, void *ctx)
{
	print_event(name, event_of(name), ctx);
}

static void print_counters(const char *what, unsigned int base, unsigned int n,
			   const struct pmclog_pmu_info *p)
{
	for (unsigned int i = 0; i < n; i++) {
		__u32 bit = 1U << (base + i);

		if (!(p->counters & bit))
			continue;
		printf(" %s%u:%s", what, i,
		       p->taken & bit ? "pmclog" :
		       p->reserved & bit ? "perf" :
		       p->busy & bit ? "busy" : "free");
	}
}

const struct cmd_usage list_usage = {
	.name = "list",
	.summary = "list the events and which of them this machine's PMU counts",
	.options = (const struct cmd_option[]){ OPT_END() },
};

int cmd_list(int argc, char **argv)
{
	struct pmclog_pmu_info info;
	struct list_ctx ctx = { 0 };
	struct pmclog_device *dev;
	__u32 abi;
	int ret, first;

	ret = parse_options(&list_usage, argc, argv, NULL, &first);
	if (ret)
		return ret == PARSE_OPTIONS_HELP ? EX_OK : ret;
	if (first != argc)
		return cmd_usage_error(&list_usage, "unexpected argument '%s'", argv[first]);
	dev = pmclog_device__open(NULL);
	if (!dev)
		return device_open_status(errno);
	abi = pmclog_device__abi_version(dev);
	ret = pmclog_device__pmu_info(dev, &info);
	if (ret && ret != -ENOTTY)
		warnx("%s: PMCLOG_IOC_GET_PMU failed: %s", pmclog_device__path(dev),
		      strerror(-ret));
	pmclog_device__close(dev);
	if (ret == 0)
		ctx.pmu = &info;
	else if (ret != -ENOTTY)
		return EX_OSERR;

	if (!ctx.pmu) {
		printf("pmu: unknown (module ABI %u.%u)\n",
		       PMCLOG_ABI_VERSION_MAJOR(abi), PMCLOG_ABI_VERSION_MINOR(abi));
	} else if (info.pmu == PMCLOG_PMU_NONE) {
		printf("pmu: none: %s\n", info.reason);
	} else {
		const char *name = pmclog_pmu_name(info.pmu);

		printf("pmu: %s", name ? name : "unknown");
		if (info.version)
			printf(" v%u", info.version);
		printf(", %u general-purpose counters (%u bits)", info.ngp, info.gp_width);
		if (info.nfixed)
			printf(", %u fixed (%u bits)", info.nfixed, info.fixed_width);
		if (info.flags & PMCLOG_PMU_INFO_F_HETERO)
			printf("; the CPUs differ (hybrid): what every CPU has");
		printf("\ncounters:");
		print_counters("gp", 0, 8, &info);
		print_counters("fixed", 16, 4, &info);
		printf("\n");
		if (info.reason[0])
			printf("note: %s\n", info.reason);
	}
	/* ABI 1.2 */
	if (ctx.pmu && info.max_sample_rate) {
		printf("limits: %u samples per second per PMC and CPU (max_sample_rate)",
		       info.max_sample_rate);
		if (info.pmu != PMCLOG_PMU_NONE && info.cpu_time_max_percent < 100)
			printf("; overflow interrupts up to %u%% of a tick (cpu_time_max_percent)",
			       info.cpu_time_max_percent);
		printf("\n");
		if (info.pmu != PMCLOG_PMU_NONE)
			printf("since load: %llu throttles, %llu times a PMC did not start on a CPU\n",
			       (unsigned long long)info.throttles,
			       (unsigned long long)info.skipped);
	}
	printf("events:\n");
	pmclog_event_foreach(list_one, &ctx);
	print_event("rHEX[:u|:k]", PMCLOG_EV_RAW, &ctx);
	return fflush(stdout) ? EX_IOERR : EX_OK;
}
