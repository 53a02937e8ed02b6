// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "pmclog_stats.h"

static void account_record(struct pmclog_stats *st, const unsigned char *rec,
			   const struct pmclog_header *h)
{
	struct pmclog_dropnotify dn;
	struct pmclog_throttle th;

	st->records++;
	st->bytes += h->length;
	switch (h->type) {
	case PMCLOG_TYPE_PCSAMPLE:
		st->samples++;
		break;
	case PMCLOG_TYPE_PROCFORK:
		if (h->flags & PMCLOG_HF_UNFOLLOWED)
			st->procs_unfollowed++;
		break;
	case PMCLOG_TYPE_DROPNOTIFY:
		if (h->length < sizeof(dn))
			break;
		memcpy(&dn, rec, sizeof(dn));
		st->samples_dropped += dn.samples;
		st->records_dropped += dn.records;
		break;
	case PMCLOG_TYPE_THROTTLE:
		if (h->length < sizeof(th))
			break;
		memcpy(&th, rec, sizeof(th));
		if (th.reason == PMCLOG_THROTTLE_BUSY ||
		    th.reason == PMCLOG_THROTTLE_ABSENT)
			st->cpus_skipped += th.count;
		else
			st->throttles += th.count;
		break;
	case PMCLOG_TYPE_CLOSELOG:
		if (h->length < sizeof(st->close))
			break;
		memcpy(&st->close, rec, sizeof(st->close));
		st->closelog = true;
		break;
	default:
		break;
	}
}

size_t pmclog_stats__account(struct pmclog_stats *st, const void *buf,
			     size_t len)
{
	const unsigned char *p = buf;
	size_t off = 0;
	struct pmclog_header h;

	while (len - off >= sizeof(h)) {
		memcpy(&h, p + off, sizeof(h));
		if (h.magic != PMCLOG_HEADER_MAGIC || h.length < sizeof(h) ||
		    h.length % PMCLOG_RECORD_ALIGN || h.length > len - off)
			break;
		account_record(st, p + off, &h);
		off += h.length;
	}
	return off;
}
