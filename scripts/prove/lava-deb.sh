#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages of this checkout, built once per content of the
# tracked files: `dpkg-buildpackage -us -uc` (source and binary packages) on
# a copy of them, kept in $MEMMAPCHECK_CACHE/debs/memmapcheck/KEY/ with the
# .changes, the build log and the build's seconds (build.secs).  LAVA jobs
# (tests/lava.t, lava-prove.sh) and tests/deb.t use the same build: make
# check runs them side by side, and one package build is several minutes.
# A second caller while the build runs waits for it (flock).
#
# usage: scripts/prove/lava-deb.sh [--dir]
#   prints the path of memmapcheck_*.deb; with --dir the directory instead
# Exit: 0, 2 not a git checkout or dpkg-buildpackage/debhelper missing,
#       3 the build failed (its log is named).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
want=deb
case "${1:-}" in
--dir) want=dir ;;
"") ;;
*) echo "usage: $0 [--dir]" >&2; exit 2 ;;
esac
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "lava-deb: $top is not a git checkout: set MEMMAPCHECK_DEB to a memmapcheck .deb" >&2; exit 2; }
for t in dpkg-buildpackage dh flock; do
	command -v $t >/dev/null || { echo "lava-deb: missing $t (apt-get install dpkg-dev debhelper util-linux)" >&2; exit 2; }
done
# the key: every tracked file's path, mode and content as they are now
key=$(cd "$top" && git ls-files -s -z | cut -z -f2 | xargs -0 -r sha256sum -- 2>/dev/null |
	sha256sum | cut -c1-16)
dir=$CACHE/debs/memmapcheck/$key
print() {
	if [ $want = dir ]; then echo "$dir"; else ls "$dir"/memmapcheck_*_amd64.deb; fi
}
built() { [ -f "$dir/build.secs" ] && ls "$dir"/memmapcheck_*.changes >/dev/null 2>&1; }
built && { print; exit 0; }
mkdir -p "$CACHE/debs/memmapcheck"
exec 9>"$CACHE/debs/memmapcheck/.lock-$key"
flock 9
built && { print; exit 0; }
work=$(mktemp -d "$CACHE/debs/memmapcheck/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/memmapcheck-$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
mkdir -p "$src"
(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$src"
t0=$(date +%s)
if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=2" nice dpkg-buildpackage -us -uc) \
	> "$work/build.log" 2>&1; then
	mkdir -p "$CACHE/logs"
	cp "$work/build.log" "$CACHE/logs/lava-deb-$key.log"
	echo "lava-deb: dpkg-buildpackage failed: $CACHE/logs/lava-deb-$key.log" >&2
	exit 3
fi
echo $(( $(date +%s) - t0 )) > "$work/build.secs"
rm -rf "$src" "$dir.tmp"
mkdir -p "$dir.tmp"
find "$work" -maxdepth 1 -type f -exec mv -t "$dir.tmp" {} +
rm -rf "$dir"
mv "$dir.tmp" "$dir"
print
