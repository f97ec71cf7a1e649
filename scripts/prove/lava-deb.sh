#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The memmapcheck .deb of this checkout, for LAVA jobs: built once per content
# of the tracked files (dpkg-buildpackage -b -us -uc on a copy of them, the
# binary packages only) and kept in $MEMMAPCHECK_CACHE/debs/memmapcheck/KEY/.
# Prints the path of memmapcheck_*.deb.
#
# usage: scripts/prove/lava-deb.sh
# Exit: 0, 2 not a git checkout or dpkg-buildpackage/debhelper missing,
#       3 the build failed (its log is named).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "lava-deb: $top is not a git checkout: set MEMMAPCHECK_DEB to a memmapcheck .deb" >&2; exit 2; }
for t in dpkg-buildpackage dh; do
	command -v $t >/dev/null || { echo "lava-deb: missing $t (apt-get install dpkg-dev debhelper)" >&2; exit 2; }
done
# the key: every tracked file's path, mode and content as they are now
key=$(cd "$top" && git ls-files -s -z | cut -z -f2 | xargs -0 -r sha256sum -- 2>/dev/null |
	sha256sum | cut -c1-16)
dir=$CACHE/debs/memmapcheck/$key
deb=$(ls "$dir"/memmapcheck_*_amd64.deb 2>/dev/null | head -1 || true)
if [ -n "$deb" ]; then
	echo "$deb"
	exit 0
fi
mkdir -p "$CACHE/debs/memmapcheck"
work=$(mktemp -d "$CACHE/debs/memmapcheck/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$work/src"
if ! (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=2" nice dpkg-buildpackage -b -us -uc) \
	> "$work/build.log" 2>&1; then
	mkdir -p "$CACHE/logs"
	cp "$work/build.log" "$CACHE/logs/lava-deb-$key.log"
	echo "lava-deb: dpkg-buildpackage failed: $CACHE/logs/lava-deb-$key.log" >&2
	exit 3
fi
mkdir -p "$dir.tmp"
mv "$work"/*.deb "$dir.tmp/"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
ls "$dir"/memmapcheck_*_amd64.deb
