// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * p2ptouch: map pages of PCI peer-to-peer DMA memory into this process
 * through the sysfs file the kernel offers for it
 * (/sys/bus/pci/devices/<dev>/p2pmem/allocate, p2pmem_alloc_mmap() in
 * drivers/pci/p2pdma.c: a shared mapping of offset 0 takes the pages from the
 * device's p2pdma pool and vm_insert_page()s them), write to each, then stay
 * alive holding the mapping, so that those MEMORY_DEVICE_PCI_P2PDMA pages are
 * in use while the guest is dumped.
 *
 * usage: p2ptouch [-n PAGES] [-r READYFILE] PCI_SYSFS_DIR...
 * Prints one line per device, then "P2PTOUCH-OK <n>" (or -FAILED) and pauses
 * forever.  Built statically (gcc -static) for the guest initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL

int main(int argc, char **argv)
{
	unsigned long npages = 4;
	const char *ready = NULL;
	int opt, n = 0, bad = 0;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n': npages = strtoul(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		default:
			fprintf(stderr, "usage: p2ptouch [-n PAGES] [-r READYFILE] PCI_SYSFS_DIR...\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		char path[512];
		unsigned long len = npages * PAGE;
		char *p;
		int fd;

		snprintf(path, sizeof(path), "%s/p2pmem/allocate", argv[i]);
		fd = open(path, O_RDWR);
		if (fd < 0) {
			fprintf(stderr, "p2ptouch: open %s: %s\n", path, strerror(errno));
			bad = 1;
			continue;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "p2ptouch: mmap %s len %lu: %s\n", path, len, strerror(errno));
			close(fd);
			bad = 1;
			continue;
		}
		for (unsigned long off = 0; off < len; off += PAGE)
			snprintf(p + off, 64, "memmapcheck p2p +%lu", off);
		printf("p2ptouch: %s: %lu pages mapped at %p\n", path, npages, (void *)p);
		n++;
		/* keep fd and mapping */
	}
	printf("P2PTOUCH-%s %d\n", bad ? "FAILED" : "OK", n);
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
