#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Images at the seeds' scale for `make bench` (scripts/bench/bench.sh): QEMU guests
# of one kernel with ONE pmem namespace of N GiB in one mode, rebound once,
# dumped through QMP and written into $CACHE/large/ (never into the tree):
#
#   <kver>-<variant>-<mode>-<N>g.zlib.kdump    QMP kdump-zlib, `makedumpfile -R`
#   <kver>-<variant>-<mode>-<N>g.lzo.kdump     makedumpfile -l of the zlib one
#   <kver>-<variant>-<mode>-<N>g.zstd.kdump    makedumpfile -z  } only with
#   <kver>-<variant>-<mode>-<N>g.snappy.kdump  makedumpfile -p  } --mdf-zstd
#   <kver>-<variant>-<mode>-<N>g.elf           QMP ELF (paging=false, header
#                                              repaired, zero blocks punched out)
#   <kver>-<variant>-<mode>-<N>g.meta          how it was made, and how long each step took
#
# modes: devdax2m-mem, devdax2m-dev (devdax 2M map=mem / map=dev), fsdax
# (fsdax 2M map=mem, ext2 -o dax), devdax1g (devdax 1G map=mem: N 1 GiB pages,
# the region 16 MiB before a 1 GiB boundary: the pgmap range is not section
# aligned, FINDINGS 2's corrupted tails in every compound page),
# devdax1g-aligned (the same, the region 1 GiB aligned: N + 1 GiB, N 1 GiB
# pages of data, healthy struct pages);
# hugetlb1g: no pmem; N 1 GiB HugeTLB pages reserved at boot with the vmemmap
# optimisation on (hugepagesz=1G hugepages=N hugetlb_free_vmemmap=on), free in
# their pool, in a guest of N + 4 GiB; needs a kernel built with --hvo (e.g.
# --kernel $CACHE/kernels/6.12-base-hvo);
# pair: two namespaces of N/2 GiB, devdax 2M map=mem and map=dev (the layout
# of the earlier 100 GiB measurement), for a base/template comparison: made
# for --kernel and for --template (default: the --kernel dir with -base
# replaced by -template, if it exists), e.g. 6.12-base-pair-100g and
# 6.12-template-pair-100g, which `make bench` compares.
#
# usage: scripts/bench/large-images.sh [options]
#   --kernel DIR      kernel dir (bzImage, vmlinux); default $CACHE/kernels/6.12-base
#   --template DIR    the other kernel of mode pair (see above; "none": only --kernel)
#   --sizes "1 10 100"           namespace sizes in GiB
#   --modes "devdax2m-mem devdax2m-dev fsdax devdax1g"   (and/or: devdax1g-aligned, hugetlb1g, pair)
#   --elf-max N       also keep the ELF for sizes <= N GiB (default 10; disk!)
#   --mdf-zstd PATH   a makedumpfile built with zstd and snappy (Debian's 1.7.2
#                     has neither; see doc/BENCHMARKS.md): also write those copies
#   --copies LIST     makedumpfile copies to write (default "lzo zstd snappy";
#                     each takes 2 min per 10 GiB of guest here)
#   --force           remake images that exist
# Environment: MEMMAPCHECK_CACHE (default ~/.cache/memmapcheck).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
PY=/usr/bin/python3
OUT=$CACHE/large
# shellcheck source=lib-qemu.sh
. "$here/../prove/lib-qemu.sh"

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
kdir=$CACHE/kernels/6.12-base sizes="1 10 100" modes="devdax2m-mem devdax2m-dev fsdax devdax1g"
elf_max=10 mdf_zstd= force=0 copies="lzo zstd snappy" tkdir=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kdir=$2; shift ;;
	--template) tkdir=$2; shift ;;
	--sizes) sizes=$2; shift ;;
	--modes) modes=$2; shift ;;
	--elf-max) elf_max=$2; shift ;;
	--mdf-zstd) mdf_zstd=$2; shift ;;
	--copies) copies=$2; shift ;;
	--force) force=1 ;;
	*) usage ;;
	esac
	shift
done
[ -f "$kdir/bzImage" ] && [ -f "$kdir/vmlinux" ] || { echo "large-images: no bzImage/vmlinux in $kdir" >&2; exit 2; }
for t in qemu-system-x86_64 makedumpfile fallocate; do
	command -v $t >/dev/null || { echo "large-images: missing $t" >&2; exit 2; }
done
[ -z "$mdf_zstd" ] || [ -x "$mdf_zstd" ] || { echo "large-images: $mdf_zstd is not executable" >&2; exit 2; }
kname=$(basename "$kdir")
mkdir -p "$OUT"

