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
 *
 * mkcore_headers() alone gives the bytes before the segments' data, for a
 * writer that puts the data there itself (scripts/bench/synth_ns.c).
 */
#ifndef MMC_TEST_MKCORE_H
#define MMC_TEST_MKCORE_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * Data whose 4 KiB blocks of zeros are left as holes (the file's size is
 * set in mkcore_write()): a synthetic image is 64 MiB of mostly zeros, and
 * writing them cost the unit tests seconds of system time per run.
 */
static inline int mkcore_put_sparse(FILE *f, const void *p, size_t n)
{
	static const char zero[4096];
	const char *c = p;

	while (n) {
		size_t k = n > sizeof(zero) ? sizeof(zero) : n;

		if (k == sizeof(zero) && !memcmp(c, zero, k) && !fseek(f, (long)k, SEEK_CUR))
			;
		else if (mkcore_put(f, c, k))
			return -1;
		c += k;
		n -= k;
	}
	return 0;
}

static inline int mkcore_pad(FILE *f, uint64_t to)
{
	long pos = ftell(f);

	if (pos < 0 || (uint64_t)pos > to)
		return -1;
	return fseek(f, (long)(to - (uint64_t)pos), SEEK_CUR);
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

/* Each segment's data starts at the page boundary after the previous one's. */
static inline uint64_t mkcore_align(uint64_t off)
{
	return (off + 4095) & ~4095ULL;
}

/* The VMCOREINFO note: header, "VMCOREINFO" padded to 12, the text padded to 4. */
static inline uint64_t mkcore_note_size(const char *vmcoreinfo)
{
	return vmcoreinfo ? sizeof(Elf64_Nhdr) + 12 + ((strlen(vmcoreinfo) + 3) & ~3ULL) : 0;
}

/* File offset of the first segment's data: after the ELF header, the
 * nsegs + 1 program headers and the note. */
static inline uint64_t mkcore_data_off(size_t nsegs, const char *vmcoreinfo)
{
	return mkcore_align(sizeof(Elf64_Ehdr) + (nsegs + 1) * sizeof(Elf64_Phdr) +
			    mkcore_note_size(vmcoreinfo));
}

/*
 * What comes before the segments' data: the ELF header, a PT_NOTE and a
 * PT_LOAD per segment, the note, zeros up to mkcore_data_off().  Only the
 * segments' addresses and sizes are read, not their data, so a generator
 * that writes huge data itself (scripts/bench/synth_ns.c) uses it too.
 * Returns a malloc'd buffer of *len bytes, or NULL with errno set.
 */
static inline void *mkcore_headers(const struct mkcore_seg *segs, size_t nsegs,
				   const char *vmcoreinfo, size_t *len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Nhdr nh;
	size_t vlen = vmcoreinfo ? strlen(vmcoreinfo) : 0;
	uint64_t note_off = sizeof(eh) + (nsegs + 1) * sizeof(ph);
	uint64_t note_size = mkcore_note_size(vmcoreinfo);
	uint64_t data_off = mkcore_data_off(nsegs, vmcoreinfo), off = data_off;
	unsigned char *hdr = calloc(1, data_off);
	size_t i;

	if (!hdr)
		return NULL;
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
	memcpy(hdr, &eh, sizeof(eh));

	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_NOTE;
	ph.p_offset = note_off;
	ph.p_filesz = ph.p_memsz = note_size;
	memcpy(hdr + sizeof(eh), &ph, sizeof(ph));
	for (i = 0; i < nsegs; i++) {
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_LOAD;
		ph.p_flags = PF_R | PF_W | PF_X;
		ph.p_offset = off + segs[i].offset_bias;
		ph.p_vaddr = segs[i].vaddr;
		ph.p_paddr = segs[i].paddr;
		ph.p_filesz = ph.p_memsz = segs[i].size;
		ph.p_align = 4096;
		memcpy(hdr + sizeof(eh) + (i + 1) * sizeof(ph), &ph, sizeof(ph));
		off = mkcore_align(off + segs[i].size);
	}
	if (vmcoreinfo) {
		nh.n_namesz = 11;
		nh.n_descsz = (Elf64_Word)vlen;
		nh.n_type = 0;
		memcpy(hdr + note_off, &nh, sizeof(nh));
		memcpy(hdr + note_off + sizeof(nh), "VMCOREINFO", 11);
		memcpy(hdr + note_off + sizeof(nh) + 12, vmcoreinfo, vlen);
	}
	*len = (size_t)data_off;
	return hdr;
}

/* Returns 0, or -1 with errno set. */
static inline int mkcore_write(const char *path, const struct mkcore_seg *segs,
			       size_t nsegs, const char *vmcoreinfo)
{
	size_t len, i;
	void *hdr;
	uint64_t off;
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	hdr = mkcore_headers(segs, nsegs, vmcoreinfo, &len);
	if (!hdr || mkcore_put(f, hdr, len))
		goto fail;
	off = len;
	for (i = 0; i < nsegs; i++) {
		if (mkcore_pad(f, off))
			goto fail;
		if (segs[i].data ? mkcore_put_sparse(f, segs[i].data, segs[i].size) :
		    mkcore_fill_pattern(f, segs[i].paddr, segs[i].size))
			goto fail;
		off = mkcore_align(off + segs[i].size);
	}
	/* the holes at the end, if any, are in the file's size */
	if (fflush(f) || ftruncate(fileno(f), (off_t)off))
		goto fail;
	free(hdr);
	return fclose(f) ? -1 : 0;

fail:
	free(hdr);
	fclose(f);
	return -1;
}

#endif
