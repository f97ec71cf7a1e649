#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# memmapcheck-prove --lava OUTDIR: LAVA jobs for the two kernels a prove run
# built (run by memmapcheck-prove after its report; usable on its own).
#
# usage: scripts/prove/lava-prove.sh OUTDIR REPORT_DIR BASE_KDIR NEW_KDIR KASLR LAYOUT... [-- PATCH...]
#   REPORT_DIR  the prove report: base.layout and new.layout (the kernels'
#               saved layouts), prove.txt
#   LAYOUT      guest layouts (names or paths): one job per kernel and layout
#   PATCH       the patches of the new kernel (its KCIDB patchset_hash)
# Environment: MEMMAPCHECK_DEB (the memmapcheck .deb to install on the
#   devices; default: built from this checkout by scripts/prove/lava-deb.sh),
#   MEMMAPCHECK_LAVA_GIT_BASE / _NEW (git commits of the kernels, for KCIDB).
# OUTDIR (replaced if it holds such jobs, refused if it is anything else) gets:
#   <side>-<layout>.yaml   qemu jobs, runnable by lava-run (scripts/prove/lava-run.py)
#   <side>.ramdisk.cpio.gz the guest ramdisk with the .deb and the kernel's layout
#   <side>.layout, <side>.kcidb   the saved layout; the kernel identity file
#                          (memmapcheck(1) MEMMAPCHECK_KCIDB_BASE/NEW)
#   test-definitions/      the git repository the jobs name
#   jobs.tsv, README       what to run next (lava-run.py, lava-compare.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { local rc=$1; shift; echo "lava-prove: $*" >&2; exit "$rc"; }
[ $# -ge 6 ] || die 2 "usage: lava-prove.sh OUTDIR REPORT_DIR BASE_KDIR NEW_KDIR KASLR LAYOUT... [-- PATCH...]"
out=$1 rep=$2 kb=$3 kn=$4 kaslr=$5
shift 5
layouts=() patches=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do layouts+=("$1"); shift; done
[ $# -gt 0 ] && shift
patches=("$@")
for f in "$rep/base.layout" "$rep/new.layout" "$kb/bzImage" "$kn/bzImage"; do
	[ -s "$f" ] || die 2 "missing $f"
done
out=${out%/}
if [ -e "$out" ] && [ ! -e "$out/.memmapcheck-lava" ]; then
	{ [ -d "$out" ] && [ -z "$(ls -A "$out")" ]; } || die 2 "$out exists and is not a memmapcheck-prove --lava folder: not replacing it"
fi
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
: > "$out/.memmapcheck-lava"

deb=${MEMMAPCHECK_DEB:-}
[ -n "$deb" ] || deb=$("$here/lava-deb.sh") || die $? "no memmapcheck .deb (set MEMMAPCHECK_DEB)"
[ -f "$deb" ] || die 2 "$deb: no such .deb"

# one capture initramfs for both kernels (built-in drivers: no modules)
base_cpio=$out/.initramfs.cpio.gz
"$here/guest/build-initramfs.sh" -o "$base_cpio" 2>"$out/.initramfs.log" ||
	{ cat "$out/.initramfs.log" >&2; die 3 "build-initramfs.sh failed"; }
jobs=()
for side in base new; do
	kd=$kb; [ $side = new ] && kd=$kn
	cp "$rep/$side.layout" "$out/$side.layout"
	"$here/lava-ramdisk.sh" --base "$base_cpio" -o "$out/$side.ramdisk.cpio.gz" -d "$deb" \
		-l "$out/$side.layout" 2>>"$out/ramdisk.log" || { cat "$out/ramdisk.log" >&2; die 3 "lava-ramdisk.sh failed"; }
	for l in "${layouts[@]}"; do
		jobs+=(--job "$side-$(basename "${l%.sh}"):$kd:$out/$side.ramdisk.cpio.gz:$l")
	done
done
rm -f "$base_cpio" "$out/.initramfs.log"
kopt=()
[ "$kaslr" = 1 ] && kopt=(--kaslr)
/usr/bin/env python3 "$here/lava-jobs.py" -o "$out" "${kopt[@]}" "${jobs[@]}" >/dev/null

# KCIDB identity of each kernel: patchset_hash as KCIDB defines it, sha256
# over the newline-terminated sha256 of each patch in order ("" for none)
phash=
if [ ${#patches[@]} -gt 0 ]; then
	phash=$(for p in "${patches[@]}"; do sha256sum < "$p" | cut -c1-64; done | sha256sum | cut -c1-64)
fi
for side in base new; do
	kd=$kb; [ $side = new ] && kd=$kn
	g=MEMMAPCHECK_LAVA_GIT_$(echo $side | tr a-z A-Z)
	{
		echo "# $side kernel of memmapcheck-prove: $kd"
		echo "kernel=$side-$(basename "$kd")"
		echo "architecture=x86_64"
		echo "config_name=$(sed -n 's/^config: //p' "$rep/prove.txt" 2>/dev/null | head -1 | tr -d '\n')"
		echo "compiler=$(sed -n 's/^compiler: //p' "$rep/prove.txt" 2>/dev/null | head -1 | tr -d '\n')"
		[ -z "${!g:-}" ] || echo "git_commit_hash=${!g}"
		if [ $side = new ]; then echo "patchset_hash=$phash"; else echo "patchset_hash="; fi
	} > "$out/$side.kcidb"
done
cat > "$out/README" <<EOF
LAVA jobs of memmapcheck-prove (doc/LABS.md):

  scripts/prove/lava-run.py -o RESULTS $out/*.yaml          # here, lava-dispatcher without a server
  lavacli jobs submit $out/base-*.yaml                 # or a lab's server
then, with the snapshots the two jobs handed out:
  scripts/prove/lava-compare.sh --base-ids $out/base.kcidb --new-ids $out/new.kcidb \\
      RESULTS/base-LAYOUT/live.snap RESULTS/new-LAYOUT/live.snap REPORT
EOF
cut -f1,4 "$out/jobs.tsv" | sed 's/^/lava-prove: job /' >&2
