// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files (doc/SNAPSHOT-FORMAT.md): little-endian, versioned, tagged
 * sections, FNV-1a 64 trailer.  Written to PATH.tmp.XXXXXX, fsync'ed and
 * renamed.  The loader reads the whole file, checks size, magic, version and
 * checksum, then parses every section with bounds checks: every error names
 * the file and the byte offset.
 */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR_SIZE 24		/* magic[8], version u32, flags u32, file size u64 */
#define SEC_HDR 12		/* tag[4], length u64 */
#define TRAILER 8
#define NVAL_SIZE 20		/* cls u8, region u8, off u16, v i64, raw u64 */
#define RUN_HDR 11		/* count u64, state u8, role u8, nslots u8 */
#define RUN_SLOT 36		/* nval + dv i64 + draw u64 */
#define VRUN_SIZE 57		/* count u64, kind u8, 6 x 64-bit */
#define RANGE_HDR 80		/* 7 x u64, 2 x u32, nruns u64, nvruns u64 */

static const char tag_info[4] = { 'I', 'N', 'F', 'O' };
static const char tag_layout[4] = { 'L', 'A', 'Y', 'T' };
static const char tag_geom[4] = { 'G', 'E', 'O', 'M' };
static const char tag_pgmaps[4] = { 'P', 'G', 'M', 'P' };
static const char tag_ranges[4] = { 'R', 'N', 'G', 'S' };

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

/* ---- writing ---- */

struct emit {
	uint8_t *buf;		/* memory mode when f == NULL */
	size_t len, cap;
	FILE *f;
	uint64_t hash;
	uint64_t n;
	bool failed;
};

static void put(struct emit *e, const void *p, size_t n)
{
	if (e->failed || !n)
		return;
	if (e->f) {
		if (fwrite(p, 1, n, e->f) != n) {
			e->failed = true;
			return;
		}
		e->hash = fnv1a(e->hash, p, n);
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

static void put_le(struct emit *e, uint64_t v, unsigned int bytes)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(e, b, bytes);
}

static void put_u8(struct emit *e, uint64_t v) { put_le(e, v, 1); }
static void put_u16(struct emit *e, uint64_t v) { put_le(e, v, 2); }
static void put_u32(struct emit *e, uint64_t v) { put_le(e, v, 4); }
static void put_u64(struct emit *e, uint64_t v) { put_le(e, v, 8); }

static void put_str(struct emit *e, const char *s)
{
	size_t n = strlen(s);

	put_u32(e, n);
	put(e, s, n);
}

static void put_nval(struct emit *e, const struct mmc_nval *v)
{
	put_u8(e, v->cls);
	put_u8(e, v->region);
	put_u16(e, v->off);
	put_u64(e, (uint64_t)v->v);
	put_u64(e, v->raw);
}

static void emit_info(struct emit *e, const struct mmc_snapshot_info *in)
{
	put_str(e, in->release);
	put_str(e, in->build_id);
	put_u64(e, in->layout_fingerprint);
	put_str(e, in->dump);
	put_str(e, in->layout_source);
	put_str(e, in->created_by);
}

static void emit_geom(struct emit *e, const struct mmc_geom *g)
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
}

static void emit_pgmaps(struct emit *e, const struct mmc_snapshot *snap)
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

static uint64_t ranges_len(const struct mmc_snapshot *snap)
{
	uint64_t len = 4;
	size_t i, j;

	for (i = 0; i < mmc_snapshot_nranges(snap); i++) {
		size_t nr = mmc_snapshot_range_nruns(snap, i);

		len += RANGE_HDR;
		for (j = 0; j < nr; j++) {
			struct mmc_nrec first;

			mmc_snapshot_range_run(snap, i, j, NULL, NULL, &first, NULL);
			len += RUN_HDR + (uint64_t)first.nslots * RUN_SLOT;
		}
		len += (uint64_t)mmc_snapshot_range_nvframe_runs(snap, i) * VRUN_SIZE;
	}
	return len;
}

