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
#include <stdio.h>

#include "layout.h"
#include "mmc_error.h"
#include "model.h"

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
/* Up to n such records at once (the same checks, counted once): returns
 * how many were taken, min(n, what the run's stride allows, the records
 * left in the range), or 0. */
uint64_t mmc_snapshot_extend_same_n(struct mmc_snapshot *snap, uint64_t n);

/*
 * Walker fast path for a vmemmap page that maps the same frame as the one
 * before it (HVO): its records are the last k records again, each moved k
 * pfns on.  mmc_snapshot_mark() before the first of those k records;
 * mmc_snapshot_repeat_moved() after the k-th asks the snapshot to append
 * the k moved records as the runs that appending them one by one would
 * make.  `move` is the normaliser's rule for a run (mmc_norm_run_moved()'s
 * contract: false where the records would not all move as one run).
 * *taken is false (nothing appended) where the last k records are not
 * whole runs begun after the mark, or a run does not move, or the moved
 * runs would join differently; the caller then appends them one by one.
 */
typedef bool (*mmc_snapshot_move_fn)(void *arg, uint64_t pfn, const struct mmc_nrec *first,
				     const struct mmc_nrec *stride, uint64_t count,
				     int64_t by, struct mmc_nrec *out);
void mmc_snapshot_mark(struct mmc_snapshot *snap);
struct mmc_error *mmc_snapshot_repeat_moved(struct mmc_snapshot *snap, uint64_t k,
					    mmc_snapshot_move_fn move, void *arg,
					    bool *taken);

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
/* UNREADABLE records with that reason (MMC_UR_UNKNOWN: version-1 files). */
uint64_t mmc_snapshot_count_unreadable(const struct mmc_snapshot *snap,
				       enum mmc_unread_reason reason);

/*
 * Discovery.  A snapshot whose discovery was complete holds every pgmap
 * and range of the image.  When a kernel structure discovery needs
 * (pgmap_array, an xa_node, a dev_pagemap and its ranges) could not be
 * read or makes no sense, the snapshot holds what was found before that,
 * and says why: nothing can be concluded from a range that is missing
 * from it.  Snapshot files of version 1 read as complete.
 */
bool mmc_snapshot_discovery_complete(const struct mmc_snapshot *snap);
/* NULL when complete; else what failed, e.g. "walking pgmap_array:
 * reading xa_node: ...: dump truncated: ..." (without path or address). */
const char *mmc_snapshot_discovery_problem(const struct mmc_snapshot *snap);
/* The kernel address discovery could not read (false if none recorded). */
bool mmc_snapshot_discovery_address(const struct mmc_snapshot *snap,
				    uint64_t *address);
void mmc_snapshot_set_discovery_problem(struct mmc_snapshot *snap,
					const char *problem, bool has_address,
					uint64_t address);

/*
 * Notes about the dump the snapshot was made from, in the order found:
 * "6.12-base-b1.kdump: dump truncated: the file is M bytes, its headers
 * need K; N pages past the end are unreadable".  At most
 * MMC_SNAPSHOT_MAX_NOTES are kept, each under MMC_SNAPSHOT_TEXT_MAX bytes.
 */
/*
 * The device-dax data ranges of the image's pgmaps (discover_dax.c), for
 * lint's dax-range rule.  why says what kept them from being read (""
 * exactly when MMC_DAX_READ); files before version 4 read as
 * MMC_DAX_NOT_READ.  Setting copies; spans sorted by start_pfn, each
 * naming a pgmap already added.
 */
#define MMC_SNAPSHOT_MAX_DAX 4096
struct mmc_error *mmc_snapshot_set_dax(struct mmc_snapshot *snap,
				       enum mmc_dax_state state, const char *why,
				       const struct mmc_dax_span *spans, size_t n);
enum mmc_dax_state mmc_snapshot_dax(const struct mmc_snapshot *snap,
				    const struct mmc_dax_span **spans, size_t *n,
				    const char **why);

