#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The walk with several reading threads against the sequential walk, through
# the CLI, on the committed real images (dumps/<group>.tar.xz, unpacked by
# scripts/vectors/unpack-dumps.sh, layouts from test-vectors/layouts/ as
# tests/vectors.t finds them) and, when present, the large images of
# scripts/bench/large-images.sh up to 10 GiB: every snapshot file must be
# byte-identical for MEMMAPCHECK_THREADS=1, 2 and 5.  The reference is the
# sequential walk (the engine's own first path): an equivalence check
# between two ways of walking, not a proof of either.  diff and compare
# with --threads 1 and 3 must print the same JSON.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
M=$B/memmapcheck
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

[ -x "$M" ] || { echo "1..0 # SKIP no $M (build first)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The saved layout of an image (tests/taplib.py's kernel_of(); the two differ
# only on names with stacked suffixes, which no committed image has).
layout_of() {
	local k
	k=$(echo "$1" | sed -E 's/-(b[0-9]+|kdump)$//; s/-(la57|dax1g-section|dax1g-misaligned)$//')
	echo "$top/test-vectors/layouts/$k.layout"
}

# compare_threads NAME LAYOUT DUMP
compare_threads() {
	local name=$1 layout=$2 dump=$3 t rc rc1
	rc1=0
	MEMMAPCHECK_THREADS=1 "$M" snapshot -q -o "$tmp/1.snap" "$layout" "$dump" 2> "$tmp/err" || rc1=$?
	if [ "$rc1" -ne 0 ] && [ "$rc1" -ne 4 ]; then
		notok "$name: sequential snapshot (exit $rc1: $(tail -1 "$tmp/err"))"
		return
	fi
	for t in 2 5; do
		rc=0
		MEMMAPCHECK_THREADS=$t "$M" snapshot -q -o "$tmp/$t.snap" "$layout" "$dump" 2> "$tmp/err" || rc=$?
		if [ "$rc" -eq "$rc1" ] && cmp -s "$tmp/1.snap" "$tmp/$t.snap"; then
			ok "$name: $t threads: exit $rc, snapshot byte-identical to 1 thread"
		else
			notok "$name: $t threads: exit $rc (1 thread: $rc1), $(cmp "$tmp/1.snap" "$tmp/$t.snap" 2>&1 | head -1)"
		fi
	done
}

for tar in "$top"/dumps/*.tar.xz; do
	[ -e "$tar" ] || continue
	g=$(basename "$tar" .tar.xz)
	# production.tar.xz holds kdump states, not images (split parts, an
	# incomplete dump, a flattened file): tests/production.t reads those
	[ "$g" = production ] && continue
	d=$("$top/scripts/vectors/unpack-dumps.sh" "$g" 2> "$tmp/err") || { notok "unpack $g: $(tail -1 "$tmp/err")"; continue; }
	for dump in "$d"/*.kdump; do
		[ -e "$dump" ] || continue
		name=$(basename "$dump" .kdump)
		layout=$(layout_of "$name")
		if [ ! -s "$layout" ]; then
			skip "$name: no saved layout $(basename "$layout")"
			continue
		fi
		compare_threads "$name" "$layout" "$dump"
	done
done

# diff and compare take --threads for the walks of their KERNEL DUMP images:
# the verdict and every reported page are the same for 1 and 3 threads
d=$("$top/scripts/vectors/unpack-dumps.sh" 6.12 2> "$tmp/err") || d=
base=$d/6.12-base-b1.kdump mut=$d/6.12-mut-tail-refcount-b1.kdump
l612=$top/test-vectors/layouts/6.12-base.layout lmut=$top/test-vectors/layouts/6.12-mut-tail-refcount.layout
if [ -n "$d" ] && [ -s "$base" ] && [ -s "$mut" ] && [ -s "$l612" ] && [ -s "$lmut" ]; then
	for cmd in diff compare; do
		for t in 1 3; do
			rc=0
			"$M" $cmd -q -f json -n 5 --threads $t "$l612" "$base" "$lmut" "$mut" > "$tmp/$cmd.$t.json" 2> "$tmp/err" || rc=$?
			echo "$rc" > "$tmp/$cmd.$t.rc"
		done
		if [ "$(cat "$tmp/$cmd.1.rc")" = 1 ] && [ "$(cat "$tmp/$cmd.3.rc")" = 1 ] &&
		   cmp -s "$tmp/$cmd.1.json" "$tmp/$cmd.3.json"; then
			ok "$cmd --threads 1 and 3 on 6.12-base-b1 vs 6.12-mut-tail-refcount-b1: exit 1, the same JSON"
		else
			notok "$cmd --threads 1/3: exit $(cat "$tmp/$cmd.1.rc")/$(cat "$tmp/$cmd.3.rc"), $(cmp "$tmp/$cmd.1.json" "$tmp/$cmd.3.json" 2>&1 | head -1) $(tail -1 "$tmp/err")"
		fi
	done
else
	skip "diff/compare --threads: the committed 6.12 base and mut-tail-refcount images are not here"
fi

# large images (not committed: scripts/bench/large-images.sh), the 1 and 10 GiB ones
large=0
for meta in "$CACHE"/large/*-1g.meta "$CACHE"/large/*-10g.meta; do
	[ -e "$meta" ] || continue
	base=${meta%.meta}
	kdir=$(sed -n 's/^kernel_dir=//p' "$meta" | head -1)
	[ -n "$kdir" ] || kdir=$CACHE/kernels/$(basename "$base" | sed -E 's/^([0-9.]+-[a-z0-9]+)-.*/\1/')
	[ -f "$kdir/vmlinux" ] || continue
	layout=$tmp/$(basename "$kdir").layout
	[ -s "$layout" ] || "$M" layout -q -o "$layout" "$kdir/vmlinux" || continue
	for dump in "$base.zlib.kdump" "$base.elf"; do
		[ -s "$dump" ] || continue
		compare_threads "$(basename "$dump")" "$layout" "$dump"
		large=$((large + 1))
	done
done
[ $large -gt 0 ] || skip "no large images in $CACHE/large (scripts/test-prereqs.sh makes the 1 GiB one)"
echo "1..$n"
[ $failed -eq 0 ]
