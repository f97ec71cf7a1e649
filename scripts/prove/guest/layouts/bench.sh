# SPDX-License-Identifier: GPL-2.0-or-later
# The benchmark guest of scripts/bench/bench-image.sh: 10 GiB of pmem in two
# namespaces, 8 GiB devdax 2M map=mem and 2 GiB devdax 4K map=dev (2.6 M
# struct pages).  13 GiB of RAM: the pc machine keeps 3 GiB below 4 GiB and
# maps the rest from 4 GiB up, where the pmem lies.
describe "8 GiB devdax 2M map=mem at 4 GiB, 2 GiB devdax 4K map=dev at 12 GiB"
ram 13G
huge_ram
pmem 4G 8G devdax 2M mem
pmem 12G 2G devdax 4K dev
# no HMM test driver chunks (test kernels have CONFIG_TEST_HMM=y)
kernel_args no_timer_check initcall_blacklist=hmm_dmirror_init
workloads dax
rebind 1
