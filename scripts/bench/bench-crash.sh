#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: memmapcheck.so's snapshot of the largest ZONE_DEVICE range
# against crash's own `kmem -p`, timed in one crash batch session.
#
#   scripts/bench/bench-crash.sh [DUMP [CRASH]]
#
# DUMP defaults to the largest $CACHE/images/*.kdump, CRASH to the newest
# crash (crash 9 if built, else /usr/bin/crash) that can open that kernel
# and has memmapcheck.so built ($MMC_BUILD/crash-ext/<version>/).  kmem -p
# cannot be limited to a pfn range: it walks every struct page crash knows
# (System RAM and ZONE_DEVICE), so its rate is measured over the whole walk
# and its time over the range's pfns is that rate applied to them (the
# range's pfns are checked to be in its output).  Then the whole snapshot
# three ways: the extension reading the dump file through libkdumpfile (its
# default when crash has a dump file open), the extension through crash's
# readmem() (MEMMAPCHECK_CRASH_READER=readmem, a second session; skipped with
# BENCH_CRASH_READMEM=0) and the CLI (in turns with the extension's
# snapshot -f, BENCH_CRASH_ROUNDS times, default 3), with the ratios the
# extension is held to: within 20 % of the CLI, 10x kmem -p or better.
# The three snapshot files must be the same (cmp; the CLI's but for the
# INFO and LAYT sections, which name the dump and the layout's source).
# Not a test: prints numbers,
# and last a "bench-crash: result k=v ..." line for scripts/bench/bench.sh (peak RSS
# of the crash process, VmHWM, after loading, after the extension's
# snapshots and after kmem -p).
# Environment: CRASH_FLAGS more crash options (--no_kmem_cache on huge dumps),
#   MMC_KERNEL_DIR (the dump's kernel: bzImage, vmlinux, config), MMC_BUILD, MEMMAPCHECK_CACHE, MMC_CRASHES (tests/crash-lib.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
MMC_BUILD=${MMC_BUILD:-$here/../../build}
. "$here/../../tests/crash-lib.sh"
CLI=$MMC_BUILD/memmapcheck
[ -x "$CLI" ] || { echo "bench-crash: no CLI at $CLI (make first)" >&2; exit 2; }

