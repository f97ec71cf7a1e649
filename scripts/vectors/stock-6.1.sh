#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch Debian's stock 6.1 kernel (newest ABI apt offers), its debug vmlinux and
# modules into $CACHE/kernels/6.1-stock/, then capture 6.1-stock-b1 and -b2.
# Usage: scripts/vectors/stock-6.1.sh [--fetch-only] [--boots "1 2"]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
out=$CACHE/kernels/6.1-stock
debs=$CACHE/debs
fetch_only=0; boots="1 2"
while [ $# -gt 0 ]; do
	case $1 in
	--fetch-only) fetch_only=1 ;;
	--boots) boots=$2; shift ;;
	*) echo "usage: $0 [--fetch-only] [--boots '1 2']" >&2; exit 2 ;;
	esac
	shift
done

if [ ! -s "$out/VERSION" ] || [ ! -s "$out/vmlinux" ] || [ ! -s "$out/vmlinuz" ]; then
	# Newest 6.1.0-NN ABI that apt offers (not pinned: NN moves with security updates).
	if ! apt-cache show linux-image-6.1.0-1-amd64-unsigned >/dev/null 2>&1 &&
	   [ -z "$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$')" ]; then
		apt-get update >/dev/null
	fi
	abi=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' |
		awk '{print $1}' | sed -E 's/^linux-image-(6\.1\.0-[0-9]+)-amd64-unsigned$/\1/' |
		sort -V | tail -1)
	[ -n "$abi" ] || { echo "stock-6.1: apt offers no linux-image-6.1.0-NN-amd64-unsigned" >&2; exit 1; }
	img=linux-image-$abi-amd64-unsigned
	dbg=linux-image-$abi-amd64-dbg
	mkdir -p "$debs" "$out"
	t0=$(date +%s)
	(cd "$debs" && for p in $img $dbg; do ls ${p}_*.deb >/dev/null 2>&1 || apt-get download "$p"; done)
	imgdeb=$(ls "$debs"/${img}_*.deb | sort -V | tail -1)
	dbgdeb=$(ls "$debs"/${dbg}_*.deb | sort -V | tail -1)
	echo "stock-6.1: downloaded in $(( $(date +%s) - t0 )) s"
	tmp=$(mktemp -d "$CACHE/stock61.XXXXXX")
	dpkg-deb -x "$imgdeb" "$tmp/img"
	cp "$tmp"/img/boot/vmlinuz-* "$out/vmlinuz"
	cp "$tmp"/img/boot/config-* "$out/config"
	rm -rf "$out/modules"
	mv "$tmp"/img/lib/modules/* "$out/modules"
	dpkg-deb --fsys-tarfile "$dbgdeb" | tar -x -C "$tmp" --wildcards './usr/lib/debug/boot/vmlinux-*'
	mv "$tmp"/usr/lib/debug/boot/vmlinux-* "$out/vmlinux"
	rm -rf "$tmp"
	{
		dpkg-deb -f "$imgdeb" Package Version | paste -sd' '
		dpkg-deb -f "$dbgdeb" Package Version | paste -sd' '
	} | sed 's/Package: //; s/ Version: / /' > "$out/VERSION"
	echo "stock-6.1: $(head -1 "$out/VERSION") in $out ($(( $(date +%s) - t0 )) s)"
fi
[ $fetch_only = 1 ] && exit 0

# Stock Debian ships KASLR on: no nokaslr, VMCOREINFO gives KERNELOFFSET.
# The nine pmem namespaces only: the committed 6.1 images were made before
# the standard layout gained the HMM and NVMe devices, whose drivers are
# modules this guest does not load.
for b in $boots; do
	"$here/../prove/capture.sh" "$out" "6.1-stock-b$b" --kaslr --stock --dump-level 31 --layout pmem-only
done
