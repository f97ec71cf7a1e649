#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build crash 9.0.x (bundles gdb 16.3) from Debian sid's source package on
# Debian 12 and unpack it into a private prefix beside Debian's crash 8.0.2:
#
#   $CACHE/crash-9/crash_<ver>_<arch>.deb        the built package (kept; its
#                                                presence skips the build)
#   $CACHE/crash-9/root/usr/bin/crash            crash 9 (never /usr/bin/crash)
#   $CACHE/crash-9/root/usr/include/crash/defs.h its defs.h, for extensions
#   $CACHE/crash-9/build.log                     log of the last build
#
# CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}. Idempotent: a second run
# only re-checks. The newest 9.0.x in sid's source index that actually downloads
# is built, else the known-good fallback (CRASH9_FALLBACK). The sid deb-src
# lines are derived at run time from the URIs the system's apt already uses, by
# scripts/vectors/lib-apt-src.sh, into a private apt configuration in
# $CACHE/crash-9/apt-src: the system's apt sources are not touched. Build
# dependencies come from the system's (bookworm) apt.
# On success writes "crash9 ready <path of crash>" to <repo>/.status-crash.
#
# Usage: scripts/vectors/build-crash9.sh [--rebuild]
#   --rebuild   drop the cached .deb and prefix first and build again
# Environment: MEMMAPCHECK_CACHE, CRASH9_JOBS (default 2), CRASH9_FALLBACK.
set -Eeuo pipefail

me=build-crash9
die() { echo "$me: ERROR: $*" >&2; exit 1; }
log() { echo "$me: $*" >&2; }
# shellcheck disable=SC2154
trap 'rc=$?; echo "$me: ERROR: command failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2; exit $rc' ERR

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
C9=$CACHE/crash-9
ROOT=$C9/root
JOBS=${CRASH9_JOBS:-2}
FALLBACK=${CRASH9_FALLBACK:-9.0.2+~16.3-1}
STATUS=$repo/.status-crash
ARCH=$(dpkg --print-architecture)

rebuild=0
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild) rebuild=1 ;;
	-h|--help) sed -n '3,/^# Environment/p' "$0"; exit 0 ;;
	*) echo "usage: $0 [--rebuild]" >&2; exit 2 ;;
	esac
	shift
done

for t in apt-get apt-cache dpkg-source dpkg-buildpackage dpkg-checkbuilddeps dpkg-deb flock nice; do
	command -v "$t" >/dev/null || die "'$t' not found (need apt, dpkg-dev, util-linux on Debian 12)"
done
# apt-get (a build's dependencies, missing runtime libraries) needs root or
# sudo; a crash 9 already in the cache needs neither, whoever runs this.
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
need_root() {
	[ -z "$SUDO" ] || command -v sudo >/dev/null ||
		die "must run as root or have sudo to $1"
}

mkdir -p "$C9" || die "cannot create $C9"
exec 9>"$C9/.lock"
flock -w 7200 9 || die "another $me holds $C9/.lock for over 2 h"

t_all=$SECONDS
elapsed() { echo "$(( SECONDS - $1 )) s"; }

tmp=
cleanup() { [ -z "$tmp" ] || rm -rf "$tmp"; }
trap cleanup EXIT

# Apt may be busy with another engineer's install: wait for its lock.
APT_WAIT=(-o DPkg::Lock::Timeout=1800)

