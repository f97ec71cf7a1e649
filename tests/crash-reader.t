#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The crash extension's two memory paths (crash-ext/crash_reader.c): the dump
# file crash has open read through libkdumpfile (the CLI's reader, with its
# threads), and crash's readmem().  On the committed 6.12, 7.2 and 6.1 stock
# dumps, and a 6.12 real kdump (98304 struct pages absent: unreadable pages
# and their reasons must agree too), with every crash that opens them:
#   [guard] the default session says it read the file through libkdumpfile,
#           MEMMAPCHECK_CRASH_READER=readmem says readmem() and why;
#   [proof] the two paths' snapshots are byte for byte the same file (two
#           readers of the same bytes: crash's diskdump code and libkdumpfile);
#   [proof] every section but INFO (which names the dump and the program)
#           is byte for byte the CLI's own snapshot of the dump (an
#           independent front end: DWARF layout, libkdumpfile for everything),
#           LAYT without its source and checksum lines (they name the source).
# Then the fallbacks, on one 6.12 dump: a flattened copy (makedumpfile -F:
# crash reads it, libkdumpfile does not) and a dump moved away after crash
# opened it (libkdumpfile cannot open it): [guard] readmem() and why is said,
# [proof] the snapshot's sections but INFO equal the file path's.
# Anything absent (crash, extension, vmlinux, dump, makedumpfile) is a loud SKIP.
# MMC_CRASH_READER_IMAGES="NAME ..." restricts the committed dumps.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/taplib.sh
. "$here/taplib.sh"
# shellcheck source=tests/crash-lib.sh
. "$here/crash-lib.sh"
need_cli
make_tmp

# Byte-compare two snapshot files section by section, INFO left out.
same_sections() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
def sections(path):
    b = open(path, "rb").read()
    assert b[:7] == b"MMCSNAP", path + ": not a snapshot"
    pos, end, out = 24, len(b) - 8, []
    while pos < end:
        tag, n = b[pos:pos + 4], struct.unpack_from("<Q", b, pos + 4)[0]
        out.append((tag, b[pos + 12:pos + 12 + n]))
        pos += 12 + n
    assert pos == end, path + ": sections do not end at the trailer"
    # LAYT names where the layout came from (a vmlinux, crash:vmlinux) on
    # its source line, and its checksum covers that line: both left out
    return [(t, b"\n".join(l for l in p.split(b"\n")
                           if not l.startswith((b"source ", b"checksum ")))
             if t == b"LAYT" else p) for t, p in out if t != b"INFO"]
a, b = sections(sys.argv[1]), sections(sys.argv[2])
if a != b:
    ta, tb = [t for t, _ in a], [t for t, _ in b]
    diff = [t.decode() for (t, x), (_, y) in zip(a, b) if x != y]
    print("sections %s vs %s; differing: %s" % (ta, tb, diff))
    sys.exit(1)
print("%d sections the same (%d bytes)" % (len(a), sum(len(s) for _, s in a)))
EOF
}

find_crashes

images=
for name in ${MMC_CRASH_READER_IMAGES:-6.12-base-b1 6.12-base-kdump 7.2-base-b1 6.1-stock-b1}; do
	img=$(taplib_py dump_path "$name")
	if [ -n "$img" ]; then
		images="$images $img"
	else
		skip "$name: dump not unpacked from dumps/$(taplib_py group_of "$name").tar.xz"
	fi
done

# session CRASH-ENTRY VMLINUX DUMP OUTSNAP OUT [PRE-COMMAND]
session() {
	crash_entry "$1"
	printf 'extend %s\n%s\nmemmapcheck snapshot -v -o %s\n' "$so" "${6:-}" "$4" >"$5.cmds"
	crash_batch "$c" "$2" "$3" "$5.cmds" "$5" "$(crash_flags_for "$(dirname "$2")")"
}

