// SPDX-License-Identifier: GPL-2.0-or-later
/* Streaming snapshot files (mmc_snapshot_stream_open/finish): the file
 * written while the snapshot is built must be byte for byte the file
 * mmc_snapshot_save() writes from the whole snapshot (a second
 * implementation of the same format), load back to the same content, and
 * the builder's memory must stay bounded while runs that do not repeat
 * pile up.  Plus the misuses: a range open at finish, streaming after a
 * range began, saving a streamed snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "slurp.h"
#include "snapshot.h"
#include "tap.h"

#define NPAGES 40000ULL		/* per range */

/* Records: stretches of pages that differ from page to page (an OBJ-like
 * raw value from a hash: no run, no pattern), and stretches of compound
 * pages of order 4 that repeat (patterns). */
static void gen(uint64_t pfn, struct mmc_nrec *r)
{
	uint64_t k = pfn % 16, block = (pfn / 4096) % 2;

	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	r->slot[0].v = r->slot[0].raw = 0x400 | (k == 0 ? 0x40 : 0);
	if (block) {
		uint64_t h = pfn * 0x9e3779b97f4a7c15ULL;

		r->slot[3].v = r->slot[3].raw = h ^ (h >> 29);
		return;
	}
	if (k) {
		r->slot[1].cls = MMC_V_PAGE;
		r->slot[1].off = 1;
		r->slot[1].v = -(int64_t)k;
		r->slot[1].raw = 0xffffea0000000000ULL + (pfn - k) * 64 + 1;
	}
}

static struct mmc_error *build(struct mmc_snapshot **out, FILE *stream, const char *name,
			       size_t *peak_mem)
{
	struct mmc_geom g = { .page_size = 4096, .struct_page_size = 64 };
	struct mmc_spgmap pg = { .type_name = "MEMORY_DEVICE_GENERIC", .vmemmap_shift = 4 };
	struct mmc_snapshot *s;
	struct mmc_error *err;

	*peak_mem = 0;
	err = mmc_snapshot_create(NULL, &g, "synthetic", "test", &s);
	if (err)
		return err;
	*out = s;
	if (stream && (err = mmc_snapshot_stream_open(s, stream, name)))
		return err;
	if ((err = mmc_snapshot_add_pgmap(s, &pg)))
		return err;
	for (unsigned int ri = 0; ri < 2; ri++) {
		struct mmc_srange r = { .start_pfn = 0x100000 * (ri + 1) };

		r.end_pfn = r.start_pfn + NPAGES;
		r.range_index = ri;
		if ((err = mmc_snapshot_begin_range(s, &r)))
			return err;
		for (uint64_t pfn = r.start_pfn; pfn < r.end_pfn; pfn++) {
			struct mmc_nrec rec;
			size_t m;

			gen(pfn, &rec);
			if ((err = mmc_snapshot_append(s, &rec)))
				return err;
			if (pfn % 1024 == 0 && (m = mmc_snapshot_mem_bytes(s)) > *peak_mem)
				*peak_mem = m;
		}
		for (uint64_t i = 0; i < NPAGES * 64 / 4096; i++) {
			struct mmc_vframe vf = { .kind = MMC_VF_RAM };

			vf.paddr = 0x100000000ULL + ((i * 7919) % 65536) * 0x1000;
			if ((err = mmc_snapshot_append_vframe(s, &vf)))
				return err;
		}
		if ((err = mmc_snapshot_end_range(s)))
			return err;
	}
	mmc_snapshot_set_discovery_problem(s, "walking pgmap_array: test", true, 0x1234);
	if ((err = mmc_snapshot_add_note(s, "synthetic.kdump: a note")))
		return err;
	return stream ? mmc_snapshot_stream_finish(s) : NULL;
}

/*
 * The same snapshot built whole and saved, and streamed to its file: the
 * same bytes, the same content, far less memory.
 */
static void test_streamed_equals_saved(const char *dir)
{
	char pa[256], pb[256];
	struct mmc_snapshot *a = NULL, *b = NULL, *back = NULL;
	struct mmc_outfile *of = NULL;
	struct mmc_error *err;
	size_t na, nb, mem_a, mem_b;
	char *ba, *bb;

	snprintf(pa, sizeof(pa), "%s/whole.snap", dir);
	snprintf(pb, sizeof(pb), "%s/streamed.snap", dir);
	err = build(&a, NULL, NULL, &mem_a);
	tap_ok(!err, "whole snapshot built%s%s", err ? ": " : "", err ? err->message : "");
	err = err ? err : mmc_snapshot_save(a, pa);
	tap_ok(!err, "whole snapshot saved");
	err = mmc_outfile_open(pb, NULL, 0, &of);
	if (!err)
		err = build(&b, mmc_outfile_stream(of), mmc_outfile_name(of), &mem_b);
	if (of)
		err = err ? (mmc_outfile_abort(of), err) : mmc_outfile_commit(of);
	tap_ok(!err, "streamed snapshot built and committed%s%s", err ? ": " : "",
	       err ? err->message : "");
	ba = slurp(pa, &na);
	bb = slurp(pb, &nb);
	tap_ok(ba && bb && na == nb && !memcmp(ba, bb, na),
	       "the streamed file is byte for byte the saved one (%zu and %zu bytes)", na, nb);
	err = mmc_snapshot_load(pb, &back);
	tap_ok(!err && back && a && mmc_snapshot_equal_content(a, back),
	       "the streamed file loads to the same snapshot");
	tap_ok(mem_a > 4 * mem_b && mem_b < (2u << 20),
	       "memory while streaming stays bounded: %zu bytes (whole: %zu)", mem_b, mem_a);
	tap_ok(b && mmc_snapshot_npages(b) == 2 * NPAGES && mmc_snapshot_streamed(b) &&
	       mmc_snapshot_range_nruns(b, 0) == 0,
	       "the streamed snapshot keeps its counts, not its runs");
	err = b ? mmc_snapshot_save(b, pa) : NULL;
	tap_ok(err && err->code == MMC_ERR_INTERNAL, "a streamed snapshot is not saved again");
	mmc_error_destroy(err);
	free(ba);
	free(bb);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	mmc_snapshot_destroy(back);
	unlink(pa);
	unlink(pb);
}

/* Streaming cannot start once a range has begun. */
static void test_stream_after_range(void)
{
	struct mmc_geom g = { .page_size = 4096, .struct_page_size = 64 };
	struct mmc_spgmap pg = { .type_name = "x" };
	struct mmc_srange r = { .start_pfn = 0, .end_pfn = 16 };
	struct mmc_snapshot *c = NULL;
	struct mmc_error *err;
	FILE *f = tmpfile();

	err = mmc_snapshot_create(NULL, &g, "x", "x", &c);
	if (!err)
		err = mmc_snapshot_add_pgmap(c, &pg);
	if (!err)
		err = mmc_snapshot_begin_range(c, &r);
	tap_ok(!err && f, "a snapshot with a range begun");
	err = c && f ? mmc_snapshot_stream_open(c, f, "x") : NULL;
	tap_ok(err != NULL, "streaming cannot start after a range began");
	mmc_error_destroy(err);
	mmc_snapshot_destroy(c);
	if (f)
		fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/mmc-test-stream-XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_streamed_equals_saved(dir);
	test_stream_after_range();
	rmdir(dir);
	return tap_done();
}
