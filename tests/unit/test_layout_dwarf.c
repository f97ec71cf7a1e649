// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF provider on real kernels: every vmlinux found ($MMC_VMLINUX, then
 * ${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}/kernels/<name>/vmlinux) is
 * resolved, saved, loaded and compared, and checked against facts that hold
 * for every x86_64 kernel this tool targets.  SKIP when there is none.
 */
#include <glob.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layout.h"
#include "tap.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check_facts(const char *v, const struct mmc_layout *l)
{
	const struct mmc_member *m;
	int64_t val;
	bool found;

	tap_ok(l->size_found[MMC_SIZE_PAGE] && l->size[MMC_SIZE_PAGE] == 64,
	       "%s: sizeof(struct page) == 64", v);
	tap_ok(l->member[MMC_PAGE_FLAGS].found &&
	       l->member[MMC_PAGE_FLAGS].offset == 0 &&
	       l->member[MMC_PAGE_FLAGS].size == 8, "%s: page flags at 0, 8 bytes", v);
	tap_ok(l->member[MMC_PAGE_REFCOUNT].found &&
	       l->member[MMC_PAGE_REFCOUNT].size == 4 &&
	       l->member[MMC_PAGE_MAPCOUNT].found &&
	       l->member[MMC_PAGE_MAPCOUNT].size == 4,
	       "%s: _refcount and _mapcount found (4 bytes)", v);
	tap_ok(l->member[MMC_PAGE_COMPOUND_HEAD].found &&
	       l->member[MMC_PAGE_COMPOUND_HEAD].offset == 8,
	       "%s: compound head word at 8 (%s)", v,
	       l->member[MMC_PAGE_COMPOUND_HEAD].name);
	tap_ok(l->member[MMC_PAGE_PGMAP].found || l->member[MMC_FOLIO_PGMAP].found,
	       "%s: pgmap in page or folio", v);
	m = &l->member[MMC_FOLIO_FLAGS_1];
	tap_ok(!m->found || m->offset == l->size[MMC_SIZE_PAGE],
	       "%s: folio _flags_1 is page[1].flags (offset from the folio)", v);
	m = &l->member[MMC_XA_NODE_SLOTS];
	tap_ok(m->found && (m->count == 16 || m->count == 64) &&
	       m->size == m->count * 8, "%s: xa_node.slots[%u] (XA_CHUNK_SIZE)",
	       v, m->count);
	val = -1;
	found = mmc_layout_enum_value(l, MMC_ENUM_ZONE_TYPE, "ZONE_DEVICE", &val);
	tap_ok(found && val > 0 && val < 8,
	       "%s: ZONE_DEVICE in enum zone_type (= %lld)", v, (long long)val);
	tap_ok(mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_head", &val) &&
	       mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_reserved", &val),
	       "%s: PG_head and PG_reserved in enum pageflags", v);
	tap_ok(mmc_layout_enum_value(l, MMC_ENUM_MEMORY_TYPE,
				     "MEMORY_DEVICE_FS_DAX", &val) &&
	       mmc_layout_enum_value(l, MMC_ENUM_MEMORY_TYPE,
				     "MEMORY_DEVICE_GENERIC", &val),
	       "%s: enum memory_type has FS_DAX and GENERIC", v);
	tap_ok(l->sym[MMC_SYM_TEXT] <= l->sym[MMC_SYM_STEXT] &&
	       l->sym[MMC_SYM_STEXT] < l->sym[MMC_SYM_END] &&
	       l->sym[MMC_SYM_PGMAP_ARRAY] > l->sym[MMC_SYM_TEXT] &&
	       l->sym[MMC_SYM_PGMAP_ARRAY] < l->sym[MMC_SYM_END],
	       "%s: _text <= _stext < _end, pgmap_array inside", v);
	tap_ok(l->release[0] && strspn(l->release, "0123456789") > 0,
	       "%s: release \"%s\" from linux_banner", v, l->release);
	tap_ok(strlen(l->build_id) >= 16 &&
	       strspn(l->build_id, "0123456789abcdef") == strlen(l->build_id),
	       "%s: build-id %s", v, l->build_id);
	tap_ok(l->max_numnodes >= 1 &&
	       (l->max_numnodes == 1) == !l->sym_found[MMC_SYM_NODE_DATA],
	       "%s: max_numnodes %u agrees with node_data", v, l->max_numnodes);
}

