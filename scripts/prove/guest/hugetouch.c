// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hugetouch: map HugeTLB pages, write to each, then stay alive holding the
 * mappings so that the folios stay on their hstate's active list, mapped,
 * while the guest is dumped.
 *
 * usage: hugetouch [-r READYFILE] SPEC...
 *   file:PATH:SIZE:N   a file on a hugetlbfs mount whose huge page size is
 *                      SIZE bytes, N huge pages long, mapped MAP_SHARED
 *   anon:SIZE:N:ADDR   N anonymous MAP_HUGETLB pages of SIZE bytes at the
 *                      fixed virtual address ADDR (an anonymous folio's
 *                      index is its virtual page number: a fixed address
 *                      keeps it the same from boot to boot)
 * Prints one line per mapping, then "HUGETOUCH-OK <n>" (n mappings made),
 * writes "<n> <failures>" to READYFILE and pauses forever.  Built
 * statically (gcc -static) for the guest initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* log2 of a power of two */
static int order_of(unsigned long v)
{
	int n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

/* One recognisable non-zero line at the start of every huge page. */
static void touch(char *p, unsigned long size, unsigned long n, const char *what)
{
	for (unsigned long i = 0; i < n; i++)
		snprintf(p + i * size, 64, "memmapcheck hugetouch %s +%lu", what, i);
}

static int map_file(char *spec)
{
	char *path = strtok(spec, ":"), *s = strtok(NULL, ":"), *c = strtok(NULL, ":");
	unsigned long size, n, len;
	char *p;
	int fd;

	if (!path || !s || !c)
		return -1;
	size = strtoul(s, NULL, 0);
	n = strtoul(c, NULL, 0);
	len = size * n;
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0) {
		fprintf(stderr, "hugetouch: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (ftruncate(fd, len) < 0) {
		fprintf(stderr, "hugetouch: ftruncate %s %lu: %s\n", path, len, strerror(errno));
		close(fd);
		return -1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "hugetouch: mmap %s len %lu: %s\n", path, len, strerror(errno));
		close(fd);
		return -1;
	}
	touch(p, size, n, path);
	printf("hugetouch: %s %lu x %lu bytes at %p\n", path, n, size, (void *)p);
	return 0;	/* fd and mapping stay */
}

static int map_anon(char *spec)
{
	char *s = strtok(spec, ":"), *c = strtok(NULL, ":"), *a = strtok(NULL, ":");
	unsigned long size, n, len, addr;
	int flags;
	char *p;

	if (!s || !c || !a)
		return -1;
	size = strtoul(s, NULL, 0);
	n = strtoul(c, NULL, 0);
	addr = strtoul(a, NULL, 0);
	len = size * n;
	flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED_NOREPLACE |
		(order_of(size) << MAP_HUGE_SHIFT);
	p = mmap((void *)addr, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED || (unsigned long)p != addr) {
		fprintf(stderr, "hugetouch: mmap anon %lu x %lu at 0x%lx: %s\n", n, size, addr,
			p == MAP_FAILED ? strerror(errno) : "moved");
		return -1;
	}
	touch(p, size, n, "anon");
	printf("hugetouch: anon %lu x %lu bytes at %p\n", n, size, (void *)p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	int opt, nmaps = 0, failed = 0;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		switch (opt) {
		case 'r': ready = optarg; break;
		default:
			fprintf(stderr, "usage: hugetouch [-r READYFILE] file:PATH:SIZE:N | anon:SIZE:N:ADDR ...\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		char *spec = strdup(argv[i]);
		int r = -1;

		if (!strncmp(spec, "file:", 5))
			r = map_file(spec + 5);
		else if (!strncmp(spec, "anon:", 5))
			r = map_anon(spec + 5);
		else
			fprintf(stderr, "hugetouch: bad spec %s\n", argv[i]);
		if (r < 0)
			failed++;
		else
			nmaps++;
	}
	printf("HUGETOUCH-OK %d\n", nmaps);
	fflush(stdout);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dprintf(fd, "%d %d\n", nmaps, failed);
			close(fd);
		}
	}
	for (;;)
		pause();
}