work=$(mktemp -d "$OUT/.work.XXXXXX")
cleanup() { mmc_qemu_stop; rm -rf "$work"; }
trap cleanup EXIT
initrd=$work/initrd.cpio.gz
"$here/../prove/guest/build-initramfs.sh" -o "$initrd" >/dev/null 2>&1

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}'; }
G=$((1 << 30)) M=$((1 << 20))
hex() { printf '0x%x' "$1"; }

# layout MODE N -> memmap, ns, ram (GiB, QEMU -m).  The pc machine keeps 3 GiB
# below 4 GiB and puts the rest from 4 GiB up; pmem starts at 4 GiB and 1 GiB
# of RAM stays above it (QEMU puts the ACPI tables and the initrd at the top).
layout() {
	local mode=$1 n=$2 s
	kargs=
	case $mode in
	devdax2m-mem|devdax2m-dev|fsdax)
		local m=devdax map=${mode##*-}
		[ "$mode" = fsdax ] && m=fsdax map=mem
		memmap="${n}G!4G" ns="$(hex $((4 * G))):$m:2M:$map" ram=$((n + 4)) ;;
	hugetlb1g)
		# 3 GiB below 4 GiB, N + 1 above: room for N 1 GiB-aligned pages
		# beside what memblock takes from the top at boot (the memmap).
		# The pages are never touched: the host backs only the memmap.
		memmap= ns= ram=$((n + 4))
		kargs="hugetlb_free_vmemmap=on hugepagesz=1G hugepages=$n mmc.work=hugetlb mmc.hugetlb=none" ;;
	devdax1g)
		# the info block sits in the 16 MiB before a 1 GiB boundary, the
		# data then starts at that boundary: N + 1 GiB region, N 1 GiB
		# pages (as scripts/prove/guest/layout.sh does for its 1 GiB namespace)
		s=$((5 * G - 16 * M))
		memmap="$(( (n + 1) * 1024 ))M!$(hex $s)" ns="$(hex $s):devdax:1G:mem" ram=$((n + 6)) ;;
	devdax1g-aligned)
		memmap="$((n + 1))G!4G" ns="$(hex $((4 * G))):devdax:1G:mem" ram=$((n + 6)) ;;
	pair)
		local h=$((n / 2))
		memmap="${h}G!4G,${h}G!$(( 4 + h ))G"
		ns="$(hex $((4 * G))):devdax:2M:mem,$(hex $(( (4 + h) * G ))):devdax:2M:dev" ram=$((n + 4)) ;;
	*) echo "large-images: unknown mode $mode" >&2; exit 2 ;;
	esac
}

