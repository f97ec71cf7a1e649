/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One kernel image: its layout, its memory, and the geometry derived from
 * both (KASLR offset, vmemmap_base, direct map, page->flags layout).
 * The engine holds two of these at once to compare a base and a patched
 * kernel, so everything lives here, nothing in globals.
 */
#ifndef MMC_KERNEL_H
#define MMC_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "mem.h"
#include "mmc_error.h"
#include "model.h"
#include "pgtable.h"
#include "vmcoreinfo.h"

struct mmc_kernel {
	struct mmc_layout *layout;	/* owned */
	struct mmc_mem *mem;		/* owned */
	struct mmc_vmcoreinfo *vmcoreinfo;	/* owned; NULL if the source has none */
	struct mmc_pgtable *pgt;	/* owned */
	struct mmc_geom geom;
	uint64_t phys_base;
	/*
	 * Why nothing proved that the layout is this kernel's (the dump's
	 * VMCOREINFO has no BUILD-ID to check the layout's against), or
	 * NULL.  A walk records it as a discovery problem: the image cannot
	 * be complete.  Starts with MMC_IDENTITY_UNCHECKED.
	 */
	char *identity_unchecked;
	char *kernel_path;		/* vmlinux or saved layout */
	char *dump_path;
};

#define MMC_IDENTITY_UNCHECKED "build-id not checked"

/* Where phys_base/KASLR come from when the memory source has no VMCOREINFO
 * (crash sessions without it): the front end knows them. */
struct mmc_kernel_hints {
	bool have_kaslr_offset;
	uint64_t kaslr_offset;
	bool have_phys_base;
	uint64_t phys_base;
};

/*
 * Take ownership of layout and mem (also on failure).  Checks that the
 * layout is complete and matches the memory's VMCOREINFO (OSRELEASE,
 * BUILD-ID, _stext), derives the geometry and sets up the page-table walk.
 */
struct mmc_error *mmc_kernel_create(struct mmc_layout *layout, struct mmc_mem *mem,
				    const struct mmc_kernel_hints *hints,
				    struct mmc_kernel **out);

/*
 * kernel_path: a vmlinux with DWARF or a saved layout file (told apart by
 * content); dump: a vmcore in any libkdumpfile format, or "/proc/kcore"
 * (or any kcore-format file when live is true).
 */
struct mmc_error *mmc_kernel_open(const char *kernel_path, const char *dump,
				  bool live, struct mmc_kernel **out);
void mmc_kernel_destroy(struct mmc_kernel *k);

/* Relocated address of a symbol (KASLR applied). */
uint64_t mmc_kernel_sym(const struct mmc_kernel *k, enum mmc_symbol_id id);
struct mmc_error *mmc_kernel_read_u64(struct mmc_kernel *k, uint64_t kaddr,
				      uint64_t *value);
/* Fill the geometry's flags layout from enums (shared with tests). */
struct mmc_error *mmc_geom_flags_layout(const struct mmc_layout *layout,
					struct mmc_geom *geom);

#endif
