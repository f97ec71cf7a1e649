/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memmapcheck CLI: options as parsed (memmapcheck.c) and the commands
 * that run on them (commands.c).
 *
 * Exit codes, one table for every command (cli/memmapcheck.1):
 *   0  identical / clean / as claimed / the image is complete and was
 *      written or shown
 *   1  different / lint violations / beyond the claims (or, with
 *      --strict, a claim not seen)
 *   2  bad usage or input
 *   3  internal error, or output that could not be written
 *   4  incomplete: some struct pages unreadable or discovery incomplete
 *      (after the output was written)
 */
#ifndef MMC_CLI_H
#define MMC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmc_error.h"
#include "report.h"

#define EXIT_DIFFERENT	1
#define EXIT_USAGE	2
#define EXIT_INTERNAL	3
#define EXIT_INCOMPLETE	4

struct opts {
	const char *cmd;
	enum mmc_format format;
	const char *output;	/* -o: snapshot/layout file to write ("-": stdout) */
	const char *report;	/* --report FILE: also write the report here */
	enum mmc_format report_format;
	const char *save_base, *save_new;
	const char *map;	/* --map DIR: the difference map (diff, compare) */
	const char *check;	/* layout --check */
	long range;		/* -r, -1: all */
	uint64_t pfn;		/* show --pfn */
	bool have_pfn;
	size_t max_pages;	/* -n */
	bool all_pages;		/* --all-pages */
	size_t max_groups;	/* --max-groups: pfn groups listed (diff, lint) */
	bool live;
	bool quiet;
	int progress;		/* -1 auto (tty), 0 off, 1 on */
	unsigned int threads;	/* --threads: per walk; 0 the walk's default */
	const char *claims;	/* --claims FILE: diff, compare */
	bool strict;		/* --strict: a claim not seen fails */
};

/* The commands: argv holds the operands only. */
int cmd_ranges(const struct opts *o, int argc, char **argv);
int cmd_show(const struct opts *o, int argc, char **argv);
int cmd_lint(const struct opts *o, int argc, char **argv);
int cmd_diff(const struct opts *o, int argc, char **argv);
int cmd_compare(const struct opts *o, int argc, char **argv);
int cmd_snapshot(const struct opts *o, int argc, char **argv);
int cmd_layout(const struct opts *o, int argc, char **argv);

/* ---- images.c: what the commands read ---- */

struct mmc_snapshot;
struct mmc_walk_opts;
struct mmc_outfile;

/* Struct pages unreadable or unmapped. */
uint64_t pages_unread(const struct mmc_snapshot *s);
/* Every range found and every struct page read. */
bool image_complete(const struct mmc_snapshot *s);
/* NULL if path can be read; "no such file" and the like otherwise. */
struct mmc_error *readable(const char *path);
/* Walk one kernel+dump into a snapshot, the summary on stderr; hooks, if
 * not NULL, gives the walk's created and cancel callbacks (walk.h). */
struct mmc_error *walk_image(const struct opts *o, const char *kernel, const char *dump,
			     const struct mmc_walk_opts *hooks, struct mmc_snapshot **snap);
struct mmc_error *take_snapshot(const struct opts *o, const char *kernel, const char *dump,
				struct mmc_snapshot **snap);
/* compare's two images, argv[0..3] = BASE_KERNEL BASE_DUMP NEW_KERNEL
 * NEW_DUMP, walked at once; on failure nothing is kept. */
struct mmc_error *take_snapshot_pair(const struct opts *o, char **argv, struct mmc_snapshot **a,
				     struct mmc_snapshot **b);
/* IMAGE = SNAPSHOT | KERNEL DUMP; consumes 1 or 2 arguments (*used). */
struct mmc_error *load_image(const struct opts *o, char **argv, int argc, int *used,
			     struct mmc_snapshot **snap);

/* ---- outputs.c: where the commands write ---- */

/* A write to an output failed: said on stderr; 2 if it was refused
 * (usage), else 3. */
int output_fail(struct mmc_error *err);
/* The outputs of one command allowed (outfile.h) and distinct, before
 * anything is read. */
struct mmc_error *check_outputs(const char *const *outs, size_t nouts, char **inputs,
				int ninputs);
/* The claims file is an input too: no output may replace it. */
struct mmc_error *check_claims_input(const struct opts *o, const char *const *outs,
				     size_t nouts);
/* mmc_outfile_open() with its temporary file removed by a fatal signal
 * (*slot; tmp_forget(*slot) once it was renamed or removed). */
struct mmc_error *outfile_open_tracked(const char *path, const char *const *inputs,
				       size_t ninputs, struct mmc_outfile **of, int *slot);
void tmp_forget(int slot);
/* --map DIR: an existing writable directory, or one that can be made. */
struct mmc_error *check_map_dir(const char *dir);
/* Render into a checked output file (or standard output for "-"); the
 * exit code of a failure, else 0. */
int write_output(const char *path, char **inputs, int ninputs,
		 struct mmc_error *(*render)(FILE *, const void *, enum mmc_format),
		 const void *arg, enum mmc_format fmt);
/* Standard output after the main rendering: a lost verdict is exit 3. */
int stdout_ok(void);

/* Catch every signal that ends the process (except those ignored) so that
 * the temporary output files of this run are removed first. */
void cli_signals_init(void);
/* Remove them and die of sig; async-signal-safe. */
void cli_fatal_signal(int sig);

/* Writing to standard output failed and was reported already. */
bool cli_stdout_lost(void);
/* Print "memmapcheck: <error>" on stderr, free it, return its exit code. */
int cli_fail(struct mmc_error *err);
/* "memmapcheck: CMD: <message>" and the command's usage line on stderr. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
