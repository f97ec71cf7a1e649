# SPDX-License-Identifier: GPL-2.0-or-later
# FINDINGS 4: one 1 GiB devdax namespace (map=mem) whose legacy region starts
# on a memory section (0x48000000) but not on 1 GiB: the pgmap range starts
# at pfn 0x48000, the dax data at 0x80000 (the info block rounds it up to
# the 1 GiB alignment).  Unfixed kernels anchor the compound grid at
# 0x48000; 7.x then maps the folio at 0x48000 with a PUD and the guest's
# write to offset 0 of /dev/dax0.0 lands in System RAM at 0x40000000.
# No rebind: one probe, one mapping.  init_on_free=1 zeroes freed pages, so
# a dump that keeps every non-zero page (makedumpfile -d 1) stays small and
# still holds the write wherever it landed.
describe "FINDINGS 4: 1 GiB devdax at 0x48000000 (section-aligned, not 1 GiB aligned)"
pmem 0x48000000 2048 devdax 1G mem
ram $(( 0xc8000000 / 1048576 + 64 ))
kernel_args initcall_blacklist=hmm_dmirror_init init_on_free=1
workloads dax
rebind 0
