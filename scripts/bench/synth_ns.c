// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Simulated sizes for `make bench`: a synthetic kcore-format ELF of a kernel
 * with ONE huge ZONE_DEVICE namespace (map=mem, struct pages in RAM), sized
 * beyond what a guest on this machine can hold (up to 4 TiB and more), and
 * its saved layout.
 *
 * The kernel is the unit tests' synthetic 6.12 one (tests/unit/synth_kernel.h:
 * its symbols, fixed bases and layout fixture); every struct offset, flag bit
 * and enum value used here comes from that layout, not from this file.  The
 * vmemmap is populated the way 6.12's vmemmap_populate_compound_pages() does
 * it for a namespace without altmap: per compound page only the vmemmap pages
 * 0 (head) and 1 (first tails) have their own frame, pages 2..N-1 map frame 1
 * again.  So a devdax 1G namespace of 4 TiB needs 32 MiB of struct-page frames
 * and 128 MiB of PTE tables, and the file stays small; 2M needs 4 MiB of
 * frames per GiB, order 0 (fsdax) 16 MiB per GiB.
 *
 * usage: synth_ns CORE LAYOUT ORDER GIB
 *   ORDER  18 (devdax 1G), 9 (devdax 2M), 0 (fsdax, order-0 pages)
 *   GIB    namespace size in GiB (a multiple of the compound size)
 * The namespace starts at physical 1 TiB; RAM holds everything else.
 * Prints: struct pages, vmemmap pages, unique struct-page frames, file bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "layout.h"
#include "mkcore.h"
#include "synth_kernel.h"

#define PAGE		4096ULL
#define LOW_RAM		(64ULL << 20)	/* kept in memory: kernel, slab, upper tables */
#define UPPER_PT	(32ULL << 20)	/* PUD/PMD tables from here (8192 of them) */
#define SLAB		(2ULL << 20)	/* dev_pagemap and xa_nodes */
#define NS_START	(1ULL << 40)	/* physical start of the namespace */
#define START_KERNEL_MAP 0xffffffff80000000ULL	/* arch/x86/include/asm/page_64_types.h */
#define TAIL_MAPPING	0xdead000000000400ULL	/* POISON_POINTER_DELTA + 0x400 (poison.h) */
#define XA_CHUNK_SHIFT	6		/* include/linux/xarray.h (CONFIG_BASE_SMALL=0) */

struct gen {
	const struct mmc_layout *l;
	int fd;
	uint64_t ram_file_off;	/* file offset of physical 0 */
	uint8_t *low;		/* physical [0, LOW_RAM) */
	uint64_t next_upper, next_slab, next_stream;
	uint64_t order, nr;	/* compound order, pages per compound page */
	uint64_t start_pfn, end_pfn, pgmap;
	uint64_t zone_flags, pg_head, pg_reserved;
	uint64_t frames, vmemmap_pages;
};

static void die(const char *what)
{
	fprintf(stderr, "synth_ns: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(uint8_t *p, uint32_t off, uint32_t size, uint64_t v)
{
	memcpy(p + off, &v, size);	/* little endian */
}

static void put_m(const struct gen *g, uint8_t *p, enum mmc_member_id id, uint64_t v)
{
	const struct mmc_member *m = &g->l->member[id];

	if (!m->found) {
		fprintf(stderr, "synth_ns: layout lacks %s\n", mmc_member_specs[id].label);
		exit(1);
	}
	put(p, m->offset, m->size, v);
}

static uint64_t get64(const struct gen *g, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, g->low + pa, 8);
	return v;
}

static void pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n <= 0)
			die("write");
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
}

static void write_frame(struct gen *g, uint64_t pa, const void *buf)
{
	pwrite_all(g->fd, buf, PAGE, g->ram_file_off + pa);
}

static int64_t enum_value(const struct gen *g, enum mmc_enum_id id, const char *name)
{
	int64_t v;

	if (!mmc_layout_enum_value(g->l, id, name, &v)) {
		fprintf(stderr, "synth_ns: layout has no %s\n", name);
		exit(1);
	}
	return v;
}

/* The table entry for vaddr at `level` (0 = PTE table), creating upper tables
 * in low RAM; returns the physical address of the PTE table's entry. */