static void emit_ranges(struct emit *e, const struct mmc_snapshot *snap)
{
	size_t i, j, k;

	put_u32(e, mmc_snapshot_nranges(snap));
	for (i = 0; i < mmc_snapshot_nranges(snap); i++) {
		const struct mmc_srange *r = mmc_snapshot_range(snap, i);
		size_t nr = mmc_snapshot_range_nruns(snap, i);
		size_t nv = mmc_snapshot_range_nvframe_runs(snap, i);

		put_u64(e, r->start_pfn);
		put_u64(e, r->end_pfn);
		put_u32(e, r->pgmap_index);
		put_u32(e, r->range_index);
		put_u64(e, r->vmemmap_start);
		put_u64(e, r->reserve_start);
		put_u64(e, r->reserve_end);
		put_u64(e, r->altmap_start);
		put_u64(e, r->altmap_end);
		put_u64(e, nr);
		put_u64(e, nv);
		for (j = 0; j < nr && !e->failed; j++) {
			struct mmc_nrec first, stride;
			uint64_t count;

			mmc_snapshot_range_run(snap, i, j, NULL, &count, &first, &stride);
			put_u64(e, count);
			put_u8(e, first.state);
			put_u8(e, first.role);
			put_u8(e, first.nslots);
			for (k = 0; k < first.nslots; k++) {
				put_nval(e, &first.slot[k]);
				put_u64(e, (uint64_t)stride.slot[k].v);
				put_u64(e, stride.slot[k].raw);
			}
		}
		for (j = 0; j < nv && !e->failed; j++) {
			struct mmc_vframe first, stride;
			uint64_t count;

			mmc_snapshot_range_vframe_run(snap, i, j, NULL, &count, &first, &stride);
			put_u64(e, count);
			put_u8(e, first.kind);
			put_u64(e, (uint64_t)first.share_back);
			put_u64(e, (uint64_t)stride.share_back);
			put_u64(e, (uint64_t)first.dev_off);
			put_u64(e, (uint64_t)stride.dev_off);
			put_u64(e, first.paddr);
			put_u64(e, stride.paddr);
		}
	}
}

static void put_section(struct emit *out, const char tag[4], const struct emit *body)
{
	put(out, tag, 4);
	put_u64(out, body->len);
	put(out, body->buf, body->len);
}

static void fsync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

struct mmc_error *mmc_snapshot_save(const struct mmc_snapshot *snap, const char *path)
{
	struct emit info = { 0 }, layt = { 0 }, geom = { 0 }, pgm = { 0 };
	struct emit out = { 0 };
	struct mmc_error *err = NULL;
	uint64_t rlen, total, start_n;
	char *tmp = NULL;
	int fd = -1;

	emit_info(&info, mmc_snapshot_info(snap));
	emit_geom(&geom, mmc_snapshot_geom(snap));
	emit_pgmaps(&pgm, snap);
	if (mmc_snapshot_layout(snap)) {
		char *text = NULL;
		size_t tlen = 0;
		FILE *mf = open_memstream(&text, &tlen);

		if (!mf) {
			err = mmc_error_nomem();
			goto out;
		}
		err = mmc_layout_write_text(mf, mmc_snapshot_layout(snap));
		if (fclose(mf) != 0 && !err)
			err = mmc_error_nomem();
		if (!err)
			put(&layt, text, tlen);
		free(text);
		if (err)
			goto out;
	}
	if (info.failed || layt.failed || geom.failed || pgm.failed) {
		err = mmc_error_nomem();
		goto out;
	}
	rlen = ranges_len(snap);
	total = HDR_SIZE + 5 * SEC_HDR + info.len + layt.len + geom.len + pgm.len +
		rlen + TRAILER;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		tmp = NULL;
		err = mmc_error_nomem();
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = mmc_error_os(errno, tmp, "mkstemp");
		goto out;
	}
	out.f = fdopen(fd, "wb");
	if (!out.f) {
		err = mmc_error_os(errno, tmp, "fdopen");
		goto out_unlink;
	}
	fd = -1;
	out.hash = FNV_INIT;
	put(&out, MMC_SNAPSHOT_MAGIC, 8);
	put_u32(&out, MMC_SNAPSHOT_VERSION);
	put_u32(&out, 0);
	put_u64(&out, total);
	put_section(&out, tag_info, &info);
	put_section(&out, tag_layout, &layt);
	put_section(&out, tag_geom, &geom);
	put_section(&out, tag_pgmaps, &pgm);
	put(&out, tag_ranges, 4);
	put_u64(&out, rlen);
	start_n = out.n;
	emit_ranges(&out, snap);
	if (!out.failed && out.n - start_n != rlen) {
		err = mmc_error_create(MMC_ERR_INTERNAL, tmp,
				       "ranges section: wrote %llu bytes, computed %llu",
				       (unsigned long long)(out.n - start_n),
				       (unsigned long long)rlen);
		goto out_close;
	}
	put_u64(&out, out.hash);
	if (out.failed || fflush(out.f) != 0) {
		err = mmc_error_os(errno, tmp, "write");
		goto out_close;
	}
	if (fsync(fileno(out.f)) != 0) {
		err = mmc_error_os(errno, tmp, "fsync");
		goto out_close;
	}
	if (fclose(out.f) != 0) {
		out.f = NULL;
		err = mmc_error_os(errno, tmp, "close");
		goto out_unlink;
	}
	out.f = NULL;
	if (rename(tmp, path) != 0) {
		err = mmc_error_os(errno, path, "rename from %s", tmp);
		goto out_unlink;
	}
	fsync_dir(path);
	goto out;

