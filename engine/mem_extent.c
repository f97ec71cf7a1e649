// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dump extent checks (mem_extent.h).  Only the x86_64 (little-endian,
 * 64-bit) forms of each format are checked; others are left to
 * libkdumpfile.
 *
 * kdump-compressed layout (makedumpfile diskdump_mod.h), all offsets in the
 * file: the disk_dump_header at 0 (block_size at 428), the kdump_sub_header
 * at block_size, the page bitmaps at (1 + sub_hdr_size) * block_size
 * (bitmap_blocks blocks: the first half says which pfns exist, the second
 * which were dumped, when both fit), then one 24-byte page_desc {u64
 * offset, u32 size, u32 flags, u64 page_flags} per dumped pfn in pfn order,
 * then the page data.
 */
#include "mem_extent.h"
#include "mem_extent_int.h"
#include "mmc_util.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DD_HEADER_SIZE		464	/* sizeof(struct disk_dump_header_64) */
#define DD_SUB_HEADER_SIZE	104	/* sizeof(struct kdump_sub_header_64), version 6 */
#define DD_DESC_SIZE		24	/* sizeof(struct page_desc) */
#define DD_MIN_BLOCK		512
#define DD_MAX_BLOCK		(1u << 16)
/* page_desc.flags: DUMP_DH_COMPRESSED_ZLIB, _LZO, _SNAPPY, _ZSTD */
#define DD_COMPRESSED		(0x1u | 0x2u | 0x4u | 0x20u)
/* disk_dump_header.status: makedumpfile stopped before writing everything */
#define DD_STATUS_INCOMPLETE	0x8u
/* disk_dump_header.status: makedumpfile -e left out the struct pages
 * (vmemmap pages) of the pages it excluded */
#define DD_STATUS_EXCLUDED_VMEMMAP	0x10u
#define DESC_CHUNK		4096	/* descriptors read at once */

#define FLAT_HEADER_SIZE	4096	/* MAX_SIZE_MDF_HEADER */
#define FLAT_SIG		"makedumpfile"


