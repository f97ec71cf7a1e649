// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot, building: pgmaps, ranges and, per range, runs of records and of
 * vmemmap frames.  A run is (start pfn, count, first record, per-slot
 * stride); the encoder extends the open run when a new record equals
 * first + count * stride (the stride is fixed by a run's second record).
 * Closed runs go to the range's seqs, which fold repeated groups of runs
 * into patterns (snapshot_seq.h): memory is O(patterns + unrepeated runs).
 * Reading: snapshot_mem.c; the run codec: snapshot_codec.c.  All of that is
 * in memory: files are snapshot_file_*.c, which the builder reaches only
 * through its sink (snapshot_int.h).
 */
#include "mmc_util.h"
#include "snapshot.h"
#include "snapshot_int.h"

#include <stdlib.h>
#include <string.h>

static void copy_str(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "";
	snprintf(dst, size, "%s", src);
}

/* Grow *arr (elements of `elem` bytes) to hold at least `need`. */
static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	return mmc_grow_array(arr, cap, need, elem, 4);
}

struct mmc_error *mmc_snapshot_create(const struct mmc_layout *layout,
				      const struct mmc_geom *geom,
				      const char *dump, const char *created_by,
				      struct mmc_snapshot **out)
{
	struct mmc_snapshot *s;
	struct mmc_error *err;

	*out = NULL;
	if (!geom)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: no geometry");
	if (geom->page_size == 0 || (geom->page_size & (geom->page_size - 1)) ||
	    geom->page_size > (1u << 24))
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: page size %u is not a power of two up to 16 MiB",
					geom->page_size);
	if (geom->struct_page_size % 8 ||
	    geom->struct_page_size > 8 * MMC_MAX_SLOTS)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: struct page size %u is not a multiple of 8 up to %d",
					geom->struct_page_size, 8 * MMC_MAX_SLOTS);
	s = calloc(1, sizeof(*s));
	if (!s)
		return mmc_error_nomem();
	s->geom = *geom;
	if (layout) {
		err = mmc_layout_copy(layout, &s->layout);
		if (err) {
			free(s);
			return err;
		}
		copy_str(s->info.release, sizeof(s->info.release), layout->release);
		copy_str(s->info.build_id, sizeof(s->info.build_id), layout->build_id);
		copy_str(s->info.layout_source, sizeof(s->info.layout_source),
			 layout->source);
		s->info.layout_fingerprint = mmc_layout_fingerprint(layout);
	}
	copy_str(s->info.dump, sizeof(s->info.dump), dump);
	copy_str(s->info.created_by, sizeof(s->info.created_by), created_by);
	copy_str(s->dax_why, sizeof(s->dax_why), "not looked for");
	snap_pools_init(s);
	*out = s;
	return NULL;
}

void mmc_snapshot_destroy(struct mmc_snapshot *snap)
{
	size_t i;

	if (!snap)
		return;
	for (i = 0; i < snap->nranges; i++) {
		seq_free(&snap->ranges[i].runs);
		seq_free(&snap->ranges[i].vruns);
	}
	free(snap->ranges);
	free(snap->pgmaps);
	for (i = 0; i < snap->nnotes; i++)
		free(snap->notes[i]);
	free(snap->notes);
	free(snap->dax);
	snap_pools_free(snap);
	mmc_layout_destroy(snap->layout);
	if (snap->sink.ctx)
		snap->sink.release(snap->sink.ctx);
	free(snap);
}

void mmc_snapshot_set_info(struct mmc_snapshot *snap,
			   const struct mmc_snapshot_info *info)
{
	snap->info = *info;
	snap->info.release[sizeof(snap->info.release) - 1] = 0;
	snap->info.build_id[sizeof(snap->info.build_id) - 1] = 0;
	snap->info.dump[sizeof(snap->info.dump) - 1] = 0;
	snap->info.layout_source[sizeof(snap->info.layout_source) - 1] = 0;
	snap->info.created_by[sizeof(snap->info.created_by) - 1] = 0;
}

