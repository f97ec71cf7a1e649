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

# A snapshot exits 4 when the image is incomplete (hole: 64 struct pages
# the dump lacks), after writing the file.
snap() { "$M" snapshot -q --live -o "$1.snap" synth.layout "$1.core"; }
for i in base reboot refcount badtail broken; do snap "$i" || ok 1 "snapshot $i"; done
snap hole
ok $(( $? != 4 )) "snapshot of an image with 64 missing struct pages: exit 4, file written"
[ -s hole.snap ] || ok 1 "hole.snap written"

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
# discovery stops at the cycle: the pgmaps before it are kept, exit 4
expect xarray-cycle 4 "$M" snapshot -q --live -o x.snap synth.layout xacycle.core
expect wrong-kernel 2 "$M" snapshot -q --live -o x.snap synth.layout other.core
expect missing-file 2 "$M" diff base.snap nonexistent.snap
expect bad-usage 2 "$M" diff --frobnicate base.snap
expect bad-command 2 "$M" frobnicate

# 200 random multi-byte flips of a snapshot and of a layout (seeded, so
# the same 200 each run): exit 2 with a message naming the file, never a
# crash (the sanitized run checks memory errors too)
python3 - base.snap synth.layout <<'PYEOF'
import random, sys
rnd = random.Random(7)
for src in sys.argv[1:]:
    data = open(src, 'rb').read()
    for i in range(200):
        b = bytearray(data)
        for _ in range(rnd.randint(1, 6)):
            at = rnd.randrange(len(b))
            n = rnd.randint(1, 8)
            b[at:at + n] = bytes(rnd.randrange(256) for _ in range(n))
        open('%s.flip%d' % (src, i), 'wb').write(b)
PYEOF
bad=0
for i in $(seq 0 199); do
	"$M" show base.snap.flip$i > f.out 2>&1
	rc=$?
	{ [ "$rc" = 2 ] && grep -q "base.snap.flip$i" f.out; } || { [ "$rc" = 0 ] && cmp -s base.snap base.snap.flip$i; } || {
		bad=$((bad + 1)); echo "# snapshot flip $i: exit $rc"; }
	"$M" ranges synth.layout.flip$i base.core > f.out 2>&1
	rc=$?
	{ [ "$rc" = 2 ] && grep -q "synth.layout.flip$i" f.out; } || {
		bad=$((bad + 1)); echo "# layout flip $i: exit $rc"; }
done
ok $bad "200 randomly damaged snapshots and 200 layouts: exit 2 naming the file, no crash"
# garbage appended to a layout: the message says so, not "truncated"
cp synth.layout tail.layout
echo "garbage here" >> tail.layout
"$M" ranges tail.layout base.core > tail.out 2>&1
rc=$?
if [ "$rc" = 2 ] && ! grep -q 'truncated' tail.out; then
	ok 0 "text appended to a layout: exit 2, not called truncated"
else
	ok 1 "text appended to a layout: exit 2, not called truncated (exit $rc, says: $(cut -c1-100 tail.out))"
fi

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

# snapshot files of version 1 (written by the version-1 writer from the
# same synthetic images; see git log of test-vectors/synthetic/v1-*.snap)
# still read: discovery complete, unread reasons unknown
"$M" diff "$EXP/v1-base.snap" base.snap > v1.out 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^identical: 1536 pages in 2 ranges' v1.out
ok $? "a version-1 snapshot compares identical with a version-2 one of the same image (exit $rc)"
"$M" diff "$EXP/v1-hole.snap" hole.snap > v1h.out 2>&1
ok $(( $? != 4 )) "a version-1 snapshot with 64 unreadable pages: incomplete against its version-2 twin"
# version 2 (written by the version-2 writer, commit 878b6f8, from the same
# synthetic images): read, and the same pages as today's version 3
"$M" diff "$EXP/v2-base.snap" base.snap > v2.out 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^identical: 1536 pages in 2 ranges' v2.out
ok $? "a version-2 snapshot compares identical with a version-3 one of the same image (exit $rc)"
"$M" diff "$EXP/v2-hole.snap" hole.snap > v2h.out 2>&1
ok $(( $? != 4 )) "a version-2 snapshot with 64 unreadable pages: incomplete against its version-3 twin"
# (the vmemmap lines differ: an older file records no protection)
"$M" show "$EXP/v2-base.snap" 2>&1 | grep -v '^  vmemmap: ' > v2show.out &&
	"$M" show base.snap 2>&1 | grep -v '^  vmemmap: ' > v3show.out &&
	diff -u v2show.out v3show.out > v2show.diff
