// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The commands of the memmapcheck CLI.  Each loads or walks its images
 * (images.c), renders to standard output and the files asked for
 * (outputs.c), and returns the exit code of cli.h.  Targets are checked
 * before a dump is walked, so a bad -o costs nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "claims.h"
#include "cli.h"
#include "diff.h"
#include "kernel.h"
#include "layout.h"
#include "lint.h"
#include "outfile.h"
#include "report.h"
#include "report_kcidb.h"
#include "report_svg.h"
#include "snapshot.h"
#include "walk.h"

/* ---- diff, compare ---- */

struct diff_args {
	const struct mmc_snapshot *a, *b;
	const struct mmc_diff_result *res;
	const struct mmc_kcidb_opts *kcidb;
};

static struct mmc_error *render_diff(FILE *f, const void *arg, enum mmc_format fmt)
{
	const struct diff_args *d = arg;

	if (fmt == MMC_FMT_KCIDB)
		mmc_report_diff_kcidb(f, d->a, d->b, d->res, d->kcidb);
	else
		mmc_report_diff(f, d->a, d->b, d->res, fmt);
	return NULL;
}

/*
 * KCIDB output: the origin and each kernel's identity file come from
 * MEMMAPCHECK_KCIDB_ORIGIN, MEMMAPCHECK_KCIDB_BASE and MEMMAPCHECK_KCIDB_NEW
 * (a lab's job sets them; report_kcidb.h has the keys).  Read before any
 * image, so a bad file costs no walk.
 */
struct kcidb_env {
	struct mmc_kcidb_opts opts;
	struct mmc_kcidb_kernel kernel[2];
};

static struct mmc_error *kcidb_from_env(const struct opts *o, struct kcidb_env *ke)
{
	static const char *const var[2] = { "MEMMAPCHECK_KCIDB_BASE", "MEMMAPCHECK_KCIDB_NEW" };
	const char *origin = getenv("MEMMAPCHECK_KCIDB_ORIGIN");

	memset(ke, 0, sizeof(*ke));
	if (o->format != MMC_FMT_KCIDB && !(o->report && o->report_format == MMC_FMT_KCIDB))
		return NULL;
	if (origin && *origin && !mmc_kcidb_origin_valid(origin))
		return mmc_error_create(MMC_ERR_USAGE, NULL,
					"MEMMAPCHECK_KCIDB_ORIGIN='%s': a KCIDB origin is [a-z0-9_]+", origin);
	ke->opts.origin = origin && *origin ? origin : NULL;
	for (int k = 0; k < 2; k++) {
		const char *path = getenv(var[k]);
		struct mmc_error *err;

		if (!path || !*path)
			continue;
		err = mmc_kcidb_kernel_load(path, &ke->kernel[k]);
		if (err)
			return err;
		ke->opts.kernel[k] = &ke->kernel[k];
	}
	return NULL;
}

static int verdict_exit(const struct mmc_diff_result *res,
			const struct mmc_snapshot *a, const struct mmc_snapshot *b)
{
	/* An image whose discovery stopped early proves nothing by itself. */
	if (res->verdict == MMC_IDENTICAL &&
	    (!mmc_snapshot_discovery_complete(a) || !mmc_snapshot_discovery_complete(b))) {
		fprintf(stderr, "memmapcheck: not identical: discovery of the %s image was incomplete\n",
			mmc_snapshot_discovery_complete(a) ? "new" : "base");
		return EXIT_INCOMPLETE;
	}
	if (res->verdict == MMC_AS_CLAIMED &&
	    (!mmc_snapshot_discovery_complete(a) || !mmc_snapshot_discovery_complete(b))) {
		fprintf(stderr, "memmapcheck: not as claimed: discovery of the %s image was incomplete\n",
			mmc_snapshot_discovery_complete(a) ? "new" : "base");
		return EXIT_INCOMPLETE;
	}
	switch (res->verdict) {
	case MMC_IDENTICAL: return 0;
	case MMC_DIFFERENT: return EXIT_DIFFERENT;
	case MMC_INCOMPLETE: return EXIT_INCOMPLETE;
	case MMC_BEYOND_CLAIMS: return EXIT_DIFFERENT;
	case MMC_AS_CLAIMED:
		/* --strict: a claim nothing matched fails (a no-op patch must
		 * not pass a strict check) */
		return res->claims && res->claims->strict && res->claims->nunseen ?
		       EXIT_DIFFERENT : 0;
	}
	return EXIT_INTERNAL;
}

