#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ramdisk of the LAVA test guest: the capture guests' initramfs
# (scripts/prove/guest/build-initramfs.sh: busybox, /init, ndctl, daxtouch) plus a
# second cpio archive (the kernel unpacks concatenated archives) with
#   /lava-init                 rdinit: /init's workload, then a shell for LAVA
#   /memmapcheck/debs/*.deb    the memmapcheck .deb and the Debian packages of
#                              the libraries it needs (their dependency closure,
#                              from this machine's apt sources, cached)
#   /memmapcheck/kernel.layout the kernel's saved layout
#   /var/lib/dpkg/             an empty dpkg database for busybox's dpkg
# The test definition installs the .debs with the ramdisk's dpkg (busybox) on
# the device: memmapcheck arrives as a lab would ship it, not copied in.
#
# usage: scripts/prove/lava-ramdisk.sh -o OUT.cpio.gz -d MEMMAPCHECK.deb -l KERNEL.layout
#                                [--modules DIR | --base BASE.cpio.gz]
#   --base   the capture initramfs, built before (build-initramfs.sh output):
#            kernels that differ only in their layout share it
# Environment: MEMMAPCHECK_CACHE (the dependency .debs go to $CACHE/debs/lava-deps).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
out= deb= layout= modopt=() basecpio=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	-d) deb=$2; shift ;;
	-l) layout=$2; shift ;;
	--modules) modopt=(--modules "$2"); shift ;;
	--base) basecpio=$2; shift ;;
	*) echo "usage: $0 -o OUT.cpio.gz -d MEMMAPCHECK.deb -l KERNEL.layout [--modules DIR]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] && [ -f "$deb" ] && [ -f "$layout" ] ||
	{ echo "lava-ramdisk: need -o, an existing -d .deb and -l layout" >&2; exit 2; }
for t in apt-get apt-cache dpkg-deb cpio gzip; do
	command -v $t >/dev/null || { echo "lava-ramdisk: missing $t" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$basecpio" ]; then
	cp "$basecpio" "$work/base.cpio.gz"
else
	"$top/scripts/prove/guest/build-initramfs.sh" -o "$work/base.cpio.gz" "${modopt[@]}" 2>"$work/initramfs.log" ||
		{ cat "$work/initramfs.log" >&2; exit 3; }
fi
gzip -dc "$work/base.cpio.gz" | cpio -t --quiet 2>/dev/null | sed 's,^\./,,' | LC_ALL=C sort > "$work/base.list"

# The libraries' packages: the Depends of the .deb, closed over Depends and
# Pre-Depends (apt-cache depends --recurse), as this machine's apt offers them.
names=$(dpkg-deb -f "$deb" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',|' '\n\n' |
	sed 's/(.*)//; s/:any//; s/ //g' | grep -v '^$' | sort -u)
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances $names 2>/dev/null | grep -v '^ ' | grep -v '^<' | sort -u)
[ -n "$closure" ] || { echo "lava-ramdisk: apt-cache knows none of: $names (apt-get update?)" >&2; exit 2; }
depdir=$CACHE/debs/lava-deps
mkdir -p "$depdir"
extra=$work/extra
mkdir -p "$extra/memmapcheck/debs"
# one apt-cache call for every candidate version ("pkg version" lines)
apt-cache policy $closure | awk '/^[^ ].*:$/ { p = substr($1, 1, length($1) - 1) }
	/^  Candidate: / { print p, $2 }' > "$work/versions"
while read -r p v; do
	f=$(ls "$depdir/${p}_${v//:/%3a}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$f" ]; then
		(cd "$depdir" && apt-get download -q "$p=$v" >&2) || { echo "lava-ramdisk: apt-get download $p=$v failed" >&2; exit 3; }
		f=$(ls "$depdir/${p}_${v//:/%3a}_"*.deb | head -1)
	fi
	cp "$f" "$extra/memmapcheck/debs/"
done < "$work/versions"
[ "$(wc -l < "$work/versions")" = "$(echo "$closure" | wc -w)" ] ||
	{ echo "lava-ramdisk: apt-cache policy gave no version for some of: $closure" >&2; exit 3; }
cp "$deb" "$extra/memmapcheck/debs/"
cp "$layout" "$extra/memmapcheck/kernel.layout"
# busybox's dpkg needs its database: the directories and an empty status
mkdir -p "$extra/var/lib/dpkg/info" "$extra/var/lib/dpkg/updates"
: > "$extra/var/lib/dpkg/status"
install -m 755 "$top/lava/guest/lava-init" "$extra/lava-init"
echo "lava-ramdisk: $(ls "$extra/memmapcheck/debs" | wc -l) packages: $(ls "$extra/memmapcheck/debs" | sed 's/_.*//' | paste -sd' ')" >&2

# Only new paths: an entry for a directory the base has must not replace it.
(cd "$extra" && find . -mindepth 1 | sed 's,^\./,,' | LC_ALL=C sort) |
	LC_ALL=C comm -23 - "$work/base.list" > "$work/extra.list"
(cd "$extra" && cpio -o -H newc --quiet -R 0:0 < "$work/extra.list") | gzip -6n > "$work/extra.cpio.gz"
mkdir -p "$(dirname "$out")"
cat "$work/base.cpio.gz" "$work/extra.cpio.gz" > "$out.tmp"
# run-live.sh's bound: the guest's low RAM must hold the ramdisk and its unpacked copy
[ "$(du -k "$out.tmp" | cut -f1)" -lt 40000 ] || { rm -f "$out.tmp"; echo "lava-ramdisk: over 40 MB" >&2; exit 3; }
mv "$out.tmp" "$out"
echo "lava-ramdisk: $out $(stat -c %s "$out") bytes" >&2
