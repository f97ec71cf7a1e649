// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What decompressing the pages of a kdump-compressed dump costs, and what a
 * faster decompressor would save.  libkdumpfile (and so memmapcheck, and
 * crash's `kmem -p` through it) inflates every zlib page with zlib's
 * uncompress(), which also checks the Adler-32 trailer; a profile of
 * `memmapcheck snapshot` on a 100 GiB map=dev image puts more than half of
 * its samples in libz, most in adler32_z.
 *
 * The dump's own kdump-compressed layout is parsed here (independently of
 * engine/mem_extent.c, whose header comment describes it): the
 * disk_dump_header, the kdump_sub_header, the dumped-page bitmap, the
 * page_desc table.  The compressed bytes of every page whose descriptor says
 * DUMP_DH_COMPRESSED_ZLIB, in the pfn range asked for, are read into memory
 * once; then decompressing all of them is timed (process CPU time, best of
 * 3, no file reads inside the timing) with:
 *   uncompress   zlib uncompress(): inflateInit + inflate + Adler-32 check +
 *                inflateEnd per page, what libkdumpfile does;
 *   raw+adler32  one raw-deflate z_stream (inflateInit2 -15, inflateReset
 *                per page) past the 2-byte zlib header, then zlib's
 *                adler32() of the output compared with the trailer;
 *   raw          the same without any checksum (a bound only: a dump reader
 *                should not drop the check);
 *   libdeflate   libdeflate_zlib_decompress(), which checks Adler-32 too.
 * Before timing, every page is decompressed by all four and the outputs are
 * compared byte for byte; any difference or error stops the run.
 *
 * build: cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror \
 *            -o zlib_pages scripts/bench/zlib_pages.c -lz -ldeflate
 *        (Debian: zlib1g-dev, libdeflate-dev)
 * usage: zlib_pages DUMP [START_PFN END_PFN]   (END exclusive; default all)
 * prints: pages, compressed bytes, then per variant the best CPU seconds,
 *         ns per dump page and ns per struct page (64-byte struct pages)
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* Sizes and offsets of makedumpfile's diskdump_mod.h (x86_64). */
#define DD_SIG			"KDUMP   "
#define DD_HEADER_SIZE		464	/* struct disk_dump_header */
#define DD_OFF_VERSION		8
#define DD_OFF_BLOCK_SIZE	428
#define DD_OFF_SUB_HDR_SIZE	432	/* in blocks */
#define DD_OFF_BITMAP_BLOCKS	436
#define DD_OFF_MAX_MAPNR	440	/* 32-bit; max_mapnr_64 in the sub header */
#define DD_SUB_HEADER_SIZE	104	/* struct kdump_sub_header, version 6 */
#define DD_SUB_OFF_SPLIT	12
#define DD_SUB_OFF_MAX_MAPNR_64	96	/* header_version 6 and later */
#define DD_DESC_SIZE		24	/* struct page_desc */
#define DD_COMPRESSED_ZLIB	0x1u
#define STRUCT_PAGE_SIZE	64	/* x86_64 struct page, the unit reported */
#define REPEATS			3
#define DESC_CHUNK		4096	/* descriptors read at once */

struct zpage {
	uint64_t pfn;
	uint64_t off;		/* of the compressed bytes in the file */
	uint64_t at;		/* of the compressed bytes in pages.bytes */
	uint32_t size;
};

struct pages {
	struct zpage *p;
	size_t n, cap;
	uint8_t *bytes;
	uint64_t nbytes;
	uint32_t out_size;	/* block_size: one decompressed page */
};