out_close:
	fclose(out.f);
	out.f = NULL;
out_unlink:
	unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(info.buf);
	free(layt.buf);
	free(geom.buf);
	free(pgm.buf);
	return err;
}

/* ---- reading ---- */

struct rd {
	const uint8_t *p;
	uint64_t end;		/* current limit (section end) */
	uint64_t pos;
	const char *path;
	struct mmc_error *err;
};

static struct mmc_error *bad(struct rd *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct mmc_error *bad(struct rd *r, uint64_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->err = mmc_error_create(MMC_ERR_INPUT, r->path, "byte offset %llu: %s",
				  (unsigned long long)off, msg);
	return r->err;
}

static bool need(struct rd *r, uint64_t n, const char *what)
{
	if (r->err)
		return false;
	if (n > r->end - r->pos) {
		bad(r, r->pos, "truncated %s: need %llu bytes, %llu left in section",
		    what, (unsigned long long)n, (unsigned long long)(r->end - r->pos));
		return false;
	}
	return true;
}

static uint64_t get_le(struct rd *r, unsigned int bytes, const char *what)
{
	uint64_t v = 0;
	unsigned int i;

	if (!need(r, bytes, what))
		return 0;
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->pos + i] << (8 * i);
	r->pos += bytes;
	return v;
}

static uint8_t get_u8(struct rd *r, const char *w) { return (uint8_t)get_le(r, 1, w); }
static uint16_t get_u16(struct rd *r, const char *w) { return (uint16_t)get_le(r, 2, w); }
static uint32_t get_u32(struct rd *r, const char *w) { return (uint32_t)get_le(r, 4, w); }
static uint64_t get_u64(struct rd *r, const char *w) { return get_le(r, 8, w); }

static void get_str(struct rd *r, char *dst, size_t size, const char *what)
{
	uint64_t at = r->pos;
	uint32_t n = get_u32(r, what);

	dst[0] = 0;
	if (r->err)
		return;
	if (n >= size) {
		bad(r, at, "%s: length %u exceeds %zu", what, n, size - 1);
		return;
	}
	if (!need(r, n, what))
		return;
	if (memchr(r->p + r->pos, 0, n)) {
		bad(r, r->pos, "%s: NUL inside the string", what);
		return;
	}
	memcpy(dst, r->p + r->pos, n);
	dst[n] = 0;
	r->pos += n;
}

static void get_nval(struct rd *r, struct mmc_nval *v, const char *what)
{
	uint64_t at = r->pos;

	v->cls = get_u8(r, what);
	v->region = get_u8(r, what);
	v->off = get_u16(r, what);
	v->v = (int64_t)get_u64(r, what);
	v->raw = get_u64(r, what);
	if (r->err)
		return;
	if (v->cls > MMC_V_OBJ)
		bad(r, at, "%s: value class %u out of range", what, v->cls);
	else if (v->region > MMC_R_MMID)
		bad(r, at + 1, "%s: region %u out of range", what, v->region);
	else if (v->cls == MMC_V_RAW && (uint64_t)v->v != v->raw)
		bad(r, at + 4, "%s: raw slot whose value differs from raw", what);
}

