// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Memory source over libkdumpfile: ELF vmcores (QEMU, /proc/vmcore),
 * kdump-compressed and makedumpfile-filtered dumps.
 */
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#include "mem_extent.h"

/*
 * libkdumpfile 0.5.1 looks a page up in its cache by scanning every entry,
 * and a walk misses on nearly every page: with the default 1024 entries
 * the scan took 40-60 % of a walk's CPU time (100 GiB fsdax, kdump-zlib:
 * 2.7 s, 1.0 s with 16 entries).  The walker keeps the frames it re-reads
 * itself (walk.c), so the library needs only the few pages one read holds
 * at once (a data page and up to five page-table pages for a virtual read).
 */
#define KDUMP_CACHE_PAGES 16

struct mem_kdump {
	kdump_ctx_t *ctx;
	/* the cache could not be remade after a failed read (below) */
	bool cache_unsafe;
	/* kdump_open_fd() failed on ctx: it is abandoned, not freed (below) */
	bool open_failed;
	int fd;
	bool reader;		/* a second reader: fd and damage are the source's */
	const char *path;	/* owned by struct mmc_mem */
	/* pages whose data the file does not hold (mem_extent.h): libkdumpfile
	 * would read them as zeros */
	struct mmc_dump_damage *damage;
	addrxlat_ctx_t *axctx;	/* to find the physical pages of a kernel */
	addrxlat_sys_t *axsys;	/* virtual read when there is damage */
};

/*
 * libkdumpfile reports an unmapped kernel virtual address or a page table
 * the dump lacks as an address-translation error; only its message tells
 * those apart from a translation that is not set up at all, which must stay
 * a hard error.
 */
static bool xlat_is_nodata(const char *msg)
{
	return msg && (strcasestr(msg, "not present") ||
		       strcasestr(msg, "no data") ||
		       strcasestr(msg, "page not found"));
}

/*
 * libkdumpfile up to 0.5.4 (Debian 12 ships 0.5.1): a page read that
 * fails puts its cache entry into the cache's unused partition, and a
 * later hit on a ghost probe entry then reuses that entry without a data
 * buffer: kdump_read() memmoves the page to or from NULL (SIGSEGV).
 * Upstream e63dab4 ("cache: Get data buffer before adjusting ghost
 * partition size", 2024-01-10) fixes it after every release.  Any read of
 * a page makedumpfile filtered out fails that way, and a walk reads such
 * pages among others (tests/kdump-cache.t replays a sequence that
 * crashed).  A cache made anew has no unused partition: remake it after
 * every failed read.  Setting "cache.size" to a new value is what remakes
 * it (its post-set hook; the same value skips the hook), so go through
 * one other size.
 */
static struct mmc_error *kdump_cache_renew(struct mem_kdump *kd)
{
	kdump_status st;

	st = kdump_set_number_attr(kd->ctx, "cache.size", KDUMP_CACHE_PAGES + 1);
	if (st == KDUMP_OK)
		st = kdump_set_number_attr(kd->ctx, "cache.size", KDUMP_CACHE_PAGES);
	if (st == KDUMP_OK)
		return NULL;
	kd->cache_unsafe = true;
	return mmc_error_create(MMC_ERR_INTERNAL, kd->path,
				"libkdumpfile's page cache cannot be remade after a failed read (cache.size: %s); reading on could crash libkdumpfile 0.5.x",
				kdump_get_err(kd->ctx) ? kdump_get_err(kd->ctx) :
							 kdump_strerror(st));
}

static struct mmc_error *kdump_read_error(struct mem_kdump *kd, kdump_status st,
					  uint64_t at)
{
	const char *msg = kdump_get_err(kd->ctx);

	if (!msg)
		msg = kdump_strerror(st);
	if (st == KDUMP_ERR_NODATA ||
	    (st == KDUMP_ERR_ADDRXLAT && xlat_is_nodata(msg)))
		return mmc_error_nodata(kd->path, at, MMC_UR_ABSENT,
					"kdump_read(0x%llx): %s",
					(unsigned long long)at, msg);
	/* a page whose data does not decompress: that page is unreadable */
	if (st == KDUMP_ERR_CORRUPT)
		return mmc_error_nodata(kd->path, at, MMC_UR_CORRUPT,
					"kdump_read(0x%llx): %s",
					(unsigned long long)at, msg);
	return mmc_error_at(MMC_ERR_INPUT, kd->path, at, "kdump_read(0x%llx): %s",
			    (unsigned long long)at, msg);
}