/*
 * HugeTLB pools (discover_hugetlb.c): the hstates and their folios, as
 * consecutive alike folios (model.h).  Set before the first range of kind
 * MMC_RANGE_HUGETLB begins (a range names its hstate).  why says what
 * kept them from being read ("" exactly when MMC_READ_DONE); MMC_READ_NOT
 * has no hstates; files before version 5 read as MMC_READ_NOT.  Folio
 * spans sorted by start_pfn, not overlapping, each naming an hstate.
 * Both tables are set before the first range (of any kind) begins: a
 * streamed file writes them ahead of the ranges.
 */
#define MMC_SNAPSHOT_MAX_HSTATES 16
#define MMC_SNAPSHOT_MAX_FOLIO_SPANS (1u << 22)
struct mmc_error *mmc_snapshot_set_hugetlb(struct mmc_snapshot *snap,
					   enum mmc_read_state state, const char *why,
					   const struct mmc_shstate *hstates, size_t nh,
					   const struct mmc_sfolios *folios, size_t nf);
enum mmc_read_state mmc_snapshot_hugetlb(const struct mmc_snapshot *snap,
					 const struct mmc_shstate **hstates, size_t *nh,
					 const struct mmc_sfolios **folios, size_t *nf,
					 const char **why);
/* Hot-plugged memory blocks (discover_hotplug.c), the same way: sorted by
 * start_pfn, not overlapping; set before the first range. */
#define MMC_SNAPSHOT_MAX_MEMBLOCKS 65536
struct mmc_error *mmc_snapshot_set_hotplug(struct mmc_snapshot *snap,
					   enum mmc_read_state state, const char *why,
					   const struct mmc_smemblock *blocks, size_t n);
enum mmc_read_state mmc_snapshot_hotplug(const struct mmc_snapshot *snap,
					 const struct mmc_smemblock **blocks, size_t *n,
					 const char **why);

#define MMC_SNAPSHOT_MAX_NOTES 16
#define MMC_SNAPSHOT_TEXT_MAX 512
struct mmc_error *mmc_snapshot_add_note(struct mmc_snapshot *snap, const char *note);
size_t mmc_snapshot_nnotes(const struct mmc_snapshot *snap);
const char *mmc_snapshot_note(const struct mmc_snapshot *snap, size_t i);

