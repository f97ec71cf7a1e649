#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The crash extension against the CLI, for every (crash, vmlinux, dump)
# combination found: crash 8.0.2 (/usr/bin/crash) and crash 9
# ($CACHE/crash-9/root/usr/bin/crash) x $CACHE/images/*.kdump with their
# kernels/<name>/vmlinux.  Per combination one batch session
#   extend memmapcheck.so; memmapcheck snapshot/ranges/lint/layout/diff;
#   bad arguments; a later command
# and checks that
#   (a) the extension loads,
#   (b) its snapshot and the CLI's own snapshot of the same dump are
#       identical (memmapcheck diff, in the CLI and in crash), or, for a dump
#       that lacks struct pages (real kdump: no map=dev memmap), incomplete
#       with the same pages unreadable on both sides and nothing else,
#   (c) bad arguments give errors and the session goes on,
#   (d) the layout crash gives equals the vmlinux's DWARF layout
#       (memmapcheck layout --check).
# Then: an extension built for one crash refuses to load into the other;
# `make install` + `extend memmapcheck.so` by name; 1000 commands in one
# session with crash's RSS before and after (MMC_CRASH_LOOP, default 1000;
# growth limit MMC_CRASH_RSS_MAX_KB, default 8192).
# Anything absent (crash, extension, vmlinux, dump) is a loud SKIP.
# MMC_CRASH_IMAGES="a.kdump b.kdump" restricts the dumps.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/taplib.sh
. "$here/taplib.sh"
# shellcheck source=tests/crash-lib.sh
. "$here/crash-lib.sh"
# First line of a file mentioning $2, for messages.
say() { grep -m1 -- "$2" "$1" 2>/dev/null | cut -c1-160; }

need_cli
make_tmp

find_crashes

# The finished images (.status-images, written by the image scripts, lists
# them: a dump still being written is not one), else every *.kdump.
status=$here/../.status-images
# Default: the committed images of test-vectors/crash-images.txt, unpacked
# from dumps/<group>.tar.xz (MMC_CRASH_CACHED=1: the cache's images instead).
if [ -n "$MMC_CRASH_IMAGES" ]; then
	images=$MMC_CRASH_IMAGES
elif [ "${MMC_CRASH_CACHED:-0}" = 1 ] && [ -r "$status" ]; then
	images=$(awk '$2 ~ /\.kdump$/ { print $2 }' "$status" | while read -r f; do
		[ -r "$f" ] && echo "$f"; done)
else
	images=
	for name in $(grep -v '^#' "$here/../test-vectors/crash-images.txt"); do
		img=$(taplib_py dump_path "$name")
		[ -n "$img" ] && images="$images $img"
	done
fi
[ -z "$images" ] && skip "no dump in $CACHE/images/*.kdump (scripts/vectors/make-vectors.sh makes them)"
[ -z "$crashes" ] && skip "no crash with a built memmapcheck.so"

first_combo=
for img in $images; do
	crash_image "$img" || continue
	flags=$(crash_flags_for "$kdir")
	cli_snap=$tmp/$name.cli.snap
	cli_snapshot "$vmlinux" "$img" "$cli_snap" "$tmp/cli.out"
	cli_rc=$?
	for entry in $crashes; do
		crash_entry "$entry"
		t="crash $v, $name"
		if ! crash_can_open "$v" "$series"; then
			# not a missing prerequisite: this pairing does not exist
			echo "# $t: not run: crash $v cannot open $series kernels (gdb 10 dies on their DWARF; crash 9 covers them)"
			continue
		fi
		d=$tmp/$v-$name
		mkdir -p "$d"
		echo "not a snapshot" >"$d/notasnap"
		cat >"$d/cmds" <<EOF
