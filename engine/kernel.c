// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening a kernel image and deriving its geometry.
 *
 * x86_64 address-space constants below are the architecture's ABI
 * (Documentation/arch/x86/x86_64/mm.rst), not struct layout: they are the
 * same for every kernel version this tool reads.
 */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define X86_64_START_KERNEL_MAP	0xffffffff80000000ULL
#define X86_64_MODULES_END	0xffffffffff000000ULL
#define X86_64_POISON_DELTA	0xdead000000000000ULL	/* CONFIG_ILLEGAL_POINTER_VALUE */
#define X86_64_DEFAULT_IMAGE_SIZE (1ULL << 30)
#define X86_64_VMALLOC_SIZE_L4	(32ULL << 40)	/* VMALLOC_SIZE_TB_L4 */
#define X86_64_VMALLOC_SIZE_L5	(12800ULL << 40)	/* VMALLOC_SIZE_TB_L5 */
/* Kernels without CONFIG_DYNAMIC_MEMORY_LAYOUT: arch/x86/include/asm/
 * page_64_types.h (__PAGE_OFFSET_BASE_L4/L5) and pgtable_64_types.h
 * (__VMALLOC_BASE_L4/L5, __VMEMMAP_BASE_L4/L5). */
#define X86_64_PAGE_OFFSET_BASE_L4	0xffff888000000000ULL
#define X86_64_PAGE_OFFSET_BASE_L5	0xff11000000000000ULL
#define X86_64_VMALLOC_BASE_L4		0xffffc90000000000ULL
#define X86_64_VMALLOC_BASE_L5		0xffa0000000000000ULL
#define X86_64_VMEMMAP_BASE_L4		0xffffea0000000000ULL
#define X86_64_VMEMMAP_BASE_L5		0xffd4000000000000ULL

uint64_t mmc_kernel_sym(const struct mmc_kernel *k, enum mmc_symbol_id id)
{
	return k->layout->sym[id] + k->geom.kaslr_offset;
}

struct mmc_error *mmc_kernel_read_u64(struct mmc_kernel *k, uint64_t kaddr,
				      uint64_t *value)
{
	return mmc_mem_read_u64(k->mem, MMC_KVADDR, kaddr, value);
}

static unsigned int order_base_2(uint64_t n)
{
	unsigned int shift = 0;

	while ((1ULL << shift) < n)
		shift++;
	return shift;
}

struct mmc_error *mmc_geom_flags_layout(const struct mmc_layout *layout,
					struct mmc_geom *geom)
{
	int64_t nr_zones, nr_pageflags;
	unsigned int zones_shift, nodes_shift;

	if (!mmc_layout_enum_value(layout, MMC_ENUM_ZONE_TYPE, "__MAX_NR_ZONES",
				   &nr_zones) ||
	    nr_zones <= 0 || nr_zones > 8)
		return mmc_error_create(MMC_ERR_LAYOUT, layout->source,
					"enum zone_type has no usable __MAX_NR_ZONES");
	if (!mmc_layout_enum_value(layout, MMC_ENUM_PAGEFLAGS, "__NR_PAGEFLAGS",
				   &nr_pageflags) ||
	    nr_pageflags <= 0 || nr_pageflags >= 64)
		return mmc_error_create(MMC_ERR_LAYOUT, layout->source,
					"enum pageflags has no usable __NR_PAGEFLAGS");
	/* include/linux/page-flags-layout.h: ZONES_SHIFT from MAX_NR_ZONES */
	zones_shift = nr_zones <= 1 ? 0 : order_base_2((uint64_t)nr_zones);
	nodes_shift = order_base_2(layout->max_numnodes ? layout->max_numnodes : 1);
	geom->nr_pageflags = (uint32_t)nr_pageflags;
	geom->zones_width = zones_shift;
	/*
	 * SPARSEMEM_VMEMMAP: no section bits; the node bits sit at the top
	 * when they fit beside the page flags, else the node lives elsewhere.
	 */
	if (zones_shift + nodes_shift <= 64 - (uint32_t)nr_pageflags)
		geom->nodes_width = nodes_shift;
	else
		geom->nodes_width = 0;
	/* a width-0 field gets shift 0: never shift a 64-bit value by 64 */
	geom->zones_pgshift = 64 - geom->nodes_width - geom->zones_width;
	geom->nodes_pgshift = geom->nodes_width ? 64 - geom->nodes_width : 0;
	return NULL;
}

