#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages: `dpkg-buildpackage -us -uc` on a copy of the tracked
# tree, lintian on the result, and the packaged programs at work.
#
#   [proof]  dpkg-buildpackage exits 0 and makes memmapcheck_*.deb and
#            crash-memmapcheck_*.deb (with the source package)
#   [proof]  lintian --pedantic -I: no tag but those debian/*.lintian-overrides
#            accepts, each with its reason (printed here)
#   [oracle] files where their users look: /usr/bin, man pages, and the
#            extension in /usr/lib/crash/extensions (crash's own search list,
#            extensions.c: $CRASH_EXTENSIONS, /usr/lib64/crash/extensions,
#            /usr/lib/crash/extensions, ./extensions)
#   [oracle] the packaged CLI gives the verdicts of test-vectors/verdicts.tsv
#            on committed dumps; memmapcheck-prove finds its scripts where
#            the package puts them
#   [proof]  crash loads the packaged extension by name (`extend
#            memmapcheck.so`) and it lists the 9 ranges of the 6.1 guest
#            (nine pmem namespaces, scripts/prove/guest/layout.sh)
#   [proof]  crash-memmapcheck depends on exactly the crash it was built for
# DEB_BUILD_OPTIONS=nocheck: make check runs the unit tests the package build
# would run again.  The build is shared with tests/lava.t (lava-deb.sh).
top=$(cd "$(dirname "$0")/.." && pwd)
MMC_BUILD=${MMC_BUILD:-$top/build}
. "$top/tests/crash-lib.sh"
n=0 failed=0
ok() { n=$((n+1)); echo "ok $n - $*"; }
notok() { n=$((n+1)); failed=$((failed+1)); echo "not ok $n - $*"; }
check() { local rc=$1; shift; if [ "$rc" = 0 ]; then ok "$@"; else notok "$@"; fi; }
diag() { sed 's/^/# /'; }
skip_all() { echo "1..0 # SKIP $*"; echo "deb.t: SKIPPED: $*" >&2; exit 0; }

# make check-san runs the .t scripts again with the sanitized CLI: the
# package is built from the sources either way, once is enough
[ "${MMC_SANITIZED:-}" = 1 ] && skip_all "the package build does not use the sanitized build (check-normal runs this)"
for t in dpkg-buildpackage dh lintian dpkg-deb git; do
	command -v $t >/dev/null || skip_all "$t not installed (scripts/setup-deps.sh installs debhelper, lintian, dpkg-dev)"
done
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || skip_all "$top is not a git checkout (the package is built from its tracked files)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/deb.t.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# One build of the tracked files as they are in the work tree (what a commit
# would hold), shared with tests/lava.t: scripts/prove/lava-deb.sh keeps it
# per content of those files, and a second caller waits for the first.
dir=$("$top/scripts/prove/lava-deb.sh" --dir 2>"$tmp/build.err")
rc=$?
secs=$(cat "$dir/build.secs" 2>/dev/null || echo "?")
deb=$(ls "$dir"/memmapcheck_*_amd64.deb 2>/dev/null)
xdeb=$(ls "$dir"/crash-memmapcheck_*_amd64.deb 2>/dev/null)
dsc=$(ls "$dir"/memmapcheck_*.dsc 2>/dev/null)
[ $rc = 0 ] && [ -n "$deb" ] && [ -n "$xdeb" ] && [ -n "$dsc" ]
check $? "[proof] dpkg-buildpackage -us -uc (scripts/prove/lava-deb.sh): exit $rc, built in ${secs}s, $(basename "${deb:-no .deb}"), $(basename "${xdeb:-no crash .deb}"), $(basename "${dsc:-no .dsc}")"
[ $rc = 0 ] || { cat "$tmp/build.err"; tail -30 "$dir/build.log" 2>/dev/null; } | diag
if [ -z "$deb" ] || [ -z "$xdeb" ]; then
	echo "1..$n"; exit 1
fi

