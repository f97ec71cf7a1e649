// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * JSON renderers: one object per report, every number the text shows,
 * each value of a struct page raw and decoded.  KTAP and JUnit for CI are
 * report_ci.c.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "snapshot_folio.h"
#include "page_decode.h"
#include "report_int.h"

void mmc_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (ch < 0x20 || ch == 0x7f)
				fprintf(out, "\\u%04x", ch);
			else
				fputc(ch, out);
		}
	}
	fputc('"', out);
}

static const char *const class_names[] = {
	[MMC_V_RAW] = "raw", [MMC_V_NULL] = "null", [MMC_V_SELF] = "self",
	[MMC_V_PAGE] = "page", [MMC_V_PGMAP] = "pgmap", [MMC_V_POISON] = "poison",
	[MMC_V_OBJ] = "obj",
};

static const char *class_name(unsigned int cls)
{
	return cls < sizeof(class_names) / sizeof(class_names[0]) ? class_names[cls] : "?";
}

static const char *const role_names[] = { "device", "altmap", "reserve", "shared" };
static const char *const state_names[] = { "read", "unreadable", "unmapped", "not-init" };

static const char *jrole(unsigned int r) { return r < 4 ? role_names[r] : "?"; }
static const char *jstate(unsigned int s) { return s < 4 ? state_names[s] : "?"; }

/* {"raw":"0x..","class":"page","off":1,"v":-3,"decoded":"page-3+1"} */
static void json_nval(FILE *out, const struct mmc_nval *v)
{
	char buf[64];

	mmc_format_nval(v, buf, sizeof(buf));
	fprintf(out, "{\"raw\":\"0x%016" PRIx64 "\",\"class\":\"%s\",\"off\":%u,\"v\":%" PRId64 ",\"decoded\":",
		v->raw, class_name(v->cls), v->off, v->v);
	mmc_json_string(out, buf);
	fputc('}', out);
}

static void json_info(FILE *out, const struct mmc_snapshot *snap)
{
	const struct mmc_snapshot_info *info = mmc_snapshot_info(snap);

	fputs("{\"release\":", out);
	mmc_json_string(out, info ? info->release : "");
	fputs(",\"build_id\":", out);
	mmc_json_string(out, info ? info->build_id : "");
	fputs(",\"dump\":", out);
	mmc_json_string(out, info ? info->dump : "");
	fprintf(out, ",\"layout_fingerprint\":\"0x%016" PRIx64 "\",\"pages\":%" PRIu64 ",\"runs\":%" PRIu64 "}",
		info ? info->layout_fingerprint : 0, mmc_snapshot_npages(snap),
		mmc_snapshot_nruns(snap));
}

/* ---- ranges ---- */

static void json_geometry(FILE *out, const struct mmc_geom *g)
{
	static const char *const bases[] = {
		[MMC_BASES_UNKNOWN] = "unknown", [MMC_BASES_VARIABLES] = "variables",
		[MMC_BASES_FIXED] = "fixed",
	};
	static const char *const levels[] = {
		[MMC_LEVELS_UNKNOWN] = "unknown", [MMC_LEVELS_VMCOREINFO] = "vmcoreinfo",
		[MMC_LEVELS_PAGE_TABLES] = "page-tables",
	};

	fprintf(out, "\"geometry\":{\"vmemmap_base\":\"0x%016" PRIx64 "\",\"page_offset_base\":\"0x%016" PRIx64
		"\",\"vmalloc_base\":\"0x%016" PRIx64 "\",\"bases_from\":\"%s\",\"pgtable_levels\":%u,\"levels_from\":\"%s\",\"bases_from_text\":",
		g->vmemmap_base, g->page_offset_base, g->vmalloc_base,
		g->base_origin <= MMC_BASES_FIXED ? bases[g->base_origin] : "unknown",
		g->pgtable_levels,
		g->levels_origin <= MMC_LEVELS_PAGE_TABLES ? levels[g->levels_origin] : "unknown");
	mmc_json_string(out, mmc_report_base_origin(g));
	fputs(",\"levels_from_text\":", out);
	mmc_json_string(out, mmc_report_levels_origin(g));
	fputs("},", out);
}

