// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memmapcheck.so: the crash front end of memmapcheck.
 *
 *   crash> extend memmapcheck.so
 *   crash> memmapcheck ranges
 *   crash> memmapcheck snapshot -o base.snap
 *   crash> memmapcheck diff base.snap
 *
 * The engine does the work; this file parses arguments, converts engine
 * errors into crash's error(INFO, ...) and prints to crash's fp.  Layout
 * and memory come from crash itself (crash_layout.c, crash_mem.c), so the
 * extension needs only what crash already has open.
 *
 * The commands mirror the batch CLI (cli/memmapcheck.c) with "the running
 * image" (the dump crash has open) in place of KERNEL DUMP, and print the
 * same reports.  Each subcommand takes only its own options.
 *
 * Hidden subcommands for debugging the layout: `memmapcheck layout [-o FILE]`
 * (the whole layout, saved for `memmapcheck layout --check FILE VMLINUX`)
 * and `memmapcheck member STRUCT PATH` (one member path).
 *
 * State.  crash has one dump open for the whole session, so the kernel
 * (layout, memory source, geometry) and the snapshot of the running image
 * are built on first use and kept in `session`; on a live system nothing is
 * kept.  `extend -u` frees it.  The objects of the command that runs
 * (loaded snapshots, a diff or lint result) are in `running`.
 *
 * ^C.  crash's SIGINT handler longjmps to its prompt from wherever the
 * command is, after calling pc->cmd_cleanup (restore_sanity()).  So:
 *  - engine calls run with SIGINT blocked: nothing is ever left half-built
 *    in the engine, the session or the heap.  The walk asks between windows
 *    whether a SIGINT is pending (mmc_walk_opts.cancel), stops, frees what
 *    it made and says so; unblocking then delivers the SIGINT to crash;
 *  - printing a report (which can be long, and can be cut by a pipe's
 *    SIGPIPE too) runs with SIGINT open, the command's objects registered
 *    with pc->cmd_cleanup: crash calls it from its signal handler, where
 *    freeing is not safe, so it only marks them, and crash calls it again
 *    from restore_sanity() before the next command, which frees them.
 * The session is only ever replaced by complete objects: a walk cut short
 * leaves the previous state (or none), and the next command walks again
 * and gives the same answer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "claims.h"
#include "crash_ext.h"
#include "diff.h"
#include "discover.h"
#include "kernel.h"
#include "layout.h"
#include "lint.h"
#include "outfile.h"
#include "report.h"
#include "snapshot.h"
#include "walk.h"

#include "defs.h"	/* crash: last, it defines names like error, fp, OFFSET */

#ifndef MMC_CRASH_VERSION
#error "MMC_CRASH_VERSION: the version of the crash whose defs.h this is built against"
#endif

#define CREATED_BY "memmapcheck " MMC_VERSION " crash " MMC_CRASH_VERSION

struct session {
	struct mmc_kernel *kernel;
	struct mmc_snapshot *snap;	/* all ranges of the running image */
	struct mmc_walk_stats stats;	/* of the walk that made snap */
	double walk_secs;
};

/* What lives across commands (see above). */
static struct session *session;

/* The objects of the running command (see above). */
struct running {
	struct mmc_snapshot *snap[2];
	struct mmc_diff_result *diff;
	struct mmc_lint_result *lint;
	struct mmc_claims *claims;
};
static struct running running;

