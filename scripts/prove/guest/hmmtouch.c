// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmmtouch: move anonymous memory of this process into the device memory of
 * the kernel's HMM test driver (lib/test_hmm.c, /dev/hmm_dmirrorN), then stay
 * alive holding it, so that the device pages are in use while the guest is
 * dumped.
 *
 * usage: hmmtouch [-r READYFILE] DEV:SMALL:HUGE ...
 *   DEV    a /dev/hmm_dmirrorN node (0 and 1: MEMORY_DEVICE_PRIVATE; 2 and 3,
 *          with test_hmm.spm_addr_dev0/1: MEMORY_DEVICE_COHERENT)
 *   SMALL  order-0 pages, from a MADV_NOHUGEPAGE region
 *   HUGE   PMD-sized (2 MiB) regions, each aligned and populated as one
 *          transparent huge page first: kernels with large device-private
 *          folios (7.x, MIGRATE_VMA_SELECT_COMPOUND) move it as one folio,
 *          older ones split it into order-0 device pages
 * The regions sit at fixed addresses (an anonymous page's index is its
 * virtual page number, which ASLR would change from boot to boot), one after
 * the other in argument order.  A HUGE region that does not get a THP (the
 * first fault found no free 2 MiB block) is retried, at the same address,
 * after compacting memory again.
 * Prints one line per migration (with the AnonHugePages of a HUGE region
 * before it moved), then "HMMTOUCH-OK <n>" (or -FAILED when a device could not
 * be opened, a HUGE region got no THP, or a migration moved fewer pages than
 * asked) and pauses forever.
 * Built statically (gcc -static) for the guest initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The driver's user ABI, lib/test_hmm_uapi.h (not installed with the kernel
 * headers; identical in 6.12 and 7.2).
 */
struct hmm_dmirror_cmd {
	uint64_t addr;		/* start of the range in this process */
	uint64_t ptr;		/* buffer for the device's view of it */
	uint64_t npages;
	uint64_t cpages;	/* pages the driver handled */
	uint64_t faults;
};
#define HMM_DMIRROR_MIGRATE_TO_DEV	_IOWR('H', 0x02, struct hmm_dmirror_cmd)

#define PAGE 4096UL
/* where the regions go: far from the program, its heap and the mmap area */
#define REGION_BASE 0x100000000000UL

static unsigned long next_addr = REGION_BASE;

/* A fresh anonymous private mapping of len bytes at the next fixed address,
 * aligned to align. */
static char *map_next(unsigned long len, unsigned long align)
{
	char *p;

	next_addr = (next_addr + align - 1) & ~(align - 1);
	p = mmap((void *)next_addr, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "hmmtouch: mmap %lu at 0x%lx: %s\n", len, next_addr, strerror(errno));
		return NULL;
	}
	if ((unsigned long)p != next_addr) {	/* a kernel without MAP_FIXED_NOREPLACE */
		fprintf(stderr, "hmmtouch: mmap at 0x%lx gave %p\n", next_addr, (void *)p);
		munmap(p, len);
		return NULL;
	}
	next_addr += len + align;	/* a gap: separate VMAs */
	return p;
}

static void compact_memory(void)
{
	int fd = open("/proc/sys/vm/compact_memory", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			fprintf(stderr, "hmmtouch: compact_memory: %s\n", strerror(errno));
		close(fd);
	}
}

static unsigned long pmd_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 2UL << 20;
}

/* AnonHugePages (kB) of the mapping holding addr, from /proc/self/smaps. */
static long anon_huge_kb(void *addr)
{
	unsigned long a, b, x = (unsigned long)addr;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2)
			in = a <= x && x < b;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static int migrate(int fd, const char *dev, void *addr, unsigned long npages)
{
	struct hmm_dmirror_cmd cmd;
	void *mirror = malloc(npages * PAGE);
	int ret;

	if (!mirror)
		return -1;
	memset(&cmd, 0, sizeof(cmd));
	cmd.addr = (uintptr_t)addr;
	cmd.ptr = (uintptr_t)mirror;
	cmd.npages = npages;
	do
		ret = ioctl(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd);
	while (ret < 0 && errno == EINTR);
	free(mirror);
	if (ret < 0) {
		fprintf(stderr, "hmmtouch: %s: migrate %lu pages at %p: %s\n",
			dev, npages, addr, strerror(errno));
		return -1;
	}
	if (cmd.cpages != npages) {
		fprintf(stderr, "hmmtouch: %s: migrated %llu of %lu pages at %p\n",
			dev, (unsigned long long)cmd.cpages, npages, addr);
		return -1;
	}
	return 0;
}

