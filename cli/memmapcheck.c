// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memmapcheck: batch front end.  Parses arguments, runs the engine, prints.
 *
 * Exit codes: 0 identical/clean, 1 differences/violations, 2 bad usage or
 * input, 3 internal error, 4 incomplete (cannot prove).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diff.h"
#include "discover.h"
#include "kernel.h"
#include "layout.h"
#include "lint.h"
#include "report.h"
#include "snapshot.h"
#include "walk.h"

#define EXIT_DIFFERENT	1
#define EXIT_USAGE	2
#define EXIT_INTERNAL	3
#define EXIT_INCOMPLETE	4

struct opts {
	enum mmc_format format;
	const char *output;	/* -o: snapshot/layout file to write */
	const char *report;	/* --report FILE: also write the report here */
	enum mmc_format report_format;
	const char *save_base, *save_new;
	const char *check;	/* layout --check */
	long range;
	size_t max_pages;
	bool live;
	bool quiet;
	int progress;		/* -1 auto (tty), 0 off, 1 on */
};

struct progress {
	bool enabled;
	struct timespec start;
	bool shown;
	const char *what;
};

static const char usage_text[] =
"usage: memmapcheck COMMAND [OPTIONS] ARGS\n"
"\n"
"An IMAGE is either a snapshot file, or a KERNEL and a DUMP, where KERNEL is a\n"
"vmlinux with DWARF or a saved layout file, and DUMP a vmcore in any format\n"
"libkdumpfile reads (or /proc/kcore with --live).\n"
"\n"
"commands:\n"
"  ranges   IMAGE               pgmaps and ZONE_DEVICE ranges, pfns by init path\n"
"  show     IMAGE               every run of struct pages, decoded\n"
"  snapshot -o FILE KERNEL DUMP normalised struct pages of every range, to a file\n"
"  diff     BASE NEW            compare two IMAGEs (snapshot files)\n"
"  compare  BK BD NK ND         snapshot and diff two kernel+dump pairs in one go\n"
"  lint     IMAGE               check one image against the kernel's own rules\n"
"  layout   -o FILE VMLINUX     save the layout a dump check needs from a vmlinux\n"
"  layout   --check FILE VMLINUX  prove a saved layout equals the vmlinux's DWARF\n"
"\n"
"options:\n"
"  -f, --format FMT     text (default), json, ktap, junit\n"
"      --json           same as --format json\n"
"  -o, --output FILE    file to write (snapshot, layout)\n"
"      --report FILE    also write a report to FILE; --report-format FMT (ktap)\n"
"      --save-base F, --save-new F   compare: keep the snapshots\n"
"  -r, --range N        show: only range N\n"
"  -n, --max-pages N    diff: pages shown in detail (default 20)\n"
"      --live           DUMP is /proc/kcore (or a kcore-format file)\n"
"  -q, --quiet          no summary on stderr\n"
"      --progress, --no-progress   progress on stderr (default: if a terminal)\n"
"  -h, --help, -V, --version\n"
"\n"
"exit: 0 identical/clean, 1 different/violations, 2 bad usage or input,\n"
"      3 internal error, 4 incomplete (some pages could not be read)\n";

static int fail(struct mmc_error *err)
{
	int code = mmc_error_exit_code(err);

	fputs("memmapcheck: ", stderr);
	mmc_error_fprint(stderr, err);
	fputc('\n', stderr);
	mmc_error_destroy(err);
	return code;
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("memmapcheck: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'memmapcheck --help'.\n", stderr);
	return EXIT_USAGE;
}

static bool parse_format(const char *s, enum mmc_format *f)
{
	if (!strcmp(s, "text"))
		*f = MMC_FMT_TEXT;
	else if (!strcmp(s, "json"))
		*f = MMC_FMT_JSON;
	else if (!strcmp(s, "ktap"))
		*f = MMC_FMT_KTAP;
	else if (!strcmp(s, "junit"))
		*f = MMC_FMT_JUNIT;
	else
		return false;
	return true;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;

	if (!p->enabled || elapsed(&p->start) < 1.0)
		return;
	fprintf(stderr, "\r%s: %llu of %llu struct pages (%llu%%)", p->what,
		(unsigned long long)done, (unsigned long long)total,
		total ? (unsigned long long)(done * 100 / total) : 100ULL);
	p->shown = true;
}

