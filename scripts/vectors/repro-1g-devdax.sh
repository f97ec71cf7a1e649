#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reproduce FINDINGS 2 and 4 (1 GiB device-dax whose compound pages are not
# naturally aligned) in one QEMU TCG guest with a single 1 GiB devdax
# namespace, dump it, and say where the guest's write to offset 0 of
# /dev/dax landed.
#
# usage: scripts/vectors/repro-1g-devdax.sh KERNEL_DIR IMAGE_NAME GEOMETRY
#   KERNEL_DIR  $CACHE/kernels/<kver>-<variant> (bzImage, vmlinux)
#   GEOMETRY    misaligned  layout dax1g-misaligned: namespace at 0x3f000000,
#                           pgmap range 0x3f000-0x80000, data at 0x40000,
#                           range start not 128 MiB aligned (FINDINGS 2)
#               section     layout dax1g-section: namespace at 0x48000000,
#                           pgmap range 0x48000-0xc0000 (section aligned, not
#                           1 GiB aligned), data at 0x80000 (FINDINGS 4)
# scripts/prove/capture.sh boots the guest (scripts/prove/guest/layouts/dax1g-*.sh),
# dumps it and writes $CACHE/images/IMAGE_NAME.{kdump,console.log,meta}
# with makedumpfile -c -d 1: zlib, which scripts/oracle/physmem.py reads, and only
# zero pages left out, since a write through a wrong mapping may land in a
# free RAM page (the layouts boot with init_on_free=1, so free pages are zero
# and the dump stays small).  Then prints the physical address(es) where
# daxtouch's pattern ("memmapcheck /dev/daxN.0 +0", written at offset 0 of
# the device) is found in the dump, and the namespace's data start.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
PY=/usr/bin/python3
[ $# -eq 3 ] || { sed -n '3,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
kdir=$1 image=$2 geom=$3
case $geom in
misaligned) data=0x40000000 ;;
section) data=0x80000000 ;;
*) echo "repro: GEOMETRY is misaligned or section" >&2; exit 2 ;;
esac
"$here/../prove/capture.sh" "$kdir" "$image" --layout "dax1g-$geom" --dump-level 1 --compress zlib
out=$CACHE/images/$image.kdump
log=$CACHE/images/$image.console.log
echo "data=$data" >> "$CACHE/images/$image.meta"
echo "repro $image: $out"
grep -a -e 'WARNING:' -e 'daxtouch' -e 'mmc-init: setup status' "$log" | sed 's/^/  console: /' || true
echo "  namespace data starts at $data"
where=$("$PY" "$here/../oracle/physmem.py" search "$out" "memmapcheck /dev/dax" || true)
for a in $where; do
	echo "  daxtouch pattern at $a: $("$PY" "$here/../oracle/physmem.py" text "$out" "$a")"
done
[ -n "$where" ] || echo "  daxtouch pattern: nowhere in the dump (the fault failed)"
