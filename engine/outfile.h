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

/*
 * Inputs: open path read-only without blocking (O_NONBLOCK, cleared once
 * open) and refuse, as MMC_ERR_USAGE naming what it is, anything but a
 * regular file or a block device: a FIFO would block open() and read()
 * until a writer came, a terminal or character device has no size and
 * gives what it likes.  /proc/kcore is a regular file.  On success *fd is
 * open (O_CLOEXEC) and the caller closes it.
 */
struct mmc_error *mmc_infile_open(const char *path, int *fd);
/* The same check on stat() alone, nothing opened (a name checked before
 * anything is read; mmc_infile_open() checks again what it opens). */
struct mmc_error *mmc_infile_check(const char *path);
/* The temporary file being written ("path.tmp.XXXXXX"), NULL for standard
 * output: for a front end that removes it when a signal ends the process. */
const char *mmc_outfile_tmp_path(const struct mmc_outfile *of);

/* fflush + ferror of a stream the caller keeps (stdout, stderr): an error
 * naming `what` ("standard output") when anything written to it was lost. */
struct mmc_error *mmc_stream_check(FILE *f, const char *what);

#endif
