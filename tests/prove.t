#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# memmapcheck-prove: its argument and input errors (exit 2, a message naming
# the culprit, nothing written to the user's tree or an unrelated folder), the
# pieces it is built from (the guest-option check, patch file lists, the
# private copy's mtimes), and end to end on the cache's 7.2 tree (the one
# scripts/test-prereqs.sh fetches): the first run builds the base kernel in
# full and the patched ones incrementally (about 10 minutes on 2 idle cores,
# doc/PROVE.md), later runs reuse the builds and dumps.
#
# Where expected results come from: the option check and the copy's mtimes
# from the files the test writes; the end-to-end verdicts from the seed
# series' claim (template.patch: identical, a regression guard of the
# recorded verdict in test-vectors/verdicts.tsv) and the mutant's semantics
# (mut-stale-compound-head.patch: tails' compound_info differ).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${MMC_BUILD:-$top/build}
PROVE=$top/scripts/prove/memmapcheck-prove
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
export MEMMAPCHECK=$B/memmapcheck
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
diag() { sed 's/^/# /' "$@"; }
if [ ! -x "$MEMMAPCHECK" ]; then echo "1..0 # SKIP $MEMMAPCHECK not built"; exit 0; fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1

# expect_fail NAME RC PATTERN CMD...: exit RC and a message matching PATTERN
expect_fail() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" > out 2> err
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" err; then
		ok 0 "$name: exit $want, '$(grep -E -m1 -- "$pat" err | cut -c1-110)'"
	else
		ok 1 "$name: exit $rc (want $want), message should match /$pat/"
		diag err
	fi
}

# ---------------------------------------------------------------- a tiny "kernel tree"
mkdir -p tree/mm tree/arch/x86
printf 'all:\n' > tree/Makefile
printf 'int a;\nint b;\nint c;\n' > tree/mm/mm_init.c
cat > good.patch <<'EOF'
--- a/mm/mm_init.c
+++ b/mm/mm_init.c
@@ -1,3 +1,3 @@
 int a;
-int b;
+int b2;
 int c;
EOF
cat > bad.patch <<'EOF'
--- a/mm/mm_init.c
+++ b/mm/mm_init.c
@@ -1,3 +1,3 @@
 int a;
-int nope;
+int b2;
 int c;
EOF
tree_sum() { (cd tree && find . -type f -printf '%P %s %T@\n' | sort; cat mm/mm_init.c) | sha256sum; }
before=$(tree_sum)

expect_fail "no arguments" 2 'give a TREE and at least one PATCH' "$PROVE"
expect_fail "tree without patches" 2 'at least one PATCH' "$PROVE" tree
expect_fail "unknown option" 2 'unknown option --frobnicate' "$PROVE" --frobnicate tree good.patch
expect_fail "--git with two arguments" 2 '--git takes REPO BASE NEW' "$PROVE" --git tree HEAD
expect_fail "--trees with one tree" 2 '--trees takes BASE_TREE NEW_TREE' "$PROVE" --trees tree
expect_fail "--jobs not a number" 2 '--jobs: not a number: many' "$PROVE" -j many tree good.patch
expect_fail "missing patch" 2 'nope.patch: no such patch file' "$PROVE" tree nope.patch
expect_fail "missing tree" 2 "$w/none: no such directory" "$PROVE" "$w/none" good.patch
expect_fail "not a kernel tree" 2 'not a Linux kernel source tree' "$PROVE" "$w/tree/mm" good.patch
expect_fail "missing --config" 2 'no.config: no such config file' "$PROVE" --config no.config tree good.patch
expect_fail "patch that does not apply" 2 "bad.patch does not apply to $w/tree" "$PROVE" tree bad.patch
expect_fail "second patch fails after the first" 2 "good.patch does not apply to $w/tree after good.patch" \
	"$PROVE" tree good.patch good.patch
mkdir notreport; echo keep > notreport/file
expect_fail "-o an unrelated folder" 2 'notreport exists and is not a memmapcheck-prove report' \
	"$PROVE" -o notreport tree good.patch
