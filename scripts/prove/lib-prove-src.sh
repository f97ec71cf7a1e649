# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Kernel sources for memmapcheck-prove: a private copy of the user's tree (or
# a private clone of the user's repository) in the cache, switched between
# the base and the new state, so one build dir rebuilds incrementally and the
# user's tree or checkout is never written to.  Sourced.
#
#   src_check_tree TREE            a clean kernel source tree, else exit 2
#   src_fingerprint TREE MANIFEST  hash of every file's name, type and content
#   src_patch_files PATCH...       paths (-p1) the patches touch, sorted
#   src_validate_patches TREE PATCH...   apply them in order to copies of the
#                                  files they touch, else exit 2 naming it
#   src_copy_sync TREE FARM        FARM := TREE (rsync); files the previous
#                                  run patched get a fresh mtime, so make
#                                  rebuilds what they touch
#   src_copy_patch FARM PATCH...   apply the patches to FARM
#   src_git_resolve REPO REF       full commit id, else exit 2
#   src_git_sync REPO CLONE SHA    CLONE (git clone --shared) checked out at
#                                  SHA; only files that differ are rewritten
#
# Patched-file list: FARM/../patched-files.

src_die() { echo "memmapcheck-prove: $*" >&2; exit 2; }

src_check_tree() {
	local t=$1
	[ -d "$t" ] || src_die "$t: no such directory"
	[ -f "$t/Makefile" ] && [ -f "$t/mm/mm_init.c" ] && [ -d "$t/arch/x86" ] ||
		src_die "$t: not a Linux kernel source tree (no Makefile, mm/mm_init.c, arch/x86)"
	if [ -e "$t/.config" ] || [ -e "$t/include/config/auto.conf" ]; then
		src_die "$t: built in the tree (.config present); builds here are out of tree (O=), which needs a clean tree: 'make mrproper' there, or use a clean copy"
	fi
	if [ -s "$t/.memmapcheck-applied" ]; then
		src_die "$t: $(cat "$t/.memmapcheck-applied") is applied by an interrupted build-kernel.sh; run it again to reverse the patch"
	fi
}

# Content, not mtimes: a file patched and unpatched again (build-kernel.sh
# on the cache's trees, git stash/checkout) keeps its key.  MANIFEST keeps
# each file's hash by name, size, mtime and type, so only files whose stat
# changed are read again (the first run reads the whole tree: seconds).
src_fingerprint() {	# TREE MANIFEST
	local t=$1 m=$2 tmp
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/memmapcheck-prove.XXXXXX")
	(cd "$t" && find . -path ./.git -prune -o \( -type f -o -type l \) -printf '%P\t%s\t%T@\t%y\n') |
		LC_ALL=C sort > "$tmp/stat"
	[ -f "$m" ] || : > "$m"
	# stat lines still in the manifest keep their hash; the rest get "-"
	awk -F'\t' 'FILENAME == ARGV[1] { h[$1 FS $2 FS $3 FS $4] = $5; next }
		{ print $0 "\t" (($0 in h) ? h[$0] : "-") }' "$m" "$tmp/stat" > "$tmp/known"
	awk -F'\t' '$5 == "-" && $4 == "f" { printf "%s%c", $1, 0 }' "$tmp/known" |
		(cd "$t" && xargs -0 -r sha256sum -z) | tr '\0' '\n' |
		awk '{ print substr($0, 67) "\t" substr($0, 1, 64) }' > "$tmp/files"
	awk -F'\t' '$5 == "-" && $4 == "l" { print $1 }' "$tmp/known" |
		while IFS= read -r f; do
			printf '%s\t%s\n' "$f" "$(readlink "$t/$f" | sha256sum | cut -c1-64)"
		done > "$tmp/links"
	awk -F'\t' -v OFS='\t' 'FILENAME != ARGV[3] { h[$1] = $2; next }
		{ if ($5 == "-") $5 = h[$1]; print }' "$tmp/files" "$tmp/links" "$tmp/known" > "$tmp/new"
	if awk -F'\t' '$5 == "" { exit 1 }' "$tmp/new"; then
		cp "$tmp/new" "$m"
	else
		rm -rf "$tmp"
		echo "memmapcheck-prove: $t: could not read every file" >&2
		exit 2
	fi
	cut -f1,4,5 "$tmp/new" | sha256sum | cut -c1-64
	rm -rf "$tmp"
}

