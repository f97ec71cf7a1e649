// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files written as the snapshot is built (snapshot.h,
 * mmc_snapshot_stream_open()), as the builder's sink (snapshot_int.h):
 * the head sections first, each range's header when it begins, its page
 * patterns as soon as they can no longer grow (in batches), its vframe
 * patterns kept in memory until the range ends (a range's page patterns
 * come first in the file; vframe runs are few), then the counts the
 * headers could not know are written in place, and the checksum is
 * computed by reading the file back.  The patterns written are dropped
 * from memory: the snapshot keeps counts, pgmaps and ranges.  The same
 * bytes as mmc_snapshot_write() of the whole snapshot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mmc_util.h"
#include "snapshot_file_emit.h"
#include "snapshot_file_format.h"
#include "snapshot_int.h"

#define STREAM_BATCH 256	/* patterns written at a time, at most */
#define STREAM_WORDS 32768	/* or once they hold this many words */

struct snap_stream {
	char *name;
	struct emit out;	/* the file; out.n is the file offset */
	struct emit vbuf;	/* the open range's vframe patterns */
	bool ranges_started;
	uint64_t rngs_len_at, rngs_start;
	uint32_t nranges;
	uint64_t hdr_at, npat, nvpat;
};

static struct mmc_error *failed(struct snap_stream *st)
{
	return mmc_error_os(errno ? errno : EIO, st->name, "write");
}