ok $? "show prints the same runs from the version-2 and the version-5 file of one image"

# version 4 (written by the version-4 writer, commit 58952a3, from the same
# synthetic images): read; it records no vmemmap protection, so the writable
# bit is not compared, and the output says so; never a difference from it
"$MK" rotails.core synth.layout ro-tails && snap rotails
"$M" diff "$EXP/v4-base.snap" base.snap > v4.out 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^identical: 1536 pages in 2 ranges' v4.out &&
	grep -q 'vmemmap_writable not compared on 24 vmemmap pages' v4.out
ok $? "[proof] a version-4 snapshot compares identical with a version-5 one of the same image, writable bit not compared on its 24 mapped vmemmap pages (exit $rc)"
"$M" diff "$EXP/v4-base.snap" rotails.snap > v4ro.out 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^identical: 1536 pages' v4ro.out && ! grep -q 'vmemmap_writable  ' v4ro.out &&
	grep -q 'vmemmap_writable not compared on 24 vmemmap pages' v4ro.out
ok $? "[proof] version 4 against read-only shared tails: no difference claimed from an unrecorded bit (exit $rc)"
# the same against a version-5 base: the ro-tails knob maps vmemmap pages
# 2..7 of each of range 1's two compound pages read-only (synth_kernel.h):
# 12 vmemmap pages, no struct page
"$M" diff base.snap rotails.snap > ro.out 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q '^different: 0 of 1536 pages' ro.out &&
	grep -Eq '^  vmemmap_writable +12$' ro.out && ! grep -q 'not compared' ro.out
ok $? "[proof] read-only shared tails: vmemmap_writable on 12 vmemmap pages, no struct page (exit $rc)"
"$M" diff "$EXP/v4-hole.snap" hole.snap > v4h.out 2>&1
ok $(( $? != 4 )) "a version-4 snapshot with 64 unreadable pages: incomplete against its version-5 twin"
"$M" show "$EXP/v4-base.snap" > v4show.out 2>&1 && "$M" show base.snap > v5show.out 2>&1 &&
	diff -u <(grep -v '^  vmemmap: ' v4show.out) <(grep -v '^  vmemmap: ' v5show.out) > v4show.diff &&
	[ "$(grep -c 'read-only 0, protection not recorded' v4show.out)" = 2 ] &&
	! grep -q 'not recorded' v5show.out
ok $? "show prints the same runs from the version-4 and the version-5 file of one image; the version-4 file's protection 'not recorded'"
"$M" lint "$EXP/v4-base.snap" > v4lint.out 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q 'vmemmap-ro and read-only sharing not checked on 24 vmemmap pages' v4lint.out
ok $? "[proof] lint of the version-4 file: clean, the protection rules not checked on its 24 mapped vmemmap pages (exit $rc)"

# corrupt kernel state (synth_kernel.h's knobs): every walk ends, with the
# exit code of what it could read, and lint names the rules the knob breaks
# (from the knob's own semantics: a pgmap pointer nowhere breaks pgmap; an
# order above vmemmap_shift, order; a frame mapped twice in an order-0 pgmap,
# vmemmap-share; range 0's vmemmap page mapping range 1's head frame puts a
# head of the other pgmap into an order-0 range, order and pgmap; the
# shared tail PTEs of a compound page read-only, nothing; its head's vmemmap
# page read-only, vmemmap-ro (head, page[1], page[2]); a tail
# pointing outside the memmap plus a cycle of heads, tail-head and head-cycle;
# an unreadable dev_pagemap, incomplete)
for k in unreadable-pgmap:4:4: wild-pgmap:0:1:pgmap big-order:0:1:order \
	 double-map:0:1:vmemmap-share vmemmap-cross:0:1:order,pgmap \
	 ro-tails:0:0: ro-head:0:1:vmemmap-ro \
	 "wild-tail head-cycle:0:1:head-cycle,tail-head"; do
	IFS=: read -r knobs want lwant rules <<< "$k"
	# shellcheck disable=SC2086
	"$MK" k.core synth.layout $knobs > /dev/null 2>&1
	timeout 60 "$M" snapshot -q --live -o k.snap synth.layout k.core > k.out 2>&1
	rc=$?
	timeout 60 "$M" lint k.snap > k.lint 2>&1
	lrc=$?
	got=$(awk '/^  RULE  /{on=1; next} on && NF == 2 {print $1} on && NF != 2 {on=0}' k.lint | sort | paste -sd,)
	[ "$rc" = "$want" ] && [ "$lrc" = "$lwant" ] && [ "$got" = "$rules" ]
	ok $? "$knobs: snapshot exit $rc (want $want), lint exit $lrc (want $lwant) naming '${got}' (want '${rules}')"
