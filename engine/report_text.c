// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Human renderers in crash's style: fixed-width columns under uppercase
 * headers (like `kmem -p`), addresses in bare 16-digit hex, pfns with 0x.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "snapshot_folio.h"
#include "page_decode.h"
#include "report_int.h"

static const char *role_name(unsigned int role)
{
	switch (role) {
	case MMC_ROLE_DEVICE: return "device";
	case MMC_ROLE_ALTMAP: return "altmap";
	case MMC_ROLE_RESERVE: return "reserve";
	case MMC_ROLE_SHARED: return "shared";
	}
	return "?";
}

static const char *state_name(unsigned int state)
{
	switch (state) {
	case MMC_PS_READ: return "read";
	case MMC_PS_UNREADABLE: return "UNREADABLE";
	case MMC_PS_UNMAPPED: return "UNMAPPED";
	case MMC_PS_NOT_INIT: return "not-init";
	}
	return "?";
}

/* A range's compound page order: its pgmap's vmemmap_shift, its hstate's
 * order; 0 when unknown. */
static uint32_t range_order(const struct mmc_snapshot *snap, const struct mmc_srange *sr)
{
	const struct mmc_shstate *hs;
	size_t nh;

	if (sr->kind == MMC_RANGE_PGMAP && sr->pgmap_index < mmc_snapshot_npgmaps(snap))
		return mmc_snapshot_pgmap(snap, sr->pgmap_index)->vmemmap_shift;
	mmc_snapshot_hugetlb(snap, &hs, &nh, NULL, NULL, NULL);
	if (sr->kind == MMC_RANGE_HUGETLB && sr->owner < nh)
		return hs[sr->owner].order;
	return 0;
}

/* ---- ranges ---- */

static void text_dax(FILE *out, const struct mmc_snapshot *snap)
{
	const struct mmc_dax_span *dax;
	const char *why;
	size_t n;
	enum mmc_dax_state st = mmc_snapshot_dax(snap, &dax, &n, &why);

	fprintf(out, "\nDEVICE-DAX RANGES (dev_dax->ranges): %s%s%s\n",
		mmc_report_dax_state(st), *why ? ": " : "", why);
	if (!n)
		return;
	fprintf(out, "  %3s  %5s  %-10s  %-10s  %8s\n", "#", "PGMAP", "START_PFN",
		"END_PFN", "PAGES");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %3zu  %5u  %#-10" PRIx64 "  %#-10" PRIx64 "  %8" PRIu64 "\n",
			i, dax[i].pgmap_index, dax[i].start_pfn, dax[i].end_pfn,
			dax[i].end_pfn - dax[i].start_pfn);
}

static void text_geometry(FILE *out, const struct mmc_geom *g)
{
	fprintf(out, "GEOMETRY\n");
	fprintf(out, "  vmemmap_base %016" PRIx64 "  page_offset_base %016" PRIx64
		"  vmalloc_base %016" PRIx64 "\n", g->vmemmap_base, g->page_offset_base,
		g->vmalloc_base);
	fprintf(out, "  bases from: %s\n", mmc_report_base_origin(g));
	if (g->pgtable_levels)
		fprintf(out, "  paging: %u levels, from %s\n\n", g->pgtable_levels,
			mmc_report_levels_origin(g));
	else
		fprintf(out, "  paging: not recorded\n\n");
}

