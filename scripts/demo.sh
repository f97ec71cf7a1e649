#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Set a fresh Debian 12 machine up and run the main job on the included
# example: does the template fast path (patches/6.12/template.patch) leave
# the final struct page state of 6.12 unchanged?  And would memmapcheck catch
# a tail page left at refcount 1 (patches/6.12/mut-tail-refcount.patch)?
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/setup-deps.sh --build-only
make -s lib cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf dumps/6.12.tar.xz -C "$tmp" 6.12-base-b1.kdump 6.12-template-b1.kdump \
	6.12-mut-tail-refcount-b1.kdump
L=test-vectors/layouts
M=build/memmapcheck

echo "== base 6.12 vs the template fast-path port (expected: identical)"
rc=0
$M compare -n 3 "$L/6.12-base.layout" "$tmp/6.12-base-b1.kdump" \
	"$L/6.12-template.layout" "$tmp/6.12-template-b1.kdump" || rc=$?
echo "(exit $rc)"
echo
echo "== base 6.12 vs a mutant that leaves compound tails at refcount 1 (expected: different)"
rc=0
$M compare -n 2 "$L/6.12-base.layout" "$tmp/6.12-base-b1.kdump" \
	"$L/6.12-mut-tail-refcount.layout" "$tmp/6.12-mut-tail-refcount-b1.kdump" || rc=$?
echo "(exit $rc)"
