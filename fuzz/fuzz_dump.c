// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: opening a dump (the extent checks of mem_extent.c, then
 * libkdumpfile on the same bytes: kdump-compressed, ELF, flattened) and
 * reading from it, physical and virtual, where the input says.  The input
 * is the file; its last 16 bytes also choose two addresses to read.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	uint64_t a = 0, b = 0;
	uint8_t buf[8192];
	char path[64];
	int fd;

	if (size > (4u << 20))
		return 0;
	if (size >= 16) {
		memcpy(&a, data + size - 16, 8);
		memcpy(&b, data + size - 8, 8);
	}
	fd = memfd_create("fuzz-dump", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = mmc_mem_open_kdump(path, &mem);
	mmc_error_destroy(err);
	if (mem) {
		mmc_error_destroy(mmc_mem_read(mem, MMC_PHYSADDR, a % (1ULL << 36), buf,
					       sizeof(buf)));
		mmc_error_destroy(mmc_mem_read(mem, MMC_PHYSADDR, 0, buf, 4096));
		mmc_error_destroy(mmc_mem_read(mem, MMC_KVADDR, b | 0xffff800000000000ULL,
					       buf, 64));
		mmc_error_destroy(mmc_mem_read(mem, MMC_KVADDR, 0xffffffff81000000ULL,
					       buf, 64));
		mmc_mem_destroy(mem);
	}
	close(fd);
	return 0;
}
