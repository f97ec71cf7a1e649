// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "help memmapcheck": the text, and the help[] crash prints, built from
 * the subcommand table of memmapcheck.c (crash_ext.h): the SYNOPSIS from
 * each subcommand's usage, the list from its help lines, both in the
 * table's order; hidden subcommands (usage NULL) are left out.  The
 * EXAMPLE is real output: scripts/docs/crash-example.py checks and rewrites it.
 */
#include <stdio.h>
#include <string.h>

#include "crash_ext.h"

/* help's lines before the generated SYNOPSIS, around the generated list
 * of subcommands, and after it (crash prints a command's help[] as: name,
 * one line, synopsis, then one line each) */
static const char *const help_head[] = {
"memmapcheck",
"ZONE_DEVICE struct pages: ranges, snapshots, diff, lint",
};

static const char *const help_intro[] = {
"  This command walks the vmemmap of every ZONE_DEVICE range of the running",
"  image (the dump crash has open): every pgmap in the kernel's pgmap_array,",
"  every pfn of its ranges, head and tail pages, read through memmapcheck's",
"  own page-table walk in large windows.  Each struct page is normalised",
"  (pointers into the memmap become pfn deltas, pgmap pointers pgmap",
"  numbers, other kernel pointers numbered by first appearance), so images",
"  of two kernels, or two boots, compare page by page.  Struct pages the dump",
"  lacks are reported as unreadable, never read as zeros.",
"",
"  The output is that of the batch memmapcheck(1) CLI; snapshot files are",
"  interchangeable between the two.  The type layout comes from crash's own",
"  debuginfo, memory from the dump file crash has open (the CLI's reader)",
"  or, live and for formats it does not read, crash's readmem().  The",
"  snapshot of the running image is taken once per session and reused by",
"  later commands.",
"",
};

