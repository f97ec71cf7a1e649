// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Memory source front half: the exact-read helpers every caller uses, over
 * whatever backend (libkdumpfile, kcore, crash readmem) filled the ops.
 */
#include "mem.h"
#include "mmc_util.h"
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mmc_error *mmc_mem_read(struct mmc_mem *mem, enum mmc_space space,
			       uint64_t addr, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t total = 0;

	/*
	 * Backends may legitimately return short reads (e.g. a read that
	 * crosses a segment boundary is split), so keep asking until all
	 * of it is there or the backend says why not.
	 */
	while (total < len) {
		struct mmc_error *err;
		size_t done = 0;

		err = mem->ops->read(mem->priv, space, addr + total,
				     p + total, len - total, &done);
		if (err)
			return err;
		if (done == 0 || done > len - total)
			return mmc_error_at(MMC_ERR_INTERNAL, mem->path,
					    addr + total,
					    "memory backend returned %zu of %zu bytes without an error",
					    done, len - total);
		total += done;
	}
	return NULL;
}

bool mmc_mem_has_readers(const struct mmc_mem *mem)
{
	return mem->ops->reader && mem->ops->reader_destroy;
}

struct mmc_error *mmc_mem_read_u64(struct mmc_mem *mem, enum mmc_space space,
				   uint64_t addr, uint64_t *value)
{
	unsigned char b[8];
	struct mmc_error *err;

	err = mmc_mem_read(mem, space, addr, b, sizeof(b));
	if (err)
		return err;
	*value = mmc_le64(b);
	return NULL;
}

struct mmc_error *mmc_mem_add_note(struct mmc_mem *mem, const char *fmt, ...)
{
	char **n, *text = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (len < 0)
		return mmc_error_nomem();
	n = realloc(mem->notes, (mem->nnotes + 1) * sizeof(*n));
	if (!n) {
		free(text);
		return mmc_error_nomem();
	}
	mem->notes = n;
	mem->notes[mem->nnotes++] = text;
	return NULL;
}

void mmc_mem_destroy(struct mmc_mem *mem)
{
	size_t i;

	if (!mem)
		return;
	for (i = 0; i < mem->nnotes; i++)
		free(mem->notes[i]);
	free(mem->notes);
	if (mem->ops && mem->ops->destroy)
		mem->ops->destroy(mem->priv);
	free(mem->path);
	free(mem->vmcoreinfo);
	free(mem);
}

struct mmc_error *mmc_pread_exact(int fd, const char *path, void *buf, size_t len,
				  uint64_t off, const char *what)
{
	size_t total = 0;

	while (total < len) {
		ssize_t r = pread(fd, (char *)buf + total, len - total,
				  (off_t)(off + total));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return mmc_error_os(errno, path,
					    "pread(%s at offset 0x%llx)", what,
					    (unsigned long long)(off + total));
		if (r == 0)
			return mmc_error_create(MMC_ERR_INPUT, path,
						"truncated %s at offset 0x%llx",
						what,
						(unsigned long long)(off + total));
		total += (size_t)r;
	}
	return NULL;
}

struct mmc_error *mmc_mem_open_file(const struct mmc_mem_ops *ops, void *priv,
				    const char *path, int *fd,
				    const char **path_out, struct mmc_mem **out)
{
	struct mmc_error *err;
	struct mmc_mem *mem;

	*out = NULL;
	*fd = -1;
	mem = calloc(1, sizeof(*mem));
	if (!mem) {
		ops->destroy(priv);
		return mmc_error_nomem();
	}
	mem->ops = ops;
	mem->priv = priv;
	mem->path = strdup(path);
	if (!mem->path) {
		err = mmc_error_nomem();
		goto fail;
	}
	*path_out = mem->path;
	err = mmc_infile_open(path, fd);
	if (err)
		goto fail;
	*out = mem;
	return NULL;
fail:
	mmc_mem_destroy(mem);
	return err;
}
