#!/bin/bash
# fetch-kernel-source.sh KVER
#
# Unpacks a Debian-patched kernel source tree into $CACHE/src/linux-<KVER>
# (idempotent: does nothing if the tree is already there).
#   6.12  from the bookworm binary package linux-source-6.12 (/usr/src tarball)
#   7.2   from Debian's sid source package "linux", version 7.2.8-1 preferred
#         (the only one known to download); otherwise the newest 7.2.x that
#         downloads.  deb-src lines come from lib-apt-src.sh (private apt config).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
KVER=${1:?usage: $0 KVER}
DEST=$CACHE/src/linux-$KVER
log() { printf '[fetch-kernel-source %s] %s\n' "$KVER" "$*" >&2; }

if [ -f "$DEST/Makefile" ]; then
	log "present: $DEST"
	exit 0
fi
mkdir -p "$CACHE/src"
exec 9>"$CACHE/src/linux-$KVER.fetch.lock"
flock 9
[ -f "$DEST/Makefile" ] && { log "present: $DEST"; exit 0; }
t0=$SECONDS
TMP=$CACHE/src/.fetch-$KVER.$$
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

case "$KVER" in
6.12)
	tarball=/usr/src/linux-source-6.12.tar.xz
	if [ ! -f "$tarball" ]; then
		log "installing linux-source-6.12"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-source-6.12 >&2
	fi
	log "unpacking $tarball"
	tar -C "$TMP" -xJf "$tarball"
	mv "$TMP/linux-source-6.12" "$DEST"
	;;
7.2)
	command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev >&2
	. "$HERE/lib-apt-src.sh"
	apt_src_init "$CACHE/apt-src" sid
	PREFERRED=${LINUX_72_VERSION:-7.2.8-1}
	mapfile -t versions < <( { echo "$PREFERRED"; apt_src_versions linux | grep -E '^7\.2\.'; } | awk '!seen[$0]++')
	got=
	for v in "${versions[@]}"; do
		log "trying apt-get source linux=$v"
		if (cd "$TMP" && apt_src apt-get -q source --download-only "linux=$v" >&2); then
			got=$v; break
		fi
		rm -f "$TMP"/linux_*
	done
	[ -n "$got" ] || { log "ERROR: no linux 7.2.x source package downloads (tried: ${versions[*]})"; exit 1; }
	log "extracting linux $got"
	dsc=$(ls "$TMP"/linux_*.dsc)
	(cd "$TMP" && dpkg-source -q -x "$dsc" tree >&2)
	echo "$got" > "$TMP/tree/.debian-source-version"
	mv "$TMP/tree" "$DEST"
	;;
*)
	log "unknown KVER $KVER (6.12 or 7.2)"; exit 2 ;;
esac
log "done in $((SECONDS - t0)) s: $DEST"