[ "$(cat notreport/file)" = keep ] && [ "$(ls notreport)" = file ]
ok $? "the unrelated folder is untouched"
cp -r tree built; echo 'CONFIG_X=y' > built/.config
expect_fail "tree built in-tree" 2 'built in the tree' "$PROVE" built good.patch
mkdir -p applied/mm applied/arch/x86; cp tree/Makefile applied/; cp tree/mm/mm_init.c applied/mm/
echo /x/patches/7.2/mut.patch > applied/.memmapcheck-applied
expect_fail "tree left patched by build-kernel.sh" 2 'applied by an interrupted build-kernel.sh' \
	"$PROVE" applied good.patch
if command -v git > /dev/null; then
	git init -q repo && cp -r tree/. repo/ && git -C repo add -A &&
		git -C repo -c user.name=t -c user.email=t@t commit -q -m base
	expect_fail "--git: a ref the repository lacks" 2 "no commit 'v9.9'" "$PROVE" --git repo HEAD v9.9
	expect_fail "--git: not a repository" 2 'not a git repository' "$PROVE" --git tree HEAD HEAD
else
	skip "git not installed"; skip "git not installed"
fi
[ "$(tree_sum)" = "$before" ]
ok $? "the tree is unchanged after all of the above (names, sizes, mtimes, content)"

# ---------------------------------------------------------------- the pieces
. "$top/scripts/prove/lib-kbuild.sh"
. "$top/scripts/prove/lib-prove-src.sh"
mkdir kb
KB_BUILD=$w/kb
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=y\nCONFIG_D=m\n' > kb/.config
printf 'CONFIG_A=y\nCONFIG_B=y\n# CONFIG_C is not set\nCONFIG_D=y\nCONFIG_E=y\n# CONFIG_F is not set\n' > frag
kbuild_config_check frag 2> check.err
rc=$?
[ $rc = 1 ] && grep -q '4 requested option(s) dropped' check.err &&
	grep -q '^  CONFIG_B=y (got: # CONFIG_B is not set)' check.err &&
	grep -q '^  # CONFIG_C is not set (got: CONFIG_C=y)' check.err &&
	grep -q '^  CONFIG_D=y (got: CONFIG_D=m)' check.err &&
	grep -q '^  CONFIG_E=y (got: unset)' check.err && ! grep -q 'CONFIG_[AF]' check.err
ok $? "guest-option check names each of the 4 dropped options with what it got, not the 2 kept"
[ "$(kbuild_count_options frag)" = 6 ]
ok $? "the fragment asks for 6 options"

cat > multi.patch <<'EOF'
From: someone
Subject: [PATCH] a git-style patch

--- a/mm/mm_init.c
+++ b/mm/mm_init.c
@@ -1,3 +1,2 @@
--- a removed line that looks like a header
 int a;
diff --git a/mm/old.c b/mm/new.c
similarity index 90%
rename from mm/old.c
rename to mm/new.c
--- /dev/null
+++ b/include/linux/added.h
@@ -0,0 +1 @@
+#define X 1
EOF
[ "$(src_patch_files multi.patch | paste -sd' ')" = "include/linux/added.h mm/mm_init.c mm/new.c mm/old.c" ]
ok $? "patch file list: modified, renamed (both names) and added files; a removed '-- ' line is no header"

