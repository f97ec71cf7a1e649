#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fetch-kernel-source.sh KVER
#
# Unpacks a Debian-patched kernel source tree into $CACHE/src/linux-<KVER>:
# the release the committed vectors were built from (the "release" line of
# test-vectors/layouts/<KVER>-base.layout), so that rebuilt kernels have the
# committed dumps' build-ids.  Idempotent: a tree of that release is kept.
#   6.12  from the bookworm binary package linux-source-6.12 of that release
#         (LINUX_612_VERSION=V: that Debian version): the one installed in
#         /usr/src if it is that version, else `apt-get download`ed; a
#         machine whose archive no longer has it gets the newest, loudly
#   7.2   from Debian's sid source package "linux", version 7.2.8-1 preferred
#         (the only one known to download); otherwise the newest 7.2.x that
#         downloads.  deb-src lines come from lib-apt-src.sh (private apt config).
# A tree of another release is replaced, with the builds and kernels made
# from it ($CACHE/build/<KVER>*, $CACHE/kernels/<KVER>-*).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
KVER=${1:?usage: $0 KVER}
DEST=$CACHE/src/linux-$KVER
log() { printf '[fetch-kernel-source %s] %s\n' "$KVER" "$*" >&2; }

# the kernel release of a tree, from its top Makefile
tree_release() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { if (v != "") print v "." p "." s }' "$1/Makefile"
}
WANT=$(sed -n 's/^release //p' "$HERE/../../test-vectors/layouts/$KVER-base.layout" 2>/dev/null | head -1)
# a tree of the wanted release (of any, when no layout names one) is there
present() {
	[ -f "$DEST/Makefile" ] && { [ -z "$WANT" ] || [ "$(tree_release "$DEST")" = "$WANT" ]; } &&
		log "present: $DEST"
}

present && exit 0

mkdir -p "$CACHE/src"
exec 9>"$CACHE/src/linux-$KVER.fetch.lock"
flock 9
present && exit 0
t0=$SECONDS
TMP=$CACHE/src/.fetch-$KVER.$$
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

# Put the unpacked tree $1 in place of DEST; what an older tree built goes too.
install_tree() {
	if [ -e "$DEST" ]; then
		log "replacing $DEST (release $(tree_release "$DEST")) and what was built from it"
		rm -rf "$DEST" "$CACHE/build/$KVER" "$CACHE/build/$KVER"-* "$CACHE/kernels/$KVER"-*
	fi
	mv "$1" "$DEST"
}

case "$KVER" in
6.12)
	# Debian versions of linux-source-6.12 this machine's archive has, newest first
	mapfile -t versions < <(apt-cache madison linux-source-6.12 2>/dev/null |
		awk -F' *[|] *' '{ print $2 }' | awk '!seen[$0]++')
	pick=${LINUX_612_VERSION:-}
	if [ -z "$pick" ]; then
		for v in "${versions[@]}"; do
			[ "${v%%-*}" = "$WANT" ] && { pick=$v; break; }
		done
	fi
	if [ -z "$pick" ]; then
		pick=${versions[0]:-}
		log "WARNING: no linux-source-6.12 of release ${WANT:-?} in this machine's archive;" \
			"using ${pick:-the installed one}: rebuilt kernels will not have the committed dumps' build-ids"
	fi
	tarball=/usr/src/linux-source-6.12.tar.xz
	installed=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
	if [ -n "$pick" ] && { [ "$installed" != "$pick" ] || [ ! -f "$tarball" ]; }; then
		log "downloading linux-source-6.12=$pick (installed: ${installed:-none})"
		(cd "$TMP" && apt-get download -q "linux-source-6.12=$pick" >&2)
		dpkg-deb --fsys-tarfile "$TMP"/linux-source-6.12_*.deb |
			tar -C "$TMP" -x ./usr/src/linux-source-6.12.tar.xz
		rm -f "$TMP"/linux-source-6.12_*.deb
		tarball=$TMP/usr/src/linux-source-6.12.tar.xz
	elif [ ! -f "$tarball" ]; then
		log "installing linux-source-6.12"
		SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q linux-source-6.12 >&2
	fi
	log "unpacking $tarball"
	tar -C "$TMP" -xJf "$tarball"
	echo "${pick:-$installed}" > "$TMP/linux-source-6.12/.debian-source-version"
	install_tree "$TMP/linux-source-6.12"
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
	install_tree "$TMP/tree"
	;;
*)
	log "unknown KVER $KVER (6.12 or 7.2)"; exit 2 ;;
esac
log "done in $((SECONDS - t0)) s: $DEST"
