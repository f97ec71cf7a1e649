#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: pages/s of `memmapcheck snapshot` side by side with a
# one-kdump_read-per-page loop and drgn over the same pfns, on the largest
# image at hand, plus peak RSS.  A benchmark, not a test: it prints ratios.
#
# usage: scripts/bench.sh [IMAGE_FILE VMLINUX_OR_LAYOUT [DRGN_VMLINUX]]
#   default: the largest ELF (else kdump) in $CACHE/images with a vmlinux in
#   $CACHE/kernels/<kernel>/vmlinux; scripts/bench-image.sh makes a 13 GB one
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
B=${B:-$top/build}
M=$B/memmapcheck
DRGN_SECONDS=${DRGN_SECONDS:-20}

[ -x "$M" ] || { echo "bench: build first (make)" >&2; exit 2; }
kpp=$B/bench/kdump_per_page
mkdir -p "$B/bench"
cc -O2 -o "$kpp" "$top/scripts/bench/kdump_per_page.c" \
	$(pkg-config --cflags --libs libkdumpfile)

kernel_of() { basename "$1" | sed -E 's/\.(elf|kdump)$//; s/-(b[0-9]+|kdump)$//; s/^bench-//'; }
if [ $# -ge 2 ]; then
	img=$1 kern=$2 drgn_vmlinux=${3:-$2}
else
	img=
	for f in $(ls -S "$CACHE"/images/*.elf "$CACHE"/images/*.kdump 2>/dev/null); do
		k=$CACHE/kernels/$(kernel_of "$f")/vmlinux
		[ -f "$k" ] && { img=$f kern=$k; break; }
	done
	[ -n "$img" ] || { echo "bench: no image with a vmlinux in $CACHE (make vectors)" >&2; exit 2; }
	drgn_vmlinux=$kern
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench: image $img ($(du -h "$img" | cut -f1)), kernel $kern"
cat "$img" > /dev/null	# page cache: measure the walker, not the disk

# memmapcheck: best of 3, peak RSS from /usr/bin/time.  The layout is saved
# first (a one-off 0.1-0.4 s of DWARF reading, like makedumpfile -g), so the
# timing is the walk, as for the kdump_read loop.
case $kern in
*.layout) layout=$kern ;;
*) layout=$tmp/k.layout; "$M" layout -q -o "$layout" "$kern" ;;
esac
best=
for i in 1 2 3; do
	t0=$(date +%s.%N)
	/usr/bin/time -f "%M" -o "$tmp/time" "$M" snapshot -q -o "$tmp/s.snap" "$layout" "$img"
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.4f", b - a}')
	read -r rss < "$tmp/time"
	if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs best_rss=$rss; fi
done
"$M" ranges --json "$tmp/s.snap" > "$tmp/ranges.json"
read -r pages vb sps args < <(python3 - "$tmp/ranges.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranges"]
pages = sum(x["end_pfn"] - x["start_pfn"] for x in r)
vb = int(r[0]["vmemmap_start"], 16) - r[0]["start_pfn"] * 64
print(pages, hex(vb), 64, " ".join("%d %d" % (x["start_pfn"], x["end_pfn"]) for x in r))
PY
)
mmc_rate=$(awk -v p="$pages" -v s="$best" 'BEGIN{printf "%.0f", p / (s > 0 ? s : 0.001)}')

# libkdumpfile, one kdump_read per struct page
# shellcheck disable=SC2086
read -r k_pages k_bad k_secs k_rate < <("$kpp" "$img" "$vb" "$sps" $args)

# drgn (system python: python3-drgn), time-limited, extrapolated.  drgn
# cannot translate addresses in QEMU's paging=false ELF dumps: give it the
# makedumpfile (kdump-compressed) form of the same image.
d_rate=0 d_pages=0 d_secs=0 dimg=$img
case $img in
*.elf)
	dimg=${img%.elf}.kdump
	if [ ! -s "$dimg" ]; then
		/usr/bin/python3 "$top/scripts/fix-qemu-elf.py" "$img" >/dev/null 2>&1 || true
		makedumpfile -l -d 23 -x "$drgn_vmlinux" "$img" "$dimg" >/dev/null 2>&1 || dimg=$img
	fi ;;
esac
if /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	# shellcheck disable=SC2086
	if out=$(/usr/bin/python3 "$top/scripts/bench/drgn_walk.py" "$drgn_vmlinux" "$dimg" \
		"$DRGN_SECONDS" $args 2>"$tmp/drgn.err"); then
		read -r d_pages d_secs d_rate <<< "$out"
	else
		echo "bench: drgn failed: $(tail -1 "$tmp/drgn.err")"
	fi
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }
printf '\n%-34s %12s %10s %14s %10s\n' TOOL PAGES SECONDS PAGES/S "MMC IS"
printf '%-34s %12s %10s %14s %10s\n' "memmapcheck snapshot (best of 3)" "$pages" "$best" "$mmc_rate" "-"
printf '%-34s %12s %10s %14s %10s\n' "libkdumpfile, 1 kdump_read/page" "$k_pages" "$k_secs" "$k_rate" "$(ratio "$mmc_rate" "$k_rate")"
printf '%-34s %12s %10s %14s %10s\n' "drgn pfn_to_page+flags+head" "$d_pages" "$d_secs" "$d_rate" "$(ratio "$mmc_rate" "$d_rate")"
[ "$dimg" = "$img" ] || echo "(drgn read $(basename "$dimg"), the makedumpfile form of the same image)"
echo
echo "memmapcheck peak RSS: $best_rss KiB for $pages struct pages"
# RSS independent of range size: the smallest image for comparison
small=$(ls -Sr "$CACHE"/images/*.kdump 2>/dev/null | head -1 || true)
if [ -n "$small" ] && [ "$small" != "$img" ]; then
	sk=$CACHE/kernels/$(kernel_of "$small")/vmlinux
	if [ -f "$sk" ]; then
		/usr/bin/time -f "%M" -o "$tmp/t2" "$M" snapshot -q -o "$tmp/s2.snap" "$sk" "$small" || true
		echo "memmapcheck peak RSS: $(cat "$tmp/t2") KiB on the smallest image ($(basename "$small"))"
	fi
fi
if [ -x "$top/scripts/bench-crash.sh" ]; then
	"$top/scripts/bench-crash.sh" || echo "bench: crash comparison failed"
fi