# Newest cached crash_9.0*.deb, or nothing.
cached_deb() {
	local f best=
	for f in "$C9"/crash_9.0*_"$ARCH".deb; do
		[ -f "$f" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions \
			"$(dpkg-deb -f "$f" Version)" gt "$(dpkg-deb -f "$best" Version)"; then
			best=$f
		fi
	done
	echo "$best"
}

# Download the crash source package (newest 9.0.x that downloads) into $C9/src;
# prints the version it got.
fetch_source() {
	local v cands=() got='' t=$SECONDS
	mkdir -p "$C9/src"
	# shellcheck source=lib-apt-src.sh
	. "$here/lib-apt-src.sh" || die "cannot read $here/lib-apt-src.sh"
	apt_src_init "$C9/apt-src" sid ||
		die "cannot set up the private apt config for sid deb-src in $C9/apt-src (see above)"
	log "private sid source index ready in $(elapsed $t) ($(wc -l < "$C9/apt-src/sources.list") deb-src line(s) derived from the system's sources)"

	mapfile -t cands < <(apt_src_versions crash | grep -E '^([0-9]+:)?9\.0\.' || true)
	# newest first, in dpkg's version order
	local i j x
	for ((i = 0; i < ${#cands[@]}; i++)); do
		for ((j = i + 1; j < ${#cands[@]}; j++)); do
			if dpkg --compare-versions "${cands[j]}" gt "${cands[i]}"; then
				x=${cands[i]}; cands[i]=${cands[j]}; cands[j]=$x
			fi
		done
	done
	log "crash 9.0.x in sid's source index: ${cands[*]:-none}"
	printf '%s\n' "${cands[@]}" | grep -qxF "$FALLBACK" || cands+=("$FALLBACK")

	for v in "${cands[@]}"; do
		t=$SECONDS
		log "trying apt-get source --download-only crash=$v"
		if (cd "$C9/src" && apt_src apt-get -q source --download-only "crash=$v") \
			> "$tmp/source.log" 2>&1; then
			log "downloaded crash $v source in $(elapsed $t)"
			got=$v
			break
		fi
		log "crash $v did not download:"; tail -3 "$tmp/source.log" | sed 's/^/    /' >&2
	done
	[ -n "$got" ] || die "no crash 9.0.x source package downloads from sid (tried: ${cands[*]})"
	echo "$got"
}

# Install the build dependencies of a .dsc from the system's (bookworm) apt.
install_build_deps() {
	local dsc=$1 t=$SECONDS deps
	need_root "install crash's build dependencies (apt-get build-dep)"
	export DEBIAN_FRONTEND=noninteractive
	if $SUDO apt-get "${APT_WAIT[@]}" -q -y build-dep "$dsc" > "$tmp/builddep.log" 2>&1; then
		log "build dependencies installed in $(elapsed $t)"; return 0
	fi
	log "apt-get build-dep failed; refreshing the system's package lists and retrying"
	tail -5 "$tmp/builddep.log" | sed 's/^/    /' >&2
	$SUDO apt-get "${APT_WAIT[@]}" -q update > "$tmp/update-sys.log" 2>&1 ||
		{ cat "$tmp/update-sys.log" >&2; die "apt-get update failed"; }
	if $SUDO apt-get "${APT_WAIT[@]}" -q -y build-dep "$dsc" > "$tmp/builddep.log" 2>&1; then
		log "build dependencies installed in $(elapsed $t)"; return 0
	fi
	# Last resort: the package names of Build-Depends without versions/arch/profile
	# qualifiers (debhelper-compat (= N) means debhelper).
	log "apt-get build-dep still failed; installing Build-Depends by name"
	tail -5 "$tmp/builddep.log" | sed 's/^/    /' >&2
	deps=$(awk '/^Build-Depends(-Arch|-Indep)?:/{f=1; sub(/^[^:]*:/, ""); print; next}
		f && /^[ \t]/ {print; next} {f=0}' "$dsc" | tr '\n' ' ' | tr ',' '\n' |
		sed -E 's/\|.*//; s/\([^)]*\)//g; s/\[[^]]*\]//g; s/<[^>]*>//g; s/:[a-z]+//; s/[[:space:]]+//g' |
		sed 's/^debhelper-compat$/debhelper/' | grep -v '^$' | sort -u | tr '\n' ' ')
	[ -n "$deps" ] || die "could not read Build-Depends from $dsc"
	# shellcheck disable=SC2086
	$SUDO apt-get "${APT_WAIT[@]}" -q -y install $deps > "$tmp/builddep.log" 2>&1 ||
		{ tail -20 "$tmp/builddep.log" >&2; die "cannot install build dependencies: $deps"; }
	log "build dependencies ($deps) installed in $(elapsed $t)"
}

build_deb() {
	local v dsc t deb out
	v=$(fetch_source)
	dsc=$C9/src/crash_${v#*:}.dsc
	[ -f "$dsc" ] || die "downloaded crash $v but $dsc is missing"
	install_build_deps "$dsc"

	t=$SECONDS
	rm -rf "$C9/build"
	mkdir -p "$C9/build"
	dpkg-source -x "$dsc" "$C9/build/crash" > "$C9/build/extract.log" 2>&1 ||
		{ cat "$C9/build/extract.log" >&2; die "dpkg-source -x $dsc failed"; }
	log "source unpacked in $(elapsed $t)"
	(cd "$C9/build/crash" && dpkg-checkbuilddeps) ||
		die "build dependencies of crash $v still unmet (see above)"

	t=$SECONDS
	log "building crash $v: nice -n 19 dpkg-buildpackage -b -uc -us -j$JOBS (about 14 min on 2 cores; log: $C9/build.log)"
	if ! (cd "$C9/build/crash" && nice -n 19 dpkg-buildpackage -b -uc -us -j"$JOBS") \
		> "$C9/build.log" 2>&1; then
		tail -40 "$C9/build.log" >&2
		die "dpkg-buildpackage of crash $v failed after $(elapsed $t); full log: $C9/build.log"
	fi
	log "built crash $v in $(elapsed $t)"

	deb=$C9/build/crash_${v#*:}_$ARCH.deb
	[ -f "$deb" ] || die "dpkg-buildpackage succeeded but $deb is missing (have: $(ls "$C9/build"))"
	out=$C9/$(basename "$deb")
	cp "$deb" "$out.tmp" && mv "$out.tmp" "$out"
	rm -rf "$C9/build"     # the .deb is the cache; the tree is ~1 GB
	log "kept $out ($(du -h "$out" | cut -f1))"
}

if [ $rebuild = 1 ]; then
	log "--rebuild: removing cached .deb(s) and $ROOT"
	rm -f "$C9"/crash_9.0*_"$ARCH".deb "$C9/root.stamp"
	rm -rf "$ROOT"
fi

tmp=$(mktemp -d "$C9/tmp.XXXXXX")
deb=$(cached_deb)
if [ -n "$deb" ]; then
	log "using cached $deb (skip build)"
else
	build_deb
	deb=$(cached_deb)
	[ -n "$deb" ] || die "no crash_9.0*_$ARCH.deb in $C9 after the build"
fi
ver=$(dpkg-deb -f "$deb" Version)

# Unpack into the private prefix (again only if the .deb changed).
stamp="$(basename "$deb") $(stat -c '%s %Y' "$deb")"
if [ -x "$ROOT/usr/bin/crash" ] && [ -f "$ROOT/usr/include/crash/defs.h" ] &&
   [ "$(cat "$C9/root.stamp" 2>/dev/null)" = "$stamp" ]; then
	log "prefix $ROOT is current"
else
	t=$SECONDS
	rm -rf "$ROOT" "$ROOT.new"
	dpkg-deb -x "$deb" "$ROOT.new" || die "dpkg-deb -x $deb failed"
	mv "$ROOT.new" "$ROOT"
	echo "$stamp" > "$C9/root.stamp"
	log "unpacked $(basename "$deb") into $ROOT in $(elapsed $t)"
fi
[ -x "$ROOT/usr/bin/crash" ] || die "$ROOT/usr/bin/crash missing after unpacking $deb"
[ -f "$ROOT/usr/include/crash/defs.h" ] || die "$ROOT/usr/include/crash/defs.h missing after unpacking $deb"

# Runtime libraries (present after a build; a cache carried to a fresh machine
# may lack them): satisfy the package's Depends from the system's apt.
if ldd "$ROOT/usr/bin/crash" | grep -q 'not found'; then
	log "crash 9 misses shared libraries; installing its Depends: $(dpkg-deb -f "$deb" Depends)"
	need_root "install crash 9's runtime libraries"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${APT_WAIT[@]}" -q -y satisfy "$(dpkg-deb -f "$deb" Depends)" >&2 ||
		die "cannot install the runtime dependencies of $deb"
fi

out=$("$ROOT/usr/bin/crash" --version 2>&1) ||
	{ echo "$out" >&2; die "$ROOT/usr/bin/crash --version failed"; }
echo "$out" | grep -q '^crash 9\.0\.' ||
	{ echo "$out" >&2; die "$ROOT/usr/bin/crash --version does not report crash 9.0.x"; }
log "$(echo "$out" | grep -m1 '^crash ') ($ROOT/usr/bin/crash, package $ver); /usr/bin/crash: $(
	if [ -x /usr/bin/crash ]; then /usr/bin/crash --version 2>/dev/null | grep -m1 '^crash ' || echo unknown; else echo absent; fi)"

echo "crash9 ready $ROOT/usr/bin/crash" > "$STATUS"
log "wrote $STATUS; total $(elapsed $t_all)"
