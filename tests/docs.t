#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every transcript in README.md, FINDINGS.md and doc/*.md must be what the
# tool (and the helpers named in scripts/transcripts.py) print today on the
# committed material: scripts/transcripts.sh regenerates them, this test
# reruns each marked command and compares (run times and rates masked).
# Transcripts marked as recorded (crash sessions needing absent material,
# benchmarks, live guests) are reported as skipped, as are those whose
# material (Debian's 6.1 debug vmlinux, crash) is not in the cache.
# The expected text is what the documentation claims, not the tool's
# output: a failing line means the documentation went stale, or the tool
# changed what it prints.
top=$(cd "$(dirname "$0")/.." && pwd)
export MMC_BUILD=${MMC_BUILD:-$top/build}
exec "$top/scripts/transcripts.sh" --check
