// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Memory sources: the libkdumpfile and kcore backends over synthetic ELF
 * cores (tests/unit/mkcore.h), and mmc_mem_read's loop over a fake backend.
 *
 * MMC_MEM_BENCH=<MiB> additionally times 64 KiB physical reads over a
 * pattern core of that size with both backends (not a test; prints # lines).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mem.h"
#include "mkcore.h"
#include "tap.h"

#define SEG_A_PHYS	0x100000ULL
#define SEG_B_PHYS	0x110000ULL	/* right after A */
#define SEG_C_PHYS	0x200000ULL	/* after a gap */
#define SEG_SIZE	0x10000ULL
#define DIRECT_MAP	0xffff888000000000ULL
#define TEXT_VADDR	0xffffffff81000000ULL
#define TEXT_PHYS	0x300000ULL
#define VMALLOC_VADDR	0xffffc90000000000ULL
#define VMCOREINFO_TEXT	"OSRELEASE=6.12.0-test\nPAGESIZE=4096\nSYMBOL(init_top_pgt)=ffffffff82a0a000\nNUMBER(pgtable_l5_enabled)=0\nNUMBER(phys_base)=0\nKERNELOFFSET=0\n"

/*
 * libaddrxlat 0.5.1 leaks a small buffer whenever a page-table walk hits a
 * page the dump lacks, which these synthetic cores provoke on purpose
 * (they have no page tables).  Only its allocations are suppressed; the
 * slow unwinder is needed to see libaddrxlat's frames under libkdumpfile,
 * which is built without frame pointers.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libaddrxlat.so\n";
}

typedef struct mmc_error *(*open_fn)(const char *, struct mmc_mem **);

struct backend {
	const char *name;
	open_fn open;
	bool kdump;
};

static const struct backend backends[] = {
	{ "kdump", mmc_mem_open_kdump, true },
	{ "kcore", mmc_mem_open_kcore, false },
};

static unsigned char seg_c_data[SEG_SIZE];
static unsigned char vmalloc_data[0x2000];

static bool check_pattern(const unsigned char *buf, uint64_t paddr, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v;

		memcpy(&v, buf + i, 8);
		if (v != mkcore_pattern(paddr + i))
			return false;
	}
	return true;
}

static int write_good_core(const char *path)
{
	struct mkcore_seg segs[] = {
		{ DIRECT_MAP + SEG_A_PHYS, SEG_A_PHYS, NULL, SEG_SIZE, 0 },
		{ DIRECT_MAP + SEG_B_PHYS, SEG_B_PHYS, NULL, SEG_SIZE, 0 },
		{ DIRECT_MAP + SEG_C_PHYS, SEG_C_PHYS, seg_c_data, SEG_SIZE, 0 },
		{ TEXT_VADDR, TEXT_PHYS, NULL, SEG_SIZE, 0 },
		/* vmalloc-like: no physical address, as /proc/kcore writes it */
		{ VMALLOC_VADDR, UINT64_MAX, vmalloc_data, sizeof(vmalloc_data), 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(seg_c_data); i++)
		seg_c_data[i] = (unsigned char)(i * 7 + 3);
	for (i = 0; i < sizeof(vmalloc_data); i++)
		vmalloc_data[i] = (unsigned char)(0xc0 ^ i);
	return mkcore_write(path, segs, sizeof(segs) / sizeof(segs[0]),
			    VMCOREINFO_TEXT);
}

static bool err_is(struct mmc_error *err, enum mmc_error_code code,
		   uint64_t addr)
{
	return err && err->code == code && err->has_address &&
	       err->address == addr;
}

static void diag_err(const struct mmc_error *err)
{
	char *s;

	if (!err)
		return;
	s = mmc_error_string(err);
	tap_diag("error: %s", s ? s : "(nomem)");
	free(s);
}