/* Write v (n bytes, little-endian) at offset at, and come back. */
static bool patch(struct snap_stream *st, uint64_t at, uint64_t v, unsigned int n)
{
	uint8_t b[8];

	for (unsigned int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return fseeko(st->out.f, (off_t)at, SEEK_SET) == 0 &&
	       fwrite(b, 1, n, st->out.f) == n &&
	       fseeko(st->out.f, (off_t)st->out.n, SEEK_SET) == 0;
}

static void stream_free(struct snap_stream *st)
{
	if (!st)
		return;
	free(st->vbuf.buf);
	free(st->name);
	free(st);
}

static void stream_release(void *ctx)
{
	stream_free(ctx);
}

static struct mmc_error *stream_range_begin(void *ctx, struct mmc_snapshot *snap);
static struct mmc_error *stream_added(void *ctx, struct mmc_snapshot *snap);
static struct mmc_error *stream_range_end(void *ctx, struct mmc_snapshot *snap);

static struct snap_stream *stream_of(const struct mmc_snapshot *snap)
{
	return snap->sink.range_begin == stream_range_begin ? snap->sink.ctx : NULL;
}

struct mmc_error *mmc_snapshot_stream_open(struct mmc_snapshot *snap, FILE *f,
					   const char *name)
{
	struct emit info = { 0 }, layt = { 0 }, geom = { 0 };
	struct snap_stream *st;
	struct mmc_error *err;

	if (snap->sink.ctx || snap->streamed || snap->nranges || snap->building)
		return mmc_error_create(MMC_ERR_INTERNAL, name,
					"snapshot: streaming starts before the first range");
	if (ftello(f) != 0)
		return mmc_error_create(MMC_ERR_INTERNAL, name,
					"snapshot: streaming needs a seekable file at offset 0");
	st = calloc(1, sizeof(*st));
	if (!st || !(st->name = strdup(name ? name : "snapshot"))) {
		free(st);
		return mmc_error_nomem();
	}
	emit_info(&info, mmc_snapshot_info(snap));
	emit_geom(&geom, mmc_snapshot_geom(snap));
	err = emit_layout(&layt, snap);
	if (!err && (info.failed || layt.failed || geom.failed))
		err = mmc_error_nomem();
	if (!err) {
		st->out.f = f;
		st->out.hash = MMC_FNV1A_INIT;
		put(&st->out, MMC_SNAPSHOT_MAGIC, 8);
		put_u32(&st->out, MMC_SNAPSHOT_VERSION);
		put_u32(&st->out, 0);
		put_u64(&st->out, 0);	/* the size, once known */
		put_section(&st->out, SNAP_TAG_INFO, &info);
		put_section(&st->out, SNAP_TAG_LAYOUT, &layt);
		put_section(&st->out, SNAP_TAG_GEOM, &geom);
		if (st->out.failed)
			err = failed(st);
	}
	free(info.buf);
	free(layt.buf);
	free(geom.buf);
	if (err) {
		stream_free(st);
		return err;
	}
	snap->sink = (struct snap_sink){
		.range_begin = stream_range_begin, .added = stream_added,
		.range_end = stream_range_end, .release = stream_release, .ctx = st,
	};
	return NULL;
}

/* The pgmaps, HugeTLB pools and memory blocks are all known at the first
 * range (they come first). */
static void start_ranges(struct mmc_snapshot *snap, struct snap_stream *st)
{
	struct emit pgm = { 0 }, huge = { 0 }, plug = { 0 };

	emit_pgmaps(&pgm, snap);
	emit_hugetlb(&huge, snap);
	emit_hotplug(&plug, snap);
	if (pgm.failed || huge.failed || plug.failed)
		st->out.failed = true;
	put_section(&st->out, SNAP_TAG_PGMAPS, &pgm);
	put_section(&st->out, SNAP_TAG_HUGETLB, &huge);
	put_section(&st->out, SNAP_TAG_HOTPLUG, &plug);
	free(pgm.buf);
	free(huge.buf);
	free(plug.buf);
	put(&st->out, SNAP_TAG_RANGES, 4);
	st->rngs_len_at = st->out.n;
	put_u64(&st->out, 0);
	st->rngs_start = st->out.n;
	put_u32(&st->out, 0);
	st->ranges_started = true;
}

static struct mmc_error *stream_range_begin(void *ctx, struct mmc_snapshot *snap)
{
	struct snap_stream *st = ctx;

	if (!st->ranges_started)
		start_ranges(snap, st);
	st->hdr_at = st->out.n;
	emit_range_header(&st->out, &snap->ranges[snap->nranges - 1].r, 0, 0);
	st->npat = st->nvpat = 0;
	st->vbuf.len = 0;
	return st->out.failed ? failed(st) : NULL;
}

/* The patterns of seq s (range ri's page or vframe runs, emitted by
 * emit_patterns) that can no longer grow go to e once a batch is due, or
 * all of them when final.  Returns how many went. */
static size_t flush_seq(struct emit *e, struct mmc_snapshot *snap, size_t ri,
			struct seq *s, bool final,
			void (*emit_patterns)(struct emit *, const struct mmc_snapshot *,
					      size_t, size_t, size_t))
{
	size_t n = seq_nfinal(s, final);

	if (!final && n < STREAM_BATCH && !(n && s->npool > STREAM_WORDS))
		return 0;
	emit_patterns(e, snap, ri, 0, n);
	seq_drop(s, n);
	return n;
}

/* The open range's patterns that can no longer grow (all when final)
 * go out, in batches. */
static struct mmc_error *stream_flush(struct snap_stream *st, struct mmc_snapshot *snap,
				      bool final)
{
	size_t ri = snap->nranges - 1;
	struct snap_range *r = &snap->ranges[ri];

	st->npat += flush_seq(&st->out, snap, ri, &r->runs, final, emit_page_patterns);
	st->nvpat += flush_seq(&st->vbuf, snap, ri, &r->vruns, final, emit_vframe_patterns);
	if (st->vbuf.failed)
		return mmc_error_nomem();
	return st->out.failed ? failed(st) : NULL;
}

static struct mmc_error *stream_added(void *ctx, struct mmc_snapshot *snap)
{
	return stream_flush(ctx, snap, false);
}

static struct mmc_error *stream_range_end(void *ctx, struct mmc_snapshot *snap)
{
	struct snap_stream *st = ctx;
	struct mmc_error *err = stream_flush(st, snap, true);

	if (err)
		return err;
	put(&st->out, st->vbuf.buf, st->vbuf.len);
	st->vbuf.len = 0;
	st->nranges++;
	if (st->out.failed || !patch(st, st->hdr_at + RANGE_HDR - 16, st->npat, 8) ||
	    !patch(st, st->hdr_at + RANGE_HDR - 8, st->nvpat, 8))
		return failed(st);
	return NULL;
}

struct mmc_error *mmc_snapshot_stream_finish(struct mmc_snapshot *snap)
{
	struct snap_stream *st = stream_of(snap);
	struct emit disc = { 0 };
	uint64_t h = MMC_FNV1A_INIT, pos = 0, body;
	struct mmc_error *err = NULL;
	uint8_t buf[65536];
	FILE *f;

	if (!st)
		return mmc_error_create(MMC_ERR_INTERNAL, NULL, "snapshot: not streaming");
	if (snap->building)
		return mmc_error_create(MMC_ERR_INTERNAL, st->name,
					"snapshot: a range is still open");
	f = st->out.f;
	if (!st->ranges_started)
		start_ranges(snap, st);
	emit_discovery(&disc, snap);
	if (disc.failed)
		err = mmc_error_nomem();
	body = st->out.n;
	if (!err && !st->out.failed &&
	    (!patch(st, st->rngs_len_at, body - st->rngs_start, 8) ||
	     !patch(st, st->rngs_start, st->nranges, 4)))
		st->out.failed = true;
	if (!err) {
		put_section(&st->out, SNAP_TAG_DISCOVERY, &disc);
		body = st->out.n;
		if (!st->out.failed && !patch(st, 16, body + TRAILER, 8))
			st->out.failed = true;
	}
	free(disc.buf);
	/* the checksum: the file read back */
	if (!err && !st->out.failed &&
	    (fflush(f) != 0 || fseeko(f, 0, SEEK_SET) != 0))
		st->out.failed = true;
	while (!err && !st->out.failed && pos < body) {
		size_t k = body - pos < sizeof(buf) ? (size_t)(body - pos) : sizeof(buf);

		if (fread(buf, 1, k, f) != k) {
			st->out.failed = true;
			break;
		}
		h = mmc_fnv1a(h, buf, k);
		pos += k;
	}
	if (!err && !st->out.failed) {
		if (fseeko(f, (off_t)body, SEEK_SET) != 0)
			st->out.failed = true;
		else
			put_u64(&st->out, h);
	}
	if (!err && (st->out.failed || fflush(f) != 0))
		err = failed(st);
	snap->sink = (struct snap_sink){ 0 };
	snap->streamed = true;
	stream_free(st);
	return err;
}