struct mmc_error *mmc_snapshot_add_pgmap(struct mmc_snapshot *snap,
					 const struct mmc_spgmap *pgmap)
{
	if (snap->npgmaps >= UINT32_MAX)
		return mmc_error_create(MMC_ERR_INPUT, NULL, "snapshot: too many pgmaps");
	if (!grow((void **)&snap->pgmaps, &snap->pgmaps_cap, snap->npgmaps + 1,
		  sizeof(*snap->pgmaps)))
		return mmc_error_nomem();
	snap->pgmaps[snap->npgmaps] = *pgmap;
	snap->pgmaps[snap->npgmaps].type_name[sizeof(pgmap->type_name) - 1] = 0;
	snap->npgmaps++;
	return NULL;
}

struct mmc_error *mmc_snapshot_begin_range(struct mmc_snapshot *snap,
					   const struct mmc_srange *range)
{
	struct snap_range *r;

	if (snap->building)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: range begun while another is open");
	if (range->end_pfn < range->start_pfn)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx) ends before it starts",
					(unsigned long long)range->start_pfn,
					(unsigned long long)range->end_pfn);
	if (range->kind == MMC_RANGE_PGMAP && range->pgmap_index >= snap->npgmaps)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx) names pgmap %u of %zu",
					(unsigned long long)range->start_pfn,
					(unsigned long long)range->end_pfn,
					range->pgmap_index, snap->npgmaps);
	if (range->kind != MMC_RANGE_PGMAP) {
		struct mmc_error *err = snap_pools_check_owner(snap, range);

		if (err)
			return err;
	}
	if (!grow((void **)&snap->ranges, &snap->ranges_cap, snap->nranges + 1,
		  sizeof(*snap->ranges)))
		return mmc_error_nomem();
	r = &snap->ranges[snap->nranges++];
	memset(r, 0, sizeof(*r));
	r->r = *range;
	if (range->kind == MMC_RANGE_PGMAP)
		r->r.owner = range->pgmap_index;
	seq_init(&r->runs);
	seq_init(&r->vruns);
	r->runs.end = range->start_pfn;
	snap->building = true;
	snap->hist.valid = false;
	return snap->sink.ctx ? snap->sink.range_begin(snap->sink.ctx, snap) : NULL;
}

/* After an addition to the open range: the sink takes what is final. */
static struct mmc_error *sink_added(struct mmc_snapshot *snap)
{
	return snap->sink.ctx ? snap->sink.added(snap->sink.ctx, snap) : NULL;
}

static struct snap_range *open_range(struct mmc_snapshot *snap)
{
	return snap->building ? &snap->ranges[snap->nranges - 1] : NULL;
}

static uint64_t expected_vframes(const struct mmc_snapshot *snap,
				 const struct snap_range *r)
{
	uint64_t npages = r->r.end_pfn - r->r.start_pfn;
	uint64_t ps = snap->geom.page_size;

	/* npages * struct_page_size cannot overflow for real pfn counts */
	if (npages > UINT64_MAX / 256)
		return UINT64_MAX;
	return (npages * snap->geom.struct_page_size + ps - 1) / ps;
}

static bool rec_valid(const struct mmc_nrec *rec)
{
	unsigned int i;

	if (rec->state > MMC_PS_NOT_INIT || rec->role > MMC_ROLE_SHARED ||
	    rec->nslots > MMC_MAX_SLOTS || rec->reason > MMC_UR_MAX)
		return false;
	for (i = 0; i < rec->nslots; i++) {
		if (rec->slot[i].cls > MMC_V_OBJ ||
		    rec->slot[i].region > MMC_R_MMID)
			return false;
	}
	return true;
}

/* Close the open page run: into the range's seq, where patterns fold. */
static struct mmc_error *close_run(struct snap_range *r)
{
	struct seq_item it;

	if (!r->cur.open)
		return NULL;
	r->cur.open = false;
	snap_run_item(&r->cur, &it);
	return seq_push(&r->runs, &it) ? NULL : mmc_error_nomem();
}

static struct mmc_error *close_vrun(struct snap_range *r)
{
	struct seq_item it;

	if (!r->vcur.open)
		return NULL;
	r->vcur.open = false;
	snap_vrun_item(&r->vcur, &it);
	return seq_push(&r->vruns, &it) ? NULL : mmc_error_nomem();
}

/* *dst = *src as far as anything reads a run: the slots past nslots
 * are never read */
static void run_copy(struct snap_run *dst, const struct snap_run *src)
{
	size_t used = offsetof(struct snap_run, slot) + src->nslots * sizeof(src->slot[0]);

	memcpy(dst, src, used);
}

/* The open run closes: the mark's history keeps it if it began after the
 * mark. */
