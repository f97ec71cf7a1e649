// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The walk with several reading threads against the sequential walk
 * (threads = 1) on synthetic kcore images: the snapshot files must be
 * byte-identical, whatever the image holds (shared tail frames, a frame
 * the dump lacks, holes in the page tables, 5-level tables, frames mapped
 * twice).  The reference is the sequential walk, a second run of the
 * engine: an equivalence check, not a proof of either.  Also: a read that
 * fails on a reading thread is the walk's error, a cancel stops a threaded
 * walk, and a memory source without second readers is walked on one thread.
 * compare's pair of walks (mmc_walk_pair) against two walks alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "snapshot.h"
#include "synth_kernel.h"
#include "synth_open.h"
#include "tap.h"
#include "walk.h"

static char dir[] = "/tmp/mmc-walkthr-XXXXXX";

/* The snapshot file's bytes of a walk with `threads` threads; NULL on error. */
static char *walk_bytes(struct mmc_kernel *k, unsigned int threads, size_t *len,
			struct mmc_walk_stats *st)
{
	struct mmc_walk_opts wo = { .created_by = "test", .threads = threads };
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;
	char *buf = NULL;
	FILE *f;

	err = mmc_walk(k, NULL, &wo, &s, st);
	if (err) {
		char *m = mmc_error_string(err);

		tap_diag("walk, %u threads: %s", threads, m ? m : "?");
		free(m);
		mmc_error_destroy(err);
		return NULL;
	}
	f = open_memstream(&buf, len);
	if (f) {
		err = mmc_snapshot_write(s, f, "memory");
		fclose(f);
		if (err) {
			mmc_error_destroy(err);
			free(buf);
			buf = NULL;
		}
	}
	mmc_snapshot_destroy(s);
	return buf;
}

static void same_for_threads(const struct synth_opts *o, const char *name)
{
	static const unsigned int counts[] = { 2, 3, 8 };
	struct mmc_walk_stats st1, stn;
	struct mmc_kernel *k = NULL;
	struct mmc_error *err = synth_open(dir, name, o, &k);
	char *one = NULL;
	size_t n1 = 0, i;

	if (err) {
		tap_ok(0, "%s: opens", name);
		mmc_error_destroy(err);
		return;
	}
	one = walk_bytes(k, 1, &n1, &st1);
	tap_ok(one != NULL, "%s: sequential walk (%llu pages, %llu unreadable)", name,
	       (unsigned long long)st1.pages, (unsigned long long)st1.unreadable);
	for (i = 0; one && i < sizeof(counts) / sizeof(counts[0]); i++) {
		size_t nn = 0;
		char *many = walk_bytes(k, counts[i], &nn, &stn);

		tap_ok(many && nn == n1 && !memcmp(one, many, n1) &&
		       stn.pages == st1.pages && stn.unreadable == st1.unreadable &&
		       stn.unmapped == st1.unmapped && stn.frames_read == st1.frames_read,
		       "%s: %u threads: the same %zu snapshot bytes and counts",
		       name, counts[i], n1);
		free(many);
	}
	free(one);
	mmc_kernel_destroy(k);
}

/* A memory source that fails (not NODATA) at one physical page, on every
 * reader: the walk must return that error from whichever thread read it. */
struct failing {
	const struct mmc_mem_ops *inner;
	void *inner_priv;
	uint64_t bad_paddr;
	bool is_reader;
};

static struct mmc_error *failing_read(void *priv, enum mmc_space space, uint64_t addr,
				      void *buf, size_t len, size_t *done)
{
	struct failing *f = priv;

	if (space == MMC_PHYSADDR && f->bad_paddr >= addr && f->bad_paddr - addr < len) {
		*done = 0;
		return mmc_error_at(MMC_ERR_INPUT, "failing", f->bad_paddr, "I/O error here");
	}
	return f->inner->read(f->inner_priv, space, addr, buf, len, done);
}

