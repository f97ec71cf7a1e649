#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The crash extension's help EXAMPLE is real output: scripts/docs/crash-example.py
# runs each "crash> memmapcheck ..." line of it in crash 8.0.2 on the
# committed 6.1-stock-b2 dump and compares what it prints with the help
# text (the walk's time aside).  [proof]: the expected text is crash's own
# output of today, not a copy kept by hand.  Regenerate with
# `scripts/docs/crash-example.py --write`.  TAP output.
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(MMC_BUILD=${MMC_BUILD:-$top/build} python3 "$top/scripts/docs/crash-example.py" --check 2>&1)
rc=$?
echo "1..1"
if [ $rc = 77 ]; then
	echo "ok 1 # SKIP ${out#crash-example: }"
elif [ $rc = 0 ]; then
	echo "ok 1 - [proof] crash help EXAMPLE: $out"
else
	echo "not ok 1 - [proof] crash help EXAMPLE differs from what the commands print (scripts/docs/crash-example.py --write)"
	echo "$out" | head -40 | sed 's/^/# /'
	exit 1
fi
