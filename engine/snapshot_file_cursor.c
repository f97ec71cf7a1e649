// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot files, the reader's cursor and primitives
 * (snapshot_file_cursor.h): bytes through a window, bounded little-endian
 * fields and strings, sections, errors that name the file and the byte
 * offset.
 */
#include "snapshot_file_cursor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "snapshot_file_format.h"

struct mmc_error *rd_bad(struct rd *r, uint64_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->err = mmc_error_create(MMC_ERR_INPUT, r->path, "byte offset %llu: %s",
				  (unsigned long long)off, msg);
	return r->err;
}

/* Bytes [pos, pos + n) of the file, n <= WIN_SIZE, inside it; NULL (and
 * r->err) when they cannot be read. */
const uint8_t *rd_bytes(struct rd *r, uint64_t pos, uint64_t n)
{
	uint64_t len;
	size_t got = 0;

	if (r->p)
		return r->p + pos;
	if (pos >= r->win_off && pos + n <= r->win_off + r->win_len)
		return r->win + (pos - r->win_off);
	len = r->size - pos < WIN_SIZE ? r->size - pos : WIN_SIZE;
	while (got < len) {
		ssize_t k = pread(r->fd, r->win + got, len - got, (off_t)(pos + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!r->err)
				r->err = mmc_error_os(k < 0 ? errno : EIO, r->path,
						      "read at byte offset %llu",
						      (unsigned long long)(pos + got));
			r->win_len = 0;
			return NULL;
		}
		got += (size_t)k;
	}
	r->win_off = pos;
	r->win_len = len;
	return r->win;
}

bool rd_need(struct rd *r, uint64_t n, const char *what)
{
	if (r->err)
		return false;
	if (n > r->end - r->pos) {
		rd_bad(r, r->pos, "truncated %s: need %llu bytes, %llu left in section",
		    what, (unsigned long long)n, (unsigned long long)(r->end - r->pos));
		return false;
	}
	return true;
}

uint64_t rd_get_le(struct rd *r, unsigned int n, const char *what)
{
	const uint8_t *b;
	uint64_t v = 0;
	unsigned int i;

	if (!rd_need(r, n, what) || !(b = rd_bytes(r, r->pos, n)))
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)b[i] << (8 * i);
	r->pos += n;
	return v;
}


void rd_get_str(struct rd *r, char *dst, size_t size, const char *what)
{
	const uint8_t *b;
	uint64_t at = r->pos;
	uint32_t n = get_u32(r, what);

	dst[0] = 0;
	if (r->err)
		return;
	if (n >= size) {
		rd_bad(r, at, "%s: length %u exceeds %zu", what, n, size - 1);
		return;
	}
	if (!rd_need(r, n, what) || !(b = rd_bytes(r, r->pos, n)))
		return;
	if (memchr(b, 0, n)) {
		rd_bad(r, r->pos, "%s: NUL inside the string", what);
		return;
	}
	memcpy(dst, b, n);
	dst[n] = 0;
	r->pos += n;
}

void rd_get_nval(struct rd *r, struct mmc_nval *v, const char *what)
{
	uint64_t at = r->pos;

	v->cls = get_u8(r, what);
	v->region = get_u8(r, what);
	v->off = get_u16(r, what);
	v->v = (int64_t)get_u64(r, what);
	v->raw = get_u64(r, what);
	if (r->err)
		return;
	if (v->cls > MMC_V_OBJ)
		rd_bad(r, at, "%s: value class %u out of range", what, v->cls);
	else if (v->region > MMC_R_MMID)
		rd_bad(r, at + 1, "%s: region %u out of range", what, v->region);
	else if (v->cls == MMC_V_RAW && (uint64_t)v->v != v->raw)
		rd_bad(r, at + 4, "%s: raw slot whose value differs from raw", what);
}

/* Enter section `tag`: sets r->end to its end.  Returns its end. */
uint64_t rd_section(struct rd *r, uint64_t file_end, const char tag[4])
{
	uint64_t at = r->pos, len;
	const uint8_t *b;

	r->end = file_end;
	if (!rd_need(r, SEC_HDR, "section header") || !(b = rd_bytes(r, r->pos, 4)))
		return 0;
	if (memcmp(b, tag, 4) != 0) {
		rd_bad(r, at, "expected section '%.4s'", tag);
		return 0;
	}
	r->pos += 4;
	len = get_u64(r, "section length");
	if (r->err)
		return 0;
	if (len > file_end - r->pos) {
		rd_bad(r, at + 4, "section '%.4s' length %llu exceeds the %llu bytes left",
		    tag, (unsigned long long)len, (unsigned long long)(file_end - r->pos));
		return 0;
	}
	r->end = r->pos + len;
	return r->end;
}

void rd_section_done(struct rd *r, const char tag[4])
{
	if (!r->err && r->pos != r->end)
		rd_bad(r, r->pos, "%llu unparsed bytes at the end of section '%.4s'",
		    (unsigned long long)(r->end - r->pos), tag);
}

struct mmc_error *rd_wrap(struct rd *r, uint64_t off, struct mmc_error *err)
{
	if (!err)
		return NULL;
	if (!r->err) {
		rd_bad(r, off, "%s", err->message);
		mmc_error_destroy(err);
	} else {
		mmc_error_destroy(err);
	}
	return r->err;
}
