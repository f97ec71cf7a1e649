#!/bin/bash
# Boot a test guest under QEMU TCG, wait for its /init to print MEMMAPCHECK-READY,
# dump it with QMP dump-guest-memory (ELF, paging=false), repair QEMU 7.2's ELF
# header and reduce it with makedumpfile to $CACHE/images/<IMAGE>.kdump.
#
# usage: scripts/capture.sh KERNEL_DIR IMAGE_NAME [options]
#   KERNEL_DIR   holds bzImage (or vmlinuz) and vmlinux; a modules/ dir makes it a
#                modular (stock) kernel whose modules go into the initramfs
#   --kaslr        do not pass nokaslr (KASLR kernels, Debian's stock kernel)
#   --keep-elf     keep the raw QEMU ELF as $CACHE/images/<IMAGE>.elf
#   --rebind N     driver unbind/rebind rounds in the guest (default 3)
#   --boot-mb M    boot RAM below the first pmem region, 64 mod 128 (default 320)
#   --no-1g        leave out the 1 GiB devdax region
#   --dump-level L makedumpfile -d (default 23: 1.7.2 -d 31 drops 6.12+ slab)
#   --timeout S    seconds to wait for the READY marker (default 420)
#   --append STR   more kernel parameters
# Environment: MEMMAPCHECK_CACHE (default ~/.cache/memmapcheck),
#   MEMMAPCHECK_STATUS: a file to which "<IMAGE> <path>" is appended on success.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
PY=/usr/bin/python3
. "$here/guest/layout.sh"

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
kdir=$1 image=$2; shift 2
kdir_arg='$CACHE/kernels/'$(basename "$kdir") opts_arg="$*"
kaslr=0 keep_elf=0 rebind=3 boot_mb=320 with1g=1 level=23 timeout=420 append=
while [ $# -gt 0 ]; do
	case $1 in
	--kaslr) kaslr=1 ;;
	--stock) ;;  # implied by KERNEL_DIR/modules
	--keep-elf) keep_elf=1 ;;
	--rebind) rebind=$2; shift ;;
	--boot-mb) boot_mb=$2; shift ;;
	--no-1g) with1g=0 ;;
	--dump-level) level=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--append) append=$2; shift ;;
	*) usage ;;
	esac
	shift
done
kernel=$kdir/bzImage; [ -f "$kernel" ] || kernel=$kdir/vmlinuz
vmlinux=$kdir/vmlinux
[ -f "$kernel" ] || { echo "capture: no bzImage/vmlinuz in $kdir" >&2; exit 2; }
[ -f "$vmlinux" ] || { echo "capture: no vmlinux in $kdir" >&2; exit 2; }
for t in qemu-system-x86_64 makedumpfile; do
	command -v $t >/dev/null || { echo "capture: missing $t" >&2; exit 2; }
done

T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
mkdir -p "$CACHE/images" "$CACHE/initramfs"
work=$(mktemp -d "$CACHE/images/.capture-$image.XXXXXX")
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# initramfs (a few seconds; rebuilt each time so it always matches scripts/guest)
initrd=$CACHE/initramfs/$(basename "$kdir").cpio.gz
if [ -d "$kdir/modules" ]; then
	"$here/guest/build-initramfs.sh" -o "$initrd" --modules "$kdir/modules" 2>/dev/null
else
	"$here/guest/build-initramfs.sh" -o "$initrd" 2>/dev/null
fi

mmc_layout "$boot_mb" "$with1g"
cmdline="console=ttyS0 panic=-1 $MMC_MEMMAP mmc.mode=normal mmc.rebind=$rebind mmc.ns=$MMC_NS"
[ $kaslr = 1 ] || cmdline="nokaslr $cmdline"
[ -n "$append" ] && cmdline="$cmdline $append"

log=$work/console.log sock=$work/qmp.sock
echo "capture $image: $kernel, RAM ${MMC_RAM_MB} MiB, $(echo "$MMC_NS" | tr ',' '\n' | wc -l) pmem regions"
nice -n 5 qemu-system-x86_64 -M pc -accel tcg -cpu max,la57=off -smp 1 -m "${MMC_RAM_MB}M" \
	-nodefaults -display none -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-serial "file:$log" -qmp "unix:$sock,server=on,wait=off" \
	-device vmcoreinfo > "$work/qemu.out" 2>&1 &
