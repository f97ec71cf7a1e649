// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files, reading the RNGS section (doc/SNAPSHOT-FORMAT.md): each
 * range's header, then its page runs and its vmemmap frame runs (version
 * 1 and 2: plain runs; 3 on: patterns), every count checked against the
 * bytes the section has left and the positions the range has left before
 * anything is allocated or appended.  What the snapshot is given is then
 * checked again as the builder checks what a walk gives it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_file_cursor.h"
#include "snapshot_file_format.h"

/* One page run at r->pos (v1/v2, or a v3 pattern's body run, with its
 * per-repetition deltas when rep is not NULL).  `left`: pages the range
 * still has; `what`: "run N" or "pattern N run M" for messages. */
static uint64_t read_run(struct rd *r, const char *what, uint64_t left,
			 struct mmc_nrec *first, struct mmc_nrec *stride,
			 struct mmc_nrec *rep)
{
	uint64_t at = r->pos, count;
	unsigned int k;

	memset(first, 0, sizeof(*first));
	memset(stride, 0, sizeof(*stride));
	if (rep)
		memset(rep, 0, sizeof(*rep));
	count = get_u64(r, "run");
	first->state = stride->state = get_u8(r, "run");
	first->role = stride->role = get_u8(r, "run");
	first->nslots = stride->nslots = get_u8(r, "run");
	if (r->version >= 2)
		first->reason = stride->reason = get_u8(r, "run");
	if (r->err)
		return 0;
	if (count == 0 || count > left) {
		rd_bad(r, at, "%s: count %llu with %llu of the range's pages left", what,
		    (unsigned long long)count, (unsigned long long)left);
		return 0;
	}
	if (first->state > MMC_PS_NOT_INIT) {
		rd_bad(r, at + 8, "%s: page state %u out of range", what, first->state);
		return 0;
	}
	if (first->role > MMC_ROLE_SHARED) {
		rd_bad(r, at + 9, "%s: page role %u out of range", what, first->role);
		return 0;
	}
	if (first->nslots > MMC_MAX_SLOTS) {
		rd_bad(r, at + 10, "%s: %u slots, at most %d", what, first->nslots, MMC_MAX_SLOTS);
		return 0;
	}
	if (r->version < 2) {
		if (first->state == MMC_PS_UNREADABLE)
			first->reason = stride->reason = MMC_UR_UNKNOWN;
	} else if (first->state == MMC_PS_UNREADABLE ?
		   first->reason == MMC_UR_NONE || first->reason > MMC_UR_MAX :
		   first->reason != MMC_UR_NONE) {
		rd_bad(r, at + 11, "%s: reason %u for page state %u", what, first->reason,
		    first->state);
		return 0;
	}
	if (rep) {
		*rep = *stride;
	}
	for (k = 0; k < first->nslots && !r->err; k++) {
		uint64_t sat;

		rd_get_nval(r, &first->slot[k], "run slot");
		sat = r->pos;
		stride->slot[k].cls = first->slot[k].cls;
		stride->slot[k].v = (int64_t)get_u64(r, "run stride");
		stride->slot[k].raw = get_u64(r, "run stride");
		if (!r->err && first->slot[k].cls == MMC_V_RAW &&
		    (uint64_t)stride->slot[k].v != stride->slot[k].raw) {
			rd_bad(r, sat, "%s slot %u: raw stride differs from value stride", what, k);
			return 0;
		}
		if (!rep)
			continue;
		sat = r->pos;
		rep->slot[k].cls = first->slot[k].cls;
		rep->slot[k].v = (int64_t)get_u64(r, "pattern delta");
		rep->slot[k].raw = get_u64(r, "pattern delta");
		if (!r->err && first->slot[k].cls == MMC_V_RAW &&
		    (uint64_t)rep->slot[k].v != rep->slot[k].raw)
			rd_bad(r, sat, "%s slot %u: raw repetition delta differs from value delta",
			    what, k);
	}
	return r->err ? 0 : count;
}

/* What a range's page runs and its vmemmap frame runs share on disk:
 * v1/v2 hold plain runs, v3 patterns (reps repetitions of a body of runs,
 * reps 1 being a plain stretch).  One parser reads both sequences. */