static void test_good(const struct backend *be, const char *path)
{
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	unsigned char *buf = malloc(0x30000);
	size_t done = 0;
	uint64_t v = 0;

	err = be->open(path, &mem);
	if (!tap_ok(err == NULL, "%s: open synthetic core", be->name)) {
		diag_err(err);
		mmc_error_destroy(err);
		free(buf);
		return;
	}
	TAP_EQ_U64(mem->page_size, 4096, "page size");
	tap_ok(mem->vmcoreinfo && !strcmp(mem->vmcoreinfo, VMCOREINFO_TEXT),
	       "%s: VMCOREINFO text read exactly", be->name);

	/* Inside one segment, unaligned start. */
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_A_PHYS + 0x1238, buf, 0x2000);
	diag_err(err);
	tap_ok(!err && check_pattern(buf, SEG_A_PHYS + 0x1238, 0x2000),
	       "%s: read inside a segment", be->name);
	mmc_error_destroy(err);

	/* Across the boundary of two adjacent segments. */
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_A_PHYS + 0x8000, buf,
			   0x10000);
	diag_err(err);
	tap_ok(!err && check_pattern(buf, SEG_A_PHYS + 0x8000, 0x10000),
	       "%s: read across two segments", be->name);
	mmc_error_destroy(err);

	err = mmc_mem_read_u64(mem, MMC_PHYSADDR, SEG_B_PHYS + 0x40, &v);
	tap_ok(!err && v == mkcore_pattern(SEG_B_PHYS + 0x40),
	       "%s: read_u64 is little-endian: 0x%llx", be->name,
	       (unsigned long long)v);
	mmc_error_destroy(err);

	/* Into the gap after B: exactly what was read, NODATA at the gap. */
	err = mem->ops->read(mem->priv, MMC_PHYSADDR, SEG_B_PHYS + 0xf000,
			     buf, 0x3000, &done);
	diag_err(err);
	tap_ok(err_is(err, MMC_ERR_NODATA, SEG_B_PHYS + SEG_SIZE),
	       "%s: read into a gap is NODATA at 0x%llx", be->name,
	       (unsigned long long)(SEG_B_PHYS + SEG_SIZE));
	TAP_EQ_U64(done, 0x1000, "bytes done before the gap");
	tap_ok(done == 0x1000 && check_pattern(buf, SEG_B_PHYS + 0xf000, 0x1000),
	       "%s: bytes before the gap are correct", be->name);
	tap_ok(err && err->path && !strcmp(err->path, path),
	       "%s: NODATA error names the file", be->name);
	mmc_error_destroy(err);

	err = mmc_mem_read(mem, MMC_PHYSADDR, 0x150000, buf, 8);
	tap_ok(err_is(err, MMC_ERR_NODATA, 0x150000),
	       "%s: read entirely in a gap is NODATA", be->name);
	mmc_error_destroy(err);

	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_C_PHYS + 0x100, buf, 0x800);
	tap_ok(!err && !memcmp(buf, seg_c_data + 0x100, 0x800),
	       "%s: explicit segment data", be->name);
	mmc_error_destroy(err);

	/* Kernel virtual addresses through the segments' p_vaddr. */
	err = mmc_mem_read(mem, MMC_KVADDR, TEXT_VADDR + 0x4000, buf, 0x1000);
	diag_err(err);
	tap_ok(!err && check_pattern(buf, TEXT_PHYS + 0x4000, 0x1000),
	       "%s: KVADDR read through a text segment", be->name);
	mmc_error_destroy(err);

	err = mmc_mem_read(mem, MMC_KVADDR, DIRECT_MAP + SEG_C_PHYS, buf, 0x40);
	diag_err(err);
	tap_ok(!err && !memcmp(buf, seg_c_data, 0x40),
	       "%s: KVADDR read through the direct map", be->name);
	mmc_error_destroy(err);

	/*
	 * libkdumpfile translates vmalloc addresses with the kernel's page
	 * tables, which this core lacks: that must be NODATA (with the
	 * address), never zeros.  kcore reads the segment itself.
	 */
	err = mmc_mem_read(mem, MMC_KVADDR, VMALLOC_VADDR + 0x10, buf, 0x100);
	diag_err(err);
	if (be->kdump)
		tap_ok(err_is(err, MMC_ERR_NODATA, VMALLOC_VADDR + 0x10),
		       "%s: KVADDR read needing absent page tables is NODATA",
		       be->name);
	else
		tap_ok(!err && !memcmp(buf, vmalloc_data + 0x10, 0x100),
		       "%s: KVADDR read of a segment without p_paddr",
		       be->name);
	mmc_error_destroy(err);

	if (!be->kdump) {
		/*
		 * The p_paddr = -1 segment must not appear at physical
		 * 0xffff...: libkdumpfile drops it the same way, but its
		 * answer for such an address is not ours to test.
		 */
		err = mmc_mem_read(mem, MMC_PHYSADDR, UINT64_MAX - 0xfff, buf, 8);
		tap_ok(err && err->code == MMC_ERR_NODATA,
		       "%s: p_paddr -1 segment has no physical view", be->name);
		mmc_error_destroy(err);
	}

	mmc_mem_destroy(mem);
	free(buf);
}