static uint64_t pte_slot(struct gen *g, uint64_t vaddr, uint64_t *pte_table_pa)
{
	uint64_t table = sk_pa(SK_SYM_TOP_PGT);
	int level;

	for (level = 3; level > 0; level--) {
		uint64_t slot = table + ((vaddr >> (12 + 9 * level)) & 511) * 8;
		uint64_t e = get64(g, slot);

		if (!(e & 1)) {
			uint64_t t;

			if (level > 1) {
				if (g->next_upper >= LOW_RAM)
					die("too many upper page tables");
				t = g->next_upper;
				g->next_upper += PAGE;
			} else {
				t = g->next_stream;	/* a PTE table, streamed */
				g->next_stream += PAGE;
			}
			e = t | 0x63;
			memcpy(g->low + slot, &e, 8);
		}
		table = e & 0x000ffffffffff000ULL;
	}
	*pte_table_pa = table;
	return table + ((vaddr >> 12) & 511) * 8;
}

/* The kernel image's first 2 MiB as one PMD leaf, _text to its load address
 * (16 MiB): a reader checks VMCOREINFO's phys_base by translating _text. */
static void map_text(struct gen *g)
{
	uint64_t table = sk_pa(SK_SYM_TOP_PGT), e;
	int level;

	for (level = 3; level > 1; level--) {
		uint64_t slot = table + ((SK_TEXT >> (12 + 9 * level)) & 511) * 8;

		e = get64(g, slot);
		if (!(e & 1)) {
			if (g->next_upper >= LOW_RAM)
				die("too many upper page tables");
			e = g->next_upper | 0x63;
			g->next_upper += PAGE;
			memcpy(g->low + slot, &e, 8);
		}
		table = e & 0x000ffffffffff000ULL;
	}
	e = (SK_TEXT - START_KERNEL_MAP) | 0xe3;	/* present, RW, A, D, PSE */
	memcpy(g->low + table + ((SK_TEXT >> 21) & 511) * 8, &e, 8);
}

/* One struct page as 6.12's memmap_init_zone_device() leaves it (map=mem,
 * no altmap): __init_zone_device_page() for every pfn, prep_compound_head()
 * and prep_compound_tail() for compound pages. */
static void fill_page(const struct gen *g, uint64_t pfn, uint8_t *p)
{
	uint64_t head = pfn & ~(g->nr - 1);

	memset(p, 0, g->l->size[MMC_SIZE_PAGE]);
	put_m(g, p, MMC_PAGE_MAPCOUNT, (uint32_t)-1);
	if (g->order == 0 || pfn == head) {
		put_m(g, p, MMC_PAGE_FLAGS, g->zone_flags | g->pg_reserved |
		      (g->order ? g->pg_head : 0));
		put_m(g, p, g->l->member[MMC_PAGE_PGMAP].found ? MMC_PAGE_PGMAP :
		      MMC_FOLIO_PGMAP, g->pgmap);
		put_m(g, p, MMC_PAGE_REFCOUNT, 1);
		return;
	}
	put_m(g, p, MMC_PAGE_FLAGS, g->zone_flags | g->pg_reserved);
	put_m(g, p, MMC_PAGE_COMPOUND_HEAD, SK_VMEMMAP +
	      head * g->l->size[MMC_SIZE_PAGE] + 1);
	put_m(g, p, MMC_PAGE_MAPPING, TAIL_MAPPING);
	put_m(g, p, MMC_PAGE_REFCOUNT, 0);
	if (pfn == head + 1) {	/* folio members in page[1] */
		uint32_t ps = (uint32_t)g->l->size[MMC_SIZE_PAGE];
		const struct mmc_member *f1 = &g->l->member[MMC_FOLIO_FLAGS_1];
		const struct mmc_member *np = &g->l->member[MMC_FOLIO_NR_PAGES];

		if (f1->found)	/* folio_set_order(): the order in _flags_1's low byte */
			p[f1->offset - ps] = (uint8_t)g->order;
		if (np->found)
			put(p, np->offset - ps, np->size, g->nr);
	}
}

static void fill_frame(const struct gen *g, uint64_t first_pfn, uint8_t *frame)
{
	uint64_t ps = g->l->size[MMC_SIZE_PAGE], i;

	for (i = 0; i < PAGE / ps; i++)
		fill_page(g, first_pfn + i, frame + i * ps);
}

/* The vmemmap of [start_pfn, end_pfn), streamed: PTE tables and frames are
 * allocated upwards from LOW_RAM and written as soon as they are complete. */