static void test_one(const char *v)
{
	struct mmc_layout *l = NULL, *back = NULL;
	struct mmc_error *err;
	char tmp[] = "/tmp/mmc-dwarf-layout-XXXXXX";
	double t0, t1;
	int fd;

	t0 = now();
	err = mmc_layout_from_dwarf(v, &l);
	t1 = now();
	if (!tap_ok(err == NULL, "%s: resolved from DWARF in %.3f s", v, t1 - t0)) {
		mmc_error_fprint(stdout, err);
		putchar('\n');
		mmc_error_destroy(err);
		return;
	}
	tap_diag("%s: release %s, fingerprint %016llx", v, l->release,
		 (unsigned long long)mmc_layout_fingerprint(l));
	check_facts(v, l);
	fd = mkstemp(tmp);
	if (fd >= 0)
		close(fd);
	err = mmc_layout_save(l, tmp);
	tap_ok(err == NULL, "%s: saved", v);
	mmc_error_destroy(err);
	err = mmc_layout_load(tmp, &back);
	tap_ok(err == NULL, "%s: loaded back", v);
	mmc_error_destroy(err);
	if (back) {
		err = mmc_layout_compare(l, back, true);
		tap_ok(err == NULL, "%s: saved layout equals DWARF layout", v);
		if (err)
			tap_diag("%s", err->message);
		mmc_error_destroy(err);
		TAP_EQ_U64(mmc_layout_fingerprint(back), mmc_layout_fingerprint(l),
			   "fingerprint of the saved layout");
		mmc_layout_destroy(back);
	}
	unlink(tmp);
	mmc_layout_destroy(l);
}

static void test_bad_inputs(void)
{
	struct mmc_layout *l = NULL;
	struct mmc_error *err;
	char tmp[] = "/tmp/mmc-not-elf-XXXXXX";
	int fd = mkstemp(tmp);

	if (fd >= 0) {
		if (write(fd, "not an ELF\n", 11) != 11)
			tap_diag("short write");
		close(fd);
	}
	err = mmc_layout_from_dwarf(tmp, &l);
	tap_ok(err && err->path && !strcmp(err->path, tmp) &&
	       strstr(err->message, "ELF"), "a text file is refused by name");
	mmc_error_destroy(err);
	unlink(tmp);
	err = mmc_layout_from_dwarf("/nonexistent/vmlinux", &l);
	tap_ok(err && err->code == MMC_ERR_OS, "absent vmlinux: OS error");
	mmc_error_destroy(err);
	/* A stripped ELF: every system has one. */
	if (access("/bin/true", R_OK) == 0) {
		err = mmc_layout_from_dwarf("/bin/true", &l);
		tap_ok(err && strstr(err->message, "DWARF"),
		       "ELF without DWARF: clear error");
		if (err)
			tap_diag("%s", err->message);
		mmc_error_destroy(err);
	}
}

/*
 * A 7.2-shaped kernel in miniature (memdesc_flags_t, compound_info,
 * __folio_index, pgmap in struct folio, _mm_ids, aliased pageflags),
 * compiled at test time: the newest-first fallback chains are exercised
 * without a 90 MB 7.2 vmlinux.
 */
