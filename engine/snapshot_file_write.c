// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files, writing (doc/SNAPSHOT-FORMAT.md): sections built in
 * memory, then streamed with the FNV-1a trailer computed on the way, to a
 * file through outfile.h (a temporary renamed into place) or any stream.
 */
#include "snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "mmc_util.h"
#include "snapshot_file_format.h"
#include "snapshot_file_emit.h"

/* ---- writing ---- */

void put(struct emit *e, const void *p, size_t n)
{
	if (e->failed || !n)
		return;
	if (e->f) {
		if (fwrite(p, 1, n, e->f) != n) {
			e->failed = true;
			return;
		}
		e->hash = mmc_fnv1a(e->hash, p, n);
	} else {
		if (e->len + n > e->cap) {
			size_t ncap = e->cap ? e->cap : 256;
			uint8_t *q;

			while (ncap < e->len + n)
				ncap *= 2;
			q = realloc(e->buf, ncap);
			if (!q) {
				e->failed = true;
				return;
			}
			e->buf = q;
			e->cap = ncap;
		}
		memcpy(e->buf + e->len, p, n);
		e->len += n;
	}
	e->n += n;
}

void put_le(struct emit *e, uint64_t v, unsigned int bytes)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(e, b, bytes);
}


void put_str(struct emit *e, const char *s)
{
	size_t n = strlen(s);

	put_u32(e, n);
	put(e, s, n);
}

void put_nval(struct emit *e, const struct mmc_nval *v)
{
	put_u8(e, v->cls);
	put_u8(e, v->region);
	put_u16(e, v->off);
	put_u64(e, (uint64_t)v->v);
	put_u64(e, v->raw);
}

void emit_info(struct emit *e, const struct mmc_snapshot_info *in)
{
	put_str(e, in->release);
	put_str(e, in->build_id);
	put_u64(e, in->layout_fingerprint);
	put_str(e, in->dump);
	put_str(e, in->layout_source);
	put_str(e, in->created_by);
}

void emit_geom(struct emit *e, const struct mmc_geom *g)
{
	put_u32(e, g->page_size);
	put_u32(e, g->struct_page_size);
	put_u64(e, g->vmemmap_base);
	put_u64(e, g->vmemmap_end);
	put_u64(e, g->page_offset_base);
	put_u64(e, g->direct_map_end);
	put_u64(e, g->vmalloc_base);
	put_u64(e, g->vmalloc_end);
	put_u64(e, g->kimage_start);
	put_u64(e, g->kimage_end);
	put_u64(e, g->module_start);
	put_u64(e, g->module_end);
	put_u64(e, g->kaslr_offset);
	put_u64(e, g->poison_pointer_delta);
	put_u32(e, g->zones_width);
	put_u32(e, g->zones_pgshift);
	put_u32(e, g->nodes_width);
	put_u32(e, g->nodes_pgshift);
	put_u32(e, g->nr_pageflags);
	put_u32(e, g->pgtable_levels);
	put_u8(e, g->base_origin);
	put_u8(e, g->levels_origin);
}

void emit_discovery(struct emit *e, const struct mmc_snapshot *snap)
{
	const char *problem = mmc_snapshot_discovery_problem(snap);
	uint64_t addr = 0;
	bool has_addr = mmc_snapshot_discovery_address(snap, &addr);
	size_t i, n = mmc_snapshot_nnotes(snap);

	put_u8(e, problem == NULL);
	put_u8(e, has_addr);
	put_u64(e, addr);
	put_str(e, problem ? problem : "");
	put_u32(e, n);
	for (i = 0; i < n; i++)
		put_str(e, mmc_snapshot_note(snap, i));
	{
		const struct mmc_dax_span *dax;
		const char *why;
		size_t ndax;

		put_u8(e, (uint8_t)mmc_snapshot_dax(snap, &dax, &ndax, &why));
		put_str(e, why);
		put_u32(e, (uint32_t)ndax);
		for (i = 0; i < ndax; i++) {
			put_u32(e, dax[i].pgmap_index);
			put_u64(e, dax[i].start_pfn);
			put_u64(e, dax[i].end_pfn);
		}
	}
}

