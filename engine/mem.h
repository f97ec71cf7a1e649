/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory source: one small read interface with several backends
 * (libkdumpfile on a vmcore, /proc/kcore on the running system, crash's
 * readmem() in the crash extension).
 *
 * Struct pages are NOT read through kernel virtual addresses: the engine
 * translates vmemmap addresses with its own page-table walk (pgtable.h) and
 * reads physical memory, so every backend returns the same physical frames
 * and /proc/kcore (which has no vmemmap segments for ZONE_DEVICE) works.
 */
#ifndef MMC_MEM_H
#define MMC_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmc_error.h"

enum mmc_space {
	MMC_KVADDR,	/* kernel virtual (symbols, slab objects) */
	MMC_PHYSADDR,	/* physical */
};

struct mmc_mem_ops {
	/*
	 * Read len bytes at addr.  On success return NULL with *done == len.
	 * Otherwise *done is the number of bytes read from the start before
	 * the first byte that could not be read, and the error says why:
	 * MMC_ERR_NODATA (with the failing address) when the dump lacks that
	 * page (filtered out, not captured, outside every segment), other
	 * codes for real failures (I/O, corrupt file).  Callers that read
	 * across pages continue after a NODATA page themselves.
	 */
	struct mmc_error *(*read)(void *priv, enum mmc_space space,
				  uint64_t addr, void *buf, size_t len,
				  size_t *done);
	void (*destroy)(void *priv);
	/*
	 * Optional: a second reader of the same source for another thread,
	 * read through read() with *reader_priv and freed by
	 * reader_destroy().  Readers and the source may be used concurrently,
	 * each by one thread at a time (their own library context; the file
	 * and the damage found on opening shared read-only).  Backends
	 * without it (crash's readmem() is not thread-safe) are read by one
	 * thread.
	 */
	struct mmc_error *(*reader)(void *priv, void **reader_priv);
	void (*reader_destroy)(void *reader_priv);
};

struct mmc_mem {
	const struct mmc_mem_ops *ops;
	void *priv;
	char *path;		/* what is read, for messages: "vmcore", "/proc/kcore" */
	char *vmcoreinfo;	/* raw VMCOREINFO text (NUL-terminated), or NULL */
	uint64_t page_size;	/* 4096 on x86_64 */
	/*
	 * Damage found when the dump was opened, one sentence each, e.g.
	 * "dump truncated: the file is M bytes, its headers need K; 3 pages
	 * past the end are unreadable".  Reads of the damaged memory fail
	 * with MMC_ERR_NODATA and the reason; snapshots carry these notes.
	 */
	char **notes;
	size_t nnotes;
};

/* Read exactly len bytes or fail (NODATA when absent). */
struct mmc_error *mmc_mem_read(struct mmc_mem *mem, enum mmc_space space,
			       uint64_t addr, void *buf, size_t len);
struct mmc_error *mmc_mem_read_u64(struct mmc_mem *mem, enum mmc_space space,
				   uint64_t addr, uint64_t *value);
void mmc_mem_destroy(struct mmc_mem *mem);
/* Can other threads read it (ops->reader)? */
bool mmc_mem_has_readers(const struct mmc_mem *mem);
/* Append a note (see struct mmc_mem); only allocation can fail. */
struct mmc_error *mmc_mem_add_note(struct mmc_mem *mem, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * For file backends: a new mmc_mem with ops and priv (freed by
 * ops->destroy, also on failure: priv must tolerate *fd == -1), path
 * copied, and the file opened read-only into *fd.  *path_out gets the
 * copy (owned by the mmc_mem) for the backend's messages.
 */
struct mmc_error *mmc_mem_open_file(const struct mmc_mem_ops *ops, void *priv,
				    const char *path, int *fd,
				    const char **path_out, struct mmc_mem **out);
/* pread() exactly len bytes at off of fd (path names it in errors); a
 * short file is MMC_ERR_INPUT "truncated <what>". Shared by the backends. */
struct mmc_error *mmc_pread_exact(int fd, const char *path, void *buf, size_t len,
				  uint64_t off, const char *what);

/*
 * libkdumpfile backend: any format libkdumpfile reads (ELF from QEMU or
 * /proc/vmcore, kdump-compressed, filtered).  Sets arch and
 * addrxlat.ostype=linux so KVADDR reads work.
 */
struct mmc_error *mmc_mem_open_kdump(const char *path, struct mmc_mem **out);

/*
 * /proc/kcore backend (or any kcore-format ELF): PHYSADDR reads through the
 * PT_LOAD segments' p_paddr (direct map of System RAM), KVADDR reads through
 * the segments' p_vaddr.  VMCOREINFO from the note.
 */
struct mmc_error *mmc_mem_open_kcore(const char *path, struct mmc_mem **out);

#endif
