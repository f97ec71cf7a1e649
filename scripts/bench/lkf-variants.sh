#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libkdumpfile variants that doc/upstream/libkdumpfile/README.md
# measures, into $CACHE/bench/lkf/<label>/ (libkdumpfile and libaddrxlat
# only, same soname as the distribution's), and prints the --variant options
# of scripts/bench/bench.sh that run memmapcheck and the per-page loop with them:
#
#   head     the libkdumpfile commit given, unmodified
#   series   the same + doc/upstream/libkdumpfile/000N-*.patch (the proposal)
#            + measure/9999-*.patch (measurement only, not proposed: lets a
#            program that does not set the new attribute yet run with it,
#            LKF_BENCH_SKIP_CHECKSUMS=1, and with another cache size,
#            LKF_BENCH_CACHE_SIZE=N, and without mmap, LKF_BENCH_MMAP_NEVER=1)
#
# usage: scripts/bench/lkf-variants.sh LIBKDUMPFILE_GIT [COMMIT]
#   LIBKDUMPFILE_GIT  a clone of libkdumpfile (bare or not); COMMIT default HEAD
# Needs autoconf, automake, libtool, pkg-config and the zlib, lzo2, snappy,
# zstd development packages.  Environment: MEMMAPCHECK_CACHE.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
[ $# -ge 1 ] || { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
src=$1 commit=${2:-HEAD}
git -C "$src" rev-parse --verify -q "$commit^{commit}" >/dev/null ||
	{ echo "lkf-variants: $src: no commit $commit" >&2; exit 2; }
for t in autoreconf libtoolize make cc pkg-config; do
	command -v $t >/dev/null || { echo "lkf-variants: missing $t" >&2; exit 2; }
done
out=$CACHE/bench/lkf
mkdir -p "$out"
id=$(git -C "$src" rev-parse --short "$commit")

build() { # LABEL PATCH...
	local label=$1 d p
	shift
	d=$(mktemp -d "$out/.src.XXXXXX")
	git -C "$src" archive "$commit" | tar -x -C "$d"
	for p in "$@"; do
		patch -d "$d" -p1 -s < "$p" ||
			{ echo "lkf-variants: $(basename "$p") does not apply to $id" >&2; rm -rf "$d"; return 1; }
	done
	rm -rf "${out:?}/$label"
	( cd "$d" &&
	  autoreconf -fi &&
	  ./configure --prefix="$out/$label" --without-python --disable-static &&
	  make -C include && make -C src && make -C include install && make -C src install
	) > "$out/$label.log" 2>&1 ||
		{ echo "lkf-variants: $label: build failed, see $out/$label.log" >&2; rm -rf "$d"; return 1; }
	grep -q 'checking for libzstd... yes' "$out/$label.log" ||
		echo "lkf-variants: $label: WARNING: built without zstd (zstd dumps will not open)" >&2
	rm -rf "$d"
	echo "lkf-variants: built $label ($id$([ $# -gt 0 ] && echo " + $# patches")) in $out/$label" >&2
}

build head
build series "$top"/doc/upstream/libkdumpfile/0*.patch "$top"/doc/upstream/libkdumpfile/measure/*.patch
H=$out/head/lib S=$out/series/lib
echo "--variant lkf-head=LD_LIBRARY_PATH=$H" \
	"--variant lkf-series=LD_LIBRARY_PATH=$S" \
	"--variant 'lkf-series-skip=LD_LIBRARY_PATH=$S LKF_BENCH_SKIP_CHECKSUMS=1'" \
	"--variant 'lkf-series-cache16=LD_LIBRARY_PATH=$S LKF_BENCH_CACHE_SIZE=16'" \
	"--variant 'lkf-series-skip-cache16=LD_LIBRARY_PATH=$S LKF_BENCH_SKIP_CHECKSUMS=1 LKF_BENCH_CACHE_SIZE=16'"
