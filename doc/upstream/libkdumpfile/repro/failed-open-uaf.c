// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A use-after-free in kdump_free() after a failed kdump_open_fd() of a
 * kdump-compressed file (libkdumpfile 0.5.1 as Debian 12 ships it, and
 * master 764baba).
 *
 * The file below is a valid, empty kdump-compressed dump (header version
 * 6, one bitmap block pair, no pages) whose only ELF note is an
 * NT_PRSTATUS of 0 bytes.  open_common() takes the header, hooks its
 * page_size (0.5.1) and memory.pagemap overrides, which live inside the
 * format's private data, into the context's attributes, then read_notes()
 * fails ("Wrong PRSTATUS size: 0") and err_cleanup frees the private data
 * without unhooking them.  kdump_free() -> attr_dict_free() ->
 * diskdump_attr_cleanup() then walks the attribute's override chain
 * through the freed data (and, in 0.5.1, the attribute itself is freed
 * already: the hooks run after dealloc_attr(), fixed upstream by 97c716a).
 * valgrind shows "Invalid read" in kdump_free(); once the freed block is
 * reused, the walk follows a garbage pointer (SIGSEGV seen in memmapcheck).
 *
 *   cc -o failed-open-uaf failed-open-uaf.c $(pkg-config --cflags --libs libkdumpfile)
 *   valgrind ./failed-open-uaf
 *
 * Exit 0 when kdump_open_fd() refused the file (as it must) and kdump_free()
 * returned; valgrind's verdict is the test.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#define BS 4096

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

int main(void)
{
	static uint8_t f[5 * BS];
	uint8_t *sub = f + BS, *note = f + 4 * BS;
	kdump_ctx_t *ctx;
	kdump_status st;
	int fd;

	/* struct disk_dump_header_64 (makedumpfile's diskdump_mod.h) */
	memcpy(f, "KDUMP   ", 8);
	put32(f + 8, 6);			/* header_version */
	memcpy(f + 12, "Linux", 5);		/* utsname.sysname */
	memcpy(f + 12 + 2 * 65, "6.12", 4);	/* utsname.release */
	memcpy(f + 12 + 3 * 65, "#1", 2);	/* utsname.version */
	memcpy(f + 12 + 4 * 65, "x86_64", 6);	/* utsname.machine */
	put32(f + 428, BS);			/* block_size */
	put32(f + 432, 1);			/* sub_hdr_size, blocks */
	put32(f + 436, 2);			/* bitmap_blocks: two halves */
	put32(f + 440, 8);			/* max_mapnr */
	/* struct kdump_sub_header_64 */
	put64(sub + 48, 4 * BS);		/* offset_note */
	put64(sub + 56, 12 + 8);		/* size_note */
	put64(sub + 96, 8);			/* max_mapnr_64 */
	/* one note: "CORE", NT_PRSTATUS, 0 bytes of descriptor */
	put32(note, 5);
	put32(note + 4, 0);
	put32(note + 8, 1);
	memcpy(note + 12, "CORE", 5);

	fd = memfd_create("failed-open-uaf", 0);
	if (fd < 0 || write(fd, f, sizeof(f)) != (ssize_t)sizeof(f))
		return perror("memfd"), 2;
	ctx = kdump_new();
	if (!ctx)
		return 2;
	st = kdump_open_fd(ctx, fd);
	printf("kdump_open_fd: %d (%s)\n", (int)st, kdump_get_err(ctx));
	kdump_free(ctx);	/* walks freed memory */
	close(fd);
	return st == KDUMP_OK ? 1 : 0;
}