/* Enter section `tag`: sets r->end to its end.  Returns its end. */
static uint64_t section(struct rd *r, uint64_t file_end, const char tag[4])
{
	uint64_t at = r->pos, len;

	r->end = file_end;
	if (!need(r, SEC_HDR, "section header"))
		return 0;
	if (memcmp(r->p + r->pos, tag, 4) != 0) {
		bad(r, at, "expected section '%.4s'", tag);
		return 0;
	}
	r->pos += 4;
	len = get_u64(r, "section length");
	if (r->err)
		return 0;
	if (len > file_end - r->pos) {
		bad(r, at + 4, "section '%.4s' length %llu exceeds the %llu bytes left",
		    tag, (unsigned long long)len, (unsigned long long)(file_end - r->pos));
		return 0;
	}
	r->end = r->pos + len;
	return r->end;
}

static void section_done(struct rd *r, const char tag[4])
{
	if (!r->err && r->pos != r->end)
		bad(r, r->pos, "%llu unparsed bytes at the end of section '%.4s'",
		    (unsigned long long)(r->end - r->pos), tag);
}

static struct mmc_error *wrap(struct rd *r, uint64_t off, struct mmc_error *err)
{
	if (!err)
		return NULL;
	if (!r->err) {
		bad(r, off, "%s", err->message);
		mmc_error_destroy(err);
	} else {
		mmc_error_destroy(err);
	}
	return r->err;
}

static void parse_geom(struct rd *r, struct mmc_geom *g)
{
	uint64_t at = r->pos;

	memset(g, 0, sizeof(*g));
	g->page_size = get_u32(r, "geometry");
	g->struct_page_size = get_u32(r, "geometry");
	g->vmemmap_base = get_u64(r, "geometry");
	g->vmemmap_end = get_u64(r, "geometry");
	g->page_offset_base = get_u64(r, "geometry");
	g->direct_map_end = get_u64(r, "geometry");
	g->vmalloc_base = get_u64(r, "geometry");
	g->vmalloc_end = get_u64(r, "geometry");
	g->kimage_start = get_u64(r, "geometry");
	g->kimage_end = get_u64(r, "geometry");
	g->module_start = get_u64(r, "geometry");
	g->module_end = get_u64(r, "geometry");
	g->kaslr_offset = get_u64(r, "geometry");
	g->poison_pointer_delta = get_u64(r, "geometry");
	g->zones_width = get_u32(r, "geometry");
	g->zones_pgshift = get_u32(r, "geometry");
	g->nodes_width = get_u32(r, "geometry");
	g->nodes_pgshift = get_u32(r, "geometry");
	g->nr_pageflags = get_u32(r, "geometry");
	if (r->err)
		return;
	if (g->page_size == 0 || (g->page_size & (g->page_size - 1)) ||
	    g->page_size > (1u << 24))
		bad(r, at, "page size %u is not a power of two up to 16 MiB", g->page_size);
	else if (g->struct_page_size % 8 || g->struct_page_size > 8 * MMC_MAX_SLOTS)
		bad(r, at + 4, "struct page size %u is not a multiple of 8 up to %d",
		    g->struct_page_size, 8 * MMC_MAX_SLOTS);
	else if (g->zones_width > 64 || g->zones_pgshift > 63 ||
		 g->nodes_width > 64 || g->nodes_pgshift > 63 || g->nr_pageflags > 64)
		bad(r, at + 104, "page flags layout out of range");
}

