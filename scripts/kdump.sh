#!/bin/bash
# A real in-guest kdump of one test kernel: the guest boots with crashkernel=,
# sets up the same pmem namespaces as capture.sh, loads the same bzImage and
# initramfs with `kexec -p`, crashes itself with sysrq-c; the capture kernel's
# /init copies /proc/vmcore to a raw virtio disk. The host cuts the vmcore out
# of the disk and reduces it with makedumpfile to $CACHE/images/<IMAGE>.kdump.
# Such a vmcore holds System RAM only: map=dev struct pages (in pmem) are absent.
#
# usage: scripts/kdump.sh KERNEL_DIR [IMAGE_NAME] [options]
#   IMAGE_NAME      default <basename KERNEL_DIR>-kdump, e.g. 6.12-base-kdump
#   --crashkernel S crashkernel= size (default 128M)
#   --rebind N      driver rebind rounds (default 3)
#   --boot-mb M     as in capture.sh (default 320)
#   --no-1g         leave out the 1 GiB devdax region
#   --keep-vmcore   keep the ELF vmcore as $CACHE/images/<IMAGE>.elf
#   --dump-level L  makedumpfile -d (default 23: 1.7.2 -d 31 drops 6.12+ slab)
#   --timeout S     seconds for the whole run (default 600)
# The kernel needs KEXEC, CRASH_DUMP, PROC_VMCORE, VIRTIO_BLK (built in).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
. "$here/guest/layout.sh"

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
kdir=$1; shift
kdir_arg='$CACHE/kernels/'$(basename "$kdir")
image=$(basename "$kdir")-kdump
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then image=$1; shift; fi
opts_arg="$*"
ck=128M rebind=3 boot_mb=320 with1g=1 keep=0 level=23 timeout=600
while [ $# -gt 0 ]; do
	case $1 in
	--crashkernel) ck=$2; shift ;;
	--rebind) rebind=$2; shift ;;
	--boot-mb) boot_mb=$2; shift ;;
	--no-1g) with1g=0 ;;
	--keep-vmcore) keep=1 ;;
	--dump-level) level=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	*) usage ;;
	esac
	shift
done
kernel=$kdir/bzImage
[ -f "$kernel" ] && [ -f "$kdir/vmlinux" ] || { echo "kdump: need bzImage and vmlinux in $kdir" >&2; exit 2; }

T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
mkdir -p "$CACHE/images" "$CACHE/initramfs"
work=$(mktemp -d "$CACHE/images/.kdump-$image.XXXXXX")
qpid=
cleanup() { [ -n "$qpid" ] && kill "$qpid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

initrd=$CACHE/initramfs/$(basename "$kdir")-kdump.cpio.gz
"$here/guest/build-initramfs.sh" -o "$initrd" --kdump "$kernel" 2>/dev/null

mmc_layout "$boot_mb" "$with1g"
cmdline="nokaslr console=ttyS0 panic=-1 crashkernel=$ck $MMC_MEMMAP mmc.mode=kdump mmc.rebind=$rebind mmc.ns=$MMC_NS"
disk=$work/vmcore.disk
truncate -s "$(( MMC_RAM_MB + 256 ))M" "$disk"
log=$work/console.log
echo "kdump $image: $kernel, RAM ${MMC_RAM_MB} MiB, crashkernel=$ck"
nice -n 5 qemu-system-x86_64 -M pc -accel tcg -cpu max,la57=off -smp 1 -m "${MMC_RAM_MB}M" \
	-nodefaults -display none -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-drive "file=$disk,format=raw,if=virtio,cache=unsafe" \
	-serial "file:$log" -device vmcoreinfo > "$work/qemu.out" 2>&1 &
qpid=$!
deadline=$(( $(date +%s) + timeout ))
t_ready=
while kill -0 $qpid 2>/dev/null; do
	[ -z "$t_ready" ] && grep -q MEMMAPCHECK-READY "$log" 2>/dev/null && { t_ready=$(elapsed); echo "kdump $image: first kernel ready at $t_ready s, crashing"; }
	grep -q -e MEMMAPCHECK-VMCORE-SAVED -e MEMMAPCHECK-VMCORE-FAILED -e MEMMAPCHECK-FAILED "$log" 2>/dev/null && break
	if [ "$(date +%s)" -ge $deadline ]; then
		echo "kdump $image: timeout after $timeout s; console tail:" >&2; tail -30 "$log" >&2
		cp "$log" "$CACHE/images/$image.console.log"; exit 1
	fi
	sleep 1
done
# the capture kernel powers off by itself after the copy
for _ in $(seq 20); do kill -0 $qpid 2>/dev/null || break; sleep 0.5; done
kill $qpid 2>/dev/null || true; wait $qpid 2>/dev/null || true; qpid=
cp "$log" "$CACHE/images/$image.console.log"
line=$(grep -a MEMMAPCHECK-VMCORE-SAVED "$log" | tail -1) || true
if [ -z "$line" ]; then
	echo "kdump $image: the capture kernel saved no vmcore; console tail:" >&2; tail -30 "$log" >&2; exit 1
fi
size=$(echo "$line" | awk '{print $2}')
t_saved=$(elapsed)
vmcore=$work/vmcore.elf
head -c "$size" "$disk" > "$vmcore"
rm -f "$disk"
out=$CACHE/images/$image.kdump
rm -f "$out"
makedumpfile -l -d "$level" "$vmcore" "$out" > "$work/mdf.log" 2>&1 ||
	makedumpfile -l -d "$level" -x "$kdir/vmlinux" "$vmcore" "$out" > "$work/mdf.log" 2>&1 ||
	{ cat "$work/mdf.log" >&2; echo "kdump $image: makedumpfile failed" >&2; exit 1; }
[ $keep = 1 ] && mv "$vmcore" "$CACHE/images/$image.elf"
echo "kdump $image: ready ${t_ready:-?} s, vmcore ($size bytes) saved at $t_saved s, done $(elapsed) s"
echo "kdump $image: $out $(stat -c %s "$out") bytes"
{
	echo "image=$image"
	echo "command=scripts/kdump.sh $kdir_arg $image $opts_arg"
	echo "kernel_dir=$kdir"
	echo "kernel=$(grep -a -m1 -o 'Linux version [^ ]*' "$log" | awk '{print $3}')"
	echo "kaslr=0"
	echo "boot=kdump"
	echo "rebind=$rebind"
	echo "ram_mb=$MMC_RAM_MB"
	echo "dump_level=$level"
	echo "ns=$MMC_NS"
	echo "source=kdump /proc/vmcore (System RAM only: map=dev struct pages absent)"
} > "$CACHE/images/$image.meta"
[ -n "${MEMMAPCHECK_STATUS:-}" ] && echo "$image $out" >> "$MEMMAPCHECK_STATUS"
exit 0