static struct mmc_error *check_identity(struct mmc_kernel *k)
{
	const struct mmc_layout *l = k->layout;
	const char *release, *build_id;
	size_t n;

	if (l->build_id[0] && (!k->vmcoreinfo ||
			       !mmc_vmcoreinfo_get(k->vmcoreinfo, "BUILD-ID")) &&
	    asprintf(&k->identity_unchecked,
		     MMC_IDENTITY_UNCHECKED ": %s has no VMCOREINFO BUILD-ID to check %s (build-id %.16s...) against, so nothing proves that it is this kernel's layout",
		     k->dump_path, l->source, l->build_id) < 0) {
		k->identity_unchecked = NULL;
		return mmc_error_nomem();
	}
	if (!k->vmcoreinfo)
		return NULL;
	release = mmc_vmcoreinfo_get(k->vmcoreinfo, "OSRELEASE");
	if (release && l->release[0] && strcmp(release, l->release) != 0)
		return mmc_error_create(MMC_ERR_MISMATCH, k->dump_path,
					"kernel release %s does not match %s (release %s)",
					release, l->source, l->release);
	build_id = mmc_vmcoreinfo_get(k->vmcoreinfo, "BUILD-ID");
	if (build_id && l->build_id[0]) {
		/* VMCOREINFO may hold a prefix (20 bytes) of a longer id. */
		n = strlen(build_id);
		if (n > strlen(l->build_id))
			n = strlen(l->build_id);
		if (n == 0 || strncasecmp(build_id, l->build_id, n) != 0)
			return mmc_error_create(MMC_ERR_MISMATCH, k->dump_path,
						"build-id %s does not match %s (build-id %s)",
						build_id, l->source, l->build_id);
	}
	return NULL;
}

/*
 * Every SYMBOL() of VMCOREINFO the layout also knows must lie at the
 * layout's address moved by the KASLR offset: a KERNELOFFSET moved
 * together with _stext (or another kernel's layout) would otherwise put
 * the page tables and every variable somewhere else.
 */
static struct mmc_error *check_symbols(struct mmc_kernel *k)
{
	const struct mmc_layout *l = k->layout;
	char key[96];
	uint64_t v;
	size_t i;

	if (!k->vmcoreinfo)
		return NULL;
	for (i = 0; i < MMC_SYM_COUNT; i++) {
		const struct mmc_symbol_spec *sp = &mmc_symbol_specs[i];

		if (!l->sym_found[sp->id] || sp->id == MMC_SYM_STEXT)
			continue;
		snprintf(key, sizeof(key), "SYMBOL(%s)", sp->name);
		if (!mmc_vmcoreinfo_number(k->vmcoreinfo, key, &v) ||
		    v == l->sym[sp->id] + k->geom.kaslr_offset)
			continue;
		return mmc_error_create(MMC_ERR_INPUT, k->dump_path,
					"VMCOREINFO contradicts itself or %s: %s=0x%llx, but %s puts %s at 0x%llx + KERNELOFFSET 0x%llx (from KERNELOFFSET and SYMBOL(_stext)): KERNELOFFSET is wrong, or this is not the kernel's vmlinux",
					l->source, key, (unsigned long long)v, l->source,
					sp->name, (unsigned long long)l->sym[sp->id],
					(unsigned long long)k->geom.kaslr_offset);
	}
	return NULL;
}