void mmc_report_ranges_text(FILE *out, const struct mmc_snapshot *snap)
{
	size_t np = mmc_snapshot_npgmaps(snap), nr = mmc_snapshot_nranges(snap);
	char buf[64];

	text_geometry(out, mmc_snapshot_geom(snap));
	fprintf(out, "PGMAPS\n");
	fprintf(out, "  %3s  %-16s  %-26s  %10s  %5s  %8s  %-10s  %8s  %8s  %8s  %8s  %s\n",
		"#", "DEV_PAGEMAP", "TYPE", "FLAGS", "SHIFT", "NR_RANGE",
		"ALTMAP", "RESERVE", "FREE", "ALIGN", "ALLOC", "OWNER");
	for (size_t i = 0; i < np; i++) {
		const struct mmc_spgmap *pg = mmc_snapshot_pgmap(snap, i);

		mmc_format_nval(&pg->owner, buf, sizeof(buf));
		fprintf(out, "  %3zu  %016" PRIx64 "  %-26s  %#10" PRIx64 "  %5u  %8u  ",
			i, pg->kaddr, pg->type_name[0] ? pg->type_name : "?", pg->flags,
			pg->vmemmap_shift, pg->nr_range);
		if (pg->has_altmap)
			fprintf(out, "%#-10" PRIx64 "  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64,
				pg->altmap_base_pfn, pg->altmap_reserve, pg->altmap_free,
				pg->altmap_align, pg->altmap_alloc);
		else
			fprintf(out, "%-10s  %8s  %8s  %8s  %8s", "-", "-", "-", "-", "-");
		fprintf(out, "  %s\n", buf);
	}
	fprintf(out, "\nRANGES\n");
	fprintf(out, "  %3s  %-10s  %-10s  %8s  %5s  %5s  %-16s  %8s  %8s  %8s\n",
		"#", "START_PFN", "END_PFN", "PAGES", "PGMAP", "RANGE", "VMEMMAP",
		"RESERVE", "ALTMAP", "DEVICE");
	for (size_t i = 0; i < nr; i++) {
		const struct mmc_srange *r = mmc_snapshot_range(snap, i);
		uint64_t pages = r->end_pfn - r->start_pfn;
		uint64_t res_n = r->reserve_end > r->reserve_start ? r->reserve_end - r->reserve_start : 0;
		uint64_t alt_n = r->altmap_end > r->altmap_start ? r->altmap_end - r->altmap_start : 0;

		if (r->kind == MMC_RANGE_PGMAP)
			fprintf(out, "  %3zu  %#-10" PRIx64 "  %#-10" PRIx64 "  %8" PRIu64 "  %5u  %5u  %016" PRIx64
				"  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64 "\n",
				i, r->start_pfn, r->end_pfn, pages, r->pgmap_index, r->range_index,
				r->vmemmap_start, res_n, alt_n, pages - res_n - alt_n);
		else
			fprintf(out, "  %3zu  %#-10" PRIx64 "  %#-10" PRIx64 "  %8" PRIu64 "  %5s  %5s  %016" PRIx64
				"  %s#%u order %u\n",
				i, r->start_pfn, r->end_pfn, pages, "-", "-", r->vmemmap_start,
				mmc_report_range_type(snap, (int64_t)i), r->owner,
				range_order(snap, r));
		if (res_n)
			fprintf(out, "       reserve pfns 0x%" PRIx64 "-0x%" PRIx64 " (never written)\n",
				r->reserve_start, r->reserve_end);
		if (alt_n)
			fprintf(out, "       altmap pfns  0x%" PRIx64 "-0x%" PRIx64 " (memmap_init_range)\n",
				r->altmap_start, r->altmap_end);
	}
	text_dax(out, snap);
	mmc_report_text_pools(out, snap);
}

/* ---- show ---- */