void emit_pgmaps(struct emit *e, const struct mmc_snapshot *snap)
{
	size_t i, n = mmc_snapshot_npgmaps(snap);

	put_u32(e, n);
	for (i = 0; i < n; i++) {
		const struct mmc_spgmap *p = mmc_snapshot_pgmap(snap, i);

		put_u64(e, p->kaddr);
		put_u64(e, (uint64_t)p->type);
		put_str(e, p->type_name);
		put_u64(e, p->flags);
		put_u32(e, p->vmemmap_shift);
		put_u32(e, p->nr_range);
		put_nval(e, &p->owner);
		put_nval(e, &p->ops);
		put_u8(e, p->has_altmap);
		put_u64(e, p->altmap_base_pfn);
		put_u64(e, p->altmap_end_pfn);
		put_u64(e, p->altmap_reserve);
		put_u64(e, p->altmap_free);
		put_u64(e, p->altmap_align);
		put_u64(e, p->altmap_alloc);
	}
}

/*
 * Page patterns and vframe patterns (version 3): reps, nbody, body runs;
 * each body slot or frame run carries its per-repetition deltas when the
 * pattern repeats.  One table per kind of run, so that the two kinds of
 * patterns are laid out (and measured) by one loop.
 */
struct pattern_kind {
	size_t (*npatterns)(const struct mmc_snapshot *snap, size_t range);
	void (*pattern)(const struct mmc_snapshot *snap, size_t range, size_t i,
			struct mmc_snapshot_pattern *p);
	/* Body run b of pattern j of range i (with its deltas if it repeats). */
	void (*emit_run)(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			 size_t j, uint32_t b, bool repeats);
	uint64_t (*run_len)(const struct mmc_snapshot *snap, size_t i, size_t j,
			    uint32_t b, bool repeats);
};

static void emit_page_run(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			  size_t j, uint32_t b, bool repeats)
{
	struct mmc_nrec first, stride, rep;
	uint64_t count;

	mmc_snapshot_range_pattern_run(snap, i, j, b, &count, &first, &stride, &rep);
	put_u64(e, count);
	put_u8(e, first.state);
	put_u8(e, first.role);
	put_u8(e, first.nslots);
	put_u8(e, first.reason);
	for (unsigned int k = 0; k < first.nslots; k++) {
		put_nval(e, &first.slot[k]);
		put_u64(e, (uint64_t)stride.slot[k].v);
		put_u64(e, stride.slot[k].raw);
		if (repeats) {
			put_u64(e, (uint64_t)rep.slot[k].v);
			put_u64(e, rep.slot[k].raw);
		}
	}
}

static uint64_t page_run_len(const struct mmc_snapshot *snap, size_t i, size_t j,
			     uint32_t b, bool repeats)
{
	struct mmc_nrec first;

	mmc_snapshot_range_pattern_run(snap, i, j, b, NULL, &first, NULL, NULL);
	return RUN_HDR + (uint64_t)first.nslots * (RUN_SLOT + (repeats ? RUN_SLOT_REP : 0));
}

static const struct pattern_kind page_patterns = {
	.npatterns = mmc_snapshot_range_npatterns, .pattern = mmc_snapshot_range_pattern,
	.emit_run = emit_page_run, .run_len = page_run_len,
};

static void emit_vframe_run(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			    size_t j, uint32_t b, bool repeats)
{
	struct mmc_vframe first, stride, rep;
	uint64_t count;

	mmc_snapshot_range_vframe_pattern_run(snap, i, j, b, &count, &first, &stride, &rep);
	put_u64(e, count);
	put_u8(e, first.kind);
	put_u8(e, first.reason);
	put_u8(e, first.prot_known);
	put_u8(e, first.prot);
	put_u8(e, first.leaf);
	put_u64(e, (uint64_t)first.share_back);
	put_u64(e, (uint64_t)stride.share_back);
	put_u64(e, (uint64_t)first.dev_off);
	put_u64(e, (uint64_t)stride.dev_off);
	put_u64(e, first.paddr);
	put_u64(e, stride.paddr);
	if (repeats) {
		put_u64(e, (uint64_t)rep.share_back);
		put_u64(e, (uint64_t)rep.dev_off);
		put_u64(e, rep.paddr);
	}
}

static uint64_t vframe_run_len(const struct mmc_snapshot *snap, size_t i, size_t j,
			       uint32_t b, bool repeats)
{
	return VRUN_SIZE + (repeats ? VRUN_REP : 0);
}

static const struct pattern_kind vframe_patterns = {
	.npatterns = mmc_snapshot_range_nvframe_patterns,
	.pattern = mmc_snapshot_range_vframe_pattern,
	.emit_run = emit_vframe_run, .run_len = vframe_run_len,
};