static void hist_keep(struct mmc_snapshot *snap, const struct snap_range *r)
{
	struct snap_hist *h = &snap->hist;

	if (!h->valid || !r->cur.open || r->cur.start < r->r.start_pfn + h->mark)
		return;
	if (h->n == SNAP_HIST_MAX) {
		h->valid = false;
		return;
	}
	run_copy(&h->run[h->side][h->n++], &r->cur);
}

/* New open run of `count` records from first/stride (stride NULL: zero). */
static struct mmc_error *push_run(struct snap_range *r, const struct mmc_nrec *first,
				  const struct mmc_nrec *stride, uint64_t count)
{
	struct snap_run *run = &r->cur;
	struct mmc_error *err = close_run(r);

	if (err)
		return err;
	snap_run_set(run, r->r.start_pfn + r->nrecs, count, first, stride);
	run->open = true;
	r->nrecs += count;
	return NULL;
}

/* Would rec continue the run (open or not)? */
static bool run_accepts(const struct snap_run *run, const struct mmc_nrec *rec)
{
	const struct snap_slot *sl = run->slot;
	unsigned int i;

	if (run->state != rec->state || run->role != rec->role ||
	    run->nslots != rec->nslots || run->reason != rec->reason ||
	    run->count == UINT64_MAX)
		return false;
	/* one pass: classes equal and (from the third record) on the line */
	for (i = 0; i < rec->nslots; i++) {
		const struct mmc_nval *v = &rec->slot[i];

		if (sl[i].cls != v->cls || sl[i].off != v->off ||
		    sl[i].region != v->region)
			return false;
		if (run->count > 1 &&
		    (lin(sl[i].v, sl[i].dv, run->count) != v->v ||
		     sl[i].raw + sl[i].draw * run->count != v->raw))
			return false;
	}
	return true;
}

/* A run's same_bytes and same_limit, from its first record and stride (set
 * when it has a second record). */
static void run_set_same(struct snap_run *run)
{
	struct snap_slot *sl = run->slot;
	unsigned int i;

	run->same_bytes = true;
	run->same_limit = UINT64_MAX;
	for (i = 0; i < run->nslots; i++) {
		if (sl[i].draw != 0 || sl[i].cls == MMC_V_SELF ||
		    sl[i].dv != (sl[i].cls == MMC_V_PAGE ? -1 : 0))
			run->same_bytes = false;
		else if (sl[i].cls == MMC_V_PAGE && sl[i].v > 0 &&
			 (uint64_t)sl[i].v < run->same_limit)
			run->same_limit = (uint64_t)sl[i].v;
	}
}

/* Does rec continue the open run?  Sets the stride on a run's second record. */
static bool extend_run(struct snap_range *r, const struct mmc_nrec *rec)
{
	struct snap_run *run = &r->cur;
	struct snap_slot *sl = run->slot;
	unsigned int i;

	if (!run->open || !run_accepts(run, rec))
		return false;
	if (run->count == 1) {
		for (i = 0; i < rec->nslots; i++) {
			sl[i].dv = (int64_t)((uint64_t)rec->slot[i].v - (uint64_t)sl[i].v);
			sl[i].draw = rec->slot[i].raw - sl[i].raw;
		}
		run_set_same(run);
	}
	run->count++;
	r->nrecs++;
	return true;
}

static struct mmc_error *check_room(const struct snap_range *r, uint64_t count)
{
	uint64_t npages = r->r.end_pfn - r->r.start_pfn;

	if (count > npages - r->nrecs)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx): more than %llu records",
					(unsigned long long)r->r.start_pfn,
					(unsigned long long)r->r.end_pfn,
					(unsigned long long)npages);
	return NULL;
}

/*
 * An unreadable record always says why (MMC_UR_UNKNOWN when the producer
 * did not), any other has no reason: the file format relies on it.
 * Returns rec, or *fixed holding the corrected copy.
 */
static const struct mmc_nrec *reason_fixed(const struct mmc_nrec *rec,
					   struct mmc_nrec *fixed)
{
	bool unread = rec->state == MMC_PS_UNREADABLE;

	if (unread ? rec->reason != MMC_UR_NONE : rec->reason == MMC_UR_NONE)
		return rec;
	*fixed = *rec;
	fixed->reason = unread ? MMC_UR_UNKNOWN : MMC_UR_NONE;
	return fixed;
}

