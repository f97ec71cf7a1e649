// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Difference map renderer (see report_svg.h).  Work is O(runs + groups +
 * rows * columns) per range, never O(pages): page kinds are taken per
 * snapshot run, differences per diff group, and both are added to columns
 * as pfn spans.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "outfile.h"
#include "page_decode.h"
#include "report_int.h"
#include "report_svg.h"

#define PLOT_X		210	/* left edge of the plot; row labels before it */
#define PLOT_W		1000	/* target plot width in px */
#define ROW_H		14
#define ROW_PITCH	17
#define DIFF_COLOUR	"#d62728"
#define CLAIM_COLOUR	"#2ca02c"	/* differs as a claim says (--claims) */
#define EMPTY_COLOUR	"#f2f2f2"

enum kind {
	K_HEAD, K_TAIL, K_SHARED, K_ORDER0, K_ALTMAP, K_RESERVE, K_UNREAD_A,
	K_UNREAD_B, K_N
};

static const struct {
	const char *label, *colour, *tint;
} kinds[K_N] = {
	[K_HEAD]     = { "head",                 "#08519c", NULL },
	[K_TAIL]     = { "tail",                 "#6baed6", NULL },
	[K_SHARED]   = { "tail, shared vmemmap", "#bdd7e7", NULL },
	[K_ORDER0]   = { "order-0",              "#756bb1", NULL },
	[K_ALTMAP]   = { "altmap memmap pfns",   "#31a354", "#e5f5e0" },
	[K_RESERVE]  = { "altmap reserve",       "#e6a817", "#fdf1cf" },
	[K_UNREAD_A] = { "unreadable in base",   "#252525", "#d9d9d9" },
	[K_UNREAD_B] = { "unreadable in new",    "#636363", "#d9d9d9" },
};

struct field_row {
	char name[48];
	uint64_t *cnt;		/* differing pages no claim covers, per column */
	uint64_t *ccnt;		/* differing pages a claim covers */
	const char *claim;	/* the first claim seen covering the row */
};

struct map {
	uint64_t start, npages;
	unsigned int ncols, colw;
	uint64_t *kind[K_N];
	uint64_t *any;			/* differing pages per column */
	uint64_t *cany;			/* claimed differing pages per column */
	size_t nfields, fields_cap;
	struct field_row *fields;
	uint64_t placed;		/* differing pages located by groups */
	uint64_t cplaced;		/* claimed pages located by claimed groups */
};

/* ---- binning ---- */

static unsigned int col_of(const struct map *m, uint64_t pfn)
{
	return (unsigned int)((unsigned __int128)(pfn - m->start) * m->ncols / m->npages);
}

/* First pfn of column c (c == ncols: the range's end). */
static uint64_t col_lo(const struct map *m, unsigned int c)
{
	return m->start + (uint64_t)(((unsigned __int128)c * m->npages + m->ncols - 1) /
				     m->ncols);
}

/* Add the pfns [p, q) to the columns they fall in (clipped to the range). */
static void add_span(const struct map *m, uint64_t *cnt, uint64_t p, uint64_t q)
{
	uint64_t end = m->start + m->npages;
	unsigned int c, c1;

	if (p < m->start)
		p = m->start;
	if (q > end)
		q = end;
	if (p >= q)
		return;
	c1 = col_of(m, q - 1);
	for (c = col_of(m, p); c <= c1; c++) {
		uint64_t lo = col_lo(m, c), hi = col_lo(m, c + 1);

		cnt[c] += (q < hi ? q : hi) - (p > lo ? p : lo);
	}
}

/* ---- what the pages are ---- */

static enum kind classify(const struct mmc_snapshot *s, uint64_t pfn,
			  const struct mmc_nrec *r)
{
	struct mmc_page_view v;

	if (r->state == MMC_PS_UNREADABLE || r->state == MMC_PS_UNMAPPED)
		return K_UNREAD_A;
	if (r->state == MMC_PS_NOT_INIT || r->role == MMC_ROLE_RESERVE)
		return K_RESERVE;
	if (r->role == MMC_ROLE_ALTMAP)
		return K_ALTMAP;
	if (r->role == MMC_ROLE_SHARED)
		return K_SHARED;
	mmc_page_decode(mmc_snapshot_layout(s), mmc_snapshot_geom(s), pfn, r, &v);
	if (v.head)
		return K_HEAD;
	if (v.tail)
		return K_TAIL;
	return K_ORDER0;
}

