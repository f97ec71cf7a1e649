#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: memmapcheck at the seeds' scale, side by side with its peers
# over the same pfns, on every image of scripts/bench/large-images.sh (1-100 GiB
# namespaces, several dump formats) and on synthetic images of simulated sizes
# up to 4 TiB (scripts/bench/synth_ns.c).  A benchmark, not a test: it prints
# tables and writes results.tsv (scripts/bench/report.py formats it,
# scripts/bench/plot.py draws the scaling plot).
#
# Per image, on its kdump-zlib dump:  memmapcheck snapshot, compare (the image
#   against itself: two walks and a diff), lint of the snapshot file; crash 9
#   `kmem -p` and memmapcheck.so's snapshot in one crash session
#   (scripts/bench/bench-crash.sh); the one-kdump_read-per-page libkdumpfile loop;
#   drgn (images up to --drgn-max GiB).  Per format (zlib, lzo, zstd, snappy,
#   ELF): snapshot and the per-page loop.  Peak RSS of every process.
# Pairs (<kver>-base-pair-N and <kver>-template-pair-N): compare base vs template.
# Claims: for every <prefix>-base-pair-N, each <prefix>-<variant>-pair-N whose
#   variant has patches/<kver>/<variant>.claims (the template, a mutant; a
#   kernel dir named <prefix>-<variant> given to large-images.sh --template)
#   is diffed against it twice from the snapshots, plain and with --claims
#   (best of --runs each), and the ratio recorded (target: under 1.10).
#
# usage: scripts/bench/bench.sh [options] [IMAGE ...]
#   IMAGE             $CACHE/large/<name> (or any of its files); default: all
#                     images in $CACHE/large, smallest first
#   --runs N          best of N for memmapcheck (default 3)
#   --formats LIST    default "zlib lzo zstd snappy elf none" (those present;
#                     none: NAME.none.kdump, kdump without page compression);
#                     lint, compare, crash and drgn run on the first one
#   --no-crash, --no-drgn, --no-real, --no-synth, --no-loop (the per-page loop)
#   --drgn-max GIB    drgn only on images up to this size (default 1)
#   --synth SPEC      simulated sizes, "ORDER:GIB,GIB ..." (default
#                     "18:1,16,256,1024,4096 9:1,16,64,256,1024 0:1,4,16,64")
#   --variant 'LABEL=VAR=VAL ...'  also run snapshot and the per-page loop
#                     on the zlib and zstd dumps with these environment
#                     variables, e.g. another libkdumpfile through
#                     LD_LIBRARY_PATH (repeatable; scripts/bench/lkf-variants.sh
#                     builds the ones of doc/upstream/libkdumpfile)
#   --results DIR     default $CACHE/bench/<date>
#   --plot FILE       write the scaling plot (SVG) there
# Environment: B (build dir, default build), MEMMAPCHECK_CACHE, DRGN_SECONDS.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
B=$(cd "${B:-$top/build}" 2>/dev/null && pwd) || { echo "bench: build first (make)" >&2; exit 2; }
M=$B/memmapcheck
DRGN_SECONDS=${DRGN_SECONDS:-20}

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
runs=3 formats="zlib lzo zstd snappy elf none" do_crash=1 do_drgn=1 do_real=1 do_synth=1 do_loop=1
drgn_max=1 synth="18:1,16,256,1024,4096 9:1,16,64,256,1024 0:1,4,16,64"
variants=() results= plot= images=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift ;;
	--formats) formats=$2; shift ;;
	--no-crash) do_crash=0 ;;
	--no-drgn) do_drgn=0 ;;
	--no-real) do_real=0 ;;
	--no-synth) do_synth=0 ;;
	--no-loop) do_loop=0 ;;
	--drgn-max) drgn_max=$2; shift ;;
	--synth) synth=$2; shift ;;
	--variant) variants+=("$2"); shift ;;
	--results) results=$2; shift ;;
	--plot) plot=$2; shift ;;
	-*) usage ;;
	*) images+=("$1") ;;
	esac
	shift
