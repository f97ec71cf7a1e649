/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A diff as KCIDB JSON (kernelci/kcidb-io schema v5.3): the two kernels'
 * checkouts and builds, a root test node with the verdict and counts, one
 * test node per ZONE_DEVICE range and one for the pgmaps.  The tests hang
 * off the patched kernel's build; the base is the reference they name.
 *
 * What the snapshots carry (kernel release, vmlinux build-id, dump) is
 * always there; what they cannot know (the lab's own KCIDB ids, the git
 * commit, the patch series and its hash, the config) comes from a kernel
 * identity file per side, `key=value` lines (doc/LABS.md):
 *
 *   checkout_id, build_id         the lab's KCIDB ids, "origin:..." (else made
 *                                 from the origin and the vmlinux build-id)
 *   tree_name, git_repository_url, git_commit_hash, git_commit_name,
 *   patchset_hash                 checkout fields, as KCIDB defines them
 *   patch                         "NAME URL" of one patch file (repeatable)
 *   config_name, architecture, compiler, kernel   build fields; kernel is a
 *                                 free label such as "6.12-template"
 *   snapshot_url                  where the snapshot artefact was stored
 */
#ifndef MMC_REPORT_KCIDB_H
#define MMC_REPORT_KCIDB_H

#include <stdio.h>

#include "diff.h"
#include "mmc_error.h"
#include "snapshot.h"

#define MMC_KCIDB_TEXT 512
#define MMC_KCIDB_MAX_PATCHES 32
#define MMC_KCIDB_SCHEMA_MAJOR 5
#define MMC_KCIDB_SCHEMA_MINOR 3

struct mmc_kcidb_kernel {
	char checkout_id[MMC_KCIDB_TEXT], build_id[MMC_KCIDB_TEXT];
	char tree_name[MMC_KCIDB_TEXT], git_repository_url[MMC_KCIDB_TEXT];
	char git_commit_hash[41], git_commit_name[MMC_KCIDB_TEXT];
	char patchset_hash[65];
	size_t npatches;
	char patch_name[MMC_KCIDB_MAX_PATCHES][128];
	char patch_url[MMC_KCIDB_MAX_PATCHES][MMC_KCIDB_TEXT];
	char config_name[MMC_KCIDB_TEXT], architecture[64], compiler[MMC_KCIDB_TEXT];
	char kernel[MMC_KCIDB_TEXT], snapshot_url[MMC_KCIDB_TEXT];
};

struct mmc_kcidb_opts {
	const char *origin;				/* NULL: "memmapcheck" */
	const struct mmc_kcidb_kernel *kernel[2];	/* [0] base, [1] patched; NULL: none */
};

/* Read a kernel identity file; an unknown key, a value KCIDB would refuse
 * (an id without "origin:", a hash that is not hex) or a line without '='
 * is an error naming the file and line. */
struct mmc_error *mmc_kcidb_kernel_load(const char *path, struct mmc_kcidb_kernel *k);
/* A KCIDB origin: [a-z0-9_]+. */
bool mmc_kcidb_origin_valid(const char *origin);
/* The whole document; opts NULL: origin "memmapcheck", no identity files. */
void mmc_report_diff_kcidb(FILE *out, const struct mmc_snapshot *a,
			   const struct mmc_snapshot *b,
			   const struct mmc_diff_result *res,
			   const struct mmc_kcidb_opts *opts);

#endif
