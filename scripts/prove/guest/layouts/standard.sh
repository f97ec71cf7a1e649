# SPDX-License-Identifier: GPL-2.0-or-later
# The standard test guest: every ZONE_DEVICE type the kernel has.
#   MEMORY_DEVICE_GENERIC   devdax 4K, 2M, 1G; map=mem and map=dev; one 2M
#                           namespace in a memory section shared with boot RAM
#   MEMORY_DEVICE_FS_DAX    fsdax map=mem and map=dev (ext2 -o dax), and a raw
#                           legacy namespace
#   MEMORY_DEVICE_PRIVATE   the HMM test driver (lib/test_hmm.c): one 256 MiB
#                           chunk for each of /dev/hmm_dmirror0 and 1, placed
#                           by the kernel at the top of the physical address space
#   MEMORY_DEVICE_COHERENT  the same driver's /dev/hmm_dmirror2 and 3, on the
#                           "specific-purpose memory" of test_hmm.spm_addr_dev0/1:
#                           a 512 MiB QEMU pc-dimm at 4 GiB, RAM that is not
#                           System RAM in the guest
#   MEMORY_DEVICE_PCI_P2PDMA the controller memory buffer of a QEMU NVMe controller
# Parameters (environment): MMC_BOOT_MB (default 320, 64 mod 128: the first
# region then shares the last 128 MiB memory section of boot RAM, the "early
# section"), MMC_WITH_1G (default 1; 0 leaves out the 1 GiB devdax region),
# MMC_OTHER_TYPES (default 1; 0 leaves out the HMM, coherent and NVMe devices:
# layouts/pmem-only.sh), MMC_COHERENT (default 1; 0 leaves out the coherent
# DIMM alone: layouts/standard-hvo.sh).
# The nine pmem namespaces sit at the same addresses, in the same modes, as
# in every image made before layouts were named.
describe "nine pmem namespaces (devdax, fsdax, raw), HMM private and coherent, NVMe CMB p2pdma"

boot=${MMC_BOOT_MB:-320}
with1g=${MMC_WITH_1G:-1}
if (( boot % 128 != 64 )); then
	echo "layout standard: MMC_BOOT_MB must be 64 mod 128" >&2
	return 2
fi
# All sizes in MiB, multiples of 16 (the legacy region alignment ndctl checks);
# everything stays below 3.5 GiB so the pc machine keeps it in one low RAM block.
pmem $boot 64 devdax 2M mem          # early section (shared with boot RAM)
p=$(( boot + 64 ))
pmem $p 128 devdax 4K mem; p=$(( p + 128 ))
pmem $p 128 devdax 2M mem; p=$(( p + 128 ))
pmem $p 128 devdax 2M dev; p=$(( p + 128 ))
pmem $p 128 devdax 4K dev; p=$(( p + 128 ))
if [ "$with1g" = 1 ]; then
	# 1 GiB devdax: the info block sits in the 16 MiB before a 1 GiB boundary,
	# the data offset then rounds up to exactly that boundary. ndctl wants the
	# (fixed, legacy) namespace size to be a multiple of 1 GiB: 2 GiB, of which
	# one 1 GiB page is mapped (the kernel truncates the rest, which then has
	# no memmap). fsdax map=mem fills the gap before it.
	s=$(( ( (p + 16 + 1023) / 1024 ) * 1024 - 16 ))
	if (( s - p >= 256 )); then
		pmem $p 128 fsdax 2M mem; p=$(( p + 128 ))
		pmem $p $(( s - p )) raw - -
	else
		pmem $p $(( s - p )) fsdax 2M mem
	fi
	pmem $s 2048 devdax 1G mem; e=$(( s + 2048 ))
	# Keep every memory section either wholly hot-added or wholly absent
	# (makedumpfile cannot read a partly populated section's memmap): the
	# rest of the truncated tail's last section stays boot RAM.
	e=$(( ( (e + 127) / 128 ) * 128 ))
	pmem $e 128 fsdax 2M dev; e=$(( e + 128 ))
	(( s - p < 256 )) && { pmem $e 128 raw - -; e=$(( e + 128 )); }
else
	pmem $p 128 fsdax 2M mem; p=$(( p + 128 ))
	pmem $p 128 fsdax 2M dev; p=$(( p + 128 ))
	pmem $p 128 raw - -; p=$(( p + 128 ))
	e=$p
fi
# Boot RAM again above the last region: QEMU puts the ACPI tables and the
# initrd at the top of RAM, which must not be pmem.
ram $(( e + 64 ))
if [ "${MMC_OTHER_TYPES:-1}" != 1 ]; then
	# a test kernel with CONFIG_TEST_HMM=y would still add its two private chunks
	kernel_args initcall_blacklist=hmm_dmirror_init
	workloads dax
	rebind 3
	return 0
fi

# DEVICE_COHERENT needs 2 x 256 MiB (DEVMEM_CHUNK_SIZE) of memory that is not
# System RAM.  It cannot be taken from the RAM above: 512 MiB more would reach
# 3.5 GiB, where the pc machine moves everything from 3 GiB up above 4 GiB and
# with it the namespaces above.  A pc-dimm at 4 GiB is RAM to the CPU but not
# in the e820 map, and the guest kernel has no ACPI memory hotplug driver.
# acpi_no_memhotplug keeps it so on kernels that do have the driver (distro
# kernels: CONFIG_ACPI_HOTPLUG_MEMORY=y would add it as System RAM).
# MMC_COHERENT=0 (layouts/standard-hvo.sh) leaves the coherent part out: a
# guest that hot-plugs memory needs the ACPI memory hotplug driver, which
# would add this DIMM as System RAM at boot.
if [ "${MMC_COHERENT:-1}" = 1 ]; then
	dimm 4096 512 "test_hmm.spm_addr_dev0/1 (DEVICE_COHERENT)"
	kernel_args test_hmm.spm_addr_dev0=0x100000000 test_hmm.spm_addr_dev1=0x110000000 acpi_no_memhotplug
fi

# PCI_P2PDMA: the NVMe driver registers the controller memory buffer (BAR 2,
# 64-bit prefetchable, naturally aligned) with pci_p2pdma_add_resource();
# 128 MiB is one whole memory section.  The namespace is a null block device.
qemu_args -blockdev driver=null-co,node-name=mmcnvm0,size=16777216,read-zeroes=on \
	-device nvme,serial=mmc-cmb0,drive=mmcnvm0,cmb_size_mb=128

workloads dax hmm p2p
rebind 3
