// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Memory source over crash's readmem(): physical and kernel virtual reads of
 * whatever dump (or live system) crash has open.
 *
 * readmem() says only yes or no.  A large read that fails is repeated page by
 * page to find the first page crash cannot read; the bytes before it are
 * returned (*done) and the page is reported as MMC_ERR_NODATA with its
 * address, so the engine marks those struct pages UNREADABLE instead of
 * decoding zeros.  crash can be told to return zeros for pages a
 * makedumpfile dump excluded (`--zero_excluded`, `set zero_excluded on`):
 * that is switched off around every read here and restored after.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash_ext.h"

#include "defs.h"	/* crash: last */

static unsigned long long nr_readmem;

unsigned long long mmc_crash_mem_reads(void)
{
	return nr_readmem;
}

/* crash's zero-fill of excluded pages, off for one read. */
struct zero_guard {
	bool diskdump, sadump;
	ulong saved;
};

static void zero_guard_begin(struct zero_guard *g)
{
	g->diskdump = DISKDUMP_DUMPFILE() && (*diskdump_flags & ZERO_EXCLUDED);
	if (g->diskdump) {
		g->saved = *diskdump_flags;
		*diskdump_flags &= ~ZERO_EXCLUDED;
	}
	g->sadump = SADUMP_DUMPFILE() && sadump_is_zero_excluded();
	if (g->sadump)
		sadump_unset_zero_excluded();
}

static void zero_guard_end(struct zero_guard *g)
{
	if (g->diskdump)
		*diskdump_flags = g->saved;
	if (g->sadump)
		sadump_set_zero_excluded();
}

static bool crash_read(int memtype, uint64_t addr, void *buf, size_t len)
{
	struct zero_guard g;
	int ok;

	zero_guard_begin(&g);
	nr_readmem++;
	ok = readmem((ulonglong)addr, memtype, buf, (long)len, "memmapcheck",
		     RETURN_ON_ERROR | QUIET);
	zero_guard_end(&g);
	return ok;
}

static struct mmc_error *crash_mem_read(void *priv, enum mmc_space space,
					uint64_t addr, void *buf, size_t len,
					size_t *done)
{
	struct mmc_mem *mem = priv;
	int memtype = space == MMC_PHYSADDR ? PHYSADDR : KVADDR;
	uint64_t page = mem->page_size;
	size_t off = 0;

	*done = 0;
	if (!len)
		return NULL;
	if (len > LONG_MAX)
		return mmc_error_create(MMC_ERR_INTERNAL, mem->path,
					"read of %zu bytes", len);
	if (crash_read(memtype, addr, buf, len)) {
		*done = len;
		return NULL;
	}
	/* Which page failed?  Everything before it is returned. */
	while (off < len) {
		uint64_t a = addr + off;
		size_t chunk = (size_t)(page - (a & (page - 1)));

		if (chunk > len - off)
			chunk = len - off;
		if (!crash_read(memtype, a, (char *)buf + off, chunk))
			break;
		off += chunk;
	}
	*done = off;
	if (off == len)		/* the whole read failed, its pages did not */
		return NULL;
	return mmc_error_at(MMC_ERR_NODATA, mem->path, addr + off,
			    "readmem(%s 0x%llx): crash cannot read this page (not in the dump, filtered out, or not mapped)",
			    space == MMC_PHYSADDR ? "PHYSADDR" : "KVADDR",
			    (unsigned long long)(addr + off));
}

static const struct mmc_mem_ops crash_mem_ops = {
	.read = crash_mem_read,
	.destroy = NULL,	/* priv is the mmc_mem itself */
};

/* The keys the engine reads (kernel.c, discover_hotplug.c), as "KEY=value"
 * lines. */
static const char *const vmcoreinfo_keys[] = {
	"OSRELEASE", "BUILD-ID", "PAGESIZE", "KERNELOFFSET",
	"NUMBER(phys_base)", "SYMBOL(_stext)", "SYMBOL(init_top_pgt)",
	"NUMBER(pgtable_l5_enabled)", "NUMBER(KERNEL_IMAGE_SIZE)",
	"NUMBER(MAX_PHYSMEM_BITS)", "NUMBER(SECTION_SIZE_BITS)",
};

static char *vmcoreinfo_text(void)
{
	char *text = NULL, *v;
	size_t len = 0;
	FILE *f;
	int n = 0;

	if (!pc->read_vmcoreinfo)
		return NULL;
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < sizeof(vmcoreinfo_keys) / sizeof(vmcoreinfo_keys[0]); i++) {
		v = pc->read_vmcoreinfo(vmcoreinfo_keys[i]);
		if (!v)
			continue;
		fprintf(f, "%s=%s\n", vmcoreinfo_keys[i], v);
		free(v);
		n++;
	}
	if (fclose(f) != 0 || !n) {
		free(text);
		return NULL;
	}
	return text;
}

struct mmc_error *mmc_crash_mem_open(struct mmc_mem **out)
{
	struct mmc_mem *mem = calloc(1, sizeof(*mem));
	const char *dump = pc->dumpfile ? pc->dumpfile :
			   ACTIVE() ? "live" : "dump";
	size_t n = strlen(dump) + sizeof("crash:");

	*out = NULL;
	if (!mem)
		return mmc_error_nomem();
	mem->path = malloc(n);
	if (!mem->path) {
		free(mem);
		return mmc_error_nomem();
	}
	snprintf(mem->path, n, "crash:%s", dump);
	mem->ops = &crash_mem_ops;
	mem->priv = mem;
	mem->page_size = PAGESIZE();
	if (mem->page_size < 512 || (mem->page_size & (mem->page_size - 1))) {
		struct mmc_error *err = mmc_error_create(MMC_ERR_INPUT, mem->path,
							 "crash says page size %llu",
							 (unsigned long long)mem->page_size);
		mmc_mem_destroy(mem);
		return err;
	}
	mem->vmcoreinfo = vmcoreinfo_text();
	*out = mem;
	return NULL;
}
