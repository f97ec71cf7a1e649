# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Kernel builds for memmapcheck's guests, shared by scripts/vectors/build-kernel.sh
# (the test kernels: Debian's trees in the cache, patches/<kver>/*.patch)
# and scripts/prove/memmapcheck-prove (any tree, the user's patches or refs).
# Sourced; nothing runs at source time.
#
#   kbuild_setup SRC BUILD [CC]    KB_SRC, KB_BUILD, KB_PREFIX_MAPS, KB_MAKE
#   kbuild_make_config START FRAG...   .config from START (tinyconfig or a
#                                  config file) + FRAGs + olddefconfig
#   kbuild_config_check FRAG...    every option the FRAGs ask for is set,
#                                  else name each dropped one and fail
#   kbuild_count_options FRAG...   how many options the FRAGs set
#   kbuild_bzimage                 make bzImage
#   kbuild_collect OUT [PATCH]     bzImage, vmlinux, config, patch -> OUT
#   kbuild_lock FILE [WHAT]        take an flock on FILE for the rest of the
#                                  process (says so when it has to wait)
#
# Builds do not depend on where the tree, the build dir or the cache are, or
# who builds: fixed KBUILD_BUILD_* and file-prefix maps.

# The host tools a kernel build runs (Documentation/process/changes.rst:
# flex and bison for kconfig, bc for timeconst, openssl's headers for
# certs/ and scripts/sign-file, libelf's for objtool); scripts/setup-deps.sh
# installs them.  Checked before kconfig starts, so a missing one is named
# instead of surfacing as "flex: not found" deep inside make.
kbuild_tools_check() {
	local t missing=()
	for t in gcc make flex bison bc perl; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ -e /usr/include/openssl/ssl.h ] || missing+=("openssl headers (libssl-dev)")
	[ -e /usr/include/libelf.h ] || missing+=("libelf headers (libelf-dev)")
	if [ ${#missing[@]} -gt 0 ]; then
		echo "kernel build needs: ${missing[*]} (scripts/setup-deps.sh installs them)" >&2
		return 1
	fi
}

# The same source and config give the same vmlinux wherever the cache is and
# whoever builds it: DWARF (comp_dir, file and directory names, .S line
# tables) would otherwise record the source and build directories.  gcc
# passes the maps on to gas for .S files and leaves them out of
# DW_AT_producer.  Mapped to fixed, path-free names.
kbuild_setup() {
	KB_SRC=$1 KB_BUILD=$2
	kbuild_tools_check
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=memmapcheck
	export KBUILD_BUILD_HOST=memmapcheck
	export KBUILD_BUILD_VERSION=1
	export LC_ALL=C
	KB_PREFIX_MAPS="-ffile-prefix-map=$KB_SRC=/usr/src/linux -ffile-prefix-map=$KB_BUILD=/usr/src/linux-build"
	KB_MAKE=(nice make -j"${JOBS:-2}" -C "$KB_SRC" O="$KB_BUILD" KCFLAGS="$KB_PREFIX_MAPS" KAFLAGS="$KB_PREFIX_MAPS")
	if [ -n "${3:-}" ]; then KB_MAKE+=(CC="$3"); fi
}

kbuild_make_config() {	# START FRAG...
	local start=$1; shift
	mkdir -p "$KB_BUILD"
	if [ "$start" = tinyconfig ]; then
		"${KB_MAKE[@]}" -s tinyconfig >/dev/null
	else
		cp "$start" "$KB_BUILD/.config"
	fi
	(cd "$KB_SRC" && ./scripts/kconfig/merge_config.sh -m -O "$KB_BUILD" "$KB_BUILD/.config" "$@" >/dev/null)
	"${KB_MAKE[@]}" -s olddefconfig >/dev/null
}

kbuild_config_check() {	# FRAG...: fail listing every requested option that got dropped
	local f line sym val bad=() cfg=$KB_BUILD/.config
	for f in "$@"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*)
				sym=${line%%=*}; val=${line#*=}
				grep -qxF "$sym=$val" "$cfg" || bad+=("$line (got: $(grep -E "^(# )?${sym}[= ]" "$cfg" || echo unset))")
				;;
			"# CONFIG_"*" is not set")
				sym=${line#\# }; sym=${sym%% *}
				if grep -qE "^$sym=" "$cfg"; then
					bad+=("$line (got: $(grep -E "^$sym=" "$cfg"))")
				fi
				;;
			esac
		done < "$f"
	done
	if [ ${#bad[@]} -gt 0 ]; then
		echo "ERROR: $cfg: ${#bad[@]} requested option(s) dropped by olddefconfig:" >&2
		printf '  %s\n' "${bad[@]}" >&2
		return 1
	fi
}

kbuild_count_options() {	# FRAG...
	grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$@" /dev/null | awk -F: '{s+=$NF} END {print s}'
}

kbuild_bzimage() {
	"${KB_MAKE[@]}" -s bzImage
}

kbuild_collect() {	# OUT [PATCH]: replaces OUT as a whole
	local d=$1 tmp=$1.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp"
	cp "$KB_BUILD/arch/x86/boot/bzImage" "$tmp/bzImage"
	cp "$KB_BUILD/vmlinux" "$tmp/vmlinux"
	cp "$KB_BUILD/.config" "$tmp/config"
	if [ -n "${2:-}" ]; then cp "$2" "$tmp/patch"; else : > "$tmp/patch"; fi
	rm -rf "$d"; mv "$tmp" "$d"
}

kbuild_lock() {	# FILE [WHAT]
	local fd
	exec {fd}>"$1"
	if ! flock -n "$fd"; then
		echo "waiting for lock on ${2:-$1}" >&2
		flock "$fd"
	fi
}
