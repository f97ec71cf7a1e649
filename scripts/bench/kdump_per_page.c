// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Baseline for `make bench`: read the same struct pages as memmapcheck, one
 * kdump_read() per struct page through libkdumpfile's own vmemmap
 * translation, the way a naive walker (or a script per page) would.
 *
 * usage: kdump_per_page DUMP VMEMMAP_BASE STRUCT_PAGE_SIZE START_PFN END_PFN [...]
 * prints: pages read, pages unreadable, seconds, pages/s, CPU seconds
 */
#include <libkdumpfile/kdumpfile.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	kdump_ctx_t *ctx;
	uint64_t vb, sps, pages = 0, bad = 0;
	unsigned char buf[256];
	struct timespec t0, t1, c0, c1;
	double secs, cpu;
	int fd, i;

	if (argc < 6 || (argc - 4) % 2) {
		fprintf(stderr, "usage: %s DUMP VMEMMAP_BASE STRUCT_PAGE_SIZE START END [START END ...]\n",
			argv[0]);
		return 2;
	}
	vb = strtoull(argv[2], NULL, 0);
	sps = strtoull(argv[3], NULL, 0);
	if (sps == 0 || sps > sizeof(buf))
		return 2;
	fd = open(argv[1], O_RDONLY);
	ctx = kdump_new();
	if (fd < 0 || !ctx || kdump_open_fd(ctx, fd) != KDUMP_OK) {
		fprintf(stderr, "%s: cannot open: %s\n", argv[1],
			ctx ? kdump_get_err(ctx) : "kdump_new");
		return 2;
	}
	kdump_set_string_attr(ctx, "addrxlat.ostype", "linux");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	for (i = 4; i + 1 < argc; i += 2) {
		uint64_t pfn, s = strtoull(argv[i], NULL, 0), e = strtoull(argv[i + 1], NULL, 0);

		for (pfn = s; pfn < e; pfn++) {
			size_t len = sps;

			if (kdump_read(ctx, KDUMP_KVADDR, vb + pfn * sps, buf, &len) != KDUMP_OK ||
			    len != sps)
				bad++;
			pages++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	cpu = (double)(c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
	printf("%" PRIu64 " %" PRIu64 " %.3f %.0f %.3f\n", pages, bad, secs,
	       secs > 0 ? pages / secs : 0.0, cpu);
	kdump_free(ctx);
	close(fd);
	return 0;
}
