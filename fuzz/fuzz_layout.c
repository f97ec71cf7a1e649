// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the saved-layout reader (mmc_layout_parse_text), then the
 * checks and the writer every reader of a layout relies on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmc_layout *l = NULL, *copy = NULL;
	struct mmc_error *err;

	err = mmc_layout_parse_text((const char *)data, size, "fuzz.layout", &l);
	mmc_error_destroy(err);
	if (l) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		mmc_error_destroy(mmc_layout_check(l));
		(void)mmc_layout_fingerprint(l);
		if (f) {
			mmc_error_destroy(mmc_layout_write_text(f, l));
			fclose(f);
		}
		free(text);
		err = mmc_layout_copy(l, &copy);
		mmc_error_destroy(err);
		if (!err) {
			mmc_error_destroy(mmc_layout_compare(l, copy, true));
			mmc_layout_destroy(copy);
		}
		mmc_layout_destroy(l);
	}
	return 0;
}