static void print_folio(FILE *out, const struct mmc_snapshot *snap, size_t range,
			uint64_t pfn, const struct mmc_nrec *head)
{
	struct mmc_folio_view fv;
	char a[64], b[64];

	if (mmc_snapshot_folio(snap, range, pfn, head, &fv) < 2) {
		fprintf(out, "      folio: page[1] not readable\n");
		return;
	}
	if (!fv.valid) {
		fprintf(out, "      folio: not decodable\n");
		return;
	}
	fprintf(out, "      folio: order %u", fv.order);
	if (fv.have_nr_pages)
		fprintf(out, ", nr_pages %" PRIu64, fv.nr_pages);
	if (fv.have_large_mapcount)
		fprintf(out, ", large_mapcount %d", fv.large_mapcount);
	if (fv.have_entire_mapcount)
		fprintf(out, ", entire_mapcount %d", fv.entire_mapcount);
	if (fv.have_nr_pages_mapped)
		fprintf(out, ", nr_pages_mapped %d", fv.nr_pages_mapped);
	if (fv.have_pincount)
		fprintf(out, ", pincount %d", fv.pincount);
	if (fv.have_mm_id_mapcount)
		fprintf(out, ", mm_id_mapcount %d/%d", fv.mm_id_mapcount[0], fv.mm_id_mapcount[1]);
	if (fv.have_mm_ids) {
		mmc_format_nval(&fv.mm_ids, a, sizeof(a));
		fprintf(out, ", mm_ids %s", a);
	}
	if (fv.have_deferred_list) {
		mmc_format_nval(&fv.deferred_next, a, sizeof(a));
		mmc_format_nval(&fv.deferred_prev, b, sizeof(b));
		fprintf(out, ", deferred_list %s/%s", a, b);
	}
	fputc('\n', out);
}

#define SHOW_HDR "  %-34s  %-7s  %-4s  %4s  %4s  %-10s  %5s  %-9s  %4s  %4s  %-16s  %6s  %-12s  %s\n"

/* Integer slots that change along a run (pointer strides are the run's
 * normal self/compound_head progression and are not listed). */
static void print_stride(FILE *out, const struct mmc_layout *layout, enum mmc_range_kind kind,
			 const struct mmc_nrec *rec, const struct mmc_nrec *stride,
			 enum mmc_tail_index tail_index)
{
	bool any = false;