struct opts {
	enum mmc_format format;
	const char *output;	/* -o */
	long range;		/* -r, -1: all */
	size_t max_pages;	/* -n */
	bool fresh;		/* -f: walk the dump again */
	bool verbose;		/* -v: walk statistics */
	bool quiet_reader;	/* verbose for the statistics only, not the -v reader line */
	const char *claims;	/* diff -c FILE (--claims FILE) */
	bool strict;		/* diff -s (--strict) */
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- ^C ---- */

static void sigint_block(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigprocmask(SIG_BLOCK, &s, old);
}

static void sigint_unblock(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
}

static bool sigint_pending(void *arg)
{
	sigset_t p;

	(void)arg;
	return sigpending(&p) == 0 && sigismember(&p, SIGINT);
}

static void running_free(void)
{
	mmc_snapshot_destroy(running.snap[0]);
	mmc_snapshot_destroy(running.snap[1]);
	mmc_diff_result_destroy(running.diff);
	mmc_claims_destroy(running.claims);
	mmc_lint_result_destroy(running.lint);
	memset(&running, 0, sizeof(running));
}

/*
 * pc->cmd_cleanup.  From crash's signal handler (SIGINT: _SIGINT_ set;
 * SIGPIPE: IN_RESTART set) it leaves everything for the next call, from
 * restore_sanity() before the next command, outside any handler.
 */
static void running_cleanup(void *arg)
{
	(void)arg;
	if (pc->flags & (_SIGINT_ | IN_RESTART))
		return;
	running_free();
	if (pc->cmd_cleanup == running_cleanup) {
		pc->cmd_cleanup = NULL;
		pc->cmd_cleanup_arg = NULL;
	}
}

/* Printing: SIGINT open, the command's objects in crash's hands. */
static void printing_begin(void)
{
	pc->cmd_cleanup = running_cleanup;
	pc->cmd_cleanup_arg = NULL;
	sigint_unblock();
}

static void printing_end(void)
{
	sigset_t old;

	sigint_block(&old);
}

/* ---- session ---- */

/* Report an engine error the crash way and free it.  Returns false. */
static bool fail(struct mmc_error *err)
{
	char *msg = mmc_error_string(err);

	error(INFO, "%s\n", msg ? msg : err->message ? err->message : "error");
	free(msg);
	mmc_error_destroy(err);
	return false;
}

static void session_drop_snapshot(void)
{
	if (session && session->snap) {
		mmc_snapshot_destroy(session->snap);
		session->snap = NULL;
	}
}

static void session_destroy(void)
{
	if (!session)
		return;
	session_drop_snapshot();
	mmc_kernel_destroy(session->kernel);
	free(session);
	session = NULL;
}

/* The kernel crash has open: layout from crash, memory from crash_reader.c. */
static struct mmc_error *open_kernel(struct mmc_kernel **out)
{
	struct mmc_kernel_hints hints = { 0 };
	struct mmc_layout *layout = NULL;
	struct mmc_mem *mem = NULL;
	struct mmc_error *err;

	err = mmc_crash_layout(&layout, &hints);
	if (err)
		return err;
	err = mmc_crash_reader_open(&mem);
	if (err) {
		mmc_layout_destroy(layout);
		return err;
	}
	/* Takes ownership of both, also on failure. */
	return mmc_kernel_create(layout, mem, &hints, out);
}

static struct mmc_error *session_kernel(struct mmc_kernel **out)
{
	struct mmc_kernel *k = NULL;
	struct mmc_error *err;

	if (ACTIVE()) {
		/* Live: nothing cached, memory moves. */
		session_destroy();
	} else if (session && session->kernel) {
		*out = session->kernel;
		return NULL;
	}
	err = open_kernel(&k);
	if (err)
		return err;
	if (!session) {
		session = calloc(1, sizeof(*session));
		if (!session) {
			mmc_kernel_destroy(k);
			return mmc_error_nomem();
		}
	}
	session->kernel = k;
	*out = k;
	return NULL;
}

static void print_walk_stats(const struct mmc_snapshot *snap,
			     const struct mmc_walk_stats *st, double secs,
			     bool reader)
{
	const char *problem = mmc_snapshot_discovery_problem(snap);
	size_t i;

	fprintf(fp,
		"memmapcheck: %s: %llu struct pages in %zu ranges, %llu unreadable, %llu unmapped, %llu never initialised; %.2f s (%.1f M pages/s)\n",
		mmc_snapshot_info(snap)->dump, (unsigned long long)st->pages,
		mmc_snapshot_nranges(snap), (unsigned long long)st->unreadable,
		(unsigned long long)st->unmapped, (unsigned long long)st->not_init,
		secs, secs > 0 ? st->pages / secs / 1e6 : 0.0);
	if (reader && session && session->kernel)
		fprintf(fp, "memmapcheck: read %s\n",
			mmc_crash_reader_describe(session->kernel->mem));
	for (i = 0; i < mmc_snapshot_nnotes(snap); i++)
		fprintf(fp, "memmapcheck: warning: %s\n", mmc_snapshot_note(snap, i));
	if (problem)
		fprintf(fp, "memmapcheck: discovery incomplete: %s; the image holds only the %zu ranges found before it\n",
			problem, mmc_snapshot_nranges(snap));
}

/*
 * Walk the running image: all ranges (range < 0), or only range `range` of
 * the discovery (for benchmarks).  The result is the caller's.
 */
static struct mmc_error *walk_image(struct mmc_kernel *k, long range,
				    struct mmc_snapshot **out,
				    struct mmc_walk_stats *st, double *secs)
{
	struct mmc_walk_opts wo = { .created_by = CREATED_BY, .cancel = sigint_pending };
	struct mmc_discovery *d = NULL;
	struct mmc_error *err;
	double t0 = now();

