/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshot: the normalised struct pages of every ZONE_DEVICE range of one
 * image, in memory and as a file.
 *
 * In memory and on disk, records are kept as runs: a run is a first record,
 * a count and a per-slot stride, and record i of a run has every slot's v
 * and raw equal to first + i * stride (cls/off/region/state/role equal).  So
 * runs of identical pages, and of tails whose compound_head delta and raw
 * self-pointers grow by one struct page each, cost one run.
 *
 * The file is versioned and self-describing: it embeds the layout (the same
 * text the saved-layout file uses), geometry, kernel release, build-id,
 * layout fingerprint, the dump's path, pgmaps and ranges, then the runs, and
 * ends with a checksum over everything before it.  It is written to a
 * temporary file and renamed (atomic).  Loading rejects a bad magic, an
 * unknown version, a checksum mismatch, truncation and inconsistent counts
 * with an error naming the file and the byte offset.
 */
#ifndef MMC_SNAPSHOT_H
#define MMC_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "mmc_error.h"
#include "nrec.h"

struct mmc_snapshot;

struct mmc_snapshot_info {
	char release[65];
	char build_id[65];
	uint64_t layout_fingerprint;
	char dump[256];		/* the dump (or "live:/proc/kcore", "crash:<dump>") */
	char layout_source[256];
	char created_by[64];	/* "memmapcheck 0.1 cli" / "... crash" */
};

/* layout is copied. */
struct mmc_error *mmc_snapshot_create(const struct mmc_layout *layout,
				      const struct mmc_geom *geom,
				      const char *dump, const char *created_by,
				      struct mmc_snapshot **out);
void mmc_snapshot_destroy(struct mmc_snapshot *snap);

/* Building (walker): pgmaps first, then per range: begin, records in pfn
 * order (exactly end_pfn - start_pfn of them), vmemmap frames in order
 * (exactly DIV_ROUND_UP(npages * struct_page_size, page_size) of them,
 * covering the range's struct pages), end. */
struct mmc_error *mmc_snapshot_add_pgmap(struct mmc_snapshot *snap,
					 const struct mmc_spgmap *pgmap);
struct mmc_error *mmc_snapshot_begin_range(struct mmc_snapshot *snap,
					   const struct mmc_srange *range);
struct mmc_error *mmc_snapshot_append(struct mmc_snapshot *snap,
				      const struct mmc_nrec *rec);
struct mmc_error *mmc_snapshot_append_vframe(struct mmc_snapshot *snap,
					     const struct mmc_vframe *vf);
struct mmc_error *mmc_snapshot_end_range(struct mmc_snapshot *snap);

/*
 * Walker fast path: the next pfn's struct page has the same bytes as the
 * previous one, which was appended last.  If the open run's stride is the
 * one that repetition gives (see snapshot.c), count the record in it and
 * return true; else false, and the caller appends the record as usual.
 */
bool mmc_snapshot_extend_same(struct mmc_snapshot *snap);

/* Reading */
const struct mmc_snapshot_info *mmc_snapshot_info(const struct mmc_snapshot *snap);
const struct mmc_layout *mmc_snapshot_layout(const struct mmc_snapshot *snap);
const struct mmc_geom *mmc_snapshot_geom(const struct mmc_snapshot *snap);
size_t mmc_snapshot_npgmaps(const struct mmc_snapshot *snap);
const struct mmc_spgmap *mmc_snapshot_pgmap(const struct mmc_snapshot *snap, size_t i);
size_t mmc_snapshot_nranges(const struct mmc_snapshot *snap);
const struct mmc_srange *mmc_snapshot_range(const struct mmc_snapshot *snap, size_t i);
/* Totals over all ranges. */
uint64_t mmc_snapshot_npages(const struct mmc_snapshot *snap);
uint64_t mmc_snapshot_nruns(const struct mmc_snapshot *snap);
/* Count of records per state, over all ranges. */
uint64_t mmc_snapshot_count_state(const struct mmc_snapshot *snap,
				  enum mmc_page_state state);