static struct mmc_error *kdump_read_raw(struct mem_kdump *kd, kdump_addrspace_t as,
					uint64_t addr, void *buf, size_t len,
					size_t *done)
{
	struct mmc_error *err, *renew;
	kdump_status st;
	size_t n = len;

	*done = 0;
	if (kd->cache_unsafe)
		return mmc_error_create(MMC_ERR_INTERNAL, kd->path,
					"libkdumpfile's page cache could not be remade after a failed read: no more reads");
	st = kdump_read(kd->ctx, as, addr, buf, &n);
	if (st == KDUMP_OK) {
		*done = len;
		return NULL;
	}
	/* On failure n is what was read before the failing byte. */
	if (n > len)
		n = 0;
	*done = n;
	err = kdump_read_error(kd, st, addr + n);
	renew = kdump_cache_renew(kd);
	if (renew) {
		mmc_error_destroy(err);
		return renew;
	}
	return err;
}

static struct mmc_error *damaged(struct mem_kdump *kd, uint64_t addr,
				 uint8_t reason)
{
	if (reason == MMC_UR_TRUNCATED)
		return mmc_error_nodata(kd->path, addr, reason,
					"dump truncated: the data of this page is not in the file");
	return mmc_error_nodata(kd->path, addr, reason,
				"dump damaged: the descriptor of this page makes no sense");
}

/*
 * Physical read that stops at the first page the file does not hold;
 * errors name report_addr + the offset (the virtual address of a virtual
 * read).
 */
static struct mmc_error *kdump_read_phys(struct mem_kdump *kd, uint64_t addr,
					 void *buf, size_t len, size_t *done,
					 uint64_t report_addr)
{
	struct mmc_error *err;
	uint64_t good = 0;
	uint8_t reason = 0;
	size_t n = 0;

	if (!mmc_dump_damage_find(kd->damage, addr, len, &good, &reason))
		return kdump_read_raw(kd, KDUMP_KPHYSADDR, addr, buf, len, done);
	*done = 0;
	if (good) {
		err = kdump_read_raw(kd, KDUMP_KPHYSADDR, addr, buf, (size_t)good, &n);
		*done = n;
		if (err)
			return err;
	}
	return damaged(kd, report_addr + good, reason);
}

/*
 * Kernel virtual read of a damaged dump: page by page through the
 * translation libkdumpfile has set up, so a page whose data the file does
 * not hold is never read as zeros.
 */
static struct mmc_error *kdump_read_virt(struct mem_kdump *kd, uint64_t addr,
					 void *buf, size_t len, size_t *done)
{
	const uint64_t ps = 4096;
	size_t total = 0;

	*done = 0;
	while (total < len) {
		uint64_t va = addr + total, chunk = ps - (va & (ps - 1));
		addrxlat_fulladdr_t fa = { .addr = va, .as = ADDRXLAT_KVADDR };
		struct mmc_error *err;
		size_t n = 0;

		if (chunk > len - total)
			chunk = len - total;
		if (addrxlat_fulladdr_conv(&fa, ADDRXLAT_KPHYSADDR, kd->axctx,
					   kd->axsys) != ADDRXLAT_OK)
			/* untranslatable: libkdumpfile says why (NODATA or not) */
			err = kdump_read_raw(kd, KDUMP_KVADDR, va, (char *)buf + total,
					     (size_t)chunk, &n);
		else
			err = kdump_read_phys(kd, fa.addr, (char *)buf + total,
					      (size_t)chunk, &n, va);
		total += n;
		*done = total;
		if (err)
			return err;
	}
	return NULL;
}