	for (unsigned int s = 0; s < rec->nslots && s < MMC_MAX_SLOTS; s++) {
		char label[48];

		if (rec->slot[s].cls != MMC_V_RAW || !stride->slot[s].raw)
			continue;
		mmc_slot_label_of(layout, kind, s, tail_index, label, sizeof(label));
		fprintf(out, "%s %s %+" PRId64 " per page", any ? "," : "      varies:",
			label, (int64_t)stride->slot[s].raw);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

static void show_run(FILE *out, const struct mmc_snapshot *snap, size_t range,
		     uint64_t first, uint64_t count, const struct mmc_nrec *rec,
		     const struct mmc_nrec *stride)
{
	const struct mmc_layout *layout = mmc_snapshot_layout(snap);
	const struct mmc_geom *geom = mmc_snapshot_geom(snap);
	struct mmc_page_view v;
	char span[64], flags[512], head[24], pgmap[24], mapping[48], priv[48], order[8];

	if (count == 1)
		snprintf(span, sizeof(span), "pfn 0x%" PRIx64 " (1 page)", first);
	else
		snprintf(span, sizeof(span), "pfn 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " pages)",
			 first, first + count - 1, count);
	if (rec->state == MMC_PS_UNREADABLE || rec->state == MMC_PS_UNMAPPED) {
		fprintf(out, "  %-34s  %-7s  *** %s: %s ***\n", span, role_name(rec->role),
			rec->state == MMC_PS_UNREADABLE ? "UNREADABLE" : "UNMAPPED",
			rec->state == MMC_PS_UNREADABLE ? "struct pages missing from the dump"
							: "vmemmap not mapped by the page tables");
		return;
	}
	mmc_page_decode(layout, geom, first, rec, &v);
	mmc_format_pgflags(layout, v.pgflags, flags, sizeof(flags));
	if (v.flags_hold_order) {
		size_t fl = strlen(flags);

		snprintf(flags + fl, sizeof(flags) - fl, "%s(_flags_1 order %u)",
			 fl ? " " : "", v.flags_order);
	}
	if (v.tail && v.head_pfn_valid)
		snprintf(head, sizeof(head), "%#" PRIx64, v.head_pfn);
	else if (v.tail)
		mmc_format_nval(&v.compound_head, head, sizeof(head));
	else
		snprintf(head, sizeof(head), "-");
	if (v.tail)
		snprintf(pgmap, sizeof(pgmap), "-");
	else
		mmc_format_nval(&v.pgmap, pgmap, sizeof(pgmap));
	mmc_format_nval(&v.mapping, mapping, sizeof(mapping));
	mmc_format_nval(&v.private_, priv, sizeof(priv));
	snprintf(order, sizeof(order), "-");
	if (v.head) {
		const struct mmc_srange *sr = mmc_snapshot_range(snap, range);

		snprintf(order, sizeof(order), "%u", range_order(snap, sr));
	}
	fprintf(out, "  %-34s  %-7s  %-4s  %4u  %4u  %-10s  %5s  %-9s  %4d  %4d  %-16s  %6" PRIu64 "  %-12s  %s\n",
		span, role_name(rec->role),
		rec->state == MMC_PS_NOT_INIT ? "stale" : state_name(rec->state),
		v.zone, v.node, head, order, pgmap, v.refcount, v.mapcount,
		mapping, v.index, priv, flags[0] ? flags : "-");
	if (rec->state == MMC_PS_NOT_INIT)
		fprintf(out, "      (never initialised: altmap reserve, stale contents)\n");
	if (count > 1 && stride) {
		const struct mmc_srange *sr = mmc_snapshot_range(snap, range);

		/* a HugeTLB or hot-plug range names its words lru, not pgmap */
		print_stride(out, layout, sr ? (enum mmc_range_kind)sr->kind : MMC_RANGE_PGMAP,
			     rec, stride, v.tail_index);
	}
	if (v.head)
		print_folio(out, snap, range, first, rec);
}

/* One line on the range's vmemmap pages: sharing, protection, leaf levels. */
static void show_vframes(FILE *out, const struct mmc_snapshot *snap, size_t r)
{
	size_t nv = mmc_snapshot_range_nvframe_runs(snap, r);
	uint64_t pages = 0, shared = 0, w = 0, ro = 0, unrec = 0, none = 0;
	uint64_t leaf[MMC_VLEAF_PUD + 1] = { 0 };
	static const char *const lname[] = { "?", "PTE", "PMD", "PUD" };

	for (size_t j = 0; j < nv; j++) {
		struct mmc_vframe f, d;
		uint64_t start, count;

		mmc_snapshot_range_vframe_run(snap, r, j, &start, &count, &f, &d);
		pages += count;
		if (f.kind != MMC_VF_RAM && f.kind != MMC_VF_DEVICE) {
			none += count;
			continue;
		}
		/* share_back + k * d_share is 0 for at most one k when it moves
		 * (128-bit: a damaged file's INT64_MIN / -1 must not trap) */
		shared += count;
		if (!d.share_back) {
			shared -= f.share_back ? 0 : count;
		} else {
			__int128 fb = f.share_back, db = d.share_back;

			if (fb % db == 0 && -fb / db >= 0 && -fb / db < (__int128)count)
				shared--;
		}
		if (!(f.prot_known & MMC_VPROT_WRITABLE))
			unrec += count;
		else if (f.prot & MMC_VPROT_WRITABLE)
			w += count;
		else
			ro += count;
		leaf[f.leaf <= MMC_VLEAF_PUD ? f.leaf : 0] += count;
	}
	fprintf(out, "  vmemmap: %" PRIu64 " pages, %" PRIu64 " mapping the frame of an earlier one; writable %"
		PRIu64 ", read-only %" PRIu64, pages, shared, w, ro);
	if (unrec)
		fprintf(out, ", protection not recorded %" PRIu64, unrec);
	for (unsigned int l = MMC_VLEAF_PTE; l <= MMC_VLEAF_PUD; l++)
		if (leaf[l])
			fprintf(out, "; %s-mapped %" PRIu64, lname[l], leaf[l]);
	if (none)
		fprintf(out, "; unmapped or unreadable %" PRIu64, none);
	fputc('\n', out);
}

void mmc_report_show_text(FILE *out, const struct mmc_snapshot *snap, long only)
{
	size_t nr = mmc_snapshot_nranges(snap);

	for (size_t r = 0; r < nr; r++) {
		const struct mmc_srange *sr = mmc_snapshot_range(snap, r);
		size_t nruns = mmc_snapshot_range_nruns(snap, r);
		const char *type = mmc_report_range_type(snap, (int64_t)r);
		uint32_t shift = 0;

		if (only >= 0 && (size_t)only != r)
			continue;
		shift = range_order(snap, sr);
		if (sr->kind == MMC_RANGE_PGMAP)
			fprintf(out, "RANGE %zu: pfn 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " pages)  pgmap#%u %s  vmemmap_shift %u  %zu runs\n",
				r, sr->start_pfn, sr->end_pfn, sr->end_pfn - sr->start_pfn,
				sr->pgmap_index, type[0] ? type : "?", shift, nruns);
		else
			fprintf(out, "RANGE %zu: pfn 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " pages)  %s#%u  order %u  %zu runs\n",
				r, sr->start_pfn, sr->end_pfn, sr->end_pfn - sr->start_pfn,
				type, sr->owner, shift, nruns);
		fprintf(out, SHOW_HDR, "PFN RANGE", "ROLE", "STAT", "ZONE", "NODE",
			"HEAD", "ORDER", "PGMAP", "REF", "MAP", "MAPPING", "INDEX",
			"PRIVATE", "FLAGS");
		for (size_t i = 0; i < nruns; i++) {
			struct mmc_nrec first, stride;
			uint64_t pfn, count;

			mmc_snapshot_range_run(snap, r, i, &pfn, &count, &first, &stride);
			show_run(out, snap, r, pfn, count, &first, &stride);
		}
		show_vframes(out, snap, r);
		fputc('\n', out);
	}
}