/* MEMMAPCHECK_PER_PAGE=1: lint and diff go page by page (run by run)
 * where a repeated pattern would be checked once: the same results,
 * slower; tests/patterns.t compares the two. */
static bool per_page(void)
{
	const char *e = getenv("MEMMAPCHECK_PER_PAGE");

	return e && !strcmp(e, "1");
}

static int run_diff(const struct opts *o, struct mmc_snapshot *a,
		    struct mmc_snapshot *b, char **inputs, int ninputs,
		    const struct mmc_claims *claims, const struct mmc_kcidb_opts *kcidb)
{
	struct mmc_diff_opts dopts = { .max_groups = o->max_groups, .claims = claims,
				       .strict = o->strict };
	struct mmc_diff_result *res = NULL;
	struct mmc_error *err;
	struct diff_args da;
	int rc, wrc;

	/* the diff's own 0 means "its default": ask for one, show none */
	dopts.max_pages = o->all_pages ? SIZE_MAX : o->max_pages ? o->max_pages : 1;
	dopts.per_page = per_page();
	err = mmc_diff(a, b, &dopts, &res);
	if (err)
		return cli_fail(err);
	if (!o->all_pages && o->max_pages == 0)
		res->npages = 0;
	da = (struct diff_args){ a, b, res, kcidb };
	render_diff(stdout, &da, o->format);
	rc = verdict_exit(res, a, b);
	wrc = stdout_ok();
	if (o->report) {
		int r = write_output(o->report, inputs, ninputs, render_diff, &da,
				     o->report_format);

		if (!wrc)
			wrc = r;
	}
	mmc_diff_result_destroy(res);
	if (o->map) {
		/* the map places every differing page: all groups, not the
		 * report's first 200 */
		struct mmc_diff_opts all = { .max_pages = 1, .max_groups = MMC_SVG_MAX_GROUPS,
					     .claims = claims, .strict = o->strict };
		int r;

		err = mmc_diff(a, b, &all, &res);
		if (!err)
			err = mmc_report_svg(o->map, a, b, res, NULL);
		mmc_diff_result_destroy(res);
		/* after the verdict: the map is output not written (3) */
		r = err ? output_fail(err) : 0;
		if (r)
			r = EXIT_INTERNAL;
		if (!wrc)
			wrc = r;
	}
	return wrc ? wrc : rc;
}

int cmd_diff(const struct opts *o, int argc, char **argv)
{
	const char *outs[] = { o->report };
	struct mmc_snapshot *a = NULL, *b = NULL;
	struct mmc_claims *claims = NULL;
	struct mmc_error *err;
	struct kcidb_env ke;
	int used = 0, used2 = 0, rc;

	if (argc < 2)
		return cli_usage_error(o->cmd, "two IMAGEs needed (snapshot files or KERNEL DUMP pairs), %d given",
				       argc);
	err = check_outputs(outs, 1, argv, argc);
	if (!err)
		err = check_claims_input(o, outs, 1);
	if (!err)
		err = check_map_dir(o->map);
	if (!err && o->claims)
		err = mmc_claims_load(o->claims, &claims);
	if (!err)
		err = kcidb_from_env(o, &ke);
	if (!err)
		err = load_image(o, argv, argc, &used, &a);
	if (!err && used == argc)
		err = mmc_error_create(MMC_ERR_USAGE, NULL,
				       "diff: the NEW image is missing after %s", argv[used - 1]);
	if (!err)
		err = load_image(o, argv + used, argc - used, &used2, &b);
	if (!err && used + used2 != argc)
		err = mmc_error_create(MMC_ERR_USAGE, argv[used + used2],
				       "diff takes two images (snapshot files or KERNEL DUMP pairs): this argument is one too many");
	rc = err ? cli_fail(err) : run_diff(o, a, b, argv, argc, claims, &ke.opts);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	mmc_claims_destroy(claims);
	return rc;
}

