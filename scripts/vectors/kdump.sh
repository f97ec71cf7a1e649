#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A real in-guest kdump of one test kernel: the guest boots with crashkernel=,
# sets up the same pmem namespaces as capture.sh, loads the same bzImage and
# initramfs with `kexec -p`, crashes itself with sysrq-c; the capture kernel's
# /init copies /proc/vmcore to a raw virtio disk. The host cuts the vmcore out
# of the disk and reduces it with makedumpfile to $CACHE/images/<IMAGE>.kdump.
# Such a vmcore holds System RAM only: map=dev struct pages (in pmem) are absent.
#
# usage: scripts/vectors/kdump.sh KERNEL_DIR [IMAGE_NAME] [options]
#   IMAGE_NAME      default <basename KERNEL_DIR>-kdump, e.g. 6.12-base-kdump
#   --layout L      guest layout, as in capture.sh (default standard)
#   --crashkernel S crashkernel= size (default 128M)
#   --rebind N      driver rebind rounds (default: the layout's, 3)
#   --boot-mb M     as in capture.sh (default 320)
#   --no-1g         leave out the 1 GiB devdax region
#   --keep-vmcore   keep the ELF vmcore as $CACHE/images/<IMAGE>.elf
#   --dump-level L  makedumpfile -d (default 23: 1.7.2 -d 31 drops 6.12+ slab)
#   --timeout S     seconds for the whole run (default 600)
#   --kexec-append A extra capture-kernel parameters (e.g. noapic: under TCG the
#                   capture kernel's IO-APIC timer check panicked once)
# The kernel needs KEXEC, CRASH_DUMP, PROC_VMCORE, VIRTIO_BLK (built in).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
. "$here/../prove/guest/layout.sh"
. "$here/../prove/lib-qemu.sh"

usage() { sed -n '3,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
kdir=$1; shift
kdir_arg='$CACHE/kernels/'$(basename "$kdir")
image=$(basename "$kdir")-kdump
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then image=$1; shift; fi
opts_arg="$*"
ck=128M rebind= keep=0 level=23 timeout=600 layout=standard kexec_append=
while [ $# -gt 0 ]; do
	case $1 in
	--layout) layout=$2; shift ;;
	--crashkernel) ck=$2; shift ;;
	--rebind) rebind=$2; shift ;;
	--boot-mb) export MMC_BOOT_MB=$2; shift ;;
	--no-1g) export MMC_WITH_1G=0 ;;
	--keep-vmcore) keep=1 ;;
	--dump-level) level=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--kexec-append) kexec_append=$2; shift ;;
	*) usage ;;
	esac
	shift
done
kernel=$kdir/bzImage
[ -f "$kernel" ] && [ -f "$kdir/vmlinux" ] || { echo "kdump: need bzImage and vmlinux in $kdir" >&2; exit 2; }
mmc_layout_load "$layout" || exit 2
rebind=${rebind:-$MMC_REBIND}

T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
mkdir -p "$CACHE/images" "$CACHE/initramfs"
work=$(mktemp -d "$CACHE/images/.kdump-$image.XXXXXX")
cleanup() { mmc_qemu_stop; rm -rf "$work"; }
trap cleanup EXIT

initrd=$CACHE/initramfs/$(basename "$kdir")-kdump.cpio.gz
"$here/../prove/guest/build-initramfs.sh" -o "$initrd" --kdump "$kernel" 2>/dev/null

cmdline="nokaslr console=ttyS0 panic=-1 crashkernel=$ck $MMC_GUEST_ARGS mmc.mode=kdump mmc.rebind=$rebind"
[ -n "$kexec_append" ] && cmdline+=" mmc.kexec_append=$(echo "$kexec_append" | tr ' ' +)"
disk=$work/vmcore.disk
truncate -s "$(( MMC_RAM_MB + 256 ))M" "$disk"
log=$work/console.log
echo "kdump $image: $kernel, layout $MMC_LAYOUT, RAM ${MMC_RAM_MB} MiB, crashkernel=$ck"
mmc_qemu_start -k "$kernel" -i "$initrd" -a "$cmdline" -l "$log" -o "$work/qemu.out" "${MMC_QEMU_OPTS[@]}" \
	-- -drive "file=$disk,format=raw,if=virtio,cache=unsafe"
deadline=$(( $(date +%s) + timeout ))
# The first kernel sets up, loads the capture kernel and crashes itself
# (its "Kernel panic" is expected); the capture kernel saves /proc/vmcore to
# the disk and powers off.
rc=0 t_ready=
mmc_qemu_wait "$timeout" MEMMAPCHECK-READY MEMMAPCHECK-FAILED || rc=$?
if [ $rc = 0 ]; then
	t_ready=$(elapsed)
	echo "kdump $image: first kernel ready at $t_ready s, crashing"
	rc=0
	mmc_qemu_wait $(( deadline - $(date +%s) )) 'MEMMAPCHECK-VMCORE-SAVED|MEMMAPCHECK-VMCORE-FAILED' MEMMAPCHECK-FAILED || rc=$?
fi
if [ $rc = 3 ]; then
	echo "kdump $image: timeout after $timeout s; console tail:" >&2; mmc_qemu_tail 30
	cp "$log" "$CACHE/images/$image.console.log"; exit 1
fi
# the capture kernel powers off by itself after the copy
mmc_qemu_wait_exit 10 || true
mmc_qemu_stop
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
	echo "command=scripts/vectors/kdump.sh $kdir_arg $image $opts_arg"
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