union seq_elem {
	struct mmc_nrec page;
	struct mmc_vframe vframe;
};

struct seq_kind {
	const char *run_name;	/* "run" */
	const char *pat_name;	/* "pattern" */
	const char *unit;	/* "pages" */
	size_t elem;		/* bytes of one first/stride/delta record */
	uint64_t body_run;	/* bytes of one v3/v4 body run on disk (v5: body_run5) */
	uint64_t body_run5;
	uint64_t (*want)(const struct mmc_snapshot *snap, const struct mmc_srange *sr);
	uint64_t (*read)(struct rd *r, const char *what, uint64_t left,
			 void *first, void *stride, void *rep);
	struct mmc_error *(*append_run)(struct mmc_snapshot *snap, const void *first,
					const void *stride, uint64_t count);
	struct mmc_error *(*append_pattern)(struct mmc_snapshot *snap, uint32_t nbody,
					    const uint64_t *counts, const void *firsts,
					    const void *strides, const void *deltas,
					    uint64_t reps);
};

/* A repeating pattern's body as read: firsts, strides, deltas, counts,
 * kept from one pattern to the next. */
struct body_buf {
	char *f, *s, *d;
	uint64_t *counts;
	size_t cap;
};

static void body_free(struct body_buf *bb)
{
	free(bb->f);
	free(bb->s);
	free(bb->d);
	free(bb->counts);
	memset(bb, 0, sizeof(*bb));
}

static bool body_room(struct body_buf *bb, uint32_t nbody, size_t elem)
{
	if (nbody <= bb->cap)
		return true;
	body_free(bb);
	bb->f = calloc(nbody, elem);
	bb->s = calloc(nbody, elem);
	bb->d = calloc(nbody, elem);
	bb->counts = calloc(nbody, sizeof(*bb->counts));
	if (!bb->f || !bb->s || !bb->d || !bb->counts) {
		body_free(bb);
		return false;
	}
	bb->cap = nbody;
	return true;
}

/* Pattern j's header (version 3 on): reps and nbody, checked against what
 * the section can hold.  false: r->err is set. */
static bool read_pattern_head(struct rd *r, const struct seq_kind *k, uint64_t j,
			      uint64_t *reps, uint32_t *nbody)
{
	uint64_t at = r->pos;

	*reps = get_u64(r, k->pat_name);
	*nbody = get_u32(r, k->pat_name);
	if (r->err)
		return false;
	if (*reps == 0 || *nbody == 0) {
		rd_bad(r, at, "%s %llu: %llu repetitions of %u runs", k->pat_name,
		    (unsigned long long)j, (unsigned long long)*reps, *nbody);
		return false;
	}
	if (*nbody > (r->end - r->pos) / (r->version >= 5 ? k->body_run5 : k->body_run)) {
		rd_bad(r, at + 8, "%s %llu: %u runs do not fit in the section",
		    k->pat_name, (unsigned long long)j, *nbody);
		return false;
	}
	if (*reps > 1 && *nbody > PAT_MAX_BODY) {
		rd_bad(r, at + 8, "%s %llu: %u runs, at most %d in a repeating pattern",
		    k->pat_name, (unsigned long long)j, *nbody, PAT_MAX_BODY);
		return false;
	}
	return true;
}

/* nbody runs appended one by one: a plain stretch (pattern j), or run j
 * of a version 1/2 file.  Returns the positions they cover. */
static uint64_t parse_plain(struct rd *r, struct mmc_snapshot *snap,
			    const struct seq_kind *k, uint64_t j, uint32_t nbody,
			    uint64_t left)
{
	uint64_t seen = 0;
	char what[64];

	for (uint32_t b = 0; b < nbody && !r->err; b++) {
		union seq_elem first, stride;
		uint64_t rat = r->pos, count;

		if (r->version >= 3)
			snprintf(what, sizeof(what), "%s %llu run %u", k->pat_name,
				 (unsigned long long)j, b);
		else
			snprintf(what, sizeof(what), "%s %llu", k->run_name, (unsigned long long)j);
		count = k->read(r, what, left - seen, &first, &stride, NULL);
		if (r->err)
			break;
		seen += count;
		rd_wrap(r, rat, k->append_run(snap, &first, &stride, count));
	}
	return seen;
}

