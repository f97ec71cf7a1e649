/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output files that cannot destroy anything: a snapshot, layout or report
 * is written to a temporary file beside the target and renamed over it only
 * when complete (fflush, fsync, close all checked).  A target that is a
 * device, FIFO, socket, directory or symbolic link is never replaced, nor
 * one that is (the same inode as) a file this run reads.  New files get
 * 0666 & ~umask; a replaced regular file keeps its permission bits.  The
 * path "-" is standard output, written through and checked the same way.
 */
#ifndef MMC_OUTFILE_H
#define MMC_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mmc_error.h"

struct mmc_outfile;

/*
 * inputs[0..ninputs): the files this run reads (kernel, dump, snapshots,
 * layouts); NULL entries are skipped.  Errors are MMC_ERR_USAGE for a
 * target that must not be replaced, MMC_ERR_OS otherwise, naming the path.
 */
struct mmc_error *mmc_outfile_open(const char *path, const char *const *inputs,
				   size_t ninputs, struct mmc_outfile **out);
/* Checks that `path` may be written, without opening anything. */
struct mmc_error *mmc_outfile_check(const char *path, const char *const *inputs,
				    size_t ninputs);
FILE *mmc_outfile_stream(struct mmc_outfile *of);
/* What to call it in messages: the target path, or "standard output". */
const char *mmc_outfile_name(const struct mmc_outfile *of);
bool mmc_outfile_is_stdout(const struct mmc_outfile *of);
/* Flush, sync and rename into place; frees `of` in every case. */
struct mmc_error *mmc_outfile_commit(struct mmc_outfile *of);
/* Remove the temporary file; frees `of` (NULL is fine). */
void mmc_outfile_abort(struct mmc_outfile *of);

/* fflush + ferror of a stream the caller keeps (stdout, stderr): an error
 * naming `what` ("standard output") when anything written to it was lost. */
struct mmc_error *mmc_stream_check(FILE *f, const char *what);

#endif
