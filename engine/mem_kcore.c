// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Memory source over a kcore-format ELF64 core (/proc/kcore, or any ELF
 * core whose PT_LOAD segments carry physical addresses).
 *
 * /proc/kcore reports a huge st_size and may hold holes that fault, so the
 * file is never mmapped: every read is a pread of exactly what was asked.
 * Since Linux 4.x kcore sets p_paddr of KCORE_RAM and KCORE_TEXT segments
 * and (elf_addr_t)-1 for everything else (vmalloc, modules, vmemmap);
 * older kernels wrote 0 everywhere, which we treat as "no physical address"
 * when every segment says 0.
 */
#include "mem.h"

#include <elf.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KCORE_MAX_NOTES		(16u << 20)

struct kcore_seg {
	uint64_t start;		/* vaddr or paddr */
	uint64_t size;		/* p_filesz: bytes present in the file */
	uint64_t offset;	/* p_offset */
	uint64_t max_end;	/* highest start + size of this and all before */
};

struct kcore_map {
	struct kcore_seg *segs;	/* sorted by start */
	size_t n;
	size_t last;		/* index of the last hit: reads come in runs */
};

struct mem_kcore {
	int fd;
	bool reader;		/* a second reader: fd and segments are the source's */
	const char *path;	/* owned by struct mmc_mem */
	struct kcore_map map[2];	/* [MMC_KVADDR], [MMC_PHYSADDR] */
};

