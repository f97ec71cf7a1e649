/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot's insides, shared by the snapshot*.c files that work on a
 * snapshot in memory (building, the run codec, reading, pools, equality)
 * and by the streaming file writer.  Nothing else includes it.
 */
#ifndef MMC_SNAPSHOT_INT_H
#define MMC_SNAPSHOT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"
#include "snapshot_seq.h"

/* One slot of a run: first value and stride. */
struct snap_slot {
	int64_t v, dv;
	uint64_t raw, draw;
	uint16_t off;
	uint8_t cls, region;
};

/* The run still open for records (the last one of the open range). */
struct snap_run {
	bool open;
	uint64_t start;		/* first pfn */
	uint64_t count;
	uint8_t state, role, nslots;
	uint8_t reason;		/* enum mmc_unread_reason */
	/*
	 * Set when the stride is what repeating the same struct page bytes
	 * gives (no raw value moves; pointers into other struct pages fall
	 * back one pfn a record): the walker's fast path extends such a run
	 * without a record, up to `same_limit` records (where a page pointer
	 * would reach its own pfn and turn into a self-pointer).
	 */
	bool same_bytes;
	uint64_t same_limit;
	struct snap_slot slot[MMC_MAX_SLOTS];
};

struct snap_vrun {
	bool open;
	uint64_t start;		/* first vframe index */
	uint64_t count;
	uint8_t kind;
	uint8_t reason;		/* enum mmc_unread_reason */
	uint8_t prot, prot_known, leaf;	/* as struct mmc_vframe, the same for the run */
	int64_t share_back, d_share;
	int64_t dev_off, d_dev;
	uint64_t paddr, d_paddr;
};

/* Closed runs live in seqs (snapshot_seq.h), folded into patterns. */
struct snap_range {
	struct mmc_srange r;
	struct seq runs, vruns;
	struct snap_run cur;	/* open page run */
	struct snap_vrun vcur;	/* open vframe run */
	uint64_t nrecs;		/* records appended so far */
	uint64_t nvframes;
};

/*
 * Where the builder sends what it builds, when something else must see it
 * as it is built: the streaming file writer (snapshot_file_stream.c) installs
 * one.  The builder calls range_begin after a range begins, added after
 * every addition to the open range (the sink takes the patterns that can
 * no longer grow, seq_nfinal()), range_end once the range is complete,
 * and release when the snapshot is destroyed with the sink still
 * installed.  The builder knows nothing of what is behind it.
 */
struct snap_sink {
	struct mmc_error *(*range_begin)(void *ctx, struct mmc_snapshot *snap);
	struct mmc_error *(*added)(void *ctx, struct mmc_snapshot *snap);
	struct mmc_error *(*range_end)(void *ctx, struct mmc_snapshot *snap);
	void (*release)(void *ctx);
	void *ctx;		/* NULL: no sink */
};

/*
 * The runs of the open range begun since mmc_snapshot_mark(), closed ones
 * in run[], for mmc_snapshot_repeat_moved(); valid until something other
 * than a record is appended or more than SNAP_HIST_MAX runs close.
 */
#define SNAP_HIST_MAX 8
struct snap_hist {
	bool valid;
	uint64_t mark;		/* the open range's nrecs at the mark */
	unsigned int n;
	unsigned int side;	/* run[side] holds them; a repeat builds the
				 * next ones in the other side */
	struct snap_run run[2][SNAP_HIST_MAX + 1];
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
	uint64_t reason_count[MMC_UR_MAX + 1];	/* UNREADABLE pages by reason */
	/* discovery: complete unless `problem` is set */
	bool discovery_incomplete;
	bool problem_has_address;
	uint64_t problem_address;
	char problem[MMC_SNAPSHOT_TEXT_MAX];
	char **notes;
	size_t nnotes;
	/* device-dax ranges (MMC_DAX_NOT_READ until set) */
	enum mmc_dax_state dax_state;
	char dax_why[MMC_SNAPSHOT_TEXT_MAX];
	struct mmc_dax_span *dax;
	size_t ndax;
	/* HugeTLB pools and hot-plugged memory blocks (snapshot_pools.c) */
	enum mmc_read_state huge_state;
	char huge_why[MMC_SNAPSHOT_TEXT_MAX];
	struct mmc_shstate *hstates;
	size_t nhstates;
	struct mmc_sfolios *folios;
	size_t nfolios;
	enum mmc_read_state plug_state;
	char plug_why[MMC_SNAPSHOT_TEXT_MAX];
	struct mmc_smemblock *blocks;
	size_t nblocks;
	/* where closed patterns go as they are built (none: they stay);
	 * once streamed to a file, the runs are gone */
	struct snap_sink sink;
	bool streamed;
	struct snap_hist hist;
};

/* v + i * dv with wrapping arithmetic, as the run encoder uses. */
static inline int64_t lin(int64_t v, int64_t dv, uint64_t i)
{
	return (int64_t)((uint64_t)v + (uint64_t)dv * i);
}

/* snapshot_pools.c: the initial why of each table, and freeing them */
void snap_pools_init(struct mmc_snapshot *snap);
void snap_pools_free(struct mmc_snapshot *snap);
/* May a range of this kind name this owner? NULL if so. */
struct mmc_error *snap_pools_check_owner(const struct mmc_snapshot *snap,
					 const struct mmc_srange *range);

/*
 * Runs <-> seq items (snapshot_codec.c).  The builder's open run of
 * `count` from first and stride (NULL: zero) at `start`: snap_*run_set();
 * the item it closes into: snap_*run_item().
 */
void snap_run_set(struct snap_run *run, uint64_t start, uint64_t count,
		  const struct mmc_nrec *first, const struct mmc_nrec *stride);
void snap_run_item(const struct snap_run *run, struct seq_item *it);
void snap_vrun_set(struct snap_vrun *v, uint64_t start, uint64_t count,
		   const struct mmc_vframe *first, const struct mmc_vframe *stride);
void snap_vrun_item(const struct snap_vrun *v, struct seq_item *it);

/*
 * The same for either kind of run, for the paths that treat page runs and
 * vframe runs alike (patterns): first, stride and delta point to a
 * struct mmc_nrec (snap_page_runs) or a struct mmc_vframe
 * (snap_vframe_runs), arrays of them step by elem bytes.  A delta is a
 * pattern's per-repetition move of a body run's first record; its words
 * (dlin) are seq_push_pattern()'s and seq_body()'s.
 */
struct snap_run_kind {
	size_t elem;
	void (*encode)(uint64_t start, uint64_t count, const void *first,
		       const void *stride, struct seq_item *it);
	void (*encode_delta)(const void *delta, uint64_t dlin[SEQ_MAX_WORDS]);
	void (*decode)(const struct seq_item *it, void *first, void *stride);
	void (*decode_delta)(const struct seq_item *it,
			     const uint64_t dlin[SEQ_MAX_WORDS], void *delta);
};
extern const struct snap_run_kind snap_page_runs, snap_vframe_runs;

#endif