extend $so
memmapcheck snapshot -o $d/crash.snap
!echo @@ ranges
memmapcheck ranges
!echo @@ lint
memmapcheck lint
!echo @@ layout
memmapcheck layout -o $d/crash.layout
!echo @@ diffcli
memmapcheck diff $cli_snap
!echo @@ bad
memmapcheck bogus
memmapcheck diff $d/nonexistent.snap
memmapcheck diff $d/notasnap
memmapcheck snapshot
memmapcheck show -r 9999
memmapcheck ranges -Z
memmapcheck diff
!echo @@ alive
memmapcheck layout
memmapcheck ranges -j > $d/ranges.json
!echo @@ end
EOF
		start=$(date +%s)
		crash_batch "$c" "$vmlinux" "$img" "$d/cmds" "$d/out" "$flags"
		rc=$?
		secs=$(( $(date +%s) - start ))
		out=$d/out
		grep -q "memmapcheck.so: shared object loaded" "$out"
		check $? "$t: extension loaded (crash exit $rc, ${secs}s) $(say "$out" 'memmapcheck.so')"
		if [ $cli_rc != 0 ]; then
			# A dump the engine cannot use (e.g. a page it needs was
			# filtered out): the extension must refuse it the same way,
			# naming the same address, and never make up a snapshot.
			addr=$(grep -o '0x[0-9a-f]*' "$tmp/cli.out" | head -n 1)
			sed -n '1,/^@@ ranges/p' "$out" | grep -q "^memmapcheck: crash:.*${addr:-0x}" &&
				[ ! -e "$d/crash.snap" ]
			check $? "$t: CLI cannot use this dump (exit $cli_rc), nor can the extension, at ${addr:-?}: $(grep -m1 "^memmapcheck: crash:" "$out" | cut -c1-200)"
		else
			grep -q "memmapcheck: wrote $d/crash.snap" "$out" && [ -s "$d/crash.snap" ]
			check $? "$t: snapshot: $(say "$out" 'struct pages in')"
			sed -n '/^@@ ranges/,/^@@ lint/p' "$out" | grep -q '^RANGES'
			check $? "$t: ranges prints the RANGES table"
			sed -n '/^@@ lint/,/^@@ layout/p' "$out" | grep -Eq '^(clean|[0-9]+ violation)'
			check $? "$t: lint gives a verdict: $(sed -n '/^@@ lint/{n;p;}' "$out" | cut -c1-120)"
			# (b) the two backends agree: identical; or, where the dump
			# lacks struct pages (a real kdump has no map=dev memmap),
			# incomplete with exactly the same pages unreadable on both
			# sides and no difference in the rest.
			"$CLI" diff "$d/crash.snap" "$cli_snap" >"$d/diff.out" 2>&1
			drc=$?
			"$CLI" diff -f json "$d/crash.snap" "$cli_snap" >"$d/diff.json" 2>/dev/null
			agree=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
same = d["pages_differing"] == 0 and all(
    r["unreadable_a"] == r["unreadable_b"] and r["differing"] == 0
    and r["a_index"] >= 0 and r["b_index"] >= 0 for r in d["ranges"])
print("identical" if d["verdict"] == "identical" else
      "same-unreadable" if d["verdict"] == "incomplete" and same else "no")
' "$d/diff.json" 2>/dev/null)
			case $agree:$drc in
			identical:0|same-unreadable:4) true ;;
			*) false ;;
			esac
			check $? "$t: CLI diff crash.snap cli.snap: exit $drc ($agree), $(head -n1 "$d/diff.out" | cut -c1-140)"
			first=$(sed -n '/^@@ diffcli/{n;p;}' "$out")
			case $agree in
			identical) echo "$first" | grep -q '^identical' ;;
			same-unreadable) echo "$first" | grep -q '^incomplete: .*no difference in the' ;;
			*) false ;;
			esac
			check $? "$t: in crash, memmapcheck diff cli.snap: $(echo "$first" | cut -c1-140)"
		fi
		# (d) layout from crash == layout from DWARF
		"$CLI" layout -q --check "$d/crash.layout" "$vmlinux" >"$d/layout.out" 2>&1
		check $? "$t: crash's layout equals the DWARF layout $(head -c 300 "$d/layout.out")"
		# (c) bad arguments: errors, and the session goes on
		bad=$(sed -n '/^@@ bad/,/^@@ alive/p' "$out")
		for want in "unknown subcommand: bogus" "nonexistent.snap: no such file" \
			    "not a memmapcheck snapshot file" "snapshot needs -o FILE" \
			    "invalid option" "diff takes one or two snapshot FILEs"; do
			echo "$bad" | grep -q -- "$want"
			check $? "$t: bad arguments: \"$want\""
		done
		if [ $cli_rc = 0 ]; then
			echo "$bad" | grep -Eq "range 9999 does not exist: this image has ranges 0-[0-9]+"
			check $? "$t: bad arguments: \"range 9999 does not exist: this image has ranges 0-N\""
		fi
		sed -n '/^@@ alive/,/^@@ end/p' "$out" | grep -q fingerprint && grep -q '^@@ end' "$out"
		check $? "$t: the session goes on after the errors (a later command works)"
		if [ $cli_rc = 0 ]; then
			python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$d/ranges.json" 2>/dev/null
			check $? "$t: ranges -j > FILE is valid JSON"
		fi
		! grep -Eiq 'segmentation|fatal error|core dumped' "$out"
		check $? "$t: no crash of crash $(grep -Eim1 'segmentation|fatal error|core dumped' "$out")"
		[ -z "$first_combo" ] && [ $cli_rc = 0 ] && first_combo="$entry|$img|$vmlinux|$flags|$d"
	done
done