/* Fill every page with a recognisable pattern, so each is populated. */
static void fill(char *p, unsigned long len, const char *dev)
{
	for (unsigned long off = 0; off < len; off += PAGE)
		snprintf(p + off, 96, "memmapcheck %.32s +%lu", dev, off);
}

static int touch_small(int fd, const char *dev, unsigned long n)
{
	unsigned long len = n * PAGE;
	char *p = map_next(len, pmd_size());

	if (!p)
		return -1;
	/* too small to hold an aligned PMD: order-0 pages, THP or not */
	fill(p, len, dev);
	if (migrate(fd, dev, p, n) < 0)
		return -1;
	printf("hmmtouch: %s: %lu small pages at %p migrated\n", dev, n, (void *)p);
	return 0;
}

static int touch_huge(int fd, const char *dev)
{
	unsigned long size = pmd_size();
	unsigned long at = next_addr;
	long kb = -1;
	char *p = NULL;

	compact_memory();
	for (int attempt = 0; attempt < 3; attempt++) {
		next_addr = at;	/* every attempt at the same address */
		p = map_next(size, size);
		if (!p)
			return -1;
		/* MADV_HUGEPAGE needs CONFIG_ADVISE_SYSCALLS: THP "always" suffices */
		if (madvise(p, size, MADV_HUGEPAGE) < 0 && errno != ENOSYS)
			fprintf(stderr, "hmmtouch: madvise HUGEPAGE: %s\n", strerror(errno));
		fill(p, size, dev);
		kb = anon_huge_kb(p);
		if (kb >= (long)(size >> 10))
			break;
		fprintf(stderr, "hmmtouch: %s: no THP at %p (AnonHugePages %ld kB), compacting\n",
			dev, (void *)p, kb);
		munmap(p, size);
		compact_memory();
	}
	if (kb < (long)(size >> 10)) {
		fprintf(stderr, "hmmtouch: %s: no THP for the huge region\n", dev);
		return -1;
	}
	if (migrate(fd, dev, p, size / PAGE) < 0)
		return -1;
	printf("hmmtouch: %s: %lu KiB THP at %p migrated\n", dev, size >> 10, (void *)p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	int opt, n = 0, bad = 0;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		switch (opt) {
		case 'r': ready = optarg; break;
		default:
			fprintf(stderr, "usage: hmmtouch [-r READYFILE] DEV:SMALL:HUGE ...\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		char dev[256];
		unsigned long small, huge;
		char *c = strchr(argv[i], ':');
		int fd;

		if (!c || c - argv[i] >= (long)sizeof(dev) ||
		    sscanf(c + 1, "%lu:%lu", &small, &huge) != 2) {
			fprintf(stderr, "hmmtouch: bad argument '%s' (DEV:SMALL:HUGE)\n", argv[i]);
			return 2;
		}
		memcpy(dev, argv[i], c - argv[i]);
		dev[c - argv[i]] = 0;
		fd = open(dev, O_RDWR);
		if (fd < 0) {
			fprintf(stderr, "hmmtouch: open %s: %s\n", dev, strerror(errno));
			bad = 1;
			continue;
		}
		/* fd stays open: the device's mirror of this process lives with it */
		if (small && touch_small(fd, dev, small) < 0)
			bad = 1;
		else if (small)
			n++;
		for (unsigned long h = 0; h < huge; h++) {
			if (touch_huge(fd, dev) < 0)
				bad = 1;
			else
				n++;
		}
	}
	printf("HMMTOUCH-%s %d\n", bad ? "FAILED" : "OK", n);
	fflush(stdout);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dprintf(fd, "%d %d\n", n, bad);
			close(fd);
		}
	}
	for (;;)
		pause();
}