	err = mmc_discover(k, &d);
	if (err)
		return err;
	if (range >= 0) {
		if ((size_t)range >= d->nranges) {
			err = d->nranges ?
				mmc_error_create(MMC_ERR_USAGE, NULL,
						 "range %ld does not exist: this image has ranges 0-%zu",
						 range, d->nranges - 1) :
				mmc_error_create(MMC_ERR_USAGE, NULL,
						 "range %ld does not exist: this image has no ranges",
						 range);
			goto out;
		}
		d->ranges[0] = d->ranges[range];
		d->nranges = 1;
	}
	err = mmc_walk(k, d, &wo, out, st);
	*secs = now() - t0;
out:
	mmc_discovery_destroy(d);
	return err;
}

/*
 * The snapshot of the running image, cached for the session (returned
 * borrowed), or, live, a new one in running.snap[slot].
 */
static struct mmc_error *image_snapshot(const struct opts *o, int slot,
					struct mmc_snapshot **snap)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_kernel *k;
	struct mmc_error *err;
	struct mmc_walk_stats st;
	double secs = 0;

	if (o->fresh)
		session_drop_snapshot();
	if (session && session->snap && !ACTIVE()) {
		*snap = session->snap;
		if (o->verbose)
			print_walk_stats(*snap, &session->stats, session->walk_secs,
					 !o->quiet_reader);
		return NULL;
	}
	err = session_kernel(&k);
	if (!err)
		err = walk_image(k, -1, &s, &st, &secs);
	if (err)
		return err;
	if (o->verbose)
		print_walk_stats(s, &st, secs, !o->quiet_reader);
	if (ACTIVE()) {
		running.snap[slot] = s;
	} else {
		session->snap = s;
		session->stats = st;
		session->walk_secs = secs;
	}
	*snap = s;
	return NULL;
}

/*
 * Commands run with SIGINT blocked, so nothing here may block: a FIFO or
 * a terminal is refused (by stat(), mmc_infile_check(), then by the
 * non-blocking open of mmc_is_snapshot_file()) before anything is read,
 * where fopen() would wait for a writer for ever.
 */
static struct mmc_error *load_file(const char *path, int slot,
				   struct mmc_snapshot **snap)
{
	struct mmc_error *err;

	if (access(path, R_OK) != 0)
		return errno == ENOENT ?
			mmc_error_create(MMC_ERR_USAGE, path, "no such file") :
			mmc_error_os(errno, path, "open");
	err = mmc_infile_check(path);
	if (err)
		return err;
	if (!mmc_is_snapshot_file(path))
		return mmc_error_create(MMC_ERR_USAGE, path,
					"not a memmapcheck snapshot file (make one with: memmapcheck snapshot -o FILE)");
	err = mmc_snapshot_load(path, &running.snap[slot]);
	*snap = running.snap[slot];
	return err;
}

/* IMAGE: FILE if given, else the running image. */
static struct mmc_error *get_image(const struct opts *o, const char *file, int slot,
				   struct mmc_snapshot **snap)
{
	return file ? load_file(file, slot, snap) : image_snapshot(o, slot, snap);
}

/* ---- commands (run with SIGINT blocked, see above) ---- */

static void cmd_ranges_show(const struct opts *o, const char *sub, char **argv,
			    int argc)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	size_t n;

	err = get_image(o, argc ? argv[0] : NULL, 0, &s);
	if (err) {
		fail(err);
		return;
	}
	n = mmc_snapshot_nranges(s);
	if (!strcmp(sub, "show") && o->range >= 0 && (size_t)o->range >= n) {
		if (n)
			error(INFO, "range %ld does not exist: this image has ranges 0-%zu\n",
			      o->range, n - 1);
		else
			error(INFO, "range %ld does not exist: this image has no ranges\n",
			      o->range);
		return;
	}
	printing_begin();
	if (!strcmp(sub, "ranges"))
		mmc_report_ranges(fp, s, o->format);
	else
		mmc_report_show(fp, s, o->range, o->format);
	printing_end();
}

