# SPDX-License-Identifier: GPL-2.0-or-later
# What the shell test scripts (tests/*.t in sh) share, as tests/taplib.py is
# for the Python ones: their TAP lines, the CLI under test, a temporary
# directory, and the committed dumps (through taplib.py, so that the rule
# of which dumps/<group>.tar.xz holds an image lives in one place).
# POSIX sh; source it from a script in tests/, do not run it.
#
#   ok NAME... | nok NAME... | skip WHY...   one numbered result
#   check RC NAME...                         ok when RC is 0, else not ok
#   need_cli                                 no CLI built: the whole test skips
#   make_tmp                                 $tmp, removed when the test exits
#   taplib_py FUNCTION IMAGE                 tests/taplib.py's answer for an
#                                            image (dump_path, group_of, ...)
#
#   MMC_BUILD          build dir (default: build)
#   MEMMAPCHECK_CACHE  ${HOME}/.cache/memmapcheck by default

here=${here:-$(cd "$(dirname "$0")" && pwd)}
MMC_BUILD=${MMC_BUILD:-build}
# shellcheck disable=SC2034 # for the tests that source this
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
CLI=$MMC_BUILD/memmapcheck

n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
check() { if [ "$1" = 0 ]; then shift; ok "$@"; else shift; nok "$@"; fi; }

need_cli() {
	if [ ! -x "$CLI" ]; then
		echo "1..0 # SKIP no CLI at $CLI (set MMC_BUILD)"
		exit 0
	fi
}

make_tmp() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

# e.g. `taplib_py dump_path 6.12-base-b1`: the committed dump of an image,
# unpacked into the cache (empty when it is not there).
taplib_py() {
	MMC_BUILD=$MMC_BUILD python3 -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import taplib
print(getattr(taplib, sys.argv[2])(sys.argv[3]) or "")' "$here" "$1" "$2"
}
