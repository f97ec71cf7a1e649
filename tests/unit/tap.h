/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP producer for the C unit tests (run by prove). */
#ifndef MMC_TAP_H
#define MMC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int tap_n, tap_failed;

/*
 * A stopwatch of this process's CPU time, for the speed bounds some tests
 * keep: on a loaded machine (CI runs two suites side by side on 2 cores)
 * wall time is mostly waiting for a core, and a bound on it fails for
 * nothing; the code these bounds guard runs on one thread.
 */
static inline struct timespec tap_cpu_start(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t;
}

static inline double tap_cpu_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * A speed bound in CPU seconds for this build.  The bounds guard the
 * algorithm (work per run of identical pages, not per page), measured on
 * the normal build; ASan and UBSan instrumentation costs that code a few
 * times over, and check-san says so with MMC_SANITIZED.
 */
static inline double tap_cpu_limit(double normal_secs)
{
	const char *san = getenv("MMC_SANITIZED");

	return san && *san && *san != '0' ? normal_secs * 5 : normal_secs;
}

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
