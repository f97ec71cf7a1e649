/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A synthetic x86_64 kernel image for walker tests: kernel variables,
 * 4- or 5-level page tables mapping the vmemmap, a pgmap_array xarray holding
 * dev_pagemaps, and the struct pages of two ZONE_DEVICE ranges (order-0 and
 * 2 MiB compound pages with the kernel's shared tail vmemmap pages), written
 * as a kcore-format ELF by mkcore.h.  Knobs move what a reboot moves
 * (allocation addresses, frames) and break what a mutant would break.
 *
 * Physical memory: [0, 64 MiB) RAM.  Kernel image at 16 MiB (phys_base 0),
 * page tables from 1 MiB, slab objects from 2 MiB, vmemmap frames from 4 MiB.
 */
#ifndef MMC_TEST_SYNTH_KERNEL_H
#define MMC_TEST_SYNTH_KERNEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout_fixture.h"
#include "mkcore.h"

#define SK_RAM		(64ULL << 20)
#define SK_KMAP		0xffffffff80000000ULL
#define SK_TEXT		0xffffffff81000000ULL
#define SK_PAGE_OFFSET	0xffff888000000000ULL	/* __PAGE_OFFSET_BASE_L4 */
#define SK_VMEMMAP	0xffffea0000000000ULL	/* __VMEMMAP_BASE_L4 */
#define SK_VMALLOC	0xffffc90000000000ULL	/* __VMALLOC_BASE_L4 */
#define SK_PAGE_OFFSET_L5 0xff11000000000000ULL
#define SK_VMEMMAP_L5	0xffd4000000000000ULL
#define SK_VMALLOC_L5	0xffa0000000000000ULL
#define SK_TAIL_MAPPING	0xdead000000000400ULL
#define SK_R0_PFN	0x40000ULL	/* order-0 range: 512 pages */
#define SK_R1_PFN	0x40400ULL	/* 2 MiB compound range: 1024 pages */

struct synth_opts {
	uint64_t slab_shift;	/* moves dev_pagemap/xa_node addresses (reboot) */
	uint64_t frame_shift;	/* moves vmemmap frames (reboot) */
	int tail_refcount;	/* refcount of tails (0 correct) */
	int64_t bad_tail;	/* pfn whose compound_head points at the wrong head, -1 none */
	uint64_t drop_frame;	/* vmemmap vaddr whose frame is left out of the dump, 0 none */
	int xa_cycle;		/* xa_node slot pointing back at its node */
	int64_t wild_tail;	/* pfn whose compound_head points outside the vmemmap, -1 none */
	int head_cycle;		/* first compound head points at its page[1]: a loop */
	const char *release;	/* OSRELEASE in VMCOREINFO */
	int la57;		/* 5-level page tables, the L5 fixed bases */
	int no_l5_note;		/* VMCOREINFO without NUMBER(pgtable_l5_enabled) */
	/* lint cases (issue 7 item 9): */
	int64_t big_order_head;	/* compound head whose page[1] says order 10 (> shift 9), 0 none */
	int64_t wild_pgmap;	/* pfn whose pgmap points into memory the dump lacks, 0 none */
	int unreadable_pgmap;	/* pgmap0's dev_pagemap in a frame the dump lacks */
	int double_map;		/* range 0's vmemmap page 3 maps page 2's frame (order-0 pgmap) */
	int vmemmap_cross;	/* range 0's vmemmap page 3 maps range 1's head frame:
				 * one frame under two ranges */
	int huge_range;		/* pgmap1's range ends at 2^46 - 1 (MAX_PHYSMEM_BITS):
				 * 2^34 - 0x40400 pages, nearly all unmapped */
	uint64_t vmemmap_var;	/* the value of the vmemmap_base variable, 0 the right one */
	/* range 1's vmemmap: the PTEs that map a compound page's shared tail
	 * frame again (vmemmap pages 2..7) without _PAGE_RW, as HVO's
	 * vmemmap_remap_pte() maps them (PAGE_KERNEL_RO) */
	int ro_shared_tails;
	/* range 1's first head vmemmap page mapped without _PAGE_RW */
	int ro_head_frame;
	/*
	 * A HugeTLB pool (hstates[0], order 9, 6.12 offsets, see
	 * sk_hugetlb_layout()): folios at SK_HUGE_PFN and +0x200 on the free
	 * list, +0x400 on the active list, each with HVO's vmemmap (vmemmap
	 * pages 1..7 map page 0's frame read-only, 6.12's vmemmap_tail =
	 * vmemmap_head).  huge_cycle: the second free folio's lru.next points
	 * back at the first; huge_count: added to nr_huge_pages.
	 */
	int hugetlb;
	/* the first folio's vmemmap pages 3 and 4 map a frame of their own:
	 * a copy of page 0's frame before the lists are linked (its head's
	 * lru zero), struct page 10's flags with bit 2 set */
	int huge_other_frame;
	int huge_cycle;
	int huge_count;
	/*
	 * Memory blocks (sk_hotplug_layout(), 128 MiB sections, one per
	 * block): block 1 online with a self-hosted memmap of 512 pfns at
	 * SK_PLUG_PFN (memmap_on_memory), block 2 offline without one.
	 * plug_bad_section: block 2's start_section_nr says 3.
	 */
	int hotplug;
	int plug_bad_section;
};

struct synth {
	uint8_t *ram;
	uint64_t next_pt, next_frame;
	struct synth_opts o;
};

static inline uint64_t sk_sym(uint64_t off) { return SK_TEXT + off; }
#define SK_SYM_TOP_PGT		sk_sym(0x10000)
#define SK_SYM_VMEMMAP_BASE	sk_sym(0x20000)
#define SK_SYM_PAGE_OFFSET_BASE	sk_sym(0x20008)
#define SK_SYM_VMALLOC_BASE	sk_sym(0x20010)
#define SK_SYM_PGMAP_ARRAY	sk_sym(0x20100)
#define SK_SYM_END		sk_sym(0x100000)
#define SK_SYM_HSTATES		sk_sym(0x40000)
#define SK_SYM_HUGETLB_MAX	sk_sym(0x40400)
#define SK_SYM_HVO_ON		sk_sym(0x40408)
#define SK_HUGE_PFN		0x2000ULL
#define SK_SYM_MEMORY_BLOCKS	sk_sym(0x40500)
#define SK_SYM_SECTIONS_PER_BLOCK sk_sym(0x40600)
#define SK_PLUG_PFN		0x8000ULL	/* section 1 (SECTION_SIZE_BITS 27) */
#define SK_MEMBLOCK_ALTMAP	496	/* 6.12's offset of memory_block.altmap */
#define SK_HSTATE_FREELIST	120	/* 6.12 offsets of struct hstate's lists */
#define SK_HSTATE_ACTIVELIST	104

static inline uint64_t sk_page_offset(const struct synth_opts *o)
{
	return o->la57 ? SK_PAGE_OFFSET_L5 : SK_PAGE_OFFSET;
}

static inline uint64_t sk_vmemmap(const struct synth_opts *o)
{
	return o->la57 ? SK_VMEMMAP_L5 : SK_VMEMMAP;
}

/* Kernel image and direct-map addresses; the two never overlap. */
static inline uint64_t sk_pa(uint64_t kva)
{
	if (kva >= SK_KMAP)
		return kva - SK_KMAP;
	return kva >= SK_PAGE_OFFSET ? kva - SK_PAGE_OFFSET : kva - SK_PAGE_OFFSET_L5;
}

/* Index of the top-level table entry: 0-based level of the top table. */
static inline int sk_top_level(const struct synth *s)
{
	return s->o.la57 ? 4 : 3;
}

static inline void sk_put64(struct synth *s, uint64_t pa, uint64_t v)
{
	memcpy(s->ram + pa, &v, 8);
}

static inline uint64_t sk_get64(struct synth *s, uint64_t pa)
{
	uint64_t v;

	memcpy(&v, s->ram + pa, 8);
	return v;
}

/*
 * Map vaddr -> frame in the 4- or 5-level tables, allocating tables as
 * needed.  Table entries are _KERNPG_TABLE-like (present, RW, accessed,
 * dirty: 0x63); the leaf 0x63 (PAGE_KERNEL without NX and global) or,
 * read-only, 0x61.
 */
static inline void sk_map_prot(struct synth *s, uint64_t vaddr, uint64_t frame, int writable);
static inline void sk_map(struct synth *s, uint64_t vaddr, uint64_t frame)
{
	sk_map_prot(s, vaddr, frame, 1);
}

static inline void sk_map_prot(struct synth *s, uint64_t vaddr, uint64_t frame, int writable)
{
	uint64_t table = sk_pa(SK_SYM_TOP_PGT);
	int level;

	for (level = sk_top_level(s); level > 0; level--) {
		uint64_t idx = (vaddr >> (12 + 9 * level)) & 511;
		uint64_t e = sk_get64(s, table + idx * 8);

		if (!(e & 1)) {
			e = s->next_pt | 0x63;
			s->next_pt += 4096;
			sk_put64(s, table + idx * 8, e);
		}
		table = e & 0x000ffffffffff000ULL;
	}
	sk_put64(s, table + ((vaddr >> 12) & 511) * 8, frame | (writable ? 0x63 : 0x61));
}

static inline uint64_t sk_page(struct synth *s, uint64_t pfn, uint64_t flags,
			   uint64_t w8, uint64_t mapping, int32_t mapcount,
			   int32_t refcount)
{
	uint64_t va = sk_vmemmap(&s->o) + pfn * 64;
	uint64_t pte, pa;
	uint64_t table = sk_pa(SK_SYM_TOP_PGT);
	int level;

	for (level = sk_top_level(s); level >= 0; level--) {
		pte = sk_get64(s, table + ((va >> (12 + 9 * level)) & 511) * 8);
		table = pte & 0x000ffffffffff000ULL;
	}
	pa = table + (va & 4095);
	memset(s->ram + pa, 0, 64);
	sk_put64(s, pa, flags);
	sk_put64(s, pa + 8, w8);
	sk_put64(s, pa + 24, mapping);
	memcpy(s->ram + pa + 48, &mapcount, 4);
	memcpy(s->ram + pa + 52, &refcount, 4);
	return pa;
}

/* Build and write the image; returns 0 or -1. */
static inline int synth_write(const char *path, const struct synth_opts *o)
{
	struct synth s = { .o = *o };
	uint64_t zone_dev = 4ULL << 61;		/* ZONE_DEVICE; 3 zone bits, no node bits */
	uint64_t reserved = 1ULL << 13, head = 1ULL << 6;
	uint64_t pgmap0, pgmap1, node, vi_len, pfn, va, v, pa;
	const uint64_t vmemmap = sk_vmemmap(o), page_offset = sk_page_offset(o);
	struct mkcore_seg segs[3];
	uint64_t r1_head_frame = 0;
	char vi[512];
	int ret;

	s.ram = calloc(1, SK_RAM);
	if (!s.ram)
		return -1;
	s.next_pt = 1 << 20;
	s.next_frame = (4ULL << 20) + o->frame_shift * 4096;
	sk_put64(&s, sk_pa(SK_SYM_VMEMMAP_BASE), o->vmemmap_var ? o->vmemmap_var : vmemmap);
	sk_put64(&s, sk_pa(SK_SYM_PAGE_OFFSET_BASE), page_offset);
	sk_put64(&s, sk_pa(SK_SYM_VMALLOC_BASE), o->la57 ? SK_VMALLOC_L5 : SK_VMALLOC);

	/* the first page of the kernel image, so the paging depth can be
	 * probed from the tables when VMCOREINFO does not say */
	sk_map(&s, SK_TEXT, 16ULL << 20);
	/* vmemmap: range 0 one frame per 64 struct pages; range 1 per 2 MiB
	 * compound page: frames 0 and 1 own, frames 2..7 map frame 1. */
	for (va = vmemmap + SK_R0_PFN * 64; va < vmemmap + (SK_R0_PFN + 512) * 64;
	     va += 4096, s.next_frame += 4096)
		sk_map(&s, va, o->double_map && va == vmemmap + SK_R0_PFN * 64 + 3 * 4096 ?
			       s.next_frame - 4096 : s.next_frame);
	for (pfn = SK_R1_PFN; pfn < SK_R1_PFN + 1024; pfn += 512) {
		uint64_t f1 = 0;
		int i;

		if (pfn == SK_R1_PFN)
			r1_head_frame = s.next_frame;

		for (i = 0; i < 8; i++) {
			va = vmemmap + pfn * 64 + (uint64_t)i * 4096;
			if (i <= 1) {
				sk_map_prot(&s, va, s.next_frame,
					    !(i == 0 && pfn == SK_R1_PFN && o->ro_head_frame));
				if (i == 1)
					f1 = s.next_frame;
				s.next_frame += 4096;
			} else {
				sk_map_prot(&s, va, f1, !o->ro_shared_tails);
			}
		}
	}

	/* range 0's struct pages 192..255 then land in range 1's head frame,
	 * and range 1's, written after them, are what it holds */
	if (o->vmemmap_cross)
		sk_map(&s, vmemmap + SK_R0_PFN * 64 + 3 * 4096, r1_head_frame);

	/* two dev_pagemaps (216 bytes) and one xa_node (576 bytes) */
	pgmap0 = page_offset + (2ULL << 20) + o->slab_shift * 1024;
	pgmap1 = pgmap0 + 256;
	node = pgmap0 + 1024;
	if (o->unreadable_pgmap)	/* a frame of its own, left out below */
		pgmap0 = page_offset + (3ULL << 20);
	sk_put64(&s, sk_pa(pgmap0) + 160, 4);		/* MEMORY_DEVICE_GENERIC */
	sk_put64(&s, sk_pa(pgmap0) + 192, 1);		/* nr_range */
	sk_put64(&s, sk_pa(pgmap0) + 200, SK_R0_PFN << 12);
	sk_put64(&s, sk_pa(pgmap0) + 208, ((SK_R0_PFN + 512) << 12) - 1);
	sk_put64(&s, sk_pa(pgmap1) + 160, 3);		/* MEMORY_DEVICE_FS_DAX */
	sk_put64(&s, sk_pa(pgmap1) + 168, 9);		/* vmemmap_shift */
	sk_put64(&s, sk_pa(pgmap1) + 192, 1);
	sk_put64(&s, sk_pa(pgmap1) + 200, SK_R1_PFN << 12);
	sk_put64(&s, sk_pa(pgmap1) + 208, o->huge_range ? (1ULL << 46) - 1 :
							  ((SK_R1_PFN + 1024) << 12) - 1);
	/* a shift-12 node holding both as multi-index entries with siblings */
	s.ram[sk_pa(node)] = 12;
	/* xa_node.count: every non-NULL slot (lib/xarray.c), the sibling too */
	s.ram[sk_pa(node) + 2] = (uint8_t)(o->xa_cycle ? 4 : 3);
	sk_put64(&s, sk_pa(node) + 40 + 0 * 8, pgmap0);	/* index 0x40000 >> 12 = 0x40 ... */
	sk_put64(&s, sk_pa(node) + 40 + 1 * 8, pgmap1);
	sk_put64(&s, sk_pa(node) + 40 + 2 * 8, (1 << 2) | 2);	/* sibling of slot 1 */
	if (o->xa_cycle)
		sk_put64(&s, sk_pa(node) + 40 + 3 * 8, node + 2);
	sk_put64(&s, sk_pa(SK_SYM_PGMAP_ARRAY) + 8, node + 2);

	/* struct pages */
	for (pfn = SK_R0_PFN; pfn < SK_R0_PFN + 512; pfn++)
		sk_page(&s, pfn, zone_dev | reserved,
			(int64_t)pfn == o->wild_pgmap ? page_offset + (1ULL << 30) : pgmap0,
			0, -1, 1);
	for (pfn = SK_R1_PFN; pfn < SK_R1_PFN + 1024; pfn++) {
		uint64_t h = pfn & ~511ULL;

		if (pfn == h) {
			v = o->head_cycle && h == SK_R1_PFN ? vmemmap + (h + 1) * 64 + 1 : pgmap1;
			sk_page(&s, pfn, zone_dev | reserved | head, v, 0, -1, 1);
			continue;
		}
		if (pfn >= h + 128)
			continue;	/* shared vmemmap: written through page 64..127 */
		v = vmemmap + h * 64 + 1;
		if ((int64_t)pfn == o->bad_tail)
			v = vmemmap + (h - 512) * 64 + 1;
		if ((int64_t)pfn == o->wild_tail)
			v = 0xffff888012345679ULL;
		/* page[1]: prep_compound_head() after its tail init (6.12):
		 * order 9 in _flags_1, _large/_entire_mapcount -1 (+16),
		 * _nr_pages_mapped/_pincount 0 (+24, over mapping),
		 * _folio_nr_pages 512 (+32; fixture offsets 80, 88, 96) */
		pa = sk_page(&s, pfn, zone_dev | reserved | (pfn == h + 1 ? 9 : 0), v,
			     pfn == h + 1 ? 0 : SK_TAIL_MAPPING, -1, o->tail_refcount);
		if (pfn == h + 1) {
			sk_put64(&s, pa + 16, ~0ULL);
			sk_put64(&s, pa + 32, 512);
			if ((int64_t)h == o->big_order_head) {
				sk_put64(&s, pa, zone_dev | reserved | 10);
				sk_put64(&s, pa + 32, 1024);
			}
		}
	}

	if (o->hugetlb) {
		uint64_t hs = sk_pa(SK_SYM_HSTATES);
		uint64_t fl = SK_SYM_HSTATES + SK_HSTATE_FREELIST;
		uint64_t al = SK_SYM_HSTATES + SK_HSTATE_ACTIVELIST;
		uint64_t lru[3];
		int f, i;

		for (f = 0; f < 3; f++) {
			uint64_t h = SK_HUGE_PFN + (uint64_t)f * 512, f0 = s.next_frame, f4 = f0;

			s.next_frame += 4096;
			if (f == 0 && o->huge_other_frame) {
				f4 = s.next_frame;
				s.next_frame += 4096;
			}
			for (i = 0; i < 8; i++)
				sk_map_prot(&s, vmemmap + h * 64 + (uint64_t)i * 4096,
					    i == 3 || i == 4 ? f4 : f0, i == 0);
			lru[f] = vmemmap + h * 64 + 8;
			/* head: PG_head, HPG_freed (3) on a free list, and
			 * HPG_vmemmap_optimized (4); page_type PGTY_hugetlb */
			pa = sk_page(&s, h, head, 0, 0, (int32_t)0xf4000000u, f == 2);
			sk_put64(&s, pa + 40, (f < 2 ? 1ULL << 3 : 0) | 1ULL << 4);
			for (pfn = h + 1; pfn < h + 64; pfn++)
				sk_page(&s, pfn, pfn == h + 1 ? 9 : 0, vmemmap + h * 64 + 1,
					SK_TAIL_MAPPING, -1, 0);
			if (f4 != f0) {
				memcpy(s.ram + f4, s.ram + f0, 4096);
				s.ram[f4 + 10 * 64] |= 1 << 2;
			}
		}
		/* free: fl -> 0 -> 1 -> fl; active: al -> 2 -> al */
		sk_put64(&s, sk_pa(fl), lru[0]);
		sk_put64(&s, sk_pa(fl) + 8, lru[1]);
		sk_put64(&s, sk_pa(al), lru[2]);
		sk_put64(&s, sk_pa(al) + 8, lru[2]);
		for (f = 0; f < 3; f++) {
			uint64_t next = f == 0 ? lru[1] : f == 1 ? (o->huge_cycle ? lru[0] : fl) : al;
			uint64_t prev = f == 0 ? fl : f == 1 ? lru[0] : al;
			uint64_t va2 = lru[f], table = sk_pa(SK_SYM_TOP_PGT);
			int level;

			for (level = sk_top_level(&s); level >= 0; level--)
				table = sk_get64(&s, table + ((va2 >> (12 + 9 * level)) & 511) * 8) &
					0x000ffffffffff000ULL;
			sk_put64(&s, table + (va2 & 4095), next);
			sk_put64(&s, table + (va2 & 4095) + 8, prev);
		}
		s.ram[hs + 40] = 9;				/* order */
		sk_put64(&s, hs + 64, (uint64_t)(3 + o->huge_count));	/* nr_huge_pages */
		sk_put64(&s, hs + 72, 2);			/* free_huge_pages */
		memcpy(s.ram + hs + 152, "hugepages-2048kB", 17);
		s.ram[sk_pa(SK_SYM_HUGETLB_MAX)] = 1;
		s.ram[sk_pa(SK_SYM_HVO_ON)] = 1;
	}

	if (o->hotplug) {
		uint64_t b1 = page_offset + 0x210000, b2 = b1 + 0x800, alt = b1 + 0x1000;
		uint64_t xn = b1 + 0x2000;

		sk_put64(&s, sk_pa(b1), 1);			/* start_section_nr */
		sk_put64(&s, sk_pa(b1) + 8, 0);			/* MEM_ONLINE */
		sk_put64(&s, sk_pa(b1) + SK_MEMBLOCK_ALTMAP, alt);
		sk_put64(&s, sk_pa(alt), SK_PLUG_PFN);		/* base_pfn */
		sk_put64(&s, sk_pa(alt) + 24, 512);		/* free */
		sk_put64(&s, sk_pa(b2), o->plug_bad_section ? 3 : 2);
		sk_put64(&s, sk_pa(b2) + 8, 2);			/* MEM_OFFLINE */
		s.ram[sk_pa(xn)] = 0;				/* shift 0: slots = ids */
		s.ram[sk_pa(xn) + 2] = 2;
		sk_put64(&s, sk_pa(xn) + 40 + 1 * 8, b1);
		sk_put64(&s, sk_pa(xn) + 40 + 2 * 8, b2);
		sk_put64(&s, sk_pa(SK_SYM_MEMORY_BLOCKS) + 8, xn + 2);
		sk_put64(&s, sk_pa(SK_SYM_SECTIONS_PER_BLOCK), 1);
		/* the memmap of the self-hosted pfns, as
		 * mhp_init_memmap_on_memory() leaves it: ZONE_NORMAL,
		 * PG_owner_priv_1 (bit 10), lru to itself, refcount 1 */
		for (va = vmemmap + SK_PLUG_PFN * 64; va < vmemmap + (SK_PLUG_PFN + 512) * 64;
		     va += 4096, s.next_frame += 4096)
			sk_map(&s, va, s.next_frame);
		for (pfn = SK_PLUG_PFN; pfn < SK_PLUG_PFN + 512; pfn++) {
			pa = sk_page(&s, pfn, (2ULL << 61) | 1ULL << 10,
				     vmemmap + pfn * 64 + 8, 0, -1, 1);
			sk_put64(&s, pa + 16, vmemmap + pfn * 64 + 8);
		}
	}

	vi_len = (uint64_t)snprintf(vi, sizeof(vi),
		"OSRELEASE=%s\nPAGESIZE=4096\nSYMBOL(init_top_pgt)=%llx\n"
		"SYMBOL(_stext)=%llx\nNUMBER(phys_base)=0\nKERNELOFFSET=0\n"
		"%s%s",
		o->release ? o->release : "6.12.0-synth",
		(unsigned long long)SK_SYM_TOP_PGT, (unsigned long long)SK_TEXT,
		o->no_l5_note ? "" : o->la57 ? "NUMBER(pgtable_l5_enabled)=1\n" :
					       "NUMBER(pgtable_l5_enabled)=0\n",
		o->hotplug ? "NUMBER(SECTION_SIZE_BITS)=27\n" : "");
	(void)vi_len;
	/* direct map of RAM, kernel image; optionally with a hole */
	memset(segs, 0, sizeof(segs));
	if (o->drop_frame || o->unreadable_pgmap) {
		uint64_t table = sk_pa(SK_SYM_TOP_PGT), hole;
		int level;

		for (level = sk_top_level(&s); level >= 0 && o->drop_frame; level--)
			table = sk_get64(&s, table + ((o->drop_frame >> (12 + 9 * level)) & 511) * 8) &
				0x000ffffffffff000ULL;
		hole = o->drop_frame ? table : sk_pa(pgmap0);
		segs[0] = (struct mkcore_seg){ page_offset, 0, s.ram, hole, 0 };
		segs[1] = (struct mkcore_seg){ page_offset + hole + 4096, hole + 4096,
					       s.ram + hole + 4096, SK_RAM - hole - 4096, 0 };
		segs[2] = (struct mkcore_seg){ SK_TEXT, 16 << 20, s.ram + (16 << 20), 2 << 20, 0 };
		ret = mkcore_write(path, segs, 3, vi);
	} else {
		segs[0] = (struct mkcore_seg){ page_offset, 0, s.ram, SK_RAM, 0 };
		segs[1] = (struct mkcore_seg){ SK_TEXT, 16 << 20, s.ram + (16 << 20), 2 << 20, 0 };
		ret = mkcore_write(path, segs, 2, vi);
	}
	free(s.ram);
	return ret;
}

/* The HugeTLB items of 6.12's layout (x86_64, MAX_NUMNODES 1), added to l. */
static inline int sk_hugetlb_layout(struct mmc_layout *l)
{
	static const struct mmc_test_enumerator hpg[] = {
		{ "HPG_restore_reserve", 0 }, { "HPG_migratable", 1 }, { "HPG_temporary", 2 },
		{ "HPG_freed", 3 }, { "HPG_vmemmap_optimized", 4 },
	};

	mmc_test_member(l, MMC_LIST_HEAD_NEXT, "next", 0, 8, 0);
	mmc_test_member(l, MMC_LIST_HEAD_PREV, "prev", 8, 8, 0);
	mmc_test_member(l, MMC_HSTATE_ORDER, "order", 40, 4, 0);
	mmc_test_member(l, MMC_HSTATE_NR, "nr_huge_pages", 64, 8, 0);
	mmc_test_member(l, MMC_HSTATE_FREE, "free_huge_pages", 72, 8, 0);
	mmc_test_member(l, MMC_HSTATE_RESV, "resv_huge_pages", 80, 8, 0);
	mmc_test_member(l, MMC_HSTATE_SURPLUS, "surplus_huge_pages", 88, 8, 0);
	mmc_test_member(l, MMC_HSTATE_ACTIVELIST, "hugepage_activelist", SK_HSTATE_ACTIVELIST, 16, 0);
	mmc_test_member(l, MMC_HSTATE_FREELISTS, "hugepage_freelists", SK_HSTATE_FREELIST, 16, 1);
	mmc_test_member(l, MMC_HSTATE_NAME, "name", 152, 32, 32);
	l->size[MMC_SIZE_HSTATE] = 184;
	l->size_found[MMC_SIZE_HSTATE] = true;
	l->sym_found[MMC_SYM_HSTATES] = true;
	l->sym[MMC_SYM_HSTATES] = SK_SYM_HSTATES;
	l->sym_found[MMC_SYM_HUGETLB_MAX_HSTATE] = true;
	l->sym[MMC_SYM_HUGETLB_MAX_HSTATE] = SK_SYM_HUGETLB_MAX;
	l->sym_found[MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED] = true;
	l->sym[MMC_SYM_VMEMMAP_OPTIMIZE_ENABLED] = SK_SYM_HVO_ON;
	return mmc_test_enum(l, MMC_ENUM_HUGETLB_PAGE_FLAGS, hpg, sizeof(hpg) / sizeof(hpg[0]));
}

/* The memory block items of 6.12's layout, added to l. */
static inline int sk_hotplug_layout(struct mmc_layout *l)
{
	static const struct mmc_test_enumerator state[] = {
		{ "MEM_ONLINE", 0 }, { "MEM_GOING_OFFLINE", 1 }, { "MEM_OFFLINE", 2 },
	};

	mmc_test_member(l, MMC_MEMBLOCK_START_SECTION, "start_section_nr", 0, 8, 0);
	mmc_test_member(l, MMC_MEMBLOCK_STATE, "state", 8, 4, 0);
	mmc_test_member(l, MMC_MEMBLOCK_NID, "nid", 16, 4, 0);
	mmc_test_member(l, MMC_MEMBLOCK_ALTMAP, "altmap", SK_MEMBLOCK_ALTMAP, 8, 0);
	l->sym_found[MMC_SYM_MEMORY_BLOCKS] = true;
	l->sym[MMC_SYM_MEMORY_BLOCKS] = SK_SYM_MEMORY_BLOCKS;
	l->sym_found[MMC_SYM_SECTIONS_PER_BLOCK] = true;
	l->sym[MMC_SYM_SECTIONS_PER_BLOCK] = SK_SYM_SECTIONS_PER_BLOCK;
	return mmc_test_enum(l, MMC_ENUM_MEMORY_BLOCK_STATE, state, sizeof(state) / sizeof(state[0]));
}

/* The layout that goes with it: the 6.12 fixture plus symbols and identity. */
static inline int synth_layout(struct mmc_layout *l)
{
	if (mmc_test_layout_612(l))
		return -1;
	snprintf(l->release, sizeof(l->release), "6.12.0-synth");
	snprintf(l->source, sizeof(l->source), "synthetic layout");
	l->sym_found[MMC_SYM_PGMAP_ARRAY] = true;
	l->sym[MMC_SYM_PGMAP_ARRAY] = SK_SYM_PGMAP_ARRAY;
	l->sym_found[MMC_SYM_VMEMMAP_BASE] = true;
	l->sym[MMC_SYM_VMEMMAP_BASE] = SK_SYM_VMEMMAP_BASE;
	l->sym_found[MMC_SYM_PAGE_OFFSET_BASE] = true;
	l->sym[MMC_SYM_PAGE_OFFSET_BASE] = SK_SYM_PAGE_OFFSET_BASE;
	l->sym_found[MMC_SYM_VMALLOC_BASE] = true;
	l->sym[MMC_SYM_VMALLOC_BASE] = SK_SYM_VMALLOC_BASE;
	l->sym_found[MMC_SYM_INIT_TOP_PGT] = true;
	l->sym[MMC_SYM_INIT_TOP_PGT] = SK_SYM_TOP_PGT;
	l->sym_found[MMC_SYM_TEXT] = true;
	l->sym[MMC_SYM_TEXT] = SK_TEXT;
	l->sym_found[MMC_SYM_STEXT] = true;
	l->sym[MMC_SYM_STEXT] = SK_TEXT;
	l->sym_found[MMC_SYM_END] = true;
	l->sym[MMC_SYM_END] = SK_SYM_END;
	l->sym_found[MMC_SYM_INIT_UTS_NS] = true;
	l->sym[MMC_SYM_INIT_UTS_NS] = sk_sym(0x30000);
	return 0;
}

#endif