static struct mmc_error *derive_offsets(struct mmc_kernel *k,
					const struct mmc_kernel_hints *hints)
{
	const struct mmc_layout *l = k->layout;
	struct mmc_error *err;
	uint64_t v, stext;
	bool have_offset = false;

	if (hints && hints->have_kaslr_offset) {
		k->geom.kaslr_offset = hints->kaslr_offset;
		have_offset = true;
	} else if (k->vmcoreinfo &&
		   mmc_vmcoreinfo_number(k->vmcoreinfo, "KERNELOFFSET", &v)) {
		k->geom.kaslr_offset = v;
		have_offset = true;
	}
	if (k->vmcoreinfo &&
	    mmc_vmcoreinfo_number(k->vmcoreinfo, "SYMBOL(_stext)", &stext) &&
	    l->sym_found[MMC_SYM_STEXT]) {
		if (!have_offset) {
			k->geom.kaslr_offset = stext - l->sym[MMC_SYM_STEXT];
			have_offset = true;
		} else if (stext != l->sym[MMC_SYM_STEXT] + k->geom.kaslr_offset) {
			return mmc_error_at(MMC_ERR_MISMATCH, k->dump_path, stext,
					    "_stext is here, but %s puts it at 0x%llx + KERNELOFFSET 0x%llx: not the same kernel",
					    l->source,
					    (unsigned long long)l->sym[MMC_SYM_STEXT],
					    (unsigned long long)k->geom.kaslr_offset);
		}
	}
	if (!have_offset)
		k->geom.kaslr_offset = 0;
	err = check_symbols(k);
	if (err)
		return err;

	if (hints && hints->have_phys_base)
		k->phys_base = hints->phys_base;
	else if (k->vmcoreinfo &&
		 mmc_vmcoreinfo_number(k->vmcoreinfo, "NUMBER(phys_base)", &v))
		k->phys_base = v;
	else
		return mmc_error_create(MMC_ERR_INPUT, k->dump_path,
					"no VMCOREINFO NUMBER(phys_base): cannot find the kernel page tables");
	return NULL;
}

enum text_xlat { TEXT_AT_LOAD, TEXT_ELSEWHERE, TEXT_UNREADABLE };

/*
 * Does the kernel's own _text translate, through the top-level page table
 * at top with this depth, to where the image was loaded?  Unreadable when
 * a page table on the way is not in the dump (a damaged dump: no verdict).
 */
static enum text_xlat text_translates(struct mmc_kernel *k, uint64_t top,
				      unsigned int levels)
{
	uint64_t text = mmc_kernel_sym(k, MMC_SYM_TEXT);
	uint64_t want = text - X86_64_START_KERNEL_MAP + k->phys_base;
	struct mmc_pgtable *pgt = NULL;
	struct mmc_error *err;
	uint64_t pa = 0, psize = 0;
	bool mapped = false, nodata;

	err = mmc_pgtable_create(k->mem, top, levels, &pgt);
	if (!err)
		err = mmc_pgtable_translate(pgt, text, &mapped, &pa, &psize);
	mmc_pgtable_destroy(pgt);
	if (err) {
		nodata = err->code == MMC_ERR_NODATA;
		mmc_error_destroy(err);
		return nodata ? TEXT_UNREADABLE : TEXT_ELSEWHERE;
	}
	return mapped && pa == want ? TEXT_AT_LOAD : TEXT_ELSEWHERE;
}

/*
 * VMCOREINFO says where the kernel is (phys_base, KERNELOFFSET) and how it
 * pages (pgtable_l5_enabled); the dump's page tables must agree before a
 * walk is built on them, or every struct page would come out unmapped and
 * the image empty.  _text translating to its load address with the stated
 * depth is the proof; when it does not, the key that is wrong is named:
 * the depth if the other one translates, else phys_base (KERNELOFFSET and
 * _stext were checked against the other SYMBOL()s before).
 */
static struct mmc_error *contradiction(struct mmc_kernel *k, uint64_t top,
				       unsigned int levels, bool stated)
{
	uint64_t text = mmc_kernel_sym(k, MMC_SYM_TEXT);
	uint64_t want = text - X86_64_START_KERNEL_MAP + k->phys_base;
	unsigned int other = levels == 4 ? 5 : 4;

	if (stated && text_translates(k, top, other) == TEXT_AT_LOAD)
		return mmc_error_create(MMC_ERR_INPUT, k->dump_path,
					"VMCOREINFO contradicts the dump: NUMBER(pgtable_l5_enabled)=%u, but the kernel's _text 0x%llx translates to its load address 0x%llx with %u-level paging, not %u-level",
					levels == 5, (unsigned long long)text,
					(unsigned long long)want, other, levels);
	return mmc_error_at(MMC_ERR_INPUT, k->dump_path, top,
			    "VMCOREINFO contradicts the dump: with NUMBER(phys_base)=0x%llx the top-level page table is here, and the kernel's _text 0x%llx does not translate through it to its load address 0x%llx with 4- or 5-level paging: NUMBER(phys_base) is wrong (or KERNELOFFSET, or this is not the kernel's vmlinux)",
			    (unsigned long long)k->phys_base, (unsigned long long)text,
			    (unsigned long long)want);
}

