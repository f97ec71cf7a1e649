/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A folio's page[1] and page[2], read from a snapshot next to its head:
 * the one place lint and the renderers get the folio fields from.
 */
#ifndef MMC_SNAPSHOT_FOLIO_H
#define MMC_SNAPSHOT_FOLIO_H

#include <stddef.h>
#include <stdint.h>

#include "page_decode.h"
#include "snapshot.h"

/*
 * The folio fields of the head at pfn of range `range` (head: its record).
 * Returns how many of head, page[1], page[2] are in the range and readable
 * (fv is decoded when that is at least 2; page[2]'s members only at 3).
 */
size_t mmc_snapshot_folio(const struct mmc_snapshot *snap, size_t range, uint64_t pfn,
		      const struct mmc_nrec *head, struct mmc_folio_view *fv);

#endif