/* Pattern j at `at`, repeating reps times: its body read, then appended
 * whole.  `left` of the range's `want` positions remain.  Returns the
 * positions it covers. */
static uint64_t parse_repeating(struct rd *r, struct mmc_snapshot *snap,
				const struct seq_kind *k, uint64_t j, uint64_t at,
				uint32_t nbody, uint64_t reps, uint64_t left, uint64_t want,
				struct body_buf *bb)
{
	uint64_t period = 0;
	char what[64];

	if (!body_room(bb, nbody, k->elem)) {
		rd_wrap(r, at, mmc_error_nomem());
		return 0;
	}
	for (uint32_t b = 0; b < nbody && !r->err; b++) {
		snprintf(what, sizeof(what), "%s %llu run %u", k->pat_name,
			 (unsigned long long)j, b);
		bb->counts[b] = k->read(r, what, left - period, bb->f + b * k->elem,
					bb->s + b * k->elem, bb->d + b * k->elem);
		period += bb->counts[b];
	}
	if (r->err)
		return 0;
	if (period > left / reps) {
		rd_bad(r, at, "%s %llu: %llu repetitions of %llu %s with %llu of the range's %llu %s left",
		    k->pat_name, (unsigned long long)j, (unsigned long long)reps,
		    (unsigned long long)period, k->unit, (unsigned long long)left,
		    (unsigned long long)want, k->unit);
		return 0;
	}
	rd_wrap(r, at, k->append_pattern(snap, nbody, bb->counts, bb->f, bb->s, bb->d, reps));
	return period * reps;
}

/* A range's n page or vframe runs (v1/v2) or patterns (v3 on), which
 * must cover the range exactly. */
static void parse_seq(struct rd *r, struct mmc_snapshot *snap, const struct mmc_srange *sr,
		      uint64_t n, const struct seq_kind *k)
{
	uint64_t want = k->want(snap, sr), seen = 0;
	struct body_buf bb = { 0 };

	for (uint64_t j = 0; j < n && !r->err; j++) {
		uint64_t at = r->pos, reps = 1;
		uint32_t nbody = 1;

		if (r->version >= 3 && !read_pattern_head(r, k, j, &reps, &nbody))
			break;
		if (reps == 1)
			seen += parse_plain(r, snap, k, j, nbody, want - seen);
		else
			seen += parse_repeating(r, snap, k, j, at, nbody, reps, want - seen,
						want, &bb);
	}
	body_free(&bb);
	if (!r->err && seen != want)
		rd_bad(r, r->pos, "range [0x%llx, 0x%llx): %ss hold %llu %s, want %llu",
		    (unsigned long long)sr->start_pfn, (unsigned long long)sr->end_pfn,
		    r->version >= 3 ? k->pat_name : k->run_name, (unsigned long long)seen,
		    k->unit, (unsigned long long)want);
}

static uint64_t want_pages(const struct mmc_snapshot *snap, const struct mmc_srange *sr)
{
	(void)snap;
	return sr->end_pfn - sr->start_pfn;
}

static uint64_t read_page_run(struct rd *r, const char *what, uint64_t left,
			      void *first, void *stride, void *rep)
{
	return read_run(r, what, left, first, stride, rep);
}

static struct mmc_error *append_page_run(struct mmc_snapshot *snap, const void *first,
					 const void *stride, uint64_t count)
{
	return mmc_snapshot_append_run(snap, first, stride, count);
}

static struct mmc_error *append_page_pattern(struct mmc_snapshot *snap, uint32_t nbody,
					     const uint64_t *counts, const void *firsts,
					     const void *strides, const void *deltas,
					     uint64_t reps)
{
	return mmc_snapshot_append_pattern(snap, nbody, counts, firsts, strides, deltas, reps);
}

static const struct seq_kind page_seq = {
	.run_name = "run", .pat_name = "pattern", .unit = "pages",
	.elem = sizeof(struct mmc_nrec), .body_run = RUN_HDR, .body_run5 = RUN_HDR,
	.want = want_pages, .read = read_page_run,
	.append_run = append_page_run, .append_pattern = append_page_pattern,
};