fallback_done=
for img in $images; do
	crash_image "$img" || continue
	cli_snapshot "$vmlinux" "$img" "$tmp/$name.cli.snap" "$tmp/cli.out"
	rc=$?
	if [ $rc != 0 ]; then
		nok "$name: CLI snapshot: exit $rc $(head -c 200 "$tmp/cli.out")"
		continue
	fi
	for entry in $crashes; do
		v=${entry%%:*}
		crash_can_open "$v" "$series" || continue
		t="crash $v, $name"
		d=$tmp/$v-$name
		mkdir -p "$d"
		session "$entry" "$vmlinux" "$img" "$d/file.snap" "$d/file.out"
		MEMMAPCHECK_CRASH_READER=readmem \
			session "$entry" "$vmlinux" "$img" "$d/readmem.snap" "$d/readmem.out"
		grep -q "^memmapcheck: read $img through libkdumpfile (physical reads; kernel virtual ones through readmem()), [0-9]* thread" "$d/file.out"
		check $? "[guard] $t: the dump file is read through libkdumpfile: $(grep -m1 '^memmapcheck: read ' "$d/file.out")"
		grep -q '^memmapcheck: read readmem() (MEMMAPCHECK_CRASH_READER=readmem)' "$d/readmem.out"
		check $? "[guard] $t: MEMMAPCHECK_CRASH_READER=readmem reads through readmem(): $(grep -m1 '^memmapcheck: read ' "$d/readmem.out")"
		if [ -s "$d/file.snap" ] && [ -s "$d/readmem.snap" ]; then
			cmp -s "$d/file.snap" "$d/readmem.snap"
			check $? "[proof] $t: libkdumpfile and readmem() snapshots are byte for byte the same ($(wc -c <"$d/file.snap") bytes)"
			msg=$(same_sections "$d/file.snap" "$tmp/$name.cli.snap" 2>&1)
			check $? "[proof] $t: the extension's snapshot equals the CLI's but for INFO: $msg"
		else
			nok "$t: a snapshot is missing: $(grep -m1 -i 'error\|memmapcheck: ' "$d/file.out" "$d/readmem.out" | head -c 300)"
		fi
		[ -n "$fallback_done" ] || [ "$series" != 6.12 ] && continue
		fallback_done=1
		# A format crash reads and libkdumpfile does not: flattened.
		if command -v makedumpfile >/dev/null 2>&1 &&
		   makedumpfile -F -d 0 "$img" >"$tmp/flat.kdump" 2>"$tmp/flat.err"; then
			session "$entry" "$vmlinux" "$tmp/flat.kdump" "$d/flat.snap" "$d/flat.out"
			grep -q '^memmapcheck: read readmem() (a flattened dump' "$d/flat.out"
			check $? "[guard] $t: a flattened copy falls back to readmem() and says so: $(grep -m1 '^memmapcheck: read ' "$d/flat.out")"
			msg=$(same_sections "$d/flat.snap" "$d/file.snap" 2>&1)
			check $? "[proof] $t: the flattened copy's snapshot (readmem()) equals the file path's but for INFO: $msg"
		else
			skip "$t: no flattened copy (makedumpfile -F: $(tail -n1 "$tmp/flat.err" 2>/dev/null))"
		fi
		rm -f "$tmp/flat.kdump"
		# A dump libkdumpfile cannot open: moved away after crash opened it.
		cp "$img" "$tmp/moved.kdump"
		session "$entry" "$vmlinux" "$tmp/moved.kdump" "$d/moved.snap" "$d/moved.out" \
			"!mv $tmp/moved.kdump $tmp/gone.kdump"
		grep -q "^memmapcheck: read readmem() ($tmp/moved.kdump: No such file or directory)" "$d/moved.out"
		check $? "[guard] $t: a dump libkdumpfile cannot open falls back to readmem() and says so: $(grep -m1 '^memmapcheck: read ' "$d/moved.out")"
		msg=$(same_sections "$d/moved.snap" "$d/file.snap" 2>&1)
		check $? "[proof] $t: its snapshot (readmem()) equals the file path's but for INFO: $msg"
		rm -f "$tmp/gone.kdump" "$tmp/moved.kdump"
	done
done
[ -z "$crashes" ] && skip "no crash with a built memmapcheck.so"
[ -z "$fallback_done" ] && skip "fallbacks: no 6.12 dump with a crash that opens it"
echo "1..$n"