static struct mmc_error *mem_kdump_read(void *priv, enum mmc_space space,
					uint64_t addr, void *buf, size_t len,
					size_t *done)
{
	struct mem_kdump *kd = priv;

	if (!kd->damage)
		return kdump_read_raw(kd, space == MMC_PHYSADDR ? KDUMP_KPHYSADDR :
								  KDUMP_KVADDR,
				      addr, buf, len, done);
	if (space == MMC_PHYSADDR)
		return kdump_read_phys(kd, addr, buf, len, done, addr);
	return kdump_read_virt(kd, addr, buf, len, done);
}

/*
 * A context whose kdump_open_fd() failed part-way is not freed: when a
 * kdump-compressed dump is refused after its header was taken (a note,
 * the bitmap), libkdumpfile (0.5.1 as Debian ships it, and upstream to
 * this day) frees its format data but leaves an attribute override that
 * lives in it hooked into the context, and kdump_free() then walks that
 * freed memory (a SIGSEGV when it was reused:
 * doc/upstream/libkdumpfile/0005-*.patch).  The checks before the open
 * (mem_extent.c) refuse every such input known; this is for the ones not
 * known.  It costs the context's memory once per refused dump.
 */
__attribute__((noinline))	/* tests/valgrind.supp names it */
static void kdump_ctx_release(kdump_ctx_t *ctx, bool open_failed)
{
	if (ctx && !open_failed) {
		kdump_free(ctx);
		/* no tail call: this frame is what the suppression names */
		__asm__ volatile("" ::: "memory");
	}
}

static void mem_kdump_destroy(void *priv)
{
	struct mem_kdump *kd = priv;

	if (!kd)
		return;
	if (kd->reader) {
		kdump_ctx_release(kd->ctx, kd->open_failed);
		free(kd);
		return;
	}
	if (kd->axctx)
		addrxlat_ctx_decref(kd->axctx);
	if (kd->axsys)
		addrxlat_sys_decref(kd->axsys);
	mmc_dump_damage_destroy(kd->damage);
	kdump_ctx_release(kd->ctx, kd->open_failed);
	if (kd->fd >= 0)
		close(kd->fd);
	free(kd);
}

static struct mmc_error *kdump_fail(kdump_ctx_t *ctx, const char *path,
				    const char *call, kdump_status st)
{
	const char *msg = kdump_get_err(ctx);

	return mmc_error_create(MMC_ERR_INPUT, path, "%s: %s", call,
				msg ? msg : kdump_strerror(st));
}

/*
 * A kdump-compressed dump's pages are decompressed into the cache anyway:
 * reading them with pread() instead of mmap() keeps the file out of the
 * process's resident set (108 of 114 MiB peak RSS on a 100 GiB map=dev
 * snapshot were mapped dump file) at the same CPU cost.  An ELF dump is
 * read in place, where mmap() is what makes it fast.
 */
static struct mmc_error *kdump_set_mmap(struct mem_kdump *kd)
{
	const char *format = NULL;
	kdump_status st;

	if (kdump_get_string_attr(kd->ctx, KDUMP_ATTR_FILE_FORMAT, &format) != KDUMP_OK ||
	    !format || strcmp(format, "diskdump"))
		return NULL;
	st = kdump_set_number_attr(kd->ctx, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER);
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path, "kdump_set_number_attr(file.mmap_policy)", st);
	return NULL;
}

static struct mmc_error *kdump_set_cache(struct mem_kdump *kd)
{
	kdump_status st = kdump_set_number_attr(kd->ctx, "cache.size",
						KDUMP_CACHE_PAGES);

	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path, "kdump_set_number_attr(cache.size)", st);
	return kdump_set_mmap(kd);
}

static struct mmc_error *kdump_setup_arch(struct mem_kdump *kd);

/*
 * A second reader for another thread: its own libkdumpfile context (they
 * are not thread-safe) over the same file (libkdumpfile reads it with
 * pread() and mmap(), no file offset), the damage map shared read-only.
 * Physical reads only (virtual ones of a damaged dump need kd->axsys).
 */
static struct mmc_error *mem_kdump_reader(void *priv, void **out)
{
	struct mem_kdump *src = priv, *kd;
	struct mmc_error *err = NULL;
	kdump_status st;

