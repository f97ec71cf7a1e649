// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files, reading (doc/SNAPSHOT-FORMAT.md): little-endian,
 * versioned, tagged sections, FNV-1a 64 trailer.  The loader reads the
 * whole file, checks size, magic, version and checksum, then parses every
 * section with bounds checks: every error names the file and the byte
 * offset.  The RNGS section: snapshot_file_read_ranges.c; HUGE and HPLG:
 * snapshot_file_read_pools.c.  Writing: snapshot_file_write.c.
 */
#include "outfile.h"
#include "snapshot.h"

#include "mmc_util.h"
#include "snapshot_file_format.h"
#include "snapshot_file_cursor.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	if (r->version >= 2) {
		g->pgtable_levels = get_u32(r, "geometry");
		g->base_origin = get_u8(r, "geometry");
		g->levels_origin = get_u8(r, "geometry");
	}
	if (r->err)
		return;
	if (g->page_size == 0 || (g->page_size & (g->page_size - 1)) ||
	    g->page_size > (1u << 24))
		rd_bad(r, at, "page size %u is not a power of two up to 16 MiB", g->page_size);
	else if (g->struct_page_size % 8 || g->struct_page_size > 8 * MMC_MAX_SLOTS)
		rd_bad(r, at + 4, "struct page size %u is not a multiple of 8 up to %d",
		    g->struct_page_size, 8 * MMC_MAX_SLOTS);
	else if (g->zones_width > 64 || g->zones_pgshift > 63 ||
		 g->nodes_width > 64 || g->nodes_pgshift > 63 || g->nr_pageflags > 64)
		rd_bad(r, at + 104, "page flags layout out of range");
	else if (g->pgtable_levels != 0 && g->pgtable_levels != 4 &&
		 g->pgtable_levels != 5)
		rd_bad(r, at + 124, "%u page-table levels (4 or 5, or 0: not recorded)",
		    g->pgtable_levels);
	else if (g->base_origin > MMC_BASES_FIXED)
		rd_bad(r, at + 128, "memory layout origin %u out of range", g->base_origin);
	else if (g->levels_origin > MMC_LEVELS_PAGE_TABLES)
		rd_bad(r, at + 129, "paging depth origin %u out of range", g->levels_origin);
}

static void parse_pgmaps(struct rd *r, struct mmc_snapshot *snap)
{
	uint64_t at = r->pos;
	uint32_t n = get_u32(r, "pgmap count"), i;

	/* each pgmap takes at least 125 bytes */
	if (!r->err && n > (r->end - r->pos) / 125) {
		rd_bad(r, at, "pgmap count %u does not fit in the section", n);
		return;
	}
	for (i = 0; i < n && !r->err; i++) {
		struct mmc_spgmap p;
		uint64_t pat = r->pos;

		memset(&p, 0, sizeof(p));
		p.kaddr = get_u64(r, "pgmap");
		p.type = (int64_t)get_u64(r, "pgmap");
		rd_get_str(r, p.type_name, sizeof(p.type_name), "pgmap type name");
		p.flags = get_u64(r, "pgmap");
		p.vmemmap_shift = get_u32(r, "pgmap");
		p.nr_range = get_u32(r, "pgmap");
		rd_get_nval(r, &p.owner, "pgmap owner");
		rd_get_nval(r, &p.ops, "pgmap ops");
		{
			uint64_t hat = r->pos;
			uint8_t h = get_u8(r, "pgmap");

			if (!r->err && h > 1)
				rd_bad(r, hat, "pgmap %u: has_altmap %u is not 0 or 1", i, h);
			p.has_altmap = h;
		}
		p.altmap_base_pfn = get_u64(r, "pgmap");
		p.altmap_end_pfn = get_u64(r, "pgmap");
		p.altmap_reserve = get_u64(r, "pgmap");
		p.altmap_free = get_u64(r, "pgmap");
		p.altmap_align = get_u64(r, "pgmap");
		p.altmap_alloc = get_u64(r, "pgmap");
		if (!r->err && p.vmemmap_shift > 63)
			rd_bad(r, pat, "pgmap %u: vmemmap_shift %u out of range", i,
			    p.vmemmap_shift);
		if (!r->err)
			rd_wrap(r, pat, mmc_snapshot_add_pgmap(snap, &p));
	}
}

