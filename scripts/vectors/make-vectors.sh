#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end test-vector driver (`make vectors`): kernels, guest captures, and
# the small committed dumps.
#
#   1. Debian's stock 6.1: scripts/vectors/stock-6.1.sh -> 6.1-stock-b1, -b2
#   2. per KVER (6.12, 7.2): scripts/vectors/build-kernel.sh KVER base -> <kver>-base-b1, -b2;
#      every variant in patches/<kver>/series.tsv -> <kver>-<variant>-b1
#   3. 6.12 KASLR: build-kernel.sh 6.12 base --kaslr -> 6.12-base-kaslr-b1, -b2
#   4. 6.12 real kdump: scripts/vectors/kdump.sh -> 6.12-base-kdump
#   4a. 6.12 without DYNAMIC_MEMORY_LAYOUT (no RANDOMIZE_MEMORY, no 5-level
#      support: the fixed bases): build-kernel.sh 6.12 base --fixed-layout ->
#      6.12-base-fixed-b1, -b2
#   4b. 6.12 base under 5-level paging (capture.sh --la57) -> 6.12-base-la57-b1, -b2
#   4c. per KVER, FINDINGS 4's geometry (scripts/vectors/repro-1g-devdax.sh, layout
#      dax1g-section) on base and fix-compound-natural-align ->
#      <kver>-{base,fix-compound-natural-align}-dax1g-section-b1
#   5. pack (also alone: --pack-only): dumps/<kver>.tar.xz, dumps/dax-chain.tar.xz
#      (test-vectors/dax-chain-images.txt), dumps/README.md and
#      test-vectors/images.tsv from $CACHE/images
#
# usage: scripts/vectors/make-vectors.sh [--only KVER|stock] [--no-pack] [--pack-only] [--pack-group G]...
#                                [--skip-existing]
#   --pack-group G  only (re)pack dumps/G.tar.xz (G: 6.1-stock, 6.12, 7.2, dax-chain,
#   --pack-group G  only (re)pack dumps/G.tar.xz (G: 6.1-stock, 6.12, 7.2, dax-chain,
#                   section-vmemmap, hvo, seed-revisions), then the index
# Builds run one at a time (the source tree and build dir are shared); each
# capture runs in the background while the next kernel builds (one at a time).
# Finished images are appended to $MEMMAPCHECK_STATUS (default .status-images).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
export MEMMAPCHECK_STATUS=${MEMMAPCHECK_STATUS:-$top/.status-images}
only= pack=1 pack_only=0 skip=0 pack_sel=()
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift ;;
	--no-pack) pack=0 ;;
	--pack-only) pack_only=1 ;;
	--pack-group) pack_only=1; pack_sel+=("$2"); shift ;;
	--skip-existing) skip=1 ;;
	*) sed -n '3,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
T0=$SECONDS
log() { printf '[make-vectors %4ds] %s\n' $((SECONDS - T0)) "$*"; }
# a directory from build-kernel.sh's stdout, else the conventional path
mkdir -p "$CACHE/images" "$CACHE/logs"

# makedumpfile 1.7.2 -d 31 (its -d 8, "user pages") drops slab pages of 6.12 and
# 7.2 (it does not know their page_type slab marking): the dev_pagemaps and the
# pgmap_array xa_nodes go missing and no range can be found.  -d 23 keeps them
# (measured on 6.12: memmapcheck "Excluded page" at the pgmap with -d 31/15).
level_for() { case $1 in 6.1-stock*) echo 31 ;; *) echo 23 ;; esac; }

have() { [ $skip = 1 ] && [ -s "$CACHE/images/$1.kdump" ]; }

