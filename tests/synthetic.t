#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CLI-level tests on synthetic kernel images (tests/unit/synth_kernel.h): every
# command's output is compared with test-vectors/synthetic/*.expect, and every
# bad input gets its exit code and a message naming the file.
# MMC_REGEN=1 rewrites the .expect files (review the diff before committing).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
M=$B/memmapcheck
MK=$B/tests/mksynth
EXP=$top/test-vectors/synthetic
n=0 failed=0

ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
if [ ! -x "$M" ] || [ ! -x "$MK" ]; then echo "1..0 # SKIP $M or $MK not built"; exit 0; fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1

"$MK" base.core synth.layout &&
"$MK" reboot.core synth.layout reboot &&
"$MK" refcount.core synth.layout tail-refcount &&
"$MK" badtail.core synth.layout bad-tail &&
"$MK" hole.core synth.layout hole &&
"$MK" broken.core synth.layout head-cycle wild-tail &&
"$MK" xacycle.core synth.layout xa-cycle &&
"$MK" other.core synth.layout release=6.12.9-other
ok $? "synthetic images written"

# expect NAME EXIT CMD...: stdout+stderr compared with NAME.expect
expect() {
	local name=$1 want=$2 rc
	shift 2
	"$@" > "$name.out" 2>&1
	rc=$?
	# timings vary: keep the shape of the summary lines
	sed -i -E 's/[0-9]+\.[0-9]+ s \([0-9.]+ M pages\/s\)/T s (R M pages\/s)/' "$name.out"
	if [ "${MMC_REGEN:-0}" = 1 ]; then cp "$name.out" "$EXP/$name.expect"; fi
	if [ "$rc" = "$want" ] && diff -u "$EXP/$name.expect" "$name.out" > "$name.diff"; then
		ok 0 "$name: exit $want, output as expected"
	else
		ok 1 "$name: exit $rc (want $want)"
		sed 's/^/# /' "$name.diff" | head -40
	fi
}

snap() { "$M" snapshot -q --live -o "$1.snap" synth.layout "$1.core"; }
for i in base reboot refcount badtail hole broken; do snap "$i" || ok 1 "snapshot $i"; done

expect ranges 0 "$M" ranges base.snap
expect show 0 "$M" show base.snap
expect diff-reboot 0 "$M" diff base.snap reboot.snap
expect diff-refcount 1 "$M" diff -n 2 base.snap refcount.snap
expect diff-badtail 1 "$M" diff -n 2 base.snap badtail.snap
expect diff-hole 4 "$M" diff -n 2 base.snap hole.snap
expect compare-badtail 1 "$M" compare -q --live -n 1 synth.layout base.core synth.layout badtail.core
expect lint-base 0 "$M" lint base.snap
expect lint-broken 1 "$M" lint broken.snap
expect lint-hole 4 "$M" lint hole.snap
expect ktap-badtail 1 "$M" diff -f ktap base.snap badtail.snap
expect xarray-cycle 2 "$M" snapshot -q --live -o x.snap synth.layout xacycle.core
expect wrong-kernel 2 "$M" snapshot -q --live -o x.snap synth.layout other.core
expect missing-file 2 "$M" diff base.snap nonexistent.snap
expect bad-usage 2 "$M" diff --frobnicate base.snap
expect bad-command 2 "$M" frobnicate

# JSON and JUnit are well-formed
"$M" diff --json base.snap badtail.snap > d.json
python3 -c 'import json,sys; d=json.load(open("d.json")); sys.exit(0 if d["verdict"]=="different" and d["pages_differing"]==1 else 1)'
ok $? "diff --json parses, verdict different, 1 page"
"$M" diff -f junit base.snap badtail.snap > d.xml
python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse("d.xml")'
ok $? "diff -f junit is well-formed XML"

# corrupt snapshot files: truncated, flipped byte, garbage; never a crash
size=$(stat -c %s base.snap)
for cut in 7 24 100 $((size / 2)) $((size - 1)); do
	head -c "$cut" base.snap > cut.snap
	"$M" show cut.snap > cut.out 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q "cut.snap" cut.out
	ok $? "snapshot truncated to $cut bytes: exit $rc, message names the file"
done
cp base.snap flip.snap
printf '\xff' | dd of=flip.snap bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
"$M" show flip.snap > flip.out 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "flip.snap" flip.out && grep -q "byte offset" flip.out
ok $? "snapshot with a flipped byte: exit $rc, names file and offset"
head -c 4096 /dev/urandom > junk.core
"$M" snapshot -q -o x.snap synth.layout junk.core > junk.out 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "junk.core" junk.out
ok $? "garbage dump: exit $rc, message names the file"
head -c 100000 base.core > short.core
"$M" snapshot -q --live -o x.snap synth.layout short.core > short.out 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "short.core" short.out
ok $? "truncated dump: exit $rc, message names the file"

echo "1..$n"
[ "$failed" = 0 ]