static void populate_vmemmap(struct gen *g)
{
	uint64_t ps = g->l->size[MMC_SIZE_PAGE];
	uint64_t vstart = SK_VMEMMAP + g->start_pfn * ps, vend = SK_VMEMMAP + g->end_pfn * ps;
	uint64_t per_compound = g->nr * ps / PAGE;	/* vmemmap pages per compound page */
	uint64_t va, cur_pt = 0, shared = 0;
	uint8_t pt[PAGE], frame[PAGE];

	memset(pt, 0, sizeof(pt));
	for (va = vstart; va < vend; va += PAGE) {
		uint64_t pt_pa, slot = pte_slot(g, va, &pt_pa);
		uint64_t idx = (va - vstart) / PAGE, fpa, e;

		if (pt_pa != cur_pt) {
			if (cur_pt)
				write_frame(g, cur_pt, pt);
			memset(pt, 0, sizeof(pt));
			cur_pt = pt_pa;
		}
		if (per_compound <= 1 || idx % per_compound < 2) {
			fpa = g->next_stream;
			g->next_stream += PAGE;
			fill_frame(g, g->start_pfn + (va - vstart) / ps, frame);
			write_frame(g, fpa, frame);
			g->frames++;
			if (per_compound > 1 && idx % per_compound == 1)
				shared = fpa;
		} else {
			fpa = shared;	/* vmemmap_populate_range(..., reuse) */
		}
		e = fpa | 0x63;
		memcpy(pt + (slot - pt_pa), &e, 8);
		g->vmemmap_pages++;
	}
	if (cur_pt)
		write_frame(g, cur_pt, pt);
}

/* pgmap_array as xa_store_range() of [start_pfn, end_pfn - 1] would leave it:
 * every slot wholly inside the range holds the pgmap, partly covered slots
 * get a child node. */
static uint64_t xa_build(struct gen *g, uint64_t base, unsigned shift,
			 uint64_t parent, unsigned offset)
{
	const struct mmc_layout *l = g->l;
	uint64_t node_pa = g->next_slab, node = SK_PAGE_OFFSET + node_pa;
	uint64_t span = 1ULL << shift, i, count = 0;

	g->next_slab += 1024;
	if (g->next_slab > 16ULL << 20)
		die("xarray too deep");
	g->low[node_pa + l->member[MMC_XA_NODE_SHIFT].offset] = (uint8_t)shift;
	g->low[node_pa + l->member[MMC_XA_NODE_OFFSET].offset] = (uint8_t)offset;
	/* a plain pointer, like the kernel's node->parent (no internal-entry tag) */
	put(g->low + node_pa, l->member[MMC_XA_NODE_PARENT].offset, 8, parent);
	for (i = 0; i < (1ULL << XA_CHUNK_SHIFT); i++) {
		uint64_t s = base + i * span, e = s + span, entry = 0;

		if (e <= g->start_pfn || s >= g->end_pfn)
			continue;
		if (s >= g->start_pfn && e <= g->end_pfn)
			entry = g->pgmap;
		else
			entry = xa_build(g, s, shift - XA_CHUNK_SHIFT, node, (unsigned)i) | 2;
		put(g->low + node_pa, l->member[MMC_XA_NODE_SLOTS].offset + (uint32_t)i * 8, 8, entry);
		count++;
	}
	g->low[node_pa + l->member[MMC_XA_NODE_COUNT].offset] = (uint8_t)count;
	return node;
}

static void write_pgmap_and_xarray(struct gen *g)
{
	const struct mmc_layout *l = g->l;
	uint64_t pa = g->next_slab, type, shift = 0, head;
	uint8_t *p;

	g->next_slab += 1024;
	g->pgmap = SK_PAGE_OFFSET + pa;
	p = g->low + pa;
	type = (uint64_t)enum_value(g, MMC_ENUM_MEMORY_TYPE,
				    g->order ? "MEMORY_DEVICE_GENERIC" : "MEMORY_DEVICE_FS_DAX");
	put(p, l->member[MMC_PGMAP_TYPE].offset, l->member[MMC_PGMAP_TYPE].size, type);
	put(p, l->member[MMC_PGMAP_VMEMMAP_SHIFT].offset, l->member[MMC_PGMAP_VMEMMAP_SHIFT].size,
	    g->order);
	put(p, l->member[MMC_PGMAP_NR_RANGE].offset, l->member[MMC_PGMAP_NR_RANGE].size, 1);
	put(p, l->member[MMC_PGMAP_RANGE].offset + l->member[MMC_RANGE_START].offset, 8,
	    g->start_pfn * PAGE);
	put(p, l->member[MMC_PGMAP_RANGE].offset + l->member[MMC_RANGE_END].offset, 8,
	    g->end_pfn * PAGE - 1);
	/* the smallest root that holds the last index, as xas_expand() grows it */
	while ((g->end_pfn - 1) >> (shift + XA_CHUNK_SHIFT))
		shift += XA_CHUNK_SHIFT;
	head = xa_build(g, 0, shift, 0, 0) | 2;
	put(g->low + sk_pa(SK_SYM_PGMAP_ARRAY), l->member[MMC_XARRAY_HEAD].offset, 8, head);
}

/* The ELF headers (mkcore.h's, as the unit tests' cores have them), low RAM
 * and the kernel image around the streamed part of RAM. */
