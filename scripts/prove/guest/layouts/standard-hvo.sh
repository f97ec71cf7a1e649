# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 19: the standard guest's ZONE_DEVICE types next to HugeTLB folios
# with the vmemmap optimisation (HVO) and hot-plugged memory whose memmap
# sits on the memory itself (memmap_on_memory).  For kernels built with
# scripts/vectors/build-kernel.sh --hvo; other kernels skip both workloads.
#
# Geometry: the standard layout with its boot RAM cut to 64 MiB and without
# the 1 GiB devdax region, so that its eight pmem namespaces end at 1 GiB
# (64 MiB-1 GiB, the first still in an early section) and the RAM from 1 GiB
# to 3.3 GiB holds two free, 1 GiB-aligned GiBs for the boot-time 1 GiB
# pages; without the DEVICE_COHERENT DIMM (the ACPI memory hotplug driver
# would add it as System RAM).  HMM private memory and the NVMe CMB stay.
#   hugetlb: 16 x 2 MiB and 2 x 1 GiB reserved at boot (HVO on); at run time
#     8 x 2 MiB more, 4 freed back (vmemmap restored, pages to the buddy
#     allocator), one 1 GiB page demoted to 512 x 2 MiB, and a process
#     (hugetouch) maps and touches 4 x 2 MiB of a hugetlbfs file, 2 x 2 MiB
#     anonymous MAP_HUGETLB and the 1 GiB page left, in a 1 GiB hugetlbfs file
#   hotplug: a 256 MiB pc-dimm at 4 GiB plugged through QMP, two 128 MiB
#     memory blocks with 2 MiB of memmap each at their start, onlined, then
#     4 x 2 MiB HugeTLB pages more (from the new memory: not optimised, the
#     kernel refuses HVO on self-hosted memmap)
# init_on_free=1 turns the kernel's own struct page checks on at free
# (free_tail_page_prepare(), "Bad page state" on the console).
MMC_BOOT_MB=64 MMC_WITH_1G=0 MMC_COHERENT=0
. "$(dirname "${BASH_SOURCE[0]}")/standard.sh" || return
describe "standard's pmem (to 1 GiB), HMM private, NVMe CMB; HugeTLB 2M+1G with HVO, demote, free; hot-plugged memmap_on_memory DIMM"
ram 3392
hugetlb 16 2 add2m=8 free2m=4 demote1g=1 file2m=4 anon2m=2 file1g=1
hotplug 4G 256M huge2m=4
# no_timer_check: the IO-APIC timer probe fails under TCG on a loaded host
# ("IO-APIC + timer doesn't work!" panic, seen at load 12 on 2 cores).
kernel_args init_on_free=1 no_timer_check
