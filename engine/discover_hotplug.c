// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Memory blocks, by the kernel's own xarray (drivers/base/memory.c
 * memory_blocks, index = block id = start_section_nr / sections_per_block):
 * every struct memory_block with its state, node and, with
 * memmap_on_memory, the vmem_altmap whose first `free` pfns hold the
 * block's own memmap (create_altmaps_and_memory_blocks(),
 * mm/memory_hotplug.c).  Boot memory has blocks too (altmap NULL).
 *
 * The pfns that hold a self-hosted memmap are initialised by
 * mhp_init_memmap_on_memory() when the block goes online (memmap_init_range
 * MEMINIT_HOTPLUG, then SetPageVmemmapSelfHosted()): an online block's
 * altmap pfns become one MMC_RANGE_HOTPLUG range.  The rest of a block is
 * ordinary buddy memory, whose struct pages differ from boot to boot, and
 * is not walked.
 */
#include "discover.h"
#include "mmc_util.h"
#include "xarray.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* More blocks than this is a corrupt xarray (MMC_SNAPSHOT_MAX_MEMBLOCKS). */
#define MAX_BLOCKS 65536

struct plug_walk {
	struct mmc_kernel *k;
	struct mmc_discovery *d;
	size_t cap;
	uint64_t pages_per_block, sections_per_block, section_shift;
	int64_t mem_online;
	bool stopped;
};

static const enum mmc_member_id block_members[] = {
	MMC_MEMBLOCK_START_SECTION, MMC_MEMBLOCK_STATE, MMC_MEMBLOCK_NID,
	MMC_MEMBLOCK_ALTMAP, MMC_ALTMAP_BASE_PFN, MMC_ALTMAP_FREE,
};

static void stop(struct plug_walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void stop(struct plug_walk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->stopped)
		return;
	w->stopped = true;
	w->d->plug_state = MMC_READ_PARTIAL;
	va_start(ap, fmt);
	vsnprintf(w->d->plug_why, sizeof(w->d->plug_why), fmt, ap);
	va_end(ap);
}

static const char *blocks_missing(const struct mmc_kernel *k)
{
	const struct mmc_layout *l = k->layout;
	uint64_t bits;

	for (size_t i = 0; i < sizeof(block_members) / sizeof(block_members[0]); i++)
		if (!l->member[block_members[i]].found)
			return mmc_member_specs[block_members[i]].label;
	if (!l->sym_found[MMC_SYM_MEMORY_BLOCKS])
		return "memory_blocks";
	if (!l->sym_found[MMC_SYM_SECTIONS_PER_BLOCK])
		return "sections_per_block";
	if (!k->vmcoreinfo ||
	    !mmc_vmcoreinfo_number(k->vmcoreinfo, "NUMBER(SECTION_SIZE_BITS)", &bits))
		return "NUMBER(SECTION_SIZE_BITS) in VMCOREINFO";
	return NULL;
}

static bool read_member(struct plug_walk *w, uint64_t addr, enum mmc_member_id id,
			const char *what, uint64_t *v)
{
	const struct mmc_member *m = &w->k->layout->member[id];
	uint8_t buf[8] = { 0 };
	struct mmc_error *err;

	if (m->size != 1 && m->size != 2 && m->size != 4 && m->size != 8) {
		stop(w, "%s is %" PRIu32 " bytes, not a word", what, m->size);
		return false;
	}
	err = mmc_mem_read(w->k->mem, MMC_KVADDR, addr + m->offset, buf, m->size);
	if (err) {
		stop(w, "reading %s at 0x%" PRIx64 ": %s", what, addr + m->offset, err->message);
		mmc_error_destroy(err);
		return false;
	}
	*v = m->size == 8 ? mmc_le64(buf) : m->size == 4 ? mmc_le32(buf) :
	     m->size == 2 ? (uint64_t)buf[0] | (uint64_t)buf[1] << 8 : buf[0];
	return true;
}

static struct mmc_error *visit_block(void *arg, uint64_t index, uint64_t entry)
{
	struct plug_walk *w = arg;
	struct mmc_discovery *d = w->d;
	struct mmc_smemblock b = { .id = index, .kaddr = entry };
	uint64_t section, state, nid, altmap, base = 0, free_pfns = 0;

	if (w->stopped)
		return NULL;
	if (mmc_xa_is_value(entry) || (entry >> 63) == 0) {
		stop(w, "memory_blocks entry %" PRIu64 " (0x%" PRIx64 ") is not a kernel pointer",
		     index, entry);
		return NULL;
	}
	if (!read_member(w, entry, MMC_MEMBLOCK_START_SECTION, "memory_block.start_section_nr", &section) ||
	    !read_member(w, entry, MMC_MEMBLOCK_STATE, "memory_block.state", &state) ||
	    !read_member(w, entry, MMC_MEMBLOCK_NID, "memory_block.nid", &nid) ||
	    !read_member(w, entry, MMC_MEMBLOCK_ALTMAP, "memory_block.altmap", &altmap))
		return NULL;
	if (section != index * w->sections_per_block ||
	    section > (UINT64_MAX >> w->section_shift) / 2) {
		stop(w, "memory block %" PRIu64 " at 0x%" PRIx64 " says start_section_nr %" PRIu64 ", not %" PRIu64,
		     index, entry, section, index * w->sections_per_block);
		return NULL;
	}
	b.start_pfn = section << w->section_shift;
	b.end_pfn = b.start_pfn + w->pages_per_block;
	b.state = (uint32_t)state;
	b.nid = (uint32_t)nid;
	if (altmap) {
		if (!read_member(w, altmap, MMC_ALTMAP_BASE_PFN, "vmem_altmap.base_pfn", &base) ||
		    !read_member(w, altmap, MMC_ALTMAP_FREE, "vmem_altmap.free", &free_pfns))
			return NULL;
		if (base != b.start_pfn || !free_pfns || free_pfns > w->pages_per_block) {
			stop(w, "memory block %" PRIu64 "'s altmap at 0x%" PRIx64 " makes no sense: base_pfn 0x%" PRIx64 ", free %" PRIu64 " (block at pfn 0x%" PRIx64 ")",
			     index, altmap, base, free_pfns, b.start_pfn);
			return NULL;
		}
		b.flags = MMC_MEMBLOCK_SELF_HOSTED;
		b.altmap_pfns = free_pfns;
	}
	if (d->nblocks == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct mmc_smemblock *a;

		if (cap > MAX_BLOCKS) {
			stop(w, "memory_blocks holds more than %d blocks", MAX_BLOCKS);
			return NULL;
		}
		a = realloc(d->blocks, cap * sizeof(*a));
		if (!a)
			return mmc_error_nomem();
		d->blocks = a;
		w->cap = cap;
	}
	d->blocks[d->nblocks++] = b;
	return NULL;
}

