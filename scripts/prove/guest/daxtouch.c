// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daxtouch: map device-dax character devices and files on fsdax mounts,
 * touch a few pages of each, then stay alive holding the mappings so that
 * refcounts and page->mapping are stable while the guest is dumped.
 *
 * usage: daxtouch [-n PAGES] [-s FILESIZE] [-r READYFILE] PATH...
 *   PATH is a /dev/daxX.Y device or a file on a filesystem mounted -o dax
 *   (created and sized to FILESIZE if it does not exist).
 * Prints one line per mapping, then "DAXTOUCH-OK <n>" and pauses forever.
 * Built statically (gcc -static) for the guest initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long read_ul(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Size and alignment of a device-dax node from sysfs. */
static int dax_geometry(const char *dev, unsigned long *size, unsigned long *align)
{
	const char *name = strrchr(dev, '/');
	char p[256];

	name = name ? name + 1 : dev;
	snprintf(p, sizeof(p), "/sys/bus/dax/devices/%s/size", name);
	*size = read_ul(p);
	snprintf(p, sizeof(p), "/sys/bus/dax/devices/%s/align", name);
	*align = read_ul(p);
	if (!*align) {	/* older kernels: region align */
		snprintf(p, sizeof(p), "/sys/class/dax/%s/device/align", name);
		*align = read_ul(p);
	}
	if (!*align)
		*align = 2UL << 20;
	return *size ? 0 : -1;
}

/*
 * ext2 and ext4 (without delalloc, as with -o dax) start a new file's blocks
 * at a "colour" offset in the block group taken from the writer's pid
 * (ext2_find_near(), ext4_inode_to_goal_block(): (pid % 16) * blocks/16).
 * PIDs differ from boot to boot, so the fsdax pages a file gets would too,
 * and two boots of one kernel would not compare identical.  Write from a
 * process whose pid % 16 == 0: the parents wait and pass on its exit status.
 */
static void settle_pid_colour(void)
{
	for (int i = 0; i < 64 && getpid() % 16 != 0; i++) {
		pid_t c = fork();
		int st;

		if (c < 0)
			return;
		if (c == 0)
			continue;
		if (waitpid(c, &st, 0) < 0)
			_exit(1);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
}

int main(int argc, char **argv)
{
	unsigned long npages = 4, fsize = 8UL << 20;
	int opt, nmaps = 0;
	const char *ready = NULL;

	while ((opt = getopt(argc, argv, "n:s:r:")) != -1) {
		switch (opt) {
		case 'n': npages = strtoul(optarg, NULL, 0); break;
		case 's': fsize = strtoul(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		default:
			fprintf(stderr, "usage: daxtouch [-n PAGES] [-s FILESIZE] [-r READYFILE] PATH...\n");
			return 2;
		}
	}
	/*
	 * Device-dax first, in this process: which process maps them decides
	 * the folios' _mm_ids (7.x), so it must not depend on how many forks
	 * settle_pid_colour() needed.  MADV_DONTFORK keeps them out of the
	 * children.  Then the files, from a pid % 16 == 0 process.
	 */
	for (int pass = 0; pass < 2; pass++) {
	if (pass == 1)
		settle_pid_colour();
	for (int i = optind; i < argc; i++) {
		const char *path = argv[i];
		struct stat st;
		unsigned long size, align, step, len;
		int isdev = strncmp(path, "/dev/dax", 8) == 0;
		int fd;
		char *p;

		if (isdev != (pass == 0))
			continue;
		fd = open(path, isdev ? O_RDWR : O_RDWR | O_CREAT, 0644);

		if (fd < 0) {
			fprintf(stderr, "daxtouch: open %s: %s\n", path, strerror(errno));
			continue;
		}
		if (isdev) {
			if (dax_geometry(path, &size, &align) < 0) {
				fprintf(stderr, "daxtouch: no size for %s\n", path);
				close(fd);
				continue;
			}
			step = align;
		} else {
			if (fstat(fd, &st) == 0 && (unsigned long)st.st_size < fsize) {
				int e = posix_fallocate(fd, 0, fsize);
				if (e && ftruncate(fd, fsize) < 0)
					fprintf(stderr, "daxtouch: size %s: %s\n", path, strerror(e));
			}
			size = fsize;
			align = 4096;
			step = 4096;
		}
		/* Touch npages units of 'step' (one per compound page), within size. */
		len = npages * step;
		if (len > size)
			len = size - size % align;
		if (!len) {
			close(fd);
			continue;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "daxtouch: mmap %s len %lu: %s\n", path, len, strerror(errno));
			close(fd);
			continue;
		}
		for (unsigned long off = 0; off < len; off += step) {
			/* write a recognisable non-zero pattern at the start of each unit */
			snprintf(p + off, 64, "memmapcheck %s +%lu", path, off);
			/* and read one more 4K page inside the unit */
			if (step > 4096)
				(void)*(volatile char *)(p + off + 4096);
		}
		if (isdev && madvise(p, len, MADV_DONTFORK) < 0)
			fprintf(stderr, "daxtouch: madvise %s: %s\n", path, strerror(errno));
		printf("daxtouch: %s size %lu align %lu mapped %lu at %p\n",
		       path, size, align, len, (void *)p);
		nmaps++;
		/* keep fd and mapping open */
	}
	}
	printf("DAXTOUCH-OK %d\n", nmaps);
	fflush(stdout);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dprintf(fd, "%d\n", nmaps);
			close(fd);
		}
	}
	for (;;)
		pause();
}