/* Truncate the good core in the middle of segment C's data. */
static void test_truncated(const struct backend *be, const char *good,
			   const char *path)
{
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	unsigned char buf[0x1000];
	FILE *in = fopen(good, "rb"), *out = fopen(path, "wb");
	long keep;
	char chunk[4096];
	size_t n;

	/* Header page + A + B + first half of C. */
	keep = 0x1000 + 2 * SEG_SIZE + SEG_SIZE / 2;
	while (in && out && keep > 0 &&
	       (n = fread(chunk, 1, keep < (long)sizeof(chunk) ?
			  (size_t)keep : sizeof(chunk), in)) > 0) {
		fwrite(chunk, 1, n, out);
		keep -= (long)n;
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);

	err = be->open(path, &mem);
	if (!err) {
		/* Readers that only look at data when asked fail here. */
		err = mmc_mem_read(mem, MMC_PHYSADDR,
				   SEG_C_PHYS + SEG_SIZE - 0x1000, buf,
				   sizeof(buf));
		if (!err)
			tap_ok(0, "%s: truncated file read succeeded", be->name);
	}
	diag_err(err);
	if (!strcmp(be->name, "kdump")) {
		/* the first half of C is there, the second half is not */
		tap_ok(err && err->path && !strcmp(err->path, path) &&
		       err->code == MMC_ERR_NODATA && err->reason == MMC_UR_TRUNCATED,
		       "%s: a page past the cut is unreadable (truncated), naming the file",
		       be->name);
		mmc_error_destroy(err);
		err = mem ? mmc_mem_read(mem, MMC_PHYSADDR, SEG_C_PHYS, buf, sizeof(buf)) :
			    NULL;
		tap_ok(mem && !err && mem->nnotes == 1 &&
		       strstr(mem->notes[0], "dump truncated"),
		       "%s: the pages before the cut read; a note says the dump is truncated",
		       be->name);
	} else {
		tap_ok(err && err->path && !strcmp(err->path, path) &&
		       err->code != MMC_ERR_NODATA,
		       "%s: truncated file gives a (non-NODATA) error naming the file",
		       be->name);
		tap_ok(mem == NULL, "%s: truncated file refused at open", be->name);
	}
	mmc_error_destroy(err);
	mmc_mem_destroy(mem);
}

static void test_past_eof(const struct backend *be, const char *path)
{
	struct mkcore_seg segs[] = {
		{ DIRECT_MAP + SEG_A_PHYS, SEG_A_PHYS, NULL, SEG_SIZE, 0 },
		{ DIRECT_MAP + SEG_B_PHYS, SEG_B_PHYS, NULL, SEG_SIZE,
		  0x100000000ULL },
	};
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	unsigned char buf[64];

	if (!tap_ok(mkcore_write(path, segs, 2, VMCOREINFO_TEXT) == 0,
		    "write core with a segment past EOF"))
		return;
	err = be->open(path, &mem);
	if (!err) {
		err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_B_PHYS, buf,
				   sizeof(buf));
		if (!err)
			tap_ok(0, "%s: read past EOF succeeded", be->name);
	}
	diag_err(err);
	if (!strcmp(be->name, "kdump")) {
		/*
		 * libkdumpfile would read the missing data as zeros: the
		 * dump is opened, the pages past the end are unreadable
		 * (truncated, never zeros), and a note says so.
		 */
		tap_ok(err && err->path && !strcmp(err->path, path) &&
		       err->code == MMC_ERR_NODATA && err->reason == MMC_UR_TRUNCATED &&
		       err->has_address && err->address == SEG_B_PHYS,
		       "%s: a page past EOF is unreadable (truncated) at its address",
		       be->name);
		tap_ok(mem && mem->nnotes == 1 && strstr(mem->notes[0], "dump truncated") &&
		       strstr(mem->notes[0], path),
		       "%s: a note names the file and the truncation: %s", be->name,
		       mem && mem->nnotes ? mem->notes[0] : "(none)");
	} else {
		tap_ok(err && err->path && !strcmp(err->path, path) &&
		       err->code != MMC_ERR_NODATA,
		       "%s: segment past EOF gives an error naming the file", be->name);
		tap_ok(err && strstr(err->message, "offset"),
		       "%s: the error names the offset", be->name);
	}
	mmc_error_destroy(err);
	mmc_mem_destroy(mem);
}