static const char *const help_tail[] = {
"",
"    -j         JSON instead of text.",
"    -r N       show: only range N; snapshot: only range N (not cached;",
"               prints the walk's time, for benchmarks).",
"    -n N       diff: pages shown in detail (default 20).",
"    -c FILE    diff: a claims file (--claims FILE): what the patch is meant",
"               to change; the verdict is then as claimed / beyond the claims",
"               / incomplete, each claim with its reason and pages.",
"    -s         diff, with -c: a claim that matched nothing fails (--strict).",
"    -o FILE    snapshot: the file to write (atomically).",
"    -f         walk the dump again instead of reusing this session's snapshot.",
"    -v         print the walk's statistics (pages, unreadable, time) and",
"               what read the dump: its file through libkdumpfile (the CLI's",
"               reader, with its threads) or crash's readmem(), and why.",
"",
"  FILE, BASE and NEW are snapshot files written by this command or by",
"  \"memmapcheck snapshot -o FILE VMLINUX DUMP\".  Errors name the file and",
"  the address involved; the session continues after any of them.  Each",
"  subcommand takes only the options shown for it.  -o never replaces a",
"  device, FIFO, directory, symbolic link, the dump or the vmlinux.",
"",
"  ^C stops a walk between windows of a few thousand pages and drops what",
"  it had read; the next command walks the dump again and gives the same",
"  answer.  Output cut by ^C or a closed pipe leaves nothing behind.",
"\nEXAMPLE",
"  Take a snapshot of the dump crash has open (a Debian 6.1 kernel, second",
"  boot); the walk happens once per session, later commands reuse it:\n",
"    crash> memmapcheck snapshot -o /tmp/b2.snap",
"    memmapcheck: crash:6.1-stock-b2.kdump: 507904 struct pages in 9 ranges, 0 unreadable, 0 unmapped, 6 never initialised; 0.02 s (20.9 M pages/s)",
"    memmapcheck: wrote /tmp/b2.snap: 507904 pages in 9 ranges, 568 runs",
"\n  Its pgmaps and ranges, and which pfns each kernel init path writes:\n",
"    crash> memmapcheck ranges",
"    GEOMETRY",
"      vmemmap_base fffff58100000000  page_offset_base ffff8c8f80000000  vmalloc_base ffffcfcc40000000",
"      bases from: the kernel's vmemmap_base/page_offset_base/vmalloc_base variables",
"      paging: 4 levels, from VMCOREINFO NUMBER(pgtable_l5_enabled)",
"",
"    PGMAPS",
"        #  DEV_PAGEMAP       TYPE                             FLAGS  SHIFT  NR_RANGE  ALTMAP       RESERVE      FREE     ALIGN     ALLOC  OWNER",
"        0  ffff8c9053b660c0  MEMORY_DEVICE_GENERIC                0      9         1  -                  -         -         -         -  NULL",
"        1  ffff8c9053b66300  MEMORY_DEVICE_GENERIC                0      0         1  -                  -         -         -         -  NULL",
"        2  ffff8c9053b663c0  MEMORY_DEVICE_GENERIC                0      9         1  -                  -         -         -         -  NULL",
"        3  ffff8c9053b66600  MEMORY_DEVICE_GENERIC              0x1      9         1  0x28000            2      1022       510       512  NULL",
"        4  ffff8c9053b66a80  MEMORY_DEVICE_GENERIC              0x1      0         1  0x30000            2      1022       510       512  NULL",
"        5  ffff8c8f899c74b0  MEMORY_DEVICE_FS_DAX                 0      0         1  -                  -         -         -         -  obj#0(direct)",
"        6  ffff8c9053b66b40  MEMORY_DEVICE_GENERIC                0     18         1  -                  -         -         -         -  NULL",
"        7  ffff8c8f899c76b0  MEMORY_DEVICE_FS_DAX               0x1      0         1  0xc0000            2      1022       510       512  obj#2(direct)",
"        8  ffff8c8f899c72b0  MEMORY_DEVICE_FS_DAX                 0      0         1  -                  -         -         -         -  obj#3(direct)",
"",
"    RANGES",
"        #  START_PFN   END_PFN        PAGES  PGMAP  RANGE  VMEMMAP            RESERVE    ALTMAP    DEVICE",
"        0  0x14000     0x18000        16384      0      0  fffff58100500000         0         0     16384",
"        1  0x18000     0x20000        32768      1      0  fffff58100600000         0         0     32768",
"        2  0x20000     0x28000        32768      2      0  fffff58100800000         0         0     32768",
"        3  0x28000     0x30000        32768      3      0  fffff58100a00000         2      1022     31744",
"           reserve pfns 0x28000-0x28002 (never written)",
"           altmap pfns  0x28002-0x28400 (memmap_init_range)",
"        4  0x30000     0x38000        32768      4      0  fffff58100c00000         2      1022     31744",
"           reserve pfns 0x30000-0x30002 (never written)",
"           altmap pfns  0x30002-0x30400 (memmap_init_range)",
"        5  0x38000     0x3f000        28672      5      0  fffff58100e00000         0         0     28672",
"        6  0x3f000     0x80000       266240      6      0  fffff58100fc0000         0         0    266240",
"        7  0xc0000     0xc8000        32768      7      0  fffff58103000000         2      1022     31744",
"           reserve pfns 0xc0000-0xc0002 (never written)",
"           altmap pfns  0xc0002-0xc0400 (memmap_init_range)",
"        8  0xc8000     0xd0000        32768      8      0  fffff58103200000         0         0     32768",
"",
"    DEVICE-DAX RANGES (dev_dax->ranges): read",
"        #  PGMAP  START_PFN   END_PFN        PAGES",
"        0      0  0x14200     0x18000        15872",
"        1      1  0x18200     0x20000        32256",
"        2      2  0x20200     0x28000        32256",
"        3      3  0x28400     0x30000        31744",
"        4      4  0x30400     0x38000        31744",
"        5      6  0x40000     0x80000       262144",
"",
"    HUGETLB POOLS (hstates[]): read",
"        #  HSTATE            NAME                ORDER        NR      FREE      RESV   SURPLUS  HVO",
"        0  ffffffffb91e3260  hugepages-1048576kB     18         0         0         0         0  no",
"        1  ffffffffb91ec228  hugepages-2048kB        9         0         0         0         0  no",
"",
"    MEMORY BLOCKS (memory_blocks): not read: the layout has no memory_block.altmap (no CONFIG_MEMORY_HOTPLUG, or an older layout file)",
"\n  The decoded struct pages of one range, as runs:\n",
"    crash> memmapcheck show -r 1",
"    RANGE 1: pfn 0x18000-0x20000 (32768 pages)  pgmap#1 MEMORY_DEVICE_GENERIC  vmemmap_shift 0  4 runs",
"      PFN RANGE                           ROLE     STAT  ZONE  NODE  HEAD        ORDER  PGMAP       REF   MAP  MAPPING            INDEX  PRIVATE       FLAGS",
"      pfn 0x18000-0x181ff (512 pages)     device   read     4     0  -               -  pgmap#1       1    -1  NULL                   0  NULL          PG_reserved",
"      pfn 0x18200 (1 page)                device   read     4     0  -               -  pgmap#1       1    -1  obj#5(direct)          0  NULL          PG_reserved",
"      pfn 0x18201-0x18203 (3 pages)       device   read     4     0  -               -  pgmap#1       1    -1  obj#5(direct)          1  NULL          PG_reserved",
"          varies: index +1 per page",
"      pfn 0x18204-0x1ffff (32252 pages)   device   read     4     0  -               -  pgmap#1       1    -1  NULL                   0  NULL          PG_reserved",
"      vmemmap: 512 pages, 0 mapping the frame of an earlier one; writable 512, read-only 0; PMD-mapped 512",
"\n  Compare with a snapshot of the first boot's dump, made by the CLI with",
"  \"memmapcheck snapshot -o /tmp/b1.snap vmlinux 6.1-stock-b1.kdump\"",
"  (pgmap and vmemmap addresses differ between the boots, the normalised",
"  struct pages do not):\n",
"    crash> memmapcheck diff /tmp/b1.snap",
"    identical: 507904 pages in 9 ranges, nothing unread (6 never-initialised altmap reserve pages not compared)",
"",
"        #  START_PFN   END_PFN        PAGES  COMPARED    DIFFER  UNREAD_A  UNREAD_B  NOT_INIT  VFRAMES  VERDICT     TYPE",
"        0  0x14000     0x18000        16384     16384         0         0         0         0        0  identical   devdax",
"        1  0x18000     0x20000        32768     32768         0         0         0         0        0  identical   devdax",
"        2  0x20000     0x28000        32768     32768         0         0         0         0        0  identical   devdax",
"        3  0x28000     0x30000        32768     32766         0         0         0         2        0  identical   devdax",
"        4  0x30000     0x38000        32768     32766         0         0         0         2        0  identical   devdax",
"        5  0x38000     0x3f000        28672     28672         0         0         0         0        0  identical   fsdax",
"        6  0x3f000     0x80000       266240    266240         0         0         0         0        0  identical   devdax",
"        7  0xc0000     0xc8000        32768     32766         0         0         0         2        0  identical   fsdax",
"        8  0xc8000     0xd0000        32768     32768         0         0         0         0        0  identical   fsdax",
"\n  Check the image against the kernel's own rules:\n",
"    crash> memmapcheck lint",
"    270275 violations in 4 rules (507904 pages in 9 ranges checked)",
"",
"      RULE                   PAGES",
"      head-cycle            266176",
"      head-align                 2",
"      head-frame                 1",
"      vmemmap-share           4096",
"",
"      RANGE  PFN RANGE                     PAGES  RULE            MESSAGE",
"          6  0x3f000                           1  head-align      head of an order-18 compound page at pfn 0x3f000, not a multiple of 0x40000 (memmap_init_zone_device() starts at 0x3f000)",
"          6  0x3f040-0x7ffff              266176  head-cycle      compound_head loops: 0x3f040 -> 0x7f000 -> 0x7f000",
"          6  0x7f000                           1  head-align      head of an order-18 compound page at pfn 0x7f000, not a multiple of 0x40000 (memmap_init_zone_device() starts at 0x3f000)",
"          6  0x7f000                           1  head-frame      head 0x7f000 lies in vmemmap page 4096, whose frame 0xd3be8000 4159 vmemmap pages map (first: vmemmap page 1)",
"          6  0x7f000-0x7ffff                4096  vmemmap-share   vmemmap page 4096 maps the frame of vmemmap page 1 (0xd3be8000, pfns 0x3f040-0x3f07f): shares a frame with another compound page, and a mapping of it is writable",
"",
"    THE RULES BROKEN (what must hold; where the kernel says so)",
"      head-cycle: compound_head never leads to a page that is itself a tail, or to itself",
"          _compound_head(): one step from a tail reaches a head",
"      head-align: a compound page's head pfn is a multiple of its size (naturally aligned, relative to pfn 0)",
"          section_nr_vmemmap_pages() (VM_WARN_ON_ONCE(!IS_ALIGNED(pfn, pages_per_compound))), _compound_head() mask form, split_large_buddy()",
"      head-frame: no head, page[1] or page[2] lies in a vmemmap frame shared with other vmemmap pages",
"          vmemmap_populate_compound_pages(): the head's vmemmap page is populated on its own, only tail pages are reused; prep_compound_head() writes page[1] and page[2]",
"      vmemmap-share: vmemmap frames are shared within one compound page, or across compound pages only read-only; never in order-0 pgmaps, never with an altmap",
"          vmemmap_populate_compound_pages(), vmemmap_can_optimize() (no altmap, compound pgmap), Documentation/mm/vmemmap_dedup.rst; vmemmap_remap_pte(): a tail frame shared across folios is mapped PAGE_KERNEL_RO",
NULL
};