static void end_progress(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

static bool is_snapshot_file(const char *path)
{
	char magic[8] = { 0 };
	FILE *f = fopen(path, "rb");
	bool yes = false;

	if (!f)
		return false;
	if (fread(magic, 1, 7, f) == 7)
		yes = memcmp(magic, "MMCSNAP", 7) == 0;
	fclose(f);
	return yes;
}

/* Walk one kernel+dump into a snapshot. */
static struct mmc_error *take_snapshot(const struct opts *o, const char *kernel,
				       const char *dump, struct mmc_snapshot **snap)
{
	struct progress prog = { .what = dump };
	struct mmc_walk_opts wo = {
		.created_by = "memmapcheck " MMC_VERSION " cli",
		.progress = show_progress,
		.progress_arg = &prog,
	};
	struct mmc_walk_stats st;
	struct mmc_kernel *k = NULL;
	struct mmc_error *err;
	double secs;

	prog.enabled = o->progress < 0 ? isatty(2) : o->progress;
	clock_gettime(CLOCK_MONOTONIC, &prog.start);
	err = mmc_kernel_open(kernel, dump, o->live, &k);
	if (err)
		return err;
	err = mmc_walk(k, NULL, &wo, snap, &st);
	end_progress(&prog);
	secs = elapsed(&prog.start);
	if (!err && !o->quiet)
		fprintf(stderr,
			"memmapcheck: %s: %llu struct pages in %zu ranges, %llu unreadable, %llu unmapped, %llu never initialised; %.2f s (%.1f M pages/s)\n",
			dump, (unsigned long long)st.pages,
			mmc_snapshot_nranges(*snap),
			(unsigned long long)st.unreadable,
			(unsigned long long)st.unmapped,
			(unsigned long long)st.not_init, secs,
			secs > 0 ? st.pages / secs / 1e6 : 0.0);
	mmc_kernel_destroy(k);
	return err;
}

/* IMAGE = SNAPSHOT | KERNEL DUMP; consumes 1 or 2 arguments. */
static struct mmc_error *load_image(const struct opts *o, char **argv, int argc,
				    int *used, struct mmc_snapshot **snap)
{
	if (argc >= 1 && is_snapshot_file(argv[0])) {
		*used = 1;
		return mmc_snapshot_load(argv[0], snap);
	}
	if (argc < 2)
		return mmc_error_create(MMC_ERR_USAGE, argc ? argv[0] : NULL,
					"not a snapshot file, and no DUMP given after KERNEL");
	*used = 2;
	return take_snapshot(o, argv[0], argv[1], snap);
}

static int write_report_file(const struct opts *o,
			     void (*render)(FILE *, const void *, enum mmc_format),
			     const void *arg)
{
	FILE *f;

	if (!o->report)
		return 0;
	f = fopen(o->report, "w");
	if (!f)
		return fail(mmc_error_os(errno, o->report, "open"));
	render(f, arg, o->report_format);
	if (fclose(f) != 0)
		return fail(mmc_error_os(errno, o->report, "write"));
	return 0;
}

struct diff_args {
	const struct mmc_snapshot *a, *b;
	const struct mmc_diff_result *res;
};

static void render_diff(FILE *f, const void *arg, enum mmc_format fmt)
{
	const struct diff_args *d = arg;

	mmc_report_diff(f, d->a, d->b, d->res, fmt);
}

static int run_diff(const struct opts *o, struct mmc_snapshot *a,
		    struct mmc_snapshot *b)
{
	struct mmc_diff_opts dopts = { .max_pages = o->max_pages, .max_groups = 200 };
	struct mmc_diff_result *res = NULL;
	struct mmc_error *err;
	struct diff_args da;
	int rc;

	err = mmc_diff(a, b, &dopts, &res);
	if (err)
		return fail(err);
	mmc_report_diff(stdout, a, b, res, o->format);
	da = (struct diff_args){ a, b, res };
	rc = write_report_file(o, render_diff, &da);
	if (!rc)
		rc = (int)res->verdict;
	mmc_diff_result_destroy(res);
	return rc;
}

/* The diff of a and b unless an earlier step failed; frees both. */
static int diff_and_free(const struct opts *o, struct mmc_snapshot *a,
			 struct mmc_snapshot *b, struct mmc_error *err)
{
	int rc = err ? fail(err) : run_diff(o, a, b);

	if (a)
		mmc_snapshot_destroy(a);
	if (b)
		mmc_snapshot_destroy(b);
	return rc;
}

static int cmd_diff(const struct opts *o, int argc, char **argv)
{
	struct mmc_snapshot *a = NULL, *b = NULL;
	struct mmc_error *err;
	int used = 0, used2 = 0;

	err = load_image(o, argv, argc, &used, &a);
	if (!err)
		err = load_image(o, argv + used, argc - used, &used2, &b);
	if (!err && used + used2 != argc)
		err = mmc_error_create(MMC_ERR_USAGE, NULL,
				       "diff takes two images (snapshot files or KERNEL DUMP pairs)");
	return diff_and_free(o, a, b, err);
}

static int cmd_compare(const struct opts *o, int argc, char **argv)
{
	struct mmc_snapshot *a = NULL, *b = NULL;
	struct mmc_error *err = NULL;

	if (argc != 4)
		return usage_error("%s", "compare takes BASE_KERNEL BASE_DUMP NEW_KERNEL NEW_DUMP");
	err = take_snapshot(o, argv[0], argv[1], &a);
	if (!err)
		err = take_snapshot(o, argv[2], argv[3], &b);
	if (!err && o->save_base)
		err = mmc_snapshot_save(a, o->save_base);
	if (!err && o->save_new)
		err = mmc_snapshot_save(b, o->save_new);
	return diff_and_free(o, a, b, err);
}

static int cmd_snapshot(const struct opts *o, int argc, char **argv)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	uint64_t bad;

	if (!o->output)
		return usage_error("%s", "snapshot needs -o FILE");
	if (argc != 2 && !(o->live && argc == 1))
		return usage_error("%s", "snapshot takes KERNEL DUMP (or KERNEL with --live)");
	err = take_snapshot(o, argv[0], argc == 2 ? argv[1] : "/proc/kcore", &s);
	if (!err)
		err = mmc_snapshot_save(s, o->output);
	if (err) {
		if (s)
			mmc_snapshot_destroy(s);
		return fail(err);
	}
	bad = mmc_snapshot_count_state(s, MMC_PS_UNREADABLE) +
	      mmc_snapshot_count_state(s, MMC_PS_UNMAPPED);
	if (!o->quiet)
		fprintf(stderr, "memmapcheck: wrote %s: %llu pages in %zu ranges, %llu runs%s\n",
			o->output, (unsigned long long)mmc_snapshot_npages(s),
			mmc_snapshot_nranges(s),
			(unsigned long long)mmc_snapshot_nruns(s),
			bad ? " (some pages unreadable: a diff against it can only be incomplete)" : "");
	mmc_snapshot_destroy(s);
	return 0;
}