done

# ---- options mean what they say (regression guards on the CLI's own
# contract: cli/memmapcheck.1) ----
# rc_msg WANT_RC PATTERN CMD...: exit code and a message matching PATTERN
rc_msg() {
	local want=$1 pat=$2 rc
	shift 2
	"$@" > rm.out 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" rm.out; then
		ok 0 "$*: exit $rc, says /$pat/"
	else
		ok 1 "$*: exit $rc (want $want), /$pat/ not in:"
		sed 's/^/# /' rm.out | head -5
	fi
}
rc_msg 2 'diff: -r/--range is not an option of diff' "$M" diff -r 1 base.snap reboot.snap
rc_msg 2 'lint: -r/--range is not an option of lint' "$M" lint -r 1 base.snap
rc_msg 2 'ranges: -r/--range is not an option of ranges' "$M" ranges -r 0 base.snap
rc_msg 2 'ranges: --report is not an option of ranges' "$M" ranges --report r.ktap base.snap
rc_msg 2 'show: --report is not an option of show' "$M" show --report r.ktap base.snap
rc_msg 2 "show takes -f text\|json, not 'ktap'" "$M" show -f ktap base.snap
rc_msg 2 "show takes -f text\|json, not 'junit'" "$M" show -f junit base.snap
rc_msg 2 'show: -n/--max-pages is not an option of show' "$M" show -n 3 base.snap
rc_msg 2 'snapshot: -f/--format is not an option of snapshot' "$M" snapshot -f json -o x.snap synth.layout base.core
rc_msg 2 "-n takes a number of pages >= 0, not '-1'" "$M" diff -n -1 base.snap refcount.snap
rc_msg 2 "-n takes a number of pages >= 0, not 'x'" "$M" diff -n x base.snap refcount.snap
rc_msg 2 '-n and --all-pages contradict' "$M" diff -n 2 --all-pages base.snap refcount.snap
rc_msg 2 'range 99 does not exist: this image has ranges 0-1' "$M" show -r 99 base.snap
rc_msg 2 "--max-groups takes a number from 1 to 16777216, not '0'" "$M" diff --max-groups 0 base.snap refcount.snap
rc_msg 2 'ranges: --max-groups is not an option of ranges' "$M" ranges --max-groups 5 base.snap
rc_msg 1 'GROUPS \(1 of [2-9]' "$M" diff --max-groups 1 base.snap refcount.snap
rc_msg 2 'nothere.snap: no such file' "$M" diff base.snap nothere.snap
rc_msg 2 'nothere.core: no such file' "$M" snapshot -o x.snap synth.layout nothere.core
rc_msg 2 'synth.layout: not a snapshot file, so a KERNEL: the DUMP after it is missing' "$M" ranges synth.layout
rc_msg 2 'this argument is one too many' "$M" lint base.snap reboot.snap
rc_msg 0 'usage: memmapcheck diff ' "$M" help diff
rc_msg 0 'usage: memmapcheck lint ' "$M" lint --help
rc_msg 2 "help: no command 'frob'" "$M" help frob
# -n: the expected count of differing pages comes from the mutant's own
# semantics, not from the tool: tail-refcount gives every tail of range 1's
# two 2 MiB compound pages refcount 1, and the tails the kernel does not
# write (128..511) share the vmemmap frame of tails 64..127: 2 x 511 pages
"$M" diff -n 0 base.snap refcount.snap > n0.out 2>&1
rc=$?
[ "$rc" = 1 ] && ! grep -q 'DIFFERING PAGES' n0.out && grep -q '^different: 1022 of' n0.out
ok $? "diff -n 0: exit $rc, the verdict and no page in detail"
"$M" diff --all-pages base.snap refcount.snap > nall.out 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'FIRST 1022 DIFFERING PAGES' nall.out && [ "$(grep -c '^pfn 0x' nall.out)" = 1022 ]
ok $? "diff --all-pages: exit $rc, all 1022 differing pages in detail"

