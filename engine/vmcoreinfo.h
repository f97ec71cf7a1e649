/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsed VMCOREINFO text ("KEY=value" lines). */
#ifndef MMC_VMCOREINFO_H
#define MMC_VMCOREINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "mmc_error.h"

struct mmc_vmcoreinfo;

struct mmc_error *mmc_vmcoreinfo_parse(const char *text, const char *path,
				       struct mmc_vmcoreinfo **out);
void mmc_vmcoreinfo_destroy(struct mmc_vmcoreinfo *vi);
/* Raw value of KEY (e.g. "OSRELEASE", "BUILD-ID", "SYMBOL(_stext)",
 * "NUMBER(phys_base)", "KERNELOFFSET"), or NULL. */
const char *mmc_vmcoreinfo_get(const struct mmc_vmcoreinfo *vi, const char *key);
/* Parsed as hex (SYMBOL, KERNELOFFSET, ...) or decimal (NUMBER, SIZE, OFFSET,
 * LENGTH, PAGESIZE) as the kernel writes them; false if absent or bad. */
bool mmc_vmcoreinfo_number(const struct mmc_vmcoreinfo *vi, const char *key,
			   uint64_t *value);

#endif