/* crash keeps a pointer to this array for the whole session. */
static char *help[256];
static char synopsis[512];
static char list[64][80];

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The list lines of one subcommand: "    name       first line", then the
 * next lines under the first; returns the next free help slot. */
static size_t list_lines(const struct mmc_crash_subcommand_help *sc, size_t slot, size_t *nl)
{
	const char *line = sc->help;

	while (line && *nl < NELEM(list) && slot + 1 < NELEM(help)) {
		const char *end = strchr(line, '\n');
		int len = end ? (int)(end - line) : (int)strlen(line);

		snprintf(list[*nl], sizeof(list[0]), "    %-10s %.*s",
			 line == sc->help ? sc->name : "", len, line);
		help[slot++] = list[(*nl)++];
		line = end ? end + 1 : NULL;
	}
	return slot;
}

char **mmc_crash_help(const struct mmc_crash_subcommand_help *subs, size_t n)
{
	size_t slot = 0, len = 0, nl = 0, i;

	for (i = 0; i < NELEM(help_head); i++)
		help[slot++] = (char *)help_head[i];
	for (i = 0; i < n; i++)
		if (subs[i].usage)
			len += (size_t)snprintf(synopsis + len, sizeof(synopsis) - len,
						"%s%s %s", len ? "\n  memmapcheck " : "",
						subs[i].name, subs[i].usage);
	help[slot++] = synopsis;
	for (i = 0; i < NELEM(help_intro) && slot + 1 < NELEM(help); i++)
		help[slot++] = (char *)help_intro[i];
	for (i = 0; i < n; i++)
		slot = list_lines(&subs[i], slot, &nl);
	for (i = 0; help_tail[i] && slot + 1 < NELEM(help); i++)
		help[slot++] = (char *)help_tail[i];
	help[slot] = NULL;
	return help;
}