/*
 * A run shares state and role, and in practice its kind; when its first
 * and last record disagree (a stride through the flags word), fall back to
 * page by page for that run alone.
 */
static void add_kinds(struct map *m, const struct mmc_snapshot *s, size_t range,
		      bool unread_only, enum kind unread_kind)
{
	size_t nruns = mmc_snapshot_range_nruns(s, range);

	for (size_t j = 0; j < nruns; j++) {
		struct mmc_nrec first, stride, rec;
		uint64_t pfn, count;
		enum kind k0, k1;

		mmc_snapshot_range_run(s, range, j, &pfn, &count, &first, &stride);
		if (!count)
			continue;
		if (unread_only) {
			if (first.state == MMC_PS_UNREADABLE || first.state == MMC_PS_UNMAPPED)
				add_span(m, m->kind[unread_kind], pfn, pfn + count);
			continue;
		}
		k0 = classify(s, pfn, &first);
		k1 = k0;
		if (count > 1) {
			mmc_nrec_run_at(&first, &stride, count - 1, &rec);
			k1 = classify(s, pfn + count - 1, &rec);
		}
		if (k0 == k1) {
			add_span(m, m->kind[k0], pfn, pfn + count);
			continue;
		}
		for (uint64_t i = 0; i < count; i++) {
			mmc_nrec_run_at(&first, &stride, i, &rec);
			add_span(m, m->kind[classify(s, pfn + i, &rec)], pfn + i, pfn + i + 1);
		}
	}
}

/* ---- what differs ---- */

static uint64_t *field_row(struct map *m, const char *name, size_t len)
{
	struct field_row *f;

	if (len >= sizeof(f->name))
		len = sizeof(f->name) - 1;
	for (size_t i = 0; i < m->nfields; i++)
		if (strlen(m->fields[i].name) == len && !memcmp(m->fields[i].name, name, len))
			return m->fields[i].cnt;
	if (m->nfields == m->fields_cap) {
		size_t cap = m->fields_cap ? 2 * m->fields_cap : 16;

		f = realloc(m->fields, cap * sizeof(*f));
		if (!f)
			return NULL;
		m->fields = f;
		m->fields_cap = cap;
	}
	f = &m->fields[m->nfields];
	memcpy(f->name, name, len);
	f->name[len] = 0;
	f->cnt = calloc(m->ncols, sizeof(*f->cnt));
	f->ccnt = calloc(m->ncols, sizeof(*f->ccnt));
	f->claim = NULL;
	if (!f->cnt || !f->ccnt) {
		free(f->cnt);
		free(f->ccnt);
		return NULL;
	}
	m->nfields++;
	return f->cnt;
}

/* The claimed counts of the row named name (made if new). */
static struct field_row *row_of(struct map *m, const char *name, size_t len)
{
	if (!field_row(m, name, len))
		return NULL;
	for (size_t i = 0; i < m->nfields; i++)
		if (strlen(m->fields[i].name) == (len < sizeof(m->fields[i].name) ? len :
						  sizeof(m->fields[i].name) - 1) &&
		    !memcmp(m->fields[i].name, name, strlen(m->fields[i].name)))
			return &m->fields[i];
	return NULL;
}

/* Claimed differences (res->claims): their groups, and a claimed range
 * only in one image. */