static void die(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "zlib_pages: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void read_at(int fd, const char *path, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0)
			die(path, "read error at offset %" PRIu64 ": %s", off + done,
			    strerror(errno));
		if (r == 0)
			die(path, "truncated: %zu bytes needed at offset %" PRIu64,
			    len - done, off + done);
		done += (size_t)r;
	}
}

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* Collects the zlib pages of pfns [lo, hi) and reads their bytes. */
static void load(const char *path, uint64_t lo, uint64_t hi, struct pages *pg,
		 uint64_t *skipped)
{
	static uint8_t d[DESC_CHUNK * DD_DESC_SIZE];
	uint8_t h[DD_HEADER_SIZE], sub[DD_SUB_HEADER_SIZE];
	uint64_t bs, sub_blocks, bm_blocks, max_pfn, bm_bits, bm_off, bm_size;
	uint64_t descoff, pfn, i = 0, chunk0 = UINT64_MAX, doff, ndesc = 0;
	int32_t version;
	uint8_t *bm;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path, "cannot open: %s", strerror(errno));
	read_at(fd, path, h, sizeof(h), 0);
	if (memcmp(h, DD_SIG, 8))
		die(path, "not a kdump-compressed dump (no \"KDUMP   \" at offset 0)");
	version = (int32_t)le32(h + DD_OFF_VERSION);
	bs = le32(h + DD_OFF_BLOCK_SIZE);
	sub_blocks = le32(h + DD_OFF_SUB_HDR_SIZE);
	bm_blocks = le32(h + DD_OFF_BITMAP_BLOCKS);
	max_pfn = le32(h + DD_OFF_MAX_MAPNR);
	if (bs < 512 || bs > (1u << 16) || (bs & (bs - 1)) || version < 0 ||
	    sub_blocks > (1u << 20) || !bm_blocks)
		die(path, "disk_dump_header: header_version %d, block_size %" PRIu64
		    ", sub_hdr_size %" PRIu64 ", bitmap_blocks %" PRIu64 " make no sense",
		    version, bs, sub_blocks, bm_blocks);
	memset(sub, 0, sizeof(sub));
	if (version >= 1)
		read_at(fd, path, sub, sizeof(sub), bs);
	if (version >= 2 && le32(sub + DD_SUB_OFF_SPLIT))
		die(path, "one part of a split dump; reassemble it first");
	if (version >= 6)
		max_pfn = le64(sub + DD_SUB_OFF_MAX_MAPNR_64);
	/* two bitmaps when both fit (which pfns exist, which were dumped): the second */
	bm_bits = bm_blocks * bs * 8;
	bm_off = (1 + sub_blocks) * bs;
	bm_size = bm_blocks * bs;
	if (max_pfn <= bm_bits / 2) {
		bm_size = bm_blocks / 2 * bs;
		bm_off += bm_size;
	}
	if (max_pfn > bm_size * 8)
		max_pfn = bm_size * 8;
	descoff = (1 + sub_blocks + bm_blocks) * bs;
	bm = malloc(bm_size);
	if (!bm)
		die(path, "no memory for a %" PRIu64 "-byte bitmap", bm_size);
	read_at(fd, path, bm, bm_size, bm_off);
	pg->out_size = (uint32_t)bs;
	if (hi > max_pfn)
		hi = max_pfn;
	/* the descriptors: one per dumped pfn below max_pfn, in pfn order */
	for (pfn = 0; pfn < max_pfn; pfn++)
		ndesc += (bm[pfn / 8] >> (pfn % 8)) & 1;
	for (pfn = 0; pfn < hi; pfn++) {
		uint32_t size, flags;

		if (!((bm[pfn / 8] >> (pfn % 8)) & 1))
			continue;
		if (pfn < lo) {
			i++;
			continue;
		}
		if (chunk0 == UINT64_MAX || i >= chunk0 + DESC_CHUNK) {
			chunk0 = i;
			read_at(fd, path, d, (ndesc - i < DESC_CHUNK ? ndesc - i : DESC_CHUNK) *
				DD_DESC_SIZE, descoff + i * DD_DESC_SIZE);
		}
		size = le32(d + (i - chunk0) * DD_DESC_SIZE + 8);
		flags = le32(d + (i - chunk0) * DD_DESC_SIZE + 12);
		doff = le64(d + (i - chunk0) * DD_DESC_SIZE);
		i++;
		if (!(flags & DD_COMPRESSED_ZLIB)) {
			(*skipped)++;
			continue;
		}
		if (size < 6 || size > 2 * bs)
			die(path, "pfn 0x%" PRIx64 ": zlib page of %" PRIu32 " bytes", pfn, size);
		if (pg->n == pg->cap) {
			pg->cap = pg->cap ? 2 * pg->cap : 4096;
			pg->p = realloc(pg->p, pg->cap * sizeof(*pg->p));
			if (!pg->p)
				die(path, "no memory for %zu descriptors", pg->cap);
		}
		pg->p[pg->n].pfn = pfn;
		pg->p[pg->n].off = doff;
		pg->p[pg->n].at = pg->nbytes;
		pg->p[pg->n++].size = size;
		pg->nbytes += size;
	}
	free(bm);
	/* second pass: the compressed bytes, once */
	pg->bytes = malloc(pg->nbytes ? pg->nbytes : 1);
	if (!pg->bytes)
		die(path, "no memory for %" PRIu64 " compressed bytes", pg->nbytes);
	for (i = 0; i < pg->n; i++)
		read_at(fd, path, pg->bytes + pg->p[i].at, pg->p[i].size, pg->p[i].off);
	close(fd);
}

enum variant { V_UNCOMPRESS, V_RAW_ADLER, V_RAW, V_LIBDEFLATE, NVARIANT };
static const char *const vname[NVARIANT] = {
	"uncompress", "raw+adler32", "raw (no check)", "libdeflate",
};

struct dec {
	z_stream zs;
	struct libdeflate_decompressor *ld;
	uint32_t out_size;
};

