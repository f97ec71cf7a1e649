// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs a fuzz target on the files named (corpus seeds, crash reproducers)
 * without libFuzzer: the regression build of every target (tests/fuzz.t).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		long n;

		if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1)) ||
		    fread(buf, 1, (size_t)n, f) != (size_t)n) {
			perror(argv[i]);
			return 2;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		free(buf);
	}
	return 0;
}
