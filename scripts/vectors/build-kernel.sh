#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build-kernel.sh KVER [VARIANT] [--kaslr | --fixed-layout | --hvo]
#
# Builds a memmapcheck test kernel.  KVER is 6.12 or 7.2; VARIANT is "base"
# (default) or the name of patches/<KVER>/<VARIANT>.patch.
#   --kaslr         RANDOMIZE_BASE and RANDOMIZE_MEMORY on
#   --fixed-layout  RANDOMIZE_MEMORY off and no 5-level paging support
#                   (X86_5LEVEL=n): DYNAMIC_MEMORY_LAYOUT=n, so the kernel has
#                   no vmemmap_base/page_offset_base/vmalloc_base variables
#                   and uses the architecture's fixed bases (6.12 only: 7.x
#                   always supports 5-level paging)
#   --hvo           as (neither), plus scripts/vectors/kernel-hvo.config: HugeTLB with
#                   the vmemmap optimisation on at boot, ACPI memory hotplug
#                   with memmap_on_memory (the guests of layouts/*-hvo.sh)
#   (neither)       both randomisations off, 5-level support built in
#
#   source  $CACHE/src/linux-<kver>            (scripts/vectors/fetch-kernel-source.sh)
#   build   $CACHE/build/<kver>[-kaslr|-fixed|-hvo] (O= dir; one per kver+flavour)
#   output  $CACHE/kernels/<kver>-<variant>[-kaslr|-fixed|-hvo]/{bzImage,vmlinux,config,patch}
#
# The base is built once per build dir (tinyconfig + scripts/prove/kernel.config
# [+ scripts/vectors/kernel-hvo.config] + olddefconfig, every requested option
# verified; scripts/prove/lib-kbuild.sh, the
# same code scripts/prove/memmapcheck-prove builds with).  A variant applies its patch
# to the shared source tree, rebuilds incrementally, copies the results and
# reverses the patch.  The source tree is shared by both build dirs, so every
# run holds an flock on $CACHE/src/linux-<kver>.lock.  Work whose outputs exist
# (and whose patch is unchanged) is skipped.
set -euo pipefail

usage() { echo "usage: $0 KVER [VARIANT] [--kaslr | --fixed-layout | --hvo]" >&2; exit 2; }

KVER= VARIANT= KASLR=0 FIXED=0 HVO=0
for a in "$@"; do
	case "$a" in
	--kaslr) KASLR=1 ;;
	--fixed-layout) FIXED=1 ;;
	--hvo) HVO=1 ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) if [ -z "$KVER" ]; then KVER=$a; elif [ -z "$VARIANT" ]; then VARIANT=$a; else usage; fi ;;
	esac
done
[ -n "$KVER" ] || usage
[ $((KASLR + FIXED + HVO)) -le 1 ] || usage
VARIANT=${VARIANT:-base}

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
SRC=$CACHE/src/linux-$KVER
SFX=; [ "$KASLR" = 1 ] && SFX=-kaslr; [ "$FIXED" = 1 ] && SFX=-fixed; [ "$HVO" = 1 ] && SFX=-hvo
BUILD=$CACHE/build/$KVER$SFX
OUT=$CACHE/kernels/$KVER-$VARIANT$SFX
FRAG=$HERE/../prove/kernel.config
# The flavour's own fragment, after kernel.config.  Without one the config
# hash below is computed exactly as before the hvo flavour existed, so the
# other build dirs are not reconfigured (their builds stay byte-identical).
FLAVOUR_FRAGS=()
[ "$HVO" = 1 ] && FLAVOUR_FRAGS=("$HERE/kernel-hvo.config")
PATCH=
if [ "$VARIANT" != base ]; then
	PATCH=$TOP/patches/$KVER/$VARIANT.patch
	[ -f "$PATCH" ] || { echo "$0: no such patch: $PATCH" >&2; exit 2; }
fi

. "$HERE/../prove/lib-kbuild.sh"
JOBS=${JOBS:-2}
kbuild_setup "$SRC" "$BUILD"
PREFIX_MAPS=$KB_PREFIX_MAPS

log() { printf '[build-kernel %s %s%s] %s\n' "$KVER" "$VARIANT" "$SFX" "$*" >&2; }
t0=$SECONDS
elapsed() { echo "$((SECONDS - $1)) s"; }

# A patch's diff: from its first "diff " or "--- " line on.  The header
# before it is prose that patch(1) skips, so a kernel built from a patch
# whose header was corrected since is still that patch's kernel.
patch_hunks() { sed -n '/^\(diff \|--- \)/,$p' "$1"; }

outputs_ok() {	# $1 = output dir, $2 = patch file or empty
	local d=$1
	[ -s "$d/bzImage" ] && [ -s "$d/vmlinux" ] && [ -s "$d/config" ] && [ -e "$d/patch" ] || return 1
	if [ -n "$2" ]; then cmp -s <(patch_hunks "$2") <(patch_hunks "$d/patch"); else [ ! -s "$d/patch" ]; fi
}