static uint64_t be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* Bytes present from off, at most len. */
uint64_t dx_present(const struct extent *e, uint64_t off, uint64_t len)
{
	size_t lo = 0, hi = e->ncov;

	if (!e->cov) {
		if (off >= e->size)
			return 0;
		return e->size - off < len ? e->size - off : len;
	}
	while (lo < hi) {	/* first span ending after off */
		size_t mid = lo + (hi - lo) / 2;

		if (e->cov[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == e->ncov || e->cov[lo].start > off)
		return 0;
	return e->cov[lo].end - off < len ? e->cov[lo].end - off : len;
}

struct mmc_error *dx_read_at(const struct extent *e, void *buf, size_t len,
				 uint64_t off, const char *what)
{
	return mmc_pread_exact(e->fd, e->path, buf, len, off, what);
}

/* "the file is M bytes" or "its segments hold C of the M bytes". */
const char *dx_size_phrase(const struct extent *e, char *buf, size_t n)
{
	uint64_t held = 0;
	size_t i;

	if (!e->flattened) {
		snprintf(buf, n, "the file is %llu bytes", (unsigned long long)e->size);
		return buf;
	}
	for (i = 0; i < e->ncov; i++)
		held += e->cov[i].end - e->cov[i].start;
	snprintf(buf, n, "its flattened segments hold %llu of the %llu bytes of the dump",
		 (unsigned long long)held, (unsigned long long)e->size);
	return buf;
}

struct mmc_error *dx_truncated(const struct extent *e, uint64_t need,
				   const char *what)
{
	char sz[96];

	return mmc_error_create(MMC_ERR_INPUT, e->path,
				"dump truncated: %s, %s needs %llu",
				dx_size_phrase(e, sz, sizeof(sz)), what,
				(unsigned long long)need);
}

/* ---- damage ---- */

struct mmc_error *dx_damage_new(struct mmc_dump_damage **d, uint32_t page_size)
{
	if (*d)
		return NULL;
	*d = calloc(1, sizeof(**d));
	if (!*d)
		return mmc_error_nomem();
	(*d)->page_size = page_size;
	return NULL;
}

static struct mmc_error *mark_pfn(struct mmc_dump_damage *d, uint64_t npfns,
				  uint64_t pfn, uint8_t reason)
{
	uint64_t **map = reason == MMC_UR_CORRUPT ? &d->corrupt : &d->trunc;

	if (!*map) {
		*map = calloc(npfns / 64 + 1, sizeof(uint64_t));
		if (!*map)
			return mmc_error_nomem();
		d->npfns = npfns;
	}
	(*map)[pfn / 64] |= 1ULL << (pfn % 64);
	return NULL;
}

static bool bit(const uint64_t *map, uint64_t pfn)
{
	return map && (map[pfn / 64] >> (pfn % 64)) & 1;
}

bool mmc_dump_damage_find(const struct mmc_dump_damage *d, uint64_t paddr,
			  uint64_t len, uint64_t *good, uint8_t *reason)
{
	uint64_t ps, pfn, last, end;
	bool found = false;
	size_t i;

	if (!d || !len)
		return false;
	end = paddr + len < paddr ? UINT64_MAX : paddr + len;
	if (d->trunc || d->corrupt) {
		ps = d->page_size;
		last = (end - 1) / ps;
		for (pfn = paddr / ps; pfn <= last && pfn < d->npfns; pfn++) {
			if (!bit(d->trunc, pfn) && !bit(d->corrupt, pfn))
				continue;
			*good = pfn * ps > paddr ? pfn * ps - paddr : 0;
			*reason = bit(d->trunc, pfn) ? MMC_UR_TRUNCATED : MMC_UR_CORRUPT;
			return true;
		}
	}
	/* the first damaged byte: the lowest start of every span it meets */
	for (i = 0; i < d->nspans; i++) {
		uint64_t g;

		if (d->spans[i].end <= paddr || d->spans[i].start >= end)
			continue;
		g = d->spans[i].start > paddr ? d->spans[i].start - paddr : 0;
		if (!found || g < *good) {
			*good = g;
			*reason = d->spans[i].reason;
		}
		found = true;
	}
	return found;
}

void mmc_dump_damage_destroy(struct mmc_dump_damage *d)
{
	if (!d)
		return;
	free(d->trunc);
	free(d->corrupt);
	free(d->spans);
	free(d);
}

/* ---- kdump-compressed ---- */

struct dd {
	const struct extent *e;
	uint32_t bs;
	uint64_t max_pfn, start_pfn, end_pfn;
	uint64_t descoff, ndesc, data_start;
	bool incomplete, excluded_vmemmap;
	/* findings */
	uint64_t ntrunc, ncorrupt, need;
	uint64_t first_trunc, first_corrupt, first_corrupt_pos;
	uint64_t bad_off, bad_size, bad_flags;
	/*
	 * Data blocks shared or overlapping.  makedumpfile (and QEMU) write
	 * page data in pfn order, each block after the last, except one zero
	 * page written first, at data_start, that every zero page's
	 * descriptor names (898026 of the 916323 descriptors of
	 * 6.12-base-b1).  A descriptor naming data before the end of what
	 * came before (need), other than that block, is kept in ooo, one
	 * entry per block, and checked against every other descriptor
	 * afterwards (dd_overlaps()).
	 */
	uint64_t shared_size;	/* of the block at data_start; 0: none yet */
	struct ooo { uint64_t off, size, pfn; } *ooo;
	size_t nooo, cap_ooo;
	uint64_t noverlap, first_overlap, overlap_with;
};

#define DD_MAX_OOO	(1u << 20)	/* out-of-order blocks kept; beyond: corrupt */

static struct mmc_error *dd_region(const struct dd *dd, uint64_t off, uint64_t size,
				   const char *what)
{
	if (off + size < off || off + size > DX_MAX_FILE)
		/* not a truncated file: no file is that large */
		return mmc_error_create(MMC_ERR_INPUT, dd->e->path,
					"%s: offset 0x%llx + size 0x%llx lies beyond any file: the header is damaged",
					what, (unsigned long long)off, (unsigned long long)size);
	if (dx_present(dd->e, off, size) < size) {
		char w[96];

		snprintf(w, sizeof(w), "%s at offset %llu (%llu bytes)", what,
			 (unsigned long long)off, (unsigned long long)size);
		return dx_truncated(dd->e, off + size < off ? UINT64_MAX : off + size, w);
	}
	return NULL;
}

/*
 * Non-zero when a page descriptor is malformed: flags other than one
 * compression bit, a size that is not the block size uncompressed or is 0
 * or more than a block compressed (size - 1 >= bs), data before the data
 * area or wrapping around.  Without branches, as dd_word_clean() runs it
 * on every descriptor of a large dump.
 */
static inline uint64_t dd_desc_bad(const struct dd *dd, uint64_t off, uint64_t size,
				   uint64_t flags)
{
	uint64_t comp = flags & DD_COMPRESSED;

	return (flags & ~comp) | (comp & (comp - 1)) |
	       (comp ? size - 1 >= dd->bs : size != dd->bs) |
	       (off < dd->data_start) | (off > DX_MAX_FILE);
}

/* One descriptor: nothing, or the pfn is marked. */
static struct mmc_error *dd_desc(struct dd *dd, struct mmc_dump_damage **d,
				 uint64_t pfn, uint64_t pos, const uint8_t *b, bool have)
{
	uint64_t off, size, flags;
	uint8_t reason = 0;
	struct mmc_error *err;

	if (!have) {
		reason = MMC_UR_TRUNCATED;
		if (pos + DD_DESC_SIZE > dd->need)
			dd->need = pos + DD_DESC_SIZE;
	} else {
		off = mmc_le64(b);
		size = mmc_le32(b + 8);
		flags = mmc_le32(b + 12);
		if (dd->incomplete && !off && !size && !flags) {
			reason = MMC_UR_TRUNCATED;	/* never written */
		} else if (dd_desc_bad(dd, off, size, flags)) {
			reason = MMC_UR_CORRUPT;
			if (!dd->ncorrupt) {
				dd->first_corrupt_pos = pos;
				dd->bad_off = off;
				dd->bad_size = size;
				dd->bad_flags = flags;
			}
		} else {
			if (off == dd->data_start && !dd->shared_size)
				dd->shared_size = size;
			if (off < dd->need &&
			    (off != dd->data_start || size != dd->shared_size) &&
			    (!dd->nooo || dd->ooo[dd->nooo - 1].off != off ||
			     dd->ooo[dd->nooo - 1].size != size)) {
				if (dd->nooo == DD_MAX_OOO) {
					reason = MMC_UR_CORRUPT;
				} else {
					if (dd->nooo == dd->cap_ooo) {
						size_t cap = dd->cap_ooo ? dd->cap_ooo * 2 : 64;
						struct ooo *n = realloc(dd->ooo, cap * sizeof(*n));

						if (!n)
							return mmc_error_nomem();
						dd->ooo = n;
						dd->cap_ooo = cap;
					}
					dd->ooo[dd->nooo++] = (struct ooo){ off, size, pfn };
				}
			}
			if (off + size > dd->need)
				dd->need = off + size;
			if (!reason && dx_present(dd->e, off, size) < size)
				reason = MMC_UR_TRUNCATED;
		}
	}
	if (!reason)
		return NULL;
	err = dx_damage_new(d, dd->bs);
	if (!err)
		err = mark_pfn(*d, dd->max_pfn, pfn, reason);
	if (reason == MMC_UR_CORRUPT) {
		if (!dd->ncorrupt++)
			dd->first_corrupt = pfn;
	} else if (!dd->ntrunc++) {
		dd->first_trunc = pfn;
	}
	return err;
}

/* The pfns this file's descriptors cover: [start_pfn, dd_end()). */
static uint64_t dd_end(const struct dd *dd, uint64_t bitmap_pfns)
{
	uint64_t end = dd->end_pfn < bitmap_pfns ? dd->end_pfn : bitmap_pfns;

	return end < dd->max_pfn ? end : dd->max_pfn;
}

/*
 * 64 descriptors whose pfns are all dumped, in a dump with no holes: true
 * when each is well formed and its data lies in the file, which is what
 * dd_desc() would find for each; *need then covers their data.  Most of a
 * large dump is such words, and one branch per word instead of a call per
 * descriptor keeps the open of a 100 GiB dump (27 M descriptors) cheap.
 */
static bool dd_word_clean(const struct dd *dd, const uint8_t *b, uint64_t *need)
{
	uint64_t bad = 0, hi = *need;
	unsigned int k;

	for (k = 0; k < 64; k++, b += DD_DESC_SIZE) {
		uint64_t off = mmc_le64(b), size = mmc_le32(b + 8), flags = mmc_le32(b + 12);

		bad |= dd_desc_bad(dd, off, size, flags);
		/* data after all before it, or the shared block at data_start */
		bad |= (off < hi) & !((off == dd->data_start) & (size == dd->shared_size));
		hi = off + size > hi ? off + size : hi;
	}
	if (bad || hi > dd->e->size)
		return false;
	*need = hi;
	return true;
}

/* Descriptors [i, i + DESC_CHUNK) into buf, as many as the file has. */
static struct mmc_error *dd_load(const struct dd *dd, uint8_t *buf, uint64_t i,
				 uint64_t *chunk0, uint64_t *navail)
{
	uint64_t pos = dd->descoff + i * DD_DESC_SIZE;

	*chunk0 = i;
	*navail = dx_present(dd->e, pos, (uint64_t)DESC_CHUNK * DD_DESC_SIZE) / DD_DESC_SIZE;
	if (!*navail)
		return NULL;
	return dx_read_at(dd->e, buf, *navail * DD_DESC_SIZE, pos, "page descriptors");
}

static struct mmc_error *dd_descriptors(struct dd *dd, const uint8_t *bitmap,
					uint64_t bitmap_pfns,
					struct mmc_dump_damage **d)
{
	uint8_t *buf = malloc((size_t)DESC_CHUNK * DD_DESC_SIZE);
	struct mmc_error *err = NULL;
	uint64_t pfn, i = 0, chunk0 = 0, navail = 0;
	uint64_t end = dd_end(dd, bitmap_pfns);

	if (!buf)
		return mmc_error_nomem();
	for (pfn = dd->start_pfn; pfn < end && !err; pfn++) {
		uint64_t word;

		if (pfn % 64 == 0 && end - pfn >= 64) {
			/* 64 pfns at once: most of a dump's bitmap is runs of
			 * all-dumped or none-dumped pfns */
			memcpy(&word, bitmap + pfn / 8, sizeof(word));
			if (!word) {
				pfn += 63;
				continue;
			}
			if (word == UINT64_MAX && !dd->e->cov) {
				if (i - chunk0 + 64 > navail &&
				    (err = dd_load(dd, buf, i, &chunk0, &navail)))
					break;
				if (i - chunk0 + 64 <= navail &&
				    dd_word_clean(dd, buf + (i - chunk0) * DD_DESC_SIZE, &dd->need)) {
					i += 64;
					pfn += 63;
					continue;
				}
			}
		}
		if (!((bitmap[pfn / 8] >> (pfn % 8)) & 1))
			continue;
		if (i - chunk0 >= navail)
			err = dd_load(dd, buf, i, &chunk0, &navail);
		if (!err)
			err = dd_desc(dd, d, pfn, dd->descoff + i * DD_DESC_SIZE,
				      buf + (i - chunk0) * DD_DESC_SIZE, i - chunk0 < navail);
		i++;
	}
	free(buf);
	return err;
}

static int cmp_ooo(const void *a, const void *b)
{
	const struct ooo *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Sorted by block, one entry per block (the first pfn seen naming it). */
static void ooo_unique(struct dd *dd)
{
	size_t i, n = 0;

	qsort(dd->ooo, dd->nooo, sizeof(*dd->ooo), cmp_ooo);
	for (i = 0; i < dd->nooo; i++)
		if (!n || dd->ooo[n - 1].off != dd->ooo[i].off ||
		    dd->ooo[n - 1].size != dd->ooo[i].size)
			dd->ooo[n++] = dd->ooo[i];
	dd->nooo = n;
}

static struct mmc_error *dd_overlap(struct dd *dd, struct mmc_dump_damage **d,
				    uint64_t pfn, uint64_t with)
{
	struct mmc_error *err = dx_damage_new(d, dd->bs);

	if (!err)
		err = mark_pfn(*d, dd->max_pfn, pfn, MMC_UR_CORRUPT);
	if (!dd->noverlap) {
		dd->first_overlap = pfn;
		dd->overlap_with = with;
	}
	return err;
}

/*
 * Every well-formed descriptor against the out-of-order blocks: the same
 * block (off and size) is one page's data read twice, fine; data that
 * overlaps another page's without being the same block belongs to
 * neither: both pages are unreadable, never read as one of them.
 */
static struct mmc_error *dd_overlaps(struct dd *dd, const uint8_t *bitmap,
				     uint64_t bitmap_pfns, struct mmc_dump_damage **d)
{
	uint8_t *buf = malloc((size_t)DESC_CHUNK * DD_DESC_SIZE);
	struct mmc_error *err = NULL;
	uint64_t pfn, i = 0, chunk0 = 0, navail = 0, end = dd_end(dd, bitmap_pfns);

	if (!buf)
		return mmc_error_nomem();
	ooo_unique(dd);
	for (pfn = dd->start_pfn; pfn < end && !err; pfn++) {
		uint64_t off, size, flags;
		size_t lo = 0, hi = dd->nooo;
		const uint8_t *b;

		if (!((bitmap[pfn / 8] >> (pfn % 8)) & 1))
			continue;
		if (i - chunk0 >= navail && (err = dd_load(dd, buf, i, &chunk0, &navail)))
			break;
		if (i - chunk0 >= navail)
			break;
		b = buf + (i++ - chunk0) * DD_DESC_SIZE;
		off = mmc_le64(b);
		size = mmc_le32(b + 8);
		flags = mmc_le32(b + 12);
		if (dd_desc_bad(dd, off, size, flags))
			continue;
		/* the first block starting after off - bs: sizes are at most bs */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (dd->ooo[mid].off + dd->bs <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < dd->nooo && dd->ooo[lo].off < off + size && !err; lo++) {
			const struct ooo *o = &dd->ooo[lo];

			if (o->pfn == pfn || o->off + o->size <= off ||
			    (o->off == off && o->size == size))
				continue;
			err = dd_overlap(dd, d, pfn, o->pfn);
			if (!err)
				err = dd_overlap(dd, d, o->pfn, pfn);
			dd->noverlap++;
		}
	}
	free(buf);
	return err;
}

static void dd_notes(const struct dd *dd, struct mmc_mem *mem)
{
	char sz[96];

	if (dd->incomplete)
		mmc_mem_add_note(mem, "%s: makedumpfile marked this dump incomplete (header status DUMP_DH_COMPRESSED_INCOMPLETE: it could not write all of it, e.g. its disk filled up): %llu of its %llu dumped pages are not in it (%s%llx): unreadable; make the dump again where it has room",
				 dd->e->path, (unsigned long long)dd->ntrunc,
				 (unsigned long long)dd->ndesc,
				 dd->ntrunc ? "the first: pfn 0x" : "none: ",
				 (unsigned long long)(dd->ntrunc ? dd->first_trunc : 0));
	else if (dd->ntrunc)
		mmc_mem_add_note(mem, "%s: dump truncated: %s, its page descriptors and data need %llu; %llu dumped pages are not in it (the first: pfn 0x%llx): unreadable",
				 dd->e->path, dx_size_phrase(dd->e, sz, sizeof(sz)),
				 (unsigned long long)dd->need,
				 (unsigned long long)dd->ntrunc,
				 (unsigned long long)dd->first_trunc);
	if (dd->noverlap)
		mmc_mem_add_note(mem, "%s: page descriptors whose data overlaps another page's without being the same block (%llu pairs; the first: pfn 0x%llx with pfn 0x%llx): those pages are unreadable, not read as either",
				 dd->e->path, (unsigned long long)dd->noverlap,
				 (unsigned long long)dd->first_overlap,
				 (unsigned long long)dd->overlap_with);
	if (dd->excluded_vmemmap)
		mmc_mem_add_note(mem, "%s: made with makedumpfile -e (header status DUMP_DH_EXCLUDED_VMEMMAP): the struct pages of the pages it excluded are not in the dump and are unreadable; make the dump without -e to check every struct page",
				 dd->e->path);
	if (dd->ncorrupt)
		mmc_mem_add_note(mem, "%s: %llu page descriptors make no sense (the first: pfn 0x%llx, descriptor at file offset %llu: data offset 0x%llx, size %llu, flags 0x%llx): those pages are unreadable",
				 dd->e->path, (unsigned long long)dd->ncorrupt,
				 (unsigned long long)dd->first_corrupt,
				 (unsigned long long)dd->first_corrupt_pos,
				 (unsigned long long)dd->bad_off,
				 (unsigned long long)dd->bad_size,
				 (unsigned long long)dd->bad_flags);
}

static struct mmc_error *check_kdump_compressed(const struct extent *e,
						struct mmc_mem *mem,
						struct mmc_dump_damage **d)
{
	uint8_t h[DD_HEADER_SIZE], sub[DD_SUB_HEADER_SIZE];
	struct dd dd = { .e = e };
	struct mmc_error *err;
	uint64_t bitmap_blocks, bitmap_bits, off, bmsize, bm2;
	int64_t version, sub_blocks;
	uint8_t *bitmap = NULL;

	if (dx_present(e, 0, DD_HEADER_SIZE) < DD_HEADER_SIZE)
		return dx_truncated(e, DD_HEADER_SIZE, "its disk_dump_header");
	err = dx_read_at(e, h, sizeof(h), 0, "disk_dump_header");
	if (err)
		return err;
	version = (int32_t)mmc_le32(h + 8);
	dd.bs = (uint32_t)mmc_le32(h + 428);
	sub_blocks = (int32_t)mmc_le32(h + 432);
	bitmap_blocks = mmc_le32(h + 436);
	dd.max_pfn = mmc_le32(h + 440);
	dd.incomplete = mmc_le32(h + 424) & DD_STATUS_INCOMPLETE;
	dd.excluded_vmemmap = mmc_le32(h + 424) & DD_STATUS_EXCLUDED_VMEMMAP;
	if (dd.bs < DD_MIN_BLOCK || dd.bs > DD_MAX_BLOCK || (dd.bs & (dd.bs - 1)))
		return mmc_error_create(MMC_ERR_INPUT, e->path,
					"disk_dump_header at offset 428: block_size %u is not a power of two from %u to %u",
					dd.bs, DD_MIN_BLOCK, DD_MAX_BLOCK);
	if (version < 0 || sub_blocks < 0 || sub_blocks > (1 << 20) ||
	    bitmap_blocks == 0 || bitmap_blocks > e->size / dd.bs)
		return mmc_error_create(MMC_ERR_INPUT, e->path,
					"disk_dump_header at offset 8: header_version %lld, sub_hdr_size %lld blocks (offset 432), bitmap_blocks %llu (offset 436) make no sense for a %llu-byte dump",
					(long long)version, (long long)sub_blocks,
					(unsigned long long)bitmap_blocks,
					(unsigned long long)e->size);
	bitmap_bits = bitmap_blocks * dd.bs * 8;
	if (dd.max_pfn > bitmap_bits)
		return mmc_error_create(MMC_ERR_INPUT, e->path,
					"disk_dump_header at offset 440: max_mapnr %llu needs more than the %llu bits of %llu bitmap blocks",
					(unsigned long long)dd.max_pfn,
					(unsigned long long)bitmap_bits,
					(unsigned long long)bitmap_blocks);
	/* the sub-header (header_version 1 and later) */
	memset(sub, 0, sizeof(sub));
	if (version >= 1) {
		err = dd_region(&dd, dd.bs, DD_SUB_HEADER_SIZE, "its kdump_sub_header");
		if (!err)
			err = dx_read_at(e, sub, sizeof(sub), dd.bs, "kdump_sub_header");
		if (err)
			return err;
	}
	dd.start_pfn = 0;
	dd.end_pfn = UINT64_MAX;
	if (version >= 2 && mmc_le32(sub + 12)) {	/* split */
		dd.start_pfn = mmc_le64(sub + (version >= 6 ? 80 : 16));
		dd.end_pfn = mmc_le64(sub + (version >= 6 ? 88 : 24));
	}
	if (version >= 6)
		dd.max_pfn = mmc_le64(sub + 96);
	if (version >= 2 && mmc_le32(sub + 12))
		/*
		 * One part of makedumpfile --split: read alone, every page of
		 * the other parts would be absent, the kernel's own page
		 * tables too, and nothing would say why.
		 */
		return mmc_error_create(MMC_ERR_INPUT, e->path,
					"one part of a dump split by makedumpfile --split (kdump_sub_header split %u: this part holds pfns 0x%llx-0x%llx of 0x%llx): memmapcheck reads a whole dump; join every part first: makedumpfile --reassemble PART1 PART2 ... DUMPFILE",
					mmc_le32(sub + 12), (unsigned long long)dd.start_pfn,
					(unsigned long long)dd.end_pfn, (unsigned long long)dd.max_pfn);
	if (version == 3)
		err = dd_region(&dd, mmc_le64(sub + 32), mmc_le64(sub + 40), "its VMCOREINFO");
	if (!err && version >= 4 && mmc_le64(sub + 56))
		err = dd_region(&dd, mmc_le64(sub + 48), mmc_le64(sub + 56), "its ELF notes");
	if (!err && version >= 4)
		err = dx_check_notes(e, mmc_le64(sub + 48), mmc_le64(sub + 56),
				  "the kdump_sub_header's ELF notes");
	if (err)
		return err;
	/* the bitmaps (libkdumpfile's read_bitmap(): the second half when both fit) */
	off = (1 + (uint64_t)sub_blocks) * dd.bs;
	dd.descoff = off + bitmap_blocks * dd.bs;
	/*
	 * A flattened dump need not hold every byte of its bitmaps:
	 * makedumpfile -F leaves out blocks it never wrote, which
	 * makedumpfile -R leaves as holes (zeros: no page), and so does the
	 * reassembled copy here.  Only their end must be there.
	 */
	if (!e->flattened || e->size < off + bitmap_blocks * dd.bs)
		err = dd_region(&dd, off, bitmap_blocks * dd.bs, "its page bitmaps");
	if (err)
		return err;
	bmsize = bitmap_blocks * dd.bs;
	bm2 = off;
	if (dd.max_pfn <= bitmap_bits / 2) {
		bmsize = (bitmap_blocks / 2) * dd.bs;
		bm2 = off + bmsize;
	}
	if (dd.max_pfn > bmsize * 8)
		dd.max_pfn = bmsize * 8;
	bitmap = malloc(bmsize ? bmsize : 1);
	if (!bitmap)
		return mmc_error_nomem();
	err = dx_read_at(e, bitmap, bmsize, bm2, "page bitmap");
	if (!err) {
		uint64_t pfn, n = 0, end = dd_end(&dd, bmsize * 8);

		for (pfn = dd.start_pfn; pfn < end; pfn++) {
			if (pfn % 64 == 0 && end - pfn >= 64) {
				uint64_t word;

				memcpy(&word, bitmap + pfn / 8, sizeof(word));
				n += (uint64_t)__builtin_popcountll(word);
				pfn += 63;
				continue;
			}
			n += (bitmap[pfn / 8] >> (pfn % 8)) & 1;
		}
		dd.ndesc = n;
		dd.data_start = dd.descoff + n * DD_DESC_SIZE;
		dd.need = dd.data_start;
		err = dd_descriptors(&dd, bitmap, bmsize * 8, d);
		if (!err && dd.nooo)
			err = dd_overlaps(&dd, bitmap, bmsize * 8, d);
	}
	free(dd.ooo);
	free(bitmap);
	if (!err)
		dd_notes(&dd, mem);
	return err;
}

/* ---- flattened ---- */

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void merge_spans(struct extent *e)
{
	size_t i, n = 0;

	if (!e->ncov)
		return;	/* no segment: cov may be NULL, which qsort must not get */
	qsort(e->cov, e->ncov, sizeof(*e->cov), cmp_span);
	for (i = 0; i < e->ncov; i++) {
		if (n && e->cov[i].start <= e->cov[n - 1].end) {
			if (e->cov[i].end > e->cov[n - 1].end)
				e->cov[n - 1].end = e->cov[i].end;
			continue;
		}
		e->cov[n++] = e->cov[i];
	}
	e->ncov = n;
}

/* Copy len bytes from fd at from to out at to. */
static struct mmc_error *copy_range(int fd, const char *path, int out,
				    uint64_t from, uint64_t to, uint64_t len,
				    uint8_t *buf, size_t bufsize)
{
	struct mmc_error *err;

	while (len) {
		size_t n = len < bufsize ? (size_t)len : bufsize;
		ssize_t w;

		err = mmc_pread_exact(fd, path, buf, n, from, "flattened segment");
		if (err)
			return err;
		w = pwrite(out, buf, n, (off_t)to);
		if (w != (ssize_t)n)
			return mmc_error_os(w < 0 ? errno : ENOSPC, path,
					    "reassembling the flattened dump in memory");
		from += n;
		to += n;
		len -= n;
	}
	return NULL;
}

/*
 * makedumpfile's flattened format: a 4096-byte header ("makedumpfile",
 * type 1, version 1, big-endian), then segments of {be64 offset, be64
 * size, data} to be written at offset of the real dump, ended by
 * {-1, -1}.
 */
static struct mmc_error *reassemble_flat(int fd, const char *path, uint64_t fsize,
					 struct mmc_mem *mem, struct extent *e)
{
	struct mmc_error *err = NULL;
	uint64_t pos = FLAT_HEADER_SIZE, end_size = 0, bad_at = 0;
	size_t cap = 0;
	bool ended = false;
	uint8_t *buf;
	int out;

	out = memfd_create("memmapcheck-flattened", MFD_CLOEXEC);
	if (out < 0)
		return mmc_error_os(errno, path, "memfd_create for the flattened dump");
	buf = malloc(1 << 20);
	if (!buf) {
		close(out);
		return mmc_error_nomem();
	}
	while (!err) {
		uint8_t hdr[16];
		uint64_t off, size;
		struct span *s;

		if (fsize - pos < sizeof(hdr)) {
			bad_at = pos;
			break;
		}
		err = mmc_pread_exact(fd, path, hdr, sizeof(hdr), pos, "flattened segment header");
		if (err)
			break;
		off = be(hdr, 8);
		size = be(hdr + 8, 8);
		if (off == UINT64_MAX) {	/* END_FLAG_FLAT_HEADER */
			ended = true;
			break;
		}
		if ((int64_t)off < 0 || (int64_t)size < 0 || off + size < off) {
			err = mmc_error_create(MMC_ERR_INPUT, path,
					       "flattened segment header at offset %llu: offset %lld, size %lld make no sense",
					       (unsigned long long)pos, (long long)off, (long long)size);
			break;
		}
		if (size > fsize - pos - sizeof(hdr)) {
			/* cut short: keep what is there */
			size = fsize - pos - sizeof(hdr);
			bad_at = pos;
		}
		if (e->ncov == cap) {
			cap = cap ? cap * 2 : 256;
			s = realloc(e->cov, cap * sizeof(*s));
			if (!s) {
				err = mmc_error_nomem();
				break;
			}
			e->cov = s;
		}
		e->cov[e->ncov++] = (struct span){ off, off + size, 0 };
		if (off + size > end_size)
			end_size = off + size;
		err = copy_range(fd, path, out, pos + sizeof(hdr), off, size, buf, 1 << 20);
		pos += sizeof(hdr) + size;
		if (bad_at)
			break;
	}
	free(buf);
	if (!err && ftruncate(out, (off_t)end_size) != 0)
		err = mmc_error_os(errno, path, "reassembling the flattened dump in memory");
	if (err) {
		close(out);
		return err;
	}
	merge_spans(e);
	e->fd = out;
	e->size = end_size;
	e->flattened = true;
	if (!ended)
		mmc_mem_add_note(mem, "%s: flattened dump truncated: it ends at file offset %llu without its end marker",
				 path, (unsigned long long)(bad_at ? bad_at : pos));
	return NULL;
}

static bool is_flattened(int fd)
{
	uint8_t h[32];

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return false;
	return !memcmp(h, FLAT_SIG, sizeof(FLAT_SIG)) && be(h + 16, 8) == 1;
}

struct mmc_error *mmc_dump_check(int *fd, const char *path, struct mmc_mem *mem,
				 struct mmc_dump_damage **damage)
{
	struct extent e = { .fd = *fd, .path = path };
	struct mmc_error *err = NULL;
	struct stat st;
	uint8_t magic[8];

	*damage = NULL;
	if (fstat(*fd, &st) != 0)
		return mmc_error_os(errno, path, "fstat");
	if (!S_ISREG(st.st_mode))
		return NULL;	/* a device or pipe: its size says nothing */
	e.size = (uint64_t)st.st_size;
	if (is_flattened(*fd)) {
		err = reassemble_flat(*fd, path, e.size, mem, &e);
		if (err)
			goto out;
		close(*fd);
		*fd = e.fd;
	}
	if (dx_present(&e, 0, sizeof(magic)) < sizeof(magic) ||
	    pread(e.fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic))
		goto out;	/* libkdumpfile says what it is not */
	if (!memcmp(magic, "KDUMP   ", 8) || !memcmp(magic, "DISKDUMP", 8))
		err = check_kdump_compressed(&e, mem, damage);
	else if (!memcmp(magic, ELFMAG, SELFMAG))
		err = dx_check_elf(&e, mem, damage);
out:
	free(e.cov);
	if (err) {
		mmc_dump_damage_destroy(*damage);
		*damage = NULL;
	}
	return err;
}
