// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How a command of the CLI gets its images: a snapshot file loaded, or a
 * kernel and a dump walked (compare's two at once), with the progress and
 * the walk's summary on stderr, and the warning a damaged or partly
 * unread image gives even with -q.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "kernel.h"
#include "outfile.h"
#include "snapshot.h"
#include "walk.h"

struct progress {
	bool enabled;
	struct timespec start;
	bool shown;
	const char *what;
};

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

uint64_t pages_unread(const struct mmc_snapshot *s)
{
	return mmc_snapshot_count_state(s, MMC_PS_UNREADABLE) +
	       mmc_snapshot_count_state(s, MMC_PS_UNMAPPED);
}

/* Every range found and every struct page read. */
bool image_complete(const struct mmc_snapshot *s)
{
	return mmc_snapshot_discovery_complete(s) && pages_unread(s) == 0;
}

/*
 * What a damaged or partly unreadable dump gives, said even with -q: a
 * verdict on such an image is at best incomplete, and this is why.
 */
static void warn_image(const char *dump, const struct mmc_snapshot *s)
{
	const char *problem = mmc_snapshot_discovery_problem(s);
	size_t i, n = mmc_snapshot_nnotes(s);
	uint64_t addr;

	for (i = 0; i < n; i++)
		fprintf(stderr, "memmapcheck: warning: %s\n", mmc_snapshot_note(s, i));
	if (problem && !strncmp(problem, MMC_IDENTITY_UNCHECKED, strlen(MMC_IDENTITY_UNCHECKED))) {
		fprintf(stderr, "memmapcheck: %s: %s: the image cannot be complete\n", dump, problem);
	} else if (problem) {
		fprintf(stderr, "memmapcheck: %s: ", dump);
		if (mmc_snapshot_discovery_address(s, &addr))
			fprintf(stderr, "0x%llx: ", (unsigned long long)addr);
		fprintf(stderr, "discovery incomplete: %s; the image holds only the %zu ranges found before it\n",
			problem, mmc_snapshot_nranges(s));
	}
}

/* What a walk gives on stderr: the summary (unless -q) and warn_image(). */
static void walk_summary(const struct opts *o, const char *dump,
			 const struct mmc_snapshot *snap,
			 const struct mmc_walk_stats *st, double secs)
{
	if (!o->quiet)
		fprintf(stderr,
			"memmapcheck: %s: %llu struct pages in %zu ranges, %llu unreadable, %llu unmapped, %llu never initialised; %.2f s (%.1f M pages/s)\n",
			dump, (unsigned long long)st->pages,
			mmc_snapshot_nranges(snap),
			(unsigned long long)st->unreadable,
			(unsigned long long)st->unmapped,
			(unsigned long long)st->not_init, secs,
			secs > 0 ? st->pages / secs / 1e6 : 0.0);
	warn_image(dump, snap);
}

static void walk_opts_init(const struct opts *o, struct progress *prog,
			   const char *dump, struct mmc_walk_opts *wo)
{
	*prog = (struct progress){ .what = dump };
	prog->enabled = o->progress < 0 ? isatty(2) : o->progress;
	clock_gettime(CLOCK_MONOTONIC, &prog->start);
	*wo = (struct mmc_walk_opts){
		.created_by = "memmapcheck " MMC_VERSION " cli",
		.progress = show_progress,
		.progress_arg = prog,
		.threads = o->threads,
	};
}

/*
 * Walk one kernel+dump into a snapshot.  hooks, if not NULL, gives the
 * walk's created and cancel callbacks (walk.h).
 */
struct mmc_error *walk_image(const struct opts *o, const char *kernel,
			     const char *dump, const struct mmc_walk_opts *hooks,
			     struct mmc_snapshot **snap)
{
	struct progress prog;
	struct mmc_walk_opts wo;
	struct mmc_walk_stats st;
	struct mmc_kernel *k = NULL;
	struct mmc_error *err;

	walk_opts_init(o, &prog, dump, &wo);
	if (hooks) {
		wo.created = hooks->created;
		wo.created_arg = hooks->created_arg;
		wo.cancel = hooks->cancel;
		wo.cancel_arg = hooks->cancel_arg;
	}
	err = mmc_kernel_open(kernel, dump, o->live, &k);
	if (err)
		return err;
	err = mmc_walk(k, NULL, &wo, snap, &st);
	end_progress(&prog);
	if (!err)
		walk_summary(o, dump, *snap, &st, elapsed(&prog.start));
	mmc_kernel_destroy(k);
	return err;
}

struct mmc_error *take_snapshot(const struct opts *o, const char *kernel,
				const char *dump, struct mmc_snapshot **snap)
{
	return walk_image(o, kernel, dump, NULL, snap);
}

/*
 * compare's two images, argv[0..3] = BASE_KERNEL BASE_DUMP NEW_KERNEL
 * NEW_DUMP, walked at once (mmc_walk_pair()).  The summaries are printed
 * base first, as two take_snapshot() calls would; on failure the base's
 * error is returned first and nothing is kept.
 */
struct mmc_error *take_snapshot_pair(const struct opts *o, char **argv,
				     struct mmc_snapshot **a,
				     struct mmc_snapshot **b)
{
	struct mmc_walk_job job[2];
	struct progress prog[2];
	struct mmc_error *err;
	int i;

	for (i = 0; i < 2; i++) {
		job[i] = (struct mmc_walk_job){
			.kernel = argv[2 * i], .dump = argv[2 * i + 1], .live = o->live,
		};
		walk_opts_init(o, &prog[i], job[i].dump, &job[i].opts);
	}
	mmc_walk_pair(job);
	end_progress(&prog[0]);
	end_progress(&prog[1]);
	for (i = 0; i < 2; i++)
		if (!job[0].err && !job[i].err)
			walk_summary(o, job[i].dump, job[i].snap, &job[i].stats,
				     job[i].seconds);
	err = job[0].err ? job[0].err : job[1].err;
	if (err) {
		if (job[0].err)
			mmc_error_destroy(job[1].err);
		mmc_snapshot_destroy(job[0].snap);
		mmc_snapshot_destroy(job[1].snap);
		return err;
	}
	*a = job[0].snap;
	*b = job[1].snap;
	return NULL;
}

/* NULL if path can be read; "no such file" and the like otherwise. */
struct mmc_error *readable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return mmc_error_create(MMC_ERR_USAGE, path, "no such file");
		return mmc_error_os(errno, path, "stat");
	}
	if (S_ISDIR(st.st_mode))
		return mmc_error_create(MMC_ERR_USAGE, path, "is a directory");
	/* a FIFO would block the open (and a read) until a writer came */
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return mmc_infile_check(path);
	if (access(path, R_OK) != 0)
		return mmc_error_os(errno, path, "open");
	return NULL;
}

