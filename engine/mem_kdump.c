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

#include <elf.h>
#include <sys/stat.h>

#include <libkdumpfile/kdumpfile.h>

/* More program headers than this is not a dump of one machine. */
#define KDUMP_MAX_PHDRS		(1u << 22)

struct mem_kdump {
	kdump_ctx_t *ctx;
	int fd;
	const char *path;	/* owned by struct mmc_mem */
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

static struct mmc_error *mem_kdump_read(void *priv, enum mmc_space space,
					uint64_t addr, void *buf, size_t len,
					size_t *done)
{
	struct mem_kdump *kd = priv;
	kdump_addrspace_t as;
	kdump_status st;
	size_t n = len;
	const char *msg;

	as = space == MMC_PHYSADDR ? KDUMP_KPHYSADDR : KDUMP_KVADDR;
	st = kdump_read(kd->ctx, as, addr, buf, &n);
	if (st == KDUMP_OK) {
		*done = len;
		return NULL;
	}
	/* On failure n is what was read before the failing byte. */
	if (n > len)
		n = 0;
	*done = n;
	msg = kdump_get_err(kd->ctx);
	if (st == KDUMP_ERR_NODATA ||
	    (st == KDUMP_ERR_ADDRXLAT && xlat_is_nodata(msg)))
		return mmc_error_at(MMC_ERR_NODATA, kd->path, addr + n,
				    "kdump_read(0x%llx): %s",
				    (unsigned long long)(addr + n),
				    msg ? msg : kdump_strerror(st));
	return mmc_error_at(MMC_ERR_INPUT, kd->path, addr + n,
			    "kdump_read(0x%llx): %s",
			    (unsigned long long)(addr + n),
			    msg ? msg : kdump_strerror(st));
}

static void mem_kdump_destroy(void *priv)
{
	struct mem_kdump *kd = priv;

	if (!kd)
		return;
	if (kd->ctx)
		kdump_free(kd->ctx);
	if (kd->fd >= 0)
		close(kd->fd);
	free(kd);
}

static const struct mmc_mem_ops mem_kdump_ops = {
	.read = mem_kdump_read,
	.destroy = mem_kdump_destroy,
};

static struct mmc_error *kdump_fail(kdump_ctx_t *ctx, const char *path,
				    const char *call, kdump_status st)
{
	const char *msg = kdump_get_err(ctx);

	return mmc_error_create(MMC_ERR_INPUT, path, "%s: %s", call,
				msg ? msg : kdump_strerror(st));
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

static struct mmc_error *pread_exact(struct mem_kdump *kd, void *buf,
				     size_t len, uint64_t off, const char *what)
{
	return mmc_pread_exact(kd->fd, kd->path, buf, len, off, what);
}

/*
 * libkdumpfile 0.5.1 returns zeros for ELF segment data past the end of the
 * file (a dump truncated by a full disk or an interrupted copy), which the
 * engine would take for real struct pages.  So for ELF64 dumps check every
 * PT_LOAD against the file size before trusting the file.
 */
static struct mmc_error *kdump_check_elf(struct mem_kdump *kd)
{
	struct mmc_error *err;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	struct stat st;
	uint64_t fsize, phnum, i;

	if (fstat(kd->fd, &st) < 0)
		return mmc_error_os(errno, kd->path, "fstat");
	fsize = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode) || fsize < sizeof(eh))
		return NULL;
	err = pread_exact(kd, &eh, sizeof(eh), 0, "ELF header");
	if (err)
		return err;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;	/* not an x86_64 ELF: libkdumpfile's business */
	phnum = eh.e_phnum;
	if (phnum == PN_XNUM) {
		Elf64_Shdr sh0;

		if (eh.e_shoff > fsize || fsize - eh.e_shoff < sizeof(sh0))
			return mmc_error_create(MMC_ERR_INPUT, kd->path,
						"ELF section header 0 at offset 0x%llx is past the end of the file",
						(unsigned long long)eh.e_shoff);
		err = pread_exact(kd, &sh0, sizeof(sh0), eh.e_shoff,
				  "ELF section header 0");
		if (err)
			return err;
		phnum = sh0.sh_info;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || phnum > KDUMP_MAX_PHDRS ||
	    eh.e_phoff > fsize || phnum * sizeof(Elf64_Phdr) > fsize - eh.e_phoff)
		return mmc_error_create(MMC_ERR_INPUT, kd->path,
					"bad ELF program header table at offset 0x%llx (%llu entries of %u bytes, file size 0x%llx)",
					(unsigned long long)eh.e_phoff,
					(unsigned long long)phnum, eh.e_phentsize,
					(unsigned long long)fsize);
	if (!phnum)
		return NULL;
	ph = calloc(phnum, sizeof(*ph));
	if (!ph)
		return mmc_error_nomem();
	err = pread_exact(kd, ph, phnum * sizeof(*ph), eh.e_phoff,
			  "ELF program headers");
	for (i = 0; !err && i < phnum; i++) {
		if (ph[i].p_type != PT_LOAD && ph[i].p_type != PT_NOTE)
			continue;
		if (ph[i].p_offset > fsize ||
		    ph[i].p_filesz > fsize - ph[i].p_offset)
			err = mmc_error_create(MMC_ERR_INPUT, kd->path,
					       "truncated or corrupt dump: program header %llu at offset 0x%llx: data at file offset 0x%llx size 0x%llx runs past the end of the file (size 0x%llx)",
					       (unsigned long long)i,
					       (unsigned long long)(eh.e_phoff + i * sizeof(*ph)),
					       (unsigned long long)ph[i].p_offset,
					       (unsigned long long)ph[i].p_filesz,
					       (unsigned long long)fsize);
	}
	free(ph);
	return err;
}

static struct mmc_error *kdump_setup(struct mem_kdump *kd, struct mmc_mem *mem)
{
	struct mmc_error *err;
	kdump_num_t page_size;
	kdump_status st;
	char *raw = NULL;

	st = kdump_open_fd(kd->ctx, kd->fd);
	if (st != KDUMP_OK)
		return kdump_fail(kd->ctx, kd->path, "kdump_open_fd", st);
	err = kdump_check_elf(kd);
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
	st = kdump_get_addrxlat(kd->ctx, NULL, NULL);
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
	return NULL;
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
	if (err)
		goto out_destroy;
	*out = mem;
	return NULL;

out_destroy:
	mmc_mem_destroy(mem);
	return err;
}
