#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest layouts: what a test guest is made of (RAM, legacy pmem regions and
# their namespaces, reserved ranges, DIMMs, extra QEMU devices, extra kernel
# parameters, which guest workloads run).  A layout is a bash file of
# directives, scripts/prove/guest/layouts/<NAME>.sh or any path;
# doc/GUEST-LAYOUTS.md describes them.  Sourced by prove/capture.sh,
# vectors/kdump.sh, vectors/live/run-live.sh and bench/bench-image.sh; run it
# directly to print a layout:
#
#   scripts/prove/guest/layout.sh [NAME|PATH] [BOOT_MB [WITH_1G]]
#
#   mmc_layout_load NAME|PATH
#       reads the layout (parameters from MMC_BOOT_MB, MMC_WITH_1G when the
#       layout uses them) and sets:
#       MMC_LAYOUT, MMC_LAYOUT_FILE  its name and file
#       MMC_RAM_MB                   QEMU -m, MiB
#       MMC_MEMMAP                   "memmap=..." (one argument: see below) or empty
#       MMC_NS                       mmc.ns= value for /init (START:MODE:ALIGN:MAP,...)
#       MMC_WORK                     mmc.work= value (dax,hmm,p2p,hugetlb,hotplug)
#       MMC_REBIND                   default driver rebind rounds
#       MMC_KARGS                    the layout's extra kernel parameters
#       MMC_GUEST_ARGS               all of the above as kernel parameters
#                                    (memmap, mmc.ns, mmc.work, extra), without mmc.rebind
#       MMC_QEMU_OPTS (array)        mmc_qemu_start options: --ram, --huge, --dimm,
#                                    --hotplug, -- extra args
#       MMC_HOTPLUG (array)          START_MIB:SIZE_MIB of each pc-dimm to plug
#                                    through QMP when the guest asks
#                                    (MEMMAPCHECK-HOTPLUG-WAIT on its console)
#       MMC_TABLE                    human-readable, one region a line
#   mmc_layout BOOT_MB WITH_1G       the standard layout with those parameters
#
# One memmap= argument with a comma-separated list: with more than 4 entries
# the KASLR decompressor then disables physical randomisation (separate
# memmap= arguments beyond the 4th are silently ignored by it, and the kernel
# image may land inside a pmem region). Virtual KASLR and RANDOMIZE_MEMORY stay on.

MMC_LAYOUT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/layouts

# QEMU's pc machine keeps guest RAM below 3.5 GiB in one block under 4 GiB;
# from 3.5 GiB of RAM up it puts 3 GiB there and the rest from 4 GiB up
# (hw/i386/pc_piix.c, gigabyte_align).
_mmc_low_mb() { if (( $1 >= 3584 )); then echo 3072; else echo "$1"; fi; }

# 256, 256M -> 256; 8G -> 8192; hex byte addresses (0x100000000) -> MiB
_mmc_mib() {
	case $1 in
	0x*|0X*) (( $1 % 1048576 == 0 )) || return 1; echo $(( $1 >> 20 )) ;;
	*[0-9]G) echo $(( ${1%G} * 1024 )) ;;
	*[0-9]M) echo $(( ${1%M} )) ;;
	*[0-9]) echo $(( $1 )) ;;
	*) return 1 ;;
	esac
}

# Records the error and goes on (status 0), so that one run names them all.
_mmc_layout_err() {
	echo "layout ${MMC_LAYOUT_FILE:-?}: $*" >&2
	_mmc_layout_bad=1
}

