# SPDX-License-Identifier: GPL-2.0-or-later
# The standard guest's nine pmem namespaces alone, at the same addresses and
# in the same modes, without the HMM, coherent and NVMe devices: the guest of
# the images made before the other ZONE_DEVICE types were added.  Takes the
# standard layout's MMC_BOOT_MB and MMC_WITH_1G.  An example of a layout that
# builds on another one.
MMC_OTHER_TYPES=0
. "$(dirname "${BASH_SOURCE[0]}")/standard.sh" || return
describe "the nine pmem namespaces of the standard layout, nothing else"
