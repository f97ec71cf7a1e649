// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot, in memory: pgmaps, ranges and, per range, runs of records and of
 * vmemmap frames.  A run is (start pfn, count, first record, per-slot
 * stride); the encoder extends the last run when a new record equals
 * first + count * stride (the stride is fixed by a run's second record).
 * Memory is O(runs).  File I/O lives in snapshot_file.c.
 */
#include "mmc_util.h"
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

/* One slot of a run: first value and stride. */
struct snap_slot {
	int64_t v, dv;
	uint64_t raw, draw;
	uint16_t off;
	uint8_t cls, region;
};

struct snap_run {
	uint64_t start;		/* first pfn */
	uint64_t count;
	size_t slot0;		/* index of slot 0 in the range's pool */
	uint8_t state, role, nslots;
	/*
	 * Set when the stride is what repeating the same struct page bytes
	 * gives (no raw value moves; pointers into other struct pages fall
	 * back one pfn a record): the walker's fast path extends such a run
	 * without a record, up to `same_limit` records (where a page pointer
	 * would reach its own pfn and turn into a self-pointer).
	 */
	bool same_bytes;
	uint64_t same_limit;
};

struct snap_vrun {
	uint64_t start;		/* first vframe index */
	uint64_t count;
	uint8_t kind;
	int64_t share_back, d_share;
	int64_t dev_off, d_dev;
	uint64_t paddr, d_paddr;
};

struct snap_range {
	struct mmc_srange r;
	struct snap_run *runs;
	size_t nruns, runs_cap;
	struct snap_slot *slots;
	size_t nslot_used, slots_cap;
	struct snap_vrun *vruns;
	size_t nvruns, vruns_cap;
	uint64_t nrecs;		/* records appended so far */
	uint64_t nvframes;
};

struct mmc_snapshot {
	struct mmc_snapshot_info info;
	struct mmc_layout *layout;	/* owned copy, may be NULL */
	struct mmc_geom geom;
	struct mmc_spgmap *pgmaps;
	size_t npgmaps, pgmaps_cap;
	struct snap_range *ranges;
	size_t nranges, ranges_cap;
	bool building;		/* a range is open */
	uint64_t state_count[MMC_PS_NOT_INIT + 1];
};

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
	*out = s;
	return NULL;
}

void mmc_snapshot_destroy(struct mmc_snapshot *snap)
{
	size_t i;

	if (!snap)
		return;
	for (i = 0; i < snap->nranges; i++) {
		free(snap->ranges[i].runs);
		free(snap->ranges[i].slots);
		free(snap->ranges[i].vruns);
	}
	free(snap->ranges);
	free(snap->pgmaps);
	mmc_layout_destroy(snap->layout);
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
	if (range->pgmap_index >= snap->npgmaps)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx) names pgmap %u of %zu",
					(unsigned long long)range->start_pfn,
					(unsigned long long)range->end_pfn,
					range->pgmap_index, snap->npgmaps);
	if (!grow((void **)&snap->ranges, &snap->ranges_cap, snap->nranges + 1,
		  sizeof(*snap->ranges)))
		return mmc_error_nomem();
	r = &snap->ranges[snap->nranges++];
	memset(r, 0, sizeof(*r));
	r->r = *range;
	snap->building = true;
	return NULL;
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
	    rec->nslots > MMC_MAX_SLOTS)
		return false;
	for (i = 0; i < rec->nslots; i++) {
		if (rec->slot[i].cls > MMC_V_OBJ ||
		    rec->slot[i].region > MMC_R_MMID)
			return false;
	}
	return true;
}

/* New run of `count` records from first/stride (stride NULL: zero). */
static struct mmc_error *push_run(struct snap_range *r, const struct mmc_nrec *first,
				  const struct mmc_nrec *stride, uint64_t count)
{
	struct snap_run *run;
	unsigned int i;

	if (!grow((void **)&r->runs, &r->runs_cap, r->nruns + 1, sizeof(*r->runs)) ||
	    !grow((void **)&r->slots, &r->slots_cap, r->nslot_used + first->nslots,
		  sizeof(*r->slots)))
		return mmc_error_nomem();
	run = &r->runs[r->nruns++];
	run->start = r->r.start_pfn + r->nrecs;
	run->count = count;
	run->slot0 = r->nslot_used;
	run->state = first->state;
	run->role = first->role;
	run->nslots = first->nslots;
	run->same_bytes = false;
	run->same_limit = 0;
	for (i = 0; i < first->nslots; i++) {
		struct snap_slot *sl = &r->slots[r->nslot_used++];

		sl->v = first->slot[i].v;
		sl->raw = first->slot[i].raw;
		sl->off = first->slot[i].off;
		sl->cls = first->slot[i].cls;
		sl->region = first->slot[i].region;
		sl->dv = stride ? stride->slot[i].v : 0;
		sl->draw = stride ? stride->slot[i].raw : 0;
	}
	r->nrecs += count;
	return NULL;
}