static void cmd_lint(const struct opts *o, const char *sub, char **argv, int argc)
{
	struct mmc_lint_opts lo = { .max_groups = 200 };
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;

	err = get_image(o, argc ? argv[0] : NULL, 0, &s);
	if (!err)
		err = mmc_lint(s, &lo, &running.lint);
	if (err) {
		fail(err);
		return;
	}
	printing_begin();
	mmc_report_lint(fp, s, running.lint, o->format);
	printing_end();
}

static void cmd_diff(const struct opts *o, const char *sub, char **argv, int argc)
{
	struct mmc_diff_opts dopts = { .max_pages = o->max_pages ? o->max_pages : 1,
				       .max_groups = 200, .strict = o->strict };
	struct mmc_snapshot *a = NULL, *b = NULL;
	struct mmc_error *err = NULL;

	/* a bad claims file is said before the dump is walked */
	if (o->claims)
		err = mmc_claims_load(o->claims, &running.claims);
	dopts.claims = running.claims;
	/* diff BASE: BASE vs the running image; diff BASE NEW: two files. */
	if (!err)
		err = load_file(argv[0], 0, &a);
	if (!err)
		err = get_image(o, argc > 1 ? argv[1] : NULL, 1, &b);
	if (!err)
		err = mmc_diff(a, b, &dopts, &running.diff);
	if (err) {
		fail(err);
		return;
	}
	if (!o->max_pages)
		running.diff->npages = 0;
	printing_begin();
	mmc_report_diff(fp, a, b, running.diff, o->format);
	if (running.diff->claims && running.diff->claims->strict &&
	    running.diff->claims->nunseen && running.diff->verdict == MMC_AS_CLAIMED)
		fprintf(fp, "memmapcheck: --strict: %zu claim%s not seen: the check fails\n",
			running.diff->claims->nunseen, running.diff->claims->nunseen == 1 ? "" : "s");
	printing_end();
}

static void cmd_snapshot(const struct opts *o, const char *sub, char **argv, int argc)
{
	const char *inputs[] = { pc->dumpfile, pc->namelist };
	struct mmc_snapshot *s = NULL;
	struct mmc_walk_stats st;
	struct mmc_kernel *k;
	struct mmc_error *err;
	double secs = 0;
	uint64_t bad;

	err = mmc_outfile_check(o->output, inputs, 2);
	if (!err && o->range >= 0) {
		/* One range only (benchmarks): never cached. */
		err = session_kernel(&k);
		if (!err)
			err = walk_image(k, o->range, &running.snap[0], &st, &secs);
		if (!err) {
			s = running.snap[0];
			print_walk_stats(s, &st, secs, o->verbose);
		}
	} else if (!err) {
		struct opts v = *o;

		v.verbose = true;
		v.quiet_reader = !o->verbose;
		err = image_snapshot(&v, 0, &s);
	}
	if (!err)
		err = mmc_snapshot_save_checked(s, o->output, inputs, 2);
	if (err) {
		fail(err);
		return;
	}
	bad = mmc_snapshot_count_state(s, MMC_PS_UNREADABLE) +
	      mmc_snapshot_count_state(s, MMC_PS_UNMAPPED);
	fprintf(fp, "memmapcheck: wrote %s: %llu pages in %zu ranges, %llu runs%s\n",
		o->output, (unsigned long long)mmc_snapshot_npages(s),
		mmc_snapshot_nranges(s), (unsigned long long)mmc_snapshot_nruns(s),
		!mmc_snapshot_discovery_complete(s) ?
			" (discovery incomplete: a diff against it can only be incomplete)" :
		bad ? " (some pages unreadable: a diff against it can only be incomplete)" : "");
}

