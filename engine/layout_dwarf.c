// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF layout provider: resolves mmc_member_specs[] and friends from a
 * vmlinux with libdw, and symbols, release and build-id from its ELF.
 *
 * A Debian debug vmlinux has thousands of CUs and ~170 MB of .debug_info and
 * no .debug_names (gcc does not emit one, and libdw 0.188 has no public
 * reader for it anyway).  So the lookup walks only the top-level DIEs of each
 * CU (siblings are skipped via DW_AT_sibling, which gcc emits) and stops at
 * the first CU after which every wanted struct and enum has a definition.
 * CUs that define the device-memory types (mm/memremap.c, mm/mm_init.c) are
 * tried first, which usually ends the search after a handful of CUs.
 */
#include "outfile.h"
#include "layout.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The struct types the member specs name, in one table for the CU scan. */
static const char *const wanted_structs[] = {
	"page", "folio", "dev_pagemap", "vmem_altmap", "range", "xarray",
	"xa_node",
	/* the device-dax chain: optional, the scan never goes on for them */
	"list_head", "super_block", "inode", "dax_device", "dev_dax",
	"dev_dax_range",
	/* HugeTLB pools and memory blocks: optional too */
	"hstate", "memory_block",
};
#define NR_STRUCTS (sizeof(wanted_structs) / sizeof(wanted_structs[0]))
#define NR_REQUIRED_STRUCTS 7

/*
 * CUs that are known to use every device-memory type, and the dax core
 * (super.c defines struct dax_device, bus.c uses struct dev_dax): scanned
 * first.
 */
static const char *const preferred_cus[] = {
	"mm/memremap.c", "mm/mm_init.c", "mm/page_alloc.c",
	"drivers/dax/super.c", "drivers/dax/bus.c",
	"mm/hugetlb.c", "drivers/base/memory.c",
};
#define NR_PREFERRED (sizeof(preferred_cus) / sizeof(preferred_cus[0]))

struct dwarf_ctx {
	const char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_Die type[NR_STRUCTS];
	bool type_found[NR_STRUCTS];
	Dwarf_Die enum_die[MMC_ENUM_COUNT];
	bool enum_found[MMC_ENUM_COUNT];
	size_t nr_missing;
	size_t nr_required_missing;	/* of them not optional */
};

static int struct_index(const char *type)
{
	for (size_t i = 0; i < NR_STRUCTS; i++)
		if (!strcmp(type, wanted_structs[i]))
			return (int)i;
	return -1;
}

/* Record wanted definitions among the top-level DIEs of one CU. */
static void scan_cu(struct dwarf_ctx *ctx, Dwarf_Die *cudie)
{
	Dwarf_Die die;
	const char *name;
	int tag, i;

	if (dwarf_child(cudie, &die) != 0)
		return;
	do {
		tag = dwarf_tag(&die);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_enumeration_type)
			continue;
		if (!dwarf_hasattr(&die, DW_AT_name) ||
		    dwarf_hasattr(&die, DW_AT_declaration))
			continue;
		name = dwarf_diename(&die);
		if (!name)
			continue;
		if (tag == DW_TAG_structure_type) {
			i = struct_index(name);
			if (i < 0 || ctx->type_found[i])
				continue;
			ctx->type[i] = die;
			ctx->type_found[i] = true;
			ctx->nr_missing--;
			ctx->nr_required_missing -= i < NR_REQUIRED_STRUCTS;
		} else {
			for (i = 0; i < MMC_ENUM_COUNT; i++) {
				if (ctx->enum_found[i] ||
				    strcmp(name, mmc_enum_specs[i].type))
					continue;
				ctx->enum_die[i] = die;
				ctx->enum_found[i] = true;
				ctx->nr_missing--;
				ctx->nr_required_missing -= !mmc_enum_specs[i].optional;
			}
		}
	} while (ctx->nr_missing && dwarf_siblingof(&die, &die) == 0);
}

static bool cu_is_preferred(Dwarf_Die *cudie)
{
	const char *name = dwarf_diename(cudie);
	size_t n, m;

	if (!name)
		return false;
	n = strlen(name);
	for (size_t i = 0; i < NR_PREFERRED; i++) {
		m = strlen(preferred_cus[i]);
		/* Absolute or relative: "/build/.../mm/memremap.c". */
		if (n >= m && !strcmp(name + n - m, preferred_cus[i]) &&
		    (n == m || name[n - m - 1] == '/'))
			return true;
	}
	return false;
}