static int64_t lin(int64_t v, int64_t dv, uint64_t i)
{
	return (int64_t)((uint64_t)v + (uint64_t)dv * i);
}

/* Does rec continue the last run?  Sets the stride on a run's second record. */
static bool extend_run(struct snap_range *r, const struct mmc_nrec *rec)
{
	struct snap_run *run;
	struct snap_slot *sl;
	unsigned int i;

	if (!r->nruns)
		return false;
	run = &r->runs[r->nruns - 1];
	if (run->state != rec->state || run->role != rec->role ||
	    run->nslots != rec->nslots || run->count == UINT64_MAX)
		return false;
	sl = &r->slots[run->slot0];
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
	if (run->count == 1) {
		run->same_bytes = true;
		run->same_limit = UINT64_MAX;
		for (i = 0; i < rec->nslots; i++) {
			sl[i].dv = (int64_t)((uint64_t)rec->slot[i].v - (uint64_t)sl[i].v);
			sl[i].draw = rec->slot[i].raw - sl[i].raw;
			if (sl[i].draw != 0 || sl[i].cls == MMC_V_SELF ||
			    sl[i].dv != (sl[i].cls == MMC_V_PAGE ? -1 : 0))
				run->same_bytes = false;
			else if (sl[i].cls == MMC_V_PAGE && sl[i].v > 0 &&
				 (uint64_t)sl[i].v < run->same_limit)
				run->same_limit = (uint64_t)sl[i].v;
		}
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

struct mmc_error *mmc_snapshot_append(struct mmc_snapshot *snap,
				      const struct mmc_nrec *rec)
{
	struct snap_range *r = open_range(snap);
	struct mmc_error *err;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: record appended outside a range");
	if (r->nrecs >= r->r.end_pfn - r->r.start_pfn)
		return check_room(r, 1);
	/* a record that extends a run has the run's (valid) state, role and
	 * classes; only a new run needs checking */
	if (extend_run(r, rec)) {
		snap->state_count[rec->state]++;
		return NULL;
	}
	if (!rec_valid(rec))
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: record with out-of-range state/role/class/nslots");
	snap->state_count[rec->state]++;
	err = push_run(r, rec, NULL, 1);
	if (err)
		snap->state_count[rec->state]--;
	return err;
}

bool mmc_snapshot_extend_same(struct mmc_snapshot *snap)
{
	struct snap_range *r = open_range(snap);
	struct snap_run *run;

	if (!r || !r->nruns || r->nrecs >= r->r.end_pfn - r->r.start_pfn)
		return false;
	run = &r->runs[r->nruns - 1];
	if (run->count < 2 || !run->same_bytes || run->count >= run->same_limit ||
	    run->count == UINT64_MAX)
		return false;
	run->count++;
	r->nrecs++;
	snap->state_count[run->state]++;
	return true;
}

struct mmc_error *mmc_snapshot_append_run(struct mmc_snapshot *snap,
					  const struct mmc_nrec *first,
					  const struct mmc_nrec *stride,
					  uint64_t count)
{
	struct snap_range *r = open_range(snap);
	struct mmc_error *err;
	unsigned int i;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: run appended outside a range");
	if (!rec_valid(first) || count == 0)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: run with out-of-range state/role/class/nslots or no records");
	for (i = 0; i < first->nslots; i++) {
		if (first->slot[i].cls == MMC_V_RAW &&
		    (first->slot[i].v != (int64_t)first->slot[i].raw ||
		     (stride && stride->slot[i].v != (int64_t)stride->slot[i].raw)))
			return mmc_error_create(MMC_ERR_INPUT, NULL,
						"snapshot: raw slot %u: value differs from raw", i);
	}
	err = check_room(r, count);
	if (err)
		return err;
	err = push_run(r, first, stride, count);
	if (!err)
		snap->state_count[first->state] += count;
	return err;
}

struct mmc_error *mmc_snapshot_append_vframe(struct mmc_snapshot *snap,
					     const struct mmc_vframe *vf)
{
	struct snap_range *r = open_range(snap);
	struct snap_vrun *run;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: vframe appended outside a range");
	if (r->nvruns) {
		run = &r->vruns[r->nvruns - 1];
		if (run->kind == vf->kind && run->count < UINT64_MAX) {
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
	}
	return mmc_snapshot_append_vframe_run(snap, vf, NULL, 1);
}

struct mmc_error *mmc_snapshot_append_vframe_run(struct mmc_snapshot *snap,
						 const struct mmc_vframe *first,
						 const struct mmc_vframe *stride,
						 uint64_t count)
{
	struct snap_range *r = open_range(snap);
	struct snap_vrun *run;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: vframe appended outside a range");
	if (first->kind > MMC_VF_UNREADABLE || count == 0)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: vframe kind %u out of range or empty run",
					first->kind);
	if (count > expected_vframes(snap, r) - r->nvframes)
		return mmc_error_create(MMC_ERR_INPUT, NULL,
					"snapshot: range [0x%llx, 0x%llx): more than %llu vmemmap frames",
					(unsigned long long)r->r.start_pfn,
					(unsigned long long)r->r.end_pfn,
					(unsigned long long)expected_vframes(snap, r));
	if (!grow((void **)&r->vruns, &r->vruns_cap, r->nvruns + 1, sizeof(*r->vruns)))
		return mmc_error_nomem();
	run = &r->vruns[r->nvruns++];
	memset(run, 0, sizeof(*run));
	run->start = r->nvframes;
	run->count = count;
	run->kind = first->kind;
	run->share_back = first->share_back;
	run->dev_off = first->dev_off;
	run->paddr = first->paddr;
	if (stride) {
		run->d_share = stride->share_back;
		run->d_dev = stride->dev_off;
		run->d_paddr = stride->paddr;
	}
	r->nvframes += count;
	return NULL;
}

struct mmc_error *mmc_snapshot_end_range(struct mmc_snapshot *snap)
{
	struct snap_range *r = open_range(snap);
	uint64_t want;

	if (!r)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"snapshot: end of range without a range");
	snap->building = false;
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
	/* Release the growth slack: the snapshot lives on for a diff. */
	if (r->nruns && r->nruns < r->runs_cap) {
		void *p = realloc(r->runs, r->nruns * sizeof(*r->runs));

		if (p) {
			r->runs = p;
			r->runs_cap = r->nruns;
		}
	}
	if (r->nslot_used && r->nslot_used < r->slots_cap) {
		void *p = realloc(r->slots, r->nslot_used * sizeof(*r->slots));

		if (p) {
			r->slots = p;
			r->slots_cap = r->nslot_used;
		}
	}
	return NULL;
}

/* Reading */

const struct mmc_snapshot_info *mmc_snapshot_info(const struct mmc_snapshot *snap)
{
	return &snap->info;
}

const struct mmc_layout *mmc_snapshot_layout(const struct mmc_snapshot *snap)
{
	return snap->layout;
}

const struct mmc_geom *mmc_snapshot_geom(const struct mmc_snapshot *snap)
{
	return &snap->geom;
}

size_t mmc_snapshot_npgmaps(const struct mmc_snapshot *snap)
{
	return snap->npgmaps;
}

const struct mmc_spgmap *mmc_snapshot_pgmap(const struct mmc_snapshot *snap, size_t i)
{
	return i < snap->npgmaps ? &snap->pgmaps[i] : NULL;
}

size_t mmc_snapshot_nranges(const struct mmc_snapshot *snap)
{
	return snap->nranges;
}

const struct mmc_srange *mmc_snapshot_range(const struct mmc_snapshot *snap, size_t i)
{
	return i < snap->nranges ? &snap->ranges[i].r : NULL;
}

uint64_t mmc_snapshot_npages(const struct mmc_snapshot *snap)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < snap->nranges; i++)
		n += snap->ranges[i].nrecs;
	return n;
}