/* One range per online block's self-hosted memmap pfns. */
static struct mmc_error *add_ranges(struct plug_walk *w)
{
	struct mmc_discovery *d = w->d;
	struct mmc_srange *r;
	size_t n = 0;

	for (size_t i = 0; i < d->nblocks; i++)
		n += (d->blocks[i].flags & MMC_MEMBLOCK_SELF_HOSTED) &&
		     (int64_t)d->blocks[i].state == w->mem_online;
	if (!n)
		return NULL;
	r = realloc(d->ranges, (d->nranges + n) * sizeof(*r));
	if (!r)
		return mmc_error_nomem();
	d->ranges = r;
	for (size_t i = 0; i < d->nblocks; i++) {
		const struct mmc_smemblock *b = &d->blocks[i];
		struct mmc_srange *x;

		if (!(b->flags & MMC_MEMBLOCK_SELF_HOSTED) || (int64_t)b->state != w->mem_online)
			continue;
		x = &d->ranges[d->nranges++];
		memset(x, 0, sizeof(*x));
		x->kind = MMC_RANGE_HOTPLUG;
		x->pgmap_index = MMC_NO_PGMAP;
		x->owner = (uint32_t)i;
		x->start_pfn = b->start_pfn;
		x->end_pfn = b->start_pfn + b->altmap_pfns;
		x->vmemmap_start = w->k->geom.vmemmap_base + x->start_pfn * w->k->geom.struct_page_size;
		x->reserve_start = x->reserve_end = x->start_pfn;
		/* every pfn of the range holds the memmap (memmap_init_range) */
		x->altmap_start = x->start_pfn;
		x->altmap_end = x->end_pfn;
	}
	return NULL;
}

static int cmp_block(const void *a, const void *b)
{
	const struct mmc_smemblock *x = a, *y = b;

	return x->start_pfn < y->start_pfn ? -1 : x->start_pfn > y->start_pfn;
}

struct mmc_error *mmc_discover_hotplug(struct mmc_kernel *k, struct mmc_discovery *d)
{
	struct plug_walk w = { .k = k, .d = d };
	const char *missing = blocks_missing(k);
	struct mmc_error *err;
	uint64_t bits = 0, spb = 0, page_shift;
	uint8_t buf[8];

	d->plug_state = MMC_READ_NOT;
	if (missing) {
		snprintf(d->plug_why, sizeof(d->plug_why),
			 "the layout has no %s (no CONFIG_MEMORY_HOTPLUG, or an older layout file)",
			 missing);
		return NULL;
	}
	d->plug_state = MMC_READ_DONE;
	d->plug_why[0] = 0;
	if (!mmc_layout_enum_value(k->layout, MMC_ENUM_MEMORY_BLOCK_STATE, "MEM_ONLINE",
				   &w.mem_online))
		w.mem_online = 0;	/* include/linux/memory.h: MEM_ONLINE (1 << 0) up to 6.x */
	mmc_vmcoreinfo_number(k->vmcoreinfo, "NUMBER(SECTION_SIZE_BITS)", &bits);
	err = mmc_mem_read(k->mem, MMC_KVADDR, mmc_kernel_sym(k, MMC_SYM_SECTIONS_PER_BLOCK),
			   buf, 8);
	if (err) {
		stop(&w, "reading sections_per_block at 0x%" PRIx64 ": %s",
		     mmc_kernel_sym(k, MMC_SYM_SECTIONS_PER_BLOCK), err->message);
		mmc_error_destroy(err);
		return NULL;
	}
	spb = mmc_le64(buf);
	page_shift = (uint64_t)__builtin_ctz(k->geom.page_size);
	if (bits <= page_shift || bits > 40 || !spb || spb > (1u << 20)) {
		stop(&w, "SECTION_SIZE_BITS %" PRIu64 " and sections_per_block %" PRIu64 " make no sense",
		     bits, spb);
		return NULL;
	}
	w.section_shift = bits - page_shift;
	w.sections_per_block = spb;
	w.pages_per_block = spb << w.section_shift;
	err = mmc_xarray_walk(k, mmc_kernel_sym(k, MMC_SYM_MEMORY_BLOCKS), visit_block, &w);
	if (err) {
		if (!mmc_discovery_problem_error(err))
			return err;
		stop(&w, "walking memory_blocks: %s", err->message);
		mmc_error_destroy(err);
	}
	if (d->nblocks)
		qsort(d->blocks, d->nblocks, sizeof(*d->blocks), cmp_block);
	return add_ranges(&w);
}