make_one() {
	local mode=$1 n=$2 name base log sock t0 t_ready elf= flat
	name=$kname-$mode-${n}g base=$OUT/$name
	if [ $force = 0 ] && [ -s "$base.zlib.kdump" ] && [ -s "$base.meta" ]; then
		echo "large-images: $name exists"; return 0
	fi
	layout "$mode" "$n"
	log=$work/console.log sock=$work/qmp.sock
	rm -f "$log" "$sock"
	local cmdline="nokaslr no_timer_check console=ttyS0 panic=-1${memmap:+ memmap=$memmap} mmc.mode=normal mmc.rebind=1 mmc.ns=$ns${kargs:+ $kargs}"
	echo "large-images: $name: -m ${ram}G, memmap=$memmap, mmc.ns=$ns${kargs:+, $kargs}"
	t0=$(now)
	mmc_qemu_start -k "$kdir/bzImage" -i "$initrd" -a "$cmdline" -l "$log" -q "$sock" \
		-o "$work/qemu.out" --ram "${ram}G" --huge
	local wrc=0
	mmc_qemu_wait 3600 MEMMAPCHECK-READY 'Kernel panic|MEMMAPCHECK-FAILED' || wrc=$?
	if [ $wrc != 0 ]; then
		echo "large-images: $name: guest not ready: $(mmc_qemu_why $wrc); console tail:" >&2
		mmc_qemu_tail 20
		cp "$log" "$base.console.log"; mmc_qemu_stop; return 1
	fi
	t_ready=$(since "$t0")
	grep -q 'MEMMAPCHECK-READY status=0' "$log" ||
		echo "large-images: $name: WARNING: guest setup reported failures (see $base.console.log)" >&2
	if [ "$mode" = hugetlb1g ] && ! grep -a -q "hugetlb: vmemmap optimisation .*1048576kB nr $n free $n;" "$log"; then
		echo "large-images: $name: the guest does not have $n free 1 GiB HugeTLB pages:" >&2
		grep -a -e 'mmc-init: hugetlb' -e 'HugeTLB' "$log" >&2 || true
		cp "$log" "$base.console.log"; mmc_qemu_stop; return 1
	fi
	sleep 1
	flat=$work/$name.flat
	local t_elf=- t_zlib t_r t_lzo=- t_zstd=- t_snappy=- t_holes=- t1
	if [ "$n" -le "$elf_max" ]; then
		elf=$base.elf
		t1=$(now)
		mmc_qemu_dump "$elf.tmp" elf || { echo "large-images: $name: ELF dump failed" >&2; return 1; }
		t_elf=$(since "$t1")
	fi
	t1=$(now)
	mmc_qemu_dump "$flat" kdump-zlib || { echo "large-images: $name: kdump-zlib dump failed" >&2; return 1; }
	t_zlib=$(since "$t1")
	mmc_qemu_quit
	cp "$log" "$base.console.log"

	t1=$(now)
	makedumpfile -R "$base.zlib.kdump.tmp" < "$flat" > "$work/mdf.log" 2>&1 ||
		{ cat "$work/mdf.log" >&2; echo "large-images: $name: makedumpfile -R failed" >&2; return 1; }
	rm -f "$flat"
	mv "$base.zlib.kdump.tmp" "$base.zlib.kdump"
	t_r=$(since "$t1")
	# The other formats from the zlib one, every page kept (-d 0: the
	# copies hold the same pages as the zlib dump QEMU wrote).
	local c opt mdf
	for c in $copies; do
		case $c in
		lzo) opt=-l mdf=makedumpfile ;;
		zstd) opt=-z mdf=$mdf_zstd ;;
		snappy) opt=-p mdf=$mdf_zstd ;;
		*) echo "large-images: unknown copy format $c" >&2; return 1 ;;
		esac
		[ -n "$mdf" ] || continue
		t1=$(now)
		rm -f "$base.$c.kdump"
		"$mdf" $opt -d 0 "$base.zlib.kdump" "$base.$c.kdump" > "$work/mdf.log" 2>&1 ||
			{ cat "$work/mdf.log" >&2; echo "large-images: $name: makedumpfile $opt failed" >&2; return 1; }
		printf -v "t_$c" '%s' "$(since "$t1")"
	done
	if [ -n "$elf" ]; then
		# QEMU 7.2's ELF header (scripts/prove/fix-qemu-elf.py), and the guest's
		# untouched RAM and pmem as holes: 4-14 GB of zeros need no disk
		t1=$(now)
		"$PY" "$here/../prove/fix-qemu-elf.py" "$elf.tmp" >/dev/null
		fallocate --dig-holes "$elf.tmp"
		mv "$elf.tmp" "$elf"
		t_holes=$(since "$t1")
	fi
	{
		echo "image=$name"
		echo "command=scripts/bench/large-images.sh --kernel \$CACHE/kernels/$kname --sizes $n --modes $mode"
		echo "kernel_dir=$kdir"
		echo "kernel=$(grep -a -m1 -o 'Linux version [^ ]*' "$log" | awk '{print $3}')"
		echo "mode=$mode"
		echo "size_gib=$n"
		echo "ram_gib=$ram"
		echo "memmap=$memmap"
		echo "ns=$ns"
		[ -z "$kargs" ] || echo "kernel_args=$kargs"
		echo "rebind=1"
		echo "seconds_boot_to_ready=$t_ready"
		echo "seconds_qmp_elf=$t_elf"
		echo "seconds_qmp_kdump_zlib=$t_zlib"
		echo "seconds_makedumpfile_R=$t_r"
		echo "seconds_makedumpfile_lzo=$t_lzo"
		echo "seconds_makedumpfile_zstd=$t_zstd"
		echo "seconds_makedumpfile_snappy=$t_snappy"
		echo "seconds_elf_fix_and_holes=$t_holes"
		echo "seconds_total=$(since "$t0")"
		for f in "$base".*.kdump "$base.elf"; do
			[ -f "$f" ] && echo "bytes_${f##*/$name.}=$(stat -c %s "$f") allocated=$(( $(stat -c %b "$f") * 512 ))"
		done
	} > "$base.meta"
	echo "large-images: $name: ready ${t_ready} s, ELF ${t_elf} s, kdump-zlib ${t_zlib} s, -R ${t_r} s, lzo ${t_lzo} s, zstd ${t_zstd} s, snappy ${t_snappy} s, total $(since "$t0") s"
}

if [ -z "$tkdir" ]; then
	case $kdir in *-base) [ -d "${kdir%-base}-template" ] && tkdir=${kdir%-base}-template ;; esac
fi
[ "$tkdir" != none ] || tkdir=
if [ -n "$tkdir" ] && [[ " $modes " == *" pair "* ]]; then
	[ -f "$tkdir/bzImage" ] && [ -f "$tkdir/vmlinux" ] ||
		{ echo "large-images: no bzImage/vmlinux in $tkdir (--template)" >&2; exit 2; }
fi
status=0
for mode in $modes; do
	for n in $sizes; do
		make_one "$mode" "$n" || status=1
		if [ "$mode" = pair ] && [ -n "$tkdir" ]; then
			( kdir=$tkdir kname=$(basename "$tkdir"); make_one pair "$n" ) || status=1
		fi
	done
done
exit $status