/* Pages that could not be read are "incomplete", not violations. */
static int lint_exit(const struct mmc_lint_result *lr)
{
	uint64_t real = lr->violations_total;
	size_t i;

	for (i = 0; i < lr->nrules; i++)
		if (!strcmp(lr->rules[i].rule, "unreadable"))
			real -= lr->rules[i].pages;
	if (real)
		return EXIT_DIFFERENT;
	return lr->incomplete ? EXIT_INCOMPLETE : 0;
}

static int cmd_one_image(const struct opts *o, int argc, char **argv,
			 const char *cmd)
{
	struct mmc_snapshot *s = NULL;
	struct mmc_lint_result *lr = NULL;
	struct mmc_lint_opts lo = { .max_groups = 200 };
	struct mmc_error *err;
	int used = 0, rc = 0;

	err = load_image(o, argv, argc, &used, &s);
	if (!err && used != argc)
		err = mmc_error_create(MMC_ERR_USAGE, NULL,
				       "%s takes one image (a snapshot file or KERNEL DUMP)",
				       cmd);
	if (err) {
		if (s)
			mmc_snapshot_destroy(s);
		return fail(err);
	}
	if (!strcmp(cmd, "ranges")) {
		mmc_report_ranges(stdout, s, o->format);
	} else if (!strcmp(cmd, "show")) {
		if (o->range >= (long)mmc_snapshot_nranges(s)) {
			mmc_snapshot_destroy(s);
			return usage_error("range %s does not exist", "N");
		}
		mmc_report_show(stdout, s, o->range, o->format);
	} else {
		err = mmc_lint(s, &lo, &lr);
		if (err) {
			mmc_snapshot_destroy(s);
			return fail(err);
		}
		mmc_report_lint(stdout, s, lr, o->format);
		if (o->report) {
			FILE *f = fopen(o->report, "w");

			if (!f) {
				rc = fail(mmc_error_os(errno, o->report, "open"));
			} else {
				mmc_report_lint(f, s, lr, o->report_format);
				fclose(f);
			}
		}
		if (!rc)
			rc = lint_exit(lr);
		mmc_lint_result_destroy(lr);
	}
	mmc_snapshot_destroy(s);
	return rc;
}

