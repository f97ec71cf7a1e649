// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dump extent checks of an x86_64 ELF dump (mem_extent.h): the program
 * header table, every PT_NOTE's notes and every PT_LOAD's file range.
 */
#include "mem_extent.h"
#include "mem_extent_int.h"
#include "mmc_util.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELF_MAX_PHDRS		(1u << 22)

/* ---- ELF notes ---- */

/*
 * sizeof(struct elf_prstatus) on x86_64 (include/linux/elfcore.h: 112
 * bytes of signal and time fields, 27 general registers, pr_fpvalid and
 * padding).  libkdumpfile 0.5.1 and later reject a shorter NT_PRSTATUS
 * only after it has set up the dump's format data, and the context it then
 * frees is broken (doc/upstream/libkdumpfile/0005-*.patch): it must never
 * see one.
 */
#define X86_64_PRSTATUS_SIZE	336
#define NOTE_NT_PRSTATUS	1

static bool note_named(const uint8_t *name, uint32_t namesz, const char *want)
{
	size_t n = strlen(want);

	/* libkdumpfile's note_equal(): with or without the NUL */
	return (namesz == n || (namesz == n + 1 && !name[n])) && !memcmp(name, want, n);
}

/*
 * The notes libkdumpfile would reject part-way through kdump_open_fd(),
 * found by walking them as its do_notes() does (a note that does not fit
 * ends the walk): an NT_PRSTATUS shorter than an x86_64 elf_prstatus, and
 * any Xen dump-core note (".note.Xen": a Xen hypervisor's own dump, which
 * is not a Linux kernel's, and whose header note it reads without checking
 * its size).
 */
struct mmc_error *dx_check_notes(const struct extent *e, uint64_t off,
				     uint64_t size, const char *what)
{
	struct mmc_error *err = NULL;
	uint64_t pos = 0;
	uint8_t *buf;

	if (!size || size > (64u << 20))
		return NULL;	/* none, or left to the size checks and libkdumpfile */
	buf = malloc(size);
	if (!buf)
		return mmc_error_nomem();
	err = dx_read_at(e, buf, size, off, what);
	while (!err && size - pos >= 12) {
		uint32_t namesz = mmc_le32(buf + pos), descsz = mmc_le32(buf + pos + 4);
		uint32_t type = mmc_le32(buf + pos + 8);
		uint64_t descoff = 12 + (((uint64_t)namesz + 3) & ~3ULL);
		const uint8_t *name = buf + pos + 12;

		if (size - pos < descoff + descsz)
			break;
		if (note_named(name, namesz, "CORE") && type == NOTE_NT_PRSTATUS &&
		    descsz < X86_64_PRSTATUS_SIZE)
			err = mmc_error_create(MMC_ERR_INPUT, e->path,
					       "%s at file offset %llu: an NT_PRSTATUS note of %u bytes, shorter than the %u bytes of an x86_64 elf_prstatus",
					       what, (unsigned long long)(off + pos), descsz,
					       X86_64_PRSTATUS_SIZE);
		else if (note_named(name, namesz, ".note.Xen"))
			err = mmc_error_create(MMC_ERR_INPUT, e->path,
					       "%s at file offset %llu: a Xen dump-core note (type 0x%x): this is a Xen hypervisor dump, not a Linux kernel's",
					       what, (unsigned long long)(off + pos), type);
		pos += descoff + (((uint64_t)descsz + 3) & ~3ULL);
	}
	free(buf);
	return err;
}

/* ---- ELF ---- */

struct mmc_error *dx_add_span(struct mmc_dump_damage *d, uint64_t start,
				  uint64_t end, uint8_t reason)
{
	struct span *s = realloc(d->spans, (d->nspans + 1) * sizeof(*s));

	if (!s)
		return mmc_error_nomem();
	d->spans = s;
	s[d->nspans++] = (struct span){ start, end, reason };
	return NULL;
}

/* ---- the PT_LOAD table against the file and itself ---- */

#define ELF_PAGE	4096ULL	/* x86_64's page size: the unit pages are read in */

/* A PT_LOAD with a physical address and data in the file. */
struct load {
	uint64_t paddr, end;	/* physical [paddr, end): the bytes present */
	uint64_t off;		/* file offset of paddr */
	unsigned int idx;	/* program header number */
};