static uint8_t vframe_reason(const struct mmc_vframe *vf)
{
	if (vf->kind != MMC_VF_UNREADABLE)
		return MMC_UR_NONE;
	return vf->reason != MMC_UR_NONE ? vf->reason : MMC_UR_UNKNOWN;
}

static void count_records(struct mmc_snapshot *snap, uint8_t state,
			  uint8_t reason, uint64_t n)
{
	snap->state_count[state] += n;
	if (state == MMC_PS_UNREADABLE)
		snap->reason_count[reason] += n;
}

struct mmc_error *mmc_snapshot_append(struct mmc_snapshot *snap,
				      const struct mmc_nrec *rec)
{
	struct snap_range *r = open_range(snap);
	struct mmc_error *err;
	struct mmc_nrec fixed;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: record appended outside a range");
	rec = reason_fixed(rec, &fixed);
	if (r->nrecs >= r->r.end_pfn - r->r.start_pfn)
		return check_room(r, 1);
	/* a record that extends a run has the run's (valid) state, role and
	 * classes; only a new run needs checking */
	if (extend_run(r, rec)) {
		count_records(snap, rec->state, rec->reason, 1);
		return NULL;
	}
	if (!rec_valid(rec))
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: record with out-of-range state/role/class/nslots/reason");
	hist_keep(snap, r);
	err = push_run(r, rec, NULL, 1);
	if (!err)
		count_records(snap, rec->state, rec->reason, 1);
	if (!err)
		err = sink_added(snap);
	return err;
}

uint64_t mmc_snapshot_extend_same_n(struct mmc_snapshot *snap, uint64_t n)
{
	struct snap_range *r = open_range(snap);
	struct snap_run *run;
	uint64_t room;

	if (!n || !r || !r->cur.open || r->nrecs >= r->r.end_pfn - r->r.start_pfn)
		return 0;
	run = &r->cur;
	if (run->count < 2 || !run->same_bytes || run->count >= run->same_limit ||
	    run->count == UINT64_MAX)
		return 0;
	room = r->r.end_pfn - r->r.start_pfn - r->nrecs;
	if (n > room)
		n = room;
	if (n > run->same_limit - run->count)
		n = run->same_limit - run->count;
	run->count += n;
	r->nrecs += n;
	count_records(snap, run->state, run->reason, n);
	return n;
}

bool mmc_snapshot_extend_same(struct mmc_snapshot *snap)
{
	return mmc_snapshot_extend_same_n(snap, 1) == 1;
}

void mmc_snapshot_mark(struct mmc_snapshot *snap)
{
	struct snap_range *r = open_range(snap);

	snap->hist.valid = r != NULL;
	snap->hist.n = 0;
	snap->hist.mark = r ? r->nrecs : 0;
}

/* A run's first record and stride (the stride's v and raw are the run's
 * dv and draw). */
static void run_first_stride(const struct snap_run *run, struct mmc_nrec *first,
			     struct mmc_nrec *stride)
{
	unsigned int i;

	first->state = stride->state = run->state;
	first->role = stride->role = run->role;
	first->nslots = stride->nslots = run->nslots;
	first->reason = stride->reason = run->reason;
	for (i = 0; i < run->nslots; i++) {
		const struct snap_slot *sl = &run->slot[i];
		struct mmc_nval *f = &first->slot[i], *d = &stride->slot[i];

		f->cls = d->cls = sl->cls;
		f->region = d->region = sl->region;
		f->off = d->off = sl->off;
		f->v = sl->v;
		f->raw = sl->raw;
		d->v = sl->dv;
		d->raw = sl->draw;
	}
}

/*
 * The records since the mark are whole runs H0..Hm-1 (the last one open).
 * Appended one by one, their moved copies would give the runs H0'..Hm-1':
 * each Hi' is a run of Hi's count and stride from Hi's moved first record
 * (move() says the moved records stay on that line with their classes, so
 * each continues the run before it within Hi', as extend_run() checks),
 * and Hi' begins a new run exactly when its first record does not
 * continue the run before it, checked here with the same test.  So the
 * seq receives the same items in the same order as page by page.
 */