uint64_t mmc_snapshot_nruns(const struct mmc_snapshot *snap)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < snap->nranges; i++)
		n += snap->ranges[i].nruns;
	return n;
}

uint64_t mmc_snapshot_count_state(const struct mmc_snapshot *snap,
				  enum mmc_page_state state)
{
	if ((unsigned int)state > MMC_PS_NOT_INIT)
		return 0;
	return snap->state_count[state];
}

size_t mmc_snapshot_mem_bytes(const struct mmc_snapshot *snap)
{
	size_t n = sizeof(*snap) + snap->pgmaps_cap * sizeof(*snap->pgmaps) +
		   snap->ranges_cap * sizeof(*snap->ranges);
	size_t i;

	for (i = 0; i < snap->nranges; i++) {
		const struct snap_range *r = &snap->ranges[i];

		n += r->runs_cap * sizeof(*r->runs) + r->slots_cap * sizeof(*r->slots) +
		     r->vruns_cap * sizeof(*r->vruns);
	}
	return n;
}

static void run_first_stride(const struct snap_range *r, const struct snap_run *run,
			     struct mmc_nrec *first, struct mmc_nrec *stride)
{
	const struct snap_slot *sl = &r->slots[run->slot0];
	unsigned int i;

	if (first) {
		memset(first, 0, sizeof(*first));
		first->state = run->state;
		first->role = run->role;
		first->nslots = run->nslots;
	}
	if (stride) {
		memset(stride, 0, sizeof(*stride));
		stride->state = run->state;
		stride->role = run->role;
		stride->nslots = run->nslots;
	}
	for (i = 0; i < run->nslots; i++) {
		if (first) {
			first->slot[i].cls = sl[i].cls;
			first->slot[i].region = sl[i].region;
			first->slot[i].off = sl[i].off;
			first->slot[i].v = sl[i].v;
			first->slot[i].raw = sl[i].raw;
		}
		if (stride) {
			stride->slot[i].cls = sl[i].cls;
			stride->slot[i].region = sl[i].region;
			stride->slot[i].v = sl[i].dv;
			stride->slot[i].raw = sl[i].draw;
		}
	}
}