/* Bytes of range i's patterns of kind k in the file. */
static uint64_t patterns_len(const struct mmc_snapshot *snap, size_t i,
			     const struct pattern_kind *k)
{
	size_t j, n = k->npatterns(snap, i);
	uint64_t len = 0;

	for (j = 0; j < n; j++) {
		struct mmc_snapshot_pattern p;

		k->pattern(snap, i, j, &p);
		len += PAT_HDR;
		for (uint32_t b = 0; b < p.nbody; b++)
			len += k->run_len(snap, i, j, b, p.reps > 1);
	}
	return len;
}

static uint64_t ranges_len(const struct mmc_snapshot *snap)
{
	uint64_t len = 4;

	for (size_t i = 0; i < mmc_snapshot_nranges(snap); i++)
		len += RANGE_HDR + patterns_len(snap, i, &page_patterns) +
		       patterns_len(snap, i, &vframe_patterns);
	return len;
}

static void emit_patterns(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			  size_t from, size_t to, const struct pattern_kind *k)
{
	for (size_t j = from; j < to && !e->failed; j++) {
		struct mmc_snapshot_pattern p;

		k->pattern(snap, i, j, &p);
		put_u64(e, p.reps);
		put_u32(e, p.nbody);
		for (uint32_t b = 0; b < p.nbody; b++)
			k->emit_run(e, snap, i, j, b, p.reps > 1);
	}
}

void emit_page_patterns(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			size_t from, size_t to)
{
	emit_patterns(e, snap, i, from, to, &page_patterns);
}

void emit_vframe_patterns(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			  size_t from, size_t to)
{
	emit_patterns(e, snap, i, from, to, &vframe_patterns);
}

void emit_range_header(struct emit *e, const struct mmc_srange *r, uint64_t np,
			      uint64_t nv)
{
	put_u64(e, r->start_pfn);
	put_u64(e, r->end_pfn);
	put_u32(e, r->pgmap_index);
	put_u32(e, r->range_index);
	put_u64(e, r->vmemmap_start);
	put_u64(e, r->reserve_start);
	put_u64(e, r->reserve_end);
	put_u64(e, r->altmap_start);
	put_u64(e, r->altmap_end);
	put_u8(e, r->kind);
	put_u32(e, r->owner);
	put_u64(e, np);
	put_u64(e, nv);
}

static void emit_ranges(struct emit *e, const struct mmc_snapshot *snap)
{
	size_t i;

	put_u32(e, mmc_snapshot_nranges(snap));
	for (i = 0; i < mmc_snapshot_nranges(snap); i++) {
		size_t np = mmc_snapshot_range_npatterns(snap, i);
		size_t nv = mmc_snapshot_range_nvframe_patterns(snap, i);

		emit_range_header(e, mmc_snapshot_range(snap, i), np, nv);
		emit_page_patterns(e, snap, i, 0, np);
		emit_vframe_patterns(e, snap, i, 0, nv);
	}
}

void emit_hugetlb(struct emit *e, const struct mmc_snapshot *snap)
{
	const struct mmc_shstate *h;
	const struct mmc_sfolios *f;
	const char *why;
	size_t nh, nf;

	put_u8(e, (uint8_t)mmc_snapshot_hugetlb(snap, &h, &nh, &f, &nf, &why));
	put_str(e, why);
	put_u32(e, nh);
	for (size_t i = 0; i < nh; i++) {
		put_u32(e, h[i].order);
		put_u32(e, h[i].flags);
		put_u64(e, h[i].nr);
		put_u64(e, h[i].free);
		put_u64(e, h[i].resv);
		put_u64(e, h[i].surplus);
		put_u64(e, h[i].kaddr);
		put_str(e, h[i].name);
	}
	put_u32(e, nf);
	for (size_t i = 0; i < nf; i++) {
		put_u32(e, f[i].hstate);
		put_u32(e, f[i].node);
		put_u64(e, f[i].start_pfn);
		put_u64(e, f[i].nfolios);
		put_u8(e, f[i].list);
		put_u8(e, f[i].vmemmap);
	}
}

void emit_hotplug(struct emit *e, const struct mmc_snapshot *snap)
{
	const struct mmc_smemblock *b;
	const char *why;
	size_t n;

	put_u8(e, (uint8_t)mmc_snapshot_hotplug(snap, &b, &n, &why));
	put_str(e, why);
	put_u32(e, n);
	for (size_t i = 0; i < n; i++) {
		put_u64(e, b[i].id);
		put_u64(e, b[i].start_pfn);
		put_u64(e, b[i].end_pfn);
		put_u32(e, b[i].nid);
		put_u32(e, b[i].state);
		put_u32(e, b[i].flags);
		put_u64(e, b[i].altmap_pfns);
		put_u64(e, b[i].kaddr);
	}
}

struct mmc_error *emit_layout(struct emit *e, const struct mmc_snapshot *snap)
{
	struct mmc_error *err;
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf;