# ---- directives (only defined while a layout file is read) --------------------
_mmc_directives() {
	describe() { MMC_LAYOUT_DESC="$*"; }
	ram() {
		MMC_RAM_MB=$(_mmc_mib "$1") || _mmc_layout_err "ram: bad size '$1'"
	}
	huge_ram() { _mmc_huge=1; }
	rebind() { MMC_REBIND=$1; }
	workloads() { MMC_WORK=$(IFS=,; echo "$*"); }
	kernel_args() { MMC_KARGS+="${MMC_KARGS:+ }$*"; }
	qemu_args() { _mmc_qemu_extra+=("$@"); }
	# pmem START SIZE MODE ALIGN MAP: a legacy pmem region (memmap=SIZE!START)
	# and the namespace /init makes of it: devdax|fsdax 4K|2M|1G mem|dev, or raw - -
	pmem() {
		local s z
		[ $# = 5 ] || { _mmc_layout_err "pmem START SIZE MODE ALIGN MAP: got '$*'"; return; }
		s=$(_mmc_mib "$1") && z=$(_mmc_mib "$2") || { _mmc_layout_err "pmem: bad START or SIZE in '$*'"; return; }
		case $3:$4:$5 in
		devdax:4K:mem|devdax:4K:dev|devdax:2M:mem|devdax:2M:dev|devdax:1G:mem|devdax:1G:dev) ;;
		fsdax:4K:mem|fsdax:4K:dev|fsdax:2M:mem|fsdax:2M:dev|raw:-:-) ;;
		*) _mmc_layout_err "pmem: MODE ALIGN MAP must be devdax|fsdax 4K|2M|1G mem|dev or raw - -, got '$3 $4 $5'"; return ;;
		esac
		(( s % 16 == 0 && z % 16 == 0 && z > 0 )) ||
			{ _mmc_layout_err "pmem: START and SIZE must be multiples of 16 MiB (legacy region alignment), got '$*'"; return; }
		_mmc_regions+=("$s:$z:pmem")
		MMC_MEMMAP+="${MMC_MEMMAP:+,}${z}M!$(printf '0x%x' $(( s << 20 )))"
		MMC_NS+="${MMC_NS:+,}$(printf '0x%x' $(( s << 20 ))):$3:$4:$5"
		MMC_TABLE+=$(printf '%-12s %6s MiB  pmem     %-6s %-3s %s' "$(printf '0x%09x' $(( s << 20 )))" "$z" "$3" "$4" "$5")$'\n'
	}
	# reserve START SIZE [WHAT]: RAM the kernel must not use (memmap=SIZE$START)
	reserve() {
		local s z
		s=$(_mmc_mib "$1") && z=$(_mmc_mib "$2") || { _mmc_layout_err "reserve: bad START or SIZE in '$*'"; return; }
		_mmc_regions+=("$s:$z:reserve")
		MMC_MEMMAP+="${MMC_MEMMAP:+,}${z}M\$$(printf '0x%x' $(( s << 20 )))"
		MMC_TABLE+=$(printf '%-12s %6s MiB  reserved %s' "$(printf '0x%09x' $(( s << 20 )))" "$z" "${3:-}")$'\n'
	}
	# dimm START SIZE [WHAT]: a cold-plugged QEMU pc-dimm from 4 GiB up: RAM
	# the guest does not see as System RAM (no ACPI memory hotplug driver)
	dimm() {
		local s z
		s=$(_mmc_mib "$1") && z=$(_mmc_mib "$2") || { _mmc_layout_err "dimm: bad START or SIZE in '$*'"; return; }
		(( s >= 4096 && s % 128 == 0 && z % 128 == 0 && z > 0 )) ||
			{ _mmc_layout_err "dimm: START must be >= 4 GiB, START and SIZE multiples of 128 MiB, got '$*'"; return; }
		_mmc_regions+=("$s:$z:dimm")
		_mmc_dimms+=("$s:$z")
		MMC_TABLE+=$(printf '%-12s %6s MiB  dimm     %s' "$(printf '0x%09x' $(( s << 20 )))" "$z" "${3:-}")$'\n'
	}
	# hugetlb BOOT_2M BOOT_1G [STEP=N ...]: HugeTLB pages reserved at boot
	# (hugepagesz=2M hugepages=BOOT_2M hugepagesz=1G hugepages=BOOT_1G, with
	# the vmemmap optimisation on) and the guest's "hugetlb" workload, whose
	# steps (mmc.hugetlb=) are: add2m=N more 2 MiB pages at run time,
	# free2m=N of them freed back, demote1g=N 1 GiB pages demoted to 2 MiB,
	# file2m=N / file1g=N huge pages of a file on a hugetlbfs mount mapped and
	# touched, anon2m=N anonymous MAP_HUGETLB 2 MiB pages touched.
	hugetlb() {
		local b2=${1:-} b1=${2:-} a
		case $b2:$b1 in *[!0-9:]*|:*|*:) _mmc_layout_err "hugetlb BOOT_2M BOOT_1G [STEP=N ...]: got '$*'"; return ;; esac
		shift 2
		for a in "$@"; do
			case $a in
			add2m=[0-9]*|free2m=[0-9]*|demote1g=[0-9]*|file2m=[0-9]*|file1g=[0-9]*|anon2m=[0-9]*) ;;
			*) _mmc_layout_err "hugetlb: unknown step '$a' (add2m free2m demote1g file2m file1g anon2m =N)"; return ;;
			esac
		done
		MMC_KARGS+="${MMC_KARGS:+ }hugetlb_free_vmemmap=on hugepagesz=2M hugepages=$b2 hugepagesz=1G hugepages=$b1"
		MMC_KARGS+=" mmc.hugetlb=$(IFS=,; echo "${*:-none}")"
		_mmc_extra_work+=(hugetlb)
		MMC_TABLE+=$(printf '%-12s %10s  hugetlb  %s' - "$(( b2 * 2 + b1 * 1024 )) MiB" "boot: $b2 x 2M, $b1 x 1G; run time: ${*:-nothing}")$'\n'
	}
	# hotplug START SIZE [huge2m=N]: a QEMU pc-dimm plugged through QMP once
	# the guest asks for it, added by the guest's ACPI memory hotplug driver
	# with its memmap on the hot-added memory itself
	# (memory_hotplug.memmap_on_memory=1) and onlined by the "hotplug"
	# workload; huge2m=N more 2 MiB HugeTLB pages are allocated afterwards.
	# From 4 GiB up, 128 MiB granules (one memory block each).
	hotplug() {
		local s z
		s=$(_mmc_mib "${1:-}") && z=$(_mmc_mib "${2:-}") || { _mmc_layout_err "hotplug: bad START or SIZE in '$*'"; return; }
		(( s >= 4096 && s % 128 == 0 && z % 128 == 0 && z > 0 )) ||
			{ _mmc_layout_err "hotplug: START must be >= 4 GiB, START and SIZE multiples of 128 MiB, got '$*'"; return; }
		case ${3:-} in ''|huge2m=[0-9]*) ;; *) _mmc_layout_err "hotplug START SIZE [huge2m=N]: got '$*'"; return ;; esac
		_mmc_regions+=("$s:$z:dimm")
		_mmc_hotplugs+=("$s:$z")
		MMC_KARGS+="${MMC_KARGS:+ }memory_hotplug.memmap_on_memory=1"
		MMC_KARGS+=" mmc.hotplug=$(printf '0x%x' $(( s << 20 ))):$(( z << 20 ))${3:+:${3#huge2m=}}"
		_mmc_extra_work+=(hotplug)
		MMC_TABLE+=$(printf '%-12s %6s MiB  hotplug  pc-dimm plugged through QMP, memmap_on_memory%s' "$(printf '0x%09x' $(( s << 20 )))" "$z" "${3:+, $3}")$'\n'
	}
}

