// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Write a synthetic kernel image (kcore-format ELF) and its saved layout, for
 * the CLI-level tests in tests/synthetic.t.  See synth_kernel.h.
 *
 * usage: mksynth CORE LAYOUT [reboot] [tail-refcount] [bad-tail] [wild-tail]
 *                [head-cycle] [hole] [xa-cycle] [release=R]
 *                [unreadable-pgmap] [wild-pgmap] [big-order] [double-map]
 *                [vmemmap-cross] [ro-tails] [ro-head]
 */
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "synth_kernel.h"

int main(int argc, char **argv)
{
	struct synth_opts o = { .bad_tail = -1, .wild_tail = -1 };
	struct mmc_layout *l;
	struct mmc_error *err;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s CORE LAYOUT [options]\n", argv[0]);
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "reboot")) {
			o.slab_shift = 5;
			o.frame_shift = 9;
		} else if (!strcmp(argv[i], "tail-refcount")) {
			o.tail_refcount = 1;
		} else if (!strcmp(argv[i], "bad-tail")) {
			o.bad_tail = SK_R1_PFN + 512 + 3;
		} else if (!strcmp(argv[i], "wild-tail")) {
			o.wild_tail = SK_R1_PFN + 7;
		} else if (!strcmp(argv[i], "head-cycle")) {
			o.head_cycle = 1;
		} else if (!strcmp(argv[i], "hole")) {
			o.drop_frame = SK_VMEMMAP + SK_R0_PFN * 64 + 4096;
		} else if (!strcmp(argv[i], "xa-cycle")) {
			o.xa_cycle = 1;
		} else if (!strcmp(argv[i], "unreadable-pgmap")) {
			o.unreadable_pgmap = 1;
		} else if (!strcmp(argv[i], "wild-pgmap")) {
			o.wild_pgmap = SK_R0_PFN + 5;
		} else if (!strcmp(argv[i], "big-order")) {
			o.big_order_head = SK_R1_PFN;
		} else if (!strcmp(argv[i], "double-map")) {
			o.double_map = 1;
		} else if (!strcmp(argv[i], "vmemmap-cross")) {
			o.vmemmap_cross = 1;
		} else if (!strcmp(argv[i], "ro-tails")) {
			o.ro_shared_tails = 1;
		} else if (!strcmp(argv[i], "ro-head")) {
			o.ro_head_frame = 1;
		} else if (!strncmp(argv[i], "release=", 8)) {
			o.release = argv[i] + 8;
		} else {
			fprintf(stderr, "mksynth: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (synth_write(argv[1], &o)) {
		perror(argv[1]);
		return 1;
	}
	l = mmc_layout_create();
	if (!l || synth_layout(l))
		return 1;
	err = mmc_layout_save(l, argv[2]);
	mmc_layout_destroy(l);
	if (err) {
		mmc_error_fprint(stderr, err);
		fputc('\n', stderr);
		mmc_error_destroy(err);
		return 1;
	}
	return 0;
}
