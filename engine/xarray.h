/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Own xarray walker over a memory source.  Handles multi-index entries
 * (a pgmap stored with xa_store_range() sits in one slot followed by sibling
 * entries: crash's `tree -t xarray` trips on those), skips retry/zero
 * entries, and refuses cycles and absurd depths of a corrupt tree.
 */
#ifndef MMC_XARRAY_H
#define MMC_XARRAY_H

#include <stdint.h>

#include "kernel.h"

/* Called once per present entry: index of its first slot, and the entry. */
typedef struct mmc_error *(*mmc_xa_visit_fn)(void *arg, uint64_t index,
					     uint64_t entry);

struct mmc_error *mmc_xarray_walk(struct mmc_kernel *k, uint64_t xa_addr,
				  mmc_xa_visit_fn visit, void *arg);

/* Entry encodings (include/linux/xarray.h); exposed for unit tests. */
static inline int mmc_xa_is_internal(uint64_t e) { return (e & 3) == 2; }
static inline int mmc_xa_is_node(uint64_t e) { return mmc_xa_is_internal(e) && e > 4096; }
static inline int mmc_xa_is_value(uint64_t e) { return (e & 1) == 1; }

#endif