/* Version 4: the device-dax ranges, after the notes. */
static void parse_dax(struct rd *r, struct mmc_snapshot *snap)
{
	char why[MMC_SNAPSHOT_TEXT_MAX];
	struct mmc_dax_span *spans = NULL;
	uint64_t at = r->pos;
	uint8_t state;
	uint32_t n, i;

	if (r->version < 4) {
		snprintf(why, sizeof(why),
			 "snapshot file version %u does not carry device-dax ranges",
			 r->version);
		rd_wrap(r, at, mmc_snapshot_set_dax(snap, MMC_DAX_NOT_READ, why, NULL, 0));
		return;
	}
	state = get_u8(r, "device-dax state");
	rd_get_str(r, why, sizeof(why), "device-dax reason");
	n = get_u32(r, "device-dax range count");
	if (r->err)
		return;
	if (n > MMC_SNAPSHOT_MAX_DAX) {
		rd_bad(r, at, "%u device-dax ranges, at most %d", n, MMC_SNAPSHOT_MAX_DAX);
		return;
	}
	spans = calloc(n ? n : 1, sizeof(*spans));
	if (!spans) {
		rd_wrap(r, at, mmc_error_nomem());
		return;
	}
	for (i = 0; i < n && !r->err; i++) {
		spans[i].pgmap_index = get_u32(r, "device-dax pgmap index");
		spans[i].start_pfn = get_u64(r, "device-dax start");
		spans[i].end_pfn = get_u64(r, "device-dax end");
	}
	if (!r->err)
		rd_wrap(r, at, mmc_snapshot_set_dax(snap, state, why, spans, n));
	free(spans);
}

static void parse_discovery(struct rd *r, struct mmc_snapshot *snap)
{
	char text[MMC_SNAPSHOT_TEXT_MAX];
	uint64_t at = r->pos, addr, nat;
	uint8_t complete, has_addr;
	uint32_t n, i;

	complete = get_u8(r, "discovery");
	has_addr = get_u8(r, "discovery");
	addr = get_u64(r, "discovery");
	rd_get_str(r, text, sizeof(text), "discovery problem");
	if (r->err)
		return;
	if (complete > 1 || has_addr > 1) {
		rd_bad(r, at, "discovery flags %u, %u are not 0 or 1", complete, has_addr);
		return;
	}
	if (complete ? (has_addr || addr || text[0]) : !text[0]) {
		rd_bad(r, at, "discovery %s but a problem is %s", complete ? "complete" : "incomplete",
		    complete ? "recorded" : "not named");
		return;
	}
	if (!complete)
		mmc_snapshot_set_discovery_problem(snap, text, has_addr, addr);
	nat = r->pos;
	n = get_u32(r, "note count");
	if (!r->err && n > MMC_SNAPSHOT_MAX_NOTES) {
		rd_bad(r, nat, "%u notes, at most %d", n, MMC_SNAPSHOT_MAX_NOTES);
		return;
	}
	for (i = 0; i < n && !r->err; i++) {
		rd_get_str(r, text, sizeof(text), "note");
		if (!r->err)
			rd_wrap(r, r->pos, mmc_snapshot_add_note(snap, text));
	}
	if (!r->err)
		parse_dax(r, snap);
}

bool mmc_is_snapshot_file(const char *path)
{
	char magic[8] = { 0 };
	struct mmc_error *err;
	bool yes;
	int fd;

	err = mmc_infile_open(path, &fd);
	if (err) {
		mmc_error_destroy(err);
		return false;
	}
	yes = pread(fd, magic, 7, 0) == 7 && !memcmp(magic, MMC_SNAPSHOT_MAGIC, 7);
	close(fd);
	return yes;
}

static struct mmc_error *parse(struct rd *r, struct mmc_snapshot **out);

/* The file through a window: memory O(window + snapshot), not O(file). */
struct mmc_error *mmc_snapshot_load(const char *path, struct mmc_snapshot **out)
{
	struct rd r = { .path = path, .fd = -1 };
	struct mmc_error *err;
	struct stat st;