qpid=$!

qmp() { # one QMP command (JSON) -> its return value on stdout
	"$PY" - "$sock" "$1" <<'PYEOF'
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
print(json.dumps(cmd(json.loads(sys.argv[2]))))
PYEOF
}

deadline=$(( $(date +%s) + timeout ))
while ! grep -q MEMMAPCHECK-READY "$log" 2>/dev/null; do
	if ! kill -0 $qpid 2>/dev/null; then
		echo "capture $image: QEMU exited before MEMMAPCHECK-READY; console tail:" >&2
		tail -30 "$log" >&2; cat "$work/qemu.out" >&2; cp "$log" "$CACHE/images/$image.console.log"; exit 1
	fi
	if grep -q -e 'Kernel panic' -e MEMMAPCHECK-FAILED "$log" 2>/dev/null; then
		echo "capture $image: guest failed; console tail:" >&2; tail -30 "$log" >&2
		cp "$log" "$CACHE/images/$image.console.log"; exit 1
	fi
	if [ "$(date +%s)" -ge $deadline ]; then
		echo "capture $image: no MEMMAPCHECK-READY within $timeout s; console tail:" >&2
		tail -30 "$log" >&2; cp "$log" "$CACHE/images/$image.console.log"; exit 1
	fi
	sleep 0.5
done
t_ready=$(elapsed)
sleep 1   # let the guest reach its idle loop
grep -q 'MEMMAPCHECK-READY status=0' "$log" || echo "capture $image: WARNING: guest setup reported failures (see console log)" >&2

elf=$work/$image.elf
[ $keep_elf = 1 ] && elf=$CACHE/images/$image.elf
qmp '{"execute":"dump-guest-memory","arguments":{"paging":false,"protocol":"file:'"$elf"'","format":"elf"}}' >/dev/null
t_dump=$(elapsed)
qmp '{"execute":"quit"}' >/dev/null 2>&1 || true
wait $qpid 2>/dev/null || true
qpid=
cp "$log" "$CACHE/images/$image.console.log"
[ -s "$work/qemu.out" ] && cp "$work/qemu.out" "$CACHE/images/$image.qemu.log"

"$PY" "$here/fix-qemu-elf.py" "$elf"
out=$CACHE/images/$image.kdump
rm -f "$out"
# VMCOREINFO (from -device vmcoreinfo + the guest's fw_cfg driver) is enough for
# makedumpfile and far quicker than reading a debug vmlinux; -x only without it.
mdf_x=
readelf -n "$elf" 2>/dev/null | grep -q VMCOREINFO || { mdf_x="-x $vmlinux"; echo "capture $image: no VMCOREINFO note, using -x vmlinux" >&2; }
makedumpfile -l -d "$level" $mdf_x "$elf" "$out" > "$work/mdf.log" 2>&1 ||
	{ cat "$work/mdf.log" >&2; echo "capture $image: makedumpfile failed" >&2; exit 1; }
t_mdf=$(elapsed)
echo "capture $image: ready $t_ready s, dumped $t_dump s (ELF $(stat -c %s "$elf") bytes), makedumpfile done $t_mdf s"
echo "capture $image: $out $(stat -c %s "$out") bytes"
{
	echo "image=$image"
	echo "command=scripts/capture.sh $kdir_arg $image $opts_arg"
	echo "kernel_dir=$kdir"
	echo "kernel=$(grep -a -m1 -o 'Linux version [^ ]*' "$log" | awk '{print $3}')"
	[ -f "$kdir/VERSION" ] && echo "package=$(head -1 "$kdir/VERSION")"
	echo "kaslr=$kaslr"
	echo "boot=$(echo "$image" | sed -n 's/.*-b\([0-9]*\)$/\1/p')"
	echo "rebind=$rebind"
	echo "ram_mb=$MMC_RAM_MB"
	echo "dump_level=$level"
	echo "ns=$MMC_NS"
	echo "source=qemu-elf"
} > "$CACHE/images/$image.meta"
[ -n "${MEMMAPCHECK_STATUS:-}" ] && echo "$image $out" >> "$MEMMAPCHECK_STATUS"
exit 0