# Every region inside guest RAM (or, for a DIMM, outside it), none overlapping,
# and the top 64 MiB of RAM below 4 GiB free: QEMU puts the ACPI tables and the
# initrd there, which must not be pmem.
_mmc_layout_check() {
	local low hi r s z k o s2 z2 k2
	[ -n "$MMC_RAM_MB" ] && (( MMC_RAM_MB > 0 )) || { _mmc_layout_err "no 'ram SIZE'"; return; }
	low=$(_mmc_low_mb "$MMC_RAM_MB")
	hi=$(( 4096 + MMC_RAM_MB - low ))
	for r in "${_mmc_regions[@]}"; do
		s=${r%%:*} o=${r#*:}; z=${o%%:*} k=${o#*:}
		if [ "$k" = dimm ]; then
			(( s >= hi )) || _mmc_layout_err "dimm at $s MiB overlaps RAM (above 4 GiB up to $hi MiB)"
		elif ! (( (s + z <= low) || (s >= 4096 && s + z <= hi) )); then
			_mmc_layout_err "$k region $s+$z MiB is not inside guest RAM (0-$low MiB$( (( hi > 4096 )) && echo ", 4096-$hi MiB"))"
		elif (( s + z > low - 64 && s < low )); then
			_mmc_layout_err "$k region $s+$z MiB covers the top 64 MiB of RAM below 4 GiB ($(( low - 64 ))-$low MiB: ACPI tables, initrd)"
		fi
		for o in "${_mmc_regions[@]}"; do
			[ "$o" = "$r" ] && continue
			s2=${o%%:*} o=${o#*:}; z2=${o%%:*} k2=${o#*:}
			(( s < s2 + z2 && s2 < s + z )) && _mmc_layout_err "$k region $s+$z MiB overlaps $k2 region $s2+$z2 MiB"
		done
	done
	case ,$MMC_WORK, in ,,) ;; *) 
		local w
		for w in ${MMC_WORK//,/ }; do
			case $w in dax|hmm|p2p|hugetlb|hotplug) ;; *) _mmc_layout_err "workloads: unknown '$w' (dax, hmm, p2p, hugetlb, hotplug)" ;; esac
		done ;;
	esac
	case $MMC_REBIND in ''|*[!0-9]*) _mmc_layout_err "rebind: '$MMC_REBIND' is not a number" ;; esac
	return 0
}

