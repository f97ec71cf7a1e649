#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Damaged dumps: the committed real images cut, zeroed and flipped in their
# headers, bitmaps, page descriptors, page data and in the frames that hold
# struct pages and kernel structures, in four forms (the committed
# kdump-compressed, a zlib-compressed one, makedumpfile's flattened format,
# an ELF vmcore).  scripts/oracle/damage.py makes the copies and computes each
# case's expected outcome from the dump's own structure and the kernel's
# (its own reader of the format, the page tables and pgmap_array: a second
# implementation, not memmapcheck's output); then every case is run with a
# timeout and must give exactly that: never a crash or hang, never exit 0
# when compared struct pages were damaged.
#
# Then the cases of issue 7 one by one, with their exact outcomes.
#
# Default: 6.1-stock-b1, 6.12-base-b1, 6.12-base-kdump, 7.2-base-b1 (one
# sanitized run: 6.12-base-b1 only).  MMC_DAMAGE_ALL=1: every committed dump.
# MMC_DAMAGE_TABLE=FILE appends one row per case (dump, case, class,
# outcome, ok) for the report.  MMC_DAMAGE_VALGRIND=cheap|all runs the
# snapshots of the cheap cases (the format ones, the first of each form and
# class) or of all cases under valgrind memcheck (tests/valgrind.supp).
# MMC_DAMAGE_JOBS=N: cases checked N at a time (default 2; the TAP keeps
# the plan's order).  Each case's file is written just before it runs and
# removed after (scripts/oracle/damage_cases.py); makedumpfile -F's form of
# 6.12-base-b1 is kept in the cache's damage/, named by the dump's sha256
# and makedumpfile's version.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
M=$B/memmapcheck
L=$top/test-vectors/layouts
n=0 failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

if [ ! -x "$M" ]; then echo "1..0 # SKIP $M not built"; exit 0; fi
if ! command -v python3 > /dev/null; then echo "1..0 # SKIP python3 missing"; exit 0; fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

declare -A dir
for g in 6.1-stock 6.12 7.2; do
	dir[$g]=$("$top/scripts/vectors/unpack-dumps.sh" "$g" 2> /dev/null) || dir[$g]=
done
# the kernel's layout: the image name less its boot, and less the guest
# geometry (-la57, -dax1g-section: another boot of the same kernel)
layout_of() {
	case $1 in
	6.1-*) echo "$L/6.1-stock.layout" ;;
	*) echo "$L/$(echo "$1" | sed -E 's/-(b[0-9]+|kdump)$//; s/-(la57|dax1g-section|dax1g-misaligned)$//').layout" ;;
	esac
}
group_of() { case $1 in 6.1-*) echo 6.1-stock ;; *) echo "${1%%-*}" ;; esac; }
dump_of() { local g; g=$(group_of "$1"); [ -n "${dir[$g]}" ] && echo "${dir[$g]}/$1.kdump"; }

if [ "${MMC_DAMAGE_ALL:-0}" = 1 ]; then
	images=$(for g in 6.1-stock 6.12 7.2; do [ -n "${dir[$g]}" ] && ls "${dir[$g]}"; done |
		 sed -n 's/\.kdump$//p')
elif [ "${MMC_SANITIZED:-0}" = 1 ]; then
	images="6.12-base-b1"
else
	images="6.1-stock-b1 6.12-base-b1 6.12-base-kdump 7.2-base-b1"
fi