static void failing_reader_destroy(void *priv)
{
	struct failing *f = priv;

	if (f && f->is_reader)
		f->inner->reader_destroy(f->inner_priv);
	free(f);
}

static struct mmc_error *failing_reader(void *priv, void **out)
{
	struct failing *src = priv, *f = calloc(1, sizeof(*f));
	struct mmc_error *err;

	if (!f)
		return mmc_error_nomem();
	*f = *src;
	f->is_reader = true;
	err = src->inner->reader(src->inner_priv, &f->inner_priv);
	if (err) {
		free(f);
		return err;
	}
	*out = f;
	return NULL;
}

static void failing_destroy(void *priv)
{
	struct failing *f = priv;

	f->inner->destroy(f->inner_priv);
	free(f);
}

static const struct mmc_mem_ops failing_ops = {
	.read = failing_read,
	.destroy = failing_destroy,
	.reader = failing_reader,
	.reader_destroy = failing_reader_destroy,
};

/* ops without readers: the crash extension's case */
static const struct mmc_mem_ops single_ops = {
	.read = failing_read,
	.destroy = failing_destroy,
};

static struct failing *wrap(struct mmc_kernel *k, const struct mmc_mem_ops *ops,
			    uint64_t bad)
{
	struct failing *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->inner = k->mem->ops;
	f->inner_priv = k->mem->priv;
	f->bad_paddr = bad;
	k->mem->ops = ops;
	k->mem->priv = f;
	return f;
}

/*
 * compare's two walks at once (mmc_walk_pair) against each walked alone:
 * the same snapshot bytes, and an error of one job stays its own.
 */
static void pair_check(void)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1 };
	struct mmc_walk_job job[2];
	struct mmc_layout *l = mmc_layout_create();
	char layout[256], core[2][256];
	char *alone[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	int i, same = 1;

	snprintf(layout, sizeof(layout), "%s/pair.layout", dir);
	for (i = 0; i < 2; i++)
		snprintf(core[i], sizeof(core[i]), "%s/pair%d.core", dir, i);
	if (!l || synth_layout(l) || mmc_layout_save(l, layout)) {
		mmc_layout_destroy(l);
		tap_ok(0, "pair: layout saved");
		return;
	}
	mmc_layout_destroy(l);
	o.huge_range = 1;
	if (synth_write(core[0], &o))
		same = 0;
	o.huge_range = 0;
	o.slab_shift = 5;
	o.frame_shift = 9;
	o.bad_tail = SK_R1_PFN + 512 + 3;
	if (synth_write(core[1], &o))
		same = 0;
	for (i = 0; i < 2 && same; i++) {
		struct mmc_kernel *k = NULL;
		struct mmc_error *err = mmc_kernel_open(layout, core[i], true, &k);

		if (!err)
			alone[i] = walk_bytes(k, 1, &len[i], NULL);
		mmc_error_destroy(err);
		mmc_kernel_destroy(k);
		same = same && alone[i];
	}
	memset(job, 0, sizeof(job));
	for (i = 0; i < 2; i++) {
		job[i].kernel = layout;
		job[i].dump = core[i];
		job[i].live = true;
		job[i].opts.created_by = "test";
	}
	mmc_walk_pair(job);
	for (i = 0; i < 2; i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = job[i].snap ? open_memstream(&buf, &n) : NULL;

		if (f) {
			struct mmc_error *err = mmc_snapshot_write(job[i].snap, f, "memory");

			fclose(f);
			if (err) {
				mmc_error_destroy(err);
				same = 0;
			}
		}
		same = same && !job[i].err && buf && n == len[i] &&
		       !memcmp(buf, alone[i], n);
		free(buf);
		free(alone[i]);
		if (job[i].snap)
			mmc_snapshot_destroy(job[i].snap);
		mmc_error_destroy(job[i].err);
	}
	tap_ok(same, "pair: both snapshots byte-identical to each walked alone");

	memset(job, 0, sizeof(job));
	job[0].kernel = job[1].kernel = layout;
	job[0].dump = core[0];
	job[1].dump = dir;	/* a directory: not a dump */
	job[0].live = job[1].live = true;
	mmc_walk_pair(job);
	tap_ok(job[0].snap && !job[0].err && !job[1].snap && job[1].err,
	       "pair: the new image's error is its own, the base is walked");
	for (i = 0; i < 2; i++) {
		if (job[i].snap)
			mmc_snapshot_destroy(job[i].snap);
		mmc_error_destroy(job[i].err);
	}
}