static struct mmc_error *add_claimed(struct map *m, const struct mmc_diff_result *res,
				     size_t ri)
{
	const struct mmc_diff_claims *cl = res->claims;
	const struct mmc_diff_range *dr = &res->ranges[ri];

	if (!cl)
		return NULL;
	if (dr->range_claimed) {
		struct field_row *r = row_of(m, "range", 5);

		if (!r)
			return mmc_error_nomem();
		add_span(m, r->ccnt, dr->start_pfn, dr->end_pfn);
		add_span(m, m->cany, dr->start_pfn, dr->end_pfn);
		m->cplaced = dr->claimed;
		return NULL;
	}
	for (size_t i = 0; i < cl->ngroups; i++) {
		const struct mmc_diff_group *g = &cl->groups[i];
		const char *p = g->fields;

		if (g->range != ri)
			continue;
		add_span(m, m->cany, g->first_pfn, g->last_pfn + 1);
		m->cplaced += g->npages;
		while (*p) {
			size_t len = strcspn(p, ",");
			struct field_row *r = row_of(m, p, len);

			if (!r)
				return mmc_error_nomem();
			add_span(m, r->ccnt, g->first_pfn, g->last_pfn + 1);
			if (!r->claim && g->claim >= 0 && (size_t)g->claim < cl->nclaims)
				r->claim = cl->claim[g->claim].name;
			p += len;
			if (*p == ',')
				p++;
		}
	}
	return NULL;
}

static struct mmc_error *add_diffs(struct map *m, const struct mmc_diff_result *res,
				   size_t ri)
{
	const struct mmc_diff_range *dr = &res->ranges[ri];

	/* Rows in the order the text report lists the range's fields. */
	for (size_t i = 0; i < dr->nfields; i++)
		if (!field_row(m, dr->fields[i].name, strlen(dr->fields[i].name)))
			return mmc_error_nomem();
	if ((dr->a_index < 0 || dr->b_index < 0) && !dr->nfields)
		return add_claimed(m, res, ri);
	if (dr->a_index < 0 || dr->b_index < 0) {
		uint64_t *row = field_row(m, dr->fields[0].name, strlen(dr->fields[0].name));

		if (!row)
			return mmc_error_nomem();
		add_span(m, row, dr->start_pfn, dr->end_pfn);
		add_span(m, m->any, dr->start_pfn, dr->end_pfn);
		m->placed = dr->differing;
		return NULL;
	}
	for (size_t i = 0; i < res->ngroups; i++) {
		const struct mmc_diff_group *g = &res->groups[i];
		const char *p = g->fields;

		if (g->range != ri)
			continue;
		add_span(m, m->any, g->first_pfn, g->last_pfn + 1);
		m->placed += g->npages;
		while (*p) {
			size_t len = strcspn(p, ",");
			uint64_t *row = field_row(m, p, len);

			if (!row)
				return mmc_error_nomem();
			add_span(m, row, g->first_pfn, g->last_pfn + 1);
			p += len;
			if (*p == ',')
				p++;
		}
	}
	return add_claimed(m, res, ri);
}

static void map_free(struct map *m)
{
	for (int k = 0; k < K_N; k++)
		free(m->kind[k]);
	for (size_t i = 0; i < m->nfields; i++) {
		free(m->fields[i].cnt);
		free(m->fields[i].ccnt);
	}
	free(m->fields);
	free(m->any);
	free(m->cany);
}

/* ---- SVG ---- */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static uint64_t sum(const uint64_t *cnt, unsigned int c0, unsigned int c1)
{
	uint64_t n = 0;

	for (unsigned int c = c0; c < c1; c++)
		n += cnt[c];
	return n;
}

