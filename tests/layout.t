#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Saved layouts through the CLI: for every vmlinux found ($MMC_VMLINUX, then
# ${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}/kernels/*/vmlinux):
# `memmapcheck layout V -o F` then `memmapcheck layout V --check F` must agree;
# a damaged F and a vmlinux without DWARF must fail with exit 2 and a message.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/taplib.sh
. "$here/taplib.sh"
need_cli
make_tmp

# Without DWARF: a clear error naming the file, exit 2.
if [ -r /bin/true ]; then
	"$CLI" layout /bin/true -o "$tmp/true.layout" 2>"$tmp/err" >/dev/null
	rc=$?
	grep -q "DWARF" "$tmp/err" && grep -q "/bin/true" "$tmp/err" && [ $rc = 2 ]
	check $? "vmlinux without DWARF: exit $rc, $(head -c 120 "$tmp/err")"
	[ ! -e "$tmp/true.layout" ]
	check $? "no layout file left behind on error"
fi

list=
[ -n "$MMC_VMLINUX" ] && [ -r "$MMC_VMLINUX" ] && list="$MMC_VMLINUX"
for v in "$CACHE"/kernels/*/vmlinux; do
	[ -r "$v" ] && [ "$v" != "$MMC_VMLINUX" ] && list="$list $v"
done
prev=
for v in $list; do
	name=$(basename "$(dirname "$v")")
	f="$tmp/$name.layout"
	"$CLI" layout "$v" -o "$f" >"$tmp/out" 2>"$tmp/err"
	check $? "$name: layout -o: $(cat "$tmp/out" "$tmp/err" | head -c 160)"
	head -n1 "$f" | grep -qx "memmapcheck-layout 3"
	check $? "$name: saved file starts with the version line"
	tail -n1 "$f" | grep -Eqx "checksum [0-9a-f]{16}"
	check $? "$name: saved file ends with its checksum"
	"$CLI" layout "$v" --check "$f" >/dev/null 2>"$tmp/err"
	check $? "$name: layout --check of its own saved layout $(cat "$tmp/err")"
	# One changed offset: the checksum must catch it.
	sed 's/^\(member page.refcount page _refcount \)\([0-9]*\)/\19\2/' "$f" >"$tmp/bad.layout"
	"$CLI" layout "$v" --check "$tmp/bad.layout" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q "checksum" "$tmp/err" && grep -q "bad.layout" "$tmp/err"
	check $? "$name: edited layout refused (exit $rc): $(cat "$tmp/err")"
	head -n 20 "$f" >"$tmp/cut.layout"
	"$CLI" layout "$v" --check "$tmp/cut.layout" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q "cut.layout" "$tmp/err"
	check $? "$name: truncated layout refused (exit $rc): $(cat "$tmp/err")"
	if [ -n "$prev" ] && ! cmp -s "$prev" "$f"; then
		"$CLI" layout "$v" --check "$prev" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc = 2 ] && grep -q "differ" "$tmp/err"
		check $? "$name: another kernel's layout differs (exit $rc): $(head -c 200 "$tmp/err")"
	fi
	prev=$f
done
if [ -z "$list" ]; then
	ok "# SKIP no vmlinux (set MMC_VMLINUX or build kernels into $CACHE/kernels)"
fi
echo "1..$n"