static int cmp_load(const void *a, const void *b)
{
	const struct load *x = a, *y = b;

	return x->paddr < y->paddr ? -1 : x->paddr > y->paddr;
}

struct seg_findings {
	uint64_t n, first;	/* pages (or bytes) found, the first address */
	unsigned int a, b;	/* the program headers of the first */
};

static void finding(struct seg_findings *f, uint64_t addr, unsigned int a, unsigned int b)
{
	if (!f->n++) {
		f->first = addr;
		f->a = a;
		f->b = b;
	}
}

/*
 * [paddr, end) of x lies in the file at [x->off + (paddr - x->paddr), ...):
 * the physical pages where x and y, which both map [a, b), hold different
 * bytes become unreadable.  Identical bytes (the kernel text segment of a
 * /proc/vmcore aliases its RAM segment) are one page, whichever is read.
 */
static struct mmc_error *compare_alias(const struct extent *e, const struct load *x,
				       const struct load *y, uint64_t a, uint64_t b,
				       struct mmc_dump_damage **d, struct seg_findings *f)
{
	static const size_t chunk = ELF_PAGE;
	uint8_t *bx = malloc(chunk), *by = malloc(chunk);
	struct mmc_error *err = NULL;
	uint64_t p, bad_from = 0;
	bool in_bad = false;

	if (!bx || !by) {
		free(bx);
		free(by);
		return mmc_error_nomem();
	}
	for (p = a; p < b && !err; ) {
		uint64_t page_end = (p & ~(ELF_PAGE - 1)) + ELF_PAGE;
		size_t n = (size_t)((page_end < b ? page_end : b) - p);
		bool differ;

		err = dx_read_at(e, bx, n, x->off + (p - x->paddr), "PT_LOAD data");
		if (!err)
			err = dx_read_at(e, by, n, y->off + (p - y->paddr), "PT_LOAD data");
		if (err)
			break;
		differ = memcmp(bx, by, n) != 0;
		if (differ && !in_bad) {
			bad_from = p & ~(ELF_PAGE - 1);
			in_bad = true;
			finding(f, bad_from, x->idx, y->idx);
		} else if (differ) {
			f->n++;
		}
		if (!differ && in_bad) {
			err = dx_add_span(*d, bad_from, p & ~(ELF_PAGE - 1), MMC_UR_CORRUPT);
			in_bad = false;
		}
		p += n;
	}
	if (!err && in_bad)
		err = dx_add_span(*d, bad_from, (b + ELF_PAGE - 1) & ~(ELF_PAGE - 1),
				  MMC_UR_CORRUPT);
	free(bx);
	free(by);
	return err;
}

/*
 * The segments' physical ranges checked against each other and the file:
 *   - data in the ELF headers (the ELF header, the program header table,
 *     a PT_NOTE's notes) is not memory: those bytes are unreadable;
 *   - pages two segments map with different contents are unreadable, not
 *     picked by segment order (libkdumpfile reads the first that maps
 *     them);
 *   - bytes of a page no segment covers (a segment that starts or ends
 *     inside a page) are unreadable, not zeros.
 * Each kind found gives one note naming the first place.
 */