/* One vframe run (and its repetition deltas when rep is not NULL). */
static uint64_t read_vrun(struct rd *r, const char *what, uint64_t left,
			  struct mmc_vframe *f, struct mmc_vframe *s, struct mmc_vframe *rep)
{
	uint64_t at = r->pos, count;

	memset(f, 0, sizeof(*f));
	memset(s, 0, sizeof(*s));
	count = get_u64(r, "vframe run");
	f->kind = get_u8(r, "vframe run");
	if (r->version >= 2)
		f->reason = get_u8(r, "vframe run");
	else if (f->kind == MMC_VF_UNREADABLE)
		f->reason = MMC_UR_UNKNOWN;
	if (r->version >= 5) {
		f->prot_known = get_u8(r, "vframe run");
		f->prot = get_u8(r, "vframe run");
		f->leaf = get_u8(r, "vframe run");
	}
	f->share_back = (int64_t)get_u64(r, "vframe run");
	s->share_back = (int64_t)get_u64(r, "vframe run");
	f->dev_off = (int64_t)get_u64(r, "vframe run");
	s->dev_off = (int64_t)get_u64(r, "vframe run");
	f->paddr = get_u64(r, "vframe run");
	s->paddr = get_u64(r, "vframe run");
	if (rep) {
		memset(rep, 0, sizeof(*rep));
		rep->share_back = (int64_t)get_u64(r, "vframe pattern delta");
		rep->dev_off = (int64_t)get_u64(r, "vframe pattern delta");
		rep->paddr = get_u64(r, "vframe pattern delta");
	}
	if (r->err)
		return 0;
	if (count == 0 || count > left) {
		rd_bad(r, at, "%s: count %llu with %llu frames left", what,
		    (unsigned long long)count, (unsigned long long)left);
		return 0;
	}
	if (f->kind > MMC_VF_UNREADABLE) {
		rd_bad(r, at + 8, "%s: kind %u out of range", what, f->kind);
		return 0;
	}
	if (f->kind == MMC_VF_UNREADABLE ?
	    f->reason == MMC_UR_NONE || f->reason > MMC_UR_MAX :
	    f->reason != MMC_UR_NONE) {
		rd_bad(r, at + 9, "%s: reason %u for kind %u", what, f->reason, f->kind);
		return 0;
	}
	if ((f->prot_known & ~MMC_VPROT_ALL) || (f->prot & ~f->prot_known) ||
	    ((f->kind == MMC_VF_RAM || f->kind == MMC_VF_DEVICE) ?
	     (f->prot_known ? f->leaf < MMC_VLEAF_PTE || f->leaf > MMC_VLEAF_PUD :
			      f->leaf != MMC_VLEAF_NONE) :
	     f->prot_known || f->leaf)) {
		rd_bad(r, at + 10, "%s: protection 0x%x (recorded 0x%x), leaf level %u for kind %u",
		    what, f->prot, f->prot_known, f->leaf, f->kind);
		return 0;
	}
	return count;
}

static uint64_t want_vframes(const struct mmc_snapshot *snap, const struct mmc_srange *sr)
{
	uint64_t ps = mmc_snapshot_geom(snap)->page_size;

	return ((sr->end_pfn - sr->start_pfn) *
		mmc_snapshot_geom(snap)->struct_page_size + ps - 1) / ps;
}

static uint64_t read_vframe_run(struct rd *r, const char *what, uint64_t left,
				void *first, void *stride, void *rep)
{
	return read_vrun(r, what, left, first, stride, rep);
}

static struct mmc_error *append_vframe_run(struct mmc_snapshot *snap, const void *first,
					   const void *stride, uint64_t count)
{
	return mmc_snapshot_append_vframe_run(snap, first, stride, count);
}

static struct mmc_error *append_vframe_pattern(struct mmc_snapshot *snap, uint32_t nbody,
					       const uint64_t *counts, const void *firsts,
					       const void *strides, const void *deltas,
					       uint64_t reps)
{
	return mmc_snapshot_append_vframe_pattern(snap, nbody, counts, firsts, strides,
						  deltas, reps);
}

