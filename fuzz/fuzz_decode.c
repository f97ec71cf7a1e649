// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: normalise and decode raw struct page bytes (the public API
 * of normalise.h and page_decode.h) under varied layouts and geometries.
 *
 * Input: byte 0 picks the layout (6.12 or 7.2 fixture) and flags; bytes
 * 1..8 vary the geometry (struct page size, flags layout, bases); then a
 * pgmap count and addresses; the rest is struct pages, one after another,
 * for consecutive pfns.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout_fixture.h"
#include "normalise.h"
#include "page_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mmc_layout l612, l72;
static bool ready;

static uint64_t take(const uint8_t **p, size_t *n, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && *n; i++, (*p)++, (*n)--)
		v |= (uint64_t)**p << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct mmc_layout *layout;
	struct mmc_geom geom;
	struct mmc_norm *norm = NULL;
	struct mmc_error *err;
	uint64_t kaddrs[8], pfn, b;
	struct mmc_nrec recs[3];
	size_t npg, i, nrec = 0;
	char buf[512];

	if (!ready) {
		if (mmc_test_layout_612(&l612) || mmc_test_layout_72(&l72))
			abort();
		ready = true;
	}
	if (size < 9)
		return 0;
	b = take(&data, &size, 1);
	layout = b & 1 ? &l72 : &l612;
	if (b & 1)
		mmc_test_geom_72(&geom);
	else
		mmc_test_geom(&geom);
	b = take(&data, &size, 8);
	/* struct page 64 (the fixtures), or what the input says (8..128) */
	if (b & 1)
		geom.struct_page_size = (uint32_t)(8 * (1 + ((b >> 1) & 15)));
	geom.zones_width = (uint32_t)((b >> 8) & 7);
	geom.nodes_width = (uint32_t)((b >> 11) & 15);
	geom.zones_pgshift = 64 - geom.zones_width - geom.nodes_width;
	geom.nodes_pgshift = geom.nodes_width ? 64 - geom.nodes_width : 0;
	if (b & (1ULL << 16))
		geom.kaslr_offset = (b >> 20) << 21;
	if (b & (1ULL << 17))
		geom.vmemmap_base = 0xffd4000000000000ULL;
	npg = (b >> 24) & 7;
	pfn = (b >> 32) & 0xfffffff;
	for (i = 0; i < npg; i++)
		kaddrs[i] = take(&data, &size, 8);
	err = mmc_norm_create(layout, &geom, kaddrs, npg, &norm);
	if (err) {	/* a geometry the normaliser refuses */
		mmc_error_destroy(err);
		return 0;
	}
	while (size >= geom.struct_page_size && nrec < 64) {
		struct mmc_page_view view;
		struct mmc_nrec *rec = &recs[nrec % 3];
		uint64_t head;
		unsigned int s;

		mmc_norm_page(norm, pfn, data, (enum mmc_page_role)(data[0] & 3), rec);
		data += geom.struct_page_size;
		size -= geom.struct_page_size;
		mmc_page_decode(layout, &geom, pfn, rec, &view);
		mmc_format_pgflags(layout, view.pgflags, buf, sizeof(buf));
		for (s = 0; s < rec->nslots; s++) {
			mmc_format_nval(&rec->slot[s], buf, sizeof(buf));
			mmc_slot_label_of(layout, MMC_RANGE_PGMAP, s, (unsigned int)(nrec % 4), buf, sizeof(buf));
			mmc_compound_info_head_pfn(&geom, pfn, &rec->slot[s], &head);
		}
		(void)mmc_nrec_member_u64(layout, rec, MMC_PAGE_REFCOUNT, 0, &head);
		nrec++;
		pfn++;
		if (nrec >= 3) {
			struct mmc_nrec f[3] = { recs[nrec % 3], recs[(nrec + 1) % 3],
						 recs[(nrec + 2) % 3] };
			struct mmc_folio_view fv;

			mmc_folio_decode(layout, &geom, f, 3, &fv);
		}
	}
	(void)mmc_norm_failed(norm);
	mmc_norm_destroy(norm);
	return 0;
}