done
[ -x "$M" ] || { echo "bench: build first (make)" >&2; exit 2; }
results=${results:-$CACHE/bench/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results" "$B/bench"
R=$results/results.tsv
printf 'image\tformat\ttool\tpages\tseconds\tcpu_seconds\trss_kib\tnote\n' > "$R"

# helper programs
kpp=$B/bench/kdump_per_page synth_ns=$B/bench/synth_ns runstat=$B/bench/runstat
cc -O2 -Wall -Werror -o "$runstat" "$top/scripts/bench/runstat.c"
cc -O2 -o "$kpp" "$top/scripts/bench/kdump_per_page.c" $(pkg-config --cflags --libs libkdumpfile)
make -s -C "$top" B="$B" lib >/dev/null
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
	-I"$top/engine" -I"$top/tests/unit" -o "$synth_ns" "$top/scripts/bench/synth_ns.c" \
	"$B/libmemmapcheck.a" $(pkg-config --libs libkdumpfile libaddrxlat libdw) -lelf

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What the peers need; a peer that is missing is left out, and said so here.
if [ $do_crash = 1 ]; then
	crash9=$CACHE/crash-9/root/usr/bin/crash
	if [ ! -x "$crash9" ]; then
		echo "bench: no crash 9 at $crash9: no crash rows (scripts/vectors/build-crash9.sh builds it, then make crash-ext)"
		do_crash=0
	elif ! ls "$B"/crash-ext/9*/memmapcheck.so >/dev/null 2>&1; then
		echo "bench: memmapcheck.so not built for crash 9 in $B/crash-ext: no crash rows (make crash-ext)"
		do_crash=0
	fi
fi
if [ $do_drgn = 1 ] && ! /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	echo "bench: no drgn Python module: no drgn rows (scripts/setup-deps.sh installs python3-drgn)"
	do_drgn=0
fi

echo "bench: $(uname -r), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); load: $(uptime | sed 's/.*load average: //')"
echo "bench: results in $results"

now() { date +%s.%N; }
# rec IMAGE FORMAT TOOL PAGES SECONDS CPU_SECONDS RSS_KIB [NOTE]
rec() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "${8:-}" >> "$R"
	awk -v t="$3 ($2)" -v p="$4" -v s="$5" -v c="$6" -v r="$7" -v n="${8:-}" 'BEGIN {
		printf "  %-44s %12d pages %9.3f s (cpu %8.3f) %8.2f M pages/s %7.0f MiB %s\n",
			t, p, s, c, (s > 0 ? p / s / 1e6 : 0), r / 1024, n }'
}
# timed N CMD...: best wall time of N runs in T, the least user+system CPU
# time in CPU, the largest peak RSS (KiB) in RSS.  Exit 0 and 1
# (identical/different, clean/violations) are results.
timed() {
	local n=$1 i s rss rc cpu
	shift
	T= RSS=0 CPU=
	for ((i = 0; i < n; i++)); do
		rc=0
		"$runstat" "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
		[ $rc -le 1 ] || { echo "bench: exit $rc: $* ($(tail -1 "$tmp/err"))" >&2; return 1; }
		read -r s cpu rss < "$tmp/time"
		if [ -z "$T" ] || awk "BEGIN{exit !($s < $T)}"; then T=$s; fi
		if [ -z "$CPU" ] || awk "BEGIN{exit !($cpu < $CPU)}"; then CPU=$cpu; fi
		[ "$rss" -gt "$RSS" ] && RSS=$rss
	done
	return 0
}
meta() { sed -n "s/^$2=//p" "$1.meta" 2>/dev/null | head -n 1; }

