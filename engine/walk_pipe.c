// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The walk's items, planned in order on the caller's thread, read by a few
 * threads (each with its own reader of the memory source: mem.h), handed
 * back in order.  Reading (decompression, for a compressed dump) is nearly
 * all of a walk's work; planning and building the snapshot stay on the
 * caller's thread, so what is built does not depend on the thread count.
 * A ring of slots bounds the memory: the caller plans ahead while there is
 * a free slot, and until the oldest item is read, reads the oldest one no
 * thread has taken yet itself; so one thread is the plain sequential walk.
 */
#include "walk_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS	8
#define SLOTS_PER_THREAD 4

enum slot_state { SL_FREE, SL_PLANNED, SL_READING, SL_READ };

struct wslot {
	struct witem it;
	enum slot_state state;
};

struct wworker {
	struct wpipe *pipe;
	pthread_t thread;
	void *reader;
	bool started;
};

struct wpipe {
	struct mmc_mem *mem;
	uint32_t ps;
	struct wplan *plan;
	struct wslot *slots;
	unsigned int nslots;
	unsigned int head, count;	/* oldest slot, slots in use */
	bool head_out;			/* the head was handed to the caller */
	struct wworker *workers;
	unsigned int nworkers;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t planned;		/* a slot became SL_PLANNED, or stop */
	pthread_cond_t read;		/* a slot became SL_READ */
};

unsigned int mmc_walk_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > MAX_THREADS ? MAX_THREADS : (unsigned int)n;
}

/* The oldest planned slot nobody reads yet (lock held). */
static struct wslot *claim(struct wpipe *p)
{
	unsigned int i;

	for (i = 0; i < p->count; i++) {
		struct wslot *s = &p->slots[(p->head + i) % p->nslots];

		if (s->state == SL_PLANNED) {
			s->state = SL_READING;
			return s;
		}
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct wworker *w = arg;
	struct wpipe *p = w->pipe;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct wslot *s = claim(p);

		if (!s) {
			pthread_cond_wait(&p->planned, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		mmc_wread(p->mem, w->reader, p->ps, &s->it);
		pthread_mutex_lock(&p->lock);
		s->state = SL_READ;
		pthread_cond_broadcast(&p->read);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct mmc_error *mmc_wpipe_create(struct mmc_mem *mem, uint32_t ps,
				   unsigned int threads, struct wplan *plan,
				   struct wpipe **out)
{
	struct mmc_error *err = NULL;
	struct wpipe *p;
	unsigned int i;

	*out = NULL;
	if (threads < 1 || !mmc_mem_has_readers(mem))
		threads = 1;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	p = calloc(1, sizeof(*p));
	if (!p)
		return mmc_error_nomem();
	p->mem = mem;
	p->ps = ps;
	p->plan = plan;
	p->nslots = threads == 1 ? 1 : threads * SLOTS_PER_THREAD;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->planned, NULL);
	pthread_cond_init(&p->read, NULL);
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	p->workers = calloc(threads - 1 ? threads - 1 : 1, sizeof(*p->workers));
	if (!p->slots || !p->workers) {
		mmc_wpipe_destroy(p);
		return mmc_error_nomem();
	}
	for (i = 0; i < p->nslots; i++) {
		p->slots[i].it.buf = malloc((size_t)(WIN_VPAGES + 1) * ps);
		if (!p->slots[i].it.buf) {
			mmc_wpipe_destroy(p);
			return mmc_error_nomem();
		}
	}
	for (i = 0; i + 1 < threads; i++) {
		struct wworker *w = &p->workers[i];

		w->pipe = p;
		err = mem->ops->reader(mem->priv, &w->reader);
		if (err)
			break;
		p->nworkers++;
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			err = mmc_error_create(MMC_ERR_OS, NULL,
					       "cannot start a walk thread");
			break;
		}
		w->started = true;
	}
	if (err) {
		mmc_wpipe_destroy(p);
		return err;
	}
	*out = p;
	return NULL;
}

/* Plan into the free slots (lock held; planning itself runs unlocked: a
 * free slot is nobody else's). */
static void fill(struct wpipe *p)
{
	while (p->count < p->nslots && !p->plan->done) {
		struct wslot *s = &p->slots[(p->head + p->count) % p->nslots];

		pthread_mutex_unlock(&p->lock);
		mmc_wplan_next(p->plan, &s->it);
		pthread_mutex_lock(&p->lock);
		s->state = s->it.kind == WI_WINDOW && !s->it.err ? SL_PLANNED : SL_READ;
		p->count++;
		if (s->state == SL_PLANNED)
			pthread_cond_signal(&p->planned);
	}
}

struct witem *mmc_wpipe_next(struct wpipe *p)
{
	struct wslot *s;

	pthread_mutex_lock(&p->lock);
	if (p->head_out) {
		p->slots[p->head].state = SL_FREE;
		p->head = (p->head + 1) % p->nslots;
		p->count--;
		p->head_out = false;
	}
	fill(p);
	if (!p->count) {
		pthread_mutex_unlock(&p->lock);
		return NULL;
	}
	s = &p->slots[p->head];
	while (s->state != SL_READ) {
		/* rather than wait for the head, read the oldest item nobody has */
		struct wslot *o = claim(p);

		if (!o) {
			pthread_cond_wait(&p->read, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		mmc_wread(p->mem, p->mem->priv, p->ps, &o->it);
		pthread_mutex_lock(&p->lock);
		o->state = SL_READ;
	}
	p->head_out = true;
	pthread_mutex_unlock(&p->lock);
	return &s->it;
}

void mmc_wpipe_destroy(struct wpipe *p)
{
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->planned);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nworkers; i++) {
		if (p->workers[i].started)
			pthread_join(p->workers[i].thread, NULL);
		p->mem->ops->reader_destroy(p->workers[i].reader);
	}
	for (i = 0; p->slots && i < p->nslots; i++) {
		mmc_error_destroy(p->slots[i].it.err);
		mmc_error_destroy(p->slots[i].it.read_err);
		free(p->slots[i].it.buf);
	}
	pthread_cond_destroy(&p->planned);
	pthread_cond_destroy(&p->read);
	pthread_mutex_destroy(&p->lock);
	free(p->slots);
	free(p->workers);
	free(p);
}
