# SPDX-License-Identifier: GPL-2.0-or-later
# FINDINGS 2: one 1 GiB devdax namespace (map=mem) whose pgmap range starts
# at pfn 0x3f000, not on a memory section: the data at 0x40000.  The raw
# filler before it keeps the namespace's first section from being an early
# section (shared with boot RAM).  Unfixed kernels put the second compound
# head (0x7f000) into a shared tail vmemmap frame of the first.  No rebind;
# init_on_free=1 as in dax1g-section.sh.
describe "FINDINGS 2: 1 GiB devdax at 0x3f000000 (pgmap range not section-aligned)"
pmem 0x38000000 112 raw - -
pmem 0x3f000000 2048 devdax 1G mem
ram $(( 0xc0000000 / 1048576 + 64 ))
kernel_args initcall_blacklist=hmm_dmirror_init init_on_free=1
workloads dax
rebind 0