void mmc_report_show_pfn_text(FILE *out, const struct mmc_snapshot *snap, size_t range,
			      uint64_t pfn, const struct mmc_nrec *rec)
{
	fprintf(out, "RANGE %zu, pfn 0x%" PRIx64 "\n", range, pfn);
	fprintf(out, SHOW_HDR, "PFN", "ROLE", "STAT", "ZONE", "NODE",
		"HEAD", "ORDER", "PGMAP", "REF", "MAP", "MAPPING", "INDEX",
		"PRIVATE", "FLAGS");
	show_run(out, snap, range, pfn, 1, rec, NULL);
}

/* ---- diff ---- */

/* Aggregate field counts over ranges (names as the diff gives them). */
static void diff_fields_text(FILE *out, const struct mmc_diff_result *res)
{
	struct mmc_diff_field_count agg[MMC_DIFF_MAX_FIELDS];
	size_t n = 0;

	for (size_t i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *r = &res->ranges[i];

		for (size_t f = 0; f < r->nfields && f < MMC_DIFF_MAX_FIELDS; f++) {
			size_t k;

			for (k = 0; k < n; k++)
				if (strcmp(agg[k].name, r->fields[f].name) == 0)
					break;
			if (k == n) {
				if (n == MMC_DIFF_MAX_FIELDS)
					continue;
				agg[n] = r->fields[f];
				n++;
			} else {
				agg[k].pages += r->fields[f].pages;
			}
		}
	}
	if (!n)
		return;
	fprintf(out, "\n  %-32s  %10s\n", res->claims ? "FIELD (BEYOND THE CLAIMS)" : "FIELD",
		"PAGES");
	for (size_t k = 0; k < n; k++)
		fprintf(out, "  %-32s  %10" PRIu64 "\n", agg[k].name, agg[k].pages);
}