static void json_dax(FILE *out, const struct mmc_snapshot *snap)
{
	const struct mmc_dax_span *dax;
	const char *why;
	size_t n;
	enum mmc_dax_state st = mmc_snapshot_dax(snap, &dax, &n, &why);

	fputs(",\"dax_ranges\":{\"state\":", out);
	mmc_json_string(out, mmc_report_dax_state(st));
	fputs(",\"why\":", out);
	if (*why)
		mmc_json_string(out, why);
	else
		fputs("null", out);
	fputs(",\"ranges\":[", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s{\"pgmap\":%u,\"start_pfn\":%" PRIu64 ",\"end_pfn\":%" PRIu64 "}",
			i ? "," : "", dax[i].pgmap_index, dax[i].start_pfn, dax[i].end_pfn);
	fputs("]}", out);
}

static void json_pgmaps_ranges(FILE *out, const struct mmc_snapshot *snap)
{
	size_t np = mmc_snapshot_npgmaps(snap), nr = mmc_snapshot_nranges(snap);

	json_geometry(out, mmc_snapshot_geom(snap));
	fputs("\"pgmaps\":[", out);
	for (size_t i = 0; i < np; i++) {
		const struct mmc_spgmap *pg = mmc_snapshot_pgmap(snap, i);

		fprintf(out, "%s{\"index\":%zu,\"address\":\"0x%016" PRIx64 "\",\"type\":%" PRId64 ",\"type_name\":",
			i ? "," : "", i, pg->kaddr, pg->type);
		mmc_json_string(out, pg->type_name);
		fprintf(out, ",\"flags\":%" PRIu64 ",\"vmemmap_shift\":%u,\"nr_range\":%u,\"has_altmap\":%s",
			pg->flags, pg->vmemmap_shift, pg->nr_range, pg->has_altmap ? "true" : "false");
		if (pg->has_altmap)
			fprintf(out, ",\"altmap\":{\"base_pfn\":%" PRIu64 ",\"end_pfn\":%" PRIu64 ",\"reserve\":%" PRIu64
				",\"free\":%" PRIu64 ",\"align\":%" PRIu64 ",\"alloc\":%" PRIu64 "}",
				pg->altmap_base_pfn, pg->altmap_end_pfn, pg->altmap_reserve,
				pg->altmap_free, pg->altmap_align, pg->altmap_alloc);
		fputs(",\"owner\":", out);
		json_nval(out, &pg->owner);
		fputs(",\"ops\":", out);
		json_nval(out, &pg->ops);
		fputc('}', out);
	}
	fputs("],\"ranges\":[", out);
	for (size_t i = 0; i < nr; i++) {
		const struct mmc_srange *r = mmc_snapshot_range(snap, i);

		fprintf(out, "%s{\"index\":%zu,\"start_pfn\":%" PRIu64 ",\"end_pfn\":%" PRIu64
			",\"pages\":%" PRIu64 ",\"pgmap\":%u,\"range_index\":%u,\"vmemmap_start\":\"0x%016" PRIx64 "\""
			",\"reserve\":[%" PRIu64 ",%" PRIu64 "],\"altmap\":[%" PRIu64 ",%" PRIu64 "],\"type\":",
			i ? "," : "", i, r->start_pfn, r->end_pfn, r->end_pfn - r->start_pfn,
			r->pgmap_index, r->range_index, r->vmemmap_start, r->reserve_start,
			r->reserve_end, r->altmap_start, r->altmap_end);
		mmc_json_string(out, mmc_report_type_short(mmc_report_range_type(snap, (int64_t)i)));
		fputc('}', out);
	}
	fputc(']', out);
	json_dax(out, snap);
}

void mmc_report_ranges_json(FILE *out, const struct mmc_snapshot *snap)
{
	fputs("{\"snapshot\":", out);
	json_info(out, snap);
	fputc(',', out);
	json_pgmaps_ranges(out, snap);
	fputs("}\n", out);
}

/* ---- show ---- */

static void json_record(FILE *out, const struct mmc_nrec *rec)
{
	fprintf(out, "\"state\":\"%s\",\"role\":\"%s\",\"slots\":[", jstate(rec->state), jrole(rec->role));
	for (unsigned int s = 0; s < rec->nslots && s < MMC_MAX_SLOTS; s++) {
		if (s)
			fputc(',', out);
		json_nval(out, &rec->slot[s]);
	}
	fputc(']', out);
}

static void json_folio(FILE *out, const struct mmc_folio_view *fv)
{
	fprintf(out, ",\"folio\":{\"order\":%u", fv->order);
	if (fv->have_nr_pages)
		fprintf(out, ",\"nr_pages\":%" PRIu64, fv->nr_pages);
	if (fv->have_large_mapcount)
		fprintf(out, ",\"large_mapcount\":%d", fv->large_mapcount);
	if (fv->have_entire_mapcount)
		fprintf(out, ",\"entire_mapcount\":%d", fv->entire_mapcount);
	if (fv->have_nr_pages_mapped)
		fprintf(out, ",\"nr_pages_mapped\":%d", fv->nr_pages_mapped);
	if (fv->have_pincount)
		fprintf(out, ",\"pincount\":%d", fv->pincount);
	if (fv->have_mm_id_mapcount)
		fprintf(out, ",\"mm_id_mapcount\":[%d,%d]", fv->mm_id_mapcount[0],
			fv->mm_id_mapcount[1]);
	if (fv->have_mm_ids) {
		fputs(",\"mm_ids\":", out);
		json_nval(out, &fv->mm_ids);
	}
	if (fv->have_deferred_list) {
		fputs(",\"deferred_list\":{\"next\":", out);
		json_nval(out, &fv->deferred_next);
		fputs(",\"prev\":", out);
		json_nval(out, &fv->deferred_prev);
		fputc('}', out);
	}
	fputc('}', out);
}

/* What the decoder says about a run's first record (the text show's columns). */
static void json_show_decoded(FILE *out, const struct mmc_snapshot *snap, size_t r,
			      uint64_t pfn, const struct mmc_nrec *rec)
{
	const struct mmc_layout *layout = mmc_snapshot_layout(snap);
	struct mmc_page_view v;
	char flags[512];

	mmc_page_decode(layout, mmc_snapshot_geom(snap), pfn, rec, &v);
	mmc_format_pgflags(layout, v.pgflags, flags, sizeof(flags));
	fputs(",\"flags\":", out);
	mmc_json_string(out, flags);
	if (v.flags_hold_order)
		fprintf(out, ",\"flags_order\":%u", v.flags_order);
	fprintf(out, ",\"zone\":%u,\"node\":%u,\"head\":%s,\"tail\":%s,\"kind\":\"%s\"",
		v.zone, v.node, v.head ? "true" : "false", v.tail ? "true" : "false",
		mmc_tail_index_name(v.tail_index));
	if (v.tail && v.head_pfn_valid)
		fprintf(out, ",\"head_pfn\":%" PRIu64, v.head_pfn);
	fprintf(out, ",\"refcount\":%d,\"mapcount\":%d,\"index\":%" PRIu64 ",\"pgmap\":",
		v.refcount, v.mapcount, v.index);
	json_nval(out, &v.pgmap);
	fputs(",\"mapping\":", out);
	json_nval(out, &v.mapping);
	fputs(",\"private\":", out);
	json_nval(out, &v.private_);
	if (v.head) {
		struct mmc_folio_view fv;

		mmc_snapshot_folio(snap, r, pfn, rec, &fv);
		if (fv.valid)
			json_folio(out, &fv);
	}
}

void mmc_report_show_pfn_json(FILE *out, const struct mmc_snapshot *snap, size_t range,
			      uint64_t pfn, const struct mmc_nrec *rec)
{
	fputs("{\"snapshot\":", out);
	json_info(out, snap);
	fprintf(out, ",\"range\":%zu,\"page\":{\"pfn\":%" PRIu64 ",", range, pfn);
	json_record(out, rec);
	if (rec->state == MMC_PS_READ || rec->state == MMC_PS_NOT_INIT)
		json_show_decoded(out, snap, range, pfn, rec);
	fputs("}}\n", out);
}

/* The range's vmemmap frame runs: frame i of a run has share_back +
 * i * d_share etc.; writable null where the snapshot does not record it. */
static void json_vframes(FILE *out, const struct mmc_snapshot *snap, size_t r)
{
	static const char *const kind[] = { "ram", "device", "unmapped", "unreadable" };
	static const char *const leaf[] = { "", "PTE", "PMD", "PUD" };
	size_t nv = mmc_snapshot_range_nvframe_runs(snap, r);

	fputs(",\"vframes\":[", out);
	for (size_t j = 0; j < nv; j++) {
		struct mmc_vframe f, d;
		uint64_t start, count;

		mmc_snapshot_range_vframe_run(snap, r, j, &start, &count, &f, &d);
		fprintf(out, "%s{\"first\":%" PRIu64 ",\"count\":%" PRIu64 ",\"kind\":\"%s\""
			",\"share_back\":%" PRId64 ",\"d_share\":%" PRId64 ",\"dev_off\":%" PRId64
			",\"d_dev\":%" PRId64 ",\"paddr\":%" PRIu64 ",\"d_paddr\":%" PRId64 ",\"writable\":%s",
			j ? "," : "", start, count, f.kind <= MMC_VF_UNREADABLE ? kind[f.kind] : "?",
			f.share_back, d.share_back, f.dev_off, d.dev_off, f.paddr, (int64_t)d.paddr,
			!(f.prot_known & MMC_VPROT_WRITABLE) ? "null" :
			f.prot & MMC_VPROT_WRITABLE ? "true" : "false");
		if (f.leaf >= MMC_VLEAF_PTE && f.leaf <= MMC_VLEAF_PUD)
			fprintf(out, ",\"leaf\":\"%s\"", leaf[f.leaf]);
		else
			fputs(",\"leaf\":null", out);
		fputc('}', out);
	}
	fputc(']', out);
}

void mmc_report_show_json(FILE *out, const struct mmc_snapshot *snap, long only)
{
	size_t nr = mmc_snapshot_nranges(snap);
	bool first_range = true;

	fputs("{\"snapshot\":", out);
	json_info(out, snap);
	fputs(",\"ranges\":[", out);
	for (size_t r = 0; r < nr; r++) {
		const struct mmc_srange *sr = mmc_snapshot_range(snap, r);
		size_t nruns = mmc_snapshot_range_nruns(snap, r);

		if (only >= 0 && (size_t)only != r)
			continue;
		fprintf(out, "%s{\"index\":%zu,\"start_pfn\":%" PRIu64 ",\"end_pfn\":%" PRIu64 ",\"pgmap\":%u,\"runs\":[",
			first_range ? "" : ",", r, sr->start_pfn, sr->end_pfn, sr->pgmap_index);
		first_range = false;
		for (size_t i = 0; i < nruns; i++) {
			struct mmc_nrec rec, stride;
			uint64_t pfn, count;

			mmc_snapshot_range_run(snap, r, i, &pfn, &count, &rec, &stride);
			fprintf(out, "%s{\"first_pfn\":%" PRIu64 ",\"last_pfn\":%" PRIu64 ",\"pages\":%" PRIu64 ",",
				i ? "," : "", pfn, pfn + count - 1, count);
			json_record(out, &rec);
			if (rec.state == MMC_PS_READ || rec.state == MMC_PS_NOT_INIT)
				json_show_decoded(out, snap, r, pfn, &rec);
			fputc('}', out);
		}
		fputc(']', out);
		json_vframes(out, snap, r);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

/* ---- diff ---- */

/* The report object opened: verdict, summary sentence, page counts,
 * where discovery stopped, the two snapshots. */
static void json_diff_summary(FILE *out, const struct mmc_snapshot *a,
			      const struct mmc_snapshot *b, const struct mmc_diff_result *res)
{
	char sentence[1024];
	uint64_t total = 0;

	mmc_report_diff_sentence(res, sentence, sizeof(sentence));
	for (size_t i = 0; i < res->nranges; i++)
		total += res->ranges[i].end_pfn - res->ranges[i].start_pfn;
	fprintf(out, "{\"verdict\":\"%s\",\"summary\":", mmc_verdict_name(res->verdict));
	mmc_json_string(out, sentence);
	fprintf(out, ",\"pages_total\":%" PRIu64 ",\"pages_compared\":%" PRIu64 ",\"pages_differing\":%" PRIu64
		",\"pages_unreadable\":%" PRIu64 ",\"pages_not_init\":%" PRIu64 ",\"layout_differs\":%s"
		",\"no_ranges\":%s,\"discovery_problem\":{\"base\":",
		total, res->pages_compared, res->pages_differing, res->pages_unreadable,
		res->pages_not_init, res->layout_differs ? "true" : "false",
		res->no_ranges ? "true" : "false");
	for (int k = 0; k < 2; k++) {
		if (k)
			fputs(",\"patched\":", out);
		if (res->discovery_incomplete[k])
			mmc_json_string(out, res->discovery_problem[k]);
		else
			fputs("null", out);
	}
	fputc('}', out);
	fputs(",\"base\":", out);
	json_info(out, a);
	fputs(",\"patched\":", out);
	json_info(out, b);
}

/* Range i of the diff: its counts and verdict (and claimed counts when
 * the diff had claims), the fields differing in it. */
static void json_diff_range(FILE *out, const struct mmc_snapshot *a,
			    const struct mmc_snapshot *b, const struct mmc_diff_result *res,
			    size_t i)
{
	const struct mmc_diff_range *r = &res->ranges[i];
	const char *type = mmc_report_range_type(r->a_index >= 0 ? a : b,
						 r->a_index >= 0 ? r->a_index : r->b_index);

	fprintf(out, "%s{\"start_pfn\":%" PRIu64 ",\"end_pfn\":%" PRIu64 ",\"a_index\":%" PRId64
		",\"b_index\":%" PRId64 ",\"type\":\"%s\",\"compared\":%" PRIu64 ",\"differing\":%" PRIu64
		",\"unreadable_a\":%" PRIu64 ",\"unreadable_b\":%" PRIu64 ",\"not_init\":%" PRIu64
		",\"vframes_differing\":%" PRIu64 ",\"vprot_not_compared\":%" PRIu64
		",\"placed_a\":%" PRIu64 ",\"placed_b\":%" PRIu64
		",\"unproven\":%s,\"verdict\":\"%s\",%s",
		i ? "," : "", r->start_pfn, r->end_pfn, r->a_index, r->b_index,
		mmc_report_type_short(type), r->compared, r->differing, r->unreadable_a,
		r->unreadable_b, r->not_init, r->vframes_differing, r->vprot_not_compared,
		r->placed_a, r->placed_b,
		r->unproven ? "true" : "false", mmc_verdict_name(r->verdict),
		res->claims ? "" : "\"fields\":{");
	if (res->claims)
		fprintf(out, "\"claimed\":%" PRIu64 ",\"vframes_claimed\":%" PRIu64
			",\"range_claimed\":%s,\"fields\":{", r->claimed, r->vframes_claimed,
			r->range_claimed ? "true" : "false");
	for (size_t f = 0; f < r->nfields && f < MMC_DIFF_MAX_FIELDS; f++) {
		if (f)
			fputc(',', out);
		mmc_json_string(out, r->fields[f].name);
		fprintf(out, ":%" PRIu64, r->fields[f].pages);
	}
	fputs("}}", out);
}

/* Fields over all ranges: a name appears once, first range order, its
 * pages summed over the ranges. */
static void json_diff_fields(FILE *out, const struct mmc_diff_result *res)
{
	bool first = true;

	for (size_t i = 0; i < res->nranges; i++) {
		for (size_t f = 0; f < res->ranges[i].nfields && f < MMC_DIFF_MAX_FIELDS; f++) {
			const char *name = res->ranges[i].fields[f].name;
			uint64_t sum = 0;
			bool seen = false;

			for (size_t j = 0; j < i && !seen; j++)
				for (size_t g = 0; g < res->ranges[j].nfields && g < MMC_DIFF_MAX_FIELDS; g++)
					if (strcmp(res->ranges[j].fields[g].name, name) == 0)
						seen = true;
			for (size_t g = 0; g < f && !seen; g++)
				if (strcmp(res->ranges[i].fields[g].name, name) == 0)
					seen = true;
			if (seen)
				continue;
			for (size_t j = i; j < res->nranges; j++)
				for (size_t g = 0; g < res->ranges[j].nfields && g < MMC_DIFF_MAX_FIELDS; g++)
					if (strcmp(res->ranges[j].fields[g].name, name) == 0)
						sum += res->ranges[j].fields[g].pages;
			fputs(first ? "" : ",", out);
			first = false;
			mmc_json_string(out, name);
			fprintf(out, ":%" PRIu64, sum);
		}
	}
}

/* One differing page: state and role on both sides, every differing slot
 * raw and decoded on both. */
static void json_diff_page(FILE *out, const struct mmc_layout *layout,
			   const struct mmc_diff_page *p)
{
	bool fs = true;

	fprintf(out, "{\"pfn\":%" PRIu64 ",\"range\":%zu,\"tail_index\":%u,\"state\":[\"%s\",\"%s\"],\"role\":[\"%s\",\"%s\"]"
		",\"state_differs\":%s,\"role_differs\":%s,\"slots\":[",
		p->pfn, p->range, p->tail_index, jstate(p->a.state),
		jstate(p->b.state), jrole(p->a.role), jrole(p->b.role),
		p->state_differs ? "true" : "false", p->role_differs ? "true" : "false");
	for (unsigned int s = 0; s < MMC_MAX_SLOTS; s++) {
		char label[48];

		if (!(p->slot_mask & (1u << s)))
			continue;
		mmc_slot_label_of(layout, (enum mmc_range_kind)p->kind, s, p->tail_index, label,
				  sizeof(label));
		fprintf(out, "%s{\"offset\":%u,\"field\":", fs ? "" : ",", s * 8);
		mmc_json_string(out, label);
		fputs(",\"a\":", out);
		json_nval(out, &p->a.slot[s]);
		fputs(",\"b\":", out);
		json_nval(out, &p->b.slot[s]);
		fputc('}', out);
		fs = false;
	}
	fputs("]}", out);
}

void mmc_report_diff_json(FILE *out, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			  const struct mmc_diff_result *res)
{
	json_diff_summary(out, a, b, res);
	fputs(",\"ranges\":[", out);
	for (size_t i = 0; i < res->nranges; i++)
		json_diff_range(out, a, b, res, i);
	fputs("],\"fields\":{", out);
	json_diff_fields(out, res);
	fprintf(out, "},\"groups_total\":%" PRIu64 ",\"groups\":[", res->groups_total);
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct mmc_diff_group *g = &res->groups[i];

		fprintf(out, "%s{\"range\":%zu,\"first_pfn\":%" PRIu64 ",\"last_pfn\":%" PRIu64 ",\"pages\":%" PRIu64 ",\"fields\":",
			i ? "," : "", g->range, g->first_pfn, g->last_pfn, g->npages);
		mmc_json_string(out, g->fields);
		fputc('}', out);
	}
	fputs("],\"pages\":[", out);
	for (size_t i = 0; i < res->npages; i++) {
		if (i)
			fputc(',', out);
		json_diff_page(out, mmc_snapshot_layout(a), &res->pages[i]);
	}
	fputs("],\"pgmap_diffs\":[", out);
	for (size_t i = 0; i < res->npgmap_diffs; i++) {
		if (i)
			fputc(',', out);
		mmc_json_string(out, res->pgmap_diffs[i]);
	}
	/* HugeTLB folios at a pfn in one image only, the pools alike */
	fprintf(out, "],\"pages_placed\":%" PRIu64 ",\"placement\":[", res->pages_placed);
	for (size_t i = 0; i < res->nplaced; i++) {
		const struct mmc_diff_placed *p = &res->placed[i];

		fprintf(out, "%s{\"pfn\":%" PRIu64 ",\"hstate\":%u,\"order\":%u,\"node\":%u"
			",\"list\":\"%s\",\"only_in\":\"%s\"}",
			i ? "," : "", p->pfn, p->hstate, p->order, p->node,
			p->list == MMC_FOLIO_FREE ? "free" : p->list == MMC_FOLIO_ACTIVE ? "active" : "?",
			p->side ? "patched" : "base");
	}
	fputc(']', out);
	mmc_report_claims_json(out, res);
	fputs("}\n", out);
}

/* ---- lint ---- */

void mmc_report_lint_json(FILE *out, const struct mmc_snapshot *snap,
			  const struct mmc_lint_result *res)
{
	static const struct { unsigned int gap; const char *name; } gaps[] = {
		{ MMC_LINT_GAP_UNREAD, "unreadable pages" },
		{ MMC_LINT_GAP_NO_RANGES, "no ZONE_DEVICE ranges" },
		{ MMC_LINT_GAP_DISCOVERY, "discovery incomplete" },
		{ MMC_LINT_GAP_NO_PAGES, "no page read" },
	};
	char sentence[1024];
	bool first = true;

	mmc_report_lint_sentence(snap, res, sentence, sizeof(sentence));
	fprintf(out, "{\"verdict\":\"%s\",\"summary\":", mmc_lint_verdict_name(res->verdict));
	mmc_json_string(out, sentence);
	fprintf(out, ",\"pages_checked\":%" PRIu64 ",\"pages_read\":%" PRIu64 ",\"ranges\":%zu,\"violations_total\":%" PRIu64
		",\"incomplete\":%s,\"incomplete_because\":[",
		res->pages_checked, res->pages_read, snap ? mmc_snapshot_nranges(snap) : 0,
		res->violations_total, res->incomplete ? "true" : "false");
	for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
		if (!(res->gaps & gaps[i].gap))
			continue;
		fprintf(out, "%s\"%s\"", first ? "" : ",", gaps[i].name);
		first = false;
	}
	fputs("],\"discovery_problem\":", out);
	if (res->gaps & MMC_LINT_GAP_DISCOVERY)
		mmc_json_string(out, res->discovery_problem);
	else
		fputs("null", out);
	fputs(",\"dax_range_unchecked\":", out);
	if (res->dax_unchecked) {
		fprintf(out, "{\"ranges\":%zu,\"why\":", res->dax_unchecked);
		mmc_json_string(out, res->dax_why);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\"vprot_unchecked\":%" PRIu64 ",\"hvo_alias\":%" PRIu64,
		res->vprot_unchecked, res->hvo_alias);
	fputs(",\"rules_unchecked\":", out);
	if (res->unchecked[0])
		mmc_json_string(out, res->unchecked);
	else
		fputs("null", out);
	fputs(",\"snapshot\":", out);
	if (snap)
		json_info(out, snap);
	else
		fputs("null", out);
	fputs(",\"rules\":{", out);
	for (size_t i = 0; i < res->nrules; i++) {
		if (i)
			fputc(',', out);
		mmc_json_string(out, res->rules[i].rule);
		fprintf(out, ":%" PRIu64, res->rules[i].pages);
	}
	fputs("},\"rule_sources\":{", out);
	for (size_t i = 0; i < res->nrules; i++) {
		const struct mmc_rule_info *ri = mmc_rule_info(res->rules[i].rule_id);

		if (i)
			fputc(',', out);
		mmc_json_string(out, res->rules[i].rule);
		fputc(':', out);
		mmc_json_string(out, ri ? ri->kernel : "");
	}
	fputs("},\"groups\":[", out);
	for (size_t i = 0; i < res->nviolations; i++) {
		const struct mmc_lint_violation *v = &res->violations[i];

		fprintf(out, "%s{\"rule\":", i ? "," : "");
		mmc_json_string(out, v->rule);
		fprintf(out, ",\"range\":%zu,\"first_pfn\":%" PRIu64 ",\"last_pfn\":%" PRIu64 ",\"pages\":%" PRIu64 ",\"message\":",
			v->range, v->pfn, v->pfn + v->npages - 1, v->npages);
		mmc_json_string(out, v->message);
		fputc('}', out);
	}
	fputs("]}\n", out);
}
