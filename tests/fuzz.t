#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fuzz targets as regression tests: each, built without libFuzzer
# (fuzz/standalone.c; under ASan+UBSan in the sanitized run), on every
# reproducer of a crash fuzzing found (fuzz/crashes/<target>/) and on the
# seeds made from the committed vectors (fuzz/mkseeds.py).  A reproducer
# stays here after its bug is fixed: the test is that it no longer crashes.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:${LSAN_OPTIONS:-}"

args=()
for g in 6.12 7.2; do
	d=$("$top/scripts/vectors/unpack-dumps.sh" "$g" 2> /dev/null) || continue
	args+=("$d/$g-base-b1.kdump" "$top/test-vectors/layouts/$g-base.layout")
done
python3 "$top/fuzz/mkseeds.py" "$w/seeds" "${args[@]}" > "$w/seeds.log" 2>&1
ok $? "seeds made from the committed vectors"
for t in snapshot layout decode walk dump patterns open; do
	bin=$B/tests/fuzz_$t
	if [ ! -x "$bin" ]; then
		skip "$bin not built"
		continue
	fi
	files=()
	for f in "$top/fuzz/crashes/$t"/* "$top/fuzz/corpus/$t"/* "$w/seeds/$t"/*; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ ${#files[@]} = 0 ]; then
		skip "$t: no inputs (the dumps are not unpacked)"
		continue
	fi
	timeout 600 "$bin" "${files[@]}" > "$w/$t.out" 2>&1
	rc=$?
	ok $rc "fuzz_$t on ${#files[@]} inputs ($(ls "$top/fuzz/crashes/$t" 2> /dev/null | wc -l) crash reproducers): exit $rc"
	[ "$rc" = 0 ] || sed 's/^/# /' "$w/$t.out" | tail -20
	# some reproducers were hangs (a walk of 2^22 non-canonical vmemmap pages:
	# 24 s at -O2, over 10 min under libFuzzer and ASan); fixed, each takes
	# under 1 s under ASan, so each must finish on its own within 10 s
	# under valgrind memcheck: libkdumpfile is not built with ASan, so
	# its invalid accesses show only here.  MMC_FUZZ_VALGRIND=all: every
	# input (make fuzz), else the reproducers (make check)
	if [ "${MMC_SANITIZED:-0}" != 1 ] && command -v valgrind > /dev/null; then
		vfiles=()
		if [ "${MMC_FUZZ_VALGRIND:-cheap}" = all ]; then
			vfiles=("${files[@]}")
		else
			for f in "$top/fuzz/crashes/$t"/*; do [ -f "$f" ] && vfiles+=("$f"); done
		fi
		if [ ${#vfiles[@]} -gt 0 ]; then
			timeout 3600 valgrind -q --error-exitcode=99 --suppressions="$top/tests/valgrind.supp" \
				"$bin" "${vfiles[@]}" > "$w/$t.vg" 2>&1
			rc=$?
			ok $rc "fuzz_$t on ${#vfiles[@]} inputs under valgrind memcheck: exit $rc"
			[ "$rc" = 0 ] || sed 's/^/# /' "$w/$t.vg" | head -30
		fi
	fi
	for f in "$top/fuzz/crashes/$t"/*; do
		[ -f "$f" ] || continue
		timeout 10 "$bin" "$f" > "$w/$t.one" 2>&1
		rc=$?
		ok $rc "fuzz_$t on reproducer $(basename "$f") alone, within 10 s: exit $rc"
		[ "$rc" = 0 ] || sed 's/^/# /' "$w/$t.one" | tail -10
	done
done
echo "1..$n"
[ "$failed" = 0 ]