static const char fake72_src[] =
	"/* A 7.2-shaped struct page/folio for the fallback chains. */\n"
	"typedef struct { unsigned long f; } memdesc_flags_t;\n"
	"struct list_head { struct list_head *next, *prev; };\n"
	"struct dev_pagemap;\n"
	"struct page {\n"
	"#ifndef NO_FLAGS\n"
	"	memdesc_flags_t flags;\n"
	"#else\n"
	"	memdesc_flags_t flogs;\n"
	"#endif\n"
	"	union {\n"
	"		struct { union { struct list_head lru; struct { void *__filler; unsigned int mlock_count; }; };\n"
	"			 void *mapping; unsigned long __folio_index; unsigned long private; };\n"
	"		struct { unsigned long compound_info; };\n"
	"		struct { void *_unused_pgmap_compound_info; void *zone_device_data; };\n"
	"	};\n"
	"	union { int _mapcount; unsigned int page_type; };\n"
	"	int _refcount;\n"
	"	unsigned long memcg_data;\n"
	"};\n"
	"struct folio {\n"
	"	union { struct { memdesc_flags_t flags; union { struct list_head lru; }; void *mapping;\n"
	"		unsigned long __folio_index; union { void *private; }; int _mapcount; int _refcount; unsigned long memcg_data; };\n"
	"		struct { unsigned long _f; struct dev_pagemap *pgmap; };\n"
	"		struct page page; };\n"
	"	union { struct { memdesc_flags_t _flags_1; unsigned long _head_1; union { struct { int _large_mapcount; int _nr_pages_mapped; int _entire_mapcount; int _pincount; }; struct { unsigned short _mm_id_mapcount[2]; union { unsigned int _mm_id[2]; unsigned long _mm_ids; }; }; }; };\n"
	"		struct page __page_1; };\n"
	"	union { struct { unsigned long _flags_2; unsigned long _head_2; struct list_head _deferred_list; }; struct page __page_2; };\n"
	"};\n"
	"struct vmem_altmap { unsigned long base_pfn; const unsigned long end_pfn, reserve; unsigned long free, align, alloc; };\n"
	"struct range { unsigned long long start, end; };\n"
	"struct percpu_ref { long a; void *d; };\n"
	"struct completion { unsigned int done; char w[24]; };\n"
	"enum memory_type { MEMORY_DEVICE_PRIVATE = 1, MEMORY_DEVICE_COHERENT, MEMORY_DEVICE_FS_DAX, MEMORY_DEVICE_GENERIC, MEMORY_DEVICE_PCI_P2PDMA };\n"
	"struct dev_pagemap { struct vmem_altmap altmap; struct percpu_ref ref; struct completion done; enum memory_type type;\n"
	"	unsigned int flags; unsigned long vmemmap_shift; const void *ops; void *owner; int nr_range;\n"
	"	union { struct range range; struct { struct { } __empty_ranges; struct range ranges[]; }; }; };\n"
	"struct xarray { int xa_lock; unsigned int xa_flags; void *xa_head; };\n"
	"struct xa_node { unsigned char shift, offset, count, nr_values; struct xa_node *parent; struct xarray *array;\n"
	"	struct list_head private_list; void *slots[64]; unsigned long marks[3][1]; };\n"
	"enum pageflags { PG_locked, PG_writeback, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_head, PG_waiters,\n"
	"	PG_active, PG_workingset, PG_owner_priv_1, PG_owner_2, PG_arch_1, PG_reserved, PG_private, PG_private_2,\n"
	"	PG_reclaim, PG_swapbacked, PG_unevictable, PG_dropbehind, PG_mlocked, __NR_PAGEFLAGS,\n"
	"	PG_checked = PG_owner_priv_1, PG_anon_exclusive = PG_owner_2 };\n"
	"enum zone_type { ZONE_DMA, ZONE_DMA32, ZONE_NORMAL, ZONE_MOVABLE, ZONE_DEVICE, __MAX_NR_ZONES };\n"
	"struct page pg; struct folio fo; struct dev_pagemap pgm; struct xa_node xn;\n"
	"enum pageflags pf; enum zone_type zt;\n"
	"struct xarray pgmap_array;\n"
	"unsigned long vmemmap_base, page_offset_base, vmalloc_base;\n"
	"unsigned long init_top_pgt[512];\n"
	"char _text[16], _stext[16], init_uts_ns[400], _end[1];\n"
	"const char linux_banner[] = \"Linux version 7.2.8-fake (gcc) #1 SMP\\n\";\n"
	"void *node_data[64];\n"
	"void _start(void) { }\n";

static bool compile_fake(const char *dir, const char *name, const char *defs,
			 char *out, size_t n)
{
	const char *cc = getenv("CC");
	char src[512], cmd[2048];
	FILE *f;

	snprintf(src, sizeof(src), "%s/fake72.c", dir);
	snprintf(out, n, "%s/%s", dir, name);
	f = fopen(src, "w");
	if (!f)
		return false;
	fputs(fake72_src, f);
	if (fclose(f) != 0)
		return false;
	snprintf(cmd, sizeof(cmd),
		 "%s -g -O0 %s -nostdlib -static -Wl,--build-id -o %s %s >/dev/null 2>&1",
		 cc && *cc ? cc : "cc", defs, out, src);
	return system(cmd) == 0;
}