/* Rects of the runs of columns cnt has pages in. */
static void svg_runs(FILE *f, const struct map *m, int y, const char *label,
		     const char *colour, const uint64_t *cnt, bool differ, const char *how,
		     const char *claim)
{
	uint64_t n;

	for (unsigned int c = 0; c < m->ncols;) {
		unsigned int c1 = c;

		if (!cnt[c]) {
			c++;
			continue;
		}
		while (c1 < m->ncols && cnt[c1])
			c1++;
		fprintf(f, "<rect x=\"%u\" y=\"%d\" width=\"%u\" height=\"%d\" fill=\"%s\"",
			PLOT_X + c * m->colw, y, (c1 - c) * m->colw, ROW_H, colour);
		if (claim) {
			fputs(" data-claim=\"", f);
			xml_text(f, claim);
			fputc('"', f);
		}
		fputs("><title>", f);
		xml_text(f, label);
		n = sum(cnt, c, c1);
		fprintf(f, ": pfn %#" PRIx64 "-%#" PRIx64 ", %" PRIu64 " page%s%s%s", col_lo(m, c),
			col_lo(m, c1) - 1, n, n == 1 ? "" : "s",
			!differ ? "" : n == 1 ? " differs" : " differ", differ ? how : "");
		if (claim) {
			fputs(" (", f);
			xml_text(f, claim);
			fputc(')', f);
		}
		fputs("</title></rect>\n", f);
		c = c1;
	}
}

/* One row: light background, the tints, then a rect per run of non-empty
 * columns: claimed differences (ccnt) first, what no claim covers over
 * them. */
static void svg_row(FILE *f, const struct map *m, int y, const char *label,
		    const char *colour, const uint64_t *cnt, bool differ,
		    const uint64_t *tint_cnt[], const char *tint[], size_t ntint,
		    const uint64_t *ccnt, const char *claim)
{
	fprintf(f, "<g class=\"row\" data-row=\"");
	xml_text(f, label);
	fprintf(f, "\" data-y=\"%d\" data-height=\"%d\">\n", y, ROW_H);
	fprintf(f, "<text x=\"8\" y=\"%d\">", y + ROW_H - 3);
	xml_text(f, label);
	fprintf(f, "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%u\" height=\"%d\" fill=\"%s\"/>\n",
		PLOT_X, y, m->ncols * m->colw, ROW_H, EMPTY_COLOUR);
	for (size_t t = 0; t < ntint; t++) {
		for (unsigned int c = 0; c < m->ncols;) {
			unsigned int c1 = c;

			if (!tint_cnt[t][c]) {
				c++;
				continue;
			}
			while (c1 < m->ncols && tint_cnt[t][c1])
				c1++;
			fprintf(f, "<rect x=\"%u\" y=\"%d\" width=\"%u\" height=\"%d\" fill=\"%s\"/>\n",
				PLOT_X + c * m->colw, y, (c1 - c) * m->colw, ROW_H, tint[t]);
			c = c1;
		}
	}
	if (ccnt)
		svg_runs(f, m, y, label, CLAIM_COLOUR, ccnt, true, " as claimed", claim);
	svg_runs(f, m, y, label, colour, cnt, differ, ccnt ? " beyond the claims" : "", NULL);
	fputs("</g>\n", f);
}

static void svg_axis(FILE *f, const struct map *m, int y)
{
	unsigned int w = m->ncols * m->colw;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%u\" y2=\"%d\" stroke=\"#000\"/>\n",
		PLOT_X, y, PLOT_X + w, y);
	for (unsigned int t = 0; t <= 4; t++) {
		unsigned int c = m->ncols * t / 4;
		unsigned int x = PLOT_X + c * m->colw;
		const char *anchor = t == 0 ? "start" : t == 4 ? "end" : "middle";
		uint64_t pfn = t == 4 ? m->start + m->npages : col_lo(m, c);

		fprintf(f, "<line x1=\"%u\" y1=\"%d\" x2=\"%u\" y2=\"%d\" stroke=\"#000\"/>\n",
			x, y, x, y + 5);
		fprintf(f, "<text x=\"%u\" y=\"%d\" text-anchor=\"%s\">%#" PRIx64 "</text>\n",
			x, y + 18, anchor, pfn);
	}
	fprintf(f, "<text x=\"8\" y=\"%d\">pfn</text>\n", y + 18);
}