static void decoded_slot(const struct mmc_snapshot *snap, const struct mmc_diff_page *p,
			 const struct mmc_nrec *rec, unsigned int slot, char *buf, size_t size)
{
	const struct mmc_layout *layout = mmc_snapshot_layout(snap);
	const struct mmc_geom *geom = mmc_snapshot_geom(snap);
	const struct mmc_member *mf = &layout->member[MMC_PAGE_FLAGS];
	struct mmc_page_view v;

	if (rec->state != MMC_PS_READ && rec->state != MMC_PS_NOT_INIT) {
		snprintf(buf, size, "%s", state_name(rec->state));
		return;
	}
	if (mf->found && slot == mf->offset / 8) {
		char flags[400];

		mmc_page_decode(layout, geom, p->pfn, rec, &v);
		mmc_format_pgflags(layout, v.pgflags, flags, sizeof(flags));
		if (v.flags_hold_order)
			snprintf(buf, size, "zone %u node %u order %u %.300s", v.zone, v.node,
				 v.flags_order, flags[0] ? flags : "-");
		else
			snprintf(buf, size, "zone %u node %u %.300s", v.zone, v.node,
				 flags[0] ? flags : "-");
		return;
	}
	if (rec->slot[slot].cls == MMC_V_RAW) {
		/* two 4-byte members in one slot: show both as signed ints */
		char lo[48], hi[48];

		if (mmc_slot_halves(layout, slot, p->tail_index, lo, hi)) {
			uint64_t raw = (uint64_t)rec->slot[slot].v;

			snprintf(buf, size, "%s %d %s %d", lo, (int32_t)(uint32_t)raw,
				 hi, (int32_t)(uint32_t)(raw >> 32));
			return;
		}
	}
	mmc_format_nval(&rec->slot[slot], buf, size);
}

static void diff_page_text(FILE *out, const struct mmc_snapshot *a,
			   const struct mmc_snapshot *b, const struct mmc_diff_page *p)
{
	const struct mmc_layout *layout = mmc_snapshot_layout(a);

	fprintf(out, "\npfn 0x%" PRIx64 "  range %zu  %s", p->pfn, p->range,
		mmc_tail_index_name(p->tail_index));
	if (p->state_differs)
		fprintf(out, "  state %s vs %s", state_name(p->a.state), state_name(p->b.state));
	if (p->role_differs)
		fprintf(out, "  role %s vs %s", role_name(p->a.role), role_name(p->b.role));
	fputc('\n', out);
	fprintf(out, "  %-4s  %-24s  %-16s  %-30s  %-16s  %s\n", "SLOT", "FIELD",
		"BASE", "BASE DECODED", "PATCHED", "PATCHED DECODED");
	for (unsigned int s = 0; s < MMC_MAX_SLOTS; s++) {
		char label[48], da[400], db[400];

		if (!(p->slot_mask & (1u << s)))
			continue;
		mmc_slot_label_of(layout, (enum mmc_range_kind)p->kind, s, p->tail_index, label,
				  sizeof(label));
		decoded_slot(a, p, &p->a, s, da, sizeof(da));
		decoded_slot(b, p, &p->b, s, db, sizeof(db));
		fprintf(out, "  +%-3u  %-24s  %016" PRIx64 "  %-30s  %016" PRIx64 "  %s\n",
			s * 8, label, p->a.slot[s].raw, da, p->b.slot[s].raw, db);
	}
}

/* HugeTLB folios at a pfn in one image only, their pools alike: no
 * difference, listed so that what moved is seen. */
static void placement_text(FILE *out, const struct mmc_diff_result *res)
{
	static const char *const list[] = { "free", "active" };
	const size_t max = 20;

	if (!res->nplaced)
		return;
	fprintf(out, "\nHUGETLB PLACEMENT (folios at a pfn in one image only, the pools alike: not compared, no difference)\n");
	for (size_t i = 0; i < res->nplaced && i < max; i++) {
		const struct mmc_diff_placed *p = &res->placed[i];

		fprintf(out, "  folio at pfn 0x%" PRIx64 " (hstate#%u, order %u, node %u, %s): only in %s\n",
			p->pfn, p->hstate, p->order, p->node, p->list < MMC_FOLIO_LISTS ? list[p->list] : "?",
			p->side ? "patched" : "base");
	}
	if (res->nplaced > max)
		fprintf(out, "  and %zu more\n", res->nplaced - max);
}