/* IMAGE = SNAPSHOT | KERNEL DUMP; consumes 1 or 2 arguments. */
struct mmc_error *load_image(const struct opts *o, char **argv, int argc,
			     int *used, struct mmc_snapshot **snap)
{
	struct mmc_error *err;

	*used = 0;
	if (argc < 1)
		return mmc_error_create(MMC_ERR_USAGE, NULL,
					"%s: an IMAGE is missing (a snapshot file, or KERNEL DUMP)",
					o->cmd);
	err = readable(argv[0]);
	if (err)
		return err;
	if (mmc_is_snapshot_file(argv[0])) {
		const char *problem;

		*used = 1;
		err = mmc_snapshot_load(argv[0], snap);
		problem = err ? NULL : mmc_snapshot_discovery_problem(*snap);
		if (problem && !strncmp(problem, MMC_IDENTITY_UNCHECKED,
					strlen(MMC_IDENTITY_UNCHECKED)))
			/* said by the walk that made it; said again for its reader */
			fprintf(stderr, "memmapcheck: %s: %s: the image cannot be complete\n",
				argv[0], problem);
		return err;
	}
	if (argc < 2) {
		if (!o->live)
			return mmc_error_create(MMC_ERR_USAGE, argv[0],
						"not a snapshot file, so a KERNEL: the DUMP after it is missing");
	} else {
		err = readable(argv[1]);
		if (err)
			return err;
	}
	*used = argc < 2 ? 1 : 2;
	return take_snapshot(o, argv[0], argc < 2 ? "/proc/kcore" : argv[1], snap);
}