src_patch_files() {
	local p
	for p in "$@"; do
		# a "--- " line counts only when a "+++ " line follows it (a removed
		# line may itself start with "-- ")
		awk '
		function strip(s) { sub(/\t.*/, "", s); if (s == "/dev/null") return ""; sub(/^[^\/]*\//, "", s); return s }
		/^\+\+\+ / && prev != "" { a = strip(prev); b = strip(substr($0, 5)); if (a != "") print a; if (b != "") print b }
		/^(rename|copy) (from|to) / { print substr($0, index($0, $3)) }
		{ prev = /^--- / ? substr($0, 5) : "" }
		' "$p"
	done | LC_ALL=C sort -u
}

src_validate_patches() {	# TREE PATCH...
	local tree=$1 scratch f p out prev=; shift
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/memmapcheck-prove.XXXXXX")
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		if [ -e "$tree/$f" ]; then
			mkdir -p "$scratch/$(dirname "$f")"
			cp -p "$tree/$f" "$scratch/$f"
		fi
	done < <(src_patch_files "$@")
	for p in "$@"; do
		if ! out=$(patch -p1 -N -s --no-backup-if-mismatch -r - -d "$scratch" < "$p" 2>&1); then
			rm -rf "$scratch"
			src_die "$p does not apply to $tree${prev:+ after $prev}:"$'\n'"$out"
		fi
		prev="${prev:+$prev, }$(basename "$p")"
	done
	rm -rf "$scratch"
}

# make decides by mtime: every file rsync rewrites (the user's changes, which
# may carry an old mtime from tar or cp -p, and the files the last run
# patched) gets the current time, so whatever was built from the old content
# is rebuilt.  A fresh copy is a full build anyway and is left alone.
src_copy_sync() {	# TREE FARM
	local tree=$1 farm=$2 list fresh=0
	list=$(dirname "$farm")/patched-files
	[ -d "$farm" ] || fresh=1
	mkdir -p "$farm"
	if [ -f "$list" ]; then
		# their content may equal the tree's again only by mtime: force a copy
		(cd "$farm" && xargs -r -d '\n' rm -f < "$list")
	fi
	nice ionice -c3 rsync -a --delete --exclude=/.git --out-format='%i %n' "$tree/" "$farm/" |
		awk '$1 ~ /^[>c][fL]/ { print substr($0, index($0, " ") + 1) }' > "$farm.changed"
	if [ $fresh = 0 ]; then
		(cd "$farm" && xargs -r -d '\n' touch -h -- < "$farm.changed")
	fi
	rm -f "$list" "$farm.changed"
}

src_copy_patch() {	# FARM PATCH...
	local farm=$1 p list; shift
	list=$(dirname "$farm")/patched-files
	src_patch_files "$@" > "$list"
	for p in "$@"; do
		patch -p1 -N -s --no-backup-if-mismatch -d "$farm" < "$p" ||
			src_die "$p does not apply to the copy in $farm"
	done
}

src_git_resolve() {	# REPO REF
	git -C "$1" rev-parse --verify --quiet "$2^{commit}" ||
		src_die "$1: no commit '$2'"
}

src_git_sync() {	# REPO CLONE SHA
	local repo=$1 clone=$2 sha=$3
	if [ ! -d "$clone/.git" ]; then
		rm -rf "$clone"
		git clone -q --shared --no-checkout "$repo" "$clone"
	fi
	git -C "$clone" -c advice.detachedHead=false checkout -q -f --detach "$sha"
	git -C "$clone" clean -q -ffdx
}