static int cmd_layout(const struct opts *o, int argc, char **argv)
{
	struct mmc_layout *dwarf = NULL, *saved = NULL;
	struct mmc_error *err;

	if (argc != 1)
		return usage_error("%s", "layout takes one VMLINUX");
	if (!o->output && !o->check)
		return usage_error("%s", "layout needs -o FILE or --check FILE");
	err = mmc_layout_from_dwarf(argv[0], &dwarf);
	if (!err && o->output)
		err = mmc_layout_save(dwarf, o->output);
	if (!err && o->check) {
		err = mmc_layout_load(o->check, &saved);
		if (!err)
			err = mmc_layout_compare(dwarf, saved, true);
	}
	if (!err && !o->quiet)
		printf("%s: release %s, build-id %s, fingerprint %016llx%s%s\n",
		       argv[0], dwarf->release, dwarf->build_id,
		       (unsigned long long)mmc_layout_fingerprint(dwarf),
		       o->check ? ", equals " : "", o->check ? o->check : "");
	if (dwarf)
		mmc_layout_destroy(dwarf);
	if (saved)
		mmc_layout_destroy(saved);
	return err ? fail(err) : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		{ "report", required_argument, NULL, 'R' },
		{ "report-format", required_argument, NULL, 'F' },
		{ "save-base", required_argument, NULL, 'B' },
		{ "save-new", required_argument, NULL, 'N' },
		{ "check", required_argument, NULL, 'C' },
		{ "range", required_argument, NULL, 'r' },
		{ "max-pages", required_argument, NULL, 'n' },
		{ "live", no_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "progress", no_argument, NULL, 'P' },
		{ "no-progress", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct opts o = {
		.format = MMC_FMT_TEXT, .report_format = MMC_FMT_KTAP,
		.range = -1, .max_pages = 20, .progress = -1,
	};
	const char *cmd;
	char *end;
	int c;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		puts("memmapcheck " MMC_VERSION);
		return 0;
	}
	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	optind = 2;
	opterr = 0;	/* our own message, without argv[0]'s path */
	while ((c = getopt_long(argc, argv, "f:o:r:n:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!parse_format(optarg, &o.format))
				return usage_error("unknown format '%s'", optarg);
			break;
		case 'J':
			o.format = MMC_FMT_JSON;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'R':
			o.report = optarg;
			break;
		case 'F':
			if (!parse_format(optarg, &o.report_format))
				return usage_error("unknown format '%s'", optarg);
			break;
		case 'B':
			o.save_base = optarg;
			break;
		case 'N':
			o.save_new = optarg;
			break;
		case 'C':
			o.check = optarg;
			break;
		case 'r':
			errno = 0;
			o.range = strtol(optarg, &end, 0);
			if (errno || *end || o.range < 0)
				return usage_error("bad range '%s'", optarg);
			break;
		case 'n':
			errno = 0;
			o.max_pages = strtoul(optarg, &end, 0);
			if (errno || *end)
				return usage_error("bad number '%s'", optarg);
			break;
		case 'L':
			o.live = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'P':
			o.progress = 1;
			break;
		case 'p':
			o.progress = 0;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			puts("memmapcheck " MMC_VERSION);
			return 0;
		default:
			return usage_error("unknown option or missing argument: %s",
					   argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (!strcmp(cmd, "diff"))
		return cmd_diff(&o, argc, argv);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(&o, argc, argv);
	if (!strcmp(cmd, "snapshot"))
		return cmd_snapshot(&o, argc, argv);
	if (!strcmp(cmd, "ranges") || !strcmp(cmd, "show") || !strcmp(cmd, "lint"))
		return cmd_one_image(&o, argc, argv, cmd);
	if (!strcmp(cmd, "layout"))
		return cmd_layout(&o, argc, argv);
	return usage_error("unknown command '%s'", cmd);
}