void mmc_report_diff_text(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			  const struct mmc_diff_result *res)
{
	char sentence[1024];

	mmc_report_diff_sentence(res, sentence, sizeof(sentence));
	fprintf(out, "%s\n", sentence);
	if (res->layout_differs)
		fprintf(out, "note: the two kernels' struct layouts differ (fingerprints), slots compared by offset\n");
	if (res->claims)
		fprintf(out, "\n  %3s  %-10s  %-10s  %8s  %8s  %8s  %8s  %8s  %8s  %8s  %7s  %-17s  %s\n",
			"#", "START_PFN", "END_PFN", "PAGES", "COMPARED", "BEYOND", "CLAIMED",
			"UNREAD_A", "UNREAD_B", "NOT_INIT", "VFRAMES", "VERDICT", "TYPE");
	else
		fprintf(out, "\n  %3s  %-10s  %-10s  %8s  %8s  %8s  %8s  %8s  %8s  %7s  %-10s  %s\n",
			"#", "START_PFN", "END_PFN", "PAGES", "COMPARED", "DIFFER", "UNREAD_A",
			"UNREAD_B", "NOT_INIT", "VFRAMES", "VERDICT", "TYPE");
	for (size_t i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *r = &res->ranges[i];
		const char *type = mmc_report_range_type(r->a_index >= 0 ? a : b,
							 r->a_index >= 0 ? r->a_index : r->b_index);

		fprintf(out, "  %3zu  %#-10" PRIx64 "  %#-10" PRIx64 "  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64,
			i, r->start_pfn, r->end_pfn, r->end_pfn - r->start_pfn, r->compared,
			r->differing);
		if (res->claims)
			fprintf(out, "  %8" PRIu64, r->claimed);
		fprintf(out, "  %8" PRIu64 "  %8" PRIu64 "  %8" PRIu64 "  %7" PRIu64 "  %-*s  %s%s",
			r->unreadable_a, r->unreadable_b, r->not_init, r->vframes_differing,
			res->claims ? 17 : 10, mmc_verdict_name(r->verdict),
			mmc_report_type_short(type),
			r->a_index < 0 ? " (only in patched)" : r->b_index < 0 ? " (only in base)" : "");
		if (r->placed_a || r->placed_b)
			fprintf(out, " (placed: %" PRIu64 " pages only in base, %" PRIu64 " only in patched)",
				r->placed_a, r->placed_b);
		fputc('\n', out);
	}
	diff_fields_text(out, res);
	{
		uint64_t nc = 0;

		for (size_t i = 0; i < res->nranges; i++)
			nc += res->ranges[i].vprot_not_compared;
		if (nc)
			fprintf(out, "\nnote: vmemmap_writable not compared on %" PRIu64
				" vmemmap pages: one snapshot does not record the protection (a file before version 5)\n",
				nc);
	}
	for (size_t i = 0; i < res->npgmap_diffs; i++)
		fprintf(out, "%s  %s\n", i ? "" : "\nPGMAP DIFFERENCES\n", res->pgmap_diffs[i]);
	placement_text(out, res);
	if (res->ngroups) {
		fprintf(out, "\nGROUPS%s (%zu of %" PRIu64 ")\n",
			res->claims ? " BEYOND THE CLAIMS" : "", res->ngroups, res->groups_total);
		fprintf(out, "  %5s  %-40s  %8s  %s\n", "RANGE", "PFN RANGE", "PAGES", "FIELDS");
		for (size_t i = 0; i < res->ngroups;) {
			const struct mmc_diff_group *g = &res->groups[i];
			size_t k = i + 1;
			uint64_t period = 0, pages = g->npages;
			char span[64];

			/*
			 * The same fields every compound page (all tails, every
			 * page[1], ...): one line per periodic series of groups.
			 */
			if (k < res->ngroups)
				period = res->groups[k].first_pfn - g->first_pfn;
			while (k < res->ngroups && period &&
			       res->groups[k].range == g->range &&
			       res->groups[k].npages == g->npages &&
			       res->groups[k].first_pfn - res->groups[k - 1].first_pfn == period &&
			       !strcmp(res->groups[k].fields, g->fields))
				pages += res->groups[k++].npages;
			if (k - i < 3) {
				k = i + 1;
				pages = g->npages;
				snprintf(span, sizeof(span), "0x%" PRIx64 "-0x%" PRIx64,
					 g->first_pfn, g->last_pfn);
			} else {
				snprintf(span, sizeof(span), "0x%" PRIx64 "-0x%" PRIx64 " %" PRIu64 " of every 0x%" PRIx64,
					 g->first_pfn, res->groups[k - 1].last_pfn, g->npages, period);
			}
			fprintf(out, "  %5zu  %-40s  %8" PRIu64 "  %s\n", g->range, span, pages, g->fields);
			i = k;
		}
	}
	if (res->npages)
		fprintf(out, "\nFIRST %zu DIFFERING PAGES%s (base vs patched)\n", res->npages,
			res->claims ? " BEYOND THE CLAIMS" : "");
	for (size_t i = 0; i < res->npages; i++)
		diff_page_text(out, a, b, &res->pages[i]);
	mmc_report_claims_text(out, res);
}

