#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot a test guest under QEMU TCG, wait for its /init to print MEMMAPCHECK-READY,
# dump it with QMP dump-guest-memory (ELF, paging=false), repair QEMU 7.2's ELF
# header and reduce it with makedumpfile to $CACHE/images/<IMAGE>.kdump.
#
# usage: scripts/prove/capture.sh KERNEL_DIR IMAGE_NAME [options]
#   KERNEL_DIR   holds bzImage (or vmlinuz) and vmlinux; a modules/ dir makes it a
#                modular (stock) kernel whose modules go into the initramfs
#   --layout L     guest layout: a name in scripts/prove/guest/layouts/ or a file
#                  (default standard; doc/GUEST-LAYOUTS.md)
#   --la57         5-level paging CPU (QEMU -cpu max with la57)
#   --kaslr        do not pass nokaslr (KASLR kernels, Debian's stock kernel)
#   --keep-elf     keep the raw QEMU ELF as $CACHE/images/<IMAGE>.elf
#   --rebind N     driver unbind/rebind rounds in the guest (default: the layout's, 3)
#   --boot-mb M    standard layout: boot RAM below the first pmem region, 64 mod 128 (default 320)
#   --no-1g        standard layout: leave out the 1 GiB devdax region
#   --dump-level L makedumpfile -d (default 23: 1.7.2 -d 31 drops 6.12+ slab)
#   --compress C   makedumpfile page compression: lzo (default, -l) or zlib (-c)
#   --kdump-zlib   dump in QEMU's flattened kdump-zlib format and turn it into a
#                  kdump file with makedumpfile -R (unfiltered, zlib): for guests
#                  whose ELF would not fit on the disk (tens of GiB of pmem)
#   --timeout S    seconds to wait for the READY marker (default 420)
#   --append STR   more kernel parameters
# Environment: MEMMAPCHECK_CACHE (default ~/.cache/memmapcheck),
#   MEMMAPCHECK_STATUS: a file to which "<IMAGE> <path>" is appended on success.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
PY=/usr/bin/python3
. "$here/guest/layout.sh"
. "$here/lib-qemu.sh"

usage() { sed -n '3,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
kdir=$1 image=$2; shift 2
kdir_arg='$CACHE/kernels/'$(basename "$kdir") opts_arg="$*"
mdf_c=-l
kaslr=0 keep_elf=0 rebind= level=23 timeout=420 append= layout=standard la57=0 zlib=0
while [ $# -gt 0 ]; do
	case $1 in
	--layout) layout=$2; shift ;;
	--la57) la57=1 ;;
	--kaslr) kaslr=1 ;;
	--stock) ;;  # implied by KERNEL_DIR/modules
	--keep-elf) keep_elf=1 ;;
	--rebind) rebind=$2; shift ;;
	--boot-mb) export MMC_BOOT_MB=$2; shift ;;
	--no-1g) export MMC_WITH_1G=0 ;;
	--dump-level) level=$2; shift ;;
	--compress)
		case $2 in lzo) mdf_c=-l ;; zlib) mdf_c=-c ;; *) usage ;; esac
		shift ;;
	--kdump-zlib) zlib=1 ;;
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
mmc_layout_load "$layout" || exit 2
rebind=${rebind:-$MMC_REBIND}

T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
mkdir -p "$CACHE/images" "$CACHE/initramfs"
work=$(mktemp -d "$CACHE/images/.capture-$image.XXXXXX")
cleanup() { mmc_qemu_stop; rm -rf "$work"; }
trap cleanup EXIT

# initramfs (a few seconds; rebuilt each time so it always matches scripts/prove/guest)
initrd=$CACHE/initramfs/$(basename "$kdir").cpio.gz
if [ -d "$kdir/modules" ]; then
	"$here/guest/build-initramfs.sh" -o "$initrd" --modules "$kdir/modules" 2>/dev/null
else
	"$here/guest/build-initramfs.sh" -o "$initrd" 2>/dev/null
fi

cmdline="console=ttyS0 panic=-1 $MMC_GUEST_ARGS mmc.mode=normal mmc.rebind=$rebind"
[ $kaslr = 1 ] || cmdline="nokaslr $cmdline"
[ -n "$append" ] && cmdline="$cmdline $append"
qopts=("${MMC_QEMU_OPTS[@]}")
[ $la57 = 1 ] && qopts=(--la57 "${qopts[@]}")

log=$work/console.log
echo "capture $image: $kernel, layout $MMC_LAYOUT, RAM ${MMC_RAM_MB} MiB, $(echo "$MMC_NS" | tr ',' '\n' | grep -c .) pmem regions, workloads $MMC_WORK$([ $la57 = 1 ] && echo ", 5-level paging")"
mmc_qemu_start -k "$kernel" -i "$initrd" -a "$cmdline" -l "$log" -q "$work/qmp.sock" -o "$work/qemu.out" "${qopts[@]}"