static void range_title(const struct mmc_snapshot *s, size_t idx, char *buf, size_t size)
{
	const struct mmc_srange *sr = mmc_snapshot_range(s, idx);
	const struct mmc_spgmap *pg = NULL;

	if (sr->pgmap_index < mmc_snapshot_npgmaps(s))
		pg = mmc_snapshot_pgmap(s, sr->pgmap_index);
	if (!pg) {
		snprintf(buf, size, "(no pgmap)");
		return;
	}
	snprintf(buf, size, "%s, pgmap#%" PRIu32 ", vmemmap_shift %" PRIu32 "%s",
		 mmc_report_type_short(pg->type_name), sr->pgmap_index, pg->vmemmap_shift,
		 pg->has_altmap ? ", altmap (map=dev)" : "");
}

static void svg_range(FILE *f, const struct map *m, const struct mmc_snapshot *a,
		      const struct mmc_snapshot *b, const struct mmc_diff_result *res,
		      size_t ri)
{
	const struct mmc_diff_range *dr = &res->ranges[ri];
	const struct mmc_snapshot *s = dr->a_index >= 0 ? a : b;
	size_t sidx = (size_t)(dr->a_index >= 0 ? dr->a_index : dr->b_index);
	const uint64_t *tint_cnt[K_N];
	const char *tint[K_N];
	size_t ntint = 0;
	char what[160];
	int y, width = PLOT_X + (int)(m->ncols * m->colw) + 60, height;
	int nrows = K_N + 1 + (int)m->nfields;

	height = 78 + nrows * ROW_PITCH + 22 + 70 + (res->claims ? 40 : 0);
	range_title(s, sidx, what, sizeof(what));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\" "
		"data-range=\"%zu\" data-start-pfn=\"%" PRIu64 "\" data-pages=\"%" PRIu64 "\" "
		"data-columns=\"%u\" data-plot-x=\"%d\" data-column-width=\"%u\" "
		"data-verdict=\"%s\">\n",
		width, height, width, height, ri, m->start, m->npages, m->ncols, PLOT_X,
		m->colw, mmc_verdict_name(dr->verdict));
	fprintf(f, "<title>memmapcheck map: range %zu, pfn %#" PRIx64 "-%#" PRIx64 ", %s</title>\n",
		ri, dr->start_pfn, dr->end_pfn - 1, mmc_verdict_name(dr->verdict));
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);
	fprintf(f, "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">range %zu: "
		"pfn %#" PRIx64 "-%#" PRIx64 " (%" PRIu64 " pages, %" PRIu64 " MiB) ",
		ri, dr->start_pfn, dr->end_pfn - 1, m->npages, m->npages >> 8);
	xml_text(f, what);
	fputs("</text>\n", f);
	if (res->claims)
		fprintf(f, "<text x=\"8\" y=\"36\">%s: %" PRIu64 " of %" PRIu64 " compared pages differ beyond the claims, %" PRIu64 " as claimed",
			mmc_verdict_name(dr->verdict), dr->differing, dr->compared, dr->claimed);
	else
		fprintf(f, "<text x=\"8\" y=\"36\">%s: %" PRIu64 " of %" PRIu64 " compared pages differ",
			mmc_verdict_name(dr->verdict), dr->differing, dr->compared);
	if (dr->unreadable_a || dr->unreadable_b)
		fprintf(f, "; unreadable: %" PRIu64 " base, %" PRIu64 " new",
			dr->unreadable_a, dr->unreadable_b);
	if (dr->not_init)
		fprintf(f, "; %" PRIu64 " never-initialised reserve pages not compared", dr->not_init);
	if (dr->vframes_differing)
		fprintf(f, "; %" PRIu64 " vmemmap frames differ (not placed on this map)",
			dr->vframes_differing);
	fputs("</text>\n", f);
	fprintf(f, "<text x=\"8\" y=\"52\">base %s (", mmc_snapshot_info(a)->release);
	xml_text(f, base_name(mmc_snapshot_info(a)->dump));
	fprintf(f, ") vs new %s (", mmc_snapshot_info(b)->release);
	xml_text(f, base_name(mmc_snapshot_info(b)->dump));
	fprintf(f, "); one column = %.1f pages</text>\n", (double)m->npages / m->ncols);
	if (m->placed < dr->differing)
		fprintf(f, "<text x=\"8\" y=\"68\" fill=\"" DIFF_COLOUR "\">%" PRIu64
			" differing pages not placed on this map (diff group limit)</text>\n",
			dr->differing - m->placed);

	y = 78;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-style=\"italic\">%s pages</text>\n",
		PLOT_X, y - 4, s == a ? "base" : "new");
	for (int k = 0; k < K_N; k++) {
		svg_row(f, m, y, kinds[k].label, kinds[k].colour, m->kind[k], false, NULL, NULL, 0,
			NULL, NULL);
		y += ROW_PITCH;
		if (kinds[k].tint) {
			tint_cnt[ntint] = m->kind[k];
			tint[ntint++] = kinds[k].tint;
		}
	}
	y += 16;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-style=\"italic\">differs in</text>\n",
		PLOT_X, y - 4);
	svg_row(f, m, y, "any field", DIFF_COLOUR, m->any, true, tint_cnt, tint, ntint,
		m->cany, NULL);
	y += ROW_PITCH;
	for (size_t i = 0; i < m->nfields; i++) {
		svg_row(f, m, y, m->fields[i].name, DIFF_COLOUR, m->fields[i].cnt, true,
			tint_cnt, tint, ntint, m->cany ? m->fields[i].ccnt : NULL,
			m->fields[i].claim);
		y += ROW_PITCH;
	}
	svg_axis(f, m, y + 2);
	y += 44;
	if (res->claims) {
		fprintf(f, "<text x=\"8\" y=\"%d\">red: a page of the column differs in the row's field beyond "
			"the claims; dark green: differs as claimed (the claim in the tooltip)</text>\n", y);
		fputs("<text x=\"8\" y=\"", f);
		fprintf(f, "%d\">shaded: altmap memmap pfns (light green), reserve (yellow), unreadable (grey); claims: ",
			y + 16);
		xml_text(f, base_name(res->claims->file));
		fputs("</text>\n", f);
		fprintf(f, "<g class=\"legend\"><rect x=\"8\" y=\"%d\" width=\"12\" height=\"12\" fill=\"" DIFF_COLOUR "\"/>"
			"<text x=\"24\" y=\"%d\">beyond the claims</text>"
			"<rect x=\"180\" y=\"%d\" width=\"12\" height=\"12\" fill=\"" CLAIM_COLOUR "\"/>"
			"<text x=\"196\" y=\"%d\">as claimed</text></g>\n", y + 24, y + 34, y + 24, y + 34);
	} else {
		fprintf(f, "<text x=\"8\" y=\"%d\">red: at least one page of the column differs in the row's "
			"field; shaded: altmap memmap pfns (green), reserve (yellow), unreadable (grey)</text>\n", y);
	}
	fputs("</svg>\n", f);
}

