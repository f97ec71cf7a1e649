/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot file writer's byte emitter (snapshot_file_write.c), shared
 * with the streaming writer (snapshot_file_stream.c).  Private to those
 * two.
 */
#ifndef MMC_SNAPSHOT_FILE_EMIT_H
#define MMC_SNAPSHOT_FILE_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"

struct emit {
	uint8_t *buf;		/* memory mode when f == NULL */
	size_t len, cap;
	FILE *f;
	uint64_t hash;
	uint64_t n;
	bool failed;
};

void put(struct emit *e, const void *p, size_t n);
void put_le(struct emit *e, uint64_t v, unsigned int bytes);
static inline void put_u8(struct emit *e, uint64_t v) { put_le(e, v, 1); }
static inline void put_u16(struct emit *e, uint64_t v) { put_le(e, v, 2); }
static inline void put_u32(struct emit *e, uint64_t v) { put_le(e, v, 4); }
static inline void put_u64(struct emit *e, uint64_t v) { put_le(e, v, 8); }
void put_str(struct emit *e, const char *s);
void put_nval(struct emit *e, const struct mmc_nval *v);
void put_section(struct emit *out, const char tag[4], const struct emit *body);
void emit_info(struct emit *e, const struct mmc_snapshot_info *in);
void emit_geom(struct emit *e, const struct mmc_geom *g);
void emit_discovery(struct emit *e, const struct mmc_snapshot *snap);
void emit_pgmaps(struct emit *e, const struct mmc_snapshot *snap);
/* Version 5: the HUGE and HPLG sections' payloads. */
void emit_hugetlb(struct emit *e, const struct mmc_snapshot *snap);
void emit_hotplug(struct emit *e, const struct mmc_snapshot *snap);
struct mmc_error *emit_layout(struct emit *e, const struct mmc_snapshot *snap);
void emit_range_header(struct emit *e, const struct mmc_srange *r, uint64_t np,
		       uint64_t nv);
/* Page / vframe patterns [from, to) of range i. */
void emit_page_patterns(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			size_t from, size_t to);
void emit_vframe_patterns(struct emit *e, const struct mmc_snapshot *snap, size_t i,
			  size_t from, size_t to);

#endif