/*
 * VMCOREINFO without NUMBER(pgtable_l5_enabled), or none at all (QEMU
 * without -device vmcoreinfo).  kcore reads physical memory regardless;
 * libkdumpfile 0.5.1 then cannot set up x86_64 translation and fails every
 * read, so its backend must refuse the file at open with a clear error.
 */
static void test_bare(const struct backend *be, const char *path)
{
	struct mkcore_seg seg = { DIRECT_MAP + SEG_A_PHYS, SEG_A_PHYS, NULL,
				  SEG_SIZE, 0 };
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	unsigned char buf[256];
	int i;

	for (i = 0; i < 2; i++) {
		const char *what = i ? "no VMCOREINFO" : "a minimal VMCOREINFO";

		if (mkcore_write(path, &seg, 1,
				 i ? NULL : "OSRELEASE=6.12.0\nPAGESIZE=4096\n"))
			continue;
		mem = NULL;
		err = be->open(path, &mem);
		diag_err(err);
		if (be->kdump) {
			tap_ok(err && !mem && err->path &&
			       strstr(err->message, "address translation"),
			       "%s: core with %s refused at open, saying why",
			       be->name, what);
			mmc_error_destroy(err);
			continue;
		}
		if (!err)
			err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_A_PHYS + 0x800,
					   buf, sizeof(buf));
		tap_ok(!err && check_pattern(buf, SEG_A_PHYS + 0x800, sizeof(buf)),
		       "%s: physical read of a core with %s", be->name, what);
		if (i && mem)
			tap_ok(mem->vmcoreinfo == NULL,
			       "%s: no VMCOREINFO note gives NULL", be->name);
		mmc_error_destroy(err);
		mmc_mem_destroy(mem);
	}
}

static void test_garbage(const struct backend *be, const char *path)
{
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	unsigned char junk[8192];
	FILE *f;
	size_t i;
	uint32_t x = 12345;

	for (i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245 + 12345;
		junk[i] = (unsigned char)(x >> 16);
	}
	f = fopen(path, "wb");
	if (f) {
		fwrite(junk, 1, sizeof(junk), f);
		fclose(f);
	}
	err = be->open(path, &mem);
	diag_err(err);
	tap_ok(err && mem == NULL && err->path && !strcmp(err->path, path),
	       "%s: garbage file refused with an error naming it", be->name);
	mmc_error_destroy(err);

	/* ELF magic with a nonsense program header table. */
	memcpy(junk, ELFMAG, SELFMAG);
	f = fopen(path, "wb");
	if (f) {
		fwrite(junk, 1, 64, f);
		fclose(f);
	}
	mem = NULL;
	err = be->open(path, &mem);
	diag_err(err);
	tap_ok(err && mem == NULL && err->path && !strcmp(err->path, path),
	       "%s: corrupt ELF header refused with an error naming it",
	       be->name);
	mmc_error_destroy(err);

	mem = NULL;
	err = be->open("/nonexistent/memmapcheck.core", &mem);
	tap_ok(err && err->code == MMC_ERR_OS && err->errnum == ENOENT &&
	       err->path, "%s: missing file is an OS error naming it", be->name);
	mmc_error_destroy(err);
}

/* A fake backend that hands out at most 5 bytes per call, or none. */
struct fake {
	unsigned int calls;
	bool stall;
};

static struct mmc_error *fake_read(void *priv, enum mmc_space space,
				   uint64_t addr, void *buf, size_t len,
				   size_t *done)
{
	struct fake *fk = priv;
	unsigned char *p = buf;
	size_t i, n = len < 5 ? len : 5;

	fk->calls++;
	if (fk->stall) {
		*done = 0;
		return NULL;
	}
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(addr + i);
	*done = n;
	return NULL;
}

static const struct mmc_mem_ops fake_ops = { .read = fake_read };