# the key of a tree is its content: a touch keeps it, an edit changes it, and
# undoing the edit brings it back (as build-kernel.sh's patch/unpatch does)
fp0=$(src_fingerprint "$w/tree" "$w/manifest")
touch -d 2011-11-11 tree/mm/mm_init.c
fp1=$(src_fingerprint "$w/tree" "$w/manifest")
echo 'int d;' >> tree/mm/mm_init.c
fp2=$(src_fingerprint "$w/tree" "$w/manifest")
sed -i '$d' tree/mm/mm_init.c
fp3=$(src_fingerprint "$w/tree" "$w/manifest")
ln -s mm/mm_init.c tree/link; fp4=$(src_fingerprint "$w/tree" "$w/manifest")
rm tree/link; ln -s Makefile tree/link; fp5=$(src_fingerprint "$w/tree" "$w/manifest"); rm tree/link
[ ${#fp0} = 64 ] && [ "$fp1" = "$fp0" ] && [ "$fp2" != "$fp0" ] && [ "$fp3" = "$fp0" ] &&
	[ "$fp4" != "$fp0" ] && [ "$fp5" != "$fp4" ] && [ "$(wc -l < manifest)" = 3 ]
ok $? "tree key: same after a touch, new after an edit, back after undoing it; a symlink's target counts"

# the private copy: make decides by mtime, so whatever rsync rewrites must
# end up newer than the objects built before, even when the tree's own mtime
# is older; the rest keeps its mtime (no needless rebuild)
cp -r tree t2
touch -d 2000-01-01 t2/Makefile t2/mm/mm_init.c
src_copy_sync "$w/t2" "$w/farm/src"
touch -d 2001-01-01 farm/stamp		# "the last build"
printf 'int a;\nint changed;\nint c;\n' > t2/mm/mm_init.c
touch -d 2000-06-01 t2/mm/mm_init.c	# as tar or cp -p may leave it
src_copy_sync "$w/t2" "$w/farm/src"
cmp -s t2/mm/mm_init.c farm/src/mm/mm_init.c && [ farm/src/mm/mm_init.c -nt farm/stamp ] &&
	[ "$(stat -c %Y farm/src/Makefile)" = "$(stat -c %Y t2/Makefile)" ]
ok $? "copy: a file changed in the tree with an older mtime is copied and newer than the last build; the others keep theirs"
cp tree/mm/mm_init.c t2/mm/mm_init.c
touch -d 2000-01-01 t2/mm/mm_init.c
src_copy_sync "$w/t2" "$w/farm/src"
src_copy_patch "$w/farm/src" "$w/good.patch"
grep -q 'int b2;' farm/src/mm/mm_init.c && [ "$(cat farm/patched-files)" = mm/mm_init.c ]
ok $? "copy: patched, and the patched file is recorded"
touch -d 2001-06-01 farm/src/mm/mm_init.c	# patched, then
touch -d 2002-01-01 farm/stamp			# built
src_copy_sync "$w/t2" "$w/farm/src"
cmp -s t2/mm/mm_init.c farm/src/mm/mm_init.c && [ farm/src/mm/mm_init.c -nt farm/stamp ] &&
	[ ! -e farm/patched-files ]
ok $? "copy: the file the last run patched is restored from the tree and newer than the last build"

# refs: a private clone switched between commits rewrites only the files
# that differ (make rebuilds those), and never writes to the repository
if command -v git > /dev/null && [ -d repo/.git ]; then
	patch -s -d repo -p1 < good.patch && echo new > repo/added.c && git -C repo add -A &&
		git -C repo -c user.name=t -c user.email=t@t commit -q -m new
	repo_sum() { (cd repo && git rev-parse HEAD && find . -printf '%P %s %T@\n' | sort) | sha256sum; }
	r0=$(repo_sum)
	src_git_sync "$w/repo" "$w/clone/src" "$(git -C repo rev-parse HEAD~1)"
	m0=$(stat -c %y clone/src/Makefile)
	sleep 0.05
	src_git_sync "$w/repo" "$w/clone/src" "$(git -C repo rev-parse HEAD)"
	grep -q 'int b2;' clone/src/mm/mm_init.c && [ -f clone/src/added.c ] &&
		[ "$(stat -c %y clone/src/Makefile)" = "$m0" ] &&
		[ clone/src/mm/mm_init.c -nt clone/src/Makefile ]
	ok $? "refs: checking out the new commit rewrites mm_init.c and adds added.c, leaves the Makefile's mtime"
	src_git_sync "$w/repo" "$w/clone/src" "$(git -C repo rev-parse HEAD~1)"
	grep -q 'int b;' clone/src/mm/mm_init.c && [ ! -e clone/src/added.c ] && [ "$(repo_sum)" = "$r0" ]
	ok $? "refs: and back to the base; the repository itself is unchanged"
else
	skip "git not installed"; skip "git not installed"
fi

# ---------------------------------------------------------------- end to end
T72=$CACHE/src/linux-7.2
if [ ! -f "$T72/mm/mm_init.c" ]; then
	skip "no 7.2 tree in $CACHE/src (scripts/vectors/fetch-kernel-source.sh 7.2)"
elif [ -e "$T72.lock" ] && ! flock -n "$T72.lock" true; then
	skip "$T72 is busy (scripts/vectors/build-kernel.sh holds $T72.lock)"
else
	# content, read under the tree's lock: scripts/vectors/build-kernel.sh may patch
	# and unpatch it meanwhile (mtimes move, content comes back)
	src_fp() { ( exec 9> "$T72.lock"; flock 9; src_fingerprint "$T72" "$w/t72.manifest" ); }
	e2e() {	# NAME PATCH WANT_RC
		local name=$1 patch=$2 want=$3 rc fp0
		fp0=$(src_fp)
		# a first run builds the base kernel in full (minutes: the
		# sanitized run of make check reuses it and the dumps)
		"$PROVE" -o "$w/$name" "$T72" "$top/patches/7.2/$patch" > "$name.out" 2> "$name.err"
		rc=$?
		[ $rc = "$want" ]
		ok $? "$name: $T72 + $patch exits $want (got $rc)" || { diag "$name.err"; return 1; }
		[ "$(src_fp)" = "$fp0" ]
		ok $? "$name: the tree's content is unchanged"
		local missing=
		for f in report.txt report.json report.ktap report.junit.xml base.snap new.snap \
			 base.config new.config base.console.log new.console.log prove.txt prove.log \
			 timings.tsv "patches/$patch"; do
			[ -s "$w/$name/$f" ] || missing+=" $f"
		done
		[ -z "$missing" ]
		ok $? "$name: report folder complete${missing:+ (missing:$missing)}"
		grep -qE '^\[6/6\] report: .*total' "$name.err" && grep -qE '^total ' "$name.err"
		ok $? "$name: progress for 6 steps with elapsed and total times"
	}
	# Builds must not depend on the path: where scripts/vectors/build-kernel.sh
	# built the same source and config elsewhere, the build-ids are equal.
	same_build() {	# NAME REPORT_KEY(base|new) BUILD_KERNEL_NAME
		local k ref
		k=$(sed -n "s/^$2 kernel: \([^ ]*\).*/\1/p" "$w/$1/prove.txt")
		ref=$CACHE/kernels/$3/vmlinux
		if [ ! -f "$ref" ]; then skip "$1: no $ref to compare the $2 kernel's build-id with"; return; fi
		[ -n "$k" ] && [ "$(bid "$k/vmlinux")" = "$(bid "$ref")" ]
		ok $? "$1: the $2 kernel's build-id $(bid "$k/vmlinux") is build-kernel.sh's $3 ($(bid "$ref")), built in another directory"
	}
	bid() { readelf -n "$1" 2>/dev/null | awk '/Build ID/ {print $3; exit}'; }
	if e2e template template.patch 0; then
		same_build template base 7.2-base
		same_build template new 7.2-template
		head -1 "$w/template/report.txt" | grep -q '^identical: [0-9]* pages in [0-9]* ranges, nothing unread'
		ok $? "template: identical, nothing unread (regression guard: the series' claim, as recorded)"
		[ -f "$w/template/map/index.html" ] && ls "$w"/template/map/range-*.svg > /dev/null 2>&1 &&
			! grep -q d62728 "$w"/template/map/range-*.svg
		ok $? "template: the map is drawn, with no differing colour"
	fi
	# a guest that does not come up in time (capture.sh --timeout 3): exit 4,
	# and the report folder holds its console log and why the run stopped
	if [ -s "$w/template/prove.txt" ]; then
		"$PROVE" --no-build -o "$w/noboot" --capture-opt --timeout --capture-opt 3 \
			"$T72" "$top/patches/7.2/template.patch" > noboot.out 2> noboot.err
		rc=$?
		[ $rc = 4 ] && [ -e "$w/noboot/base.console.log" ] &&  # empty when QEMU printed nothing in 3 s (loaded machine)
			grep -q 'did not come up in the guest' "$w/noboot/prove.log"
		ok $? "a guest that is not ready in 3 s: exit 4 (got $rc), its console log and the reason in the report folder"
	fi
	if e2e mutant mut-stale-compound-head.patch 1; then
		grep -q '^  compound_info  ' "$w/mutant/report.txt"
		ok $? "mutant: compound_info differs (the mutant's semantics)"
		grep -q d62728 "$w/mutant/map/range-00.svg" 2> /dev/null
		ok $? "mutant: range 0's map shows differences"
	fi
fi

echo "1..$n"
[ $failed = 0 ]
