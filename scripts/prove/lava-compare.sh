#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The comparison, as a job of its own: the base and the patched kernel's
# snapshots (the artefacts of two device jobs) -> the verdict as text, KTAP
# (for LAVA: a LAVA job can run this in a docker device and parse the KTAP)
# and KCIDB JSON (for the lab's KCIDB submitter, `kcidb-submit`).
#
# usage: scripts/prove/lava-compare.sh [options] BASE.snap NEW.snap OUTDIR
#   --base-ids FILE, --new-ids FILE   kernel identity files (memmapcheck(1),
#                      MEMMAPCHECK_KCIDB_BASE/NEW: the lab's KCIDB checkout and
#                      build ids, git commit, patch series, config)
#   --origin NAME      KCIDB origin (default memmapcheck)
#   --claims FILE      pass a claims file to memmapcheck diff (when this
#                      memmapcheck has --claims; refused otherwise)
# Environment: MEMMAPCHECK (the CLI; default build/memmapcheck of this
# checkout, else memmapcheck on PATH).
# OUTDIR gets report.txt, report.ktap, report.kcidb.json and rc (the diff's
# exit code).  Exit: the diff's: 0 identical, 1 different, 4 incomplete,
# 2 usage or bad input, 3 internal error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
base_ids= new_ids= origin= claims=()
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--base-ids) base_ids=$2; shift ;;
	--new-ids) new_ids=$2; shift ;;
	--origin) origin=$2; shift ;;
	--claims) claims=(--claims "$2"); shift ;;
	-h|--help) usage ;;
	-*) echo "lava-compare: unknown option $1" >&2; exit 2 ;;
	*) args+=("$1") ;;
	esac
	shift
done
[ ${#args[@]} = 3 ] || usage
base=${args[0]} new=${args[1]} out=${args[2]}
MMC=${MEMMAPCHECK:-}
[ -n "$MMC" ] || { [ -x "$here/../../build/memmapcheck" ] && MMC=$here/../../build/memmapcheck; } || true
[ -n "$MMC" ] || MMC=$(command -v memmapcheck || true)
[ -n "$MMC" ] && [ -x "$MMC" ] || { echo "lava-compare: no memmapcheck (set MEMMAPCHECK)" >&2; exit 2; }
if [ ${#claims[@]} -gt 0 ] && ! "$MMC" diff --help 2>&1 | grep -q -- --claims; then
	echo "lava-compare: this memmapcheck has no --claims" >&2; exit 2
fi
mkdir -p "$out"
export MEMMAPCHECK_KCIDB_BASE=$base_ids MEMMAPCHECK_KCIDB_NEW=$new_ids MEMMAPCHECK_KCIDB_ORIGIN=$origin
rc=0
"$MMC" diff -q "${claims[@]}" -n 20 --report "$out/report.kcidb.json" --report-format kcidb \
	"$base" "$new" > "$out/report.txt" || rc=$?
case $rc in 0|1|4) ;; *) echo "lava-compare: memmapcheck diff exited $rc" >&2; exit $rc ;; esac
r2=0
"$MMC" diff -q "${claims[@]}" -n 0 -f ktap "$base" "$new" > "$out/report.ktap" || r2=$?
[ $r2 = $rc ] || { echo "lava-compare: diff -f ktap exited $r2, the text diff $rc" >&2; exit 3; }
echo $rc > "$out/rc"
echo "lava-compare: $(head -1 "$out/report.txt") (exit $rc): $out/report.{txt,ktap,kcidb.json}"
exit $rc