# first: a tree of another release is replaced, with what was built from it
"$HERE/fetch-kernel-source.sh" "$KVER"
if outputs_ok "$OUT" "$PATCH"; then
	log "up to date: $OUT"
	exit 0
fi

mkdir -p "$CACHE/src" "$BUILD" "$CACHE/kernels"
exec 9>"$CACHE/src/linux-$KVER.lock"
if ! flock -n 9; then
	log "waiting for lock on $SRC"
	flock 9
fi

APPLIED=$SRC/.memmapcheck-applied	# patch currently applied to the tree

reverse_applied() {
	if [ -s "$APPLIED" ]; then
		local p; p=$(cat "$APPLIED")
		log "reversing $(basename "$p")"
		if [ -f "$SRC/.memmapcheck-applied.patch" ]; then
			(cd "$SRC" && patch -p1 -R -s --no-backup-if-mismatch < .memmapcheck-applied.patch)
		fi
		rm -f "$APPLIED" "$SRC/.memmapcheck-applied.patch"
	fi
}
# A previous run may have died with a patch applied.
reverse_applied

# ---------------------------------------------------------------- config
KASLR_FRAG=$BUILD/kaslr.config
configure() {
	if [ "$KASLR" = 1 ]; then
		printf 'CONFIG_RANDOMIZE_BASE=y\nCONFIG_RANDOMIZE_MEMORY=y\n'
	elif [ "$FIXED" = 1 ]; then
		printf '# CONFIG_RANDOMIZE_BASE is not set\n# CONFIG_RANDOMIZE_MEMORY is not set\n# CONFIG_X86_5LEVEL is not set\n# CONFIG_DYNAMIC_MEMORY_LAYOUT is not set\n'
	else
		printf '# CONFIG_RANDOMIZE_BASE is not set\n# CONFIG_RANDOMIZE_MEMORY is not set\n'
	fi > "$KASLR_FRAG.new"
	local want; want=$( (cat "$FRAG" "${FLAVOUR_FRAGS[@]}" "$KASLR_FRAG.new"; echo "$PREFIX_MAPS") | sha256sum | cut -d' ' -f1)
	if [ -f "$BUILD/.config" ] && [ "$(cat "$BUILD/.memmapcheck-config" 2>/dev/null)" = "$want" ]; then
		rm -f "$KASLR_FRAG.new"
		return 0
	fi
	mv "$KASLR_FRAG.new" "$KASLR_FRAG"
	log "configuring $BUILD (tinyconfig + kernel.config${FLAVOUR_FRAGS:+ + $(basename "${FLAVOUR_FRAGS[0]}")} + olddefconfig)"
	rm -f "$BUILD/.memmapcheck-config" "$BUILD/.memmapcheck-base"
	kbuild_make_config tinyconfig "$FRAG" "${FLAVOUR_FRAGS[@]}" "$KASLR_FRAG"
	kbuild_config_check "$FRAG" "${FLAVOUR_FRAGS[@]}" "$KASLR_FRAG"
	log "config: all $(kbuild_count_options "$FRAG" "${FLAVOUR_FRAGS[@]}" "$KASLR_FRAG") requested options set"
	echo "$want" > "$BUILD/.memmapcheck-config"
}

kbuild() {
	kbuild_bzimage
}

collect() {	# $1 = output dir, $2 = patch or empty
	kbuild_collect "$1" "$2"
	log "wrote $1"
}

configure

# ---------------------------------------------------------------- base
BASE_OUT=$CACHE/kernels/$KVER-base$SFX
if [ ! -f "$BUILD/.memmapcheck-base" ] || ! outputs_ok "$BASE_OUT" ""; then
	tb=$SECONDS
	log "building base in $BUILD (full build on first run: minutes)"
	kbuild
	collect "$BASE_OUT" ""
	touch "$BUILD/.memmapcheck-base"
	log "base build: $(elapsed "$tb")"
fi

# ---------------------------------------------------------------- variant
if [ -n "$PATCH" ]; then
	tv=$SECONDS
	(cd "$SRC" && patch -p1 -N -s --dry-run --no-backup-if-mismatch < "$PATCH") || {
		echo "ERROR: $PATCH does not apply to $SRC" >&2; exit 1; }
	cp "$PATCH" "$SRC/.memmapcheck-applied.patch"
	echo "$PATCH" > "$APPLIED"
	trap reverse_applied EXIT
	trap 'exit 130' INT TERM HUP
	(cd "$SRC" && patch -p1 -N -s --no-backup-if-mismatch < .memmapcheck-applied.patch)
	log "applied $(basename "$PATCH"); incremental rebuild"
	kbuild
	collect "$OUT" "$PATCH"
	reverse_applied
	trap - EXIT
	log "variant build: $(elapsed "$tv")"
fi
log "done in $(elapsed "$t0")"