/* ---- lint ---- */

void mmc_report_lint_text(FILE *out, const struct mmc_snapshot *snap,
			  const struct mmc_lint_result *res)
{
	char sentence[1024];
	uint64_t kept = 0;

	mmc_report_lint_sentence(snap, res, sentence, sizeof(sentence));
	fprintf(out, "%s\n", sentence);
	if (res->gaps & MMC_LINT_GAP_UNREAD)
		fprintf(out, "INCOMPLETE: some struct pages are unreadable, rules could not be checked on them\n");
	if (!res->violations_total)
		return;
	fprintf(out, "\n  %-16s  %10s\n", "RULE", "PAGES");
	for (size_t i = 0; i < res->nrules; i++)
		fprintf(out, "  %-16s  %10" PRIu64 "\n", res->rules[i].rule, res->rules[i].pages);
	for (size_t i = 0; i < res->nviolations; i++)
		kept += res->violations[i].npages;
	fprintf(out, "\n  %5s  %-25s  %8s  %-14s  %s\n", "RANGE", "PFN RANGE", "PAGES",
		"RULE", "MESSAGE");
	for (size_t i = 0; i < res->nviolations; i++) {
		const struct mmc_lint_violation *v = &res->violations[i];
		char span[48];

		if (v->npages == 1)
			snprintf(span, sizeof(span), "0x%" PRIx64, v->pfn);
		else
			snprintf(span, sizeof(span), "0x%" PRIx64 "-0x%" PRIx64, v->pfn,
				 v->pfn + v->npages - 1);
		fprintf(out, "  %5zu  %-25s  %8" PRIu64 "  %-14s  %s\n", v->range, span,
			v->npages, v->rule, v->message);
	}
	if (kept < res->violations_total)
		fprintf(out, "  ... %" PRIu64 " more violating pages in groups not kept\n",
			res->violations_total - kept);
	fprintf(out, "\nTHE RULES BROKEN (what must hold; where the kernel says so)\n");
	for (size_t i = 0; i < res->nrules; i++) {
		const struct mmc_rule_info *ri = mmc_rule_info(res->rules[i].rule_id);

		if (ri)
			fprintf(out, "  %s: %s\n      %s\n", ri->name, ri->what, ri->kernel);
	}
}
