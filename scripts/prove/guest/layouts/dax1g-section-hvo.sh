# SPDX-License-Identifier: GPL-2.0-or-later
# dax1g-section (FINDINGS 4's 1 GiB devdax at 0x48000000) with the HugeTLB
# and memory hotplug workloads of standard-hvo.sh, for kernels built with
# scripts/vectors/build-kernel.sh --hvo.  Its RAM (0-1.125 GiB and 3.125-3.19 GiB
# around the namespace) holds no free 1 GiB-aligned GiB: 2 MiB pages only.
. "$(dirname "${BASH_SOURCE[0]}")/dax1g-section.sh" || return
describe "FINDINGS 4's 1 GiB devdax at 0x48000000; HugeTLB 2M with HVO, free; hot-plugged memmap_on_memory DIMM"
hugetlb 16 0 add2m=8 free2m=4 file2m=4 anon2m=2
hotplug 4G 256M huge2m=4
# no_timer_check: the IO-APIC timer probe fails under TCG on a loaded host
kernel_args no_timer_check