# The first combination that worked, "entry|img|vmlinux|flags|dir", back in
# its variables (v c so img vmlinux flags d) for the checks after the loop.
use_first_combo() {
	rest=${first_combo#*|}
	img=${rest%%|*}; rest=${rest#*|}; vmlinux=${rest%%|*}; rest=${rest#*|}
	flags=${rest%%|*}; d=${rest#*|}
	crash_entry "${first_combo%%|*}"
}

# An extension built for another crash's defs.h refuses to load, clearly.
set -- $crashes
if [ $# -ge 2 ] && [ -n "$first_combo" ]; then
	use_first_combo
	for entry in $crashes; do
		ov=${entry%%:*}
		[ "$ov" = "$v" ] && continue
		oso=${entry##*:}
		cat >"$tmp/mismatch.cmds" <<EOF
extend $oso
!echo @@ then
extend $so
memmapcheck layout
EOF
		crash_batch "$c" "$vmlinux" "$img" "$tmp/mismatch.cmds" "$tmp/mismatch.out" "$flags"
		grep -q "built against the defs.h of crash $ov" "$tmp/mismatch.out" &&
			grep -q "no commands registered" "$tmp/mismatch.out"
		check $? "crash $v refuses the extension built for crash $ov: $(say "$tmp/mismatch.out" 'built against')"
		sed -n '/^@@ then/,$p' "$tmp/mismatch.out" | grep -q 'fingerprint'
		check $? "crash $v: after the refusal, the right extension loads and works"
		break
	done
else
	skip "defs.h mismatch: needs two crash versions with extensions built"
fi

if [ -n "$first_combo" ]; then
	use_first_combo

	# make install into a DESTDIR, then `extend memmapcheck.so` by name.
	if make -s -C "$here/../crash-ext" install CRASH="$c" \
		B="$(cd "$(dirname "$so")/.." && pwd)" DESTDIR="$tmp/dest" >"$tmp/install.out" 2>&1 &&
	   [ -r "$tmp/dest/usr/lib/crash/extensions/memmapcheck.so" ]; then
		ok "make install DESTDIR: $(tail -n1 "$tmp/install.out" | cut -c1-120)"
		printf 'extend memmapcheck.so\nmemmapcheck layout\n' >"$tmp/byname.cmds"
		CRASH_EXTENSIONS=$tmp/dest/usr/lib/crash/extensions \
			crash_batch "$c" "$vmlinux" "$img" "$tmp/byname.cmds" "$tmp/byname.out" "$flags"
		grep -q 'memmapcheck.so: shared object loaded' "$tmp/byname.out" &&
			grep -q fingerprint "$tmp/byname.out"
		check $? "crash $v: extend memmapcheck.so by name from the installed directory"
	else
		nok "make install DESTDIR: $(tail -n3 "$tmp/install.out")"
	fi

	# 1000 commands, good and bad, in one session: RSS must stay flat.
	loops=${MMC_CRASH_LOOP:-1000}
	{
		echo "extend $so"
		echo "memmapcheck ranges > /dev/null"
		echo "memmapcheck diff $d/crash.snap > /dev/null"
		echo '!echo @@ RSS0 $(ps -o rss= -p $PPID) $(date +%s.%N)'
		i=0
		while [ $i -lt "$loops" ]; do
			case $((i % 8)) in
			0) echo "memmapcheck ranges > /dev/null" ;;
			1) echo "memmapcheck bogus" ;;
			2) echo "memmapcheck diff $d/crash.snap > /dev/null" ;;
			3) echo "memmapcheck diff $d/nonexistent.snap" ;;
			4) echo "memmapcheck lint -j > /dev/null" ;;
			5) echo "memmapcheck show -r 0 > /dev/null" ;;
			6) echo "memmapcheck show -r 99999 > /dev/null" ;;
			7) echo "memmapcheck snapshot -f -o $d/loop.snap > /dev/null" ;;
			esac
			i=$((i + 1))
		done
		echo '!echo @@ RSS1 $(ps -o rss= -p $PPID) $(date +%s.%N)'
	} >"$tmp/loop.cmds"
	crash_batch "$c" "$vmlinux" "$img" "$tmp/loop.cmds" "$tmp/loop.out" "$flags"
	r0=$(sed -n 's/^@@ RSS0 \([0-9]*\) .*/\1/p' "$tmp/loop.out")
	r1=$(sed -n 's/^@@ RSS1 \([0-9]*\) .*/\1/p' "$tmp/loop.out")
	t0=$(sed -n 's/^@@ RSS0 [0-9]* //p' "$tmp/loop.out")
	t1=$(sed -n 's/^@@ RSS1 [0-9]* //p' "$tmp/loop.out")
	max=${MMC_CRASH_RSS_MAX_KB:-8192}
	if [ -n "$r0" ] && [ -n "$r1" ]; then
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
		[ $((r1 - r0)) -le "$max" ]
		check $? "crash $v: $loops commands in one session: RSS $r0 KiB -> $r1 KiB ($((r1 - r0)) KiB, limit $max), ${secs}s"
	else
		nok "crash $v: $loops commands: session did not reach the end: $(tail -n 3 "$tmp/loop.out")"
	fi
fi
echo "1..$n"