static void find_types(struct dwarf_ctx *ctx)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;

	ctx->nr_missing = NR_STRUCTS + MMC_ENUM_COUNT;
	ctx->nr_required_missing = NR_REQUIRED_STRUCTS;
	for (int i = 0; i < MMC_ENUM_COUNT; i++)
		ctx->nr_required_missing += !mmc_enum_specs[i].optional;
	/* Pass 1 reads only unit headers and CU names: cheap. */
	for (; dwarf_get_units(ctx->dw, cu, &next, &version, &unit_type,
			       &cudie, NULL) == 0 && ctx->nr_missing; cu = next)
		if (unit_type == DW_UT_compile && cu_is_preferred(&cudie))
			scan_cu(ctx, &cudie);
	/* The rest only while a required type is missing. */
	for (cu = NULL; ctx->nr_required_missing &&
	     dwarf_get_units(ctx->dw, cu, &next, &version, &unit_type, &cudie,
			     NULL) == 0; cu = next)
		/* Type units too, for vmlinuxes built with -fdebug-types-section. */
		if (unit_type == DW_UT_compile || unit_type == DW_UT_partial ||
		    unit_type == DW_UT_type)
			scan_cu(ctx, &cudie);
}

/* Follow typedefs and qualifiers to the type that has the layout. */
static bool strip_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die cur = *die;
	int depth = 0;

	for (;;) {
		int tag = dwarf_tag(&cur);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			break;
		/* A cycle would be corrupt DWARF: never loop forever. */
		if (++depth > 64 || !dwarf_attr_integrate(&cur, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, &cur))
			return false;
	}
	*out = cur;
	return true;
}

static bool member_type(Dwarf_Die *member, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	Dwarf_Die raw;

	if (!dwarf_attr_integrate(member, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &raw))
		return false;
	return strip_type(&raw, type);
}

/* DW_AT_data_member_location: a constant, or DWARF 2's plus_uconst. */
static bool member_offset(Dwarf_Die *member, Dwarf_Word *offset)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(member, DW_AT_data_member_location, &attr)) {
		*offset = 0;	/* union members */
		return true;
	}
	if (dwarf_formudata(&attr, offset) == 0)
		return true;
	if (dwarf_getlocation(&attr, &expr, &len) == 0 && len == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*offset = expr[0].number;
		return true;
	}
	return false;
}

