// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replay a sequence of physical page reads through the engine's
 * libkdumpfile source (mmc_mem_open_kdump()), for tests/kdump-cache.t.
 *
 * Reads one pfn per line of standard input ("0x1234") and prints, per
 * read, the pfn and either the FNV-1a 64 hash of the page's 4096 bytes or
 * "absent" and the error code's name.  The test computes the expected
 * lines with a second reader of the dump format (scripts/oracle/physmem.py).
 *
 * usage: kdump_replay DUMP < PFNS
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mem.h"

#define PAGE 4096

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int main(int argc, char **argv)
{
	static unsigned char page[PAGE];
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	char line[64];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DUMP < PFNS\n", argv[0]);
		return 2;
	}
	err = mmc_mem_open_kdump(argv[1], &mem);
	if (err) {
		mmc_error_fprint(stderr, err);
		mmc_error_destroy(err);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *end;
		uint64_t pfn = strtoull(line, &end, 0);

		if (end == line)
			continue;
		err = mmc_mem_read(mem, MMC_PHYSADDR, pfn * PAGE, page, PAGE);
		if (err) {
			printf("0x%" PRIx64 " absent %s\n", pfn,
			       mmc_error_code_name(err->code));
			mmc_error_destroy(err);
		} else {
			printf("0x%" PRIx64 " %016" PRIx64 "\n", pfn, fnv1a64(page, PAGE));
		}
	}
	mmc_mem_destroy(mem);
	return fflush(stdout) ? 3 : 0;
}
