/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A whole file read into memory, or its size, for the tests that check what
 * was written. */
#ifndef MMC_TEST_SLURP_H
#define MMC_TEST_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/*
 * The bytes of path in a malloc()ed buffer with a NUL after them (so that
 * a text file is a string), their count in *n when n is not NULL; NULL when
 * the file cannot be read.
 */
static inline char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	if (n)
		*n = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)len + 1))) {
		if (fread(buf, 1, (size_t)len, f) == (size_t)len) {
			buf[len] = 0;
			if (n)
				*n = (size_t)len;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* The size of path in bytes; 0 when it cannot be opened. */
static inline size_t file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n < 0 ? 0 : (size_t)n;
}

#endif
