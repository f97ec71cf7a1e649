// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which memory source the extension reads: the dump file crash has open,
 * through the engine's own libkdumpfile reader (engine/mem_kdump.c, the
 * CLI's path, with a second reader per walk thread), or crash's readmem()
 * (crash_mem.c, one thread).
 *
 * readmem() is one call per window through crash's whole memory layer on
 * one thread: on a 100 GiB dump the extension took 2.0 s where the CLI took
 * 0.7 s.  So when crash has a dump FILE open in a format libkdumpfile reads
 * (kdump-compressed, ELF vmcore), physical reads -- the struct pages and
 * page tables, nearly all of a walk -- go to that file through
 * libkdumpfile.  Kernel virtual reads (discovery: pgmaps, xarray nodes,
 * a few hundred objects) stay with readmem(), so the addresses of kernel
 * objects are translated the way crash translates them, and VMCOREINFO,
 * KASLR offset and phys_base are crash's on both paths: the two paths
 * build the same kernel and differ only in who copies the physical bytes.
 *
 * readmem() stays the source for a live session, for the formats crash
 * reads and libkdumpfile does not (flattened, split, LKCD, Xen, VMware,
 * sadump, ...), and when libkdumpfile refuses the file.  Which path was
 * taken, and why, is said by mmc_crash_reader_describe().
 * MEMMAPCHECK_CRASH_READER=readmem forces readmem() (to compare the paths).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash_ext.h"

#include "defs.h"	/* crash: last */

/*
 * mem.h calls the source's read() with the source's priv or with a walk
 * thread's reader priv: both start with this tag.
 */
enum priv_kind { PRIV_SOURCE = 1, PRIV_THREAD };

struct crash_reader {
	enum priv_kind kind;	/* PRIV_SOURCE */
	struct mmc_mem *file;	/* libkdumpfile over crash's dump file, or NULL */
	struct mmc_mem *crash;	/* readmem() */
	char *said;		/* which path, and why (describe) */
	unsigned int readers, most_readers;	/* walk threads' readers: alive, at most */
	char text[1024];	/* describe() */
};

/* A walk thread's reader of the file: its priv and who frees it. */
struct file_reader {
	enum priv_kind kind;	/* PRIV_THREAD */
	struct crash_reader *source;
	void *priv;
	void (*destroy)(void *priv);
	const struct mmc_mem_ops *ops;
};

static struct mmc_error *reader_read(void *priv, enum mmc_space space,
				     uint64_t addr, void *buf, size_t len,
				     size_t *done)
{
	struct crash_reader *r = priv;
	struct file_reader *fr = priv;
	struct mmc_mem *m;

	if (fr->kind == PRIV_THREAD)	/* physical only (mem_kdump.c) */
		return fr->ops->read(fr->priv, space, addr, buf, len, done);
	m = space == MMC_PHYSADDR && r->file ? r->file : r->crash;
	return m->ops->read(m->priv, space, addr, buf, len, done);
}

static void reader_destroy(void *priv)
{
	struct crash_reader *r = priv;

	if (!r)
		return;
	mmc_mem_destroy(r->file);
	mmc_mem_destroy(r->crash);
	free(r->said);
	free(r);
}

static struct mmc_error *reader_new(void *priv, void **out)
{
	struct crash_reader *r = priv;
	struct file_reader *fr = calloc(1, sizeof(*fr));
	struct mmc_error *err;

	*out = NULL;
	if (!fr)
		return mmc_error_nomem();
	fr->kind = PRIV_THREAD;
	fr->ops = r->file->ops;
	fr->destroy = r->file->ops->reader_destroy;
	err = r->file->ops->reader(r->file->priv, &fr->priv);
	if (err) {
		free(fr);
		return err;
	}
	fr->source = r;
	if (++r->readers > r->most_readers)
		r->most_readers = r->readers;
	*out = fr;
	return NULL;
}

static void file_reader_destroy(void *priv)
{
	struct file_reader *fr = priv;

	if (!fr)
		return;
	fr->destroy(fr->priv);
	fr->source->readers--;
	free(fr);
}

/* crash's dump file through libkdumpfile: second readers for the walk's threads */
static const struct mmc_mem_ops file_ops = {
	.read = reader_read,
	.destroy = reader_destroy,
	.reader = reader_new,
	.reader_destroy = file_reader_destroy,
};

/* readmem() only: one thread (crash is not thread-safe) */
static const struct mmc_mem_ops readmem_ops = {
	.read = reader_read,
	.destroy = reader_destroy,
};

/*
 * Why crash's open dump cannot be read through libkdumpfile (a sentence),
 * or NULL when it may be tried.
 */
