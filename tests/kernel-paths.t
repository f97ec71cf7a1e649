#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test kernels must not depend on where they were built: a vmlinux that
# names its cache, source or build directory gets another build-id at another
# path, and the committed dumps' layouts (which name the build-id) then match
# nothing.  scripts/vectors/build-kernel.sh maps those directories to fixed names
# (-ffile-prefix-map through KCFLAGS/KAFLAGS); this checks every kernel it
# built into the cache: none of the machine's paths in the file, the mapped
# names present (so the check is not vacuous), and a build-id equal to the
# saved layout's where the kernel has one.  Expected values come from the
# build's own directories, not from memmapcheck.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi; }

kernels=()
for d in "$CACHE"/kernels/*/; do
	# build-kernel.sh's output (kbuild_collect: bzImage, vmlinux, config);
	# Debian's stock 6.1 (scripts/vectors/stock-6.1.sh: vmlinuz, vmlinux, config)
	# was built by Debian, at Debian's paths
	[ -f "$d/vmlinux" ] && [ -f "$d/bzImage" ] || continue
	kernels+=("${d%/}")
done
if [ ${#kernels[@]} -eq 0 ]; then
	echo "1..0 # SKIP no kernel built by scripts/vectors/build-kernel.sh in $CACHE/kernels (scripts/test-prereqs.sh builds them)"
	exit 0
fi

real_cache=$(cd "$CACHE" && pwd -P)
for d in "${kernels[@]}"; do
	name=$(basename "$d")
	v=$d/vmlinux
	leaks=()
	for p in "$CACHE" "$real_cache" "$CACHE/src" "$CACHE/build" "$HOME"; do
		case $p in /|"") continue ;; esac
		c=$(grep -a -c -F -- "$p/" "$v" || true)
		[ "$c" = 0 ] || leaks+=("$p ($c lines)")
	done
	ok $([ ${#leaks[@]} -eq 0 ] && echo 0 || echo 1) "$name: vmlinux names none of the machine's directories${leaks:+: found ${leaks[*]}}"
	c=$(grep -a -c -F -- "/usr/src/linux/" "$v" || true)
	ok $([ "$c" -gt 0 ] && echo 0 || echo 1) "$name: DWARF names the mapped source directory /usr/src/linux ($c lines)"
	layout=$top/test-vectors/layouts/$name.layout
	if [ -f "$layout" ]; then
		want=$(awk '$1 == "build_id" {print $2; exit}' "$layout")
		got=$(readelf -n "$v" 2>/dev/null | awk '/Build ID/ {print $3; exit}')
		ok $([ "$want" = "$got" ] && echo 0 || echo 1) "$name: build-id $got equals the committed layout's ($want)"
	fi
done
echo "1..$n"
exit $fail
