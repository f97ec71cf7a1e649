/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Errors of the memmapcheck engine.
 *
 * Fallible engine functions return a struct mmc_error pointer: NULL on success,
 * otherwise an object the caller owns and must release with mmc_error_destroy().
 * An error names what failed: a code, the file involved, and the address when
 * one is known, so front ends can print "vmcore: 0xffffea0004000000: ...".
 * Errors of foreign libraries are wrapped at the boundary with the call that
 * failed, e.g. "kdump_read(0x...): <libkdumpfile's message>".
 */
#ifndef MMC_ERROR_H
#define MMC_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum mmc_error_code {
	MMC_ERR_USAGE = 1,	/* bad arguments from the user */
	MMC_ERR_INPUT,		/* unusable input file (format, truncated) */
	MMC_ERR_MISMATCH,	/* vmlinux/layout does not match the dump */
	MMC_ERR_NODATA,		/* memory the dump lacks (filtered, absent) */
	MMC_ERR_CORRUPT,	/* kernel data that cannot be right */
	MMC_ERR_LAYOUT,		/* a type/member/symbol the engine needs is missing */
	MMC_ERR_OS,		/* a system call failed (errnum set) */
	MMC_ERR_NOMEM,
	MMC_ERR_INTERNAL,	/* a bug in memmapcheck */
	MMC_ERR_INTERRUPTED,	/* the caller asked to stop (mmc_walk_opts.cancel) */
};

/*
 * Why memory could not be read (for MMC_ERR_NODATA), kept with every
 * unreadable struct page and vmemmap frame of a snapshot.  A damaged dump
 * is an input fact, told apart from a dump that never held the page.
 */
enum mmc_unread_reason {
	MMC_UR_NONE = 0,	/* not unreadable (or not an unreadable-memory error) */
	MMC_UR_ABSENT,		/* the dump does not hold it: filtered out by
				 * makedumpfile, not captured (a kdump has no
				 * map=dev struct pages), outside every segment */
	MMC_UR_TRUNCATED,	/* the dump declares it, but its data lies past
				 * the end of the file (or of a flattened dump's
				 * segments) */
	MMC_UR_CORRUPT,		/* its data is in the file but does not decode:
				 * bad compressed data, a page descriptor that
				 * makes no sense */
	MMC_UR_UNKNOWN,		/* unreadable, reason not recorded (snapshot
				 * files of version 1) */
};
#define MMC_UR_MAX MMC_UR_UNKNOWN
/* "absent", "truncated", "corrupt", "unknown" ("" for NONE). */
const char *mmc_unread_reason_name(enum mmc_unread_reason reason);

struct mmc_error {
	enum mmc_error_code code;
	int errnum;		/* errno, when code == MMC_ERR_OS; else 0 */
	char *path;		/* file involved, or NULL */
	bool has_address;
	uint64_t address;	/* kernel or physical address involved */
	char *message;		/* what failed, without path/address prefix */
	uint8_t reason;		/* enum mmc_unread_reason, for MMC_ERR_NODATA */
};

struct mmc_error *mmc_error_create(enum mmc_error_code code, const char *path,
				   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct mmc_error *mmc_error_at(enum mmc_error_code code, const char *path,
			       uint64_t address, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
struct mmc_error *mmc_error_vcreate(enum mmc_error_code code, const char *path,
				    bool has_address, uint64_t address,
				    const char *fmt, va_list ap);
/* MMC_ERR_NODATA at address with a reason (enum mmc_unread_reason). */
struct mmc_error *mmc_error_nodata(const char *path, uint64_t address,
				   enum mmc_unread_reason reason,
				   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* MMC_ERR_OS with errno captured; message is e.g. "open" or "pread". */
struct mmc_error *mmc_error_os(int errnum, const char *path,
			       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Shared object for allocation failures: never NULL, destroy is a no-op. */
struct mmc_error *mmc_error_nomem(void);
/* Prefix the message with more context ("reading pgmap 2: ..."). Returns err. */
struct mmc_error *mmc_error_prefix(struct mmc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append to the message ("...: Wrong page size: 0 (dump truncated: ...)"). */
struct mmc_error *mmc_error_suffix(struct mmc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mmc_error_destroy(struct mmc_error *err);

/* "path: 0xaddr: message" (parts absent are left out). */
void mmc_error_fprint(FILE *out, const struct mmc_error *err);
/* Malloc'd string of the same; NULL on allocation failure. */
char *mmc_error_string(const struct mmc_error *err);
/* CLI exit code: 2 usage/input/mismatch/layout/corrupt/os, 4 nodata, 3 others. */
int mmc_error_exit_code(const struct mmc_error *err);
const char *mmc_error_code_name(enum mmc_error_code code);

#endif