struct mmc_error *mmc_snapshot_repeat_moved(struct mmc_snapshot *snap, uint64_t k,
					    mmc_snapshot_move_fn move, void *arg,
					    bool *taken)
{
	struct snap_range *r = open_range(snap);
	struct snap_hist *h = &snap->hist;
	struct snap_run *moved = h->run[!h->side];
	const struct snap_run *runs = h->run[h->side];
	struct mmc_nrec first, stride, mfirst;
	struct mmc_error *err;
	struct seq_item it;
	unsigned int m, i;
	uint64_t old;

	*taken = false;
	if (!r || !h->valid || !k || k > INT64_MAX || !r->cur.open ||
	    r->nrecs < h->mark || r->nrecs - h->mark != k ||
	    k > r->r.end_pfn - r->r.start_pfn - r->nrecs ||
	    r->cur.start < r->r.start_pfn + h->mark)
		return NULL;
	m = h->n + 1;
	if ((h->n ? runs[0].start : r->cur.start) != r->r.start_pfn + h->mark)
		return NULL;
	for (i = 0; i < m; i++) {
		const struct snap_run *src = i < h->n ? &runs[i] : &r->cur;

		if (src->state != MMC_PS_READ)
			return NULL;
		/* (a moved record of a valid one is valid: only page and
		 * self classes change) */
		run_first_stride(src, &first, &stride);
		if (!move(arg, src->start, &first, &stride, src->count, (int64_t)k, &mfirst))
			return NULL;
		snap_run_set(&moved[i], src->start + k, src->count, &mfirst,
			     src->count > 1 ? &stride : NULL);
		if (src->count > 1)
			run_set_same(&moved[i]);
		if (run_accepts(i ? &moved[i - 1] : &r->cur, &mfirst))
			return NULL;
	}
	err = close_run(r);
	for (i = 0; !err && i + 1 < m; i++) {
		snap_run_item(&moved[i], &it);
		if (!seq_push(&r->runs, &it))
			err = mmc_error_nomem();
	}
	if (err)
		return err;
	run_copy(&r->cur, &moved[m - 1]);
	r->cur.open = true;
	for (i = 0; i < m; i++)
		count_records(snap, moved[i].state, moved[i].reason, moved[i].count);
	old = r->nrecs;
	r->nrecs += k;
	/* the moved runs are the history of the next repetition */
	h->mark = old;
	h->n = m - 1;
	h->side = !h->side;
	*taken = true;
	return sink_added(snap);
}

static struct mmc_error *check_run(const struct mmc_nrec *first,
				   const struct mmc_nrec *stride, uint64_t count)
{
	unsigned int i;

	if (!rec_valid(first) || count == 0)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: run with out-of-range state/role/class/nslots/reason or no records");
	for (i = 0; i < first->nslots; i++) {
		if (first->slot[i].cls == MMC_V_RAW &&
		    (first->slot[i].v != (int64_t)first->slot[i].raw ||
		     (stride && stride->slot[i].v != (int64_t)stride->slot[i].raw)))
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: raw slot %u: value differs from raw", i);
	}
	return NULL;
}

struct mmc_error *mmc_snapshot_append_run(struct mmc_snapshot *snap,
					  const struct mmc_nrec *first,
					  const struct mmc_nrec *stride,
					  uint64_t count)
{
	struct snap_range *r = open_range(snap);
	struct mmc_error *err;
	struct mmc_nrec fixed;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: run appended outside a range");
	snap->hist.valid = false;
	first = reason_fixed(first, &fixed);
	err = check_run(first, stride, count);
	if (!err)
		err = check_room(r, count);
	if (!err)
		err = push_run(r, first, stride, count);
	if (!err)
		count_records(snap, first->state, first->reason, count);
	if (!err)
		err = sink_added(snap);
	return err;
}

/*
 * A whole pattern of runs of kind k into seq s, its first run at start
 * (checked by the caller): nbody runs counts[b], firsts[b], strides[b],
 * repeated reps times, moving by deltas[b] each time.
 */
static struct mmc_error *push_pattern(const struct snap_run_kind *k, struct seq *s,
				      uint64_t start, uint32_t nbody,
				      const uint64_t *counts, const void *firsts,
				      const void *strides, const void *deltas,
				      uint64_t reps)
{
	struct seq_item *body = calloc(nbody, sizeof(*body));
	uint64_t (*dlin)[SEQ_MAX_WORDS] = calloc(nbody, sizeof(*dlin));
	const char *f = firsts, *st = strides, *d = deltas;
	bool ok = body && dlin;

	for (uint32_t b = 0; ok && b < nbody; b++) {
		k->encode(start, counts[b], f + b * k->elem, st + b * k->elem, &body[b]);
		k->encode_delta(d + b * k->elem, dlin[b]);
		start += counts[b];
	}
	ok = ok && seq_push_pattern(s, body, (const uint64_t (*)[SEQ_MAX_WORDS])dlin,
				    nbody, reps);
	free(body);
	free(dlin);
	return ok ? NULL : mmc_error_nomem();
}

