// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmclog_events.h"

#define EVENT_NAME(name, value, str)	[PMCLOG_EV_##name] = str,
static const char *const event_names[] = {
	PMCLOG_EVENTS(EVENT_NAME)
};
#undef EVENT_NAME

_Static_assert(sizeof(event_names) / sizeof(event_names[0]) ==
	       PMCLOG_EV_MAX_KNOWN + 1, "a name for every event");

const char *pmclog_event_name(__u32 event)
{
	return event <= PMCLOG_EV_MAX_KNOWN ? event_names[event] : NULL;
}

bool pmclog_event_needs_pmu(__u32 event)
{
	return event != PMCLOG_EV_CPU_CLOCK;
}

void pmclog_event_foreach(void (*fn)(const char *name, void *ctx), void *ctx)
{
	for (__u32 ev = 1; ev <= PMCLOG_EV_MAX_KNOWN; ev++)
		if (ev != PMCLOG_EV_RAW)
			fn(event_names[ev], ctx);
}

/* ":u", ":k", ":uk" or ":ku" into PMCLOG_PMC_F_USER/KERNEL. */
static int parse_modifier(const char *mod, __u32 *flags)
{
	__u32 f = 0;

	if (!*mod)
		return -EINVAL;
	for (; *mod; mod++) {
		__u32 bit = *mod == 'u' ? PMCLOG_PMC_F_USER :
			    *mod == 'k' ? PMCLOG_PMC_F_KERNEL : 0;

		if (!bit || (f & bit))
			return -EINVAL;
		f |= bit;
	}
	*flags = f;
	return 0;
}

/* "r1c2" into a raw config; strictly hex digits, at most 64 bits. */
static int parse_raw(const char *s, size_t len, __u64 *config)
{
	char digits[17];

	if (len == 0 || len >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, s, len);
	digits[len] = '\0';
	if (strspn(digits, "0123456789abcdefABCDEF") != len)
		return -EINVAL;
	*config = strtoull(digits, NULL, 16);
	return 0;
}

static int lookup_name(const char *s, size_t len, __u32 *event)
{
	for (__u32 ev = 1; ev <= PMCLOG_EV_MAX_KNOWN; ev++) {
		if (ev == PMCLOG_EV_RAW)
			continue;
		if (strlen(event_names[ev]) == len &&
		    !memcmp(event_names[ev], s, len)) {
			*event = ev;
			return 0;
		}
	}
	return -EINVAL;
}

int pmclog_event_parse(const char *spec, struct pmclog_alloc *alloc)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	__u32 event, mode = 0;
	__u64 config = 0;
	int err;

	if (colon && parse_modifier(colon + 1, &mode))
		return -EINVAL;
	err = lookup_name(spec, len, &event);
	if (err && spec[0] == 'r') {
		err = parse_raw(spec + 1, len - 1, &config);
		event = PMCLOG_EV_RAW;
	}
	/* Every valid spec fits; a longer one is no event this parser knows. */
	if (!err && strlen(spec) >= sizeof(alloc->name))
		err = -EINVAL;
	if (err)
		return err;
	alloc->event = event;
	alloc->config = config;
	alloc->flags = (alloc->flags & ~(PMCLOG_PMC_F_USER | PMCLOG_PMC_F_KERNEL)) | mode;
	/* The module writes it as PMCALLOCATE's name (ABI 1.3). */
	memset(alloc->name, 0, sizeof(alloc->name));
	memcpy(alloc->name, spec, strlen(spec));
	return 0;
}
