#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The corpus libFuzzer grew (and its crashes), replayed under valgrind
# memcheck with the regression build of each target (no ASan: valgrind
# cannot run it): libkdumpfile is not instrumented, so an invalid access
# inside it shows only here.  Prints inputs and errors per target.
# usage: fuzz/valgrind.sh BUILD FUZZ_BUILD [TARGET...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: valgrind.sh BUILD FUZZ_BUILD [TARGET...]}
F=${2:?fuzz build}
shift 2
targets=${*:-dump open}
command -v valgrind > /dev/null || { echo "fuzz/valgrind.sh: valgrind not installed" >&2; exit 2; }
printf '%-10s %8s %8s\n' TARGET INPUTS ERRORS
status=0
for t in $targets; do
	bin=$B/tests/fuzz_$t
	[ -x "$bin" ] || { echo "fuzz/valgrind.sh: $bin not built" >&2; status=1; continue; }
	mapfile -t files < <(find "$F/corpus/$t" "$F/crashes/$t" "$top/fuzz/crashes/$t" -type f 2> /dev/null)
	errors=0
	if [ ${#files[@]} -gt 0 ]; then
		# in batches: one valgrind start-up per 200 inputs
		for ((i = 0; i < ${#files[@]}; i += 200)); do
			nice valgrind -q --error-exitcode=99 --suppressions="$top/tests/valgrind.supp" \
				"$bin" "${files[@]:i:200}" > "$F/$t.valgrind.$i" 2>&1 ||
				{ errors=$((errors + $(grep -c '^==[0-9]*== [IC]' "$F/$t.valgrind.$i"))); status=1; }
		done
	fi
	printf '%-10s %8s %8s\n' "$t" "${#files[@]}" "$errors"
done
exit $status