static void test_fake72(void)
{
	char dir[] = "/tmp/mmc-fake72-XXXXXX", bin[600], cmd[700];
	struct mmc_layout *l = NULL;
	struct mmc_error *err;
	const char *name;
	int64_t v;

	if (!mkdtemp(dir) || !compile_fake(dir, "vmlinux", "", bin, sizeof(bin))) {
		printf("ok %d # SKIP cannot compile the miniature 7.2 kernel with cc\n",
		       ++tap_n);
		return;
	}
	err = mmc_layout_from_dwarf(bin, &l);
	if (tap_ok(err == NULL, "fake 7.2: resolved")) {
		tap_ok(!strcmp(l->member[MMC_PAGE_FLAGS].name, "flags.f") &&
		       l->member[MMC_PAGE_FLAGS].offset == 0,
		       "fake 7.2: flags resolves as flags.f");
		tap_ok(!strcmp(l->member[MMC_PAGE_COMPOUND_HEAD].name, "compound_info") &&
		       l->member[MMC_PAGE_COMPOUND_HEAD].offset == 8,
		       "fake 7.2: compound_head label resolves compound_info");
		tap_ok(!strcmp(l->member[MMC_PAGE_INDEX].name, "__folio_index"),
		       "fake 7.2: index resolves __folio_index");
		tap_ok(!l->member[MMC_PAGE_PGMAP].found &&
		       l->member[MMC_FOLIO_PGMAP].found &&
		       l->member[MMC_FOLIO_PGMAP].offset == 8,
		       "fake 7.2: pgmap only in the folio, at 8");
		tap_ok(!strcmp(l->member[MMC_FOLIO_FLAGS_1].name, "_flags_1.f") &&
		       l->member[MMC_FOLIO_FLAGS_1].offset == 64,
		       "fake 7.2: _flags_1.f at 64 (page[1], from the folio)");
		tap_ok(l->member[MMC_FOLIO_MM_ID_MAPCOUNT].count == 2 &&
		       l->member[MMC_FOLIO_MM_ID_MAPCOUNT].size == 4,
		       "fake 7.2: _mm_id_mapcount[2] through nested anonymous unions");
		tap_ok(l->member[MMC_FOLIO_DEFERRED_LIST].offset == 144,
		       "fake 7.2: _deferred_list in page[2]");
		tap_ok(!l->member[MMC_FOLIO_NR_PAGES].found, "fake 7.2: no _folio_nr_pages");
		name = mmc_layout_enum_name(l, MMC_ENUM_PAGEFLAGS, 10);
		tap_ok(name && !strcmp(name, "PG_owner_priv_1") &&
		       mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_checked", &v) &&
		       v == 10, "fake 7.2: alias PG_checked kept, first name wins");
		tap_ok(mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_mlocked", &v) &&
		       v == 20, "fake 7.2: PG_mlocked moved to 20");
		tap_ok(!strcmp(l->release, "7.2.8-fake") && l->max_numnodes == 64 &&
		       strlen(l->build_id) == 40,
		       "fake 7.2: release, max_numnodes, build-id");
		mmc_layout_destroy(l);
	}
	mmc_error_destroy(err);
	if (compile_fake(dir, "noflags", "-DNO_FLAGS", bin, sizeof(bin))) {
		err = mmc_layout_from_dwarf(bin, &l);
		tap_ok(err && err->code == MMC_ERR_LAYOUT && err->path &&
		       !strcmp(err->path, bin) && strstr(err->message, "page.flags"),
		       "struct page without flags: error names page.flags and the file");
		if (err)
			tap_diag("%s", err->message);
		mmc_error_destroy(err);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
}

int main(void)
{
	const char *env = getenv("MMC_VMLINUX");
	const char *cache = getenv("MEMMAPCHECK_CACHE");
	const char *home = getenv("HOME");
	char pattern[4096];
	glob_t g = { 0 };
	int n = 0;

	test_bad_inputs();
	test_fake72();
	if (env && *env && access(env, R_OK) == 0) {
		test_one(env);
		n++;
	}
	if (cache && *cache)
		snprintf(pattern, sizeof(pattern), "%s/kernels/*/vmlinux", cache);
	else
		snprintf(pattern, sizeof(pattern), "%s/.cache/memmapcheck/kernels/*/vmlinux",
			 home ? home : "");
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			if (env && !strcmp(env, g.gl_pathv[i]))
				continue;
			test_one(g.gl_pathv[i]);
			n++;
		}
	}
	globfree(&g);
	if (!n)
		printf("ok %d # SKIP no vmlinux: set MMC_VMLINUX or build kernels into %s\n",
		       ++tap_n, pattern);
	return tap_done();
}