/*
 * The paging depth: VMCOREINFO's NUMBER(pgtable_l5_enabled) when the kernel
 * wrote it (4.17+), checked against the page tables, else the depth under
 * which the kernel's own _text translates to where the image was loaded
 * (crash decides the same way from the page tables when VMCOREINFO is
 * silent).
 */
static struct mmc_error *decide_levels(struct mmc_kernel *k, uint64_t top)
{
	struct mmc_geom *g = &k->geom;
	uint64_t l5, text = mmc_kernel_sym(k, MMC_SYM_TEXT);
	uint64_t want = text - X86_64_START_KERNEL_MAP + k->phys_base;
	bool unreadable = false;
	unsigned int levels;

	if (k->vmcoreinfo &&
	    mmc_vmcoreinfo_number(k->vmcoreinfo, "NUMBER(pgtable_l5_enabled)", &l5)) {
		g->pgtable_levels = l5 ? 5 : 4;
		g->levels_origin = MMC_LEVELS_VMCOREINFO;
		switch (text_translates(k, top, g->pgtable_levels)) {
		case TEXT_ELSEWHERE:
			return contradiction(k, top, g->pgtable_levels, true);
		case TEXT_UNREADABLE:	/* damage: the walk says what it cannot read */
		case TEXT_AT_LOAD:
			break;
		}
		return NULL;
	}
	for (levels = 4; levels <= 5; levels++) {
		enum text_xlat t = text_translates(k, top, levels);

		if (t == TEXT_AT_LOAD) {
			g->pgtable_levels = levels;
			g->levels_origin = MMC_LEVELS_PAGE_TABLES;
			return NULL;
		}
		unreadable |= t == TEXT_UNREADABLE;
	}
	if (!unreadable)
		return contradiction(k, top, 4, false);
	return mmc_error_at(MMC_ERR_INPUT, k->dump_path, top,
			    "no VMCOREINFO NUMBER(pgtable_l5_enabled), and _text 0x%llx translates to its load address 0x%llx neither with 4- nor with 5-level paging from the top-level page table here: wrong vmlinux or phys_base?",
			    (unsigned long long)text, (unsigned long long)want);
}

/*
 * vmemmap_base, page_offset_base, vmalloc_base: the kernel's variables when
 * it has them (CONFIG_DYNAMIC_MEMORY_LAYOUT), else the fixed bases it was
 * compiled with, which depend only on the paging depth.
 */
static struct mmc_error *read_bases(struct mmc_kernel *k)
{
	const struct mmc_layout *l = k->layout;
	struct mmc_geom *g = &k->geom;
	struct mmc_error *err;
	int found = l->sym_found[MMC_SYM_VMEMMAP_BASE] +
		    l->sym_found[MMC_SYM_PAGE_OFFSET_BASE] +
		    l->sym_found[MMC_SYM_VMALLOC_BASE];

	if (found == 0) {
		bool l5 = g->pgtable_levels == 5;

		g->vmemmap_base = l5 ? X86_64_VMEMMAP_BASE_L5 : X86_64_VMEMMAP_BASE_L4;
		g->page_offset_base = l5 ? X86_64_PAGE_OFFSET_BASE_L5 :
					   X86_64_PAGE_OFFSET_BASE_L4;
		g->vmalloc_base = l5 ? X86_64_VMALLOC_BASE_L5 : X86_64_VMALLOC_BASE_L4;
		g->base_origin = MMC_BASES_FIXED;
		return NULL;
	}
	if (found != 3)
		return mmc_error_create(MMC_ERR_LAYOUT, l->source,
					"has %s%s%s but not all three of vmemmap_base, page_offset_base, vmalloc_base (CONFIG_DYNAMIC_MEMORY_LAYOUT defines all of them)",
					l->sym_found[MMC_SYM_VMEMMAP_BASE] ? "vmemmap_base " : "",
					l->sym_found[MMC_SYM_PAGE_OFFSET_BASE] ? "page_offset_base " : "",
					l->sym_found[MMC_SYM_VMALLOC_BASE] ? "vmalloc_base " : "");
	err = mmc_kernel_read_u64(k, mmc_kernel_sym(k, MMC_SYM_VMEMMAP_BASE),
				  &g->vmemmap_base);
	if (!err)
		err = mmc_kernel_read_u64(k, mmc_kernel_sym(k, MMC_SYM_PAGE_OFFSET_BASE),
					  &g->page_offset_base);
	if (!err)
		err = mmc_kernel_read_u64(k, mmc_kernel_sym(k, MMC_SYM_VMALLOC_BASE),
					  &g->vmalloc_base);
	if (err)
		return mmc_error_prefix(err, "reading vmemmap_base/page_offset_base/vmalloc_base");
	g->base_origin = MMC_BASES_VARIABLES;
	return NULL;
}

