/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A synthetic image (synth_kernel.h) opened the way the CLI opens a dump:
 * written to DIR/NAME, read back through the kcore reader, and made a
 * kernel with synth_layout()'s layout.  For the tests that walk such
 * images (walk, threads, geometry, lint on broken images).
 */
#ifndef MMC_TEST_SYNTH_OPEN_H
#define MMC_TEST_SYNTH_OPEN_H

#include <stdio.h>

#include "kernel.h"
#include "synth_kernel.h"

/* synth_layout()'s layout in a new mmc_layout, or NULL. */
static inline struct mmc_layout *synth_layout_new(void)
{
	struct mmc_layout *l = mmc_layout_create();

	if (l && synth_layout(l)) {
		mmc_layout_destroy(l);
		return NULL;
	}
	return l;
}

/*
 * With the layout l: synth_layout_new()'s, which the caller may have
 * changed, or NULL when that failed.  The kernel owns l from here on, and
 * l is freed on failure too.
 */
static inline struct mmc_error *synth_open_with(const char *dir, const char *name,
						const struct synth_opts *o,
						struct mmc_layout *l,
						struct mmc_kernel **k)
{
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!l || synth_write(path, o)) {
		mmc_layout_destroy(l);
		return mmc_error_create(MMC_ERR_INTERNAL, path, "building synthetic image");
	}
	err = mmc_mem_open_kcore(path, &mem);
	if (err) {
		mmc_layout_destroy(l);
		return err;
	}
	return mmc_kernel_create(l, mem, NULL, k);
}

static inline struct mmc_error *synth_open(const char *dir, const char *name,
					   const struct synth_opts *o, struct mmc_kernel **k)
{
	return synth_open_with(dir, name, o, synth_layout_new(), k);
}

#endif
