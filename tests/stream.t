#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The snapshot command streams its file while the dump is walked
# (mmc_snapshot_stream_open(), through the walk's created hook); with
# `-o -` it saves the whole snapshot after the walk (mmc_snapshot_write()).
# Both must give the same bytes, the same exit code and the same summary,
# on synthetic images (complete, with a hole, with discovery cut short) and
# on the committed real images (dumps/*.tar.xz, layouts as tests/vectors.t
# finds them).  The reference is the non-streaming writer: an equivalence
# check between two writers, not a proof of either.  Also: the safe-output
# rules hold while streaming (no temporary file left when the walk fails,
# an existing target kept, a symbolic link never replaced).  And --threads,
# which sets the walk's thread count: taken by the commands that walk a
# dump, a usage error elsewhere and outside 1..64 (cli/memmapcheck.1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
M=$B/memmapcheck
MK=$B/tests/mksynth
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
if [ ! -x "$M" ] || [ ! -x "$MK" ]; then echo "1..0 # SKIP $M or $MK not built"; exit 0; fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1

# same_both NAME LAYOUT DUMP [OPTION...]: streamed file vs standard output.
# Returns 2 (nothing compared) when the walk itself fails with exit 2.
same_both() {
	local name=$1 layout=$2 dump=$3 rs rd
	shift 3
	rs=0 rd=0
	"$M" snapshot "$@" -o "$w/s.snap" "$layout" "$dump" 2> "$w/s.err" || rs=$?
	"$M" snapshot "$@" -o - "$layout" "$dump" > "$w/d.snap" 2> "$w/d.err" || rd=$?
	if [ "$rs" = 2 ] && [ "$rd" = 2 ]; then
		return 2
	fi
	# timings vary, and the file's name is "standard output" for -o -
	# (and LeakSanitizer's table of suppressed leaks, sanitized build: one
	# libkdumpfile context per walking thread)
	sed -i -E 's/[0-9]+\.[0-9]+ s \([0-9.]+ M pages\/s\)/T s/; s/wrote [^:]*:/wrote F:/; /^-+$/d; /Suppressions used:/,/^$/d; /^ +count +bytes +template/d; / libkdumpfile\.so$/d' "$w/s.err" "$w/d.err"
	if [ "$rs" = "$rd" ] && { [ "$rs" = 0 ] || [ "$rs" = 4 ]; } &&
	   cmp -s "$w/s.snap" "$w/d.snap" && cmp -s "$w/s.err" "$w/d.err"; then
		ok 0 "$name: streamed file and standard output byte-identical ($(stat -c %s "$w/s.snap") bytes), exit $rs, same summary"
	else
		ok 1 "$name: streamed exit $rs, standard output exit $rd; $(cmp "$w/s.snap" "$w/d.snap" 2>&1 | head -1)"
		diff "$w/s.err" "$w/d.err" | sed 's/^/# /' | head -10
	fi
	return 0
}

"$MK" base.core synth.layout &&
"$MK" refcount.core synth.layout tail-refcount &&
"$MK" hole.core synth.layout hole &&
"$MK" xacycle.core synth.layout xa-cycle
ok $? "synthetic images written"
for i in base refcount hole xacycle; do
	same_both "synthetic $i" synth.layout "$i.core" --live
done
same_both "synthetic base, --threads 1" synth.layout base.core --live --threads 1

# the committed images: the layout they were made with (tests/vectors.t)
layout_of() {
	local k
	k=$(echo "$1" | sed -E 's/-(b[0-9]+|kdump)$//; s/-(la57|dax1g-section|dax1g-misaligned)$//')
	echo "$top/test-vectors/layouts/$k.layout"
}
real=0
for tar in "$top"/dumps/*.tar.xz; do
	[ -e "$tar" ] || continue
	g=$(basename "$tar" .tar.xz)
	d=$("$top/scripts/vectors/unpack-dumps.sh" "$g" 2> "$w/unpack.err") ||
		{ ok 1 "unpack $g: $(tail -1 "$w/unpack.err")"; continue; }
	for dump in "$d"/*-b1.kdump; do
		[ -e "$dump" ] || continue
		name=$(basename "$dump" .kdump)
		layout=$(layout_of "$name")
		[ -s "$layout" ] || { skip "$name: no saved layout"; continue; }
		same_both "$name" "$layout" "$dump" --threads 2
		if [ $? = 2 ]; then
			skip "$name: not walked ($(tail -1 "$w/s.err"))"
		else
			real=$((real + 1))
		fi
	done
done
[ $real -gt 0 ] || skip "no committed image could be walked"

# safe output while streaming
echo keep > old.snap
"$M" snapshot -q --live -o old.snap synth.layout synth.layout 2> err
rc=$?
left=$(ls | grep -c '\.tmp\.' || true)
ok $(( rc != 2 || left != 0 )) "a walk that fails (a layout as the DUMP): exit $rc, $left temporary files left"
[ "$(cat old.snap)" = keep ]
ok $? "the existing target is kept when the walk fails"
ln -s base.snap link.snap
"$M" snapshot -q --live -o link.snap synth.layout base.core 2> err
rc=$?
ok $(( rc != 2 )) "a symbolic link as the target: exit $rc ($(head -1 err))"
ok $(( $(ls | grep -c '\.tmp\.' || true) != 0 )) "no temporary file left"

# --threads: where it applies (the snapshot is the same for every count,
# tests/threads.t), and where it does not
t1=0 t3=0
"$M" snapshot -q --live --threads 1 -o t1.snap synth.layout base.core || t1=$?
"$M" snapshot -q --live --threads 3 -o t3.snap synth.layout base.core || t3=$?
cmp -s t1.snap t3.snap
ok $(( $? || t1 || t3 )) "snapshot --threads 1 and --threads 3: exit $t1 and $t3, the same file"
for c in "ranges --live" "show --live" "lint --live"; do
	"$M" $c --threads 2 synth.layout base.core > out 2> err
	rc=$?
	ok $(( rc != 0 && rc != 1 )) "$c --threads 2: exit $rc"
done
"$M" compare --live --threads 2 synth.layout base.core synth.layout base.core > out 2> err
rc=$?
ok $(( rc != 0 )) "compare --threads 2 of an image with itself: exit $rc"
# diff takes --threads: either IMAGE may be a KERNEL DUMP pair it walks
"$M" diff --threads 2 t1.snap t3.snap > out 2> err
rc=$?
ok $(( rc != 0 )) "diff --threads 2 of two snapshot files: exit $rc"
"$M" diff --live --threads 2 synth.layout base.core t1.snap > out 2> err
rc=$?
ok $(( rc != 0 )) "diff --threads 2 of a walked image and its snapshot: exit $rc"
"$M" layout --threads 2 -o x.layout synth.layout > out 2> err
rc=$?
grep -q -- "--threads is not an option of layout" err
ok $(( rc != 2 || $? )) "layout --threads: exit $rc, $(head -1 err)"
for v in 0 65 -1 x; do
	"$M" snapshot --live --threads "$v" -o x.snap synth.layout base.core > out 2> err
	rc=$?
	grep -q -- "--threads takes a number from 1 to 64, not '$v'" err
	ok $(( rc != 2 || $? )) "snapshot --threads $v: exit $rc, $(head -1 err)"
done

echo "1..$n"
[ "$failed" = 0 ]
