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