static void test_read_loop(void)
{
	struct fake fk = { 0, false };
	struct mmc_mem mem = { .ops = &fake_ops, .priv = &fk, .path = (char *)"fake", .page_size = 4096 };
	unsigned char buf[23];
	struct mmc_error *err;
	size_t i;
	bool ok = true;

	err = mmc_mem_read(&mem, MMC_PHYSADDR, 100, buf, sizeof(buf));
	for (i = 0; i < sizeof(buf); i++)
		ok = ok && buf[i] == (unsigned char)(100 + i);
	tap_ok(!err && ok && fk.calls == 5,
	       "mmc_mem_read loops over short reads (%u calls)", fk.calls);
	mmc_error_destroy(err);

	fk.stall = true;
	err = mmc_mem_read(&mem, MMC_PHYSADDR, 100, buf, sizeof(buf));
	tap_ok(err && err->code == MMC_ERR_INTERNAL && err->address == 100,
	       "a backend making no progress is an error, not a hang");
	mmc_error_destroy(err);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench_one(const struct backend *be, const char *path,
		      uint64_t paddr, uint64_t size, size_t win,
		      unsigned char *buf)
{
	struct mmc_mem *mem = NULL;
	struct mmc_error *err = be->open(path, &mem);
	unsigned long reads = 0;
	double t0, t = 0;
	uint64_t a;
	int pass;

	if (err) {
		diag_err(err);
		mmc_error_destroy(err);
		return;
	}
	/* Pass 0 warms the page cache; pass 1 is measured. */
	for (pass = 0; pass < 2 && !err; pass++) {
		t0 = now();
		reads = 0;
		for (a = 0; a < size && !err; a += win) {
			err = mmc_mem_read(mem, MMC_PHYSADDR, paddr + a, buf,
					   win);
			reads++;
		}
		t = now() - t0;
	}
	if (err)
		diag_err(err);
	else
		tap_diag("bench %s: %llu MiB, %lu reads of %zu KiB in %.3f s: %.0f reads/s, %.0f MB/s",
			 be->name, (unsigned long long)(size >> 20), reads,
			 win >> 10, t, reads / t, (double)size / t / 1e6);
	tap_ok(!err && check_pattern(buf, paddr + size - win, win),
	       "bench %s %zu KiB: data correct", be->name, win >> 10);
	mmc_error_destroy(err);
	mmc_mem_destroy(mem);
}

static void bench(const char *dir, unsigned long mib)
{
	char path[4096];
	struct mkcore_seg seg = { DIRECT_MAP + SEG_A_PHYS, 0x100000000ULL,
				  NULL, (uint64_t)mib << 20, 0 };
	unsigned char *buf = malloc(64 << 10);
	size_t b;

	snprintf(path, sizeof(path), "%s/bench.core", dir);
	if (!buf || mkcore_write(path, &seg, 1, VMCOREINFO_TEXT)) {
		tap_diag("bench: cannot write %s", path);
		free(buf);
		return;
	}
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		bench_one(&backends[b], path, seg.paddr, seg.size, 64 << 10,
			  buf);
		bench_one(&backends[b], path, seg.paddr, seg.size, 4 << 10,
			  buf);
	}
	unlink(path);
	free(buf);
}

/*
 * The segment table against itself (issue 20): both backends give the same
 * answer, whatever the segment order.  A page two PT_LOADs map with the
 * same bytes reads (a /proc/vmcore's kernel text aliases its RAM); a page
 * they map with different bytes is unreadable (NODATA, corrupt), never the
 * first segment's; bytes of a page outside every segment are unreadable.
 * Expected values: the pattern each segment's bytes are written with.
 */
