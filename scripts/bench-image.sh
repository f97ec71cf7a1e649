#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A large image for `make bench`: a QEMU guest of the 6.12 base kernel with
# 10 GiB of pmem in two namespaces (8 GiB devdax 2M map=mem, 2 GiB devdax 4K
# map=dev: 2.6 M struct pages), dumped as a raw QEMU ELF (13 GB) into
# $CACHE/images/bench-6.12-base.elf, so the benchmark reads a page-cached ELF.
# usage: scripts/bench-image.sh [KERNEL_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
kdir=${1:-$CACHE/kernels/6.12-base}
out=$CACHE/images/bench-$(basename "$kdir").elf
[ -s "$out" ] && { echo "bench-image: $out exists"; exit 0; }
work=$(mktemp -d "$CACHE/images/.bench.XXXXXX")
qpid=
cleanup() { [ -n "$qpid" ] && kill "$qpid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

initrd=$work/initrd.cpio.gz
"$here/guest/build-initramfs.sh" -o "$initrd" >/dev/null 2>&1
# pc machine: 3 GiB below 4 GiB, the rest from 4 GiB up; pmem at 4 and 12 GiB
ns="0x100000000:devdax:2M:mem,0x300000000:devdax:4K:dev"
cmdline="nokaslr no_timer_check console=ttyS0 panic=-1 memmap=8G!4G,2G!12G mmc.mode=normal mmc.rebind=1 mmc.ns=$ns"
log=$work/console.log sock=$work/qmp.sock
nice -n 5 qemu-system-x86_64 -M pc,memory-backend=m0 -accel tcg -cpu max,la57=off -smp 1 \
	-object memory-backend-ram,id=m0,size=13G,reserve=off -m 13G \
	-nodefaults -display none -no-reboot -kernel "$kdir/bzImage" -initrd "$initrd" \
	-append "$cmdline" -serial "file:$log" -qmp "unix:$sock,server=on,wait=off" \
	-device vmcoreinfo > "$work/qemu.out" 2>&1 &
qpid=$!
for _ in $(seq 600); do
	grep -q MEMMAPCHECK-READY "$log" 2>/dev/null && break
	kill -0 $qpid 2>/dev/null || { tail -20 "$log" >&2; exit 1; }
	sleep 1
done
grep -q MEMMAPCHECK-READY "$log" || { echo "bench-image: guest not ready" >&2; tail -20 "$log" >&2; exit 1; }
/usr/bin/python3 - "$sock" "$out.tmp" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
def cmd(c):
    f.write(json.dumps(c) + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r: return r["return"]
        if "error" in r: sys.exit("QMP error: %s" % r["error"])
json.loads(f.readline())
cmd({"execute": "qmp_capabilities"})
cmd({"execute": "dump-guest-memory", "arguments": {"paging": False, "protocol": "file:" + sys.argv[2], "format": "elf"}})
try:
    cmd({"execute": "quit"})
except Exception:
    pass
PY
wait $qpid 2>/dev/null || true
qpid=
mv "$out.tmp" "$out"
echo "bench-image: $out ($(du -h "$out" | cut -f1))"
