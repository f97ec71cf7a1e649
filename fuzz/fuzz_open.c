// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the dump readers' failure paths.  Open a dump, let it fail
 * wherever it fails (the extent checks, libkdumpfile's kdump_open_fd()
 * part-way, address translation setup, the kcore reader's headers), and
 * close what was opened, a second reader too; nothing is read beyond what
 * opening reads.  libkdumpfile is not built with ASan, so its own
 * use-after-free (doc/upstream/libkdumpfile/0005-*.patch) is invisible to
 * libFuzzer: `fuzz/valgrind.sh` replays the corpus under valgrind.
 *
 * Input: byte 0 chooses what is opened,
 *   0  the rest as a file, through libkdumpfile (mmc_mem_open_kdump);
 *   1  the rest as a file, through the kcore reader (mmc_mem_open_kcore);
 *   2  a small valid kdump-compressed dump (header version 6, x86_64
 *      utsname, a VMCOREINFO and an NT_PRSTATUS note, two pages) with the
 *      rest of the input written over it from byte 400 on (the end of the
 *      utsname: the header fields, the sub-header, the notes, the bitmaps):
 *      the headers libkdumpfile takes before it fails part-way.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bytes.h"
#include "mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BS		4096
#define TEMPLATE_SIZE	(8 * BS)
#define PATCH_AT	400

/*
 * Blocks: 0 header, 1 sub-header, 2-3 bitmaps (two halves of 2 blocks: 8
 * pfns), 4 notes, 5 descriptors, 6-7 the data of pfns 0 and 1.
 */
static void make_template(uint8_t *f)
{
	static const char vmcoreinfo[] =
		"OSRELEASE=6.12.0-fuzz\nPAGESIZE=4096\n"
		"SYMBOL(init_top_pgt)=ffffffff82a0a000\nSYMBOL(_stext)=ffffffff81000000\n"
		"NUMBER(pgtable_l5_enabled)=0\nNUMBER(phys_base)=0\nKERNELOFFSET=0\n";
	uint8_t *sub = f + BS, *note = f + 4 * BS, *desc = f + 5 * BS;
	uint32_t vlen = (uint32_t)sizeof(vmcoreinfo) - 1, n = 0;
	int i;

	memset(f, 0, TEMPLATE_SIZE);
	memcpy(f, "KDUMP   ", 8);
	le_put32(f + 8, 6);
	memcpy(f + 12, "Linux", 5);
	memcpy(f + 12 + 2 * 65, "6.12.0-fuzz", 11);
	memcpy(f + 12 + 3 * 65, "#1", 2);
	memcpy(f + 12 + 4 * 65, "x86_64", 6);
	le_put32(f + 428, BS);
	le_put32(f + 432, 1);
	le_put32(f + 436, 2);
	le_put32(f + 440, 8);
	/* VMCOREINFO note, then NT_PRSTATUS of 336 bytes */
	le_put32(note + n, 11);
	le_put32(note + n + 4, vlen);
	le_put32(note + n + 8, 0);
	memcpy(note + n + 12, "VMCOREINFO", 11);
	memcpy(note + n + 24, vmcoreinfo, vlen);
	n += 24 + ((vlen + 3) & ~3u);
	le_put32(note + n, 5);
	le_put32(note + n + 4, 336);
	le_put32(note + n + 8, 1);
	memcpy(note + n + 12, "CORE", 5);
	n += 20 + 336;
	le_put64(sub + 48, 4 * BS);
	le_put64(sub + 56, n);
	le_put64(sub + 96, 8);
	/* both bitmaps: pfns 0 and 1 */
	f[2 * BS] = 0x3;
	f[3 * BS] = 0x3;
	for (i = 0; i < 2; i++) {
		le_put64(desc + 24 * i, (uint64_t)(6 + i) * BS);
		le_put32(desc + 24 * i + 8, BS);
		memset(f + (6 + i) * BS, 0x11 * (i + 1), BS);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t file[TEMPLATE_SIZE];
	const uint8_t *body;
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	size_t len;
	char path[64];
	int fd;

	if (size < 1 || size > (4u << 20))
		return 0;
	if (data[0] % 3 == 2) {
		make_template(file);
		len = size - 1 < TEMPLATE_SIZE - PATCH_AT ? size - 1 : TEMPLATE_SIZE - PATCH_AT;
		memcpy(file + PATCH_AT, data + 1, len);
		body = file;
		len = TEMPLATE_SIZE;
	} else {
		body = data + 1;
		len = size - 1;
	}
	fd = memfd_create("fuzz-open", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, body, len) != (ssize_t)len) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = data[0] % 3 == 1 ? mmc_mem_open_kcore(path, &mem) : mmc_mem_open_kdump(path, &mem);
	mmc_error_destroy(err);
	if (mem) {
		void *reader = NULL;

		if (mmc_mem_has_readers(mem)) {
			err = mem->ops->reader(mem->priv, &reader);
			mmc_error_destroy(err);
			if (reader)
				mem->ops->reader_destroy(reader);
		}
		mmc_mem_destroy(mem);
	}
	close(fd);
	return 0;
}
