/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the dump extent checks (mem_extent.h): the file as read, the
 * damage found, and the helpers the format checkers share
 * (mem_extent.c: kdump-compressed and flattened; mem_extent_elf.c: ELF
 * program headers and notes).
 */
#ifndef MMC_MEM_EXTENT_INT_H
#define MMC_MEM_EXTENT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"

struct span {
	uint64_t start, end;	/* [start, end) */
	uint8_t reason;		/* physical damage spans only */
};

/* The bytes of the dump that exist: all of [0, size), or a flattened
 * dump's segments. */
struct extent {
	int fd;
	const char *path;
	uint64_t size;
	struct span *cov;	/* sorted, merged; NULL: all present */
	size_t ncov;
	bool flattened;
};

struct mmc_dump_damage {
	uint32_t page_size;
	uint64_t npfns;		/* kdump-compressed: bitmaps over [0, npfns) */
	uint64_t *trunc, *corrupt;
	struct span *spans;	/* ELF: physical ranges */
	size_t nspans;
};

/*
 * No file is larger (2^62 bytes): an offset or an end past it is damage
 * of the field that holds it, not a file cut short, and is never printed
 * as what a file would "need".
 */
#define DX_MAX_FILE	(1ULL << 62)

/* Bytes of the dump present from off, at most len. */
uint64_t dx_present(const struct extent *e, uint64_t off, uint64_t len);
struct mmc_error *dx_read_at(const struct extent *e, void *buf, size_t len,
			     uint64_t off, const char *what);
/* "the file is M bytes" or "its flattened segments hold C of the M bytes". */
const char *dx_size_phrase(const struct extent *e, char *buf, size_t n);
struct mmc_error *dx_truncated(const struct extent *e, uint64_t need, const char *what);
/* *d allocated if it is not yet. */
struct mmc_error *dx_damage_new(struct mmc_dump_damage **d, uint32_t page_size);
/* A physical range [start, end) unreadable for reason. */
struct mmc_error *dx_add_span(struct mmc_dump_damage *d, uint64_t start, uint64_t end,
			      uint8_t reason);
/* The notes at [off, off + size): refuse those libkdumpfile fails on part-way. */
struct mmc_error *dx_check_notes(const struct extent *e, uint64_t off, uint64_t size,
				 const char *what);
/* An x86_64 ELF dump: program headers, notes, segments. */
struct mmc_error *dx_check_elf(const struct extent *e, struct mmc_mem *mem,
			       struct mmc_dump_damage **d);

#endif
