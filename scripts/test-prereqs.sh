#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Large, cached material the tests need beyond the repo, fetched or built once
# into ${MEMMAPCHECK_CACHE:-~/.cache/memmapcheck} (nothing here is committed):
#   - Debian's stock 6.1 debug vmlinux, the exact package the committed 6.1
#     dumps were made with (test-vectors/stock-6.1.VERSION)
#   - the 6.12 and 7.2 kernels of the committed dumps, rebuilt reproducibly
#     (scripts/vectors/build-kernel.sh: fixed KBUILD_BUILD_* and paths); their
#     build-ids must equal the saved layouts' (checked here)
#   - crash 9.0.x for 6.12/7.2 (scripts/vectors/build-crash9.sh, ~15-30 min once)
#   - one 1 GiB large image (scripts/bench/large-images.sh) for tests/threads.t
#   - the hvo-flavour base kernels of 6.12 and 7.2 (build-kernel.sh --hvo, ~10-12
#     min each on 2 cores) and one full capture of each (~40 s), for
#     tests/hvo/crash.t (crash 9 on the full dump with its vmlinux)
# usage: scripts/test-prereqs.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
log() { printf '[test-prereqs %4ss] %s\n' "$SECONDS" "$*" >&2; }

build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ {print $3; exit}'; }
layout_build_id() { awk '$1 == "build_id" {print $2; exit}' "$1"; }

# 1. Debian 6.1 debug vmlinux, pinned to the committed dumps
out=$CACHE/kernels/6.1-stock
want=$(layout_build_id "$top/test-vectors/layouts/6.1-stock.layout")
if [ "$(build_id "$out/vmlinux" 2>/dev/null)" != "$want" ]; then
	read -r pkg ver < <(grep -- '-dbg ' "$top/test-vectors/stock-6.1.VERSION")
	log "fetching $pkg=$ver (855 MB)"
	mkdir -p "$CACHE/debs" "$out"
	(cd "$CACHE/debs" && { ls "${pkg}_"*.deb >/dev/null 2>&1 || apt-get download "$pkg=$ver" ||
		{ apt-get update -q >/dev/null && apt-get download "$pkg=$ver"; }; })
	tmp=$(mktemp -d "$CACHE/dbg.XXXXXX")
	dpkg-deb --fsys-tarfile "$(ls "$CACHE/debs/${pkg}_"*.deb | head -1)" |
		tar -x -C "$tmp" --wildcards './usr/lib/debug/boot/vmlinux-*'
	mv "$tmp"/usr/lib/debug/boot/vmlinux-* "$out/vmlinux"
	rm -rf "$tmp"
fi
[ "$(build_id "$out/vmlinux")" = "$want" ] ||
	{ log "6.1 debug vmlinux build-id $(build_id "$out/vmlinux") != $want"; exit 1; }
log "6.1 stock vmlinux ok"

# 2. 6.12 and 7.2 kernels whose images are committed: the saved layout names
# the build-id its vmlinux must have
# (base and template: what the crash, live and DWARF tests run on; 6.12's
# mut-tail-refcount: the mutant tests/lava.t boots; the hvo-flavour bases:
# tests/hvo/crash.t, step 5; the other variants' dumps are checked through
# their saved layouts alone)
for l in "$top"/test-vectors/layouts/{6.12,7.2}-{base,template}.layout \
	 "$top"/test-vectors/layouts/6.12-mut-tail-refcount.layout \
	 "$top"/test-vectors/layouts/{6.12,7.2}-base-hvo.layout; do
	[ -e "$l" ] || continue
	name=$(basename "$l" .layout)
	kver=${name%%-*}
	variant=${name#"$kver"-}
	flavour=
	case $variant in
	*-kaslr) variant=${variant%-kaslr}; flavour=--kaslr ;;
	*-hvo) variant=${variant%-hvo}; flavour=--hvo ;;
	esac
	v=$CACHE/kernels/$name/vmlinux
	if [ "$(build_id "$v" 2>/dev/null)" != "$(layout_build_id "$l")" ]; then
		log "building $name"
		rm -rf "$CACHE/kernels/$name"
		"$top/scripts/vectors/build-kernel.sh" "$kver" "$variant" $flavour
	fi
	if [ "$(build_id "$v")" != "$(layout_build_id "$l")" ]; then
		log "$name: rebuilt vmlinux has build-id $(build_id "$v"), the committed dumps need $(layout_build_id "$l") (not reproducible here?)"
		exit 1
	fi
done
log "6.12/7.2 kernels ok"
# tests/prove.t runs memmapcheck-prove end to end on Debian's 7.2 tree, which
# the kernel builds above fetch only when they have to build: a cache that
# already holds the kernels (restored, or copied from another) lacks it.
"$top/scripts/vectors/fetch-kernel-source.sh" 7.2 >&2
log "7.2 source tree ok (tests/prove.t)"

# 3. crash 9 for 6.12 and 7.2 dumps
"$top/scripts/vectors/build-crash9.sh" >&2
log "crash 9 ok"

# 4. one large image, 1 GiB devdax 2M map=dev as kdump-zlib and ELF, for
# tests/threads.t (threaded walks byte-identical to one thread on a real
# guest bigger than the committed ones); about 20 s, 200 MB, kept in the cache
"$top/scripts/bench/large-images.sh" --modes devdax2m-dev --sizes 1 --copies "" >&2
log "large 1 GiB image ok (tests/threads.t)"

# 5. tests/hvo/crash.t: crash 9 opens the full captures of the hvo-flavour
# base kernels (the committed dumps/hvo.tar.xz is trimmed of what crash's own
# start reads) with their vmlinux.  The kernel must have its saved layout's
# build-id; the capture must have been made from that kernel (the build-id in
# its VMCOREINFO, stored uncompressed near the start of a makedumpfile
# dump); what the test checks comes from the guest layout, not from the
# committed dump, so a fresh capture serves.
dump_build_id() { head -c 4M "$1" 2>/dev/null | grep -a -o -m1 'BUILD-ID=[0-9a-f]*' | cut -d= -f2; }
for kver in 6.12 7.2; do
	name=$kver-base-hvo
	l=$top/test-vectors/layouts/$name.layout
	want=$(layout_build_id "$l")
	[ "$(build_id "$CACHE/kernels/$name/vmlinux")" = "$want" ] ||
		{ log "$name: no kernel with build-id $want (step 2 builds it)"; exit 1; }
	img=$name-b1
	if [ "$(dump_build_id "$CACHE/images/$img.kdump")" != "$want" ]; then
		log "capturing $img (about a minute)"
		"$top/scripts/prove/capture.sh" "$CACHE/kernels/$name" "$img" --layout standard-hvo >&2
		[ "$(dump_build_id "$CACHE/images/$img.kdump")" = "$want" ] ||
			{ log "$img: the capture's VMCOREINFO lacks BUILD-ID=$want"; exit 1; }
		log "captured $img"
	fi
done
log "hvo kernels and full captures ok (tests/hvo/crash.t)"