static void parse_pgmaps(struct rd *r, struct mmc_snapshot *snap)
{
	uint64_t at = r->pos;
	uint32_t n = get_u32(r, "pgmap count"), i;

	/* each pgmap takes at least 125 bytes */
	if (!r->err && n > (r->end - r->pos) / 125) {
		bad(r, at, "pgmap count %u does not fit in the section", n);
		return;
	}
	for (i = 0; i < n && !r->err; i++) {
		struct mmc_spgmap p;
		uint64_t pat = r->pos;

		memset(&p, 0, sizeof(p));
		p.kaddr = get_u64(r, "pgmap");
		p.type = (int64_t)get_u64(r, "pgmap");
		get_str(r, p.type_name, sizeof(p.type_name), "pgmap type name");
		p.flags = get_u64(r, "pgmap");
		p.vmemmap_shift = get_u32(r, "pgmap");
		p.nr_range = get_u32(r, "pgmap");
		get_nval(r, &p.owner, "pgmap owner");
		get_nval(r, &p.ops, "pgmap ops");
		{
			uint64_t hat = r->pos;
			uint8_t h = get_u8(r, "pgmap");

			if (!r->err && h > 1)
				bad(r, hat, "pgmap %u: has_altmap %u is not 0 or 1", i, h);
			p.has_altmap = h;
		}
		p.altmap_base_pfn = get_u64(r, "pgmap");
		p.altmap_end_pfn = get_u64(r, "pgmap");
		p.altmap_reserve = get_u64(r, "pgmap");
		p.altmap_free = get_u64(r, "pgmap");
		p.altmap_align = get_u64(r, "pgmap");
		p.altmap_alloc = get_u64(r, "pgmap");
		if (!r->err && p.vmemmap_shift > 63)
			bad(r, pat, "pgmap %u: vmemmap_shift %u out of range", i,
			    p.vmemmap_shift);
		if (!r->err)
			wrap(r, pat, mmc_snapshot_add_pgmap(snap, &p));
	}
}

static void parse_runs(struct rd *r, struct mmc_snapshot *snap,
		       const struct mmc_srange *sr, uint64_t nruns)
{
	uint64_t npages = sr->end_pfn - sr->start_pfn, seen = 0, j;
	unsigned int k;

	for (j = 0; j < nruns && !r->err; j++) {
		struct mmc_nrec first, stride;
		uint64_t at = r->pos, count;

		memset(&first, 0, sizeof(first));
		memset(&stride, 0, sizeof(stride));
		count = get_u64(r, "run");
		first.state = stride.state = get_u8(r, "run");
		first.role = stride.role = get_u8(r, "run");
		first.nslots = stride.nslots = get_u8(r, "run");
		if (r->err)
			return;
		if (count == 0 || count > npages - seen) {
			bad(r, at, "run %llu: count %llu with %llu of the range's %llu pages left",
			    (unsigned long long)j, (unsigned long long)count,
			    (unsigned long long)(npages - seen), (unsigned long long)npages);
			return;
		}
		if (first.state > MMC_PS_NOT_INIT) {
			bad(r, at + 8, "run %llu: page state %u out of range",
			    (unsigned long long)j, first.state);
			return;
		}
		if (first.role > MMC_ROLE_SHARED) {
			bad(r, at + 9, "run %llu: page role %u out of range",
			    (unsigned long long)j, first.role);
			return;
		}
		if (first.nslots > MMC_MAX_SLOTS) {
			bad(r, at + 10, "run %llu: %u slots, at most %d",
			    (unsigned long long)j, first.nslots, MMC_MAX_SLOTS);
			return;
		}
		for (k = 0; k < first.nslots && !r->err; k++) {
			uint64_t sat;

			get_nval(r, &first.slot[k], "run slot");
			sat = r->pos;
			stride.slot[k].cls = first.slot[k].cls;
			stride.slot[k].v = (int64_t)get_u64(r, "run stride");
			stride.slot[k].raw = get_u64(r, "run stride");
			if (!r->err && first.slot[k].cls == MMC_V_RAW &&
			    (uint64_t)stride.slot[k].v != stride.slot[k].raw)
				bad(r, sat, "run %llu slot %u: raw stride differs from value stride",
				    (unsigned long long)j, k);
		}
		if (r->err)
			return;
		seen += count;
		wrap(r, at, mmc_snapshot_append_run(snap, &first, &stride, count));
	}
	if (!r->err && seen != npages)
		bad(r, r->pos, "range [0x%llx, 0x%llx): runs hold %llu pages, want %llu",
		    (unsigned long long)sr->start_pfn, (unsigned long long)sr->end_pfn,
		    (unsigned long long)seen, (unsigned long long)npages);
}