cap_pid=
failed=()
capture_bg() { # KERNEL_DIR IMAGE [capture options]
	local kd=$1 img=$2; shift 2
	wait_capture
	if have "$img"; then log "$img exists, skipped"; return 0; fi
	log "capture $img"
	( "$here/../prove/capture.sh" "$kd" "$img" --dump-level "$(level_for "$img")" "$@" \
		> "$CACHE/logs/$img.log" 2>&1 && tail -2 "$CACHE/logs/$img.log" ) &
	cap_pid=$!
}
wait_capture() {
	if [ -n "$cap_pid" ]; then
		wait "$cap_pid" || failed+=("capture (see $CACHE/logs)")
		cap_pid=
	fi
}
build() { # KVER VARIANT [--kaslr|--fixed-layout] -> kernel dir on stdout
	local out sfx=
	case ${3:-} in --kaslr) sfx=-kaslr ;; --fixed-layout) sfx=-fixed ;; esac
	log "build $*" >&2
	out=$("$here/build-kernel.sh" "$@" 2> "$CACHE/logs/build-$1-$2$sfx.log" | tail -1) ||
		{ tail -20 "$CACHE/logs/build-$1-$2$sfx.log" >&2; return 1; }
	[ -d "$out" ] || out=$CACHE/kernels/$1-$2$sfx
	echo "$out"
}
variants() { # KVER -> variant names from series.tsv
	local f=$top/patches/$1/series.tsv
	[ -f "$f" ] || return 0
	awk -F'\t' '/^#/ || NF == 0 || $1 == "name" {next} {print $1}' "$f"
}