static int seg_cmp(const void *a, const void *b)
{
	const struct kcore_seg *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* The segment holding addr, or NULL. */
static const struct kcore_seg *map_find(struct kcore_map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	const struct kcore_seg *s;

	if (m->last < m->n) {
		s = &m->segs[m->last];
		if (addr >= s->start && addr - s->start < s->size)
			return s;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * lo is the first segment starting above addr.  Segments may overlap
	 * (kcore's TEXT lies inside RAM), so look back while some earlier
	 * segment still reaches past addr.
	 */
	while (lo > 0 && m->segs[lo - 1].max_end > addr) {
		s = &m->segs[--lo];
		if (addr >= s->start && addr - s->start < s->size) {
			m->last = lo;
			return s;
		}
	}
	return NULL;
}

/* Another segment than s holding addr (segments may overlap), or NULL. */
static const struct kcore_seg *map_find_other(const struct kcore_map *m, uint64_t addr,
					      const struct kcore_seg *s)
{
	size_t i;

	for (i = 0; i < m->n && m->segs[i].start <= addr; i++) {
		const struct kcore_seg *t = &m->segs[i];

		if (t != s && addr - t->start < t->size)
			return t;
	}
	return NULL;
}

/*
 * A physical chunk two segments map (kcore's TEXT inside RAM; a crafted
 * core's overlapping PT_LOADs): read from both, and what they disagree on
 * is unreadable rather than taken from whichever segment comes first, as
 * mem_extent_elf.c does for a dump.  *chunk shrinks to what both hold.
 */
static struct mmc_error *check_alias(struct mem_kcore *kc, const struct kcore_seg *s,
				     const struct kcore_seg *t, uint64_t cur,
				     const unsigned char *got, size_t *chunk)
{
	uint64_t avail = t->size - (cur - t->start);
	unsigned char tmp[4096];
	size_t n, at = 0;

	if (*chunk > avail)
		*chunk = (size_t)avail;
	while (at < *chunk) {
		n = *chunk - at < sizeof(tmp) ? *chunk - at : sizeof(tmp);
		if (mmc_pread_exact(kc->fd, kc->path, tmp, n,
				    t->offset + (cur + at - t->start), "an aliased segment")) {
			*chunk = at;	/* what both hold: the rest is read again later */
			break;
		}
		if (memcmp(tmp, got + at, n))
			return mmc_error_nodata(kc->path, cur + at, MMC_UR_CORRUPT,
						"two PT_LOAD segments (file offsets 0x%llx and 0x%llx) map this physical address with different contents",
						(unsigned long long)(s->offset + (cur + at - s->start)),
						(unsigned long long)(t->offset + (cur + at - t->start)));
		at += n;
	}
	return NULL;
}

static struct mmc_error *mem_kcore_read(void *priv, enum mmc_space space,
					uint64_t addr, void *buf, size_t len,
					size_t *done)
{
	struct mem_kcore *kc = priv;
	struct kcore_map *m = &kc->map[space == MMC_PHYSADDR];
	unsigned char *p = buf;
	size_t total = 0;

	while (total < len) {
		uint64_t cur = addr + total, avail;
		const struct kcore_seg *s = map_find(m, cur);
		size_t chunk;
		ssize_t r;

		if (!s) {
			*done = total;
			return mmc_error_at(MMC_ERR_NODATA, kc->path, cur,
					    "no %s segment holds this address",
					    space == MMC_PHYSADDR ?
					    "physical" : "virtual");
		}
		avail = s->size - (cur - s->start);
		chunk = len - total;
		if (chunk > avail)
			chunk = (size_t)avail;
		r = pread(kc->fd, p + total, chunk,
			  (off_t)(s->offset + (cur - s->start)));
		if (r < 0) {
			struct mmc_error *err;

			if (errno == EINTR)
				continue;
			*done = total;
			err = mmc_error_at(MMC_ERR_OS, kc->path, cur,
					   "pread(offset 0x%llx)",
					   (unsigned long long)(s->offset +
								(cur - s->start)));
			if (err != mmc_error_nomem())
				err->errnum = errno;
			return err;
		}
		if (r == 0) {
			*done = total;
			return mmc_error_at(MMC_ERR_INPUT, kc->path, cur,
					    "file truncated: offset 0x%llx is past its end",
					    (unsigned long long)(s->offset +
								(cur - s->start)));
		}
		if (space == MMC_PHYSADDR) {
			const struct kcore_seg *t = map_find_other(m, cur, s);
			size_t got = (size_t)r;

			if (t) {
				struct mmc_error *err = check_alias(kc, s, t, cur, p + total, &got);

				if (err) {
					*done = total;
					return err;
				}
				/* got 0: t's data is not in the file, s's stands */
				if (got && got < (size_t)r)
					r = (ssize_t)got;
			}
		}
		total += (size_t)r;
	}
	*done = total;
	return NULL;
}

static void mem_kcore_destroy(void *priv)
{
	struct mem_kcore *kc = priv;

	if (!kc)
		return;
	if (kc->reader) {
		free(kc);
		return;
	}
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc->map[0].segs);
	free(kc->map[1].segs);
	free(kc);
}

/*
 * A second reader for another thread: pread() has no file offset, the
 * segment tables are only read; only the last-hit index is its own.
 */
static struct mmc_error *mem_kcore_reader(void *priv, void **out)
{
	struct mem_kcore *kc = malloc(sizeof(*kc));

	*out = NULL;
	if (!kc)
		return mmc_error_nomem();
	*kc = *(const struct mem_kcore *)priv;
	kc->reader = true;
	*out = kc;
	return NULL;
}

static const struct mmc_mem_ops mem_kcore_ops = {
	.read = mem_kcore_read,
	.destroy = mem_kcore_destroy,
	.reader = mem_kcore_reader,
	.reader_destroy = mem_kcore_destroy,
};

static struct mmc_error *pread_exact(struct mem_kcore *kc, void *buf,
				     size_t len, uint64_t off, const char *what)
{
	return mmc_pread_exact(kc->fd, kc->path, buf, len, off, what);
}

/* Find the VMCOREINFO note in a PT_NOTE segment's bytes. */
static struct mmc_error *parse_notes(struct mem_kcore *kc, struct mmc_mem *mem,
				     const unsigned char *buf, size_t len,
				     uint64_t file_off)
{
	size_t pos = 0;

	while (len - pos >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t namesz, descsz, name_off, desc_off;

		memcpy(&nh, buf + pos, sizeof(nh));
		namesz = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		descsz = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		name_off = pos + sizeof(nh);
		if (namesz > len - name_off ||
		    descsz > len - name_off - namesz ||
		    nh.n_descsz > descsz)
			return mmc_error_create(MMC_ERR_INPUT, kc->path,
						"corrupt ELF note at offset 0x%llx",
						(unsigned long long)(file_off + pos));
		desc_off = name_off + namesz;
		if (nh.n_namesz >= 10 &&
		    !memcmp(buf + name_off, "VMCOREINFO", 10) &&
		    (nh.n_namesz == 10 || buf[name_off + 10] == '\0') &&
		    !mem->vmcoreinfo) {
			char *s = malloc((size_t)nh.n_descsz + 1);

			if (!s)
				return mmc_error_nomem();
			memcpy(s, buf + desc_off, nh.n_descsz);
			s[nh.n_descsz] = '\0';
			mem->vmcoreinfo = s;
		}
		pos = desc_off + descsz;
	}
	return NULL;
}

static void add_seg(struct kcore_map *m, uint64_t start, uint64_t size,
		    uint64_t offset)
{
	m->segs[m->n].start = start;
	m->segs[m->n].size = size;
	m->segs[m->n].offset = offset;
	m->n++;
}

static void map_finish(struct kcore_map *m)
{
	uint64_t max_end = 0;
	size_t i;

	qsort(m->segs, m->n, sizeof(*m->segs), seg_cmp);
	for (i = 0; i < m->n; i++) {
		if (m->segs[i].start + m->segs[i].size > max_end)
			max_end = m->segs[i].start + m->segs[i].size;
		m->segs[i].max_end = max_end;
	}
	m->last = m->n;
}

static struct mmc_error *check_ehdr(struct mem_kcore *kc, const Elf64_Ehdr *eh,
				    uint64_t fsize)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"not an ELF file (bad magic at offset 0)");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"not a little-endian ELF64 file (e_ident at offset 0x4)");
	if (eh->e_type != ET_CORE)
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"not an ELF core file: e_type %u at offset 0x%zx",
					eh->e_type, offsetof(Elf64_Ehdr, e_type));
	if (eh->e_machine != EM_X86_64)
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"not an x86_64 core: e_machine %u at offset 0x%zx",
					eh->e_machine,
					offsetof(Elf64_Ehdr, e_machine));
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0)
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"bad program header table: e_phentsize %u e_phnum %u at offset 0x%zx",
					eh->e_phentsize, eh->e_phnum,
					offsetof(Elf64_Ehdr, e_phentsize));
	if (eh->e_phoff > fsize ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > fsize - eh->e_phoff)
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"program headers at offset 0x%llx run past the end of the file (size 0x%llx)",
					(unsigned long long)eh->e_phoff,
					(unsigned long long)fsize);
	return NULL;
}