# ---- outputs are safe ----
umask 027
ln -s base.snap link.snap
rc_msg 2 'link.snap: is a symbolic link: not replaced' "$M" snapshot -q --live -o link.snap synth.layout base.core
[ -L link.snap ]
ok $? "the symbolic link is still a symbolic link"
rc_msg 2 '/dev/null: is a character device: not replaced' "$M" snapshot -q --live -o /dev/null synth.layout base.core
mkfifo fifo
rc_msg 2 'fifo: is a FIFO: not replaced' "$M" snapshot -q --live -o fifo synth.layout base.core
mkdir adir
rc_msg 2 'adir: is a directory: not replaced' "$M" snapshot -q --live -o adir synth.layout base.core
cp base.core in.core
sum=$(cksum < in.core)
rc_msg 2 'in.core: is an input of this command: not overwritten' "$M" snapshot -q --live -o in.core synth.layout in.core
ln in.core hard.core
rc_msg 2 'hard.core: is the same file as in.core, an input of this command' "$M" snapshot -q --live -o hard.core synth.layout in.core
[ "$(cksum < in.core)" = "$sum" ]
ok $? "the dump given as -o is untouched"
rc_msg 2 'base.snap: is an input of this command' "$M" diff --report base.snap base.snap reboot.snap
rc_msg 2 'named twice as an output' "$M" compare -q --live --save-base s.snap --save-new s.snap synth.layout base.core synth.layout reboot.core
rm -f new.snap
"$M" snapshot -q --live -o new.snap synth.layout base.core
[ "$(stat -c %a new.snap)" = 640 ]
ok $? "a new snapshot file gets 0666 & ~umask (027): $(stat -c %a new.snap)"
chmod 604 new.snap
"$M" snapshot -q --live -o new.snap synth.layout base.core
[ "$(stat -c %a new.snap)" = 604 ]
ok $? "a replaced snapshot file keeps its mode: $(stat -c %a new.snap)"
"$M" snapshot -q --live -o - synth.layout base.core > stdout.snap
rc=$?
[ "$rc" = 0 ] && cmp -s stdout.snap new.snap
ok $? "snapshot -o - writes the same file to standard output (exit $rc)"
"$M" layout -q -o - synth.layout > /dev/null 2>&1
ok $(( $? != 2 )) "layout needs a vmlinux: a saved layout is refused"
umask 022
ls *.tmp.* > /dev/null 2>&1
ok $(( $? == 0 )) "no temporary file left behind"

# ---- no lost verdict ----
"$M" diff base.snap reboot.snap > /dev/full 2> full.err
rc=$?
[ "$rc" = 3 ] && grep -q 'No space left on device' full.err
ok $? "identical verdict to a full device: exit $rc, said on stderr"
"$M" diff base.snap refcount.snap > /dev/full 2> /dev/null
ok $(( $? != 3 )) "different verdict to a full device: exit 3"
"$M" diff base.snap reboot.snap >&- 2> closed.err
rc=$?
[ "$rc" = 3 ] && grep -q 'writing to standard output' closed.err
ok $? "closed standard output: exit $rc, said on stderr"
"$M" diff base.snap reboot.snap > /dev/null 2>&-
ok $? "closed standard error, nothing to say on it: identical, exit 0"
"$M" snapshot --live -o x.snap synth.layout base.core 2>&-
ok $(( $? != 3 )) "closed standard error when the summary goes there: exit 3"
"$M" snapshot -q --live -o x.snap synth.layout base.core 2>&-
ok $? "closed standard error with -q: exit 0"
# files that cannot grow (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail EFBIG)
echo old > rep.ktap
(trap '' XFSZ; ulimit -f 1; "$M" diff --report rep.ktap --report-format json base.snap refcount.snap > /dev/null 2> fsz.err)
rc=$?
[ "$rc" = 3 ] && [ "$(cat rep.ktap)" = old ] && grep -q 'rep.ktap: File too large' fsz.err
ok $? "--report that cannot be written: exit $rc (not 1), the old report kept"
echo keep > keep.snap
(trap '' XFSZ; ulimit -f 4; "$M" snapshot -q --live -o keep.snap synth.layout base.core 2> fsz.err)
rc=$?
[ "$rc" = 3 ] && [ "$(cat keep.snap)" = keep ] && ! ls keep.snap.tmp.* > /dev/null 2>&1
ok $? "snapshot that cannot be written: exit $rc, the old file kept, no temporary left"

echo "1..$n"
[ "$failed" = 0 ]
