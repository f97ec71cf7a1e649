/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Write small synthetic ELF64 x86_64 core files for the memory-source and
 * page-table tests: a PT_NOTE with a VMCOREINFO note (the way the kernel's
 * /proc/vmcore and QEMU write it) followed by PT_LOAD segments, each page
 * aligned in the file.  Both libkdumpfile and the kcore reader open them.
 *
 * A segment with data == NULL is filled with a pattern: every 8-byte word
 * holds its own physical address (mkcore_pattern()), so any read can be
 * checked without keeping the data around, even for a 512 MiB file.
 */
#ifndef MMC_TEST_MKCORE_H
#define MMC_TEST_MKCORE_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mkcore_seg {
	uint64_t vaddr;
	uint64_t paddr;
	const void *data;	/* size bytes, or NULL for the pattern */
	uint64_t size;		/* p_filesz = p_memsz */
	uint64_t offset_bias;	/* added to p_offset only: corrupt headers */
};

static inline uint64_t mkcore_pattern(uint64_t paddr)
{
	return paddr ^ 0x5a5a000000000000ULL;
}

static inline int mkcore_put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static inline int mkcore_pad(FILE *f, uint64_t to)
{
	static const char zero[4096];
	long pos = ftell(f);

	if (pos < 0 || (uint64_t)pos > to)
		return -1;
	while ((uint64_t)pos < to) {
		size_t n = to - (uint64_t)pos;

		if (n > sizeof(zero))
			n = sizeof(zero);
		if (mkcore_put(f, zero, n))
			return -1;
		pos += (long)n;
	}
	return 0;
}

static inline int mkcore_fill_pattern(FILE *f, uint64_t paddr, uint64_t size)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = malloc(CHUNK);
	uint64_t done = 0;
	int ret = 0;

	if (!buf)
		return -1;
	while (done < size && !ret) {
		size_t n = size - done > CHUNK ? CHUNK : (size_t)(size - done);
		size_t i;

		for (i = 0; i < n; i++) {
			uint64_t a = paddr + done + i;
			uint64_t w = mkcore_pattern(a & ~7ULL);

			buf[i] = (unsigned char)(w >> (8 * (a & 7)));
		}
		ret = mkcore_put(f, buf, n);
		done += n;
	}
	free(buf);
	return ret;
}

/* Returns 0, or -1 with errno set. */
static inline int mkcore_write(const char *path, const struct mkcore_seg *segs,
			       size_t nsegs, const char *vmcoreinfo)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Nhdr nh;
	size_t vlen = vmcoreinfo ? strlen(vmcoreinfo) : 0;
	uint64_t note_off, note_size, data_off, off;
	size_t i;
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	note_off = sizeof(eh) + (nsegs + 1) * sizeof(ph);
	note_size = vmcoreinfo ? sizeof(nh) + 12 + ((vlen + 3) & ~3ULL) : 0;
	data_off = (note_off + note_size + 4095) & ~4095ULL;

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = (Elf64_Half)(nsegs + 1);
	if (mkcore_put(f, &eh, sizeof(eh)))
		goto fail;

	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_NOTE;
	ph.p_offset = note_off;
	ph.p_filesz = ph.p_memsz = note_size;
	if (mkcore_put(f, &ph, sizeof(ph)))
		goto fail;
	off = data_off;
	for (i = 0; i < nsegs; i++) {
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_LOAD;
		ph.p_flags = PF_R | PF_W | PF_X;
		ph.p_offset = off + segs[i].offset_bias;
		ph.p_vaddr = segs[i].vaddr;
		ph.p_paddr = segs[i].paddr;
		ph.p_filesz = ph.p_memsz = segs[i].size;
		ph.p_align = 4096;
		if (mkcore_put(f, &ph, sizeof(ph)))
			goto fail;
		off = (off + segs[i].size + 4095) & ~4095ULL;
	}
	if (vmcoreinfo) {
		char name[12] = "VMCOREINFO";

		nh.n_namesz = 11;
		nh.n_descsz = (Elf64_Word)vlen;
		nh.n_type = 0;
		if (mkcore_put(f, &nh, sizeof(nh)) ||
		    mkcore_put(f, name, sizeof(name)) ||
		    mkcore_put(f, vmcoreinfo, vlen) ||
		    mkcore_pad(f, note_off + note_size))
			goto fail;
	}
	off = data_off;
	for (i = 0; i < nsegs; i++) {
		if (mkcore_pad(f, off))
			goto fail;
		if (segs[i].data ? mkcore_put(f, segs[i].data, segs[i].size) :
		    mkcore_fill_pattern(f, segs[i].paddr, segs[i].size))
			goto fail;
		off = (off + segs[i].size + 4095) & ~4095ULL;
	}
	if (mkcore_pad(f, off))
		goto fail;
	return fclose(f) ? -1 : 0;

fail:
	fclose(f);
	return -1;
}

#endif