# --- real images ----------------------------------------------------------
bases=()
if [ ${#images[@]} -gt 0 ]; then
	for i in "${images[@]}"; do
		i=${i%.meta}; i=${i%.elf}; i=${i%.kdump}
		i=${i%.zlib}; i=${i%.lzo}; i=${i%.zstd}; i=${i%.snappy}; i=${i%.none}
		bases+=("$i")
	done
elif [ $do_real = 1 ]; then
	while read -r _ _ b; do bases+=("$b"); done < <(
		for m in "$CACHE"/large/*.meta; do
			[ -f "$m" ] || continue
			echo "$(sed -n 's/^size_gib=//p' "$m") $(sed -n 's/^mode=//p' "$m") ${m%.meta}"
		done | sort -k1,1n -k2,2)
	[ ${#bases[@]} -gt 0 ] || echo "bench: no images in $CACHE/large (scripts/bench/large-images.sh makes them)"
fi

layout_for() { # KERNEL_DIR -> saved layout (DWARF read once per kernel)
	local l=$results/$(basename "$1").layout
	[ -s "$l" ] || "$M" layout -q -o "$l" "$1/vmlinux"
	echo "$l"
}
# dump_of BASE FORMAT -> its dump file (may not exist)
dump_of() { if [ "$2" = elf ]; then echo "$1.elf"; else echo "$1.$2.kdump"; fi; }
# first_format BASE -> the first of $formats it has a dump in
first_format() {
	local f
	for f in $formats; do [ -s "$(dump_of "$1" $f)" ] && { echo $f; return; }; done
}
# image_kdir BASE: its kernel: the meta's kernel_dir=, else (older metas)
# the --kernel of the command that made it, else from the image's name
image_kdir() {
	local k
	k=$(meta "$1" kernel_dir)
	[ -n "$k" ] || k=$(meta "$1" command | sed -n 's|.*--kernel [^ ]*/kernels/\([^ ]*\).*|\1|p')
	[ -n "$k" ] || k=$(basename "$1" | sed -E 's/^bench-//; s/^([0-9.]+-[a-z0-9]+)-.*/\1/')
	case $k in /*) echo "$k" ;; *) echo "$CACHE/kernels/$k" ;; esac
}
# image_layout BASE: the meta's layout= (a saved layout, relative to the
# meta's directory or absolute) stands in for the vmlinux of its kernel
image_layout() {
	local l k
	l=$(meta "$1" layout)
	case $l in '') ;; /*) echo "$l"; return ;; *) echo "$(dirname "$1")/$l"; return ;; esac
	k=$(image_kdir "$1")
	[ -f "$k/vmlinux" ] || return 1
	layout_for "$k"
}

bench_image() {
	local base=$1 name kdir layout pages hpages hnote vb args size d f f0 label vars snap
	name=$(basename "$base")
	kdir=$(image_kdir "$base")
	# crash and drgn need the vmlinux itself
	layout=$(image_layout "$base") || { echo "bench: $name: no vmlinux in $kdir (skipped)" >&2; return 0; }
	f0=$(first_format "$base")
	size=$(meta "$base" size_gib)
	echo
	echo "== $name (kernel $(basename "$kdir"), $(meta "$base" ns)$(meta "$base" kernel_args))"
	snap=$tmp/$name.snap
	for f in $formats; do
		d=$(dump_of "$base" $f)
		[ -s "$d" ] || continue
		if [ $f = elf ]; then
			"$M" snapshot -q -o "$snap" "$layout" "$d"	# warm: reads only what the walk needs
		else
			cat "$d" > /dev/null
		fi
		timed "$runs" "$M" snapshot -q -o "$snap" "$layout" "$d" || continue
		if [ -z "${pages:-}" ]; then
			"$M" ranges --json "$snap" > "$tmp/ranges.json"
			read -r pages hpages vb args < <(/usr/bin/python3 - "$tmp/ranges.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["ranges"]
vb = int(r[0]["vmemmap_start"], 16) - r[0]["start_pfn"] * 64
print(sum(x["pages"] for x in r), sum(x["pages"] for x in r if x.get("type") == "hugetlb"),
      hex(vb), " ".join("%d %d" % (x["start_pfn"], x["end_pfn"]) for x in r))
PY
)
		fi
		# of HugeTLB images, how many of the pages are HugeTLB folios'
		# (report.py sets their CPU per struct page beside device-dax's)
		hnote=; [ "${hpages:-0}" = 0 ] || hnote=", $hpages HugeTLB"
		rec "$name" "$f" snapshot "$pages" "$T" "$CPU" "$RSS" "best of $runs, $(stat -L -c %s "$d") bytes$hnote"
		# shellcheck disable=SC2086
		[ $do_loop = 1 ] && timed 1 "$kpp" "$d" "$vb" 64 $args &&
			rec "$name" "$f" "kdump_read/page" "$pages" $(awk '{print $3, $5}' "$tmp/out") "$RSS"
		# variants (other libkdumpfile builds): on the zlib and zstd dumps
		for label in "${variants[@]}"; do
			case $f in zlib|zstd) ;; *) break ;; esac
			vars=${label#*=} label=${label%%=*}
			# shellcheck disable=SC2086
			timed "$runs" env $vars "$M" snapshot -q -o "$tmp/l.snap" "$layout" "$d" &&
				rec "$name" "$f" "snapshot" "$pages" "$T" "$CPU" "$RSS" "variant $label"
			# shellcheck disable=SC2086
			timed 1 env $vars "$kpp" "$d" "$vb" 64 $args &&
				rec "$name" "$f" "kdump_read/page" "$pages" $(awk '{print $3, $5}' "$tmp/out") "$RSS" "variant $label"
		done
		if [ $f = "$f0" ]; then
			timed "$runs" "$M" lint -q "$snap" &&
			rec "$name" "$f" "lint (snapshot file)" "$pages" "$T" "$CPU" "$RSS" "snapshot $(stat -c %s "$snap") bytes"
			timed "$(( runs > 1 ? 2 : 1 ))" "$M" compare -q "$layout" "$d" "$layout" "$d" &&
				rec "$name" "$f" "compare (image vs itself)" "$pages" "$T" "$CPU" "$RSS" "two walks + diff"
			[ $do_crash = 1 ] && [ -f "$kdir/vmlinux" ] && bench_crash "$name" "$d" "$f"
			if [ $do_drgn = 1 ] && [ "${size:-0}" -le "$drgn_max" ] && [ -f "$kdir/vmlinux" ]; then
				# drgn 0.0.22 cannot open `makedumpfile -R` output (no
				# arch name in it) nor QEMU's paging=false ELF: it reads
				# a makedumpfile copy of the same dump
				local dd=$d c
				for c in lzo zstd snappy; do [ -s "$base.$c.kdump" ] && { dd=$base.$c.kdump; break; }; done
				# shellcheck disable=SC2086
				timed 1 /usr/bin/python3 "$top/scripts/bench/drgn_walk.py" "$kdir/vmlinux" "$dd" "$DRGN_SECONDS" $args &&
					read -r dp ds _ dc < "$tmp/out" &&
					rec "$name" drgn "drgn pfn_to_page+flags+head" "$dp" "$ds" "$dc" "$RSS" "reads the ${dd#"$base".} copy, stops after $DRGN_SECONDS s"
			fi
		fi
	done
	pages=
}

bench_crash() { # NAME DUMP FORMAT
	local line k v
	CRASH_FLAGS=--no_kmem_cache MMC_BUILD=$B MMC_KERNEL_DIR=$kdir "$top/scripts/bench/bench-crash.sh" "$2" > "$tmp/crash.out" 2>&1 ||
		{ echo "bench: crash comparison failed on $1: $(tail -3 "$tmp/crash.out")"; return 0; }
	sed 's/^/  crash| /' "$tmp/crash.out" | grep -v 'bench-crash: result'
	line=$(sed -n 's/^bench-crash: result //p' "$tmp/crash.out")
	local crash= pages= ext_again= kmem_seconds= kmem_pages= rss_ext_kib= rss_kmem_kib= range= cpu_ext_again= cpu_kmem=
	for kv in $line; do
		k=${kv%%=*} v=${kv#*=}
		case $k in crash|pages|ext_again|kmem_seconds|kmem_pages|rss_ext_kib|rss_kmem_kib|range|cpu_ext_again|cpu_kmem)
			printf -v "$k" '%s' "$v" ;;
		esac
	done
	rec "$1" crash "memmapcheck.so snapshot -r $range" "$pages" "$ext_again" "$cpu_ext_again" "$rss_ext_kib" "crash $crash, peak RSS of the session so far"
	rec "$1" crash "crash kmem -p" "$kmem_pages" "$kmem_seconds" "$cpu_kmem" "$rss_kmem_kib" "crash $crash, every struct page; its rate applies to the range"
}

for base in "${bases[@]}"; do
	bench_image "$base"
done

# base vs template pairs
for b in "${bases[@]}"; do
	case $(basename "$b") in *-base-pair-*) ;; *) continue ;; esac
	t=${b/-base-pair-/-template-pair-}
	f=$(first_format "$b")
	if [ -z "$f" ] || ! [ -s "$(dump_of "$t" "$f")" ]; then
		echo "bench: no $(basename "$t") to compare $(basename "$b") with" \
			"(scripts/bench/large-images.sh --kernel \$CACHE/kernels/<template kernel> --modes pair --sizes N)"
		continue
	fi
	lb=$(image_layout "$b") && lt=$(image_layout "$t") ||
		{ echo "bench: no layout or vmlinux for $(basename "$b") or $(basename "$t")" >&2; continue; }
	db=$(dump_of "$b" "$f") dt=$(dump_of "$t" "$f")
	name=$(basename "$b")
	echo
	echo "== compare $(basename "$b") $(basename "$t") ($f)"
	cat "$db" "$dt" > /dev/null
	timed "$runs" "$M" compare -q --save-base "$tmp/pb.snap" --save-new "$tmp/pt.snap" "$lb" "$db" "$lt" "$dt" || continue
	p=$("$M" ranges --json "$tmp/pb.snap" | /usr/bin/python3 -c 'import json,sys; print(sum(r["pages"] for r in json.load(sys.stdin)["ranges"]))')
	rec "$name" pair "compare base vs template" "$p" "$T" "$CPU" "$RSS" "$f, verdict: $(head -1 "$tmp/out")"
	timed "$runs" "$M" diff -q "$tmp/pb.snap" "$tmp/pt.snap" &&
	rec "$name" pair "diff of the two snapshots" "$p" "$T" "$CPU" "$RSS"
done

# claims: the plain diff and the diff with the variant's claims, side by side
for b in "${bases[@]}"; do
	case $(basename "$b") in *-base-pair-*) ;; *) continue ;; esac
	prefix=$(basename "$b"); size=${prefix##*-base-pair-}; prefix=${prefix%-base-pair-*}
	kver=$(echo "$prefix" | sed -n 's/^\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
	f=$(first_format "$b")
	[ -n "$f" ] || continue
	for t in "$CACHE"/large/"$prefix"-*-pair-"$size".meta; do
		[ -f "$t" ] || continue
		t=${t%.meta} variant=$(basename "$t"); variant=${variant#"$prefix"-}; variant=${variant%-pair-"$size"}
		[ "$variant" != base ] || continue
		claims=$top/patches/$kver/$variant.claims
		[ -f "$claims" ] || { echo "bench: $(basename "$t"): no $claims (no claims row)"; continue; }
		[ -s "$(dump_of "$t" "$f")" ] || continue
		lb=$(image_layout "$b") && lt=$(image_layout "$t") || continue
		name=$(basename "$b")
		echo
		echo "== claims: diff $(basename "$b") $(basename "$t") with and without ${claims#"$top"/}"
		"$M" snapshot -q -o "$tmp/cb.snap" "$lb" "$(dump_of "$b" "$f")" || true
		"$M" snapshot -q -o "$tmp/ct.snap" "$lt" "$(dump_of "$t" "$f")" || true
		p=$("$M" ranges --json "$tmp/cb.snap" | /usr/bin/python3 -c 'import json,sys; print(sum(r["pages"] for r in json.load(sys.stdin)["ranges"]))')
		timed "$runs" "$M" diff -q -n 0 "$tmp/cb.snap" "$tmp/ct.snap" || continue
		plain=$CPU
		rec "$name" claims "diff vs $variant (plain)" "$p" "$T" "$CPU" "$RSS" "verdict: $(head -1 "$tmp/out" | cut -c1-60)"
		timed "$runs" "$M" diff -q -n 0 --claims "$claims" "$tmp/cb.snap" "$tmp/ct.snap" || continue
		rec "$name" claims "diff vs $variant --claims" "$p" "$T" "$CPU" "$RSS" \
			"$(awk -v a="$plain" -v b="$CPU" 'BEGIN { printf "%.3fx the plain diff CPU", (a > 0 ? b / a : 0) }'); verdict: $(head -1 "$tmp/out" | cut -c1-60)"
	done
done

# --- simulated sizes --------------------------------------------------------
if [ $do_synth = 1 ]; then
	sd=$CACHE/bench/synth
	mkdir -p "$sd"
	# images of another generator are remade; the headers it takes the
	# kernel, layout and ELF writer from are part of it
	gen=$(cd "$top" && cat scripts/bench/synth_ns.c \
		tests/unit/{synth_kernel,layout_fixture,mkcore}.h | sha256sum | cut -c1-16)
	if [ "$(cat "$sd/generator" 2>/dev/null)" != "$gen" ]; then
		rm -f "$sd"/*.core "$sd"/*.core.info "$sd/synth.layout"
		echo "$gen" > "$sd/generator"
	fi
	echo
	echo "== simulated sizes (synthetic kcore ELF, scripts/bench/synth_ns.c) in $sd"
	for spec in $synth; do
		order=${spec%%:*}
		case $order in 18) mode=devdax1g ;; 9) mode=devdax2m-mem ;; 0) mode=fsdax ;; *) mode=order$order ;; esac
		sizes=${spec#*:}
		for gib in ${sizes//,/ }; do
			core=$sd/$mode-${gib}g.core name=synth-$mode-${gib}g
			if [ ! -s "$core" ]; then
				t0=$(now)
				"$synth_ns" "$core.tmp" "$sd/synth.layout" "$order" "$gib" > "$core.info"
				mv "$core.tmp" "$core"
				echo "  made $core in $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}') s ($(cut -d' ' -f4 "$core.info") bytes)"
			fi
			[ -s "$sd/synth.layout" ] || "$synth_ns" "$tmp/x.core" "$sd/synth.layout" 0 1 > /dev/null
			read -r pages _ frames bytes < "$core.info"
			cat "$core" > /dev/null
			n=$runs; [ "$gib" -ge 1024 ] && n=1
			timed "$n" "$M" snapshot -q --live -o "$tmp/s.snap" "$sd/synth.layout" "$core" &&
				rec "$name" elf-kcore snapshot "$pages" "$T" "$CPU" "$RSS" "$frames struct-page frames, file $bytes bytes"
			timed "$n" "$M" snapshot -q -o "$tmp/s.snap" "$sd/synth.layout" "$core" &&
				rec "$name" elf snapshot "$pages" "$T" "$CPU" "$RSS" "libkdumpfile"
			timed "$n" "$M" lint -q "$tmp/s.snap" &&
			rec "$name" elf "lint (snapshot file)" "$pages" "$T" "$CPU" "$RSS" "snapshot $(stat -c %s "$tmp/s.snap") bytes"
		done
	done
fi

echo
/usr/bin/python3 "$top/scripts/bench/report.py" "$R" | tee "$results/report.txt"
if [ -n "$plot" ]; then
	/usr/bin/python3 "$top/scripts/bench/plot.py" "$R" > "$plot"
	echo "bench: plot in $plot"
fi
echo "bench: load at the end: $(uptime | sed 's/.*load average: //')"