/*
 * Each region the base variables start must be canonical end to end, or every struct
 * page address the walk forms from vmemmap_base would be a bad pointer
 * (a damaged vmemmap_base: one error here, not one per vmemmap page).
 */
static struct mmc_error *check_bases(struct mmc_kernel *k)
{
	const struct mmc_geom *g = &k->geom;
	const struct {
		const char *name;
		enum mmc_symbol_id sym;
		uint64_t start, end;
	} region[] = {
		{ "vmemmap_base", MMC_SYM_VMEMMAP_BASE, g->vmemmap_base, g->vmemmap_end },
		{ "page_offset_base", MMC_SYM_PAGE_OFFSET_BASE, g->page_offset_base,
		  g->direct_map_end },
		{ "vmalloc_base", MMC_SYM_VMALLOC_BASE, g->vmalloc_base, g->vmalloc_end },
	};

	if (g->base_origin != MMC_BASES_VARIABLES)
		return NULL;	/* the kernel's own constants */
	for (size_t i = 0; i < sizeof(region) / sizeof(region[0]); i++) {
		uint64_t s = region[i].start, e = region[i].end;

		if (e > s && mmc_va_canonical(g->pgtable_levels, s) &&
		    mmc_va_canonical(g->pgtable_levels, e - 1))
			continue;
		return mmc_error_at(MMC_ERR_CORRUPT, k->dump_path,
				    mmc_kernel_sym(k, region[i].sym),
				    "%s is 0x%llx, so its region [0x%llx, 0x%llx) is not canonical for %u-level paging: a damaged variable, or the wrong vmlinux",
				    region[i].name, (unsigned long long)s,
				    (unsigned long long)s, (unsigned long long)e,
				    g->pgtable_levels);
	}
	return NULL;
}

static struct mmc_error *read_geometry(struct mmc_kernel *k)
{
	struct mmc_geom *g = &k->geom;
	struct mmc_error *err;
	uint64_t image_size = X86_64_DEFAULT_IMAGE_SIZE, physbits = 46;
	uint64_t top;

	g->page_size = (uint32_t)k->mem->page_size;
	g->struct_page_size = (uint32_t)k->layout->size[MMC_SIZE_PAGE];
	if (g->struct_page_size == 0 || g->struct_page_size % 8 ||
	    g->struct_page_size / 8 > MMC_MAX_SLOTS)
		return mmc_error_create(MMC_ERR_LAYOUT, k->layout->source,
					"unsupported sizeof(struct page) = %u",
					g->struct_page_size);
	if (k->vmcoreinfo) {
		mmc_vmcoreinfo_number(k->vmcoreinfo, "NUMBER(KERNEL_IMAGE_SIZE)", &image_size);
		mmc_vmcoreinfo_number(k->vmcoreinfo, "NUMBER(MAX_PHYSMEM_BITS)", &physbits);
	}
	/*
	 * __pa_symbol(x) = x - __START_KERNEL_map + phys_base, with x the
	 * relocated address; phys_base already accounts for where the image
	 * was loaded, and KASLR moves the virtual address by the same offset
	 * the kernel subtracted from phys_base.
	 */
	top = mmc_kernel_sym(k, MMC_SYM_INIT_TOP_PGT) - X86_64_START_KERNEL_MAP +
	      k->phys_base;
	err = decide_levels(k, top);
	if (!err)
		err = read_bases(k);
	if (err)
		return err;
	if (physbits < 32 || physbits > 52)
		physbits = g->pgtable_levels == 5 ? 52 : 46;
	g->vmemmap_end = g->vmemmap_base +
		((1ULL << physbits) / g->page_size) * g->struct_page_size;
	g->direct_map_end = g->page_offset_base + (1ULL << physbits);
	g->vmalloc_end = g->vmalloc_base + (g->pgtable_levels == 5 ?
					     X86_64_VMALLOC_SIZE_L5 :
					     X86_64_VMALLOC_SIZE_L4);
	g->kimage_start = mmc_kernel_sym(k, MMC_SYM_TEXT);
	g->kimage_end = mmc_kernel_sym(k, MMC_SYM_END);
	g->module_start = X86_64_START_KERNEL_MAP + image_size;
	g->module_end = X86_64_MODULES_END;
	g->poison_pointer_delta = X86_64_POISON_DELTA;
	if ((g->vmemmap_base >> 63) == 0 || (g->page_offset_base >> 63) == 0)
		return mmc_error_create(MMC_ERR_MISMATCH, k->dump_path,
					"vmemmap_base 0x%llx / page_offset_base 0x%llx are not kernel addresses: wrong vmlinux for this dump?",
					(unsigned long long)g->vmemmap_base,
					(unsigned long long)g->page_offset_base);
	err = check_bases(k);
	if (!err)
		err = mmc_geom_flags_layout(k->layout, g);
	if (err)
		return err;
	return mmc_pgtable_create(k->mem, top, g->pgtable_levels, &k->pgt);
}

