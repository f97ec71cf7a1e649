#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unpack the committed dumps of one group (dumps/<group>.tar.xz: 6.1-stock,
# 6.12, 7.2) into the cache, once per tar content, and print the directory.
# usage: scripts/vectors/unpack-dumps.sh GROUP
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
g=${1:?usage: unpack-dumps.sh GROUP}
tar=$top/dumps/$g.tar.xz
[ -r "$tar" ] || { echo "unpack-dumps: no $tar" >&2; exit 2; }
h=$(sha256sum "$tar" | cut -c1-16)
out=$CACHE/vectors/$g-$h
if [ ! -e "$out/.done" ]; then
	mkdir -p "$CACHE/vectors"
	exec 9>"$CACHE/vectors/.lock"
	flock 9
	if [ ! -e "$out/.done" ]; then
		rm -rf "$out.tmp" "$out"
		mkdir -p "$out.tmp"
		tar -xJf "$tar" -C "$out.tmp"
		touch "$out.tmp/.done"
		mv "$out.tmp" "$out"
	fi
fi
echo "$out"