# ---- the damage generator's cases ----
for img in $images; do
	d=$(dump_of "$img")
	if [ -z "$d" ] || [ ! -r "$d" ]; then
		skip "$img: dumps/$(group_of "$img").tar.xz not unpacked"
		continue
	fi
	extra=()
	if [ "$img" = 6.12-base-b1 ] && command -v makedumpfile > /dev/null; then
		extra=(--makedumpfile --cache "${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}/damage")
	fi
	table=()
	[ -n "${MMC_DAMAGE_TABLE:-}" ] && table=(--table "$MMC_DAMAGE_TABLE")
	# MMC_DAMAGE_VALGRIND=cheap|all: cases' snapshots under valgrind
	# memcheck too (make check: cheap; make fuzz: all); not for a
	# sanitized build, which valgrind cannot run
	vg=()
	if [ -n "${MMC_DAMAGE_VALGRIND:-}" ] && [ "${MMC_SANITIZED:-0}" != 1 ]; then
		if command -v valgrind > /dev/null; then
			vg=(--valgrind "$top/tests/valgrind.supp" --valgrind-cases "$MMC_DAMAGE_VALGRIND")
		else
			skip "$img: valgrind not installed (MMC_DAMAGE_VALGRIND=$MMC_DAMAGE_VALGRIND)"
		fi
	fi
	# one TAP line per case: renumbered into this file's plan
	timeout ${MMC_DAMAGE_TIMEOUT:-1800} python3 "$top/scripts/oracle/damage.py" run --memmapcheck "$M" \
		--layout "$(layout_of "$img")" --dump "$d" --work "$w/$img" \
		"${table[@]}" "${vg[@]}" "${extra[@]}" > "$w/$img.tap" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok * - }" ;;
		"not ok "*) ok 1 "${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$w/$img.tap"
	{ [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && grep -q '^1\.\.[0-9]' "$w/$img.tap"
	ok $? "$img: the damage generator ran to the end (exit $rc)"
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || tail -5 "$w/$img.tap" | sed 's/^/# /'
	rm -rf "${w:?}/$img"
done

# ---- issue 7, case by case, on 6.12-base-b1 ----
d=$(dump_of 6.12-base-b1)
if [ -z "$d" ] || [ ! -r "$d" ]; then
	skip "6.12-base-b1 not unpacked: issue 7's cases"
	echo "1..$n"
	[ "$failed" = 0 ]
	exit
fi
lay=$L/6.12-base.layout
size=$(stat -c %s "$d")
head -c $((size / 2)) "$d" > "$w/half.kdump"
head -c $((size * 9 / 10)) "$d" > "$w/n90.kdump"
"$M" snapshot -q -o "$w/full.snap" "$lay" "$d"
ok $? "6.12-base-b1 undamaged: snapshot exit 0"

"$M" snapshot -q -o "$w/half.snap" "$lay" "$w/half.kdump" > "$w/o" 2>&1
rc=$?
[ "$rc" = 4 ] && grep -q 'half.kdump: dump truncated: the file is [0-9]* bytes, its page descriptors and data need' "$w/o" &&
	grep -q 'half.kdump: 0x[0-9a-f]*: discovery incomplete' "$w/o" && [ -s "$w/half.snap" ]
ok $? "50% cut: snapshot exit $rc (not 0 with 0 ranges), the truncation and the unread address said"
"$M" lint "$w/half.snap" > "$w/o" 2>&1
rc=$?
ok $(( rc != 4 )) "50% cut: lint exit $rc (not clean)"
"$M" diff "$w/half.snap" "$w/half.snap" > "$w/o" 2>&1
rc=$?
ok $(( rc != 4 )) "50% cut against itself: exit $rc (not identical)"
"$M" diff "$w/full.snap" "$w/half.snap" > "$w/o" 2>&1
rc=$?
grep -q '^incomplete: .*discovery of the patched image stopped early' "$w/o"
ok $(( rc != 4 || $? != 0 )) "full vs 50% cut: incomplete, exit $rc (not 'different ... only in base'), the early stop said"

"$M" snapshot -q -o "$w/n90.snap" "$lay" "$w/n90.kdump" > "$w/o" 2>&1
rc=$?
[ "$rc" = 4 ] && grep -q 'n90.kdump: dump truncated' "$w/o"
ok $? "90% cut: snapshot exit $rc, the truncation said"
python3 - "$w/n90.snap" "$M" <<'EOF'
import json, subprocess, sys
out = subprocess.run([sys.argv[2], 'show', '--json', sys.argv[1]], stdout=subprocess.PIPE).stdout
states = {r['state'] for g in json.loads(out)['ranges'] for r in g['runs']}
sys.exit(0 if states == {'unreadable'} else 1)
EOF
ok $? "90% cut: every struct page unreadable (the page tables are past the cut), none 'unmapped'"
"$M" diff "$w/full.snap" "$w/n90.snap" > "$w/o" 2>&1
rc=$?
[ "$rc" = 4 ] && grep -q '^incomplete' "$w/o"
ok $? "full vs 90% cut: incomplete, exit $rc"

cp "$d" "$w/D.kdump"
before=$(cksum < "$w/D.kdump")
"$M" snapshot -o "$w/D.kdump" "$lay" "$w/D.kdump" > "$w/o" 2>&1
rc=$?
[ "$rc" = 2 ] && [ "$(cksum < "$w/D.kdump")" = "$before" ] && grep -q 'is an input of this command' "$w/o"
ok $? "snapshot -o D.kdump KERNEL D.kdump: exit $rc, the dump untouched"

echo "1..$n"
[ "$failed" = 0 ]