static struct mmc_error *check_loads(const struct extent *e, struct mmc_mem *mem,
				     const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
				     uint64_t phnum, struct mmc_dump_damage **d)
{
	struct seg_findings hdr = { 0 }, alias = { 0 }, partial = { 0 };
	uint64_t hdr_end = eh->e_phoff + phnum * sizeof(*ph), i, j, n = 0;
	struct mmc_error *err = NULL;
	struct load *ld;
	bool had;

	if (hdr_end < sizeof(*eh))
		hdr_end = sizeof(*eh);
	ld = calloc(phnum, sizeof(*ld));
	if (!ld)
		return mmc_error_nomem();
	for (i = 0; i < phnum; i++) {
		uint64_t have;

		if (ph[i].p_type != PT_LOAD || ph[i].p_paddr == UINT64_MAX)
			continue;
		have = dx_present(e, ph[i].p_offset, ph[i].p_filesz);
		if (!have || ph[i].p_paddr + have < ph[i].p_paddr)
			continue;
		ld[n++] = (struct load){ ph[i].p_paddr, ph[i].p_paddr + have,
					 ph[i].p_offset, (unsigned int)i };
	}
	had = *d != NULL;
	err = dx_damage_new(d, ELF_PAGE);
	/* data lying in the headers or in the notes */
	for (i = 0; !err && i < n; i++) {
		for (j = 0; j <= phnum && !err; j++) {
			uint64_t s = 0, t = hdr_end, a, b;

			if (j < phnum) {
				if (ph[j].p_type != PT_NOTE)
					continue;
				s = ph[j].p_offset;
				t = s + ph[j].p_filesz;
			}
			a = ld[i].off > s ? ld[i].off : s;
			b = ld[i].off + (ld[i].end - ld[i].paddr);
			b = b < t ? b : t;
			if (a >= b)
				continue;
			finding(&hdr, ld[i].paddr + (a - ld[i].off), ld[i].idx,
				j < phnum ? (unsigned int)j : UINT32_MAX);
			hdr.n += b - a - 1;	/* bytes */
			err = dx_add_span(*d, ld[i].paddr + (a - ld[i].off),
					  ld[i].paddr + (b - ld[i].off), MMC_UR_CORRUPT);
		}
	}
	qsort(ld, n, sizeof(*ld), cmp_load);
	/* two segments, one physical range */
	for (i = 0; !err && i < n; i++)
		for (j = i + 1; j < n && ld[j].paddr < ld[i].end && !err; j++)
			err = compare_alias(e, &ld[i], &ld[j], ld[j].paddr,
					    ld[i].end < ld[j].end ? ld[i].end : ld[j].end,
					    d, &alias);
	/* pages only partly covered: the rest of them is in no segment */
	for (i = 0; !err && i < n; ) {
		uint64_t s = ld[i].paddr, t = ld[i].end, next;

		for (i++; i < n && ld[i].paddr <= t; i++)
			t = ld[i].end > t ? ld[i].end : t;
		next = i < n ? ld[i].paddr : UINT64_MAX;
		if (s % ELF_PAGE) {
			finding(&partial, s & ~(ELF_PAGE - 1), 0, 0);
			err = dx_add_span(*d, s & ~(ELF_PAGE - 1), s, MMC_UR_ABSENT);
		}
		if (!err && t % ELF_PAGE && t < next) {
			uint64_t pe = (t | (ELF_PAGE - 1)) + 1;

			finding(&partial, t & ~(ELF_PAGE - 1), 0, 0);
			err = dx_add_span(*d, t, pe < next ? pe : next, MMC_UR_ABSENT);
		}
	}
	free(ld);
	if (!had && *d && !(*d)->nspans) {
		/* nothing found: reads take the fast path */
		mmc_dump_damage_destroy(*d);
		*d = NULL;
	}
	if (err)
		return err;
	if (hdr.n)
		mmc_mem_add_note(mem, "%s: the data of PT_LOAD program header %u lies in the ELF %s (from physical address 0x%llx, %llu bytes in all): unreadable",
				 e->path, hdr.a, hdr.b == UINT32_MAX ? "header or program header table" : "notes",
				 (unsigned long long)hdr.first, (unsigned long long)hdr.n);
	if (alias.n)
		mmc_mem_add_note(mem, "%s: PT_LOAD program headers %u and %u map the same physical memory with different contents: %llu pages (the first: physical address 0x%llx) are unreadable, not picked by segment order",
				 e->path, alias.a, alias.b, (unsigned long long)alias.n,
				 (unsigned long long)alias.first);
	if (partial.n)
		mmc_mem_add_note(mem, "%s: %llu page%s only partly inside the PT_LOAD segments (the first: physical address 0x%llx, a segment not page-aligned): the bytes outside them are unreadable",
				 e->path, (unsigned long long)partial.n, partial.n == 1 ? " lies" : "s lie",
				 (unsigned long long)partial.first);
	return NULL;
}

struct mmc_error *dx_check_elf(const struct extent *e, struct mmc_mem *mem,
				   struct mmc_dump_damage **d)
{
	struct mmc_error *err = NULL;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	uint64_t phnum, i, missing = 0, need = 0, first = 0;
	char sz[96];

