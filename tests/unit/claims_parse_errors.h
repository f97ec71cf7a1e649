/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Claims files that must not parse, each with the line its error names
 * and what the error says (test_claims_io's grammar, test_claims_pools'
 * pool fields): one test per file, "FILE: line N: " and the words.
 */
#ifndef MMC_TEST_CLAIMS_PARSE_ERRORS_H
#define MMC_TEST_CLAIMS_PARSE_ERRORS_H

#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "tap.h"

struct claims_bad {
	const char *text;	/* after the table's prefix */
	unsigned int line;	/* the line the error names, the prefix's counted */
	const char *says;	/* words the error holds */
};

/* Each of bad[0..n), prefix and its text, parsed as file: an input error
 * naming file and line, no claims. */
static inline void claims_parse_errors(const char *file, const char *prefix,
				       const struct claims_bad *bad, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(prefix) + strlen(bad[i].text);
		char *text = malloc(len + 1), want[300], *msg;
		struct mmc_claims *cl = NULL;
		struct mmc_error *err;

		if (!text)
			abort();
		strcpy(text, prefix);
		strcat(text, bad[i].text);
		err = mmc_claims_parse(file, text, len, &cl);
		msg = err ? mmc_error_string(err) : NULL;
		snprintf(want, sizeof(want), "%s: line %u: ", file, bad[i].line);
		tap_ok(err && !cl && err->code == MMC_ERR_INPUT && msg &&
		       !strncmp(msg, want, strlen(want)) && strstr(msg, bad[i].says),
		       "[proof] parse error %zu names the file and line %u: %s", i, bad[i].line,
		       msg ? msg : "(no error)");
		free(msg);
		free(text);
		mmc_error_destroy(err);
		mmc_claims_destroy(cl);
	}
}

#endif