struct mmc_error *mmc_snapshot_append_pattern(struct mmc_snapshot *snap, uint32_t nbody,
					      const uint64_t *counts,
					      const struct mmc_nrec *firsts,
					      const struct mmc_nrec *strides,
					      const struct mmc_nrec *rep_deltas,
					      uint64_t reps)
{
	struct snap_range *r = open_range(snap);
	uint64_t period = 0;
	struct mmc_error *err;
	uint32_t b;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: pattern appended outside a range");
	if (!nbody || !reps)
		return mmc_error_create(MMC_ERR_INPUT, NULL, "snapshot: empty pattern");
	snap->hist.valid = false;
	for (b = 0; b < nbody; b++) {
		struct mmc_nrec fixed;
		const struct mmc_nrec *f = reason_fixed(&firsts[b], &fixed);

		if (f != &firsts[b] || firsts[b].nslots != rep_deltas[b].nslots ||
		    firsts[b].nslots != strides[b].nslots)
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: pattern run %u: reason or slots inconsistent", b);
		err = check_run(&firsts[b], &strides[b], counts[b]);
		if (!err && reps > 1)
			err = check_run(&firsts[b], &rep_deltas[b], 1);
		if (err)
			return err;
		if (counts[b] > UINT64_MAX - period)
			return check_room(r, UINT64_MAX);
		period += counts[b];
	}
	if (period > UINT64_MAX / reps)
		return check_room(r, UINT64_MAX);
	err = check_room(r, period * reps);
	if (!err)
		err = close_run(r);
	if (!err)
		err = push_pattern(&snap_page_runs, &r->runs, r->r.start_pfn + r->nrecs,
				   nbody, counts, firsts, strides, rep_deltas, reps);
	if (err)
		return err;
	for (b = 0; b < nbody; b++)
		count_records(snap, firsts[b].state, firsts[b].reason, counts[b] * reps);
	r->nrecs += period * reps;
	return sink_added(snap);
}

struct mmc_error *mmc_snapshot_append_vframe(struct mmc_snapshot *snap,
					     const struct mmc_vframe *vf)
{
	struct snap_range *r = open_range(snap);
	struct snap_vrun *run;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: vframe appended outside a range");
	run = &r->vcur;
	if (run->open && run->kind == vf->kind && run->reason == vframe_reason(vf) &&
	    run->prot == vf->prot && run->prot_known == vf->prot_known &&
	    run->leaf == vf->leaf && run->count < UINT64_MAX && r->nvframes < expected_vframes(snap, r)) {
		if (run->count == 1) {
			run->d_share = (int64_t)((uint64_t)vf->share_back -
						 (uint64_t)run->share_back);
			run->d_dev = (int64_t)((uint64_t)vf->dev_off -
					       (uint64_t)run->dev_off);
			run->d_paddr = vf->paddr - run->paddr;
			run->count++;
			r->nvframes++;
			return NULL;
		}
		if (lin(run->share_back, run->d_share, run->count) == vf->share_back &&
		    lin(run->dev_off, run->d_dev, run->count) == vf->dev_off &&
		    run->paddr + run->d_paddr * run->count == vf->paddr) {
			run->count++;
			r->nvframes++;
			return NULL;
		}
	}
	return mmc_snapshot_append_vframe_run(snap, vf, NULL, 1);
}

/*
 * The protection of a frame: bits only where recorded, recorded only
 * where there is a translation (RAM or device frames), a leaf level
 * exactly with a recorded protection.
 */
static bool vprot_valid(const struct mmc_vframe *vf)
{
	bool frame = vf->kind == MMC_VF_RAM || vf->kind == MMC_VF_DEVICE;

	if ((vf->prot_known & ~MMC_VPROT_ALL) || (vf->prot & ~vf->prot_known))
		return false;
	if (!frame && vf->prot_known)
		return false;
	if (vf->prot_known)
		return vf->leaf >= MMC_VLEAF_PTE && vf->leaf <= MMC_VLEAF_PUD;
	return vf->leaf == MMC_VLEAF_NONE;
}