static bool is_aggregate(Dwarf_Die *type)
{
	int tag = dwarf_tag(type);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

/*
 * Find member `name` in struct/union `agg`, looking through anonymous
 * struct and union members as C does; offsets accumulate.
 */
static bool find_member(Dwarf_Die *agg, const char *name, size_t name_len,
			int depth, Dwarf_Die *found, Dwarf_Word *offset)
{
	Dwarf_Die child, type;
	Dwarf_Word off;
	const char *n;

	if (depth > 16 || dwarf_child(agg, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		n = dwarf_diename(&child);
		if (n && strlen(n) == name_len && !strncmp(n, name, name_len)) {
			if (!member_offset(&child, &off))
				return false;
			*found = child;
			*offset = off;
			return true;
		}
		if (n || !member_type(&child, &type) || !is_aggregate(&type))
			continue;
		if (!member_offset(&child, &off))
			continue;
		if (find_member(&type, name, name_len, depth + 1, found, offset)) {
			*offset += off;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Length of the first dimension of an array type, 0 if unknown/flexible. */
static uint32_t array_count(Dwarf_Die *array)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die sub;

	if (dwarf_child(array, &sub) != 0)
		return 0;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&sub, DW_AT_count, &attr) &&
		    dwarf_formudata(&attr, &v) == 0)
			return v > UINT32_MAX ? 0 : (uint32_t)v;
		if (dwarf_attr(&sub, DW_AT_upper_bound, &attr) &&
		    dwarf_formudata(&attr, &v) == 0 && v < UINT32_MAX)
			return (uint32_t)v + 1;
		return 0;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return 0;
}

/* Resolve a dotted member path ("flags.f") in `agg`. */
static bool resolve_path(Dwarf_Die *agg, const char *path, struct mmc_member *m)
{
	Dwarf_Die cur = *agg, member, type;
	Dwarf_Word total = 0, off, size;
	const char *p = path, *dot;
	size_t len;

	for (;;) {
		dot = strchr(p, '.');
		len = dot ? (size_t)(dot - p) : strlen(p);
		if (!is_aggregate(&cur) ||
		    !find_member(&cur, p, len, 0, &member, &off))
			return false;
		total += off;
		if (!member_type(&member, &type))
			return false;
		if (!dot)
			break;
		cur = type;
		p = dot + 1;
	}
	if (dwarf_hasattr(&member, DW_AT_bit_size) ||
	    dwarf_aggregate_size(&type, &size) != 0)
		return false;
	if (total > UINT32_MAX || size > UINT32_MAX)
		return false;
	m->found = true;
	m->offset = (uint32_t)total;
	m->size = (uint32_t)size;
	m->count = dwarf_tag(&type) == DW_TAG_array_type ? array_count(&type) : 0;
	snprintf(m->name, sizeof(m->name), "%s", path);
	return true;
}

static void resolve_members(struct dwarf_ctx *ctx, struct mmc_layout *l)
{
	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		const struct mmc_member_spec *s = &mmc_member_specs[i];
		int t = struct_index(s->type);

		if (t < 0 || !ctx->type_found[t])
			continue;
		for (int c = 0; c < 4 && s->candidates[c]; c++)
			if (resolve_path(&ctx->type[t], s->candidates[c],
					 &l->member[i]))
				break;
	}
	for (int i = 0; i < MMC_SIZE_COUNT; i++) {
		int t = struct_index(mmc_size_specs[i].type);
		Dwarf_Word size;

		/* a declaration alone (struct hstate without
		 * CONFIG_HUGETLB_PAGE) has no size: not found, as crash says */
		if (t >= 0 && ctx->type_found[t] &&
		    dwarf_aggregate_size(&ctx->type[t], &size) == 0 && size > 0) {
			l->size[i] = size;
			l->size_found[i] = true;
		}
	}
}

/* Is the enum's underlying type unsigned?  Decides how data1..8 read. */
static bool enum_is_unsigned(Dwarf_Die *e)
{
	Dwarf_Attribute attr;
	Dwarf_Die base;
	Dwarf_Word enc;

	if (!dwarf_attr(e, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &base) ||
	    !strip_type(&base, &base) ||
	    !dwarf_attr(&base, DW_AT_encoding, &attr) ||
	    dwarf_formudata(&attr, &enc) != 0)
		return false;
	return enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char ||
	       enc == DW_ATE_boolean;
}

static struct mmc_error *resolve_enums(struct dwarf_ctx *ctx,
				       struct mmc_layout *l)
{
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		Dwarf_Attribute attr;
		Dwarf_Die child;
		bool is_unsigned;

		if (!ctx->enum_found[i] || dwarf_child(&ctx->enum_die[i], &child))
			continue;
		is_unsigned = enum_is_unsigned(&ctx->enum_die[i]);
		do {
			const char *name = dwarf_diename(&child);
			struct mmc_error *err;
			Dwarf_Sword sv;
			Dwarf_Word uv;
			int64_t value;
			int form;

			if (dwarf_tag(&child) != DW_TAG_enumerator || !name ||
			    !dwarf_attr(&child, DW_AT_const_value, &attr))
				continue;
			form = dwarf_whatform(&attr);
			if (form == DW_FORM_udata ||
			    (is_unsigned && form != DW_FORM_sdata)) {
				if (dwarf_formudata(&attr, &uv) != 0)
					goto bad;
				value = (int64_t)uv;
			} else {
				if (dwarf_formsdata(&attr, &sv) != 0)
					goto bad;
				value = sv;
			}
			err = mmc_layout_enum_add(l, i, name, value);
			if (err)
				return err;
			continue;
bad:
			return mmc_error_create(MMC_ERR_INPUT, ctx->path,
						"enum %s: enumerator %s: %s",
						mmc_enum_specs[i].type, name,
						dwarf_errmsg(-1));
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return NULL;
}

/* Bytes of the section holding link-time address `addr`, or NULL. */
static const char *section_bytes(Elf *elf, size_t shndx, GElf_Addr addr,
				 size_t *avail)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr shdr;
	Elf_Data *data;

	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
	    addr < shdr.sh_addr || addr - shdr.sh_addr >= shdr.sh_size)
		return NULL;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || addr - shdr.sh_addr >= data->d_size)
		return NULL;
	*avail = data->d_size - (addr - shdr.sh_addr);
	return (const char *)data->d_buf + (addr - shdr.sh_addr);
}

/* "Linux version 6.12.117 (...)": the release is the third word. */
static void release_from_banner(Elf *elf, const GElf_Sym *sym,
				struct mmc_layout *l)
{
	static const char prefix[] = "Linux version ";
	const char *s;
	size_t avail, n = 0;

	s = section_bytes(elf, sym->st_shndx, sym->st_value, &avail);
	if (!s || avail < sizeof(prefix) ||
	    strncmp(s, prefix, sizeof(prefix) - 1))
		return;
	s += sizeof(prefix) - 1;
	avail -= sizeof(prefix) - 1;
	while (n < avail && n < sizeof(l->release) - 1 && s[n] &&
	       s[n] != ' ' && s[n] != '\n')
		n++;
	memcpy(l->release, s, n);
	l->release[n] = '\0';
}

