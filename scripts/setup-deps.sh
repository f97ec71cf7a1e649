#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what memmapcheck needs to build and test on Debian 12, idempotently.
# Usage: scripts/setup-deps.sh [--build-only]
set -euo pipefail

pkgs=(build-essential pkg-config libkdumpfile-dev libdw-dev libelf-dev perl
      python3 xz-utils crash makedumpfile time)
if [ "${1:-}" != "--build-only" ]; then
	pkgs+=(qemu-system-x86 busybox-static ndctl cpio kexec-tools python3-drgn
	       socat zstd)
	# the test kernels' builds (scripts/prove/lib-kbuild.sh kbuild_tools_check)
	pkgs+=(flex bison bc libssl-dev)
	# make check's crash session under memcheck (tests/crash-session.t)
	pkgs+=(valgrind)
	# memmapcheck-prove: rsync for its private tree copies, ccache for its
	# kernel builds; tests/svgmap.t renders the difference maps in chromium
	pkgs+=(rsync git ccache chromium)
	# tests/deb.t: the Debian packages and lintian; tests/kcidb.t: the
	# KCIDB schema check; tests/lava.t: LAVA's dispatcher (lava-run) and
	# a kernel in /boot for libguestfs' appliance (LAVA writes the test
	# overlay disk with it)
	pkgs+=(dpkg-dev debhelper lintian python3-jsonschema lava-dispatcher
	       lava-common python3-guestfs linux-image-amd64)
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup-deps: installing ${missing[*]}" >&2
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
fi