# ---- pack: the committed small form of the images ----
# Each image: makedumpfile re-filters the lzo .kdump into an uncompressed
# kdump-compressed-format file (byte-identical to `makedumpfile -d L` of the
# ELF). All images of one kernel version go into one tar, compressed with xz
# and a dictionary large enough to span several images: dumps/<kver>.tar.xz.
# Measured on 6.1-stock b1+b2: makedumpfile -l 2 x 43 MB; xz -9 of each
# uncompressed dump 2 x 9.9 MB; both in one tar.xz (dict 256 MiB) 11.5 MB.
# Tests unpack a group into a temp dir: tar -xJf dumps/<kver>.tar.xz -C TMP.
XZ_OPTS=${XZ_OPTS:---lzma2=preset=9,dict=256MiB}
meta_get() { sed -n "s/^$2=//p" "$CACHE/images/$1.meta" 2>/dev/null | head -1; }
modes_of() { # ns table -> readable mode list
	echo "$1" | tr ',' '\n' | awk -F: '{
		m = $2; if (m != "raw") m = m "-" $3 "-map=" $4
		if (NR == 1) m = m "(early-section)"
		printf "%s%s", (NR > 1 ? "," : ""), m }'
}
order_key() { # similar images next to each other inside a group
	case $1 in
	*-base-b*) echo "0 $1" ;; *-template-b*) echo "1 $1" ;; *-mut-*) echo "2 $1" ;;
	*-hist-*) echo "3 $1" ;; *-fix-*) echo "3 $1" ;; *-kaslr-*|*-fixed-*|*-la57-*) echo "4 $1" ;;
	*) echo "5 $1" ;;
	esac
}
# Trimmed images (scripts/vectors/trim-dump.py) hold only the pages memmapcheck,
# `makedumpfile --dump-dmesg` and scripts/oracle/physmem.py's marker search read;
# the rest is excluded as makedumpfile excludes filtered pages.  Images crash
# opens (test-vectors/crash-images.txt: tests/crash.t, crash-session.t) stay
# full: crash reads much more of the kernel.  Measured on the 44 cached 6.12
# and 7.2 images: 97 MB -> 34-45 MB each, snapshot byte-identical, same dmesg
# and daxtouch markers; 7.2.tar.xz 15.5 -> 5.1 MB, 6.12.tar.xz 33.2 -> 15.5 MB
# (its three full images are 13.9 MB of that).
form_of() { # IMAGE -> full|trimmed
	case $1 in 6.12-*|7.2-*) ;; *) echo full; return ;; esac
	if grep -qx -- "$1" "$top/test-vectors/crash-images.txt"; then echo full; else echo trimmed; fi
}
# Groups of their own: the images a test-vectors/<group>-images.txt with an
# "# own-group" line lists are packed in dumps/<group>.tar.xz instead of
# their kernel's group (a series port and its mutants, kept apart so that
# adding them repacks nothing else).  tests/taplib.py own_groups() reads the
# same lines.
own_groups() { # -> the groups of their own, one a line
	{ grep -lx -- '# own-group' "$top"/test-vectors/*-images.txt || true; } |
		sed 's,.*/,,; s,-images\.txt$,,'
}
OWN_GROUPS=$(own_groups)
own_group_of() { # IMAGE -> its own group, or nothing
	local g
	for g in $OWN_GROUPS; do
		grep -qx -- "$1" "$top/test-vectors/$g-images.txt" 2>/dev/null && { echo "$g"; return; }
	done
	return 0
}
# the packed copy's sha256 and size: $CACHE/images/<image><raw_tag>.{sha256,size}
raw_tag() { [ "$1" = dax-chain ] && echo .dax-chain.raw || echo .raw; }
pack_group() { # GROUP IMAGE...
	local g=$1; shift
	local tmp img lvl k
	tmp=$(mktemp -d "$CACHE/images/.pack-$g.XXXXXX")
	make -C "$top" -s cli >/dev/null || { log "make cli FAILED"; rm -rf "$tmp"; return 1; }
	for img in "$@"; do
		lvl=$(meta_get "$img" dump_level); lvl=${lvl:-31}
		makedumpfile -d "$lvl" "$CACHE/images/$img.kdump" "$tmp/$img.kdump" > "$tmp/mdf.log" 2>&1 ||
			{ cat "$tmp/mdf.log" >&2; rm -rf "$tmp"; return 1; }
		if [ "$(form_of "$img")" = trimmed ]; then
			k=$(kernel_of "$img")
			[ -s "$tmp/$k.layout" ] ||
				"$top/build/memmapcheck" layout -q -o "$tmp/$k.layout" "$CACHE/kernels/$k/vmlinux" ||
				{ log "layout $k FAILED"; rm -rf "$tmp"; return 1; }
			# the hvo group also keeps HugeTLB and memory-block structures,
			# which trim-dump.py reads with drgn (only /usr/bin/python3 has it)
			local hvo=()
			[ "$g" = hvo ] && hvo=(--hvo "$CACHE/kernels/$k/vmlinux")
			nice "$([ "$g" = hvo ] && echo /usr/bin/python3 || echo python3)" "$here/trim-dump.py" "${hvo[@]}" \
				"$tmp/$k.layout" "$tmp/$img.kdump" "$tmp/$img.trim" ||
				{ log "trim $img FAILED"; rm -rf "$tmp"; return 1; }
			mv "$tmp/$img.trim" "$tmp/$img.kdump"
		fi
		sha256sum "$tmp/$img.kdump" | awk '{print $1}' > "$CACHE/images/$img$(raw_tag "$g").sha256"
		stat -c %s "$tmp/$img.kdump" > "$CACHE/images/$img$(raw_tag "$g").size"
	done
	(cd "$tmp" && tar --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - $(printf '%s.kdump ' "$@") |
		nice xz -T1 $XZ_OPTS > "$tmp/$g.tar.xz")
	mv "$tmp/$g.tar.xz" "$top/dumps/$g.tar.xz"
	for img in "$@"; do echo "$img $(form_of "$img")"; done > "$CACHE/images/.group-$g"
	rm -rf "$tmp"
}
pack_groups() { # [GROUP...]: (re)compress the groups whose images changed
	local img g m want=" $* "
	declare -A groups=()
	mkdir -p "$top/dumps" "$top/test-vectors"
	for m in "$CACHE"/images/*.meta; do
		[ -e "$m" ] || continue
		img=$(basename "$m" .meta)
		[ -s "$CACHE/images/$img.kdump" ] || continue
		g=$(own_group_of "$img")
		if [ -z "$g" ]; then
			# only test images named by the convention (others may share the cache)
			[[ $img =~ ^(6\.1-stock-b[0-9]+|(6\.12|7\.2)-(base|template|mut-[a-z0-9-]+|hist-[a-z0-9-]+|fix-[a-z0-9-]+)(-kaslr|-fixed|-la57|-dax1g-section|-dax1g-misaligned)?-(b[0-9]+|kdump))$ ]] || continue
			g=${img%%-*}; [ "$g" = 6.1 ] && g=6.1-stock
		fi
		[ $# -eq 0 ] || [[ $want == *" $g "* ]] || continue
		groups[$g]+="$(order_key "$img")"$'\n'
	done
	# test-vectors/dax-chain-images.txt: packed again, trimmed with the
	# device-dax chain (their copies in the kver groups predate it)
	if [ $# -eq 0 ] || [[ $want == *" dax-chain "* ]]; then
		for img in $(grep -v '^#' "$top/test-vectors/dax-chain-images.txt"); do
			[ -s "$CACHE/images/$img.kdump" ] && groups[dax-chain]+="$(order_key "$img")"$'\n'
		done
	fi
	for g in "${!groups[@]}"; do
		local list
		list=$(printf '%s' "${groups[$g]}" | sort | awk '{print $2}')
		# up to date: same members in the same form (full/trimmed), none newer than the tar
		if [ -s "$top/dumps/$g.tar.xz" ] &&
		   [ "$(cat "$CACHE/images/.group-$g" 2>/dev/null)" = "$(for i in $list; do echo "$i $(form_of "$i")"; done)" ] &&
		   [ -z "$(for i in $list; do [ "$CACHE/images/$i.kdump" -nt "$top/dumps/$g.tar.xz" ] && echo n; done)" ]; then
			log "dumps/$g.tar.xz up to date"
			continue
		fi
		log "pack dumps/$g.tar.xz: $(echo $list)"
		pack_group "$g" $list || { log "pack $g FAILED"; return 1; }
	done
}
# The kernel an image ran: its name without the boot and without what only
# the guest changed (tests/taplib.py kernel_of() has the same rule).
kernel_of() { local k=${1%-b[0-9]*}; k=${k%-kdump}; k=${k%-la57}; k=${k%-dax1g-section}; echo "${k%-dax1g-misaligned}"; }
# test-vectors/layouts/<kernel>.layout of every kernel with packed images:
# what the tests read instead of a 90 MB vmlinux.
save_layouts() {
	local g img k done_k=" " cli=$top/build/memmapcheck
	make -C "$top" -s cli >/dev/null || { log "make cli FAILED"; return 1; }
	for g in "$top"/dumps/*.tar.xz; do
		g=$(basename "$g" .tar.xz)
		[ -f "$CACHE/images/.group-$g" ] || continue
		for img in $(awk '{print $1}' "$CACHE/images/.group-$g"); do
			k=$(kernel_of "$img")
			[[ $done_k == *" $k "* ]] && continue
			done_k+="$k "
			[ -f "$CACHE/kernels/$k/vmlinux" ] || { log "no vmlinux for $k"; return 1; }
			"$cli" layout -q -o "$top/test-vectors/layouts/$k.layout" "$CACHE/kernels/$k/vmlinux" ||
				{ log "layout $k FAILED"; return 1; }
		done
	done
	log "saved layouts:$done_k"
}
# --pack-group: the other groups were not repacked, their index rows stay
kept_group() { [ ${#pack_sel[@]} -gt 0 ] && [[ " ${pack_sel[*]} " != *" $1 "* ]]; }
# Groups another script makes (production: scripts/vectors/kdump.sh and
# trim-elf.py), with a README section of their own, kept as it is.
foreign_group() { [ "$1" = production ]; }
pack_all() {
	pack_groups "${pack_sel[@]}" || failed+=("pack")
	save_layouts || failed+=("layouts")
	local img g
	local readme=$top/dumps/README.md tsv=$top/test-vectors/images.tsv total=0 f size sha
	{
		echo "# Committed test dumps"
		echo
		echo "Generated by \`scripts/vectors/make-vectors.sh\` (its pack step, also \`--pack-only\`); do not edit by hand."
		echo
		echo "\`<group>.tar.xz\` holds one \`<image>.kdump\` per test image of one kernel version:"
		echo "makedumpfile output in kdump-compressed format without page compression,"
		echo "filtered with \`-d 23\` (6.12, 7.2: makedumpfile 1.7.2's \`-d 31\` drops the slab pages"
		echo "holding dev_pagemap and xa_node, and crash 9 cannot open 7.2 dumps made with it) or"
		echo "\`-d 31\` (stock 6.1). The tar is compressed with \`xz $XZ_OPTS\` so that images share the"
		echo "dictionary. Unpack a group into a temporary directory before use:"
		echo "\`tar -xJf dumps/6.12.tar.xz -C \"\$tmp\"\`."
		echo
		echo "How an image is made: \`scripts/prove/capture.sh\` boots the QEMU TCG guest (layout:"
		echo "\`scripts/prove/guest/layout.sh\`, /init: \`scripts/prove/guest/init\`), dumps it with QMP"
		echo "\`dump-guest-memory\` (ELF, paging=false), repairs the header"
		echo "(\`scripts/prove/fix-qemu-elf.py\`) and runs \`makedumpfile -l -d L\` into"
		echo "\`\$CACHE/images/<image>.kdump\`; the pack step runs \`makedumpfile -d L\` on that"
		echo "(byte-identical to \`makedumpfile -d L\` of the ELF) and tars/compresses the results."
		echo "\`6.12-base-kdump\` comes from a real in-guest kdump (\`scripts/vectors/kdump.sh\`): its"
		echo "vmcore holds System RAM only, so the struct pages of map=dev namespaces are absent."
		echo
		echo "An image's form (column \`form\` below): \`full\`, the makedumpfile output as it is, for"
		echo "every image crash opens (\`test-vectors/crash-images.txt\`) and for stock 6.1; \`trimmed\`"
		echo "for the other 6.12 and 7.2 images: \`scripts/vectors/trim-dump.py <kernel>.layout\` keeps only the"
		echo "pages memmapcheck reads (kernel variables, page tables, pgmap_array, dev_pagemaps, the"
		echo "vmemmap of every ZONE_DEVICE range), those \`makedumpfile --dump-dmesg\` reads (VMCOREINFO"
		echo "symbols, mem_section, the printk ring) and the pages holding the guest's daxtouch markers"
		echo "(\`scripts/oracle/physmem.py search\`); every other page is excluded in the second bitmap, as"
		echo "makedumpfile excludes a filtered page. \`tests/trim.t\` checks that a trimmed dump gives"
		echo "the same snapshot and the same dmesg as the full one."
		echo
		echo "\`dax-chain.tar.xz\` holds the images \`test-vectors/dax-chain-images.txt\` lists once more,"
		echo "trimmed by a trim-dump.py that also keeps the device-dax chain (dax_superblock, its inodes,"
		echo "dax_devices, dev_daxes and their ranges), which lint's dax-range rule reads; each comes from"
		echo "its own capture, by the same command (the same kernel and guest, another boot), so its sha256"
		echo "differs. The copies in the kernel groups were trimmed before the chain was read and lack it;"
		echo "the tests take the dax-chain copies (\`tests/taplib.py\` \`dump_path()\`)."
		echo
		if [ -e "$top/dumps/section-vmemmap.tar.xz" ]; then
			echo "\`section-vmemmap.tar.xz\` holds the 7.2 images of the section-based device-DAX vmemmap port"
			echo "and its mutants (\`test-vectors/section-vmemmap-images.txt\`, patches/README.md), trimmed like"
			echo "the kernel groups; they are in no other group."
			echo
		fi
		if [ -e "$top/dumps/hvo.tar.xz" ]; then
			echo "\`hvo.tar.xz\` holds issue 19's images (\`test-vectors/hvo-images.txt\`): kernels built with"
			echo "\`scripts/vectors/build-kernel.sh KVER VARIANT --hvo\` (HugeTLB with the vmemmap optimisation, memory"
			echo "hotplug with memmap_on_memory), guests of \`layouts/standard-hvo.sh\`, trimmed by"
			echo "\`trim-dump.py --hvo VMLINUX\`, which also keeps the hstates and the folios on their lists, the"
			echo "memory_blocks xarray with its memory_block and vmem_altmap structs, and the vmemmap of every"
			echo "hugetlb folio and hot-plugged block (with the page tables to them)."
			echo
		fi
		if [ -e "$top/dumps/seed-revisions.tar.xz" ]; then
			echo "\`seed-revisions.tar.xz\` holds the images \`test-vectors/seed-revisions-images.txt\` lists: 7.2"
			echo "with each posted revision of the seed series that was found (\`patches/7.2/seed-v*.patch\`,"
			echo "\`patches/SEED-REVISIONS.md\`), trimmed like the 7.2 images but packed apart from them."
			echo
		fi
		echo "## Files"
		echo
		echo "| file | size (bytes) | sha256 | made by |"
		echo "| --- | ---: | --- | --- |"
		for f in "$top"/dumps/*.tar.xz; do
			[ -e "$f" ] || continue
			size=$(stat -c %s "$f"); total=$((total + size))
			sha=$(sha256sum "$f" | awk '{print $1}')
			g=$(basename "$f" .tar.xz)
			if kept_group "$g" || foreign_group "$g"; then
				grep -F "| \`$g.tar.xz\` | $size | \`$sha\` |" "$readme" && continue
			fi
			echo "| \`$(basename "$f")\` | $size | \`$sha\` | \`tar --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - $(awk '{print $1 ".kdump"}' "$CACHE/images/.group-$g" 2>/dev/null | tr '\n' ' ')\\| xz -T1 $XZ_OPTS\` |"
		done
		echo
		echo "Total: $total bytes ($(( (total + 524288) / 1048576 )) MiB; budget 60 MiB)."
		echo
		echo "## Images"
		echo
		echo "| image | in | form | kdump size | kdump sha256 | command |"
		echo "| --- | --- | --- | ---: | --- | --- |"
	} > "$readme.tmp"
	printf 'image\tkernel\tvariant\tkaslr\tmodes\tboot\tsha256\tfile\tdump_level\tregenerate\n' > "$tsv.tmp"
	for f in "$top"/dumps/*.tar.xz; do
		[ -e "$f" ] || continue
		g=$(basename "$f" .tar.xz)
		foreign_group "$g" && continue
		local tsv_out=$tsv.tmp
		# a second copy of images a kver group holds: README rows only
		[ "$g" = dax-chain ] && tsv_out=/dev/null
		for img in $(awk '{print $1}' "$CACHE/images/.group-$g" 2>/dev/null || tar -tJf "$f" | sed 's/\.kdump$//'); do
			local raw cmd kver variant lvl
			if kept_group "$g" && grep -qF "| \`$img\` | \`$g.tar.xz\` |" "$readme"; then
				# a group not repacked by this run: its rows stay, the
				# cache may hold other captures of its images
				grep -F "| \`$img\` | \`$g.tar.xz\` |" "$readme" >> "$readme.tmp"
				awk -F'\t' -v i="$img" '$1 == i' "$tsv" >> "$tsv_out"
				continue
			fi
			if [ ! -e "$CACHE/images/$img.meta" ] && [ -f "$tsv" ] &&
			   awk -F'\t' -v i="$img" '$1 == i {f=1} END {exit !f}' "$tsv"; then
				# packed before and not remade here (stock 6.1 is Debian's
				# binary: its committed images stay): keep its rows
				awk -F'\t' -v i="$img" '$1 == i' "$tsv" >> "$tsv_out"
				# a row from before the form column: these are full
				grep -F "| \`$img\` |" "$readme" |
					sed 's/^\(| `[^`]*` | `[^`]*` | \)\([0-9?]\)/\1full | \2/' >> "$readme.tmp" || true
				continue
			fi
			raw=$(cat "$CACHE/images/$img$(raw_tag "$g").sha256" 2>/dev/null || echo "?")
			lvl=$(meta_get "$img" dump_level)
			cmd="$(meta_get "$img" command); makedumpfile -d $lvl \$CACHE/images/$img.kdump $img.kdump"
			[ "$(form_of "$img")" = full ] ||
				cmd="$cmd; scripts/vectors/trim-dump.py $([ "$g" = hvo ] && echo "--hvo \$CACHE/kernels/$(kernel_of "$img")/vmlinux ")$(kernel_of "$img").layout $img.kdump OUT; mv OUT $img.kdump"
			echo "| \`$img\` | \`$g.tar.xz\` | $(form_of "$img") | $(cat "$CACHE/images/$img$(raw_tag "$g").size" 2>/dev/null || echo "?") | \`$raw\` | \`$cmd\` |" >> "$readme.tmp"
			kver=${img%%-*}
			variant=${img#"$kver"-}; variant=${variant%-b[0-9]*}; variant=${variant%-kdump}
			variant=${variant%-kaslr}; variant=${variant%-fixed}; variant=${variant%-la57}
			variant=${variant%-dax1g-section}; variant=${variant%-dax1g-misaligned}; variant=${variant%-hvo}
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$img" "$(meta_get "$img" kernel)" "$variant" \
				"$(meta_get "$img" kaslr)" "$(modes_of "$(meta_get "$img" ns)")" "$(meta_get "$img" boot)" \
				"$raw" "dumps/$g.tar.xz:$img.kdump" "$lvl" "$(meta_get "$img" command)" >> "$tsv_out"
		done
	done
	{
		echo
		echo "The sha256 and size are those of the unpacked \`<image>.kdump\`."
		echo
		echo "## Guest layout"
		echo
		echo "\`scripts/prove/guest/layout.sh\` (kdump image: same layout; stock 6.1 loads the modules):"
		echo
		echo '```'
		"$here/../prove/guest/layout.sh"
		echo '```'
	} >> "$readme.tmp"
	for g in production; do
		[ -e "$top/dumps/$g.tar.xz" ] || continue
		echo >> "$readme.tmp"
		sed -n '/^## Production states$/,$p' "$readme" >> "$readme.tmp"
	done
	mv "$readme.tmp" "$readme"; mv "$tsv.tmp" "$tsv"
	log "dumps/: $total bytes"
	[ $total -le $((60 * 1048576)) ] || { log "dumps/ exceeds 60 MiB"; failed+=("dumps budget"); }
}

bg_pids=()
if [ $pack_only = 0 ]; then
	# Debian's stock 6.1 (download + two TCG captures) overlaps the 6.12 base build.
	if [ -z "$only" ] || [ "$only" = stock ]; then
		if have 6.1-stock-b1 && have 6.1-stock-b2; then log "6.1-stock exists, skipped"
		else
			log "stock 6.1 (background)"
			( "$here/stock-6.1.sh" > "$CACHE/logs/stock-6.1.log" 2>&1 && log "stock 6.1 done" ||
				{ log "stock 6.1 FAILED (see $CACHE/logs/stock-6.1.log)"; exit 1; } ) &
			bg_pids+=($!)
		fi
	fi
	for kver in 6.12 7.2; do
		[ -z "$only" ] || [ "$only" = "$kver" ] || continue
		kd=$(build "$kver" base) || { failed+=("$kver-base build"); continue; }
		capture_bg "$kd" "$kver-base-b1"
		capture_bg "$kd" "$kver-base-b2"
		for v in $(variants "$kver"); do
			vd=$(build "$kver" "$v") || { failed+=("$kver-$v build"); continue; }
			capture_bg "$vd" "$kver-$v-b1"
		done
		if [ "$kver" = 6.12 ]; then
			wait_capture
			if have 6.12-base-kdump; then log "6.12-base-kdump exists, skipped"
			else
				log "kdump 6.12-base-kdump"
				"$here/kdump.sh" "$kd" 6.12-base-kdump --dump-level "$(level_for 6.12-base-kdump)" > "$CACHE/logs/6.12-base-kdump.log" 2>&1 ||
					failed+=(6.12-base-kdump)
			fi
			if kk=$(build 6.12 base --kaslr); then
				capture_bg "$kk" 6.12-base-kaslr-b1 --kaslr
				capture_bg "$kk" 6.12-base-kaslr-b2 --kaslr
			else
				failed+=("6.12-base-kaslr build")
			fi
			if kf=$(build 6.12 base --fixed-layout); then
				capture_bg "$kf" 6.12-base-fixed-b1
				capture_bg "$kf" 6.12-base-fixed-b2
			else
				failed+=("6.12-base-fixed build")
			fi
			capture_bg "$kd" 6.12-base-la57-b1 --la57
			capture_bg "$kd" 6.12-base-la57-b2 --la57
		fi
		wait_capture
		for v in base fix-compound-natural-align; do
			img=$kver-$v-dax1g-section-b1
			if have "$img"; then log "$img exists, skipped"; continue; fi
			vd=$(build "$kver" "$v") || { failed+=("$kver-$v build"); continue; }
			log "repro $img"
			"$here/repro-1g-devdax.sh" "$vd" "$img" section > "$CACHE/logs/$img.log" 2>&1 ||
				failed+=("$img")
		done
		# compress this kernel's group while the next kernel builds
		if [ $pack = 1 ]; then ( pack_groups "$kver" ) & bg_pids+=($!); fi
	done
	wait_capture
	log "captures done"
fi
for p in "${bg_pids[@]}"; do wait "$p" || failed+=("background job"); done
[ $pack = 1 ] && pack_all
if [ ${#failed[@]} -gt 0 ]; then
	log "FAILED: ${failed[*]}"
	exit 1
fi
log "done"