failed() {
	echo "capture $image: $1; console tail:" >&2
	mmc_qemu_tail 30
	cp "$log" "$CACHE/images/$image.console.log"
	exit 1
}
rc=0
plugged=
if [ ${#MMC_HOTPLUG[@]} -gt 0 ]; then
	# The layout's pc-dimms are plugged when the guest's hotplug workload
	# asks (after the workloads before it, so that those never see the
	# memory); a guest that reaches READY without asking gets none.
	mmc_qemu_wait "$timeout" 'MEMMAPCHECK-HOTPLUG-WAIT|MEMMAPCHECK-READY' 'Kernel panic|MEMMAPCHECK-FAILED' || rc=$?
	if [ $rc = 0 ] && grep -q -a MEMMAPCHECK-HOTPLUG-WAIT "$log"; then
		n=0
		for d in "${MMC_HOTPLUG[@]}"; do
			mmc_qemu_hotplug "${d%%:*}" "${d#*:}" $n || failed "QMP hot-plug of a pc-dimm ($d MiB) failed"
			plugged+="${plugged:+,}$(printf '0x%x' $(( ${d%%:*} << 20 ))):${d#*:}M"
			n=$((n + 1))
		done
		echo "capture $image: plugged pc-dimm $plugged at $(elapsed) s"
	fi
fi
[ $rc = 0 ] && { mmc_qemu_wait "$timeout" MEMMAPCHECK-READY 'Kernel panic|MEMMAPCHECK-FAILED' || rc=$?; }
case $rc in
0) ;;
2) failed "QEMU exited before MEMMAPCHECK-READY" ;;
3) failed "no MEMMAPCHECK-READY within $timeout s" ;;
*) failed "guest failed" ;;
esac
t_ready=$(elapsed)
sleep 1   # let the guest reach its idle loop
grep -q -a 'MEMMAPCHECK-READY status=0' "$log" || echo "capture $image: WARNING: guest setup reported failures (see console log)" >&2

# written in the private work dir and renamed into place at the end: two
# captures of one image at once (two memmapcheck-prove runs of one kernel)
# each finish with a whole file, never one makedumpfile refuses to overwrite
out=$CACHE/images/$image.kdump
final=$out
out=$work/$image.kdump
if [ $zlib = 1 ]; then
	# QEMU's kdump-zlib output is the flattened format (libkdumpfile:
	# "Unknown file format"): makedumpfile -R rearranges it.
	flat=$work/$image.flat
	mmc_qemu_dump "$flat" kdump-zlib || failed "QMP dump-guest-memory failed"
	t_dump=$(elapsed)
	mmc_qemu_quit
	cp "$log" "$CACHE/images/$image.console.log"
	[ -s "$work/qemu.out" ] && cp "$work/qemu.out" "$CACHE/images/$image.qemu.log"
	makedumpfile -R "$out" < "$flat" > "$work/mdf.log" 2>&1 ||
		{ cat "$work/mdf.log" >&2; echo "capture $image: makedumpfile -R failed" >&2; exit 1; }
	t_mdf=$(elapsed)
	echo "capture $image: ready $t_ready s, dumped $t_dump s (kdump-zlib, flattened $(stat -c %s "$flat") bytes), makedumpfile -R done $t_mdf s"
	rm -f "$flat"
	level=none
else
	elf=$work/$image.elf
	[ $keep_elf = 1 ] && elf=$CACHE/images/$image.elf
	mmc_qemu_dump "$elf" elf || failed "QMP dump-guest-memory failed"
	t_dump=$(elapsed)
	mmc_qemu_quit
	cp "$log" "$CACHE/images/$image.console.log"
	[ -s "$work/qemu.out" ] && cp "$work/qemu.out" "$CACHE/images/$image.qemu.log"

	"$PY" "$here/fix-qemu-elf.py" "$elf"
	# VMCOREINFO (from -device vmcoreinfo + the guest's fw_cfg driver) is enough for
	# makedumpfile and far quicker than reading a debug vmlinux; -x only without it.
	mdf_x=
	readelf -n "$elf" 2>/dev/null | grep VMCOREINFO >/dev/null || { mdf_x="-x $vmlinux"; echo "capture $image: no VMCOREINFO note, using -x vmlinux" >&2; }
	makedumpfile "$mdf_c" -d "$level" $mdf_x "$elf" "$out" > "$work/mdf.log" 2>&1 ||
		{ cat "$work/mdf.log" >&2; echo "capture $image: makedumpfile failed" >&2; exit 1; }
	t_mdf=$(elapsed)
	echo "capture $image: ready $t_ready s, dumped $t_dump s (ELF $(stat -c %s "$elf") bytes), makedumpfile done $t_mdf s"
fi
mv -f "$out" "$final"
out=$final
echo "capture $image: $out $(stat -c %s "$out") bytes"
{
	echo "image=$image"
	echo "command=scripts/prove/capture.sh $kdir_arg $image $opts_arg"
	echo "kernel_dir=$kdir"
	echo "kernel=$(grep -a -m1 -o 'Linux version [^ ]*' "$log" | awk '{print $3}')"
	[ -f "$kdir/VERSION" ] && echo "package=$(head -1 "$kdir/VERSION")"
	echo "kaslr=$kaslr"
	echo "la57=$la57"
	echo "boot=$(echo "$image" | sed -n 's/.*-b\([0-9]*\)$/\1/p')"
	echo "rebind=$rebind"
	echo "layout=$MMC_LAYOUT"
	echo "ram_mb=$MMC_RAM_MB"
	echo "dump_level=$level"
	echo "ns=$MMC_NS"
	echo "work=$MMC_WORK"
	echo "kernel_args=$MMC_KARGS"
	[ -z "$plugged" ] || echo "hotplug=$plugged"
	echo "source=qemu-$([ $zlib = 1 ] && echo kdump-zlib || echo elf)"
} > "$CACHE/images/$image.meta"
[ -n "${MEMMAPCHECK_STATUS:-}" ] && echo "$image $out" >> "$MEMMAPCHECK_STATUS"
exit 0