/* Sequential access to one range's records. */
struct mmc_snapshot_cursor {
	const struct mmc_snapshot *snap;
	size_t range;
	size_t run;		/* current run */
	uint64_t i;		/* index within the run */
	uint64_t pfn;		/* pfn of the next record */
	/* the current run, decoded */
	bool loaded;
	uint64_t count;
	struct mmc_nrec first, stride;
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

/*
 * Streaming: the file written while the snapshot is built, so that memory
 * stays O(one batch of patterns) however many runs the image has.  Call
 * mmc_snapshot_stream_open() after mmc_snapshot_create(), before the first
 * range, with a seekable stream open for reading and writing at offset 0
 * (mmc_outfile_open() gives one; not standard output); build as usual;
 * then, with discovery problem and notes set, mmc_snapshot_stream_finish()
 * completes the file (the same bytes mmc_snapshot_write() would give).
 * Afterwards the snapshot holds counts, pgmaps and ranges but no runs:
 * it can be neither read run by run nor saved again.
 */
struct mmc_error *mmc_snapshot_stream_open(struct mmc_snapshot *snap, FILE *f,
					   const char *name);
struct mmc_error *mmc_snapshot_stream_finish(struct mmc_snapshot *snap);
/* Its runs went to a file (mmc_snapshot_stream_finish()). */
bool mmc_snapshot_streamed(const struct mmc_snapshot *snap);

/* Files */
struct mmc_error *mmc_snapshot_save(const struct mmc_snapshot *snap, const char *path);
/* The same, refusing to replace any of inputs[0..ninputs) (outfile.h);
 * path "-" is standard output. */
struct mmc_error *mmc_snapshot_save_checked(const struct mmc_snapshot *snap,
					    const char *path,
					    const char *const *inputs,
					    size_t ninputs);
/* A snapshot file's bytes already in memory (path names it in errors). */
struct mmc_error *mmc_snapshot_load_buffer(const uint8_t *buf, size_t size,
					   const char *path,
					   struct mmc_snapshot **out);
/* The whole file to an open stream (name for messages). */
struct mmc_error *mmc_snapshot_write(const struct mmc_snapshot *snap, FILE *f,
				     const char *name);
struct mmc_error *mmc_snapshot_load(const char *path, struct mmc_snapshot **out);
/* Does path hold a snapshot file (it starts with MMC_SNAPSHOT_MAGIC)?  For
 * a front end telling a snapshot from a dump.  The open never blocks (a
 * FIFO or a terminal is refused, mmc_infile_open()), so a caller that
 * runs with signals blocked may ask; a path that cannot be opened is no
 * snapshot file (opening it again says why). */
bool mmc_is_snapshot_file(const char *path);

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
/* Bytes of heap the snapshot holds for runs (O(patterns + unrepeated
 * runs), for tests/bench). */
size_t mmc_snapshot_mem_bytes(const struct mmc_snapshot *snap);

/*
 * Patterns.  A range's runs are kept as patterns: a body of nbody
 * consecutive runs repeated `reps` times, repetition r starting
 * r * period pfns after the first, its body run b having the first record
 * of body run b plus r * rep_delta (v and raw of every slot, wrapping;
 * stride, count and everything else equal).  A pattern with reps 1 is a
 * plain stretch of runs.  The runs above (mmc_snapshot_range_run()) are
 * the patterns expanded: pattern i's run b of repetition r is run
 * first_run + r * nbody + b.  The builder folds runs into patterns as
 * they close; the loader keeps a file's patterns.
 */
struct mmc_snapshot_pattern {
	uint64_t start;		/* first pfn (vframe patterns: first frame index) */
	uint64_t period;	/* pfns (frames) per repetition */
	uint64_t reps;		/* >= 1 */
	uint64_t first_run;	/* index of its first run among the range's runs */
	uint32_t nbody;		/* runs per repetition, >= 1 */
};
size_t mmc_snapshot_range_npatterns(const struct mmc_snapshot *snap, size_t range);
void mmc_snapshot_range_pattern(const struct mmc_snapshot *snap, size_t range, size_t i,
				struct mmc_snapshot_pattern *p);
/* Body run b of pattern i: count, first record, stride, per-repetition
 * delta (any may be NULL; rep_delta is zero when reps is 1). */
void mmc_snapshot_range_pattern_run(const struct mmc_snapshot *snap, size_t range,
				    size_t i, uint32_t b, uint64_t *count,
				    struct mmc_nrec *first, struct mmc_nrec *stride,
				    struct mmc_nrec *rep_delta);
size_t mmc_snapshot_range_nvframe_patterns(const struct mmc_snapshot *snap, size_t range);
void mmc_snapshot_range_vframe_pattern(const struct mmc_snapshot *snap, size_t range,
				       size_t i, struct mmc_snapshot_pattern *p);
void mmc_snapshot_range_vframe_pattern_run(const struct mmc_snapshot *snap, size_t range,
					   size_t i, uint32_t b, uint64_t *count,
					   struct mmc_vframe *first,
					   struct mmc_vframe *stride,
					   struct mmc_vframe *rep_delta);
/* Append a whole pattern at the end of the open range (the loader): nbody
 * runs counts[b], firsts[b], strides[b], repeated reps times with
 * rep_deltas[b] (unused when reps is 1).  Checked like append_run. */
struct mmc_error *mmc_snapshot_append_pattern(struct mmc_snapshot *snap, uint32_t nbody,
					      const uint64_t *counts,
					      const struct mmc_nrec *firsts,
					      const struct mmc_nrec *strides,
					      const struct mmc_nrec *rep_deltas,
					      uint64_t reps);
struct mmc_error *mmc_snapshot_append_vframe_pattern(struct mmc_snapshot *snap,
						     uint32_t nbody, const uint64_t *counts,
						     const struct mmc_vframe *firsts,
						     const struct mmc_vframe *strides,
						     const struct mmc_vframe *rep_deltas,
						     uint64_t reps);

#define MMC_SNAPSHOT_MAGIC "MMCSNAP"	/* 8 bytes with the NUL */
#define MMC_SNAPSHOT_VERSION 5	/* written; versions 1 to 5 are read */

#endif