static void parse_vruns(struct rd *r, struct mmc_snapshot *snap,
			const struct mmc_srange *sr, uint64_t nv)
{
	uint64_t j, seen = 0;
	uint64_t ps = mmc_snapshot_geom(snap)->page_size;
	uint64_t want = ((sr->end_pfn - sr->start_pfn) *
			 mmc_snapshot_geom(snap)->struct_page_size + ps - 1) / ps;

	for (j = 0; j < nv && !r->err; j++) {
		struct mmc_vframe f, s;
		uint64_t at = r->pos, count;

		memset(&f, 0, sizeof(f));
		memset(&s, 0, sizeof(s));
		count = get_u64(r, "vframe run");
		f.kind = get_u8(r, "vframe run");
		f.share_back = (int64_t)get_u64(r, "vframe run");
		s.share_back = (int64_t)get_u64(r, "vframe run");
		f.dev_off = (int64_t)get_u64(r, "vframe run");
		s.dev_off = (int64_t)get_u64(r, "vframe run");
		f.paddr = get_u64(r, "vframe run");
		s.paddr = get_u64(r, "vframe run");
		if (r->err)
			return;
		if (count == 0 || count > want - seen) {
			bad(r, at, "vframe run %llu: count %llu with %llu of %llu frames left",
			    (unsigned long long)j, (unsigned long long)count,
			    (unsigned long long)(want - seen), (unsigned long long)want);
			return;
		}
		if (f.kind > MMC_VF_UNREADABLE) {
			bad(r, at + 8, "vframe run %llu: kind %u out of range",
			    (unsigned long long)j, f.kind);
			return;
		}
		seen += count;
		wrap(r, at, mmc_snapshot_append_vframe_run(snap, &f, &s, count));
	}
	if (!r->err && seen != want)
		bad(r, r->pos, "range [0x%llx, 0x%llx): %llu vmemmap frames, want %llu",
		    (unsigned long long)sr->start_pfn, (unsigned long long)sr->end_pfn,
		    (unsigned long long)seen, (unsigned long long)want);
}

static void parse_ranges(struct rd *r, struct mmc_snapshot *snap)
{
	uint64_t at = r->pos;
	uint32_t n = get_u32(r, "range count"), i;

	if (!r->err && n > (r->end - r->pos) / RANGE_HDR) {
		bad(r, at, "range count %u does not fit in the section", n);
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
		nat = r->pos;
		nruns = get_u64(r, "range run count");
		nv = get_u64(r, "range vframe run count");
		if (r->err)
			return;
		if (sr.end_pfn < sr.start_pfn) {
			bad(r, rat, "range %u ends before it starts", i);
			return;
		}
		if ((sr.end_pfn - sr.start_pfn) > (UINT64_MAX >> 8)) {
			bad(r, rat, "range %u: %llu pages is too many", i,
			    (unsigned long long)(sr.end_pfn - sr.start_pfn));
			return;
		}
		if (sr.pgmap_index >= mmc_snapshot_npgmaps(snap)) {
			bad(r, rat + 16, "range %u: pgmap %u of %zu", i, sr.pgmap_index,
			    mmc_snapshot_npgmaps(snap));
			return;
		}
		if (nruns > (r->end - r->pos) / RUN_HDR ||
		    nv > (r->end - r->pos) / VRUN_SIZE ||
		    nruns * RUN_HDR + nv * VRUN_SIZE > r->end - r->pos) {
			bad(r, nat, "range %u: %llu runs and %llu vframe runs do not fit in the section",
			    i, (unsigned long long)nruns, (unsigned long long)nv);
			return;
		}
		if (wrap(r, rat, mmc_snapshot_begin_range(snap, &sr)))
			return;
		parse_runs(r, snap, &sr, nruns);
		parse_vruns(r, snap, &sr, nv);
		if (!r->err)
			wrap(r, r->pos, mmc_snapshot_end_range(snap));
	}
}

static struct mmc_error *read_all(const char *path, uint8_t **buf, uint64_t *size)
{
	struct stat st;
	uint8_t *p;
	size_t got = 0;
	int fd;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mmc_error_os(errno, path, "open");
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return mmc_error_os(e, path, "fstat");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return mmc_error_create(MMC_ERR_INPUT, path, "not a regular file");
	}
	if (st.st_size < HDR_SIZE + TRAILER) {
		close(fd);
		return mmc_error_create(MMC_ERR_INPUT, path,
					"byte offset %lld: truncated: %lld bytes, a snapshot has at least %d",
					(long long)st.st_size, (long long)st.st_size,
					HDR_SIZE + TRAILER);
	}
	p = malloc((size_t)st.st_size);
	if (!p) {
		close(fd);
		return mmc_error_nomem();
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			free(p);
			close(fd);
			return mmc_error_os(e, path, "read at byte offset %zu", got);
		}
		got += (size_t)n;
	}
	close(fd);
	*buf = p;
	*size = (uint64_t)st.st_size;
	return NULL;
}

