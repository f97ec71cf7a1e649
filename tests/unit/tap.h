/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP producer for the C unit tests (run by prove). */
#ifndef MMC_TAP_H
#define MMC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n) { printf("1..%d\n", n); }

static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

/* Call last: "1..N" when no plan was printed, exit status = failures. */
static inline int tap_done(void)
{
	if (tap_n == 0 || tap_failed)
		fflush(stdout);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#define TAP_EQ_U64(a, b, what) \
	tap_ok((unsigned long long)(a) == (unsigned long long)(b), \
	       "%s: 0x%llx == 0x%llx", (what), (unsigned long long)(a), \
	       (unsigned long long)(b))

#endif