	if (dx_present(e, 0, sizeof(eh)) < sizeof(eh))
		return dx_truncated(e, sizeof(eh), "its ELF header");
	err = dx_read_at(e, &eh, sizeof(eh), 0, "ELF header");
	if (err)
		return err;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;	/* not an x86_64 ELF: libkdumpfile's business */
	phnum = eh.e_phnum;
	if (phnum == PN_XNUM) {
		Elf64_Shdr sh0;

		if (dx_present(e, eh.e_shoff, sizeof(sh0)) < sizeof(sh0))
			return mmc_error_create(MMC_ERR_INPUT, e->path,
						"ELF section header 0 at offset 0x%llx is past the end of the file",
						(unsigned long long)eh.e_shoff);
		err = dx_read_at(e, &sh0, sizeof(sh0), eh.e_shoff, "ELF section header 0");
		if (err)
			return err;
		phnum = sh0.sh_info;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || phnum > ELF_MAX_PHDRS ||
	    dx_present(e, eh.e_phoff, phnum * sizeof(Elf64_Phdr)) < phnum * sizeof(Elf64_Phdr))
		return mmc_error_create(MMC_ERR_INPUT, e->path,
					"bad ELF program header table at offset 0x%llx (%llu entries of %u bytes, file size 0x%llx)",
					(unsigned long long)eh.e_phoff,
					(unsigned long long)phnum, eh.e_phentsize,
					(unsigned long long)e->size);
	if (!phnum)
		return NULL;
	ph = calloc(phnum, sizeof(*ph));
	if (!ph)
		return mmc_error_nomem();
	err = dx_read_at(e, ph, phnum * sizeof(*ph), eh.e_phoff, "ELF program headers");
	for (i = 0; !err && i < phnum; i++) {
		uint64_t at = eh.e_phoff + i * sizeof(*ph), have;

		if (ph[i].p_type != PT_LOAD && ph[i].p_type != PT_NOTE)
			continue;
		if (ph[i].p_offset + ph[i].p_filesz < ph[i].p_offset ||
		    ph[i].p_offset + ph[i].p_filesz > DX_MAX_FILE) {
			err = mmc_error_create(MMC_ERR_INPUT, e->path,
					       "program header %llu at offset 0x%llx: file offset 0x%llx + size 0x%llx lies beyond any file",
					       (unsigned long long)i, (unsigned long long)at,
					       (unsigned long long)ph[i].p_offset,
					       (unsigned long long)ph[i].p_filesz);
			break;
		}
		have = dx_present(e, ph[i].p_offset, ph[i].p_filesz);
		if (ph[i].p_offset + ph[i].p_filesz > need)
			need = ph[i].p_offset + ph[i].p_filesz;
		if (have == ph[i].p_filesz) {
			if (ph[i].p_type == PT_NOTE)
				err = dx_check_notes(e, ph[i].p_offset, ph[i].p_filesz,
						  "a PT_NOTE segment's notes");
			continue;
		}
		if (ph[i].p_type == PT_NOTE) {
			err = mmc_error_create(MMC_ERR_INPUT, e->path,
					       "dump truncated: %s, the notes of program header %llu (at offset 0x%llx) need %llu",
					       dx_size_phrase(e, sz, sizeof(sz)),
					       (unsigned long long)i, (unsigned long long)at,
					       (unsigned long long)(ph[i].p_offset + ph[i].p_filesz));
			break;
		}
		/*
		 * A PT_LOAD cut short: its data past the end is unreadable.
		 * Segments without a physical address (p_paddr -1 in kcore
		 * files) are read by virtual address only: nothing to mark.
		 */
		err = dx_damage_new(d, 4096);	/* spans: the page size is not used */
		if (!err && ph[i].p_paddr + ph[i].p_filesz >= ph[i].p_paddr)
			err = dx_add_span(*d, ph[i].p_paddr + have, ph[i].p_paddr + ph[i].p_filesz,
				       MMC_UR_TRUNCATED);
		if (!missing++)
			first = ph[i].p_paddr + have;
	}
	if (!err)
		err = check_loads(e, mem, &eh, ph, phnum, d);
	free(ph);
	if (!err && missing)
		mmc_mem_add_note(mem, "%s: dump truncated: %s, its program headers need %llu; the data of %llu PT_LOAD segments is cut short (from physical address 0x%llx): unreadable",
				 e->path, dx_size_phrase(e, sz, sizeof(sz)),
				 (unsigned long long)need, (unsigned long long)missing,
				 (unsigned long long)first);
	return err;
}