/* Hidden (debug): the layout crash gives, saved or summarised. */
static void cmd_layout(const struct opts *o, const char *sub, char **argv, int argc)
{
	const char *inputs[] = { pc->dumpfile, pc->namelist };
	struct mmc_kernel_hints hints = { 0 };
	struct mmc_layout *l = NULL;
	struct mmc_outfile *of = NULL;
	struct mmc_error *err;

	err = mmc_crash_layout(&l, &hints);
	if (!err && o->output) {
		err = mmc_outfile_open(o->output, inputs, 2, &of);
		if (!err)
			err = mmc_layout_write_text(mmc_outfile_stream(of), l);
		if (!err) {
			err = mmc_outfile_commit(of);
			of = NULL;
		}
		mmc_outfile_abort(of);
	}
	if (err) {
		mmc_layout_destroy(l);
		fail(err);
		return;
	}
	fprintf(fp, "%s: release %s, build-id %s, fingerprint %016llx, KASLR offset 0x%llx, phys_base 0x%llx%s%s\n",
		l->source, l->release, l->build_id[0] ? l->build_id : "-",
		(unsigned long long)mmc_layout_fingerprint(l),
		(unsigned long long)hints.kaslr_offset,
		(unsigned long long)hints.phys_base,
		o->output ? ", saved to " : "", o->output ? o->output : "");
	mmc_layout_destroy(l);
}

/* Hidden (debug): how one member path resolves, e.g. "member page flags.f". */
static void cmd_member(const struct opts *o, const char *sub, char **argv, int argc)
{
	const char *type = argv[0], *path = argv[1];
	struct mmc_member m;
	struct mmc_error *err = mmc_crash_member(type, path, &m);

	if (err) {
		fail(err);
		return;
	}
	fprintf(fp, "struct %s.%s: offset %u, size %u, count %u\n", type,
		m.name, m.offset, m.size, m.count);
}

