/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot file reader's cursor and primitives, shared by
 * snapshot_file_read.c (the file and its head sections),
 * snapshot_file_read_ranges.c (the ranges) and snapshot_file_read_pools.c
 * (version 5's HugeTLB and hot-plug sections).  Private to the reader.
 * Every primitive does nothing once r->err is set; the first error wins.
 */
#ifndef MMC_SNAPSHOT_FILE_CURSOR_H
#define MMC_SNAPSHOT_FILE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"
#include "snapshot.h"

/* The file's bytes: all in memory (p), or read through a window (fd). */
#define WIN_SIZE (256u << 10)

struct rd {
	const uint8_t *p;
	int fd;
	uint8_t *win;
	uint64_t win_off, win_len;
	uint64_t size;
	uint64_t end;		/* current limit (section end) */
	uint64_t pos;
	uint32_t version;
	const char *path;
	struct mmc_error *err;
};

/* Set r->err to an input error at byte offset off (unless one is set). */
struct mmc_error *rd_bad(struct rd *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const uint8_t *rd_bytes(struct rd *r, uint64_t pos, uint64_t n);
bool rd_need(struct rd *r, uint64_t n, const char *what);
uint64_t rd_get_le(struct rd *r, unsigned int n, const char *what);
static inline uint8_t get_u8(struct rd *r, const char *w) { return (uint8_t)rd_get_le(r, 1, w); }
static inline uint16_t get_u16(struct rd *r, const char *w) { return (uint16_t)rd_get_le(r, 2, w); }
static inline uint32_t get_u32(struct rd *r, const char *w) { return (uint32_t)rd_get_le(r, 4, w); }
static inline uint64_t get_u64(struct rd *r, const char *w) { return rd_get_le(r, 8, w); }
/* A str into dst[size]: longer, or with a NUL inside, is an error. */
void rd_get_str(struct rd *r, char *dst, size_t size, const char *what);
/* An nval (class, region, offset, value, raw), its class and region in
 * range and a raw slot's value its raw. */
void rd_get_nval(struct rd *r, struct mmc_nval *v, const char *what);
/* Enter section `tag`: sets r->end to its end.  Returns its end. */
uint64_t rd_section(struct rd *r, uint64_t file_end, const char tag[4]);
void rd_section_done(struct rd *r, const char tag[4]);
/* err (consumed) as the file's error at off. */
struct mmc_error *rd_wrap(struct rd *r, uint64_t off, struct mmc_error *err);

/* snapshot_file_read_ranges.c: the RNGS section's contents. */
void rd_parse_ranges(struct rd *r, struct mmc_snapshot *snap);
/* snapshot_file_read_pools.c: the HUGE and HPLG sections (version 5; an
 * older file's snapshot says why it has none) */
void rd_parse_pools(struct rd *r, uint64_t file_end, struct mmc_snapshot *snap);

#endif