int cmd_compare(const struct opts *o, int argc, char **argv)
{
	const char *outs[] = { o->report, o->save_base, o->save_new };
	struct mmc_snapshot *a = NULL, *b = NULL;
	struct mmc_claims *claims = NULL;
	struct mmc_error *err = NULL;
	struct kcidb_env ke;
	int rc;

	if (argc != 4)
		return cli_usage_error(o->cmd, "BASE_KERNEL BASE_DUMP NEW_KERNEL NEW_DUMP: %d of 4 given",
				       argc);
	err = check_outputs(outs, 3, argv, argc);
	if (!err)
		err = check_claims_input(o, outs, 3);
	if (!err)
		err = check_map_dir(o->map);
	/* a bad claims file is said before two dumps are walked */
	if (!err && o->claims)
		err = mmc_claims_load(o->claims, &claims);
	if (!err)
		err = kcidb_from_env(o, &ke);
	for (rc = 0; !err && rc < 4; rc++)
		err = readable(argv[rc]);
	if (!err)
		err = take_snapshot_pair(o, argv, &a, &b);
	if (!err && o->save_base)
		err = mmc_snapshot_save_checked(a, o->save_base, (const char *const *)argv, 4);
	if (!err && o->save_new)
		err = mmc_snapshot_save_checked(b, o->save_new, (const char *const *)argv, 4);
	if (err)
		rc = err->code == MMC_ERR_OS ? output_fail(err) : cli_fail(err);
	else
		rc = run_diff(o, a, b, argv, argc, claims, &ke.opts);
	mmc_snapshot_destroy(a);
	mmc_snapshot_destroy(b);
	mmc_claims_destroy(claims);
	return rc;
}

/* ---- snapshot ---- */

/*
 * The snapshot file is written while the dump is walked
 * (mmc_snapshot_stream_open()): its temporary file exists for the whole
 * walk, so ^C, SIGTERM and SIGHUP stop the walk (its cancel callback)
 * and the temporary file is removed before the signal takes its course.
 * Without SA_RESTART: a system call they interrupt returns (EINTR) instead
 * of blocking on, and a second one ends the process at once.
 */
static volatile sig_atomic_t stop_signal;
/* the walk checks stop_signal between windows; before it runs (opening
 * and checking the dump: seconds to minutes on a large one) nothing does */
static volatile sig_atomic_t walk_started;

static void note_signal(int sig)
{
	if (stop_signal || !walk_started)
		cli_fatal_signal(sig);
	stop_signal = sig;
}

