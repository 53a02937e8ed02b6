// SPDX-License-Identifier: GPL-2.0
/*
 * libpmclog tool: per-type delivery of decoded records.  See pmclog_tool.h.
 */
#include "pmclog_tool.h"

/* A type appended to PMCLOG_RECORD_TYPES needs its case here, and a member if it is delivered. */
_Static_assert(PMCLOG_TYPE_MAX_KNOWN == PMCLOG_TYPE_PCSAMPLES,
	       "struct pmclog_tool has a callback for every known type");

static pmclog_tool_fn type_fn(const struct pmclog_tool *t, unsigned int type)
{
	switch (type) {
	case PMCLOG_TYPE_INITIALIZE:	return t->initialize;
	case PMCLOG_TYPE_CLOSELOG:	return t->closelog;
	case PMCLOG_TYPE_PMCALLOCATE:	return t->pmcallocate;
	case PMCLOG_TYPE_PCSAMPLE:	return t->pcsample;
	case PMCLOG_TYPE_MAP_IN:	return t->map_in;
	case PMCLOG_TYPE_MAP_OUT:	return t->map_out;
	case PMCLOG_TYPE_PROCEXEC:	return t->procexec;
	case PMCLOG_TYPE_PROCFORK:	return t->procfork;
	case PMCLOG_TYPE_PROCEXIT:	return t->procexit;
	case PMCLOG_TYPE_DROPNOTIFY:	return t->dropnotify;
	case PMCLOG_TYPE_KSYMBOL:	return t->ksymbol;
	case PMCLOG_TYPE_THROTTLE:	return t->throttle;
	case PMCLOG_TYPE_UNTHROTTLE:	return t->unthrottle;
	case PMCLOG_TYPE_BUILDID:	return t->buildid;
	case PMCLOG_TYPE_CALLCHAIN:	return t->callchain;
	/* Never returned by a reader: it returns the samples, as PCSAMPLEs. */
	case PMCLOG_TYPE_PCSAMPLES:	return NULL;
	default:
		/* Type 0 never gets past the reader. */
		return type > PMCLOG_TYPE_MAX_KNOWN ? t->unknown : NULL;
	}
}

int pmclog_tool__deliver(struct pmclog_tool *tool,
			 const struct pmclog_record *rec)
{
	pmclog_tool_fn fn = type_fn(tool, rec->type);
	int ret = tool->record ? tool->record(tool, rec) : 0;

	if (!ret && fn)
		ret = fn(tool, rec);
	return ret;
}

int pmclog_tool__process(struct pmclog_tool *tool, struct pmclog_reader *r)
{
	struct pmclog_record rec;
	int ret;

	while ((ret = pmclog_reader__next(r, &rec)) == 1) {
		ret = pmclog_tool__deliver(tool, &rec);
		if (ret)
			return ret;
	}
	return ret;
}
