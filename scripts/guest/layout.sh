#!/bin/bash
# Guest physical layout of the test guests: legacy pmem regions (memmap=SIZE!START)
# and the namespace each one gets. Sourced by capture.sh and kdump.sh; run it
# directly to print the table.
#
#   mmc_layout BOOT_MB WITH_1G
# sets MMC_MEMMAP (kernel command line part), MMC_NS (mmc.ns= value for /init),
# MMC_RAM_MB (QEMU -m) and MMC_TABLE (human-readable, one region a line).
# BOOT_MB must be 64 mod 128: the first region (64 MiB, devdax 2M map=mem) then
# shares the last 128 MiB memory section of boot RAM ("early section").
# All sizes in MiB, multiples of 16 (the legacy region alignment ndctl checks);
# everything stays below 3.5 GiB so the pc machine keeps it in one low RAM block.
# One memmap= argument with a comma-separated list: with more than 4 entries the
# KASLR decompressor then disables physical randomisation (separate memmap=
# arguments beyond the 4th are silently ignored by it, and the kernel image may
# land inside a pmem region). Virtual KASLR and RANDOMIZE_MEMORY stay on.

mmc_layout() {
	local boot=${1:-320} with1g=${2:-1}
	local p s e
	MMC_MEMMAP= MMC_NS= MMC_TABLE=
	_r() { # start size mode align map
		MMC_MEMMAP+="${MMC_MEMMAP:+,}$2M!$(printf '0x%x' $(( $1 << 20 )))"
		MMC_NS+="${MMC_NS:+,}$(printf '0x%x' $(( $1 << 20 ))):$3:$4:$5"
		MMC_TABLE+=$(printf '%-12s %5s MiB  %-6s %-3s %s\n' "$(printf '0x%09x' $(( $1 << 20 )))" "$2" "$3" "$4" "$5")$'\n'
	}
	if (( boot % 128 != 64 )); then
		echo "layout: BOOT_MB must be 64 mod 128" >&2
		return 2
	fi
	_r $boot 64 devdax 2M mem          # early section (shared with boot RAM)
	p=$(( boot + 64 ))
	_r $p 128 devdax 4K mem; p=$(( p + 128 ))
	_r $p 128 devdax 2M mem; p=$(( p + 128 ))
	_r $p 128 devdax 2M dev; p=$(( p + 128 ))
	_r $p 128 devdax 4K dev; p=$(( p + 128 ))
	if [ "$with1g" = 1 ]; then
		# 1 GiB devdax: the info block sits in the 16 MiB before a 1 GiB boundary,
		# the data offset then rounds up to exactly that boundary. ndctl wants the
		# (fixed, legacy) namespace size to be a multiple of 1 GiB: 2 GiB, of which
		# one 1 GiB page is mapped (the kernel truncates the rest, which then has
		# no memmap). fsdax map=mem fills the gap before it.
		s=$(( ( (p + 16 + 1023) / 1024 ) * 1024 - 16 ))
		if (( s - p >= 256 )); then
			_r $p 128 fsdax 2M mem; p=$(( p + 128 ))
			_r $p $(( s - p )) raw - -
		else
			_r $p $(( s - p )) fsdax 2M mem
		fi
		_r $s 2048 devdax 1G mem; e=$(( s + 2048 ))
		# Keep every memory section either wholly hot-added or wholly absent
		# (makedumpfile cannot read a partly populated section's memmap): the
		# rest of the truncated tail's last section stays boot RAM.
		e=$(( ( (e + 127) / 128 ) * 128 ))
		_r $e 128 fsdax 2M dev; e=$(( e + 128 ))
		(( s - p < 256 )) && { _r $e 128 raw - -; e=$(( e + 128 )); }
	else
		_r $p 128 fsdax 2M mem; p=$(( p + 128 ))
		_r $p 128 fsdax 2M dev; p=$(( p + 128 ))
		_r $p 128 raw - -; p=$(( p + 128 ))
		e=$p
	fi
	# Boot RAM again above the last region: QEMU puts the ACPI tables and the
	# initrd at the top of RAM, which must not be pmem.
	MMC_RAM_MB=$(( e + 64 ))
	MMC_MEMMAP="memmap=$MMC_MEMMAP"
	if (( MMC_RAM_MB >= 3584 )); then
		echo "layout: $MMC_RAM_MB MiB does not fit below the PCI hole" >&2
		return 2
	fi
	unset -f _r
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	mmc_layout "$@" || exit
	echo "RAM ${MMC_RAM_MB} MiB, boot RAM 0..${1:-320} MiB and the top 64 MiB"
	printf '%-12s %9s  %-6s %-3s %s\n' start size mode align map
	printf '%s' "$MMC_TABLE"
	echo "$MMC_MEMMAP"
	echo "mmc.ns=$MMC_NS"
fi
