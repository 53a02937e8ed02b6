/* SPDX-License-Identifier: GPL-2.0 */
/* Growable arrays, for the library's own use. */
#ifndef PMCLOG_ARRAY_H
#define PMCLOG_ARRAY_H

#include <errno.h>
#include <stdlib.h>

/*
 * Make *arr (*cap elements of sz bytes) hold at least n, doubling; 0 or
 * -ENOMEM (and *arr unchanged).
 */
static inline int pmclog_array_grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	p = realloc(*arr, c * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

#define PMCLOG_GROW(arr, cap, n) \
	pmclog_array_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)))

#endif /* PMCLOG_ARRAY_H */
