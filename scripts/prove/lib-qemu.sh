# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# The one place that runs a test guest under QEMU (sourced by capture.sh,
# vectors/kdump.sh, vectors/live/run-live.sh, bench/bench-image.sh,
# bench/large-images.sh).  QMP goes through scripts/prove/qmp.py.
#
#   mmc_qemu_start -k KERNEL -i INITRD -a CMDLINE -l CONSOLE_LOG --ram SIZE
#                  [-q QMP_SOCKET] [-o QEMU_OUTPUT] [--huge] [--la57]
#                  [--dimm START_MIB:SIZE_MIB]... [--hotplug START_MIB:SIZE_MIB]...
#                  [-- MORE QEMU ARGUMENTS [-- MORE]]
#       starts qemu-system-x86_64 (TCG, one CPU, pc machine, -device vmcoreinfo)
#       in the background, niced; sets MMC_QEMU_PID.  SIZE is QEMU's -m value
#       (3392M, 13G).  --huge backs RAM by a memory-backend-ram with
#       reserve=off, which a guest larger than the host's commit limit needs.
#       --la57: a CPU with 5-level paging (-cpu max), else -cpu max,la57=off.
#       --dimm: a cold-plugged pc-dimm at that guest-physical address: RAM
#       that is not in the e820 map (the guest has no ACPI memory hotplug), so
#       not System RAM.
#       --hotplug: room for a pc-dimm plugged later by mmc_qemu_hotplug (a
#       memory slot and maxmem up to its end); nothing is plugged at start.
#   mmc_qemu_hotplug START_MIB SIZE_MIB N
#       QMP object-add memory-backend-ram hpmem<N> + device_add pc-dimm
#       hpdimm<N> at that guest-physical address (ACPI announces it; a guest
#       with an ACPI memory hotplug driver adds it as memory blocks)
#   mmc_qemu_wait TIMEOUT OK_REGEX [FAIL_REGEX]
#       polls the console log: 0 OK_REGEX seen, 1 FAIL_REGEX seen (and OK not),
#       2 QEMU exited first, 3 TIMEOUT seconds passed (grep -E patterns)
#   mmc_qemu_why RC       one line for a non-zero mmc_qemu_wait status
#   mmc_qemu_tail [N]     the last N console lines and QEMU's own output, to stderr
#   mmc_qmp ARGS...       scripts/prove/qmp.py on this guest's socket (dump FILE [FMT], quit, exec JSON)
#   mmc_qemu_dump FILE [elf|kdump-zlib]   dump-guest-memory, paging=false
#   mmc_qemu_quit         QMP quit, then wait for QEMU (killed after 20 s)
#   mmc_qemu_wait_exit S  wait up to S seconds for QEMU to exit by itself
#   mmc_qemu_stop         kill QEMU if it still runs (for EXIT traps)
# Only one guest per sourcing shell.

MMC_QEMU_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MMC_QEMU_PID= MMC_QEMU_LOG= MMC_QEMU_QMP= MMC_QEMU_OUT=

