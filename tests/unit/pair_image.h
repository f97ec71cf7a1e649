/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The base image of the snapshot pairs test_diff and the claims tests
 * (claims_pair.h) build by hand: what the kernel writes into each struct
 * page (6.12-like, 64 bytes a page) of two ranges, R1 device-dax in 2 MiB
 * compound pages and R2 order-0 pages whose first 8 pfns are the
 * never-initialised altmap reserve.  A test mutates these records for its
 * other image.
 */
#ifndef MMC_TEST_PAIR_IMAGE_H
#define MMC_TEST_PAIR_IMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hand_snapshot.h"

#define ZONE_BITS (4ULL << 61)
#define PG_RESERVED (1ULL << 13)
#define PG_HEAD (1ULL << 6)
#define DELTA 0xdead000000000000ULL

#define R1_START 0x100000ULL	/* devdax 2M compound: 8 compound pages */
#define R1_PAGES 4096ULL
#define R2_START 0x140000ULL	/* order-0, 8 reserve pfns first */
#define R2_PAGES 1024ULL

/*
 * The record at pfn, the vmemmap at vbase (another boot: another base).
 * head_obj: each head's slot 5 (zone_device_data) points at an object in
 * the direct map, for the tests of object pairing.
 */
static inline void pair_image_rec(uint64_t vbase, uint64_t pfn, bool head_obj,
				  struct mmc_nrec *r)
{
	memset(r, 0, sizeof(*r));
	r->nslots = 8;
	for (unsigned int i = 0; i < 8; i++)
		r->slot[i] = nv(MMC_V_NULL, 0, 0, 0);
	if (pfn >= R1_START && pfn < R1_START + R1_PAGES) {
		uint64_t k = (pfn - R1_START) % 512, head = pfn - k;

		if (k == 0) {
			r->slot[0] = raw(ZONE_BITS | PG_RESERVED | PG_HEAD);
			r->slot[1] = nv(MMC_V_PGMAP, 0, 0, vbase ^ 0x123000);
			if (head_obj) {
				r->slot[5] = nv(MMC_V_OBJ, 0, 0, vbase ^ 0x456000);
				r->slot[5].region = MMC_R_DIRECT;
			}
			r->slot[6] = raw(0x1ffffffffULL);
			return;
		}
		r->slot[0] = raw(ZONE_BITS | PG_RESERVED | (k == 1 ? 9 : 0));
		r->slot[1] = nv(MMC_V_PAGE, 1, -(int64_t)k, vbase + head * 64 + 1);
		if (k == 1) {
			r->slot[2] = raw(0xffffffffffffffffULL);
			r->slot[4] = raw(512);
		} else if (k == 2) {
			r->slot[2] = nv(MMC_V_SELF, 16, 0, vbase + pfn * 64 + 16);
			r->slot[3] = nv(MMC_V_SELF, 16, 0, vbase + pfn * 64 + 16);
		} else {
			r->slot[3] = nv(MMC_V_POISON, 0, 0x400, DELTA + 0x400);
		}
		r->slot[6] = raw(0xffffffffULL);
		return;
	}
	{
		uint64_t k = pfn - R2_START;

		if (k < 8) {
			r->state = MMC_PS_NOT_INIT;
			r->role = MMC_ROLE_RESERVE;
			r->slot[0] = raw(0x1234 + k * 3);
			return;
		}
		r->slot[0] = raw(ZONE_BITS | PG_RESERVED);
		r->slot[1] = nv(MMC_V_PGMAP, 0, 1, vbase ^ 0x789000);
		r->slot[4] = raw(5);
		r->slot[6] = raw(0x1ffffffffULL);
	}
}

#endif