/* Inflates one zlib page; 0 when out holds exactly out_size good bytes. */
static int decompress(struct dec *dc, enum variant v, const uint8_t *in,
		      uint32_t len, uint8_t *out)
{
	uLongf outlen = dc->out_size;
	size_t actual;
	uint32_t want;

	switch (v) {
	case V_UNCOMPRESS:
		return uncompress(out, &outlen, in, len) != Z_OK || outlen != dc->out_size;
	case V_RAW_ADLER:
	case V_RAW:
		/* zlib header: CMF (method 8), FLG, no preset dictionary */
		if ((in[0] & 0x0f) != 8 || ((in[0] << 8) | in[1]) % 31 || (in[1] & 0x20))
			return 1;
		if (inflateReset(&dc->zs) != Z_OK)
			return 1;
		dc->zs.next_in = (Bytef *)(in + 2);
		dc->zs.avail_in = len - 2;
		dc->zs.next_out = out;
		dc->zs.avail_out = dc->out_size;
		if (inflate(&dc->zs, Z_FINISH) != Z_STREAM_END || dc->zs.avail_out ||
		    dc->zs.avail_in != 4)
			return 1;
		if (v == V_RAW)
			return 0;
		want = ((uint32_t)dc->zs.next_in[0] << 24) | ((uint32_t)dc->zs.next_in[1] << 16) |
		       ((uint32_t)dc->zs.next_in[2] << 8) | dc->zs.next_in[3];
		return adler32(adler32(0, Z_NULL, 0), out, dc->out_size) != want;
	case V_LIBDEFLATE:
		return libdeflate_zlib_decompress(dc->ld, in, len, out, dc->out_size,
						  &actual) != LIBDEFLATE_SUCCESS ||
		       actual != dc->out_size;
	default:
		return 1;
	}
}

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct pages pg = { 0 };
	struct dec dc;
	uint64_t lo = 0, hi = UINT64_MAX, skipped = 0, sink = 0;
	double best[NVARIANT];
	uint8_t *out[NVARIANT];
	size_t i;
	int v, r;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: %s DUMP [START_PFN END_PFN]\n", argv[0]);
		return 2;
	}
	if (argc == 4) {
		lo = strtoull(argv[2], NULL, 0);
		hi = strtoull(argv[3], NULL, 0);
	}
	load(argv[1], lo, hi, &pg, &skipped);
	if (!pg.n)
		die(argv[1], "no zlib-compressed pages in pfns 0x%" PRIx64 "-0x%" PRIx64, lo, hi);
	dc.out_size = pg.out_size;
	memset(&dc.zs, 0, sizeof(dc.zs));
	dc.ld = libdeflate_alloc_decompressor();
	if (inflateInit2(&dc.zs, -15) != Z_OK || !dc.ld)
		die(argv[1], "cannot set up the decompressors");
	for (v = 0; v < NVARIANT; v++)
		if (!(out[v] = malloc(pg.out_size)))
			die(argv[1], "no memory");

	/* every variant must give the same bytes for every page */
	for (i = 0; i < pg.n; i++)
		for (v = 0; v < NVARIANT; v++) {
			if (decompress(&dc, v, pg.bytes + pg.p[i].at, pg.p[i].size, out[v]))
				die(argv[1], "pfn 0x%" PRIx64 ": %s failed (compressed page at file offset %" PRIu64 ")",
				    pg.p[i].pfn, vname[v], pg.p[i].off);
			if (v && memcmp(out[v], out[0], pg.out_size))
				die(argv[1], "pfn 0x%" PRIx64 ": %s output differs from uncompress()'s",
				    pg.p[i].pfn, vname[v]);
		}

	for (v = 0; v < NVARIANT; v++)
		best[v] = 1e300;
	for (r = 0; r < REPEATS; r++)
		for (v = 0; v < NVARIANT; v++) {
			double t0 = cpu_now(), t;

			for (i = 0; i < pg.n; i++) {
				if (decompress(&dc, v, pg.bytes + pg.p[i].at, pg.p[i].size, out[v]))
					die(argv[1], "pfn 0x%" PRIx64 ": %s failed when timed",
					    pg.p[i].pfn, vname[v]);
				sink += out[v][i % pg.out_size];
			}
			t = cpu_now() - t0;
			if (t < best[v])
				best[v] = t;
		}

	printf("dump %s pfns 0x%" PRIx64 "-0x%" PRIx64 ": %zu zlib pages of %u bytes, "
	       "%" PRIu64 " compressed bytes (%.1f per page), %" PRIu64 " other pages skipped\n",
	       argv[1], lo, hi, pg.n, pg.out_size, pg.nbytes, (double)pg.nbytes / pg.n,
	       skipped);
	printf("all four variants gave identical output for every page (check %" PRIu64 ")\n",
	       sink % 10);
	printf("%-16s %10s %12s %16s\n", "variant", "cpu_s", "ns/page", "ns/struct_page");
	for (v = 0; v < NVARIANT; v++)
		printf("%-16s %10.3f %12.1f %16.2f\n", vname[v], best[v], best[v] * 1e9 / pg.n,
		       best[v] * 1e9 / pg.n / (pg.out_size / STRUCT_PAGE_SIZE));
	inflateEnd(&dc.zs);
	libdeflate_free_decompressor(dc.ld);
	for (v = 0; v < NVARIANT; v++)
		free(out[v]);
	free(pg.p);
	free(pg.bytes);
	return 0;
}