/* Record i of run, straight from the pool. */
static void run_record(const struct snap_range *r, const struct snap_run *run,
		       uint64_t i, struct mmc_nrec *out)
{
	const struct snap_slot *sl = &r->slots[run->slot0];
	unsigned int k;

	out->state = run->state;
	out->role = run->role;
	out->nslots = run->nslots;
	for (k = 0; k < run->nslots; k++) {
		out->slot[k].cls = sl[k].cls;
		out->slot[k].region = sl[k].region;
		out->slot[k].off = sl[k].off;
		out->slot[k].v = lin(sl[k].v, sl[k].dv, i);
		out->slot[k].raw = sl[k].raw + sl[k].draw * i;
	}
	for (; k < MMC_MAX_SLOTS; k++)
		memset(&out->slot[k], 0, sizeof(out->slot[k]));
}

void mmc_nrec_run_at(const struct mmc_nrec *first, const struct mmc_nrec *stride,
		     uint64_t i, struct mmc_nrec *out)
{
	unsigned int k;

	*out = *first;
	for (k = 0; k < first->nslots && k < MMC_MAX_SLOTS; k++) {
		out->slot[k].v = lin(first->slot[k].v, stride->slot[k].v, i);
		out->slot[k].raw = first->slot[k].raw + stride->slot[k].raw * i;
	}
}

void mmc_snapshot_cursor_init(const struct mmc_snapshot *snap, size_t range,
			      struct mmc_snapshot_cursor *cur)
{
	memset(cur, 0, sizeof(*cur));
	cur->snap = snap;
	cur->range = range;
	cur->pfn = range < snap->nranges ? snap->ranges[range].r.start_pfn : 0;
}

bool mmc_snapshot_cursor_next(struct mmc_snapshot_cursor *cur, uint64_t *pfn,
			      struct mmc_nrec *rec)
{
	const struct snap_range *r;

	if (cur->range >= cur->snap->nranges)
		return false;
	r = &cur->snap->ranges[cur->range];
	while (cur->run < r->nruns && cur->i >= r->runs[cur->run].count) {
		cur->run++;
		cur->i = 0;
	}
	if (cur->run >= r->nruns)
		return false;
	if (rec)
		run_record(r, &r->runs[cur->run], cur->i, rec);
	if (pfn)
		*pfn = cur->pfn;
	cur->i++;
	cur->pfn++;
	return true;
}

bool mmc_snapshot_find_run(const struct mmc_snapshot *snap, size_t range,
			   uint64_t pfn, size_t *run)
{
	const struct snap_range *r;
	size_t lo, hi;

	if (range >= snap->nranges)
		return false;
	r = &snap->ranges[range];
	if (pfn < r->r.start_pfn || pfn - r->r.start_pfn >= r->nrecs)
		return false;
	lo = 0;
	hi = r->nruns;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->runs[mid].start <= pfn)
			lo = mid;
		else
			hi = mid;
	}
	*run = lo;
	return true;
}

