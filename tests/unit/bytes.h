/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bytes of the binary inputs the unit tests and fuzz targets build or
 * damage (struct pages, page-table entries, dump headers, snapshot and
 * layout files): little-endian integers, written and read byte by byte so
 * that a buffer is the same on any host, and the FNV-1a 64 checksum those
 * files carry.  The checksum is computed here, not by the engine's
 * mmc_fnv1a(), so that a test re-sealing a damaged file does not lean on
 * the code it checks.
 */
#ifndef MMC_TEST_BYTES_H
#define MMC_TEST_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* The low `bytes` bytes of v at p, least significant first (bytes <= 8). */
static inline void le_put(uint8_t *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void le_put64(uint8_t *p, uint64_t v)
{
	le_put(p, v, 8);
}

static inline void le_put32(uint8_t *p, uint32_t v)
{
	le_put(p, v, 4);
}

/* The `bytes`-byte little-endian integer at p (bytes <= 8). */
static inline uint64_t le_get(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline uint64_t le_get64(const uint8_t *p)
{
	return le_get(p, 8);
}

static inline uint64_t fnv1a64(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * A snapshot file ends with the FNV-1a 64 of the bytes before it: write it
 * anew after an edit, so that the structural checks, not the checksum,
 * meet the damage.  n must be at least 8.
 */
static inline void snapshot_reseal(uint8_t *b, size_t n)
{
	le_put64(b + n - 8, fnv1a64(b, n - 8));
}

#endif