static struct mmc_error *check_vrun(struct mmc_snapshot *snap, struct snap_range *r,
				    const struct mmc_vframe *first, uint64_t count)
{
	if (first->kind > MMC_VF_UNREADABLE || first->reason > MMC_UR_MAX ||
	    count == 0)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: vframe kind %u or reason %u out of range, or empty run",
					first->kind, first->reason);
	if (!vprot_valid(first))
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: vframe protection 0x%x (recorded 0x%x, leaf level %u) impossible for kind %u",
					first->prot, first->prot_known, first->leaf, first->kind);
	if (count > expected_vframes(snap, r) - r->nvframes)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx): more than %llu vmemmap frames",
					(unsigned long long)r->r.start_pfn,
					(unsigned long long)r->r.end_pfn,
					(unsigned long long)expected_vframes(snap, r));
	return NULL;
}

struct mmc_error *mmc_snapshot_append_vframe_run(struct mmc_snapshot *snap,
						 const struct mmc_vframe *first,
						 const struct mmc_vframe *stride,
						 uint64_t count)
{
	struct snap_range *r = open_range(snap);
	struct mmc_error *err;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: vframe appended outside a range");
	err = check_vrun(snap, r, first, count);
	if (!err)
		err = close_vrun(r);
	if (err)
		return err;
	snap_vrun_set(&r->vcur, r->nvframes, count, first, stride);
	r->vcur.reason = vframe_reason(first);
	r->vcur.open = true;
	r->nvframes += count;
	return sink_added(snap);
}

struct mmc_error *mmc_snapshot_append_vframe_pattern(struct mmc_snapshot *snap,
						     uint32_t nbody, const uint64_t *counts,
						     const struct mmc_vframe *firsts,
						     const struct mmc_vframe *strides,
						     const struct mmc_vframe *rep_deltas,
						     uint64_t reps)
{
	struct snap_range *r = open_range(snap);
	uint64_t period = 0;
	struct mmc_error *err = NULL;
	uint32_t b;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: vframe pattern appended outside a range");
	if (!nbody || !reps)
		return mmc_error_create(MMC_ERR_INPUT, NULL, "snapshot: empty vframe pattern");
	for (b = 0; b < nbody && !err; b++) {
		err = check_vrun(snap, r, &firsts[b], counts[b]);
		if (!err && firsts[b].reason != vframe_reason(&firsts[b]))
			err = mmc_error_create(MMC_ERR_INPUT, NULL,
					       "snapshot: vframe pattern run %u: reason %u for kind %u",
					       b, firsts[b].reason, firsts[b].kind);
		if (!err && counts[b] > UINT64_MAX - period)
			err = check_vrun(snap, r, &firsts[b], UINT64_MAX);
		period += err ? 0 : counts[b];
	}
	if (!err && period > UINT64_MAX / reps)
		err = check_vrun(snap, r, &firsts[0], UINT64_MAX);
	if (!err)
		err = check_vrun(snap, r, &firsts[0], period * reps);
	if (!err)
		err = close_vrun(r);
	if (!err)
		err = push_pattern(&snap_vframe_runs, &r->vruns, r->nvframes, nbody, counts,
				   firsts, strides, rep_deltas, reps);
	if (err)
		return err;
	r->nvframes += period * reps;
	return sink_added(snap);
}

struct mmc_error *mmc_snapshot_end_range(struct mmc_snapshot *snap)
{
	struct snap_range *r = open_range(snap);
	struct mmc_error *err;
	uint64_t want;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: end of range without a range");
	snap->building = false;
	err = close_run(r);
	if (!err)
		err = close_vrun(r);
	if (!err && (!seq_flush(&r->runs) || !seq_flush(&r->vruns)))
		err = mmc_error_nomem();
	if (err)
		return err;
	if (r->nrecs != r->r.end_pfn - r->r.start_pfn)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx) has %llu records, want %llu",
					(unsigned long long)r->r.start_pfn,
					(unsigned long long)r->r.end_pfn,
					(unsigned long long)r->nrecs,
					(unsigned long long)(r->r.end_pfn - r->r.start_pfn));
	want = expected_vframes(snap, r);
	if (r->nvframes != want)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx) has %llu vmemmap frames, want %llu",
					(unsigned long long)r->r.start_pfn,
					(unsigned long long)r->r.end_pfn,
					(unsigned long long)r->nvframes,
					(unsigned long long)want);
	if (snap->sink.ctx && (err = snap->sink.range_end(snap->sink.ctx, snap)))
		return err;
	/* Release the growth slack: the snapshot lives on for a diff. */
	seq_shrink(&r->runs);
	seq_shrink(&r->vruns);
	return NULL;
}

