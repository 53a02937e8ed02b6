/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmclog maps: what each process has mapped where, as the log's
 * MAP_IN / MAP_OUT / PROC* records say, replayed in time order.
 *
 * An address map is a sorted array of disjoint intervals [start, end),
 * each naming an object (opaque here) and the object address of start:
 * an address pc in the interval is at pc - start + base in its object.
 * (For a file mapping base is the file offset of start; for "[kernel]"
 * the link-time address; for a module, the offset in its text.)
 *
 *   insert  replaces whatever overlapped the new interval (cut to fit)
 *   remove  drops [start, end), splitting an interval that straddles it
 *
 * pmclog_procmaps holds one address map per pid (PMCLOG_PID_KERNEL for
 * the kernel), with fork (copy), exec (reset) and exit (kept for samples
 * taken before it, forgotten when the pid is reused by a fork).
 */
#ifndef PMCLOG_MAPS_H
#define PMCLOG_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct pmclog_map {
	__u64 start;
	__u64 end;
	__u64 base;	/* object address of start */
	void *obj;
};

struct pmclog_addrmap {
	struct pmclog_map *maps;
	size_t count;
	size_t cap;
};

void pmclog_addrmap__init(struct pmclog_addrmap *m);
void pmclog_addrmap__clear(struct pmclog_addrmap *m);	/* frees too */
/* Return 0, -EINVAL for end <= start, -ENOMEM. */
int pmclog_addrmap__insert(struct pmclog_addrmap *m, __u64 start, __u64 end,
			   __u64 base, void *obj);
int pmclog_addrmap__remove(struct pmclog_addrmap *m, __u64 start, __u64 end);
const struct pmclog_map *pmclog_addrmap__find(const struct pmclog_addrmap *m,
					      __u64 addr);
int pmclog_addrmap__copy(struct pmclog_addrmap *dst,
			 const struct pmclog_addrmap *src);

struct pmclog_procmaps;

struct pmclog_procmaps *pmclog_procmaps__new(void);
void pmclog_procmaps__free(struct pmclog_procmaps *pm);
/* pid's map, created empty when create is set; NULL if none (or ENOMEM). */
struct pmclog_addrmap *pmclog_procmaps__get(struct pmclog_procmaps *pm,
					    __u32 pid, bool create);
/*
 * PROCFORK: pid's maps become a copy of ppid's (empty if ppid has none);
 * ppid == pid changes nothing.
 */
int pmclog_procmaps__fork(struct pmclog_procmaps *pm, __u32 ppid, __u32 pid);
/* PROCEXEC: pid's maps are emptied. */
int pmclog_procmaps__exec(struct pmclog_procmaps *pm, __u32 pid);
/* PROCEXIT: kept; true if pid was known. */
bool pmclog_procmaps__exit(struct pmclog_procmaps *pm, __u32 pid);
bool pmclog_procmaps__exited(const struct pmclog_procmaps *pm, __u32 pid);

#endif /* PMCLOG_MAPS_H */