dump=${1:-$(ls -S "$CACHE"/images/*.kdump 2>/dev/null | head -n 1)}
[ -n "$dump" ] && [ -r "$dump" ] || { echo "bench-crash: no dump (give one, or make vectors)" >&2; exit 2; }
name=$(basename "$dump"); name=${name%.*}
# scripts/bench/large-images.sh names its dumps NAME.FORMAT.kdump beside NAME.meta
base=${dump%.kdump}; base=${base%.zlib}; base=${base%.lzo}; base=${base%.zstd}; base=${base%.snappy}
if [ -n "${MMC_KERNEL_DIR:-}" ]; then
	kdir=$MMC_KERNEL_DIR
	series=$(image_series "$base.kdump")
elif [ "$base" != "${dump%.kdump}" ] && [ -r "$base.meta" ]; then
	# kernel_dir=, or (older metas) the --kernel of the command that made it
	kdir=$(sed -n 's/^kernel_dir=//p' "$base.meta" | head -n 1)
	[ -n "$kdir" ] || kdir=$CACHE/kernels/$(sed -n 's/^command=.*--kernel [^ ]*\/kernels\/\([^ ]*\).*/\1/p' "$base.meta" | head -n 1)
	series=$(image_series "$base.kdump")
else
	kdir=$(image_kernel_dir "$dump")
	series=$(kernel_series "$name")
fi
vmlinux=$kdir/vmlinux
[ -r "$vmlinux" ] || { echo "bench-crash: no vmlinux at $vmlinux" >&2; exit 2; }
flags="$(crash_flags_for "$kdir") ${CRASH_FLAGS:-}"

crash=${2:-}
if [ -z "$crash" ]; then
	for c in $MMC_CRASHES; do
		[ -x "$c" ] || continue
		v=$(crash_version "$c")
		[ -r "$(crash_ext_so "$v")" ] && crash_can_open "$v" "$series" && crash=$c
	done
fi
[ -n "$crash" ] || { echo "bench-crash: no crash with memmapcheck.so built that opens $series" >&2; exit 2; }
v=$(crash_version "$crash")
so=$(crash_ext_so "$v")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The largest range, from the CLI (same discovery as the extension).
"$CLI" ranges -f json "$vmlinux" "$dump" >"$tmp/ranges.json" 2>/dev/null
set -- $(python3 -c '
import json, sys
r = max(json.load(open(sys.argv[1]))["ranges"], key=lambda r: r["pages"])
print(r["index"], r["start_pfn"], r["end_pfn"], r["pages"], r.get("type", "?"))
' "$tmp/ranges.json")
idx=$1 spfn=$2 epfn=$3 pages=$4 type=$5

stamp='!echo @@ $(date +%s.%N) $(awk "/^VmHWM/ {print \$2}" /proc/$PPID/status) $(cut -d")" -f2 /proc/$PPID/stat | awk "{print \$12 + \$13}")'
cat >"$tmp/cmds" <<EOF
extend $so
memmapcheck layout
$stamp
memmapcheck snapshot -v -r $idx -o $tmp/r.snap
$stamp
memmapcheck snapshot -v -r $idx -o $tmp/r.snap
$stamp
memmapcheck snapshot -v -o $tmp/all.snap
$stamp
kmem -p > $tmp/kmem.out
$stamp
EOF
# Then the CLI and the extension's whole snapshot in turns, ROUNDS times
# (default 3), in the same session: on a shared machine the load moves
# between runs, and turns expose both to the same load.  @@T: wall clock,
# crash's CPU ticks; the CLI's CPU from time(1).
rounds=${BENCH_CRASH_ROUNDS:-3}
tstamp='!echo @@T $(date +%s.%N) $(cut -d")" -f2 /proc/$PPID/stat | awk "{print \$12 + \$13}")'
i=1
while [ "$i" -le "$rounds" ]; do
	cat >>"$tmp/cmds" <<EOF
$tstamp
!/usr/bin/env time -f "@@CPU %U %S" -a -o $tmp/cli.cpu $CLI snapshot -o $tmp/cli.snap $vmlinux $dump > $tmp/cli.$i.out 2>&1
$tstamp
memmapcheck snapshot -f -o $tmp/all.snap
$tstamp
EOF
	i=$((i + 1))
done
crash_batch "$crash" "$vmlinux" "$dump" "$tmp/cmds" "$tmp/out" "$flags" || true
grep -q 'memmapcheck.so: shared object loaded' "$tmp/out" ||
	{ echo "bench-crash: the extension did not load:" >&2; cat "$tmp/out" >&2; exit 3; }
set -- $(sed -n 's/^@@ \([0-9.]*\) .*/\1/p' "$tmp/out")
[ $# -eq 5 ] || { echo "bench-crash: session incomplete:" >&2; tail "$tmp/out" >&2; exit 3; }
t0=$1 t1=$2 t2=$3 t3=$4 t4=$5
set -- $(awk '$1 == "@@" { print $3 }' "$tmp/out")
hwm_load=${1:-0} hwm_ext=${4:-0} hwm_kmem=${5:-0}
# CPU time (utime + stime, clock ticks) of crash at each stamp
set -- $(awk '$1 == "@@" { print $4 }' "$tmp/out")
tck=$(getconf CLK_TCK)
cpu_ext2=$(awk -v a="${2:-0}" -v b="${3:-0}" -v t="$tck" 'BEGIN{printf "%.3f", (b - a) / t}')
cpu_kmem=$(awk -v a="${4:-0}" -v b="${5:-0}" -v t="$tck" 'BEGIN{printf "%.3f", (b - a) / t}')
kmem_total=$(($(wc -l <"$tmp/kmem.out") - 1))
kmem_range=$(awk -v s="$spfn" -v e="$epfn" 'NR > 1 {
	p = strtonum("0x" $2) / 4096; if (p >= s && p < e) n++ } END { print n + 0 }' "$tmp/kmem.out")
rm -f "$tmp/kmem.out"	# 27 M lines (2.5 GB) on a 104 GiB guest
walks=$(grep 'struct pages in' "$tmp/out" | sed 's/^memmapcheck: //' | head -n 3)
# The turns: best wall of each side, and CPU seconds summed over them.
set -- $(awk '$1 == "@@T" { print $2, $3 }' "$tmp/out")
[ $# -eq $((rounds * 6)) ] || { echo "bench-crash: the CLI/extension turns did not finish:" >&2; tail "$tmp/out" >&2; exit 3; }
turns=$(awk -v tck="$(getconf CLK_TCK)" -v n="$rounds" '
$1 == "@@T" { t[k + 0] = $2; c[k + 0] = $3; k++ }
$1 == "@@CPU" { cc += $2 + $3 }
END {
	for (i = 0; i < n; i++) {
		cw = t[3*i+1] - t[3*i]; ew = t[3*i+2] - t[3*i+1]
		ec += (c[3*i+2] - c[3*i+1]) / tck
		if (i == 0 || cw < bc) bc = cw
		if (i == 0 || ew < be) be = ew
		list = list sprintf(" %.2f/%.2f", ew, cw)
	}
	printf "%.3f %.3f %.2f %.2f%s\n", be, bc, ec, cc, list
}' "$tmp/out" "$tmp/cli.cpu")
set -- $turns
ext_best=$1 cli_wall=$2 ext_cpu=$3 cli_cpu=$4; shift 4; turn_list=$*
cli_walk=$(sed -n 's/.*struct pages in .*; \([0-9.]*\) s (.*/\1/p' "$tmp"/cli.*.out | sort -n | head -n 1)
reader=$(grep -m1 '^memmapcheck: read ' "$tmp/out" | sed 's/^memmapcheck: read //')
# the whole snapshot's walk, as the extension printed it
walk_all=$(echo "$walks" | sed -n '3s/.*; \([0-9.]*\) s (.*/\1/p')
ext_all=$(awk -v a="$t2" -v b="$t3" 'BEGIN{printf "%.3f", b - a}')

# The same whole snapshot through readmem(), in a session of its own.
rm_all= rm_walk= rm_same=
if [ "${BENCH_CRASH_READMEM:-1}" != 0 ]; then
	cat >"$tmp/rm.cmds" <<EOF
extend $so
memmapcheck layout
$stamp
memmapcheck snapshot -v -o $tmp/rm.snap
$stamp
EOF
	MEMMAPCHECK_CRASH_READER=readmem crash_batch "$crash" "$vmlinux" "$dump" "$tmp/rm.cmds" "$tmp/rm.out" "$flags" || true
	set -- $(sed -n 's/^@@ \([0-9.]*\) .*/\1/p' "$tmp/rm.out")
	if [ $# -eq 2 ]; then
		rm_all=$(awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", b - a}')
		rm_walk=$(sed -n 's/.*struct pages in .*; \([0-9.]*\) s (.*/\1/p' "$tmp/rm.out" | head -n 1)
		if cmp -s "$tmp/rm.snap" "$tmp/all.snap"; then rm_same="byte for byte the same"
		else rm_same="DIFFERENT FILES"; fi
	else
		echo "bench-crash: the readmem() session did not finish: $(tail -n 2 "$tmp/rm.out")" >&2
	fi
fi
cli_same=$(python3 - "$tmp/all.snap" "$tmp/cli.snap" <<'EOF'
import struct, sys
def sections(path):
    b = open(path, "rb").read()
    pos, out = 24, []
    while pos < len(b) - 8:
        tag, n = b[pos:pos + 4], struct.unpack_from("<Q", b, pos + 4)[0]
        p = b[pos + 12:pos + 12 + n]
        if tag == b"LAYT":
            p = b"\n".join(l for l in p.split(b"\n") if not l.startswith((b"source ", b"checksum ")))
        if tag != b"INFO":
            out.append((tag, p))
        pos += 12 + n
    return out
print("the same but for INFO and LAYT's source" if sections(sys.argv[1]) == sections(sys.argv[2])
      else "DIFFERENT")
EOF
)
# The engine's own time for the second single-range walk (discovery + walk,
# without saving the file), as printed by the extension.
walk2=$(echo "$walks" | sed -n '2s/.*; \([0-9.]*\) s (.*/\1/p')

awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v t4="$t4" \
    -v pages="$pages" -v kt="$kmem_total" -v kr="$kmem_range" \
    -v name="$name" -v v="$v" -v idx="$idx" -v s="$spfn" -v e="$epfn" -v type="$type" \
    -v w2="${walk2:-0}" '
BEGIN {
	ext1 = t1 - t0; ext2 = t2 - t1; all = t3 - t2; km = t4 - t3
	krate = kt / km; kest = pages / krate
	printf "dump %s, crash %s, largest range #%d: pfn 0x%x-0x%x, %d struct pages (%s)\n",
		name, v, idx, s, e, pages, type
	printf "memmapcheck snapshot -r %d (first, incl. kernel setup): %.3f s, %.2f M pages/s\n",
		idx, ext1, pages / ext1 / 1e6
	printf "memmapcheck snapshot -r %d (again):                     %.3f s, %.2f M pages/s\n",
		idx, ext2, pages / ext2 / 1e6
	printf "memmapcheck snapshot (every range, walk + save):       %.3f s\n", all
	printf "kmem -p (every struct page: %d, %d of them in the range): %.3f s, %.2f M pages/s\n",
		kt, kr, km, krate / 1e6
	printf "kmem -p over the same %d pfns: %.3f s (at its rate)\n", pages, kest
	printf "ratio kmem -p / memmapcheck over the same pfns: %.1fx (first run), %.1fx (again)\n",
		kest / ext1, kest / ext2
	if (w2 > 0)
		printf "ratio on the walk alone (engine %.2f s, no file written): %.0fx\n",
			w2, kest / w2
}'
echo "whole snapshot (every range, walk + save), read: $reader"
awk -v ext="$ext_all" -v ew="${walk_all:-0}" -v cli="$cli_wall" -v cw="${cli_walk:-0}" \
    -v eb="$ext_best" -v ec="$ext_cpu" -v cc="$cli_cpu" -v rounds="$rounds" -v tl="$turn_list" \
    -v km="$(awk -v a="$t3" -v b="$t4" 'BEGIN{print b - a}')" -v rm="${rm_all:-0}" -v rw="${rm_walk:-0}" '
BEGIN {
	printf "  extension, dump file:  %.3f s (walk %.2f s), best of %d more turns %.3f s\n", ext, ew, rounds, eb
	if (rm > 0)
		printf "  extension, readmem():  %.3f s (walk %.2f s): the file path is %.2fx faster\n", rm, rw, rm / ext
	printf "  CLI (best of %d turns): %.3f s wall, walk %.2f s (the wall time has process start, DWARF layout, dump open)\n", rounds, cli, cw
	printf "  turns, extension/CLI wall s:%s\n", tl
	printf "  ratio extension / CLI: %.2f wall, best vs best (target <= 1.20); CPU %.2f s / %.2f s = %.2f over the %d turns\n", eb / cli, ec, cc, (cc > 0 ? ec / cc : 0), rounds
	best = eb > 0 && eb < ext ? eb : ext
	printf "  ratio kmem -p (every struct page) / extension snapshot: %.1fx (best run; target >= 10), %.1fx (first)\n", km / best, km / ext
	if (rm > 0)
		printf "  ratio kmem -p / extension through readmem(): %.1fx\n", km / rm
}'
echo "  snapshot files: readmem() vs dump file: ${rm_same:-not run}; CLI vs extension: $cli_same"
echo "engine walk statistics:"
echo "$walks" | sed 's/^/  /'
echo "crash peak RSS (VmHWM): $hwm_load KiB loaded, $hwm_ext KiB after the extension's snapshots, $hwm_kmem KiB after kmem -p"
echo "bench-crash: result crash=$v range=$idx pages=$pages ext_first=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')" \
	"ext_again=$(awk -v a="$t1" -v b="$t2" 'BEGIN{printf "%.3f", b - a}') ext_walk=${walk2:-0}" \
	"kmem_seconds=$(awk -v a="$t3" -v b="$t4" 'BEGIN{printf "%.3f", b - a}') kmem_pages=$kmem_total kmem_in_range=$kmem_range" \
	"rss_load_kib=$hwm_load rss_ext_kib=$hwm_ext rss_kmem_kib=$hwm_kmem cpu_ext_again=$cpu_ext2 cpu_kmem=$cpu_kmem" \
	"ext_all=$ext_all ext_all_walk=${walk_all:-0} readmem_all=${rm_all:-0} readmem_all_walk=${rm_walk:-0}" \
	"cli_seconds=$cli_wall cli_walk=${cli_walk:-0} ext_best=$ext_best ext_cpu=$ext_cpu cli_cpu=$cli_cpu"
