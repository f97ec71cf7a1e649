#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Baseline for `make bench`: drgn over the same pfns, per page what a
developer would script: pfn_to_page, decode_page_flags, compound_head.
usage: drgn_walk.py VMLINUX DUMP MAX_SECONDS START END [START END ...]
prints: pages, seconds, pages/s, CPU seconds (stops after MAX_SECONDS)"""
import sys
import time

import drgn
from drgn.helpers.linux.mm import compound_head, decode_page_flags, pfn_to_page

vmlinux, dump, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
prog = drgn.Program()
prog.set_core_dump(dump)
prog.load_debug_info([vmlinux])
pfns = [(int(sys.argv[i], 0), int(sys.argv[i + 1], 0)) for i in range(4, len(sys.argv), 2)]
n = 0
t0 = time.monotonic()
c0 = time.process_time()
done = False
for s, e in pfns:
    for pfn in range(s, e):
        page = pfn_to_page(prog, pfn)
        try:
            decode_page_flags(page)
            compound_head(page)
        except drgn.FaultError:
            pass
        n += 1
        if n % 1000 == 0 and time.monotonic() - t0 > limit:
            done = True
            break
    if done:
        break
secs = time.monotonic() - t0
print("%d %.3f %.0f %.3f" % (n, secs, n / secs if secs else 0, time.process_time() - c0))