bool mmc_snapshot_get(const struct mmc_snapshot *snap, size_t range,
		      uint64_t pfn, struct mmc_nrec *rec)
{
	const struct snap_range *r;
	size_t run;

	if (!mmc_snapshot_find_run(snap, range, pfn, &run))
		return false;
	r = &snap->ranges[range];
	run_record(r, &r->runs[run], pfn - r->runs[run].start, rec);
	return true;
}

size_t mmc_snapshot_range_nruns(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges ? snap->ranges[range].nruns : 0;
}

void mmc_snapshot_range_run(const struct mmc_snapshot *snap, size_t range,
			    size_t run, uint64_t *first_pfn, uint64_t *count,
			    struct mmc_nrec *first, struct mmc_nrec *stride)
{
	const struct snap_range *r = &snap->ranges[range];
	const struct snap_run *ru = &r->runs[run];

	if (first_pfn)
		*first_pfn = ru->start;
	if (count)
		*count = ru->count;
	run_first_stride(r, ru, first, stride);
}

size_t mmc_snapshot_range_nvframes(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges ? (size_t)snap->ranges[range].nvframes : 0;
}

size_t mmc_snapshot_range_nvframe_runs(const struct mmc_snapshot *snap, size_t range)
{
	return range < snap->nranges ? snap->ranges[range].nvruns : 0;
}

void mmc_snapshot_range_vframe_run(const struct mmc_snapshot *snap, size_t range,
				   size_t run, uint64_t *first_index,
				   uint64_t *count, struct mmc_vframe *first,
				   struct mmc_vframe *stride)
{
	const struct snap_vrun *v = &snap->ranges[range].vruns[run];

	if (first_index)
		*first_index = v->start;
	if (count)
		*count = v->count;
	if (first) {
		memset(first, 0, sizeof(*first));
		first->kind = v->kind;
		first->share_back = v->share_back;
		first->dev_off = v->dev_off;
		first->paddr = v->paddr;
	}
	if (stride) {
		memset(stride, 0, sizeof(*stride));
		stride->kind = v->kind;
		stride->share_back = v->d_share;
		stride->dev_off = v->d_dev;
		stride->paddr = v->d_paddr;
	}
}

void mmc_snapshot_range_vframe(const struct mmc_snapshot *snap, size_t range,
			       size_t i, struct mmc_vframe *vf)
{
	const struct snap_range *r = &snap->ranges[range];
	const struct snap_vrun *v;
	size_t lo = 0, hi = r->nvruns;
	uint64_t k;

	memset(vf, 0, sizeof(*vf));
	if (i >= r->nvframes || !r->nvruns) {
		vf->kind = MMC_VF_UNREADABLE;
		return;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->vruns[mid].start <= i)
			lo = mid;
		else
			hi = mid;
	}
	v = &r->vruns[lo];
	k = i - v->start;
	vf->kind = v->kind;
	vf->share_back = lin(v->share_back, v->d_share, k);
	vf->dev_off = lin(v->dev_off, v->d_dev, k);
	vf->paddr = v->paddr + v->d_paddr * k;
}

static bool geom_same(const struct mmc_geom *a, const struct mmc_geom *b)
{
	return a->page_size == b->page_size &&
	       a->struct_page_size == b->struct_page_size &&
	       a->vmemmap_base == b->vmemmap_base && a->vmemmap_end == b->vmemmap_end &&
	       a->page_offset_base == b->page_offset_base &&
	       a->direct_map_end == b->direct_map_end &&
	       a->vmalloc_base == b->vmalloc_base && a->vmalloc_end == b->vmalloc_end &&
	       a->kimage_start == b->kimage_start && a->kimage_end == b->kimage_end &&
	       a->module_start == b->module_start && a->module_end == b->module_end &&
	       a->kaslr_offset == b->kaslr_offset &&
	       a->poison_pointer_delta == b->poison_pointer_delta &&
	       a->zones_width == b->zones_width && a->zones_pgshift == b->zones_pgshift &&
	       a->nodes_width == b->nodes_width && a->nodes_pgshift == b->nodes_pgshift &&
	       a->nr_pageflags == b->nr_pageflags;
}