static bool parse_count(const char *s, long *v)
{
	char *end;

	if (*s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtol(s, &end, 0);
	return !errno && end != s && !*end && *v >= 0;
}

/* diff's claims options also go by the CLI's names. */
static const struct option diff_longopts[] = {
	{ "claims", required_argument, NULL, 'c' },
	{ "strict", no_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

/* Is arg ("--name" or "--name=value") one of diff_longopts? */
static bool known_longopt(const char *arg)
{
	const struct option *o;
	size_t n;

	for (o = diff_longopts; o->name; o++) {
		n = strlen(o->name);
		if (!strncmp(arg + 2, o->name, n) && (arg[2 + n] == '\0' || arg[2 + n] == '='))
			return true;
	}
	return false;
}

/* ---- the subcommands ---- */

/* What the operands left after the options must be; false: said why. */
typedef bool operands_fn(const char *sub, const struct opts *o, int argc);
typedef void run_fn(const struct opts *o, const char *sub, char **argv, int argc);

static bool at_most_one_file(const char *sub, const struct opts *o, int argc)
{
	if (argc > 1) {
		error(INFO, "%s takes at most one snapshot FILE\n", sub);
		return false;
	}
	return true;
}

static bool snapshot_operands(const char *sub, const struct opts *o, int argc)
{
	if (!o->output) {
		error(INFO, "snapshot needs -o FILE\n");
		return false;
	}
	if (argc) {
		error(INFO, "snapshot takes no arguments besides -o FILE\n");
		return false;
	}
	return true;
}

static bool diff_operands(const char *sub, const struct opts *o, int argc)
{
	if (argc < 1 || argc > 2) {
		error(INFO, "diff takes one or two snapshot FILEs\n");
		return false;
	}
	if (o->strict && !o->claims) {
		error(INFO, "diff: -s/--strict needs -c/--claims FILE\n");
		return false;
	}
	return true;
}

static bool member_operands(const char *sub, const struct opts *o, int argc)
{
	if (argc != 2) {
		error(INFO, "member takes STRUCT PATH\n");
		return false;
	}
	return true;
}

static bool layout_operands(const char *sub, const struct opts *o, int argc)
{
	if (argc) {
		error(INFO, "layout takes no arguments besides -o FILE\n");
		return false;
	}
	return true;
}

/*
 * The subcommands, as crash's own command table: name, the getopt letters
 * it takes, its usage after the name and its lines in help's list (NULL:
 * a hidden debugging subcommand), what its operands must be, what runs
 * it.  help's SYNOPSIS and list, the option check and the dispatch all
 * read it.
 */
static const struct subcommand {
	struct mmc_crash_subcommand_help doc;	/* name, usage, help lines */
	const char *opts;
	operands_fn *operands;
	run_fn *run;
} subcommands[] = {
	{ { "ranges", "[-j] [FILE]",
	    "pgmaps and their pfn ranges: type, vmemmap_shift, altmap,\n"
	    "which pfns each kernel init path writes." },
	  "jfv", at_most_one_file, cmd_ranges_show },
	{ { "show", "[-r N] [-j] [FILE]",
	    "every run of identical (or regularly changing) struct pages,\n"
	    "decoded: flags by name, zone, head, order, pgmap, refcount,\n"
	    "mapcount, mapping, index, folio fields." },
	  "jrfv", at_most_one_file, cmd_ranges_show },
	{ { "snapshot", "-o FILE [-r N] [-v]",
	    "write the normalised struct pages of every range to FILE." },
	  "orfv", snapshot_operands, cmd_snapshot },
	{ { "diff", "[-n N] [-j] [-c|--claims FILE [-s|--strict]] BASE [NEW]",
	    "compare snapshot BASE with the running image, or BASE with\n"
	    "NEW: verdict identical / different / incomplete, counts per\n"
	    "range and field, pfn groups, the first differing pages." },
	  "jnfvcs", diff_operands, cmd_diff },
	{ { "lint", "[-j] [FILE]",
	    "check the running image (or FILE) against the kernel's own\n"
	    "rules: tail->head, order, refcount policy, pgmap, zone,\n"
	    "PG_reserved, poison, vmemmap sharing, unreadable pages." },
	  "jfv", at_most_one_file, cmd_lint },
	{ { "layout", NULL, NULL }, "o", layout_operands, cmd_layout },
	{ { "member", NULL, NULL }, "", member_operands, cmd_member },
};
#define NSUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static const struct subcommand *subcommand_of(const char *sub)
{
	for (size_t i = 0; i < NSUBCOMMANDS; i++)
		if (!strcmp(subcommands[i].doc.name, sub))
			return &subcommands[i];
	return NULL;
}

/* "-j -f -v" from "jfv", for messages. */
static const char *allowed_list(const char *allowed)
{
	static char buf[32];
	size_t n = 0;

	for (; *allowed && n + 4 < sizeof(buf); allowed++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s-%c", n ? " " : "", *allowed);
	return buf;
}

/*
 * An operand named like a report format: inside crash -f means "walk
 * again" and -j gives JSON, so "lint -f json" left "json" as a FILE.
 * Said as what it is, unless such a file exists.
 */
static bool format_as_file(const char *sub, char **argv, int argc)
{
	static const char *const formats[] = { "text", "json", "ktap", "junit" };
	int i;
	size_t f;

	for (i = 0; i < argc; i++)
		for (f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
			if (!strcmp(argv[i], formats[f]) && access(argv[i], F_OK) != 0) {
				error(INFO, "%s: '%s' is a report format, not a FILE: inside crash -f means walk the dump again, -j gives JSON, text is the default\n",
				      sub, argv[i]);
				return true;
			}
	return false;
}

/* One option c (with optarg) into o; false: said what is wrong. */
static bool take_option(int c, struct opts *o)
{
	long v;

	switch (c) {
	case 'j':
		o->format = MMC_FMT_JSON;
		break;
	case 'o':
		o->output = optarg;
		break;
	case 'r':
		if (!parse_count(optarg, &o->range)) {
			error(INFO, "-r takes a range number >= 0, not '%s'\n", optarg);
			return false;
		}
		break;
	case 'n':
		if (!parse_count(optarg, &v)) {
			error(INFO, "-n takes a number of pages >= 0, not '%s'\n", optarg);
			return false;
		}
		o->max_pages = (size_t)v;
		break;
	case 'f':
		o->fresh = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'c':
		o->claims = optarg;
		break;
	case 's':
		o->strict = true;
		break;
	default:
		error(INFO, "invalid option: -%c\n", optopt ? optopt : '?');
		return false;
	}
	return true;
}

/*
 * The options of "SUB [options] args" (argc, argv from SUB on) into o;
 * returns the index of the first operand.  Errors counted in argerrs.
 */
static int parse_options(const char *sub, const char *allowed, int argc, char **argv,
			 struct opts *o)
{
	int c, saved_opterr;

	/*
	 * Short options, and the long spellings of diff's -c and -s that its
	 * usage names: any other "--threads" is one of the CLI's, and saying
	 * so beats getopt's guess at which letter was meant.
	 */
	for (c = 1; c < argc; c++) {
		if (!strcmp(argv[c], "--"))
			break;
		if (!strncmp(argv[c], "--", 2) && !known_longopt(argv[c])) {
			error(INFO, "%s: %s: is one of the CLI's long options; inside crash this subcommand takes %s\n",
			      sub, argv[c], *allowed ? allowed_list(allowed) : "none");
			argerrs++;
		}
	}
	if (argerrs)
		cmd_usage(pc->curcmd, SYNOPSIS);
	/* crash resets optind per command, but a subcommand parses a
	 * shifted vector, so reset it here too */
	saved_opterr = opterr;	/* crash's own commands want glibc's messages */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jo:r:n:fvc:s", diff_longopts, NULL)) != EOF) {
		if (c != '?' && !strchr(allowed, c)) {
			error(INFO, "%s does not take -%c\n", sub, c);
			argerrs++;
		} else if (!take_option(c, o)) {
			argerrs++;
		}
	}
	opterr = saved_opterr;
	return optind;
}

static void cmd_memmapcheck(void)
{
	struct opts o = { .format = MMC_FMT_TEXT, .range = -1, .max_pages = 20 };
	const struct subcommand *sc;
	sigset_t old;
	char **argv;
	int argc, first;

	if (argcnt < 2)
		cmd_usage(pc->curcmd, SYNOPSIS);
	sc = subcommand_of(args[1]);
	if (!sc) {
		error(INFO, "unknown subcommand: %s\n", args[1]);
		cmd_usage(pc->curcmd, SYNOPSIS);
	}
	first = parse_options(sc->doc.name, sc->opts, argcnt - 1, args + 1, &o);
	argc = argcnt - 1 - first;
	argv = args + 1 + first;
	if (!argerrs && format_as_file(sc->doc.name, argv, argc))
		argerrs++;
	if (!argerrs && !sc->operands(sc->doc.name, &o, argc))
		argerrs++;
	if (argerrs)
		cmd_usage(pc->curcmd, SYNOPSIS);	/* returns to crash's prompt */

	sigint_block(&old);
	running_free();		/* a cleanup crash did not get to call */
	sc->run(&o, sc->doc.name, argv, argc);
	running_free();
	if (pc->cmd_cleanup == running_cleanup) {
		pc->cmd_cleanup = NULL;
		pc->cmd_cleanup_arg = NULL;
	}
	if (sigint_pending(NULL))
		fprintf(fp, "memmapcheck: interrupted\n");
	sigprocmask(SIG_SETMASK, &old, NULL);	/* a pending ^C is crash's now */
}

static struct command_table_entry command_table[] = {
	{ "memmapcheck", cmd_memmapcheck, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};

/*
 * Loaded into a crash whose defs.h is not the one this was built against,
 * every struct offset here would be wrong: refuse to register (crash then
 * unloads the object) with a message saying what to rebuild.  Only
 * build_version (a plain char *) and crash's error() are used to say so.
 */
static void __attribute__((constructor)) memmapcheck_init(void)
{
	char other[PATH_MAX] = "", *dir;
	Dl_info info;

	if (build_version && strcmp(build_version, MMC_CRASH_VERSION) == 0) {
		struct mmc_crash_subcommand_help docs[NSUBCOMMANDS];

		for (size_t i = 0; i < NSUBCOMMANDS; i++)
			docs[i] = subcommands[i].doc;
		command_table[0].help_data = mmc_crash_help(docs, NSUBCOMMANDS);
		register_extension(command_table);
		return;
	}
	/*
	 * The build for this crash: `make install` puts every build in
	 * memmapcheck/<version>/ beside us; the build tree has <version>/
	 * beside our own <version>/.
	 */
	if (build_version && dladdr((void *)memmapcheck_init, &info) &&
	    info.dli_fname && (dir = strdup(info.dli_fname))) {
		const char *d = dirname(dir);

		snprintf(other, sizeof(other), "%s/memmapcheck/%s/memmapcheck.so",
			 d, build_version);
		if (access(other, R_OK) != 0)
			snprintf(other, sizeof(other), "%s/../%s/memmapcheck.so",
				 d, build_version);
		if (access(other, R_OK) != 0)
			other[0] = '\0';
		free(dir);
	}
	error(INFO,
	      "memmapcheck.so was built against the defs.h of crash %s (%s), but this is crash %s: "
	      "not loading it (no commands registered); %s%s\n",
	      MMC_CRASH_VERSION, MMC_CRASH_DEFS_H,
	      build_version ? build_version : "(unknown)",
	      other[0] ? "the build for this crash is: extend " :
			 "rebuild it with: make -C crash-ext CRASH=/path/to/this/crash",
	      other);
}

static void __attribute__((destructor)) memmapcheck_fini(void)
{
	session_destroy();
}