	*out = NULL;
	kd = calloc(1, sizeof(*kd));
	if (!kd)
		return mmc_error_nomem();
	kd->reader = true;
	kd->fd = src->fd;
	kd->path = src->path;
	kd->damage = src->damage;
	kd->ctx = kdump_new();
	if (!kd->ctx) {
		free(kd);
		return mmc_error_nomem();
	}
	st = kdump_set_number_attr(kd->ctx, "cache.size", KDUMP_CACHE_PAGES);
	if (st == KDUMP_OK)
		st = kdump_open_fd(kd->ctx, kd->fd);
	if (st != KDUMP_OK) {
		err = kdump_fail(kd->ctx, kd->path, "kdump_open_fd (second reader)", st);
		kd->open_failed = true;
	}
	if (!err)
		err = kdump_set_cache(kd);
	if (!err)
		err = kdump_setup_arch(kd);
	/* even physical reads go through libkdumpfile's translation */
	if (!err && (st = kdump_set_string_attr(kd->ctx, KDUMP_ATTR_OSTYPE,
						"linux")) != KDUMP_OK)
		err = kdump_fail(kd->ctx, kd->path,
				 "kdump_set_string_attr(addrxlat.ostype)", st);
	if (!err)
		err = kdump_cache_renew(kd);
	if (err) {
		kdump_ctx_release(kd->ctx, kd->open_failed);
		free(kd);
		return err;
	}
	*out = kd;
	return NULL;
}

static struct mmc_error *mem_kdump_read_any(void *priv, enum mmc_space space,
					    uint64_t addr, void *buf, size_t len,
					    size_t *done)
{
	struct mem_kdump *kd = priv;

	if (kd->reader && space != MMC_PHYSADDR)
		return mmc_error_create(MMC_ERR_INTERNAL, kd->path,
					"a second reader reads physical memory only");
	return mem_kdump_read(priv, space, addr, buf, len, done);
}

static const struct mmc_mem_ops mem_kdump_ops = {
	.read = mem_kdump_read_any,
	.destroy = mem_kdump_destroy,
	.reader = mem_kdump_reader,
	.reader_destroy = mem_kdump_destroy,
};

/*
 * libkdumpfile refused the file as a whole (mostly "Unknown file format"):
 * say what its first bytes are, where every format keeps its signature
 * ("KDUMP   ", "\177ELF", "makedumpfile").
 */
static struct mmc_error *kdump_open_fail(struct mem_kdump *kd, kdump_status st)
{
	const char *msg = kdump_get_err(kd->ctx);
	unsigned char head[16];
	char hex[3 * sizeof(head) + 1] = "", text[sizeof(head) + 1];
	ssize_t n = pread(kd->fd, head, sizeof(head), 0);

	for (ssize_t i = 0; i < n; i++) {
		size_t at = i ? 3 * (size_t)i - 1 : 0;

		snprintf(hex + at, sizeof(hex) - at, "%s%02x", i ? " " : "", head[i]);
		text[i] = head[i] >= 0x20 && head[i] < 0x7f ? (char)head[i] : '.';
	}
	text[n > 0 ? n : 0] = '\0';
	if (n >= 8 && (!memcmp(head, "KDUMP   ", 8) || !memcmp(head, "DISKDUMP", 8) ||
		       !memcmp(head, "\177ELF", 4)))
		/* a known format, refused further in: its message says where */
		return mmc_error_create(MMC_ERR_INPUT, kd->path, "kdump_open_fd: %s",
					msg ? msg : kdump_strerror(st));
	return mmc_error_create(MMC_ERR_INPUT, kd->path,
				"kdump_open_fd: %s; offset 0 holds %s \"%s\" (a kdump-compressed dump starts with \"KDUMP   \", an ELF vmcore with \"\\177ELF\", a flattened dump with \"makedumpfile\")",
				msg ? msg : kdump_strerror(st), n > 0 ? hex : "nothing", text);
}

/*
 * ELF dumps name their machine; kdump-compressed ones made from QEMU's
 * flattened output may not, and libkdumpfile needs the arch before it can
 * set up Linux address translation.
 */