static struct mmc_error *read_symbols(struct dwarf_ctx *ctx,
				      struct mmc_layout *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	bool have_symtab = false;
	bool sym_global[MMC_SYM_COUNT] = { false };

	while ((scn = elf_nextscn(ctx->elf, scn))) {
		Elf_Data *data;
		size_t n;

		/* .symtab, not DWARF: DWARF has no _text/_end and no sizes. */
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		have_symtab = true;
		data = elf_getdata(scn, NULL);
		if (!data || !shdr.sh_entsize)
			continue;
		n = data->d_size / shdr.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(ctx->elf, shdr.sh_link, sym.st_name);
			if (!name || !name[0])
				continue;
			if (!l->release[0] && !strcmp(name, "linux_banner")) {
				release_from_banner(ctx->elf, &sym, l);
				continue;
			}
			for (int s = 0; s < MMC_SYM_COUNT; s++) {
				bool global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;

				/*
				 * pgmap_array is static, so locals count; a
				 * global of the same name still wins over a
				 * file-local one that happens to share it.
				 */
				if ((l->sym_found[s] && (sym_global[s] || !global)) ||
				    strcmp(name, mmc_symbol_specs[s].name))
					continue;
				l->sym[s] = sym.st_value;
				l->sym_found[s] = true;
				sym_global[s] = global;
				/* node_data[MAX_NUMNODES] of pointers */
				if (s == MMC_SYM_NODE_DATA && sym.st_size >= 8 &&
				    sym.st_size / 8 <= UINT32_MAX)
					l->max_numnodes = (uint32_t)(sym.st_size / 8);
			}
		}
	}
	if (!have_symtab)
		return mmc_error_create(MMC_ERR_INPUT, ctx->path,
					"no .symtab: a stripped vmlinux cannot give symbol addresses");
	return NULL;
}

static void read_build_id(struct dwarf_ctx *ctx, struct mmc_layout *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(ctx->elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nhdr;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nhdr, &name_off,
					   &desc_off)) > 0) {
			const char *name = (const char *)data->d_buf + name_off;
			const unsigned char *desc =
				(const unsigned char *)data->d_buf + desc_off;

			if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
			    memcmp(name, "GNU", 4) || !nhdr.n_descsz ||
			    nhdr.n_descsz * 2 >= sizeof(l->build_id))
				continue;
			for (size_t i = 0; i < nhdr.n_descsz; i++)
				snprintf(l->build_id + 2 * i, 3, "%02x", desc[i]);
			return;
		}
	}
}

struct mmc_error *mmc_layout_from_dwarf(const char *vmlinux_path,
					struct mmc_layout **out)
{
	struct dwarf_ctx ctx = { .path = vmlinux_path, .fd = -1 };
	struct mmc_layout *l = NULL;
	struct mmc_error *err = NULL;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return mmc_error_create(MMC_ERR_INTERNAL, vmlinux_path,
					"elf_version: %s", elf_errmsg(-1));
	err = mmc_infile_open(vmlinux_path, &ctx.fd);
	if (err)
		return err;
	ctx.elf = elf_begin(ctx.fd, ELF_C_READ_MMAP, NULL);
	if (!ctx.elf || elf_kind(ctx.elf) != ELF_K_ELF) {
		err = mmc_error_create(MMC_ERR_INPUT, vmlinux_path,
				       "not an ELF file%s%s",
				       ctx.elf ? "" : ": elf_begin: ",
				       ctx.elf ? "" : elf_errmsg(-1));
		goto out;
	}
	ctx.dw = dwarf_begin_elf(ctx.elf, DWARF_C_READ, NULL);
	if (!ctx.dw) {
		err = mmc_error_create(MMC_ERR_INPUT, vmlinux_path,
				       "no DWARF debug info (need a debug vmlinux, e.g. CONFIG_DEBUG_INFO_DWARF5 or Debian's -dbg package): %s",
				       dwarf_errmsg(-1));
		goto out;
	}
	l = mmc_layout_create();
	if (!l) {
		err = mmc_error_nomem();
		goto out;
	}
	snprintf(l->source, sizeof(l->source), "%s", vmlinux_path);
	find_types(&ctx);
	resolve_members(&ctx, l);
	err = resolve_enums(&ctx, l);
	if (err)
		goto out;
	err = read_symbols(&ctx, l);
	if (err)
		goto out;
	read_build_id(&ctx, l);
	/* A layout handed out is a usable one: name everything missing now. */
	err = mmc_layout_check(l);
	if (err)
		goto out;
	*out = l;
	l = NULL;
out:
	mmc_layout_destroy(l);
	if (ctx.dw)
		dwarf_end(ctx.dw);
	if (ctx.elf)
		elf_end(ctx.elf);
	close(ctx.fd);
	return err;
}