struct mmc_error *mmc_kernel_create(struct mmc_layout *layout, struct mmc_mem *mem,
				    const struct mmc_kernel_hints *hints,
				    struct mmc_kernel **out)
{
	struct mmc_kernel *k;
	struct mmc_error *err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		mmc_layout_destroy(layout);
		mmc_mem_destroy(mem);
		return mmc_error_nomem();
	}
	k->layout = layout;
	k->mem = mem;
	k->dump_path = strdup(mem->path ? mem->path : "memory");
	if (!k->dump_path) {
		err = mmc_error_nomem();
		goto fail;
	}
	err = mmc_layout_check(layout);
	if (err)
		goto fail;
	if (mem->vmcoreinfo) {
		err = mmc_vmcoreinfo_parse(mem->vmcoreinfo, mem->path, &k->vmcoreinfo);
		if (err)
			goto fail;
	}
	err = check_identity(k);
	if (!err)
		err = derive_offsets(k, hints);
	if (!err)
		err = read_geometry(k);
	if (err)
		goto fail;
	*out = k;
	return NULL;
fail:
	mmc_kernel_destroy(k);
	return err;
}

static bool is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf = false;

	if (fd < 0)
		return false;
	if (read(fd, magic, 4) == 4)
		elf = memcmp(magic, "\177ELF", 4) == 0;
	close(fd);
	return elf;
}

struct mmc_error *mmc_kernel_open(const char *kernel_path, const char *dump,
				  bool live, struct mmc_kernel **out)
{
	struct mmc_layout *layout = NULL;
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;

	*out = NULL;
	if (access(kernel_path, R_OK) != 0)
		return mmc_error_os(errno, kernel_path, "open");
	if (is_elf(kernel_path))
		err = mmc_layout_from_dwarf(kernel_path, &layout);
	else
		err = mmc_layout_load(kernel_path, &layout);
	if (err)
		return err;
	if (live)
		err = mmc_mem_open_kcore(dump, &mem);
	else
		err = mmc_mem_open_kdump(dump, &mem);
	if (err) {
		mmc_layout_destroy(layout);
		return err;
	}
	err = mmc_kernel_create(layout, mem, NULL, out);
	if (!err) {
		(*out)->kernel_path = strdup(kernel_path);
		if (!(*out)->kernel_path) {
			mmc_kernel_destroy(*out);
			*out = NULL;
			err = mmc_error_nomem();
		}
	}
	return err;
}

void mmc_kernel_destroy(struct mmc_kernel *k)
{
	if (!k)
		return;
	mmc_pgtable_destroy(k->pgt);
	mmc_vmcoreinfo_destroy(k->vmcoreinfo);
	free(k->identity_unchecked);
	mmc_mem_destroy(k->mem);
	mmc_layout_destroy(k->layout);
	free(k->kernel_path);
	free(k->dump_path);
	free(k);
}