/* ---- files ---- */

/* DIR/NAME through mmc_outfile (temporary file, renamed when complete). */
static struct mmc_error *out_open(const char *dir, const char *name,
				  struct mmc_outfile **of)
{
	struct mmc_error *err;
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return mmc_error_nomem();
	err = mmc_outfile_open(path, NULL, 0, of);
	free(path);
	return err;
}

static struct mmc_error *write_range(const char *dir, const struct mmc_snapshot *a,
				     const struct mmc_snapshot *b,
				     const struct mmc_diff_result *res, size_t ri,
				     unsigned int columns)
{
	const struct mmc_diff_range *dr = &res->ranges[ri];
	struct map m = { .start = dr->start_pfn, .npages = dr->end_pfn - dr->start_pfn };
	struct mmc_error *err = NULL;
	struct mmc_outfile *of;
	char name[32];

	if (!m.npages)
		return NULL;
	m.ncols = m.npages < columns ? (unsigned int)m.npages : columns;
	m.colw = PLOT_W / m.ncols ? PLOT_W / m.ncols : 1;
	for (int k = 0; k < K_N; k++)
		if (!(m.kind[k] = calloc(m.ncols + 1, sizeof(uint64_t))))
			goto nomem;
	if (!(m.any = calloc(m.ncols + 1, sizeof(uint64_t))))
		goto nomem;
	if (res->claims && !(m.cany = calloc(m.ncols + 1, sizeof(uint64_t))))
		goto nomem;
	if (dr->a_index >= 0) {
		add_kinds(&m, a, (size_t)dr->a_index, false, K_UNREAD_A);
		if (dr->b_index >= 0)
			add_kinds(&m, b, (size_t)dr->b_index, true, K_UNREAD_B);
	} else {
		add_kinds(&m, b, (size_t)dr->b_index, false, K_UNREAD_B);
		/* b's own unreadable pages belong in the "new" row */
		memset(m.kind[K_UNREAD_A], 0, (m.ncols + 1) * sizeof(uint64_t));
		add_kinds(&m, b, (size_t)dr->b_index, true, K_UNREAD_B);
	}
	err = add_diffs(&m, res, ri);
	if (err)
		goto out;
	snprintf(name, sizeof(name), "range-%02zu.svg", ri);
	err = out_open(dir, name, &of);
	if (!err) {
		svg_range(mmc_outfile_stream(of), &m, a, b, res, ri);
		err = mmc_outfile_commit(of);
	}
out:
	map_free(&m);
	return err;
nomem:
	map_free(&m);
	return mmc_error_nomem();
}

