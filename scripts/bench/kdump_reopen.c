// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cost of engine/mem_kdump.c's kdump_reopen(): a read that fails
 * inside libkdumpfile replaces the dump's context with a fresh one (open,
 * translation setup, the bitmap of pages held).  Physical reads of pages
 * the file does not hold stop before libkdumpfile (kdump_held()); a kernel
 * virtual read of such a page does not: the direct map's address of a
 * pfn makedumpfile filtered out is one.
 *
 * Opens the dump through the engine's reader, finds N pfns it holds and N
 * it does not (physical reads from pfn 0 up), then times N reads of each
 * kind, 4096 bytes each, and counts libkdumpfile's opens (kdump_open_fdset(),
 * interposed here) during each loop:
 *   good virt    direct-map reads of held pages
 *   absent phys  physical reads of absent pages (no libkdumpfile, no reopen)
 *   absent virt  direct-map reads of absent pages (a reopen each)
 *
 * build: cc -O2 -D_GNU_SOURCE -Iengine -o kdump_reopen scripts/bench/kdump_reopen.c \
 *          build/libmemmapcheck.a $(pkg-config --cflags --libs libkdumpfile libaddrxlat libdw) \
 *          -lelf -pthread -ldl
 * usage: kdump_reopen DUMP PAGE_OFFSET_BASE [N]  (page_offset_base: `memmapcheck ranges`)
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mem.h"
#include "mmc_error.h"

#define PAGE 4096

static unsigned long opens;

/* libkdumpfile's opens (kdump_open_fd() is kdump_open_fdset()), counted:
 * the engine's calls resolve here first. */
kdump_status kdump_open_fdset(kdump_ctx_t *ctx, unsigned int nfds, const int *fds)
{
	static kdump_status (*real)(kdump_ctx_t *, unsigned int, const int *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "kdump_open_fdset");
	opens++;
	return real(ctx, nfds, fds);
}

static double now(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* n reads of pfn[i] (virtual: at pob + pfn * PAGE); the errors counted. */
static void loop(struct mmc_mem *mem, const char *what, enum mmc_space sp, uint64_t pob,
		 const uint64_t *pfn, size_t n)
{
	static unsigned char page[PAGE];
	unsigned long o = opens, failed = 0;
	double w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);

	for (size_t i = 0; i < n; i++) {
		uint64_t a = sp == MMC_KVADDR ? pob + pfn[i] * PAGE : pfn[i] * PAGE;
		struct mmc_error *err = mmc_mem_read(mem, sp, a, page, PAGE);

		failed += err != NULL;
		mmc_error_destroy(err);
	}
	w = now(CLOCK_MONOTONIC) - w;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c;
	printf("%-12s %6zu reads %6lu failed %6lu opens  %9.1f us/read wall %9.1f us/read CPU\n",
	       what, n, failed, opens - o, w / (double)n * 1e6, c / (double)n * 1e6);
}

int main(int argc, char **argv)
{
	static unsigned char page[PAGE];
	size_t n = argc > 3 ? strtoul(argv[3], NULL, 0) : 1000, ng = 0, na = 0;
	uint64_t pob, *good, *absent;
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	double w, c;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DUMP PAGE_OFFSET_BASE [N]\n", argv[0]);
		return 2;
	}
	pob = strtoull(argv[2], NULL, 16);
	good = calloc(n, sizeof(*good));
	absent = calloc(n, sizeof(*absent));
	if (!good || !absent)
		return 3;
	w = now(CLOCK_MONOTONIC);
	c = now(CLOCK_PROCESS_CPUTIME_ID);
	err = mmc_mem_open_kdump(argv[1], &mem);
	if (err) {
		mmc_error_fprint(stderr, err);
		fputc('\n', stderr);
		return 2;
	}
	printf("open         %lu opens  %9.1f us wall %9.1f us CPU\n", opens,
	       (now(CLOCK_MONOTONIC) - w) * 1e6, (now(CLOCK_PROCESS_CPUTIME_ID) - c) * 1e6);
	for (uint64_t pfn = 0; (ng < n || na < n) && pfn < (1ULL << 24); pfn++) {
		err = mmc_mem_read(mem, MMC_PHYSADDR, pfn * PAGE, page, PAGE);
		if (!err && ng < n)
			good[ng++] = pfn;
		else if (err && err->code == MMC_ERR_NODATA && na < n)
			absent[na++] = pfn;
		mmc_error_destroy(err);
	}
	printf("pfns         %zu held, %zu absent (first %#" PRIx64 ", last %#" PRIx64 ")\n", ng, na,
	       na ? absent[0] : 0, na ? absent[na - 1] : 0);
	loop(mem, "good virt", MMC_KVADDR, pob, good, ng);
	loop(mem, "absent phys", MMC_PHYSADDR, pob, absent, na);
	loop(mem, "absent virt", MMC_KVADDR, pob, absent, na);
	loop(mem, "good virt", MMC_KVADDR, pob, good, ng);
	mmc_mem_destroy(mem);
	free(good);
	free(absent);
	return 0;
}