static struct mmc_error *kdump_setup_arch(struct mem_kdump *kd)
{
	const char *arch = NULL;
	kdump_status st;

	st = kdump_get_string_attr(kd->ctx, KDUMP_ATTR_ARCH_NAME, &arch);
	if (st == KDUMP_OK && arch && *arch)
		return NULL;
	st = kdump_set_string_attr(kd->ctx, KDUMP_ATTR_ARCH_NAME, "x86_64");
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path,
				  "kdump_set_string_attr(arch.name)", st);
	return NULL;
}

static struct mmc_error *kdump_setup(struct mem_kdump *kd, struct mmc_mem *mem)
{
	struct mmc_error *err;
	kdump_num_t page_size;
	kdump_status st;
	char *raw = NULL;

	/* before libkdumpfile: it reads what the file lacks as zeros */
	err = mmc_dump_check(&kd->fd, kd->path, mem, &kd->damage);
	if (err)
		return err;
	/* before the open too: a context whose open fails is abandoned
	 * (kdump_ctx_release()), and the default cache is 4 MiB of it */
	st = kdump_set_number_attr(kd->ctx, "cache.size", KDUMP_CACHE_PAGES);
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path, "kdump_set_number_attr(cache.size)", st);
	st = kdump_open_fd(kd->ctx, kd->fd);
	if (st != KDUMP_OK) {
		kd->open_failed = true;
		return kdump_open_fail(kd, st);
	}
	err = kdump_set_cache(kd);
	if (err)
		return err;
	err = kdump_setup_arch(kd);
	if (err)
		return err;
	st = kdump_set_string_attr(kd->ctx, KDUMP_ATTR_OSTYPE, "linux");
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path,
				  "kdump_set_string_attr(addrxlat.ostype)", st);
	/*
	 * libkdumpfile sets up translation lazily and, when that fails
	 * (VMCOREINFO missing, or too old to tell 4- from 5-level paging),
	 * fails every later read, physical ones too.  Say so once, here.
	 */
	st = kdump_get_addrxlat(kd->ctx, kd->damage ? &kd->axctx : NULL,
				kd->damage ? &kd->axsys : NULL);
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path,
				  "address translation setup (is VMCOREINFO missing or incomplete?)",
				  st);

	st = kdump_get_number_attr(kd->ctx, KDUMP_ATTR_PAGE_SIZE, &page_size);
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path,
				  "kdump_get_number_attr(arch.page_size)", st);
	if (page_size < 512 || (page_size & (page_size - 1)))
		return mmc_error_create(MMC_ERR_INPUT, kd->path,
					"implausible page size %llu",
					(unsigned long long)page_size);
	mem->page_size = page_size;

	/* A dump without VMCOREINFO is usable: the layout may come from elsewhere. */
	st = kdump_vmcoreinfo_raw(kd->ctx, &raw);
	if (st == KDUMP_OK)
		mem->vmcoreinfo = raw;
	else if (st != KDUMP_ERR_NODATA && st != KDUMP_ERR_NOKEY)
		return kdump_fail(kd->ctx, kd->path, "kdump_vmcoreinfo_raw", st);
	/* setting up translation may have read pages that failed */
	return kdump_cache_renew(kd);
}

struct mmc_error *mmc_mem_open_kdump(const char *path, struct mmc_mem **out)
{
	struct mmc_error *err;
	struct mem_kdump *kd;
	struct mmc_mem *mem;

	kd = calloc(1, sizeof(*kd));
	if (!kd)
		return mmc_error_nomem();
	err = mmc_mem_open_file(&mem_kdump_ops, kd, path, &kd->fd, &kd->path, &mem);
	if (err)
		return err;
	kd->ctx = kdump_new();
	if (!kd->ctx) {
		err = mmc_error_nomem();
		goto out_destroy;
	}
	err = kdump_setup(kd, mem);
	if (err && mem->nnotes)
		/* libkdumpfile tripped over the damage found before it: say it */
		err = mmc_error_suffix(err, " (%s)", mem->notes[0]);
	if (err)
		goto out_destroy;
	*out = mem;
	return NULL;

out_destroy:
	mmc_mem_destroy(mem);
	return err;
}
