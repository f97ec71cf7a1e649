// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * VMCOREINFO: the "KEY=value\n" text the kernel keeps for dump tools
 * (kernel/vmcore_info.c, arch/x86/kernel/vmcore_info_64.c).
 *
 * How the kernel prints each kind of value decides how it is read back:
 *   SYMBOL(x)=%lx, KERNELOFFSET=%lx             hex without 0x
 *   NUMBER(x)=%ld (NUMBER(phys_base) included,
 *     NUMBER(pgtable_l5_enabled)=%d)             signed decimal
 *   NUMBER(VMALLOC_START)=0x%lx                  hex with 0x (any 0x value)
 *   SIZE(x)=%lu, OFFSET(x.y)=%lu, LENGTH(x)=%lu  unsigned decimal
 *   PAGESIZE=%ld, CRASHTIME=%lld                 decimal
 *   OSRELEASE=%s, BUILD-ID=hex string            text (not numbers)
 * A negative decimal is returned as its two's complement.
 */
#include "vmcoreinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct vi_entry {
	const char *key;
	const char *value;
};

struct mmc_vmcoreinfo {
	char *text;		/* owned copy, split in place */
	size_t count;
	struct vi_entry *entries;
};

void mmc_vmcoreinfo_destroy(struct mmc_vmcoreinfo *vi)
{
	if (!vi)
		return;
	free(vi->entries);
	free(vi->text);
	free(vi);
}

struct mmc_error *mmc_vmcoreinfo_parse(const char *text, const char *path,
				       struct mmc_vmcoreinfo **out)
{
	struct mmc_vmcoreinfo *vi;
	struct mmc_error *err = NULL;
	size_t lines = 1, lineno = 0;
	char *line, *next, *eq;

	vi = calloc(1, sizeof(*vi));
	if (!vi)
		return mmc_error_nomem();
	/* The note is NUL-padded: the text ends at the first NUL. */
	vi->text = strdup(text);
	if (!vi->text) {
		err = mmc_error_nomem();
		goto fail;
	}
	for (const char *c = vi->text; *c; c++)
		lines += *c == '\n';
	vi->entries = calloc(lines, sizeof(*vi->entries));
	if (!vi->entries) {
		err = mmc_error_nomem();
		goto fail;
	}
	for (line = vi->text; line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		eq = strchr(line, '=');
		/* The kernel never writes these; something else is in the note. */
		if (!eq || eq == line ||
		    strcspn(line, " \t\r") < (size_t)(eq - line)) {
			err = mmc_error_create(MMC_ERR_INPUT, path,
					       "VMCOREINFO line %zu: not KEY=value: \"%.40s\"",
					       lineno, line);
			goto fail;
		}
		*eq = '\0';
		vi->entries[vi->count].key = line;
		vi->entries[vi->count].value = eq + 1;
		vi->count++;
	}
	*out = vi;
	return NULL;
fail:
	mmc_vmcoreinfo_destroy(vi);
	return err;
}

const char *mmc_vmcoreinfo_get(const struct mmc_vmcoreinfo *vi, const char *key)
{
	/*
	 * Last one wins: the kernel only appends, so a repeated key (a second
	 * CRASHTIME after a re-save) is the newer value.
	 */
	for (size_t i = vi->count; i-- > 0;)
		if (!strcmp(vi->entries[i].key, key))
			return vi->entries[i].value;
	return NULL;
}

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool parse_digits(const char *s, int base, uint64_t *value)
{
	const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
	char *end;

	if (!*s || strspn(s, digits) != strlen(s))
		return false;
	errno = 0;
	*value = strtoull(s, &end, base);
	return errno == 0 && *end == '\0';
}

bool mmc_vmcoreinfo_number(const struct mmc_vmcoreinfo *vi, const char *key,
			   uint64_t *value)
{
	const char *v = mmc_vmcoreinfo_get(vi, key);
	uint64_t mag;

	if (!v)
		return false;
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		return parse_digits(v + 2, 16, value);
	if (prefix(key, "SYMBOL(") || !strcmp(key, "KERNELOFFSET"))
		return parse_digits(v, 16, value);
	if (prefix(key, "NUMBER(") || !strcmp(key, "PAGESIZE") ||
	    !strcmp(key, "CRASHTIME")) {
		if (v[0] == '-') {
			if (!parse_digits(v + 1, 10, &mag) ||
			    mag > (uint64_t)INT64_MAX + 1)
				return false;
			*value = (uint64_t)0 - mag;
			return true;
		}
		return parse_digits(v, 10, value);
	}
	if (prefix(key, "SIZE(") || prefix(key, "OFFSET(") ||
	    prefix(key, "LENGTH("))
		return parse_digits(v, 10, value);
	return false;
}
