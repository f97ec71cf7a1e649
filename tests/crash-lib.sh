# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for running crash with memmapcheck.so (tests/crash.t,
# crash-reader.t, deb.t, scripts/bench/bench-crash.sh).  POSIX sh; source it, do
# not run it.
#
#   MMC_BUILD          build dir (memmapcheck CLI, crash-ext/<ver>/memmapcheck.so)
#   MEMMAPCHECK_CACHE  ${HOME}/.cache/memmapcheck by default
#   MMC_CRASHES        crash binaries to try (default: Debian's and crash 9's)

MMC_BUILD=${MMC_BUILD:-build}
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
MMC_CRASHES=${MMC_CRASHES:-"/usr/bin/crash $CACHE/crash-9/root/usr/bin/crash"}

# "8.0.2" for a crash binary, "" if it does not run.
crash_version() {
	"$1" --version 2>/dev/null | sed -n 's/^crash \([0-9][0-9.a-z+~-]*\).*/\1/p' | head -n 1
}

# The extension built for crash version $1 (a path, maybe absent).
crash_ext_so() {
	echo "${MMC_CRASH_EXT:-$MMC_BUILD/crash-ext}/$1/memmapcheck.so"
}

# Kernel directory of an image: the meta file's kernel_dir, else the image
# name without its -b<boot> / -kdump suffix (HACKING.md naming).
image_kernel_dir() {
	img=$1
	name=$(basename "$img"); name=${name%.*}
	meta=$(dirname "$img")/$name.meta
	kd=
	[ -r "$meta" ] && kd=$(sed -n 's/^kernel_dir=//p' "$meta" | head -n 1)
	if [ -z "$kd" ] || [ ! -d "$kd" ]; then
		base=$(echo "$name" | sed -e 's/-b[0-9][0-9]*$//' -e 's/-kdump$//' -e 's/^bench-//')
		kd=$CACHE/kernels/$base
	fi
	echo "$kd"
}

# "6.1", "6.12", "7.2" from an image or kernel name.
kernel_series() {
	basename "$1" | sed -e 's/^bench-//' | sed -n 's/^\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p'
}

# Kernel series of an image: its meta file's kernel= ("6.12.117"), else its name.
image_series() {
	name=$(basename "$1"); name=${name%.*}
	meta=$(dirname "$1")/$name.meta
	ser=
	[ -r "$meta" ] && ser=$(sed -n 's/^kernel=\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' "$meta" | head -n 1)
	[ -n "$ser" ] || ser=$(kernel_series "$name")
	echo "$ser"
}

# Can crash version $1 open kernel series $2?  crash 8 handles 6.1 only:
# on 6.12+ its gdb 10 dies ("segmentation violation in gdb") or aborts.
crash_can_open() {
	case $1 in
	8.*) [ "$2" = 6.1 ] ;;
	*) true ;;
	esac
}

# crash options a kernel needs: --no_modules without CONFIG_MODULES (crash 9
# on 7.2 otherwise fails with "cannot resolve: modules"), --no_kmem_cache with
# SLUB_TINY.
crash_flags_for() {
	cfg=$1/config
	flags=
	if [ -r "$cfg" ]; then
		grep -q '^CONFIG_MODULES=y' "$cfg" || flags="$flags --no_modules"
		grep -q '^CONFIG_SLUB_TINY=y' "$cfg" && flags="$flags --no_kmem_cache"
	fi
	echo "$flags"
}

# Run a crash batch session: crash_batch CRASH VMLINUX DUMP CMDFILE OUT [FLAGS]
crash_batch() {
	# shellcheck disable=SC2086
	"$1" -s $6 "$2" "$3" -i "$4" </dev/null >"$5" 2>&1
}

# Resident set size (KiB) of the crash running a command file: put
# "!ps -o rss= -p $PPID" in the file (crash runs "!" lines through sh).

# ---- For the TAP tests (tests/crash.t, crash-reader.t): these call the
# ---- skip() of tests/taplib.sh, and cli_snapshot its $CLI.

# $crashes: each crash of $MMC_CRASHES that runs and has its extension
# built, as a "version:path:so" word; each one that has not is a SKIP.
find_crashes() {
	crashes=
	for c in $MMC_CRASHES; do
		if [ ! -x "$c" ]; then
			skip "crash $c absent"
			continue
		fi
		v=$(crash_version "$c")
		so=$(crash_ext_so "$v")
		if [ -z "$v" ]; then
			skip "crash $c: --version says nothing"
		elif [ ! -r "$so" ]; then
			skip "crash $v ($c): no extension built at $so (make; the ASan build has none)"
		else
			crashes="$crashes $v:$c:$so"
		fi
	done
}

# A word of $crashes into v (the version), c (the crash binary) and so (the
# extension built for it).
crash_entry() {
	v=${1%%:*}
	c=${1#*:}
	so=${c#*:}
	c=${c%%:*}
}

# A dump crash is to open: name, kdir (its kernel), vmlinux and series set;
# false, after a SKIP saying why, when the dump or its vmlinux is unreadable.
# shellcheck disable=SC2034 # the variables are for the test
crash_image() {
	name=$(basename "$1" .kdump)
	kdir=$(image_kernel_dir "$1")
	vmlinux=$kdir/vmlinux
	series=$(image_series "$1")
	if [ ! -r "$1" ]; then
		skip "$name: dump $1 unreadable"
		return 1
	fi
	if [ ! -r "$vmlinux" ]; then
		skip "$name: no vmlinux at $vmlinux"
		return 1
	fi
}

# The CLI's own snapshot, for comparison: cli_snapshot VMLINUX DUMP SNAP OUT
# (its messages).  The CLI's exit status, but 0 for exit 4 with SNAP
# written: an incomplete image (a real kdump lacks the map=dev struct
# pages) compares like a complete one.
cli_snapshot() {
	"$CLI" snapshot -q -o "$3" "$1" "$2" >"$4" 2>&1
	_rc=$?
	[ $_rc = 4 ] && [ -s "$3" ] && _rc=0
	return $_rc
}
