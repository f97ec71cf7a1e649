// SPDX-License-Identifier: GPL-2.0-or-later
/* Folding runs into patterns (engine/snapshot_seq.c): whatever sequence of
 * runs goes in, the runs read back are exactly those (the expected values
 * are the generator's own list, not the builder's output), through a file
 * too; repeated bodies (1..20 runs, values moving by a delta per
 * repetition, some repetitions broken halfway, bodies longer than the
 * builder looks for) fold into few patterns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot.h"
#include "tap.h"

struct genrun {
	uint64_t count;
	struct mmc_nrec first, stride;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A run: class mix and values from the seed; raw slots keep v == raw. */
static void mkrun(uint64_t *s, struct genrun *r, uint64_t salt)
{
	memset(r, 0, sizeof(*r));
	r->count = 1 + rnd(s) % 5;
	r->first.nslots = r->stride.nslots = 4;
	r->first.role = r->stride.role = (uint8_t)(salt % 2);
	for (unsigned int k = 0; k < 4; k++) {
		uint8_t cls = (uint8_t)((salt >> (2 * k)) % 3 == 0 ? MMC_V_RAW :
					(salt >> (2 * k)) % 3 == 1 ? MMC_V_PAGE : MMC_V_SELF);
		int64_t v = (int64_t)(rnd(s) % 1000);

		r->first.slot[k].cls = r->stride.slot[k].cls = cls;
		r->first.slot[k].v = v;
		r->first.slot[k].raw = cls == MMC_V_RAW ? (uint64_t)v : rnd(s);
		r->stride.slot[k].v = (int64_t)(rnd(s) % 3) - 1;
		r->stride.slot[k].raw = cls == MMC_V_RAW ? (uint64_t)r->stride.slot[k].v : rnd(s) % 64;
	}
}

/* Body b moved by r repetitions: v and raw of every slot by d*r. */
static void moved(const struct genrun *b, const int64_t *d, uint64_t r, struct genrun *out)
{
	*out = *b;
	for (unsigned int k = 0; k < 4; k++) {
		out->first.slot[k].v += d[k] * (int64_t)r;
		out->first.slot[k].raw += (uint64_t)(d[k] * (int64_t)r);
	}
}

static size_t generate(uint64_t seed, struct genrun *runs, size_t max)
{
	uint64_t s = seed;
	size_t n = 0;

	while (n < max) {
		uint64_t kind = rnd(&s) % 4;

		if (kind == 0) {
			mkrun(&s, &runs[n++], rnd(&s));
			continue;
		}
		{
			size_t k = 1 + rnd(&s) % 20, reps = 2 + rnd(&s) % 40;
			struct genrun body[20];
			int64_t d[4];

			for (size_t b = 0; b < k; b++)
				mkrun(&s, &body[b], rnd(&s));
			for (unsigned int j = 0; j < 4; j++)
				d[j] = (int64_t)(rnd(&s) % 7) - 3;
			for (size_t r = 0; r < reps && n < max; r++)
				for (size_t b = 0; b < k && n < max; b++) {
					if (kind == 3 && r == reps / 2 && b == k / 2)
						break;	/* a repetition broken halfway */
					moved(&body[b], d, r, &runs[n++]);
				}
		}
	}
	return n;
}

static bool same(const struct mmc_nrec *x, const struct mmc_nrec *y)
{
	if (x->state != y->state || x->role != y->role || x->nslots != y->nslots)
		return false;
	for (unsigned int k = 0; k < x->nslots; k++)
		if (x->slot[k].cls != y->slot[k].cls || x->slot[k].v != y->slot[k].v ||
		    x->slot[k].raw != y->slot[k].raw || x->slot[k].off != y->slot[k].off)
			return false;
	return true;
}

static void check_seed(uint64_t seed, const char *dir)
{
	static struct genrun runs[6000];
	struct mmc_geom g = { .page_size = 4096, .struct_page_size = 32 };
	struct mmc_spgmap pg = { .type_name = "x" };
	struct mmc_srange sr = { .start_pfn = 0x1000 };
	struct mmc_snapshot *s = NULL, *back = NULL;
	size_t n = generate(seed, runs, 6000), bad = 0, badf = 0;
	uint64_t pages = 0;
	char path[256];
	bool ok;

	for (size_t i = 0; i < n; i++)
		pages += runs[i].count;
	sr.end_pfn = sr.start_pfn + pages;
	ok = !mmc_snapshot_create(NULL, &g, "x", "x", &s) && !mmc_snapshot_add_pgmap(s, &pg) &&
	     !mmc_snapshot_begin_range(s, &sr);
	for (size_t i = 0; ok && i < n; i++)
		ok = !mmc_snapshot_append_run(s, &runs[i].first, &runs[i].stride, runs[i].count);
	for (uint64_t i = 0; ok && i < (pages * 32 + 4095) / 4096; i++) {
		struct mmc_vframe vf = { .kind = MMC_VF_RAM, .paddr = 0x1000 * (i / 3) };

		ok = !mmc_snapshot_append_vframe(s, &vf);
	}
	ok = ok && !mmc_snapshot_end_range(s);
	if (!tap_ok(ok, "seed %llu: %zu runs built", (unsigned long long)seed, n))
		return;
	snprintf(path, sizeof(path), "%s/seq.snap", dir);
	ok = !mmc_snapshot_save(s, path) && !mmc_snapshot_load(path, &back);
	tap_ok(ok, "seed %llu: saved and loaded", (unsigned long long)seed);
	tap_ok(mmc_snapshot_range_nruns(s, 0) == n && (!back || mmc_snapshot_range_nruns(back, 0) == n),
	       "seed %llu: %zu runs read back", (unsigned long long)seed, mmc_snapshot_range_nruns(s, 0));
	for (size_t i = 0; i < n && mmc_snapshot_range_nruns(s, 0) == n; i++) {
		struct mmc_nrec f, st;
		uint64_t count;

		mmc_snapshot_range_run(s, 0, i, NULL, &count, &f, &st);
		bad += count != runs[i].count || !same(&f, &runs[i].first) ||
		       !same(&st, &runs[i].stride);
		if (back && mmc_snapshot_range_nruns(back, 0) == n) {
			mmc_snapshot_range_run(back, 0, i, NULL, &count, &f, &st);
			badf += count != runs[i].count || !same(&f, &runs[i].first) ||
				!same(&st, &runs[i].stride);
		}
	}
	tap_ok(bad == 0 && badf == 0, "seed %llu: every run as generated (%zu / %zu differ); %zu patterns",
	       (unsigned long long)seed, bad, badf, mmc_snapshot_range_npatterns(s, 0));
	tap_ok(mmc_snapshot_range_npatterns(s, 0) < n / 3,
	       "seed %llu: repetitions folded (%zu patterns for %zu runs)", (unsigned long long)seed,
	       mmc_snapshot_range_npatterns(s, 0), n);
	unlink(path);
	mmc_snapshot_destroy(s);
	mmc_snapshot_destroy(back);
}

int main(void)
{
	char dir[] = "/tmp/mmc-test-seq-XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	for (uint64_t seed = 1; seed <= 8; seed++)
		check_seed(seed * 0x9e3779b97f4a7c15ULL, dir);
	rmdir(dir);
	return tap_done();
}
