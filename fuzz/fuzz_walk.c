// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: kernel geometry, discovery (the xarray walker) and the
 * windowed walk (the page-table walker, normaliser, snapshot builder) over
 * a memory source the input corrupts.  (Lint and diff of odd snapshots:
 * fuzz_snapshot.c.)
 *
 * The memory is a synthetic kernel image (tests/unit/synth_kernel.h: page
 * tables, kernel variables, pgmap_array with its xa_node, two dev_pagemaps,
 * the struct pages of an order-0 and a 2 MiB compound range), 4- or 5-level,
 * built once.  Byte 0: bit 0 picks the 5-level image.  The input is a list of 12-byte patches, each an 8-byte value
 * written at an offset in one of the regions that hold those structures, or
 * a page made unreadable; so mutations explore corrupt kernel state, not
 * random bytes nobody reads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "synth_kernel.h"
#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PATCHES 64

struct seg { uint64_t vaddr, paddr, size; const uint8_t *data; };

struct image {
	uint8_t *file;
	struct seg segs[4];
	size_t nsegs;
	char *vmcoreinfo;
	struct mmc_layout *layout;
};

struct patch { uint64_t pa; uint64_t value; bool drop; };

struct fmem {
	const struct image *img;
	const struct patch *p;
	size_t np;
};

static struct image images[2];

/* The regions of synth_kernel.h's RAM that hold what the walk reads. */
static const uint64_t region_base[8] = {
	1 << 20,		/* page tables */
	(1 << 20) + (1 << 16),
	2 << 20,		/* dev_pagemaps, xa_node */
	4 << 20,		/* vmemmap frames */
	(4 << 20) + (1 << 16),
	(16 << 20) + 0x10000,	/* init_top_pgt */
	(16 << 20) + 0x20000,	/* vmemmap_base, page_offset_base, pgmap_array */
	0,			/* anywhere */
};

static int load_image(struct image *img, bool la57)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1, .la57 = la57 };
	char path[] = "/tmp/mmc-fuzz-walk-XXXXXX";
	Elf64_Ehdr *eh;
	FILE *f;
	long n;
	int fd, i;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	if (synth_write(path, &o))
		return -1;
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(img->file = malloc((size_t)n)) ||
	    fread(img->file, 1, (size_t)n, f) != (size_t)n)
		return -1;
	fclose(f);
	unlink(path);
	eh = (Elf64_Ehdr *)img->file;
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(img->file + eh->e_phoff) + i;

		if (ph->p_type == PT_NOTE) {
			/* one VMCOREINFO note: Nhdr, "VMCOREINFO\0" padded to 12 */
			Elf64_Nhdr *nh = (Elf64_Nhdr *)(img->file + ph->p_offset);

			img->vmcoreinfo = strndup((char *)(nh + 1) + 12, nh->n_descsz);
		} else if (ph->p_type == PT_LOAD && img->nsegs < 4) {
			img->segs[img->nsegs++] = (struct seg){ ph->p_vaddr, ph->p_paddr,
				ph->p_filesz, img->file + ph->p_offset };
		}
	}
	img->layout = mmc_layout_create();
	if (!img->vmcoreinfo || !img->layout || synth_layout(img->layout))
		return -1;
	return 0;
}

static struct mmc_error *fmem_read(void *priv, enum mmc_space space, uint64_t addr,
				   void *buf, size_t len, size_t *done)
{
	const struct fmem *m = priv;
	size_t i, got = 0;

	*done = 0;
	while (got < len) {
		uint64_t a = addr + got, pa = 0;
		size_t chunk = 4096 - (a & 4095), k;
		const struct seg *s = NULL;

		if (chunk > len - got)
			chunk = len - got;
		for (i = 0; i < m->img->nsegs; i++) {
			const struct seg *c = &m->img->segs[i];
			uint64_t base = space == MMC_PHYSADDR ? c->paddr : c->vaddr;

			if (a >= base && a - base < c->size) {
				s = c;
				pa = c->paddr + (a - base);
				break;
			}
		}
		if (!s)
			return mmc_error_nodata("fuzz", a, MMC_UR_ABSENT, "no segment");
		for (k = 0; k < m->np; k++)
			if (m->p[k].drop && m->p[k].pa >> 12 == pa >> 12) {
				*done = got;
				return mmc_error_nodata("fuzz", a, MMC_UR_TRUNCATED,
							"page dropped by the input");
			}
		memcpy((uint8_t *)buf + got, s->data + (pa - s->paddr), chunk);
		for (k = 0; k < m->np; k++) {
			const struct patch *p = &m->p[k];
			unsigned int b;

			for (b = 0; b < 8 && !p->drop; b++)
				if (p->pa + b >= pa && p->pa + b < pa + chunk)
					((uint8_t *)buf)[got + (p->pa + b - pa)] =
						(uint8_t)(p->value >> (8 * b));
		}
		got += chunk;
		*done = got;
	}
	return NULL;
}

static void fmem_destroy(void *priv)
{
	(void)priv;
}

static const struct mmc_mem_ops fmem_ops = { .read = fmem_read, .destroy = fmem_destroy };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct patch p[MAX_PATCHES];
	struct fmem fm;
	struct mmc_layout *layout = NULL;
	struct mmc_mem *mem;
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *snap = NULL;
	struct mmc_walk_stats st;
	struct mmc_error *err;
	size_t np = 0;
	uint8_t sel;

	if (!ready) {
		if (load_image(&images[0], false) || load_image(&images[1], true))
			abort();
		ready = true;
	}
	if (size < 1)
		return 0;
	sel = data[0];
	fm.img = &images[sel & 1];
	data++;
	size--;
	for (; size >= 12 && np < MAX_PATCHES; data += 12, size -= 12) {
		uint32_t off;
		uint64_t v;

		memcpy(&off, data, 4);
		memcpy(&v, data + 4, 8);
		p[np].drop = off & 0x80000000u;
		p[np].pa = (region_base[(off >> 28) & 7] + (off & 0xfffff)) % SK_RAM;
		p[np].value = v;
		np++;
	}
	fm.p = p;
	fm.np = np;
	mem = calloc(1, sizeof(*mem));
	if (!mem || mmc_layout_copy(fm.img->layout, &layout)) {
		free(mem);
		return 0;
	}
	mem->ops = &fmem_ops;
	mem->priv = &fm;
	mem->path = strdup("fuzz");
	mem->vmcoreinfo = strdup(fm.img->vmcoreinfo);
	mem->page_size = 4096;
	err = mmc_kernel_create(layout, mem, NULL, &k);
	if (!err)
		err = mmc_walk(k, NULL, NULL, &snap, &st);

	mmc_error_destroy(err);
	mmc_snapshot_destroy(snap);
	mmc_kernel_destroy(k);
	return 0;
}