	*out = NULL;
	err = mmc_infile_open(path, &r.fd);
	if (err)
		return err;
	if (fstat(r.fd, &st) != 0) {
		err = mmc_error_os(errno, path, "fstat");
	} else if (!S_ISREG(st.st_mode)) {
		err = mmc_error_create(MMC_ERR_INPUT, path, "not a regular file");
	} else if (!(r.win = malloc(WIN_SIZE))) {
		err = mmc_error_nomem();
	} else {
		r.size = (uint64_t)st.st_size;
		err = parse(&r, out);
	}
	free(r.win);
	close(r.fd);
	return err;
}

/* FNV-1a over bytes [0, n) of the file. */
static uint64_t checksum(struct rd *r, uint64_t n)
{
	uint64_t h = MMC_FNV1A_INIT, pos = 0;

	if (r->p)
		return mmc_fnv1a(h, r->p, n);
	while (pos < n && !r->err) {
		uint64_t k = n - pos < WIN_SIZE ? n - pos : WIN_SIZE;
		const uint8_t *b = rd_bytes(r, pos, k);

		if (b)
			h = mmc_fnv1a(h, b, k);
		pos += k;
	}
	return h;
}

struct mmc_error *mmc_snapshot_load_buffer(const uint8_t *buf, size_t size,
					   const char *path,
					   struct mmc_snapshot **out)
{
	struct rd r = { .path = path, .fd = -1, .p = buf, .size = size };

	*out = NULL;
	return parse(&r, out);
}

/* The header (magic, version, flags, size) and the trailer's checksum;
 * leaves r at the first section. */
static void parse_head(struct rd *r, uint64_t body)
{
	const uint8_t *hdr = rd_bytes(r, 0, HDR_SIZE);
	uint64_t declared, stored;
	uint32_t version;

	if (!hdr)
		return;
	if (memcmp(hdr, MMC_SNAPSHOT_MAGIC, 8) != 0) {
		rd_bad(r, 0, "bad magic: not a memmapcheck snapshot");
		return;
	}
	r->pos = 8;
	version = get_u32(r, "version");
	if (version < 1 || version > MMC_SNAPSHOT_VERSION) {
		rd_bad(r, 8, "unsupported version %u (this build reads 1 to %d)", version,
		    MMC_SNAPSHOT_VERSION);
		return;
	}
	r->version = version;
	if (get_u32(r, "flags") != 0) {
		rd_bad(r, 12, "unknown flags");
		return;
	}
	declared = get_u64(r, "file size");
	if (declared != r->size) {
		rd_bad(r, 16, "header says %llu bytes, the file has %llu (truncated or appended to)",
		    (unsigned long long)declared, (unsigned long long)r->size);
		return;
	}
	r->pos = body;
	stored = get_u64(r, "checksum");
	if (stored != checksum(r, body) && !r->err) {
		rd_bad(r, body, "checksum mismatch: file is corrupt");
		return;
	}
	r->pos = HDR_SIZE;
}

static void parse_info(struct rd *r, uint64_t body, struct mmc_snapshot_info *info)
{
	memset(info, 0, sizeof(*info));
	rd_section(r, body, SNAP_TAG_INFO);
	rd_get_str(r, info->release, sizeof(info->release), "release");
	rd_get_str(r, info->build_id, sizeof(info->build_id), "build-id");
	info->layout_fingerprint = get_u64(r, "layout fingerprint");
	rd_get_str(r, info->dump, sizeof(info->dump), "dump");
	rd_get_str(r, info->layout_source, sizeof(info->layout_source), "layout source");
	rd_get_str(r, info->created_by, sizeof(info->created_by), "created by");
	rd_section_done(r, SNAP_TAG_INFO);
}

/* The layout text at [at, at + len): in place, or copied out through the
 * window.  A read error is r->err (and NULL returned). */
static struct mmc_error *layout_text(struct rd *r, uint64_t at, uint64_t len,
				     struct mmc_layout **layout)
{
	struct mmc_error *err = NULL;
	char *text;