static int cancels;

static bool cancel_second(void *arg)
{
	(void)arg;
	return ++cancels >= 2;
}

static const struct synth_opts base = { .bad_tail = -1, .wild_tail = -1 };

/* Images whose walks must not depend on the number of threads. */
static void test_same_for_threads(void)
{
	struct synth_opts o = base;

	same_for_threads(&o, "base.core");
	o.drop_frame = sk_vmemmap(&o) + SK_R1_PFN * 64 + 8192;
	same_for_threads(&o, "drop.core");
	o.drop_frame = 0;
	o.huge_range = 1;
	same_for_threads(&o, "huge.core");
	o.huge_range = 0;
	o.la57 = 1;
	same_for_threads(&o, "la57.core");
	o.la57 = 0;
	o.double_map = 1;
	o.vmemmap_cross = 1;
	same_for_threads(&o, "cross.core");
}

/* A hard read error on a reading thread fails the walk. */
static void test_read_failure(void)
{
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_walk_stats st;
	struct mmc_error *err;
	size_t len;
	char *b;

	err = synth_open(dir, "fail.core", &base, &k);
	if (!err) {
		uint64_t bad = 0;
		struct mmc_snapshot *ok = NULL;

		/* the frame behind range 1's first struct page */
		err = mmc_walk(k, NULL, &(struct mmc_walk_opts){ .threads = 1 }, &ok, NULL);
		if (!err) {
			struct mmc_vframe vf;

			mmc_snapshot_range_vframe(ok, 1, 0, &vf);
			bad = vf.paddr + 100;
			mmc_snapshot_destroy(ok);
		}
		if (!err && bad && wrap(k, &failing_ops, bad)) {
			err = mmc_walk(k, NULL, &(struct mmc_walk_opts){ .threads = 4 }, &s, NULL);
			tap_ok(err && err->code == MMC_ERR_INPUT && !s,
			       "a read failing in a walk of 4 threads fails the walk (%s)",
			       err ? mmc_error_code_name(err->code) : "no error");
			mmc_error_destroy(err);
			err = NULL;
			k->mem->ops = &single_ops;
			b = walk_bytes(k, 4, &len, &st);
			tap_ok(!b, "the same without second readers (one thread) fails too");
			free(b);
			k->mem->ops = &failing_ops;
		} else {
			tap_ok(0, "wrapping the memory source");
		}
	}
	if (err)
		tap_ok(0, "fail.core opens");
	mmc_error_destroy(err);
	mmc_kernel_destroy(k);
}

/* Cancel between windows of a threaded walk: the huge range has many. */
static void test_cancel(void)
{
	struct synth_opts o = base;
	struct mmc_kernel *k = NULL;
	struct mmc_snapshot *s = NULL;
	struct mmc_error *err;

	o.huge_range = 1;
	err = synth_open(dir, "cancel.core", &o, &k);
	if (!err) {
		struct mmc_walk_opts wo = { .threads = 3, .cancel = cancel_second };

		err = mmc_walk(k, NULL, &wo, &s, NULL);
		tap_ok(err && err->code == MMC_ERR_INTERRUPTED && !s,
		       "a cancelled threaded walk says interrupted and keeps nothing");
		mmc_error_destroy(err);
	} else {
		tap_ok(0, "cancel.core opens");
		mmc_error_destroy(err);
	}
	mmc_kernel_destroy(k);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");

	test_same_for_threads();
	test_read_failure();
	pair_check();
	test_cancel();

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