static void write_elf(struct gen *g, uint64_t ram_size, const char *vi)
{
	const uint64_t kimg = 16ULL << 20, kimg_off = g->ram_file_off + mkcore_align(ram_size);
	const struct mkcore_seg segs[] = {
		{ SK_PAGE_OFFSET, 0, NULL, ram_size, 0 },	/* direct map of RAM */
		{ SK_TEXT, kimg, NULL, 2ULL << 20, 0 },	/* kernel image: 2 MiB at 16 MiB */
	};
	size_t len;
	void *hdr = mkcore_headers(segs, 2, vi, &len);

	if (!hdr)
		die("ELF headers");
	pwrite_all(g->fd, hdr, len, 0);
	free(hdr);
	pwrite_all(g->fd, g->low, LOW_RAM, g->ram_file_off);
	pwrite_all(g->fd, g->low + kimg, 2ULL << 20, kimg_off);
	if (ftruncate(g->fd, (off_t)(kimg_off + (2ULL << 20))))
		die("ftruncate");
}

int main(int argc, char **argv)
{
	struct gen g = { .next_upper = UPPER_PT, .next_slab = SLAB, .next_stream = LOW_RAM };
	struct mmc_layout *l;
	struct mmc_geom geom;
	struct mmc_error *err;
	uint64_t gib, ram_size, v;
	char vi[512];

	if (argc != 5) {
		fprintf(stderr, "usage: %s CORE LAYOUT ORDER GIB\n", argv[0]);
		return 2;
	}
	g.order = strtoull(argv[3], NULL, 0);
	gib = strtoull(argv[4], NULL, 0);
	g.nr = 1ULL << g.order;
	if (g.order > 30 || !gib || ((gib << 30) / PAGE) % g.nr) {
		fprintf(stderr, "synth_ns: %s GiB is not a multiple of an order-%s page\n",
			argv[4], argv[3]);
		return 2;
	}
	l = mmc_layout_create();
	if (!l || synth_layout(l))
		return 1;
	g.l = l;
	memset(&geom, 0, sizeof(geom));
	err = mmc_geom_flags_layout(l, &geom);
	if (err) {
		mmc_error_fprint(stderr, err);
		fputc('\n', stderr);
		return 1;
	}
	g.zone_flags = (uint64_t)enum_value(&g, MMC_ENUM_ZONE_TYPE, "ZONE_DEVICE") << geom.zones_pgshift;
	g.pg_head = 1ULL << enum_value(&g, MMC_ENUM_PAGEFLAGS, "PG_head");
	g.pg_reserved = 1ULL << enum_value(&g, MMC_ENUM_PAGEFLAGS, "PG_reserved");
	g.start_pfn = NS_START / PAGE;
	g.end_pfn = g.start_pfn + (gib << 30) / PAGE;
	snprintf(vi, sizeof(vi),
		 "OSRELEASE=6.12.0-synth\nPAGESIZE=4096\nSYMBOL(init_top_pgt)=%llx\n"
		 "SYMBOL(_stext)=%llx\nNUMBER(phys_base)=0\nKERNELOFFSET=0\n"
		 "NUMBER(pgtable_l5_enabled)=0\n",
		 (unsigned long long)SK_SYM_TOP_PGT, (unsigned long long)SK_TEXT);
	/* RAM is written while it is made, so where it goes is known first */
	g.ram_file_off = mkcore_data_off(2, vi);

	g.low = calloc(1, LOW_RAM);
	g.fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!g.low || g.fd < 0)
		die(argv[1]);
	v = SK_VMEMMAP;
	memcpy(g.low + sk_pa(SK_SYM_VMEMMAP_BASE), &v, 8);
	v = SK_PAGE_OFFSET;
	memcpy(g.low + sk_pa(SK_SYM_PAGE_OFFSET_BASE), &v, 8);
	v = SK_VMALLOC;
	memcpy(g.low + sk_pa(SK_SYM_VMALLOC_BASE), &v, 8);
	map_text(&g);
	write_pgmap_and_xarray(&g);
	populate_vmemmap(&g);
	ram_size = g.next_stream;
	write_elf(&g, ram_size, vi);
	if (close(g.fd))
		die(argv[1]);
	err = mmc_layout_save(l, argv[2]);
	if (err) {
		mmc_error_fprint(stderr, err);
		fputc('\n', stderr);
		return 1;
	}
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       g.end_pfn - g.start_pfn, g.vmemmap_pages, g.frames,
	       (uint64_t)(g.ram_file_off + ram_size + (2ULL << 20)));
	mmc_layout_destroy(l);
	free(g.low);
	return 0;
}
