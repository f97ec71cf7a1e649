/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Claims files: what a patch is meant to change between a base image (a)
 * and a patched one (b), so that a diff can answer "different exactly as
 * claimed" (doc/CLAIMS.md has the grammar; cli/memmapcheck.1 a summary).
 *
 *   memmapcheck-claims 1
 *   claim tail-refcount
 *       reason set_page_count(page, 0) dropped from the tail template
 *       where type=devdax shift=9,18
 *       pages page1,page2,tail,shared-frame
 *       field _refcount 0 -> 1
 *
 * A file is parsed on its own (mmc_claims_load()); the names of its fields
 * are checked against the two images when a diff binds it to them
 * (mmc_diff_opts.claims; the matching lives in diff_claims.c).  Every
 * error names the file and the line.
 */
#ifndef MMC_CLAIMS_H
#define MMC_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "mmc_error.h"

struct mmc_claims;

/* The version the first line must name ("memmapcheck-claims 1"). */
#define MMC_CLAIMS_VERSION 1
/* Longest line, claim name and field name a file may have. */
#define MMC_CLAIMS_LINE_MAX 4096
#define MMC_CLAIMS_NAME_MAX 64

/* Read and parse a claims file. */
struct mmc_error *mmc_claims_load(const char *path, struct mmc_claims **out);
/* Parse text already in memory; name is the file errors name. */
struct mmc_error *mmc_claims_parse(const char *name, const char *text, size_t len,
				   struct mmc_claims **out);
void mmc_claims_destroy(struct mmc_claims *claims);

/* The file the claims came from, as given. */
const char *mmc_claims_file(const struct mmc_claims *claims);
size_t mmc_claims_count(const struct mmc_claims *claims);
const char *mmc_claim_name(const struct mmc_claims *claims, size_t i);
/* Its reason lines joined with a space. */
const char *mmc_claim_reason(const struct mmc_claims *claims, size_t i);
/* The line its "claim NAME" stands on. */
unsigned int mmc_claim_line(const struct mmc_claims *claims, size_t i);

#endif
