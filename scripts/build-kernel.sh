#!/bin/bash
# build-kernel.sh KVER [VARIANT] [--kaslr]
#
# Builds a memmapcheck test kernel.  KVER is 6.12 or 7.2; VARIANT is "base"
# (default) or the name of patches/<KVER>/<VARIANT>.patch.
#
#   source  $CACHE/src/linux-<kver>            (scripts/fetch-kernel-source.sh)
#   build   $CACHE/build/<kver>[-kaslr]         (O= dir; one per kver+kaslr)
#   output  $CACHE/kernels/<kver>-<variant>[-kaslr]/{bzImage,vmlinux,config,patch}
#
# The base is built once per build dir (tinyconfig + scripts/kernel.config +
# olddefconfig, every requested option verified).  A variant applies its patch
# to the shared source tree, rebuilds incrementally, copies the results and
# reverses the patch.  The source tree is shared by both build dirs, so every
# run holds an flock on $CACHE/src/linux-<kver>.lock.  Work whose outputs exist
# (and whose patch is unchanged) is skipped.
set -euo pipefail

usage() { echo "usage: $0 KVER [VARIANT] [--kaslr]" >&2; exit 2; }

KVER= VARIANT= KASLR=0
for a in "$@"; do
	case "$a" in
	--kaslr) KASLR=1 ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) if [ -z "$KVER" ]; then KVER=$a; elif [ -z "$VARIANT" ]; then VARIANT=$a; else usage; fi ;;
	esac
done
[ -n "$KVER" ] || usage
VARIANT=${VARIANT:-base}

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
SRC=$CACHE/src/linux-$KVER
SFX=; [ "$KASLR" = 1 ] && SFX=-kaslr
BUILD=$CACHE/build/$KVER$SFX
OUT=$CACHE/kernels/$KVER-$VARIANT$SFX
FRAG=$HERE/kernel.config
PATCH=
if [ "$VARIANT" != base ]; then
	PATCH=$TOP/patches/$KVER/$VARIANT.patch
	[ -f "$PATCH" ] || { echo "$0: no such patch: $PATCH" >&2; exit 2; }
fi

# Reproducible outputs.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=memmapcheck
export KBUILD_BUILD_HOST=memmapcheck
export KBUILD_BUILD_VERSION=1
export LC_ALL=C

JOBS=${JOBS:-2}
MAKE=(nice make -j"$JOBS" -C "$SRC" O="$BUILD")

log() { printf '[build-kernel %s %s%s] %s\n' "$KVER" "$VARIANT" "$SFX" "$*" >&2; }
t0=$SECONDS
elapsed() { echo "$((SECONDS - $1)) s"; }

outputs_ok() {	# $1 = output dir, $2 = patch file or empty
	local d=$1
	[ -s "$d/bzImage" ] && [ -s "$d/vmlinux" ] && [ -s "$d/config" ] && [ -e "$d/patch" ] || return 1
	if [ -n "$2" ]; then cmp -s "$2" "$d/patch"; else [ ! -s "$d/patch" ]; fi
}

if outputs_ok "$OUT" "$PATCH"; then
	log "up to date: $OUT"
	exit 0
fi

[ -f "$SRC/Makefile" ] || "$HERE/fetch-kernel-source.sh" "$KVER"

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
config_check() {	# fail listing every requested option that got dropped
	local f line sym val bad=()
	for f in "$@"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*)
				sym=${line%%=*}; val=${line#*=}
				grep -qxF "$sym=$val" "$BUILD/.config" || bad+=("$line (got: $(grep -E "^(# )?$sym[= ]" "$BUILD/.config" || echo unset))")
				;;
			"# CONFIG_"*" is not set")
				sym=${line#\# }; sym=${sym%% *}
				if grep -qE "^$sym=" "$BUILD/.config"; then
					bad+=("$line (got: $(grep -E "^$sym=" "$BUILD/.config"))")
				fi
				;;
			esac
		done < "$f"
	done
	if [ ${#bad[@]} -gt 0 ]; then
		echo "ERROR: $BUILD/.config: ${#bad[@]} requested option(s) dropped by olddefconfig:" >&2
		printf '  %s\n' "${bad[@]}" >&2
		return 1
	fi
}

KASLR_FRAG=$BUILD/kaslr.config
configure() {
	if [ "$KASLR" = 1 ]; then
		printf 'CONFIG_RANDOMIZE_BASE=y\nCONFIG_RANDOMIZE_MEMORY=y\n'
	else
		printf '# CONFIG_RANDOMIZE_BASE is not set\n# CONFIG_RANDOMIZE_MEMORY is not set\n'
	fi > "$KASLR_FRAG.new"
	local want; want=$(cat "$FRAG" "$KASLR_FRAG.new" | sha256sum | cut -d' ' -f1)
	if [ -f "$BUILD/.config" ] && [ "$(cat "$BUILD/.memmapcheck-config" 2>/dev/null)" = "$want" ]; then
		rm -f "$KASLR_FRAG.new"
		return 0
	fi
	mv "$KASLR_FRAG.new" "$KASLR_FRAG"
	log "configuring $BUILD (tinyconfig + kernel.config + olddefconfig)"
	rm -f "$BUILD/.memmapcheck-config" "$BUILD/.memmapcheck-base"
	"${MAKE[@]}" -s tinyconfig >/dev/null
	(cd "$SRC" && ./scripts/kconfig/merge_config.sh -m -O "$BUILD" "$BUILD/.config" "$FRAG" "$KASLR_FRAG" >/dev/null)
	"${MAKE[@]}" -s olddefconfig >/dev/null
	config_check "$FRAG" "$KASLR_FRAG"
	log "config: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$FRAG" "$KASLR_FRAG" | awk -F: '{s+=$2} END {print s}') requested options set"
	echo "$want" > "$BUILD/.memmapcheck-config"
}

kbuild() {
	"${MAKE[@]}" -s bzImage
}

collect() {	# $1 = output dir, $2 = patch or empty
	local d=$1 tmp=$1.tmp.$$
	rm -rf "$tmp"; mkdir -p "$tmp"
	cp "$BUILD/arch/x86/boot/bzImage" "$tmp/bzImage"
	cp "$BUILD/vmlinux" "$tmp/vmlinux"
	cp "$BUILD/.config" "$tmp/config"
	if [ -n "$2" ]; then cp "$2" "$tmp/patch"; else : > "$tmp/patch"; fi
	rm -rf "$d"; mv "$tmp" "$d"
	log "wrote $d"
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