changes=$(ls "$dir"/memmapcheck_*_amd64.changes)
lintian --pedantic -I --tag-display-limit 0 "$changes" >"$tmp/lintian.out" 2>&1
lrc=$?
tags=$(grep -E '^[EWIPXCNO]: ' "$tmp/lintian.out")
[ $lrc = 0 ] && [ -z "$tags" ]
check $? "[proof] lintian --pedantic -I: $(echo -n "$tags" | grep -c .) tags (exit $lrc)"
[ -z "$tags" ] || echo "$tags" | diag
for f in "$top"/debian/*lintian-overrides; do
	[ -f "$f" ] || continue
	echo "# lintian override in debian/$(basename "$f"), with its reason:"
	sed 's/^/#   /' "$f"
done

files=$(dpkg-deb -c "$deb" | awk '{print $6}')
xfiles=$(dpkg-deb -c "$xdeb" | awk '{print $6}')
missing=
for f in ./usr/bin/memmapcheck ./usr/bin/memmapcheck-prove ./usr/share/man/man1/memmapcheck.1.gz \
	./usr/share/man/man1/memmapcheck-prove.1.gz ./usr/share/memmapcheck/scripts/prove/capture.sh; do
	echo "$files" | grep -qx "$f" || missing="$missing $f"
done
echo "$xfiles" | grep -qx ./usr/lib/crash/extensions/memmapcheck.so || missing="$missing crash:./usr/lib/crash/extensions/memmapcheck.so"
[ -z "$missing" ]
check $? "[oracle] programs, man pages, scripts and the extension where their users look${missing:+: missing$missing}"

root=$tmp/root
dpkg-deb -x "$deb" "$root" && dpkg-deb -x "$xdeb" "$root"
pkg_cli=$root/usr/bin/memmapcheck
v=$("$pkg_cli" --version 2>&1)
[ "$v" = "memmapcheck 0.1" ]
check $? "[guard] the packaged CLI runs: $v"

# verdicts of committed dumps (tests/taplib.py finds and unpacks them)
dump_of() { MMC_BUILD=$MMC_BUILD python3 -c "import sys; sys.path.insert(0, '$top/tests'); import taplib; print(taplib.dump_path('$1') or '')"; }
b=$(dump_of 6.12-base-b1) tp=$(dump_of 6.12-template-b1) mu=$(dump_of 6.12-mut-tail-refcount-b1)
L=$top/test-vectors/layouts
if [ -n "$b" ] && [ -n "$tp" ] && [ -n "$mu" ]; then
	want_t=$(awk -F'\t' '$1=="diff" && $2=="6.12-base-b1" && $3=="6.12-template-b1" {print $4}' "$top/test-vectors/verdicts.tsv")
	want_m=$(awk -F'\t' '$1=="diff" && $2=="6.12-base-b1" && $3=="6.12-mut-tail-refcount-b1" {print $4}' "$top/test-vectors/verdicts.tsv")
	"$pkg_cli" diff -q -n 0 "$L/6.12-base.layout" "$b" "$L/6.12-template.layout" "$tp" >"$tmp/t.out" 2>&1; rt=$?
	"$pkg_cli" diff -q -n 0 "$L/6.12-base.layout" "$b" "$L/6.12-mut-tail-refcount.layout" "$mu" >"$tmp/m.out" 2>&1; rm_=$?
	[ "$want_t" = identical ] && [ $rt = 0 ] && grep -q '^identical' "$tmp/t.out" &&
		[ "$want_m" = different ] && [ $rm_ = 1 ] && grep -q '^different' "$tmp/m.out"
	check $? "[oracle] packaged CLI: base vs template $want_t (exit $rt), vs mut-tail-refcount $want_m (exit $rm_)"
else
	n=$((n+1)); echo "ok $n # SKIP committed 6.12 dumps not unpacked (scripts/vectors/unpack-dumps.sh)"
fi

out=$("$root/usr/bin/memmapcheck-prove" --help 2>&1); prc=$?
[ $prc = 0 ] && echo "$out" | grep -q '^usage: memmapcheck-prove' && ! echo "$out" | grep -q '^memmapcheck-prove: cannot find'
check $? "[guard] the packaged memmapcheck-prove finds its scripts in ../share/memmapcheck (exit $prc)"

# crash: the packaged extension by name, from the packaged directory
cv=$(crash_version /usr/bin/crash)
dep=$(dpkg-deb -f "$xdeb" Depends)
inst=$(dpkg-query -W -f='${Version}' crash 2>/dev/null)
echo "$dep" | grep -q "crash (= $inst)"
check $? "[proof] crash-memmapcheck depends on the crash it was built with: $dep (installed: $inst)"
vmlinux=$CACHE/kernels/6.1-stock/vmlinux
img=$(dump_of 6.1-stock-b1)
if [ -z "$cv" ] || [ ! -f "$vmlinux" ] || [ -z "$img" ]; then
	n=$((n+1)); echo "ok $n # SKIP crash, Debian's 6.1 debug vmlinux or the 6.1-stock-b1 dump absent"
else
	printf 'extend memmapcheck.so\nmemmapcheck ranges\n' >"$tmp/cmds"
	CRASH_EXTENSIONS=$root/usr/lib/crash/extensions crash_batch /usr/bin/crash "$vmlinux" "$img" "$tmp/cmds" "$tmp/crash.out" \
		"$(crash_flags_for "$CACHE/kernels/6.1-stock")"
	nr=$(sed -n '/^RANGES/,$p' "$tmp/crash.out" | grep -cE '^ +[0-9]+ +0x[0-9a-f]+ +0x[0-9a-f]+')
	grep -q "$root/usr/lib/crash/extensions/memmapcheck.so: shared object loaded" "$tmp/crash.out" && [ "$nr" = 9 ]
	check $? "[proof] crash $cv: extend memmapcheck.so loads the packaged extension, memmapcheck ranges lists $nr ranges (9 namespaces)"
	[ "$nr" = 9 ] || tail -20 "$tmp/crash.out" | diag
fi
echo "# dpkg-buildpackage ${secs}s; .deb sizes: $(stat -c '%n %s' "$deb" "$xdeb" | sed "s,$dir/,,g" | paste -sd' ')"
echo "1..$n"
[ $failed = 0 ]