	if (!mmc_snapshot_layout(snap))
		return NULL;
	mf = open_memstream(&text, &tlen);
	if (!mf)
		return mmc_error_nomem();
	err = mmc_layout_write_text(mf, mmc_snapshot_layout(snap));
	if (fclose(mf) != 0 && !err)
		err = mmc_error_nomem();
	if (!err)
		put(e, text, tlen);
	free(text);
	return err;
}

void put_section(struct emit *out, const char tag[4], const struct emit *body)
{
	put(out, tag, 4);
	put_u64(out, body->len);
	put(out, body->buf, body->len);
}

struct mmc_error *mmc_snapshot_write(const struct mmc_snapshot *snap, FILE *f,
				     const char *name)
{
	struct emit info = { 0 }, layt = { 0 }, geom = { 0 }, pgm = { 0 };
	struct emit disc = { 0 }, huge = { 0 }, plug = { 0 };
	struct emit out = { 0 };
	struct mmc_error *err = NULL;
	uint64_t rlen, total, start_n;

	if (mmc_snapshot_streamed(snap))
		return mmc_error_create(MMC_ERR_INTERNAL, name,
					"snapshot: its runs were streamed to a file already");

	emit_info(&info, mmc_snapshot_info(snap));
	emit_geom(&geom, mmc_snapshot_geom(snap));
	emit_pgmaps(&pgm, snap);
	emit_discovery(&disc, snap);
	emit_hugetlb(&huge, snap);
	emit_hotplug(&plug, snap);
	err = emit_layout(&layt, snap);
	if (err)
		goto out;
	if (info.failed || layt.failed || geom.failed || pgm.failed || disc.failed ||
	    huge.failed || plug.failed) {
		err = mmc_error_nomem();
		goto out;
	}
	rlen = ranges_len(snap);
	total = HDR_SIZE + 8 * SEC_HDR + info.len + layt.len + geom.len + pgm.len +
		huge.len + plug.len + rlen + disc.len + TRAILER;

	out.f = f;
	out.hash = MMC_FNV1A_INIT;
	put(&out, MMC_SNAPSHOT_MAGIC, 8);
	put_u32(&out, MMC_SNAPSHOT_VERSION);
	put_u32(&out, 0);
	put_u64(&out, total);
	put_section(&out, SNAP_TAG_INFO, &info);
	put_section(&out, SNAP_TAG_LAYOUT, &layt);
	put_section(&out, SNAP_TAG_GEOM, &geom);
	put_section(&out, SNAP_TAG_PGMAPS, &pgm);
	put_section(&out, SNAP_TAG_HUGETLB, &huge);
	put_section(&out, SNAP_TAG_HOTPLUG, &plug);
	put(&out, SNAP_TAG_RANGES, 4);
	put_u64(&out, rlen);
	start_n = out.n;
	emit_ranges(&out, snap);
	if (!out.failed && out.n - start_n != rlen) {
		err = mmc_error_create(MMC_ERR_INTERNAL, name,
				       "ranges section: wrote %llu bytes, computed %llu",
				       (unsigned long long)(out.n - start_n),
				       (unsigned long long)rlen);
		goto out;
	}
	put_section(&out, SNAP_TAG_DISCOVERY, &disc);
	put_u64(&out, out.hash);
	if (!out.failed && out.n != total)
		err = mmc_error_create(MMC_ERR_INTERNAL, name,
				       "wrote %llu bytes, computed %llu",
				       (unsigned long long)out.n, (unsigned long long)total);
	else if (out.failed)
		err = mmc_error_os(errno, name, "write");
out:
	free(info.buf);
	free(layt.buf);
	free(geom.buf);
	free(pgm.buf);
	free(disc.buf);
	free(huge.buf);
	free(plug.buf);
	return err;
}

struct mmc_error *mmc_snapshot_save_checked(const struct mmc_snapshot *snap,
					    const char *path,
					    const char *const *inputs,
					    size_t ninputs)
{
	struct mmc_outfile *of;
	struct mmc_error *err;

	err = mmc_outfile_open(path, inputs, ninputs, &of);
	if (err)
		return err;
	err = mmc_snapshot_write(snap, mmc_outfile_stream(of), mmc_outfile_name(of));
	if (err) {
		mmc_outfile_abort(of);
		return err;
	}
	return mmc_outfile_commit(of);
}

struct mmc_error *mmc_snapshot_save(const struct mmc_snapshot *snap, const char *path)
{
	return mmc_snapshot_save_checked(snap, path, NULL, 0);
}