/* Discovery and notes */

void mmc_snapshot_set_discovery_problem(struct mmc_snapshot *snap,
					const char *problem, bool has_address,
					uint64_t address)
{
	snap->discovery_incomplete = true;
	copy_str(snap->problem, sizeof(snap->problem),
		 problem && *problem ? problem : "discovery incomplete");
	snap->problem_has_address = has_address;
	snap->problem_address = has_address ? address : 0;
}

bool mmc_snapshot_discovery_complete(const struct mmc_snapshot *snap)
{
	return !snap->discovery_incomplete;
}

const char *mmc_snapshot_discovery_problem(const struct mmc_snapshot *snap)
{
	return snap->discovery_incomplete ? snap->problem : NULL;
}

bool mmc_snapshot_discovery_address(const struct mmc_snapshot *snap,
				    uint64_t *address)
{
	if (!snap->discovery_incomplete || !snap->problem_has_address)
		return false;
	if (address)
		*address = snap->problem_address;
	return true;
}

struct mmc_error *mmc_snapshot_add_note(struct mmc_snapshot *snap, const char *note)
{
	char **n;
	char *copy;

	if (snap->nnotes >= MMC_SNAPSHOT_MAX_NOTES)
		return NULL;	/* the first ones say it */
	copy = strndup(note ? note : "", MMC_SNAPSHOT_TEXT_MAX - 1);
	if (!copy)
		return mmc_error_nomem();
	n = realloc(snap->notes, (snap->nnotes + 1) * sizeof(*n));
	if (!n) {
		free(copy);
		return mmc_error_nomem();
	}
	snap->notes = n;
	snap->notes[snap->nnotes++] = copy;
	return NULL;
}

size_t mmc_snapshot_nnotes(const struct mmc_snapshot *snap)
{
	return snap->nnotes;
}

const char *mmc_snapshot_note(const struct mmc_snapshot *snap, size_t i)
{
	return i < snap->nnotes ? snap->notes[i] : NULL;
}

/* Device-dax ranges */

struct mmc_error *mmc_snapshot_set_dax(struct mmc_snapshot *snap,
				       enum mmc_dax_state state, const char *why,
				       const struct mmc_dax_span *spans, size_t n)
{
	struct mmc_dax_span *copy = NULL;

	if (state > MMC_DAX_PARTIAL || n > MMC_SNAPSHOT_MAX_DAX ||
	    (state == MMC_DAX_NOT_READ && n) ||
	    (state == MMC_DAX_READ) != !(why && *why))
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: device-dax state %d with %zu ranges and %s reason",
					(int)state, n, why && *why ? "a" : "no");
	for (size_t i = 0; i < n; i++)
		if (spans[i].pgmap_index >= snap->npgmaps ||
		    spans[i].start_pfn >= spans[i].end_pfn ||
		    (i && spans[i].start_pfn < spans[i - 1].start_pfn))
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: device-dax range %zu [0x%llx, 0x%llx) of pgmap %u is empty, unsorted or names no pgmap",
						i, (unsigned long long)spans[i].start_pfn,
						(unsigned long long)spans[i].end_pfn,
						spans[i].pgmap_index);
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return mmc_error_nomem();
		memcpy(copy, spans, n * sizeof(*copy));
	}
	free(snap->dax);
	snap->dax = copy;
	snap->ndax = n;
	snap->dax_state = state;
	copy_str(snap->dax_why, sizeof(snap->dax_why), why ? why : "");
	return NULL;
}

enum mmc_dax_state mmc_snapshot_dax(const struct mmc_snapshot *snap,
				    const struct mmc_dax_span **spans, size_t *n,
				    const char **why)
{
	if (spans)
		*spans = snap->dax;
	if (n)
		*n = snap->ndax;
	if (why)
		*why = snap->dax_why;
	return snap->dax_state;
}