static const char *not_a_file_reason(void)
{
	const char *force = getenv("MEMMAPCHECK_CRASH_READER");

	if (force && !strcmp(force, "readmem"))
		return "MEMMAPCHECK_CRASH_READER=readmem";
	if (ACTIVE())
		return "a live system (memory moves; no dump file)";
	if (!pc->dumpfile || !*pc->dumpfile)
		return "crash names no dump file";
	if (!(pc->flags & (DISKDUMP | KDUMP | NETDUMP)))
		return "a dump format libkdumpfile does not read";
	if (FLAT_FORMAT())
		return "a flattened dump (libkdumpfile does not read the flattened format)";
	if (DISKDUMP_DUMPFILE() && dumpfile_is_split())
		return "a split dump (libkdumpfile would see one part of it)";
	return NULL;
}

/* The file at pc->dumpfile is the one crash has open (not moved or replaced since). */
static bool same_file_as_crash(const char *path, char *why, size_t len)
{
	struct stat a, b;

	if (stat(path, &a) != 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return false;
	}
	if (pc->dfd > 0 && fstat(pc->dfd, &b) == 0 &&
	    (a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
		snprintf(why, len, "%s is no longer the file crash has open", path);
		return false;
	}
	return true;
}

static struct mmc_error *say(struct crash_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct mmc_error *say(struct crash_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&r->said, fmt, ap);
	va_end(ap);
	if (n < 0) {
		r->said = NULL;
		return mmc_error_nomem();
	}
	return NULL;
}

struct mmc_error *mmc_crash_reader_open(struct mmc_mem **out)
{
	struct crash_reader *r = calloc(1, sizeof(*r));
	const char *reason;
	struct mmc_error *err, *ferr = NULL;
	struct mmc_mem *mem;
	char why[512] = "";

	*out = NULL;
	if (!r)
		return mmc_error_nomem();
	r->kind = PRIV_SOURCE;
	err = mmc_crash_mem_open(&r->crash);
	if (err) {
		free(r);
		return err;
	}
	reason = not_a_file_reason();
	if (!reason && same_file_as_crash(pc->dumpfile, why, sizeof(why)))
		ferr = mmc_mem_open_kdump(pc->dumpfile, &r->file);
	else if (!reason)
		reason = why;
	if (ferr) {
		char *msg = mmc_error_string(ferr);

		snprintf(why, sizeof(why), "libkdumpfile cannot read it: %s",
			 msg ? msg : "error");
		free(msg);
		mmc_error_destroy(ferr);
		r->file = NULL;
		reason = why;
	}
	/* a page size crash and the file disagree on: not the same dump */
	if (r->file && r->file->page_size != r->crash->page_size) {
		snprintf(why, sizeof(why), "libkdumpfile says page size %llu, crash %llu",
			 (unsigned long long)r->file->page_size,
			 (unsigned long long)r->crash->page_size);
		mmc_mem_destroy(r->file);
		r->file = NULL;
		reason = why;
	}
	err = r->file ? say(r, "%s through libkdumpfile (physical reads; kernel virtual ones through readmem())",
			    pc->dumpfile) :
			say(r, "readmem() (%s)", reason);
	mem = calloc(1, sizeof(*mem));
	if (mem && !err) {
		/* readmem()'s errors keep naming it (crash_mem.c) */
		mem->path = strdup(r->crash->path);
		if (!mem->path)
			err = mmc_error_nomem();
	}
	if (err || !mem) {
		reader_destroy(r);
		free(mem);
		return err ? err : mmc_error_nomem();
	}
	/*
	 * What the engine sees is crash's source with the file's reads in it:
	 * the same name, VMCOREINFO and page size on both paths, so the
	 * snapshots are byte for byte the same.  The damage libkdumpfile's
	 * path finds on opening is said too.
	 */
	mem->ops = r->file ? &file_ops : &readmem_ops;
	mem->priv = r;
	mem->vmcoreinfo = r->crash->vmcoreinfo;
	r->crash->vmcoreinfo = NULL;
	mem->page_size = r->crash->page_size;
	for (size_t i = 0; r->file && i < r->file->nnotes; i++) {
		err = mmc_mem_add_note(mem, "%s", r->file->notes[i]);
		if (err) {
			mmc_mem_destroy(mem);
			return err;
		}
	}
	*out = mem;
	return NULL;
}

const char *mmc_crash_reader_describe(const struct mmc_mem *mem)
{
	struct crash_reader *r;

	if (!mem || (mem->ops != &file_ops && mem->ops != &readmem_ops))
		return "readmem()";
	r = mem->priv;
	if (!r->said)
		return "readmem()";
	if (!r->file)
		return r->said;
	snprintf(r->text, sizeof(r->text), "%s, %u thread%s", r->said,
		 r->most_readers + 1, r->most_readers ? "s" : "");
	return r->text;
}