static void test_alias(const struct backend *be, const char *path, bool reversed)
{
	static unsigned char other[0x1000];
	struct mkcore_seg segs[] = {
		{ DIRECT_MAP + SEG_A_PHYS, SEG_A_PHYS, NULL, SEG_SIZE, 0 },
		/* the same bytes again: an alias */
		{ TEXT_VADDR, SEG_A_PHYS, NULL, SEG_SIZE, 0 },
		{ DIRECT_MAP + SEG_B_PHYS, SEG_B_PHYS, NULL, SEG_SIZE, 0 },
		/* page 1 of B again, with other bytes */
		{ TEXT_VADDR + SEG_SIZE, SEG_B_PHYS + 0x1000, other, sizeof(other), 0 },
	}, rev[4];
	unsigned char buf[0x1000];
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;
	size_t i;

	memset(other, 0xa5, sizeof(other));
	for (i = 0; i < 4; i++)
		rev[i] = segs[3 - i];
	if (!tap_ok(mkcore_write(path, reversed ? rev : segs, 4, VMCOREINFO_TEXT) == 0,
		    "%s: write a core with aliased segments%s", be->name,
		    reversed ? " (reversed)" : ""))
		return;
	err = be->open(path, &mem);
	if (!tap_ok(!err, "%s: open it", be->name)) {
		diag_err(err);
		mmc_error_destroy(err);
		return;
	}
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_A_PHYS + 0x3000, buf, sizeof(buf));
	diag_err(err);
	tap_ok(!err && check_pattern(buf, SEG_A_PHYS + 0x3000, sizeof(buf)),
	       "[proof] %s%s: a page two segments map with the same bytes reads",
	       be->name, reversed ? " reversed" : "");
	mmc_error_destroy(err);
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_B_PHYS + 0x1000, buf, sizeof(buf));
	tap_ok(err && err->code == MMC_ERR_NODATA && err->reason == MMC_UR_CORRUPT &&
	       err->has_address && err->address == SEG_B_PHYS + 0x1000,
	       "[proof] %s%s: a page two segments map with different bytes is unreadable (corrupt), not either one",
	       be->name, reversed ? " reversed" : "");
	diag_err(err);
	mmc_error_destroy(err);
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_B_PHYS + 0x2000, buf, sizeof(buf));
	tap_ok(!err && check_pattern(buf, SEG_B_PHYS + 0x2000, sizeof(buf)),
	       "[proof] %s%s: the page after it reads", be->name, reversed ? " reversed" : "");
	mmc_error_destroy(err);
	mmc_mem_destroy(mem);
}

/* A segment that is not page-aligned: the rest of its first page is in no
 * segment and unreadable, not zeros. */
static void test_misaligned(const struct backend *be, const char *path)
{
	struct mkcore_seg seg = { DIRECT_MAP + SEG_C_PHYS + 8, SEG_C_PHYS + 8, NULL,
				  SEG_SIZE - 8, 0 };
	unsigned char buf[0x1000];
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;

	if (!tap_ok(mkcore_write(path, &seg, 1, VMCOREINFO_TEXT) == 0,
		    "%s: write a core with a segment at +8", be->name))
		return;
	err = be->open(path, &mem);
	if (!tap_ok(!err, "%s: open it", be->name)) {
		diag_err(err);
		mmc_error_destroy(err);
		return;
	}
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_C_PHYS, buf, sizeof(buf));
	tap_ok(err && err->code == MMC_ERR_NODATA && err->has_address &&
	       err->address == SEG_C_PHYS,
	       "[proof] %s: the 8 bytes before a misaligned segment are unreadable", be->name);
	diag_err(err);
	mmc_error_destroy(err);
	err = mmc_mem_read(mem, MMC_PHYSADDR, SEG_C_PHYS + 8, buf, sizeof(buf) - 8);
	tap_ok(!err && check_pattern(buf, SEG_C_PHYS + 8, sizeof(buf) - 8),
	       "[proof] %s: its own bytes read", be->name);
	mmc_error_destroy(err);
	mmc_mem_destroy(mem);
}

int main(void)
{
	char dir[] = "/tmp/mmc-test-mem-XXXXXX";
	char good[4200], trunc[4200], eof[4200], junk[4200];
	const char *bench_env = getenv("MMC_MEM_BENCH");
	size_t b;

	if (!mkdtemp(dir))
		tap_skip_all("cannot create a temporary directory");
	snprintf(good, sizeof(good), "%s/good.core", dir);
	snprintf(trunc, sizeof(trunc), "%s/trunc.core", dir);
	snprintf(eof, sizeof(eof), "%s/eof.core", dir);
	snprintf(junk, sizeof(junk), "%s/junk.core", dir);

	test_read_loop();
	if (!tap_ok(write_good_core(good) == 0, "write synthetic core %s", good))
		return tap_done();
	for (b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		test_good(&backends[b], good);
		test_truncated(&backends[b], good, trunc);
		test_past_eof(&backends[b], eof);
		test_bare(&backends[b], eof);
		test_garbage(&backends[b], junk);
		test_alias(&backends[b], junk, false);
		test_alias(&backends[b], junk, true);
		test_misaligned(&backends[b], junk);
	}
	if (bench_env && atol(bench_env) > 0)
		bench(dir, (unsigned long)atol(bench_env));
	unlink(good);
	unlink(trunc);
	unlink(eof);
	unlink(junk);
	rmdir(dir);
	return tap_done();
}
