/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Difference map: one SVG picture per range of a diff, for a reviewer who
 * would rather look at a picture than read 500,000 rows.
 *
 * pfn runs along x, binned into at most `columns` columns of equal pfn
 * count, so a 100 GiB range (26 M pages) costs no more than a small one.
 * Along y: what the base image's pages are (head, tail, tail behind a shared
 * vmemmap page, order-0, altmap memmap pfns, altmap reserve, unreadable),
 * then one row per field that differs.  A column is painted in a row when
 * at least one of its pfns is of that kind / differs in that field, so a
 * single differing page is never lost in a bin.  Where differences come
 * from: the diff result's groups (exact pfn spans with their fields); page
 * kinds: the snapshots' runs.
 *
 * The SVG root carries the geometry as data-* attributes (first pfn, pages,
 * columns, plot origin and column width, and each row's y), so a test can
 * find the pixel of a pfn in a rendering without trusting the renderer's
 * own arithmetic.
 */
#ifndef MMC_REPORT_SVG_H
#define MMC_REPORT_SVG_H

#include "diff.h"
#include "mmc_error.h"
#include "snapshot.h"

/* Groups a diff should keep for the map to place every differing page
 * (mmc_diff_opts.max_groups).  A group costs ~300 bytes; pages of groups
 * beyond it are counted in the picture's header as "not placed". */
#define MMC_SVG_MAX_GROUPS ((size_t)1 << 20)

/* Columns when opts or opts->columns is 0. */
#define MMC_SVG_COLUMNS 1000

struct mmc_svg_opts {
	unsigned int columns;	/* at most this many pfn columns per range */
};

/*
 * Write DIR/range-<i>.svg for every range i of res (i as in res->ranges and
 * the text report) and DIR/index.html showing them all.  DIR is created if
 * it does not exist (its parent must).  a and b are the snapshots res was
 * made from.  Each file is written through mmc_outfile (a temporary file
 * renamed when complete; a symlink or device is never replaced).  Errors
 * name the file.
 */
struct mmc_error *mmc_report_svg(const char *dir, const struct mmc_snapshot *a,
				 const struct mmc_snapshot *b,
				 const struct mmc_diff_result *res,
				 const struct mmc_svg_opts *opts);

#endif