static struct mmc_error *kcore_parse(struct mem_kcore *kc, struct mmc_mem *mem,
				     uint64_t fsize)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	unsigned char *notes = NULL;
	struct mmc_error *err;
	bool any_paddr = false;
	size_t i, nload = 0;

	if (fsize < sizeof(eh))
		return mmc_error_create(MMC_ERR_INPUT, kc->path,
					"file too small for an ELF header (%llu bytes)",
					(unsigned long long)fsize);
	err = pread_exact(kc, &eh, sizeof(eh), 0, "ELF header");
	if (err)
		return err;
	err = check_ehdr(kc, &eh, fsize);
	if (err)
		return err;

	ph = calloc(eh.e_phnum, sizeof(*ph));
	if (!ph)
		return mmc_error_nomem();
	err = pread_exact(kc, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff,
			  "program headers");
	if (err)
		goto out;

	for (i = 0; i < eh.e_phnum; i++) {
		uint64_t off = eh.e_phoff + i * sizeof(*ph);

		if (ph[i].p_type != PT_LOAD && ph[i].p_type != PT_NOTE)
			continue;
		if (ph[i].p_offset > fsize ||
		    ph[i].p_filesz > fsize - ph[i].p_offset) {
			err = mmc_error_create(MMC_ERR_INPUT, kc->path,
					       "program header %zu at offset 0x%llx: segment at file offset 0x%llx size 0x%llx runs past the end of the file (size 0x%llx)",
					       i, (unsigned long long)off,
					       (unsigned long long)ph[i].p_offset,
					       (unsigned long long)ph[i].p_filesz,
					       (unsigned long long)fsize);
			goto out;
		}
		if (ph[i].p_type == PT_NOTE) {
			if (ph[i].p_filesz > KCORE_MAX_NOTES) {
				err = mmc_error_create(MMC_ERR_INPUT, kc->path,
						       "program header %zu at offset 0x%llx: note segment of 0x%llx bytes is implausibly large",
						       i, (unsigned long long)off,
						       (unsigned long long)ph[i].p_filesz);
				goto out;
			}
			notes = malloc(ph[i].p_filesz + 1);
			if (!notes) {
				err = mmc_error_nomem();
				goto out;
			}
			err = pread_exact(kc, notes, ph[i].p_filesz,
					  ph[i].p_offset, "ELF notes");
			if (!err)
				err = parse_notes(kc, mem, notes,
						  ph[i].p_filesz,
						  ph[i].p_offset);
			free(notes);
			notes = NULL;
			if (err)
				goto out;
			continue;
		}
		if (ph[i].p_vaddr + ph[i].p_filesz < ph[i].p_vaddr) {
			err = mmc_error_create(MMC_ERR_INPUT, kc->path,
					       "program header %zu at offset 0x%llx: virtual range wraps around",
					       i, (unsigned long long)off);
			goto out;
		}
		nload++;
		if (ph[i].p_paddr != 0 && ph[i].p_paddr != UINT64_MAX)
			any_paddr = true;
	}

	kc->map[0].segs = calloc(nload ? nload : 1, sizeof(struct kcore_seg));
	kc->map[1].segs = calloc(nload ? nload : 1, sizeof(struct kcore_seg));
	if (!kc->map[0].segs || !kc->map[1].segs) {
		err = mmc_error_nomem();
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		const Elf64_Phdr *p = &ph[i];

		if (p->p_type != PT_LOAD || p->p_filesz == 0)
			continue;
		add_seg(&kc->map[MMC_KVADDR], p->p_vaddr, p->p_filesz,
			p->p_offset);
		/* Old kcores wrote p_paddr 0 everywhere: no physical view. */
		if (p->p_paddr == UINT64_MAX || (!any_paddr && nload > 1))
			continue;
		if (p->p_paddr + p->p_filesz < p->p_paddr)
			continue;
		add_seg(&kc->map[MMC_PHYSADDR], p->p_paddr, p->p_filesz,
			p->p_offset);
	}
	map_finish(&kc->map[0]);
	map_finish(&kc->map[1]);
	mem->page_size = 4096;
out:
	free(ph);
	return err;
}

struct mmc_error *mmc_mem_open_kcore(const char *path, struct mmc_mem **out)
{
	struct mmc_error *err;
	struct mem_kcore *kc;
	struct mmc_mem *mem;
	struct stat st;

	kc = calloc(1, sizeof(*kc));
	if (!kc)
		return mmc_error_nomem();
	err = mmc_mem_open_file(&mem_kcore_ops, kc, path, &kc->fd, &kc->path, &mem);
	if (err)
		return err;
	if (fstat(kc->fd, &st) < 0) {
		err = mmc_error_os(errno, path, "fstat");
		goto out_destroy;
	}
	if (!S_ISREG(st.st_mode)) {
		err = mmc_error_create(MMC_ERR_INPUT, path,
				       "not a regular file");
		goto out_destroy;
	}
	err = kcore_parse(kc, mem, (uint64_t)st.st_size);
	if (err)
		goto out_destroy;
	*out = mem;
	return NULL;

out_destroy:
	mmc_mem_destroy(mem);
	return err;
}
