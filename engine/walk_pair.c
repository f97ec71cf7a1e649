// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare's two walks at once.  The engine keeps no global state, so two
 * kernels are opened and walked on two threads; only the callbacks of the
 * caller (progress on a terminal, a cancel flag) are serialised here.
 * Reading a vmlinux's DWARF is not: libelf and libdw (elfutils) are not
 * built thread-safe, so two opens that read DWARF take turns, and a saved
 * layout (the usual case for large images) opens alongside the other.
 */
#include "walk.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "walk_int.h"

struct pair {
	struct mmc_walk_job *job;
	pthread_mutex_t lock;		/* the callbacks */
	pthread_mutex_t open_lock;	/* DWARF readers */
	bool serial_open;
};

struct pair_job {
	struct pair *pair;
	struct mmc_walk_job *job;
	struct mmc_walk_opts opts;	/* job->opts with locked callbacks */
};

static void locked_progress(void *arg, uint64_t done, uint64_t total)
{
	struct pair_job *pj = arg;

	pthread_mutex_lock(&pj->pair->lock);
	pj->job->opts.progress(pj->job->opts.progress_arg, done, total);
	pthread_mutex_unlock(&pj->pair->lock);
}

static bool locked_cancel(void *arg)
{
	struct pair_job *pj = arg;
	bool stop;

	pthread_mutex_lock(&pj->pair->lock);
	stop = pj->job->opts.cancel(pj->job->opts.cancel_arg);
	pthread_mutex_unlock(&pj->pair->lock);
	return stop;
}

/* A file that starts like an ELF object (a vmlinux, read with libdw). */
static bool starts_elf(const char *path)
{
	unsigned char m[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);
	close(fd);
	return elf;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void *run_job(void *arg)
{
	struct pair_job *pj = arg;
	struct mmc_walk_job *job = pj->job;
	struct mmc_kernel *k = NULL;
	double t0 = now();

	if (pj->pair->serial_open)
		pthread_mutex_lock(&pj->pair->open_lock);
	job->err = mmc_kernel_open(job->kernel, job->dump, job->live, &k);
	if (pj->pair->serial_open)
		pthread_mutex_unlock(&pj->pair->open_lock);
	if (!job->err)
		job->err = mmc_walk(k, NULL, &pj->opts, &job->snap, &job->stats);
	mmc_kernel_destroy(k);
	job->seconds = now() - t0;
	return NULL;
}

void mmc_walk_pair(struct mmc_walk_job job[2])
{
	unsigned int half = mmc_walk_default_threads() / 2;
	struct pair_job pj[2];
	struct pair p = { .job = job };
	pthread_t t;
	bool started;
	int i;

	pthread_mutex_init(&p.lock, NULL);
	pthread_mutex_init(&p.open_lock, NULL);
	p.serial_open = starts_elf(job[0].kernel) || starts_elf(job[1].kernel);
	for (i = 0; i < 2; i++) {
		pj[i].pair = &p;
		pj[i].job = &job[i];
		pj[i].opts = job[i].opts;
		/* the environment's count is per walk (mmc_walk) */
		if (!pj[i].opts.threads && !getenv("MEMMAPCHECK_THREADS"))
			pj[i].opts.threads = half ? half : 1;
		if (job[i].opts.progress) {
			pj[i].opts.progress = locked_progress;
			pj[i].opts.progress_arg = &pj[i];
		}
		if (job[i].opts.cancel) {
			pj[i].opts.cancel = locked_cancel;
			pj[i].opts.cancel_arg = &pj[i];
		}
		job[i].snap = NULL;
		job[i].err = NULL;
		memset(&job[i].stats, 0, sizeof(job[i].stats));
	}
	/* the base on a thread of its own, the new image on this one */
	started = pthread_create(&t, NULL, run_job, &pj[0]) == 0;
	if (!started)
		run_job(&pj[0]);
	run_job(&pj[1]);
	if (started)
		pthread_join(t, NULL);
	pthread_mutex_destroy(&p.open_lock);
	pthread_mutex_destroy(&p.lock);
}
