#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A large image for `make bench`: a QEMU guest of the 6.12 base kernel with
# 10 GiB of pmem in two namespaces (8 GiB devdax 2M map=mem, 2 GiB devdax 4K
# map=dev: 2.6 M struct pages; scripts/prove/guest/layouts/bench.sh), dumped as a
# raw QEMU ELF (13 GB) into $CACHE/images/bench-6.12-base.elf, so the
# benchmark reads a page-cached ELF.
# usage: scripts/bench/bench-image.sh [KERNEL_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
. "$here/../prove/guest/layout.sh"
. "$here/../prove/lib-qemu.sh"
kdir=${1:-$CACHE/kernels/6.12-base}
out=$CACHE/images/bench-$(basename "$kdir").elf
[ -s "$out" ] && { echo "bench-image: $out exists"; exit 0; }
mmc_layout_load bench || exit 2
work=$(mktemp -d "$CACHE/images/.bench.XXXXXX")
cleanup() { mmc_qemu_stop; rm -rf "$work"; }
trap cleanup EXIT

initrd=$work/initrd.cpio.gz
"$here/../prove/guest/build-initramfs.sh" -o "$initrd" >/dev/null 2>&1
cmdline="nokaslr console=ttyS0 panic=-1 $MMC_GUEST_ARGS mmc.mode=normal mmc.rebind=$MMC_REBIND"
mmc_qemu_start -k "$kdir/bzImage" -i "$initrd" -a "$cmdline" -l "$work/console.log" \
	-q "$work/qmp.sock" -o "$work/qemu.out" "${MMC_QEMU_OPTS[@]}"
rc=0
mmc_qemu_wait 600 MEMMAPCHECK-READY 'Kernel panic|MEMMAPCHECK-FAILED' || rc=$?
if [ $rc != 0 ]; then
	echo "bench-image: guest not ready: $(mmc_qemu_why $rc)" >&2
	mmc_qemu_tail 20
	exit 1
fi
mmc_qemu_dump "$out.tmp" elf || { rm -f "$out.tmp"; exit 1; }
mmc_qemu_quit
mv "$out.tmp" "$out"
echo "bench-image: $out ($(du -h "$out" | cut -f1))"