	if (r->p)
		return mmc_layout_parse_text((const char *)r->p + at, len, r->path, layout);
	if (!(text = malloc(len)))
		return mmc_error_nomem();
	for (uint64_t k = 0; k < len && !r->err; k += WIN_SIZE) {
		uint64_t n = len - k < WIN_SIZE ? len - k : WIN_SIZE;
		const uint8_t *b = rd_bytes(r, at + k, n);

		if (b)
			memcpy(text + k, b, n);
	}
	if (!r->err)
		err = mmc_layout_parse_text(text, len, r->path, layout);
	free(text);
	return err;
}

/* The LAYT section: the embedded layout (none when empty), which must be
 * the one INFO's fingerprint names. */
static struct mmc_layout *parse_layout(struct rd *r, uint64_t body, uint64_t fingerprint)
{
	uint64_t end = rd_section(r, body, SNAP_TAG_LAYOUT), at = r->pos;
	struct mmc_layout *layout = NULL;
	struct mmc_error *err;

	if (r->err || end == at)
		return NULL;
	err = layout_text(r, at, end - at, &layout);
	if (err) {
		rd_bad(r, at, "embedded layout: %s", err->message);
		mmc_error_destroy(err);
	} else if (!r->err && mmc_layout_fingerprint(layout) != fingerprint) {
		rd_bad(r, at, "embedded layout fingerprint %016llx, info says %016llx",
		    (unsigned long long)mmc_layout_fingerprint(layout),
		    (unsigned long long)fingerprint);
	}
	if (r->err) {
		mmc_layout_destroy(layout);
		return NULL;
	}
	r->pos = end;
	return layout;
}

/* The sections after GEOM, into the snapshot they made. */
static void parse_sections(struct rd *r, uint64_t body, struct mmc_snapshot *snap)
{
	rd_section(r, body, SNAP_TAG_PGMAPS);
	parse_pgmaps(r, snap);
	rd_section_done(r, SNAP_TAG_PGMAPS);
	rd_parse_pools(r, body, snap);
	if (r->err)
		return;

	rd_section(r, body, SNAP_TAG_RANGES);
	rd_parse_ranges(r, snap);
	rd_section_done(r, SNAP_TAG_RANGES);
	if (!r->err && r->version >= 2) {
		rd_section(r, body, SNAP_TAG_DISCOVERY);
		parse_discovery(r, snap);
		rd_section_done(r, SNAP_TAG_DISCOVERY);
	} else if (!r->err) {
		parse_dax(r, snap);
	}
	if (!r->err && r->pos != body)
		rd_bad(r, r->pos, "%llu bytes after the last section",
		    (unsigned long long)(body - r->pos));
}

static struct mmc_error *parse(struct rd *r, struct mmc_snapshot **out)
{
	struct mmc_snapshot *snap = NULL;
	struct mmc_layout *layout = NULL;
	struct mmc_snapshot_info info;
	struct mmc_geom geom;
	uint64_t body;

	*out = NULL;
	if (r->size < HDR_SIZE + TRAILER)
		return mmc_error_create(MMC_ERR_INPUT, r->path,
					"byte offset %llu: truncated: %llu bytes, a snapshot has at least %d",
					(unsigned long long)r->size, (unsigned long long)r->size,
					HDR_SIZE + TRAILER);
	r->end = r->size;
	body = r->size - TRAILER;
	parse_head(r, body);
	if (!r->err)
		parse_info(r, body, &info);
	if (!r->err)
		layout = parse_layout(r, body, info.layout_fingerprint);
	if (!r->err) {
		rd_section(r, body, SNAP_TAG_GEOM);
		parse_geom(r, &geom);
		rd_section_done(r, SNAP_TAG_GEOM);
	}
	if (!r->err && !rd_wrap(r, HDR_SIZE, mmc_snapshot_create(layout, &geom, info.dump,
								 info.created_by, &snap))) {
		mmc_snapshot_set_info(snap, &info);
		parse_sections(r, body, snap);
	}
	mmc_layout_destroy(layout);
	if (r->err) {
		mmc_snapshot_destroy(snap);
		return r->err;
	}
	*out = snap;
	return NULL;
}