static bool stop_requested(void *arg)
{
	return stop_signal != 0;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* Not those ignored (nohup, a background job's SIGINT): they stay so. */
static void catch_stop_signals(struct sigaction old[NSTOP])
{
	struct sigaction sa = { .sa_handler = note_signal };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSTOP; i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

/* Back to what they were; a signal that came meanwhile is raised now. */
static void release_stop_signals(const struct sigaction old[NSTOP])
{
	size_t i;

	for (i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	if (stop_signal)
		raise(stop_signal);
}

static struct mmc_error *stream_to(void *arg, struct mmc_snapshot *snap)
{
	struct mmc_outfile *of = arg;

	walk_started = 1;
	return mmc_snapshot_stream_open(snap, mmc_outfile_stream(of), mmc_outfile_name(of));
}

/*
 * Walk into o->output: streamed into the outfile (a regular file), or,
 * for standard output (neither seekable nor readable), saved after the
 * walk.  An error is returned through *rc.
 */
static struct mmc_snapshot *snapshot_to_output(const struct opts *o, const char *kernel,
					       const char *dump,
					       const char *const *inputs, int *rc)
{
	struct mmc_walk_opts hooks = { .cancel = stop_requested };
	struct mmc_outfile *of = NULL;
	struct mmc_snapshot *s = NULL;
	struct sigaction old[NSTOP];
	struct mmc_error *err;
	int slot;
	bool lost;

	*rc = 0;
	if (!strcmp(o->output, "-")) {
		err = take_snapshot(o, kernel, dump, &s);
		if (err) {
			*rc = cli_fail(err);
			return NULL;
		}
		err = mmc_snapshot_save_checked(s, o->output, inputs, 2);
		if (err) {
			mmc_snapshot_destroy(s);
			*rc = output_fail(err);
			return NULL;
		}
		return s;
	}
	err = outfile_open_tracked(o->output, inputs, 2, &of, &slot);
	if (err) {
		*rc = output_fail(err);
		return NULL;
	}
	hooks.created = stream_to;
	hooks.created_arg = of;
	catch_stop_signals(old);
	err = walk_image(o, kernel, dump, &hooks, &s);
	if (err) {
		/* a write to the file failed, or the dump could not be read */
		lost = ferror(mmc_outfile_stream(of));
		mmc_outfile_abort(of);
		tmp_forget(slot);
		*rc = lost ? output_fail(err) : cli_fail(err);
		release_stop_signals(old);
		return NULL;
	}
	err = mmc_snapshot_stream_finish(s);
	if (err || stop_signal) {
		/* a stop signal after the walk's last check: no file either */
		mmc_outfile_abort(of);
	} else {
		err = mmc_outfile_commit(of);
	}
	tmp_forget(slot);
	release_stop_signals(old);
	if (err) {
		mmc_snapshot_destroy(s);
		*rc = output_fail(err);
		return NULL;
	}
	return s;
}

int cmd_snapshot(const struct opts *o, int argc, char **argv)
{
	const char *outs[] = { o->output };
	const char *dump = argc == 2 ? argv[1] : "/proc/kcore";
	const char *inputs[2] = { argv[0], dump };
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	uint64_t bad;
	int rc;

	if (!o->output)
		return cli_usage_error(o->cmd, "-o FILE is missing");
	if (argc != 2 && !(o->live && argc == 1))
		return cli_usage_error(o->cmd, "KERNEL DUMP needed (or KERNEL with --live), %d arguments given",
				       argc);
	err = check_outputs(outs, 1, (char **)inputs, 2);
	if (!err)
		err = readable(argv[0]);
	if (!err)
		err = readable(dump);
	if (err)
		return cli_fail(err);
	s = snapshot_to_output(o, argv[0], dump, inputs, &rc);
	if (!s)
		return rc;
	bad = pages_unread(s);
	if (!o->quiet)
		fprintf(stderr, "memmapcheck: wrote %s: %llu pages in %zu ranges, %llu runs%s\n",
			strcmp(o->output, "-") ? o->output : "standard output",
			(unsigned long long)mmc_snapshot_npages(s),
			mmc_snapshot_nranges(s),
			(unsigned long long)mmc_snapshot_nruns(s),
			!mmc_snapshot_discovery_complete(s) ?
				" (discovery incomplete: a diff against it can only be incomplete)" :
			bad ? " (some pages unreadable: a diff against it can only be incomplete)" : "");
	bad = !image_complete(s);
	mmc_snapshot_destroy(s);
	return bad ? EXIT_INCOMPLETE : 0;
}

/* ---- ranges, show, lint ---- */

/* Load exactly one IMAGE from the operands. */
static struct mmc_error *one_image(const struct opts *o, int argc, char **argv,
				   struct mmc_snapshot **s)
{
	struct mmc_error *err;
	int used = 0;

	err = load_image(o, argv, argc, &used, s);
	if (!err && used != argc)
		err = mmc_error_create(MMC_ERR_USAGE, argv[used],
				       "%s takes one image (a snapshot file or KERNEL DUMP): this argument is one too many",
				       o->cmd);
	if (err) {
		mmc_snapshot_destroy(*s);
		*s = NULL;
	}
	return err;
}

int cmd_ranges(const struct opts *o, int argc, char **argv)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	int rc;

	err = one_image(o, argc, argv, &s);
	if (err)
		return cli_fail(err);
	mmc_report_ranges(stdout, s, o->format);
	rc = stdout_ok();
	if (!rc && !image_complete(s))
		rc = EXIT_INCOMPLETE;
	mmc_snapshot_destroy(s);
	return rc;
}

int cmd_show(const struct opts *o, int argc, char **argv)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	size_t n;
	int rc;

	err = one_image(o, argc, argv, &s);
	if (err)
		return cli_fail(err);
	n = mmc_snapshot_nranges(s);
	if (o->range >= 0 && (size_t)o->range >= n) {
		if (n == 0)
			rc = cli_usage_error(o->cmd, "range %ld does not exist: this image has no ranges",
					     o->range);
		else if (n == 1)
			rc = cli_usage_error(o->cmd, "range %ld does not exist: this image has range 0",
					     o->range);
		else
			rc = cli_usage_error(o->cmd, "range %ld does not exist: this image has ranges 0-%zu",
					     o->range, n - 1);
		mmc_snapshot_destroy(s);
		return rc;
	}
	if (o->have_pfn) {
		if (!mmc_report_show_pfn(stdout, s, o->pfn, o->format)) {
			rc = cli_usage_error(o->cmd, "pfn 0x%llx is in no range of this image (memmapcheck ranges lists them)",
					     (unsigned long long)o->pfn);
			mmc_snapshot_destroy(s);
			return rc;
		}
	} else {
		mmc_report_show(stdout, s, o->range, o->format);
	}
	rc = stdout_ok();
	if (!rc && !image_complete(s))
		rc = EXIT_INCOMPLETE;
	mmc_snapshot_destroy(s);
	return rc;
}

struct lint_args {
	const struct mmc_snapshot *s;
	const struct mmc_lint_result *lr;
};

static struct mmc_error *render_lint(FILE *f, const void *arg, enum mmc_format fmt)
{
	const struct lint_args *l = arg;

	mmc_report_lint(f, l->s, l->lr, fmt);
	return NULL;
}

/* Pages that could not be read are "incomplete", not violations. */
static int lint_exit(const struct mmc_snapshot *s, const struct mmc_lint_result *lr)
{
	uint64_t real = lr->violations_total;
	size_t i;

	for (i = 0; i < lr->nrules; i++)
		if (!strcmp(lr->rules[i].rule, "unreadable"))
			real -= lr->rules[i].pages;
	if (real)
		return EXIT_DIFFERENT;
	return lr->incomplete || !image_complete(s) ? EXIT_INCOMPLETE : 0;
}

int cmd_lint(const struct opts *o, int argc, char **argv)
{
	const char *outs[] = { o->report };
	struct mmc_lint_opts lo = { .max_groups = o->max_groups };
	struct mmc_lint_result *lr = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	struct lint_args la;
	int rc, wrc;

	lo.per_page = per_page();
	err = check_outputs(outs, 1, argv, argc);
	if (!err)
		err = one_image(o, argc, argv, &s);
	if (!err)
		err = mmc_lint(s, &lo, &lr);
	if (err) {
		mmc_snapshot_destroy(s);
		return cli_fail(err);
	}
	mmc_report_lint(stdout, s, lr, o->format);
	rc = lint_exit(s, lr);
	wrc = stdout_ok();
	la = (struct lint_args){ s, lr };
	if (o->report) {
		int r = write_output(o->report, argv, argc, render_lint, &la, o->report_format);

		if (!wrc)
			wrc = r;
	}
	mmc_lint_result_destroy(lr);
	mmc_snapshot_destroy(s);
	return wrc ? wrc : rc;
}

/* ---- layout ---- */

static struct mmc_error *render_layout(FILE *f, const void *arg, enum mmc_format fmt)
{
	return mmc_layout_write_text(f, arg);
}

int cmd_layout(const struct opts *o, int argc, char **argv)
{
	const char *outs[] = { o->output };
	struct mmc_layout *dwarf = NULL, *saved = NULL;
	struct mmc_error *err;
	int rc = 0;

	if (argc != 1)
		return cli_usage_error(o->cmd, "one VMLINUX needed, %d arguments given", argc);
	if (!o->output && !o->check)
		return cli_usage_error(o->cmd, "-o FILE or --check FILE is missing");
	err = check_outputs(outs, 1, argv, argc);
	if (!err)
		err = readable(argv[0]);
	if (!err && o->check)
		err = readable(o->check);
	if (!err)
		err = mmc_layout_from_dwarf(argv[0], &dwarf);
	if (!err && o->check) {
		err = mmc_layout_load(o->check, &saved);
		if (!err)
			err = mmc_layout_compare(dwarf, saved, true);
	}
	if (err) {
		rc = cli_fail(err);
	} else if (o->output) {
		rc = write_output(o->output, argv, argc, render_layout, dwarf, MMC_FMT_TEXT);
	}
	/* with -o - the layout is on standard output: the summary is not */
	if (!rc && !o->quiet)
		fprintf(o->output && !strcmp(o->output, "-") ? stderr : stdout,
			"%s: release %s, build-id %s, fingerprint %016llx%s%s\n",
			argv[0], dwarf->release, dwarf->build_id,
			(unsigned long long)mmc_layout_fingerprint(dwarf),
			o->check ? ", equals " : "", o->check ? o->check : "");
	if (!rc)
		rc = stdout_ok();
	mmc_layout_destroy(dwarf);
	mmc_layout_destroy(saved);
	return rc;
}
