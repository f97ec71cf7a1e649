#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench` (scripts/bench/bench.sh) end to end on small committed images: two
# dumps of dumps/6.12.tar.xz posing as a base/template pair in a temporary
# cache, with their committed layouts, and one synthetic 1 GiB devdax 1G
# namespace.  Checks the shape of results.tsv, of the report and of the
# plot, never a timing.  A regression guard of the bench scripts; the one
# expectation from outside the tool is the synthetic namespace's size (1 GiB
# of 4 KiB pfns: 262144 struct pages, as scripts/bench/synth_ns.c was asked).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# bench.sh links its synthetic-image writer with the build's library: an
# ASan+UBSan build would need the sanitizer runtime there too, and a
# benchmark of a sanitized build measures nothing
[ -z "${MMC_SANITIZED:-}" ] || skip_all "MMC_SANITIZED: the benchmark runs on the normal build"
[ -x "$B/memmapcheck" ] || skip_all "$B/memmapcheck not built"
[ -f "$B/libmemmapcheck.a" ] || skip_all "$B/libmemmapcheck.a not built"
pkg-config --exists libkdumpfile libaddrxlat libdw || skip_all "no libkdumpfile/libdw development files"
# The real rows need the committed dumps and their layouts of the same
# kernel builds (the build-id check), which they are not while a rebuild is
# half committed: then only the synthetic part runs.
real=
dir=$("$top/scripts/vectors/unpack-dumps.sh" 6.12 2>/dev/null) || real="cannot unpack dumps/6.12.tar.xz"
for side in base template; do
	[ -n "$real" ] && break
	[ -s "$dir/6.12-$side-b1.kdump" ] || { real="no 6.12-$side-b1.kdump in dumps/6.12.tar.xz"; break; }
	msg=$("$B/memmapcheck" ranges "$top/test-vectors/layouts/6.12-$side.layout" "$dir/6.12-$side-b1.kdump" 2>&1 >/dev/null) ||
		case $msg in *"does not match"*) real="committed layout and dump of 6.12-$side out of step (${msg##*: })" ;; esac
done

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/cache/large"
for side in base template; do
	[ -z "$real" ] || break
	img=$w/cache/large/t-$side-pair-1g
	ln -s "$dir/6.12-$side-b1.kdump" "$img.none.kdump"
	printf 'image=t-%s-pair-1g\nkernel=6.12.0\nmode=pair\nsize_gib=1\nlayout=%s\n' \
		"$side" "$top/test-vectors/layouts/6.12-$side.layout" > "$img.meta"
done

MEMMAPCHECK_CACHE=$w/cache B=$B "$top/scripts/bench/bench.sh" --runs 1 --no-crash --no-drgn \
	--synth 18:1 --results "$w/r" --plot "$w/plot.svg" ${real:+--no-real} > "$w/out" 2>&1
rc=$?
ok $rc "bench.sh ran (exit $rc)"
[ $rc = 0 ] || sed 's/^/# /' "$w/out"

R=$w/r/results.tsv
[ "$(head -n 1 "$R" 2>/dev/null)" = "$(printf 'image\tformat\ttool\tpages\tseconds\tcpu_seconds\trss_kib\tnote')" ]
ok $? "results.tsv header"

# row IMAGE FORMAT TOOL -> "pages seconds cpu rss" of the first such row
row() { awk -F'\t' -v i="$1" -v f="$2" -v t="$3" '$1 == i && $2 == f && $3 == t { print $4, $5, $6, $7; exit }' "$R"; }
sane() { # pages seconds cpu rss: numbers, pages and seconds and rss > 0
	[ $# = 4 ] && awk -v p="$1" -v s="$2" -v c="$3" -v r="$4" 'BEGIN { exit !(p > 0 && s > 0 && c >= 0 && r > 0) }'
}
real_checks() {
for side in base template; do
	img=t-$side-pair-1g
	pages=
	for tool in snapshot kdump_read/page "lint (snapshot file)" "compare (image vs itself)"; do
		# shellcheck disable=SC2046
		sane $(row "$img" none "$tool")
		ok $? "$img: $tool row"
		p=$(row "$img" none "$tool" | cut -d' ' -f1)
		[ -z "$pages" ] && pages=$p
		[ "$p" = "$pages" ]
		ok $? "$img: $tool over the same $pages struct pages"
	done
done
# shellcheck disable=SC2046
sane $(row t-base-pair-1g pair "compare base vs template")
ok $? "pair: compare base vs template row"
awk -F'\t' '$3 == "compare base vs template" && $8 ~ /^none, verdict: ./ { f = 1 } END { exit !f }' "$R"
ok $? "pair: the verdict is in the note"
# shellcheck disable=SC2046
sane $(row t-base-pair-1g pair "diff of the two snapshots")
ok $? "pair: diff of the two snapshots row"
grep -q '^t-base-pair-1g (none)$' "$w/r/report.txt" && grep -q '/ per-page loop' "$w/r/report.txt" &&
	grep -q '^Formats: ' "$w/r/report.txt"
ok $? "report: per-image tables with the per-page loop ratio, formats"
}
if [ -z "$real" ]; then
	real_checks
else
	for i in $(seq 20); do skip "$real"; done
fi

for f in elf-kcore elf; do
	[ "$(row synth-devdax1g-1g $f snapshot | cut -d' ' -f1)" = 262144 ]
	ok $? "synthetic 1 GiB devdax 1G ($f): 262144 struct pages"
done

grep -q '^Scaling: memmapcheck snapshot' "$w/r/report.txt"
ok $? "report: the scaling table"
/usr/bin/python3 - "$w/plot.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg")
assert any(e.tag.endswith(("polyline", "path", "circle")) for e in root.iter())
PY
ok $? "plot: an SVG with data in it"
grep -q 'bench: results in ' "$w/out"
ok $? "says where the results are"

MEMMAPCHECK_CACHE=$w/cache B=$B "$top/scripts/bench/bench.sh" --bogus > "$w/usage" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'usage: scripts/bench/bench.sh' "$w/usage"
ok $? "an unknown option is exit 2 with the usage (exit $rc)"
MEMMAPCHECK_CACHE=$w/cache B=$w/nobuild "$top/scripts/bench/bench.sh" > "$w/nob" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'build first' "$w/nob"
ok $? "no build: exit 2, says to build first (exit $rc)"

echo "1..$n"
[ $failed = 0 ]