mmc_qemu_start() {
	local kernel= initrd= append= ram= huge=0 la57=0 cpu mem dimms=() hotplugs=() d
	local -a args extra=()
	MMC_QEMU_LOG= MMC_QEMU_QMP= MMC_QEMU_OUT=
	while [ $# -gt 0 ]; do
		case $1 in
		-k) kernel=$2; shift ;;
		-i) initrd=$2; shift ;;
		-a) append=$2; shift ;;
		-l) MMC_QEMU_LOG=$2; shift ;;
		-q) MMC_QEMU_QMP=$2; shift ;;
		-o) MMC_QEMU_OUT=$2; shift ;;
		--ram) ram=$2; shift ;;
		--huge) huge=1 ;;
		--la57) la57=1 ;;
		--dimm) dimms+=("$2"); shift ;;
		--hotplug) hotplugs+=("$2"); shift ;;
		--)	# the rest goes to QEMU; a later "--" (from a second
			# option list) is dropped, QEMU itself never takes one
			shift
			for d in "$@"; do [ "$d" = -- ] || extra+=("$d"); done
			break ;;
		*) echo "mmc_qemu_start: unknown option $1" >&2; return 2 ;;
		esac
		shift
	done
	if [ -z "$kernel" ] || [ -z "$initrd" ] || [ -z "$MMC_QEMU_LOG" ] || [ -z "$ram" ]; then
		echo "mmc_qemu_start: -k, -i, -l and --ram are required" >&2
		return 2
	fi
	command -v qemu-system-x86_64 >/dev/null ||
		{ echo "mmc_qemu_start: qemu-system-x86_64 not installed (apt-get install qemu-system-x86)" >&2; return 2; }
	: "${MMC_QEMU_OUT:=$MMC_QEMU_LOG.qemu}"
	# No working KVM here: TCG.  Plain "max" has la57, i.e. 5-level paging.
	cpu=max,la57=off
	[ $la57 = 1 ] && cpu=max
	mem=$ram
	if [ $(( ${#dimms[@]} + ${#hotplugs[@]} )) -gt 0 ]; then
		# maxmem covers the highest DIMM end above 4 GiB (the device memory
		# region starts at or above it); QEMU adds 1 GiB per slot for alignment.
		local top=0 s z
		for d in "${dimms[@]}" "${hotplugs[@]}"; do
			s=${d%%:*} z=${d#*:}
			(( s + z > top )) && top=$(( s + z ))
		done
		mem="$ram,slots=$(( ${#dimms[@]} + ${#hotplugs[@]} )),maxmem=$(( $(mmc_qemu_mib "$ram") + top - 4096 ))M"
	fi
	args=(-accel tcg -cpu "$cpu" -smp 1 -nodefaults -display none -no-reboot)
	if [ $huge = 1 ]; then
		args+=(-M pc,memory-backend=m0 -object "memory-backend-ram,id=m0,size=$ram,reserve=off" -m "$mem")
	else
		args+=(-M pc -m "$mem")
	fi
	local i=0
	for d in "${dimms[@]}"; do
		args+=(-object "memory-backend-ram,id=dimm$i,size=${d#*:}M"
		       -device "pc-dimm,id=pcdimm$i,memdev=dimm$i,addr=$(printf '0x%x' $(( ${d%%:*} << 20 )))")
		i=$((i + 1))
	done
	args+=(-kernel "$kernel" -initrd "$initrd" -append "$append" -serial "file:$MMC_QEMU_LOG")
	[ -n "$MMC_QEMU_QMP" ] && args+=(-qmp "unix:$MMC_QEMU_QMP,server=on,wait=off")
	args+=(-device vmcoreinfo "${extra[@]}")
	: > "$MMC_QEMU_LOG"
	nice -n 5 qemu-system-x86_64 "${args[@]}" > "$MMC_QEMU_OUT" 2>&1 &
	MMC_QEMU_PID=$!
	printf '%q ' qemu-system-x86_64 "${args[@]}" > "$MMC_QEMU_OUT.cmd"
}

# QEMU -m size (1234, 1234M, 13G) -> MiB
mmc_qemu_mib() {
	case $1 in
	*G) echo $(( ${1%G} * 1024 )) ;;
	*M) echo "${1%M}" ;;
	*) echo "$1" ;;
	esac
}

mmc_qemu_running() { [ -n "$MMC_QEMU_PID" ] && kill -0 "$MMC_QEMU_PID" 2>/dev/null; }

mmc_qemu_wait() {
	local timeout=$1 ok=$2 fail=${3:-}
	local deadline=$(( $(date +%s) + timeout ))
	while :; do
		grep -q -a -E -e "$ok" "$MMC_QEMU_LOG" 2>/dev/null && return 0
		[ -n "$fail" ] && grep -q -a -E -e "$fail" "$MMC_QEMU_LOG" 2>/dev/null && return 1
		if ! mmc_qemu_running; then
			# the last lines may land after the check above
			grep -q -a -E -e "$ok" "$MMC_QEMU_LOG" 2>/dev/null && return 0
			return 2
		fi
		[ "$(date +%s)" -ge $deadline ] && return 3
		sleep 0.2
	done
}

mmc_qemu_why() {
	case $1 in
	1) echo "the guest reported a failure" ;;
	2) echo "QEMU exited" ;;
	3) echo "timeout" ;;
	*) echo "status $1" ;;
	esac
}

mmc_qemu_tail() {
	tail -n "${1:-30}" "$MMC_QEMU_LOG" >&2 2>/dev/null || true
	[ -s "$MMC_QEMU_OUT" ] && sed 's/^/qemu: /' "$MMC_QEMU_OUT" >&2
	return 0
}

mmc_qmp() {
	[ -n "$MMC_QEMU_QMP" ] || { echo "mmc_qmp: the guest was started without -q" >&2; return 2; }
	/usr/bin/python3 "$MMC_QEMU_LIB_DIR/qmp.py" "$MMC_QEMU_QMP" "$@"
}

mmc_qemu_hotplug() {	# START_MIB SIZE_MIB N
	local addr
	addr=$(printf '0x%x' $(( $1 << 20 )))
	mmc_qmp exec "{\"execute\": \"object-add\", \"arguments\": {\"qom-type\": \"memory-backend-ram\", \"id\": \"hpmem$3\", \"size\": $(( $2 << 20 ))}}" >/dev/null &&
	mmc_qmp exec "{\"execute\": \"device_add\", \"arguments\": {\"driver\": \"pc-dimm\", \"id\": \"hpdimm$3\", \"memdev\": \"hpmem$3\", \"addr\": $(( $1 << 20 ))}}" >/dev/null ||
		{ echo "mmc_qemu_hotplug: pc-dimm of $2 MiB at $addr failed" >&2; return 1; }
}

# QEMU creates the dump read-only (dump.c: S_IRUSR): only root could then
# repair its header in place (fix-qemu-elf.py) or replace it
mmc_qemu_dump() { mmc_qmp dump "$@" && chmod u+w "$1"; }

mmc_qemu_wait_exit() {
	local n=$(( ${1:-20} * 5 ))
	while [ $n -gt 0 ] && mmc_qemu_running; do sleep 0.2; n=$((n - 1)); done
	! mmc_qemu_running
}

mmc_qemu_quit() {
	[ -n "$MMC_QEMU_PID" ] || return 0
	mmc_qemu_running && { mmc_qmp quit >/dev/null 2>&1 || true; }
	mmc_qemu_wait_exit 20 || kill "$MMC_QEMU_PID" 2>/dev/null || true
	wait "$MMC_QEMU_PID" 2>/dev/null || true
	MMC_QEMU_PID=
}

mmc_qemu_stop() {
	[ -n "$MMC_QEMU_PID" ] || return 0
	kill "$MMC_QEMU_PID" 2>/dev/null || true
	wait "$MMC_QEMU_PID" 2>/dev/null || true
	MMC_QEMU_PID=
}