struct mmc_error *mmc_snapshot_load(const char *path, struct mmc_snapshot **out)
{
	struct rd r = { .path = path };
	struct mmc_snapshot *snap = NULL;
	struct mmc_snapshot_info info;
	struct mmc_layout *layout = NULL;
	struct mmc_geom geom;
	uint64_t size = 0, body, declared, stored, end, lat, llen;
	uint32_t version;
	uint8_t *buf;
	struct mmc_error *err;

	*out = NULL;
	err = read_all(path, &buf, &size);
	if (err)
		return err;
	r.p = buf;
	r.end = size;
	body = size - TRAILER;
	if (memcmp(buf, MMC_SNAPSHOT_MAGIC, 8) != 0) {
		bad(&r, 0, "bad magic: not a memmapcheck snapshot");
		goto out;
	}
	r.pos = 8;
	version = get_u32(&r, "version");
	if (version != MMC_SNAPSHOT_VERSION) {
		bad(&r, 8, "unsupported version %u (this build reads %d)", version,
		    MMC_SNAPSHOT_VERSION);
		goto out;
	}
	if (get_u32(&r, "flags") != 0) {
		bad(&r, 12, "unknown flags");
		goto out;
	}
	declared = get_u64(&r, "file size");
	if (declared != size) {
		bad(&r, 16, "header says %llu bytes, the file has %llu (truncated or appended to)",
		    (unsigned long long)declared, (unsigned long long)size);
		goto out;
	}
	r.pos = body;
	stored = get_u64(&r, "checksum");
	if (stored != fnv1a(FNV_INIT, buf, body)) {
		bad(&r, body, "checksum mismatch: file is corrupt");
		goto out;
	}
	r.pos = HDR_SIZE;

	memset(&info, 0, sizeof(info));
	end = section(&r, body, tag_info);
	get_str(&r, info.release, sizeof(info.release), "release");
	get_str(&r, info.build_id, sizeof(info.build_id), "build-id");
	info.layout_fingerprint = get_u64(&r, "layout fingerprint");
	get_str(&r, info.dump, sizeof(info.dump), "dump");
	get_str(&r, info.layout_source, sizeof(info.layout_source), "layout source");
	get_str(&r, info.created_by, sizeof(info.created_by), "created by");
	section_done(&r, tag_info);
	if (r.err)
		goto out;
	(void)end;

	end = section(&r, body, tag_layout);
	if (r.err)
		goto out;
	lat = r.pos;
	llen = end - lat;
	if (llen) {
		err = mmc_layout_parse_text((const char *)buf + lat, llen, path, &layout);
		if (err) {
			bad(&r, lat, "embedded layout: %s", err->message);
			mmc_error_destroy(err);
			goto out;
		}
		if (mmc_layout_fingerprint(layout) != info.layout_fingerprint) {
			bad(&r, lat, "embedded layout fingerprint %016llx, info says %016llx",
			    (unsigned long long)mmc_layout_fingerprint(layout),
			    (unsigned long long)info.layout_fingerprint);
			goto out;
		}
	}
	r.pos = end;

	section(&r, body, tag_geom);
	parse_geom(&r, &geom);
	section_done(&r, tag_geom);
	if (r.err)
		goto out;

	if (wrap(&r, HDR_SIZE, mmc_snapshot_create(layout, &geom, info.dump,
						   info.created_by, &snap)))
		goto out;
	mmc_snapshot_set_info(snap, &info);

	section(&r, body, tag_pgmaps);
	parse_pgmaps(&r, snap);
	section_done(&r, tag_pgmaps);
	if (r.err)
		goto out;

	section(&r, body, tag_ranges);
	parse_ranges(&r, snap);
	section_done(&r, tag_ranges);
	if (!r.err && r.pos != body)
		bad(&r, r.pos, "%llu bytes after the last section",
		    (unsigned long long)(body - r.pos));
out:
	free(buf);
	mmc_layout_destroy(layout);
	if (r.err) {
		mmc_snapshot_destroy(snap);
		return r.err;
	}
	*out = snap;
	return NULL;
}
