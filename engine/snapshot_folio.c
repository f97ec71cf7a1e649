// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "snapshot_folio.h"

size_t mmc_snapshot_folio(const struct mmc_snapshot *snap, size_t range, uint64_t pfn,
		      const struct mmc_nrec *head, struct mmc_folio_view *fv)
{
	struct mmc_nrec recs[3];
	size_t n = 1;

	memset(fv, 0, sizeof(*fv));
	recs[0] = *head;
	if (mmc_snapshot_get(snap, range, pfn + 1, &recs[1]) &&
	    recs[1].state == MMC_PS_READ) {
		n = 2;
		if (mmc_snapshot_get(snap, range, pfn + 2, &recs[2]) &&
		    recs[2].state == MMC_PS_READ)
			n = 3;
	}
	if (n >= 2)
		mmc_folio_decode(mmc_snapshot_layout(snap), mmc_snapshot_geom(snap),
				 recs, n, fv);
	return n;
}