/* Sequential access to one range's records. */
struct mmc_snapshot_cursor {
	const struct mmc_snapshot *snap;
	size_t range;
	size_t run;		/* current run */
	uint64_t i;		/* index within the run */
	uint64_t pfn;		/* pfn of the next record */
};
void mmc_snapshot_cursor_init(const struct mmc_snapshot *snap, size_t range,
			      struct mmc_snapshot_cursor *cur);
/* false at the end of the range. */
bool mmc_snapshot_cursor_next(struct mmc_snapshot_cursor *cur, uint64_t *pfn,
			      struct mmc_nrec *rec);
/* Random access (binary search over runs): false if pfn is not in range. */
bool mmc_snapshot_get(const struct mmc_snapshot *snap, size_t range,
		      uint64_t pfn, struct mmc_nrec *rec);
/* Runs of a range, for renderers that print "pfn a..b: <record>, stride". */
size_t mmc_snapshot_range_nruns(const struct mmc_snapshot *snap, size_t range);
void mmc_snapshot_range_run(const struct mmc_snapshot *snap, size_t range,
			    size_t run, uint64_t *first_pfn, uint64_t *count,
			    struct mmc_nrec *first, struct mmc_nrec *stride);
/* vmemmap frames of a range */
size_t mmc_snapshot_range_nvframes(const struct mmc_snapshot *snap, size_t range);
void mmc_snapshot_range_vframe(const struct mmc_snapshot *snap, size_t range,
			       size_t i, struct mmc_vframe *vf);

/* Files */
struct mmc_error *mmc_snapshot_save(const struct mmc_snapshot *snap, const char *path);
struct mmc_error *mmc_snapshot_load(const char *path, struct mmc_snapshot **out);

/*
 * Additions (snapshot module).
 *
 * Whole runs: append `count` records first + i * stride (v and raw of every
 * slot; for MMC_V_RAW slots stride v must equal stride raw).  Always starts a
 * new run (never merged with the previous one), so a loaded file keeps its
 * runs exactly.  The next mmc_snapshot_append() may extend it.
 */
struct mmc_error *mmc_snapshot_append_run(struct mmc_snapshot *snap,
					  const struct mmc_nrec *first,
					  const struct mmc_nrec *stride,
					  uint64_t count);
/* vframe runs: share_back, dev_off and paddr grow by stride's each step. */
struct mmc_error *mmc_snapshot_append_vframe_run(struct mmc_snapshot *snap,
						 const struct mmc_vframe *first,
						 const struct mmc_vframe *stride,
						 uint64_t count);
size_t mmc_snapshot_range_nvframe_runs(const struct mmc_snapshot *snap, size_t range);
void mmc_snapshot_range_vframe_run(const struct mmc_snapshot *snap, size_t range,
				   size_t run, uint64_t *first_index,
				   uint64_t *count, struct mmc_vframe *first,
				   struct mmc_vframe *stride);
/* Record i of a run (wrapping arithmetic, as the encoder uses). */
void mmc_nrec_run_at(const struct mmc_nrec *first, const struct mmc_nrec *stride,
		     uint64_t i, struct mmc_nrec *out);
/* Index of the run of `range` holding pfn; false if pfn is not in range. */
bool mmc_snapshot_find_run(const struct mmc_snapshot *snap, size_t range,
			   uint64_t pfn, size_t *run);
/* Replace the info block (the loader restores the saved one). */
void mmc_snapshot_set_info(struct mmc_snapshot *snap,
			   const struct mmc_snapshot_info *info);
/* Exact equality of info, geometry, pgmaps, ranges, runs (v and raw) and
 * vframe runs; the layouts are compared by fingerprint.  For tests. */
bool mmc_snapshot_equal_content(const struct mmc_snapshot *a,
				const struct mmc_snapshot *b);
/* Bytes of heap the snapshot holds for runs (O(runs), for tests/bench). */
size_t mmc_snapshot_mem_bytes(const struct mmc_snapshot *snap);

#define MMC_SNAPSHOT_MAGIC "MMCSNAP"	/* 8 bytes with the NUL */
#define MMC_SNAPSHOT_VERSION 1

#endif