static bool info_equal(const struct mmc_snapshot_info *a,
		       const struct mmc_snapshot_info *b)
{
	return !strcmp(a->release, b->release) && !strcmp(a->build_id, b->build_id) &&
	       a->layout_fingerprint == b->layout_fingerprint &&
	       !strcmp(a->dump, b->dump) && !strcmp(a->layout_source, b->layout_source) &&
	       !strcmp(a->created_by, b->created_by);
}

static bool nval_same(const struct mmc_nval *a, const struct mmc_nval *b)
{
	return a->cls == b->cls && a->region == b->region && a->off == b->off &&
	       a->v == b->v && a->raw == b->raw;
}

static bool pgmap_same(const struct mmc_spgmap *a, const struct mmc_spgmap *b)
{
	return a->kaddr == b->kaddr && a->type == b->type &&
	       !strcmp(a->type_name, b->type_name) && a->flags == b->flags &&
	       a->vmemmap_shift == b->vmemmap_shift && a->nr_range == b->nr_range &&
	       nval_same(&a->owner, &b->owner) && nval_same(&a->ops, &b->ops) &&
	       a->has_altmap == b->has_altmap &&
	       a->altmap_base_pfn == b->altmap_base_pfn &&
	       a->altmap_end_pfn == b->altmap_end_pfn &&
	       a->altmap_reserve == b->altmap_reserve &&
	       a->altmap_free == b->altmap_free && a->altmap_align == b->altmap_align &&
	       a->altmap_alloc == b->altmap_alloc;
}

static bool srange_same(const struct mmc_srange *a, const struct mmc_srange *b)
{
	return a->start_pfn == b->start_pfn && a->end_pfn == b->end_pfn &&
	       a->pgmap_index == b->pgmap_index && a->range_index == b->range_index &&
	       a->vmemmap_start == b->vmemmap_start &&
	       a->reserve_start == b->reserve_start && a->reserve_end == b->reserve_end &&
	       a->altmap_start == b->altmap_start && a->altmap_end == b->altmap_end;
}

static bool range_runs_same(const struct snap_range *a, const struct snap_range *b)
{
	size_t i;

	if (a->nruns != b->nruns || a->nvruns != b->nvruns ||
	    a->nrecs != b->nrecs || a->nvframes != b->nvframes)
		return false;
	for (i = 0; i < a->nruns; i++) {
		const struct snap_run *x = &a->runs[i], *y = &b->runs[i];

		if (x->start != y->start || x->count != y->count ||
		    x->state != y->state || x->role != y->role || x->nslots != y->nslots)
			return false;
		for (unsigned int k = 0; k < x->nslots; k++) {
			const struct snap_slot *p = &a->slots[x->slot0 + k];
			const struct snap_slot *q = &b->slots[y->slot0 + k];

			if (p->v != q->v || p->dv != q->dv || p->raw != q->raw ||
			    p->draw != q->draw || p->off != q->off ||
			    p->cls != q->cls || p->region != q->region)
				return false;
		}
	}
	for (i = 0; i < a->nvruns; i++) {
		const struct snap_vrun *x = &a->vruns[i], *y = &b->vruns[i];

		if (x->start != y->start || x->count != y->count || x->kind != y->kind ||
		    x->share_back != y->share_back || x->d_share != y->d_share ||
		    x->dev_off != y->dev_off || x->d_dev != y->d_dev ||
		    x->paddr != y->paddr || x->d_paddr != y->d_paddr)
			return false;
	}
	return true;
}

bool mmc_snapshot_equal_content(const struct mmc_snapshot *a,
				const struct mmc_snapshot *b)
{
	size_t i;

	if (!info_equal(&a->info, &b->info) ||
	    !geom_same(&a->geom, &b->geom) ||
	    a->npgmaps != b->npgmaps || a->nranges != b->nranges ||
	    !a->layout != !b->layout)
		return false;
	if (a->layout && mmc_layout_fingerprint(a->layout) !=
			 mmc_layout_fingerprint(b->layout))
		return false;
	for (i = 0; i < a->npgmaps; i++)
		if (!pgmap_same(&a->pgmaps[i], &b->pgmaps[i]))
			return false;
	for (i = 0; i < a->nranges; i++) {
		if (!srange_same(&a->ranges[i].r, &b->ranges[i].r) ||
		    !range_runs_same(&a->ranges[i], &b->ranges[i]))
			return false;
	}
	return true;
}
