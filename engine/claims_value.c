// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Claims files: numbers, the values of FROM -> TO as the diff prints them
 * (doc/CLAIMS.md), and the UTF-8 check of a line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims_int.h"
#include "rules.h"

/* A whole token as a signed or unsigned number (decimal, 0x hex). */
bool claim_parse_int(const char *s, int64_t *v)
{
	char *end;

	if (!*s || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	if (*s == '-') {
		long long x = strtoll(s, &end, 0);

		if (errno || *end || end == s)
			return false;
		*v = x;
		return true;
	}
	{
		unsigned long long x = strtoull(s, &end, 0);

		if (errno || *end || end == s)
			return false;
		*v = (int64_t)x;
	}
	return true;
}

bool claim_parse_u64(const char *s, uint64_t *v)
{
	int64_t x;

	if (*s == '-' || !claim_parse_int(s, &x))
		return false;
	*v = (uint64_t)x;
	return true;
}

static bool parse_off(const char *s, uint16_t *off)
{
	uint64_t v;

	if (!claim_parse_u64(s, &v) || v > 0xffff)
		return false;
	*off = (uint16_t)v;
	return true;
}

static const char *const words[] = {
	"device", "altmap", "reserve", "shared",		/* roles */
	"read", "not-init", "unreadable", "unmapped",		/* states */
	"devdax", "fsdax", "private", "coherent", "p2pdma",	/* pgmap.type */
	"free", "active", "none",				/* folio.list */
	"optimised", "plain", "unknown",			/* folio.vmemmap */
};

/* One value of FROM -> TO. */
bool claim_parse_value(const char *s, struct claim_value *cv)
{
	char buf[64], *plus;

	memset(cv, 0, sizeof(*cv));
	if (strlen(s) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", s);
	if (!strcmp(s, "*")) {
		cv->kind = CV_ANY;
		return true;
	}
	if (!strcmp(s, "NULL")) {
		cv->kind = CV_NULL;
		return true;
	}
	if (!strcmp(s, "clear") || !strcmp(s, "no") || !strcmp(s, "off") ||
	    !strcmp(s, "set") || !strcmp(s, "yes") || !strcmp(s, "on")) {
		cv->kind = CV_INT;
		cv->v = !strcmp(s, "set") || !strcmp(s, "yes") || !strcmp(s, "on");
		return true;
	}
	if (!strcmp(s, "TAIL_MAPPING") || !strcmp(s, "LIST_POISON1") || !strcmp(s, "LIST_POISON2")) {
		cv->kind = CV_POISON;
		cv->v = s[0] == 'T' ? MMC_POISON_TAIL_MAPPING :
			s[11] == '1' ? MMC_POISON_LIST1 : MMC_POISON_LIST2;
		return true;
	}
	if (!strncmp(s, "POISON+", 7)) {
		cv->kind = CV_POISON;
		return claim_parse_int(s + 7, &cv->v) && cv->v >= 0;
	}
	if (!strncmp(s, "self+", 5)) {
		cv->kind = CV_SELF;
		return parse_off(s + 5, &cv->off);
	}
	if (!strncmp(s, "page+", 5) || !strncmp(s, "page-", 5)) {
		/* page-3+1: delta -3, offset 1 */
		plus = strchr(buf + 5, '+');
		if (!plus)
			return false;
		*plus = 0;
		cv->kind = CV_PAGE;
		if (!claim_parse_int(buf + 5, &cv->v) || !parse_off(plus + 1, &cv->off))
			return false;
		if (s[4] == '-')
			cv->v = -cv->v;
		return true;
	}
	if (!strncmp(s, "pgmap#", 6)) {
		cv->kind = CV_PGMAP;
		plus = strchr(buf + 6, '+');
		if (plus) {
			*plus = 0;
			if (!parse_off(plus + 1, &cv->off))
				return false;
		}
		return claim_parse_int(buf + 6, &cv->v) && cv->v >= 0;
	}
	if (!strncmp(s, "obj#", 4)) {
		/* obj#3 or obj#3(direct), as the diff prints it */
		char *paren = strchr(buf + 4, '(');

		if (paren) {
			if (buf[strlen(buf) - 1] != ')')
				return false;
			*paren = 0;
		}
		cv->kind = CV_OBJ;
		return claim_parse_int(buf + 4, &cv->v) && cv->v >= 0;
	}
	if (claim_parse_int(s, &cv->v)) {
		cv->kind = CV_INT;
		return true;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(s, words[i])) {
			cv->kind = CV_WORD;
			snprintf(cv->word, sizeof(cv->word), "%s", s);
			return true;
		}
	}
	return false;
}

/* Valid UTF-8 (no overlong forms, no surrogates), no NUL. */
bool claim_utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char ch = s[i];
		size_t len, k;
		uint32_t cp;

		if (!ch)
			return false;
		if (ch < 0x80) {
			i++;
			continue;
		}
		if ((ch & 0xe0) == 0xc0)
			len = 2, cp = ch & 0x1f;
		else if ((ch & 0xf0) == 0xe0)
			len = 3, cp = ch & 0x0f;
		else if ((ch & 0xf8) == 0xf0)
			len = 4, cp = ch & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}
