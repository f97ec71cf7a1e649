/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside claims: a parsed claims file, as claims.c builds it and
 * diff_claims.c binds it to two images and matches differences with it.
 */
#ifndef MMC_CLAIMS_INT_H
#define MMC_CLAIMS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "claims.h"

/*
 * Page roles (`pages`).  Exactly one kind per struct page: an altmap
 * reserve or memmap pfn by the snapshot's role, else what the base page is
 * in its compound page (head and order-0 told apart by PG_head).
 * shared-frame is on top of the kind: the snapshot's role "shared" (a tail
 * whose vmemmap page maps a frame another vmemmap page maps too).
 */
enum claim_role {
	CR_HEAD = 1u << 0,
	CR_PAGE1 = 1u << 1,
	CR_PAGE2 = 1u << 2,
	CR_TAIL = 1u << 3,	/* page[3] and beyond */
	CR_ORDER0 = 1u << 4,
	CR_ALTMAP = 1u << 5,	/* memmap_init_range() pfns holding the memmap */
	CR_RESERVE = 1u << 6,	/* altmap reserve, never written */
	CR_SHARED = 1u << 7,	/* vmemmap page shares its frame */
	CR_ANY = 0xffu,
};

/* "head", "page1", ...; NULL for an unknown bit. */
const char *claim_role_name(unsigned int bit);

/* Keys of `where`. */
enum claim_key {
	CK_TYPE,	/* alternatives: index into the memory type table (rules.h) */
	CK_SHIFT,	/* [lo, hi] inclusive */
	CK_ALTMAP,	/* lo: 0 no, 1 yes */
	CK_FLAGS,	/* lo: mask whose bits must all be set */
	CK_RANGE,	/* lo: the diff's range number */
	CK_PFN,		/* [lo, hi) */
	CK_KIND,	/* alternatives: enum mmc_range_kind */
	CK_ORDER,	/* [lo, hi] inclusive: the compound order of the range's folios */
};

struct claim_alt {
	uint64_t lo, hi;
};

/* One KEY=VALUE[,VALUE...] of a where line: any alternative matches. */
struct claim_clause {
	enum claim_key key;
	unsigned int line;
	size_t nalt;
	struct claim_alt *alt;
};

/* A value of FROM -> TO, as the diff prints decoded values. */
enum claim_vkind {
	CV_ANY,		/* "*" */
	CV_INT,		/* 12, 0x1c, -1; also clear/set/no/yes/off/on (0/1) */
	CV_NULL,
	CV_POISON,	/* TAIL_MAPPING, LIST_POISON1/2, POISON+0xN: v = offset */
	CV_SELF,	/* self+OFF */
	CV_PAGE,	/* page+D+OFF, page-D+OFF */
	CV_PGMAP,	/* pgmap#I, pgmap#I+OFF */
	CV_OBJ,		/* obj#K */
	CV_WORD,	/* a name: role (device, altmap, reserve, shared),
			 * state (read, not-init), a HugeTLB folio's list
			 * (free, active, none) or vmemmap (optimised, plain) */
};

struct claim_value {
	enum claim_vkind kind;
	int64_t v;
	uint16_t off;
	char word[16];
};

struct claim_field {
	char name[MMC_CLAIMS_NAME_MAX];
	unsigned int line;
	bool has_values;
	struct claim_value from, to;
	char values[48];	/* "FROM -> TO" as written (cut), for reports */
};

/* Most fields a `together` claim may have (a bit mask per page). */
#define CLAIM_TOGETHER_MAX 64

struct claim {
	char name[MMC_CLAIMS_NAME_MAX];
	unsigned int line;
	char *reason;		/* reason lines joined; NULL if none */
	unsigned int pages;	/* enum claim_role bits; CR_ANY without a pages line */
	unsigned int pages_line;	/* 0: no pages line */
	/* `together`: the claim covers a page (or a vmemmap page) only where
	 * every one of its fields differs there as claimed */
	unsigned int together_line;	/* 0: no together line */
	size_t nclauses;
	struct claim_clause *clauses;
	size_t nfields;
	struct claim_field *fields;
};

struct mmc_claims {
	char *path;
	size_t n;
	struct claim *claim;
};

/* claims_value.c */
/* A whole token as a number: decimal or 0x hex, signed or unsigned. */
bool claim_parse_int(const char *s, int64_t *v);
bool claim_parse_u64(const char *s, uint64_t *v);
/* One value of FROM -> TO; false if s is none. */
bool claim_parse_value(const char *s, struct claim_value *cv);
/* Valid UTF-8 (no overlong forms, no surrogates) and no NUL byte. */
bool claim_utf8_ok(const unsigned char *s, size_t n);

/* Field names that name a group of fields, not one (CLAIMS.md). */
bool claim_field_is_group(const char *name);
/* Fields that are not of one struct page: `pages` does not apply to them. */
bool claim_field_is_vmemmap(const char *name);
bool claim_field_is_range_level(const char *name);	/* range, pgmap.*, pools */
/* The pgmap.<member> names the diff reports (diff_pgmap.c). */
bool claim_pgmap_member_known(const char *member);
/* hstate.*, folio.*, memblock.*: what diff_pools.c reports of the HugeTLB
 * pools and memory blocks (the group `pools` names them all). */
bool claim_pool_field_known(const char *name);
bool claim_field_is_pool(const char *name);	/* those prefixes, or `pools` */

#endif