static void write_index(FILE *f, const struct mmc_snapshot *a, const struct mmc_snapshot *b,
			const struct mmc_diff_result *res)
{
	char sentence[512];

	mmc_report_diff_sentence(res, sentence, sizeof(sentence));
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<title>memmapcheck difference map</title>\n"
	      "<style>body{font-family:monospace} img{border:1px solid #ccc}</style>"
	      "</head><body>\n<h1>memmapcheck difference map</h1>\n<p>", f);
	xml_text(f, sentence);
	fprintf(f, "</p>\n<p>base: %s, ", mmc_snapshot_info(a)->release);
	xml_text(f, mmc_snapshot_info(a)->dump);
	fprintf(f, "<br>new: %s, ", mmc_snapshot_info(b)->release);
	xml_text(f, mmc_snapshot_info(b)->dump);
	fputs("</p>\n", f);
	for (size_t i = 0; i < res->npgmap_diffs; i++) {
		fputs("<p>", f);
		xml_text(f, res->pgmap_diffs[i]);
		fputs("</p>\n", f);
	}
	for (size_t i = 0; i < res->nranges; i++) {
		const struct mmc_diff_range *dr = &res->ranges[i];

		if (dr->end_pfn == dr->start_pfn)
			continue;
		fprintf(f, "<h2>range %zu: pfn %#" PRIx64 "-%#" PRIx64 ", %s</h2>\n"
			"<a href=\"range-%02zu.svg\"><img src=\"range-%02zu.svg\" alt=\"range %zu\"></a>\n",
			i, dr->start_pfn, dr->end_pfn - 1, mmc_verdict_name(dr->verdict), i, i, i);
	}
	fputs("</body></html>\n", f);
}

struct mmc_error *mmc_report_svg(const char *dir, const struct mmc_snapshot *a,
				 const struct mmc_snapshot *b,
				 const struct mmc_diff_result *res,
				 const struct mmc_svg_opts *opts)
{
	unsigned int columns = opts && opts->columns ? opts->columns : MMC_SVG_COLUMNS;
	struct mmc_outfile *of;
	struct mmc_error *err;
	struct stat st;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return mmc_error_os(errno, dir, "mkdir");
	if (stat(dir, &st) != 0)
		return mmc_error_os(errno, dir, "stat");
	if (!S_ISDIR(st.st_mode))
		return mmc_error_create(MMC_ERR_USAGE, dir, "not a directory");
	for (size_t i = 0; i < res->nranges; i++) {
		err = write_range(dir, a, b, res, i, columns);
		if (err)
			return err;
	}
	err = out_open(dir, "index.html", &of);
	if (err)
		return err;
	write_index(mmc_outfile_stream(of), a, b, res);
	return mmc_outfile_commit(of);
}