static const struct seq_kind vframe_seq = {
	.run_name = "vframe run", .pat_name = "vframe pattern", .unit = "vmemmap frames",
	.elem = sizeof(struct mmc_vframe), .body_run = VRUN_SIZE_V2, .body_run5 = VRUN_SIZE,
	.want = want_vframes, .read = read_vframe_run,
	.append_run = append_vframe_run, .append_pattern = append_vframe_pattern,
};

void rd_parse_ranges(struct rd *r, struct mmc_snapshot *snap)
{
	uint64_t run_hdr = r->version >= 3 ? PAT_HDR + RUN_HDR :
			   r->version >= 2 ? RUN_HDR : RUN_HDR_V1;
	uint64_t vrun_size = r->version >= 5 ? PAT_HDR + VRUN_SIZE :
			     r->version >= 3 ? PAT_HDR + VRUN_SIZE_V2 :
			     r->version >= 2 ? VRUN_SIZE_V2 : VRUN_SIZE_V1;
	uint64_t range_hdr = r->version >= 5 ? RANGE_HDR : RANGE_HDR_V1;
	uint64_t at = r->pos;
	uint32_t n = get_u32(r, "range count"), i;

	if (!r->err && n > (r->end - r->pos) / range_hdr) {
		rd_bad(r, at, "range count %u does not fit in the section", n);
		return;
	}
	for (i = 0; i < n && !r->err; i++) {
		struct mmc_srange sr;
		uint64_t rat = r->pos, nruns, nv, nat;

		memset(&sr, 0, sizeof(sr));
		sr.start_pfn = get_u64(r, "range");
		sr.end_pfn = get_u64(r, "range");
		sr.pgmap_index = get_u32(r, "range");
		sr.range_index = get_u32(r, "range");
		sr.vmemmap_start = get_u64(r, "range");
		sr.reserve_start = get_u64(r, "range");
		sr.reserve_end = get_u64(r, "range");
		sr.altmap_start = get_u64(r, "range");
		sr.altmap_end = get_u64(r, "range");
		if (r->version >= 5) {
			sr.kind = get_u8(r, "range kind");
			sr.owner = get_u32(r, "range owner");
		} else {
			sr.owner = sr.pgmap_index;
		}
		nat = r->pos;
		nruns = get_u64(r, "range run count");
		nv = get_u64(r, "range vframe run count");
		if (r->err)
			return;
		if (sr.end_pfn < sr.start_pfn) {
			rd_bad(r, rat, "range %u ends before it starts", i);
			return;
		}
		if ((sr.end_pfn - sr.start_pfn) > (UINT64_MAX >> 8)) {
			rd_bad(r, rat, "range %u: %llu pages is too many", i,
			    (unsigned long long)(sr.end_pfn - sr.start_pfn));
			return;
		}
		if (sr.kind >= MMC_RANGE_KINDS) {
			rd_bad(r, rat + 64, "range %u: kind %u out of range", i, sr.kind);
			return;
		}
		if (sr.kind == MMC_RANGE_PGMAP && sr.pgmap_index >= mmc_snapshot_npgmaps(snap)) {
			rd_bad(r, rat + 16, "range %u: pgmap %u of %zu", i, sr.pgmap_index,
			    mmc_snapshot_npgmaps(snap));
			return;
		}
		if (sr.kind == MMC_RANGE_PGMAP && sr.owner != sr.pgmap_index) {
			rd_bad(r, rat + 65, "range %u: owner %u is not its pgmap %u", i, sr.owner,
			    sr.pgmap_index);
			return;
		}
		if (nruns > (r->end - r->pos) / run_hdr ||
		    nv > (r->end - r->pos) / vrun_size ||
		    nruns * run_hdr + nv * vrun_size > r->end - r->pos) {
			rd_bad(r, nat, "range %u: %llu runs and %llu vframe runs do not fit in the section",
			    i, (unsigned long long)nruns, (unsigned long long)nv);
			return;
		}
		if (rd_wrap(r, rat, mmc_snapshot_begin_range(snap, &sr)))
			return;
		parse_seq(r, snap, &sr, nruns, &page_seq);
		parse_seq(r, snap, &sr, nv, &vframe_seq);
		if (!r->err)
			rd_wrap(r, r->pos, mmc_snapshot_end_range(snap));
	}
}
