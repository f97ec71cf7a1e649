/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The crash front end's own interfaces between its four files.  Only the
 * crash-ext .c files include crash's defs.h; this header names engine types
 * only, so it can be included before defs.h.
 */
#ifndef MMC_CRASH_EXT_H
#define MMC_CRASH_EXT_H

#include <stdio.h>

#include "kernel.h"
#include "layout.h"
#include "mem.h"
#include "mmc_error.h"

/*
 * crash_layout.c: a layout resolved from crash's (gdb's) type information
 * and symbol table, the same table (mmc_member_specs[] and friends) with the
 * same fallback chains as the DWARF provider, symbols as link-time
 * addresses; and the KASLR offset and phys_base crash knows, as hints for
 * mmc_kernel_create().  Complete (mmc_layout_check passed) or an error.
 */
struct mmc_error *mmc_crash_layout(struct mmc_layout **out,
				   struct mmc_kernel_hints *hints);

/* One member path of one struct, resolved as above (debugging aid). */
struct mmc_error *mmc_crash_member(const char *type, const char *path,
				   struct mmc_member *m);

/*
 * crash_mem.c: a memory source over crash's readmem(), with the dump's
 * VMCOREINFO when crash has it (NULL otherwise).  Pages crash cannot read
 * are MMC_ERR_NODATA with their address, never zeros: crash's
 * "zero_excluded" setting is switched off for the duration of each read.
 */
struct mmc_error *mmc_crash_mem_open(struct mmc_mem **out);

/*
 * crash_reader.c: the memory source of the dump crash has open.  Physical
 * reads through the engine's libkdumpfile reader on that file (threads of
 * their own) when crash has a dump file open that libkdumpfile reads, else
 * everything through readmem() (above); kernel virtual reads always
 * through readmem().  Name, VMCOREINFO and page size are crash's on both
 * paths.
 */
struct mmc_error *mmc_crash_reader_open(struct mmc_mem **out);

/*
 * Which path a source from mmc_crash_reader_open() reads, and why, and
 * with how many threads its last walk read (a phrase, valid until the next
 * call).
 */
const char *mmc_crash_reader_describe(const struct mmc_mem *mem);

/* readmem() calls made by the memory source since load (for the bench). */
unsigned long long mmc_crash_mem_reads(void);

/*
 * crash_help.c: "help memmapcheck" as crash's help[] (name, one line,
 * synopsis, then one line each), its SYNOPSIS and subcommand list built
 * from the subcommand table: a subcommand's usage after its name (NULL:
 * hidden), its help lines with '\n' between them.  The array is static:
 * crash keeps it for the session.
 */
struct mmc_crash_subcommand_help {
	const char *name, *usage, *help;
};
char **mmc_crash_help(const struct mmc_crash_subcommand_help *subs, size_t n);

#endif
