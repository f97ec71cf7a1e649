/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A snapshot range's runs (page runs or vmemmap-frame runs) as a sequence
 * of items folded into patterns.  Private to the snapshot module.
 *
 * An item is a closed run: a position (pfn or frame index), a count, shape
 * words that a repetition must match exactly (state, classes, strides) and
 * linear words (first values) that may move by a fixed delta per
 * repetition.  A segment is a body of nbody consecutive items repeated
 * `reps` times, every repetition `period` positions after the previous one,
 * item b of repetition r having linear word j = body[b].lin[j] + r *
 * body[b].dlin[j] (mod 2^64).  A plain stretch of items is a segment with
 * reps 1.  So a range of N identical compound pages costs one segment, and
 * the items a caller sees (the "virtual" items: every repetition of every
 * body item, in position order) are exactly the runs it pushed.
 *
 * Folding happens as items close (seq_push): a window of recent items is
 * searched for three consecutive repetitions of a body of at most
 * SEQ_MAX_BODY items; once found, further items extend the pattern while
 * they continue it.  Memory is O(segments + body items).
 */
#ifndef MMC_SNAPSHOT_SEQ_H
#define MMC_SNAPSHOT_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SEQ_MAX_BODY 16		/* longest body the builder looks for */
#define SEQ_MAX_WORDS 96	/* shape + linear words of one item */
#define SEQ_PLAIN_MAX 256	/* items of a plain segment (a streamed batch) */

/* One item, as pushed or read back. */
struct seq_item {
	uint64_t start, count;
	uint32_t nshape, nlin;
	uint64_t w[SEQ_MAX_WORDS];	/* shape words, then linear words */
};

struct seq_seg {
	uint64_t start;		/* position of repetition 0's first item */
	uint64_t period;	/* positions per repetition */
	uint64_t reps;		/* >= 1 */
	uint64_t vidx0;		/* virtual index of its first item */
	size_t item0;		/* first body item in the pool */
	uint32_t nbody;
};

struct seq {
	/* committed: item records in pool (off[i] = where item i starts):
	 * start, count, nshape | nlin << 32, shape, lin, and dlin when the
	 * segment it belongs to repeats */
	uint64_t *pool;
	size_t npool, pool_cap;
	size_t *off;
	size_t nitems, items_cap;
	struct seq_seg *segs;
	size_t nsegs, segs_cap;
	uint64_t nvirt;		/* virtual items committed */
	/* not yet committed: recent closed items (detecting), or the items
	 * that so far continue the last segment's next repetition (active) */
	struct seq_item *win;
	size_t nwin, whead;
	bool active;
	uint64_t end;		/* position after the last pushed item */
};

void seq_init(struct seq *s);
void seq_free(struct seq *s);
/* Append a closed item (its start must be s->end).  false: out of memory. */
bool seq_push(struct seq *s, const struct seq_item *it);
/* Append a whole pattern (the loader): body[0..nbody) with per-repetition
 * deltas dlin[b][j]; reps >= 1 (dlin unused when 1).  false: out of memory. */
bool seq_push_pattern(struct seq *s, const struct seq_item *body,
		      const uint64_t (*dlin)[SEQ_MAX_WORDS], uint32_t nbody,
		      uint64_t reps);
/* Commit everything pending (end of a range).  false: out of memory. */
bool seq_flush(struct seq *s);
/* Release growth slack. */
void seq_shrink(struct seq *s);

/* Streaming: segments that can no longer change (all once flushed; else
 * all but the last), and dropping the first n of them (their virtual
 * items are then gone: seq_get() and seq_find() no longer see them). */
size_t seq_nfinal(const struct seq *s, bool flushed);
void seq_drop(struct seq *s, size_t n);

/* Reading (after seq_flush) */
static inline uint64_t seq_nvirt(const struct seq *s) { return s->nvirt; }
/* Virtual item v: its start, count and words (linear words moved to its
 * repetition). */
void seq_get(const struct seq *s, uint64_t v, struct seq_item *out);
/* Virtual index of the item holding position pos (pos inside the
 * sequence's span, which must not be empty). */
uint64_t seq_find(const struct seq *s, uint64_t pos);
/* Body item b of segment i; dlin (may be NULL) gets the per-repetition
 * deltas (zero for a plain segment). */
void seq_body(const struct seq *s, size_t seg, uint32_t b, struct seq_item *out,
	      uint64_t dlin[SEQ_MAX_WORDS]);
size_t seq_mem_bytes(const struct seq *s);

#endif