mmc_layout_load() {
	local spec=${1:-standard} f decl
	case $spec in
	*/*|*.sh) f=$spec ;;
	*) f=$MMC_LAYOUT_DIR/$spec.sh ;;
	esac
	if [ ! -f "$f" ]; then
		echo "layout: no layout '$spec' ($f); have: $(cd "$MMC_LAYOUT_DIR" && ls ./*.sh | sed 's,^\./,,; s/\.sh$//' | paste -sd' ')" >&2
		return 2
	fi
	MMC_LAYOUT_FILE=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	MMC_LAYOUT=$(basename "$f" .sh)
	# Read in a subshell: a layout's own variables and functions stay there.
	decl=$(
		MMC_LAYOUT_DESC= MMC_RAM_MB= MMC_MEMMAP= MMC_NS= MMC_WORK=dax MMC_REBIND=3 MMC_KARGS= MMC_TABLE=
		_mmc_huge=0 _mmc_layout_bad=0
		_mmc_regions=() _mmc_dimms=() _mmc_hotplugs=() _mmc_qemu_extra=() _mmc_extra_work=()
		_mmc_directives
		# shellcheck disable=SC1090
		. "$MMC_LAYOUT_FILE" >&2 || { _mmc_layout_err "the layout file failed (status $?)"; exit 2; }
		# hugetlb and hotplug run after the layout's own workloads, in
		# the order of their directives
		for w in "${_mmc_extra_work[@]}"; do
			case ,$MMC_WORK, in *,$w,*) ;; *) MMC_WORK+="${MMC_WORK:+,}$w" ;; esac
		done
		_mmc_layout_check
		[ "$_mmc_layout_bad" = 0 ] || exit 2
		declare -p MMC_LAYOUT_DESC MMC_RAM_MB MMC_MEMMAP MMC_NS MMC_WORK MMC_REBIND MMC_KARGS \
			MMC_TABLE _mmc_huge _mmc_dimms _mmc_hotplugs _mmc_qemu_extra
	) || return 2
	eval "${decl//declare -/declare -g -}"
	[ -n "$MMC_MEMMAP" ] && MMC_MEMMAP="memmap=$MMC_MEMMAP"
	MMC_GUEST_ARGS="$MMC_MEMMAP${MMC_MEMMAP:+ }mmc.ns=$MMC_NS mmc.work=$MMC_WORK${MMC_KARGS:+ }$MMC_KARGS"
	MMC_QEMU_OPTS=(--ram "${MMC_RAM_MB}M")
	[ "$_mmc_huge" = 1 ] && MMC_QEMU_OPTS+=(--huge)
	local d
	for d in "${_mmc_dimms[@]}"; do MMC_QEMU_OPTS+=(--dimm "$d"); done
	for d in "${_mmc_hotplugs[@]}"; do MMC_QEMU_OPTS+=(--hotplug "$d"); done
	MMC_HOTPLUG=("${_mmc_hotplugs[@]}")
	[ ${#_mmc_qemu_extra[@]} -gt 0 ] && MMC_QEMU_OPTS+=(-- "${_mmc_qemu_extra[@]}")
	return 0
}

# The standard layout (compatibility with the BOOT_MB WITH_1G interface).
mmc_layout() {
	MMC_BOOT_MB=${1:-320} MMC_WITH_1G=${2:-1} mmc_layout_load standard
}

# The layout as text (what the guest gets), for people and for .meta files.
mmc_layout_print() {
	echo "layout $MMC_LAYOUT ($MMC_LAYOUT_FILE)${MMC_LAYOUT_DESC:+: $MMC_LAYOUT_DESC}"
	echo "RAM ${MMC_RAM_MB} MiB$([ "$_mmc_huge" = 1 ] && echo ", reserve=off backend"), workloads ${MMC_WORK:-none}, rebind $MMC_REBIND"
	printf '%-12s %10s  %-8s %-6s %-3s %s\n' start size kind mode align map
	printf '%s' "$MMC_TABLE"
	echo "kernel: $MMC_GUEST_ARGS"
	[ ${#_mmc_qemu_extra[@]} -gt 0 ] && echo "qemu: ${_mmc_qemu_extra[*]}"
	return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	spec=standard
	case ${1:-} in ''|[0-9]*) ;; *) spec=$1; shift ;; esac
	[ $# -ge 1 ] && export MMC_BOOT_MB=$1
	[ $# -ge 2 ] && export MMC_WITH_1G=$2
	mmc_layout_load "$spec" || exit
	mmc_layout_print
fi
