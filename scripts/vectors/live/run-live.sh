#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Prove the live path: boot a test guest under QEMU TCG with the capture guests'
# pmem regions and namespaces, run `memmapcheck snapshot --live` inside it against
# its own /proc/kcore, then dump the same guest right after (QMP dump-guest-memory,
# ELF, paging=false), snapshot the dump on the host and diff live against dump.
#
# usage: scripts/vectors/live/run-live.sh KERNEL_DIR [options]
#   KERNEL_DIR   holds bzImage (or vmlinuz) and vmlinux (e.g. $CACHE/kernels/6.12-base);
#                a modules/ dir makes it a modular (stock) kernel, as for capture.sh
#   -o DIR         results directory (default $CACHE/live/<kernel dir name>)
#   --layout L     guest layout, as in capture.sh (default standard)
#   --keep-elf     keep the raw QEMU ELF dump as DIR/dump.elf (size of guest RAM)
#   --kaslr        do not pass nokaslr
#   --rebind N     driver unbind/rebind rounds in the guest (default: the layout's, 3)
#   --boot-mb M    boot RAM below the first pmem region (default 320)
#   --no-1g        leave out the 1 GiB devdax region
#   --timeout S    seconds to wait for the guest's live check (default 300)
# Environment: MMC_BUILD (build dir holding memmapcheck, default the repo's build/),
#   MEMMAPCHECK_CACHE (default ~/.cache/memmapcheck).
#
# Results in DIR (replaced on every run; nothing is reused from an earlier run):
#   kernel.layout      saved layout of KERNEL_DIR/vmlinux, used in guest and host
#   live/              from the guest (virtio disk, or base64 on the console when
#                      the kernel has no virtio-blk): live.snap, ranges.json, ranges-kcore.txt,
#                      snapshot.err, *.rc, snapshot.ms
#   dump.snap, ranges-dump.json, diff.json, diff.txt   host side
#   console.log, ns (the mmc.ns= value), elf-header, summary.tsv, times
# Expected: every range with struct pages in RAM (map=mem, and the pgmaps that
# are not pmem namespaces: HMM private and coherent, PCI p2pdma) "identical"
# with no unreadable page on either side; every map=dev range "incomplete"
# with all its struct pages unreadable live and none unreadable in the dump.
# Exit: 0 as expected, 1 an expectation failed, 2 usage or missing tool,
#       3 the guest or a pipeline step failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CACHE=${MEMMAPCHECK_CACHE:-$HOME/.cache/memmapcheck}
BUILD=${MMC_BUILD:-$top/build}
MMC=$BUILD/memmapcheck
PY=/usr/bin/python3
. "$top/scripts/prove/guest/layout.sh"
. "$top/scripts/prove/lib-qemu.sh"

usage() { sed -n '3,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
kdir=$1; shift
out= keep_elf=0 kaslr=0 rebind= timeout=300 layout=standard
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	--layout) layout=$2; shift ;;
	--keep-elf) keep_elf=1 ;;
	--kaslr) kaslr=1 ;;
	--rebind) rebind=$2; shift ;;
	--boot-mb) export MMC_BOOT_MB=$2; shift ;;
	--no-1g) export MMC_WITH_1G=0 ;;
	--timeout) timeout=$2; shift ;;
	*) usage ;;
	esac
	shift
done
kname=$(basename "$kdir")
out=${out:-$CACHE/live/$kname}
kernel=$kdir/bzImage vmlinux=$kdir/vmlinux
[ -f "$kernel" ] || kernel=$kdir/vmlinuz
die() { echo "live: $1" >&2; exit "${2:-3}"; }
[ -f "$kernel" ] || die "no bzImage/vmlinuz in $kdir" 2
[ -f "$vmlinux" ] || die "no vmlinux in $kdir" 2
[ -x "$MMC" ] || die "no memmapcheck CLI at $MMC (make, or set MMC_BUILD)" 2
for t in qemu-system-x86_64 cpio gzip tar ldd; do
	command -v $t >/dev/null || die "missing $t" 2
done
[ -x "$PY" ] || die "missing $PY" 2
mmc_layout_load "$layout" || die "bad layout $layout" 2
rebind=${rebind:-$MMC_REBIND}

T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/live" "$out"/*.snap "$out"/*.json "$out"/diff.txt "$out"/summary.tsv \
	"$out"/times "$out"/console.log "$out"/elf-header "$out"/dump.elf
work=$(mktemp -d "$out/.work.XXXXXX")
cleanup() { mmc_qemu_stop; rm -rf "$work"; }
trap cleanup EXIT

# ---- layout, initramfs ------------------------------------------------------
nice "$MMC" layout -q -o "$out/kernel.layout" "$vmlinux" || die "memmapcheck layout $vmlinux failed"

# The capture guests' initramfs, unchanged (its /init sets up the namespaces),
# plus a second cpio archive (the kernel unpacks concatenated archives) with
# /live-init, the CLI, its shared libraries and the layout.
modopt=()
[ -d "$kdir/modules" ] && modopt=(--modules "$kdir/modules")
nice "$top/scripts/prove/guest/build-initramfs.sh" -o "$work/base.cpio.gz" "${modopt[@]}" 2>"$work/initramfs.log" ||
	{ cat "$work/initramfs.log" >&2; die "build-initramfs.sh failed"; }
gzip -dc "$work/base.cpio.gz" | cpio -t --quiet 2>/dev/null | sed 's,^\./,,' | LC_ALL=C sort > "$work/base.list"
extra=$work/extra
mkdir -p "$extra/mmc"
install -m 755 "$here/init" "$extra/live-init"
cp "$MMC" "$extra/mmc/memmapcheck"
cp "$out/kernel.layout" "$extra/mmc/kernel.layout"
for lib in $(ldd "$MMC" | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}'); do
	mkdir -p "$extra$(dirname "$lib")"
	cp -L "$lib" "$extra$lib"
done
# Only new paths: an entry for a directory the base has (possibly as a symlink,
# usr/lib/x86_64-linux-gnu) must not replace it.
(cd "$extra" && find . -mindepth 1 | sed 's,^\./,,' | LC_ALL=C sort) |
	LC_ALL=C comm -23 - "$work/base.list" > "$work/extra.list"
(cd "$extra" && cpio -o -H newc --quiet -R 0:0 < "$work/extra.list") | gzip -6n > "$work/extra.cpio.gz"
cat "$work/base.cpio.gz" "$work/extra.cpio.gz" > "$work/initrd.cpio.gz"
[ "$(du -k "$work/initrd.cpio.gz" | cut -f1)" -lt 40000 ] || die "initramfs too large for the guest's top 64 MiB"

# ---- boot -------------------------------------------------------------------
echo "$MMC_NS" > "$out/ns"
cmdline="console=ttyS0 panic=-1 rdinit=/live-init $MMC_GUEST_ARGS mmc.mode=normal mmc.rebind=$rebind"
[ $kaslr = 1 ] || cmdline="nokaslr $cmdline"
xfer=$work/xfer.img
truncate -s 64M "$xfer"
log=$work/console.log
echo "live $kname: layout $MMC_LAYOUT, RAM ${MMC_RAM_MB} MiB, $(echo "$MMC_NS" | tr ',' '\n' | grep -c .) pmem regions, CLI $MMC"
mmc_qemu_start -k "$kernel" -i "$work/initrd.cpio.gz" -a "$cmdline" -l "$log" -q "$work/qmp.sock" \
	-o "$work/qemu.out" "${MMC_QEMU_OPTS[@]}" -- -drive "file=$xfer,format=raw,if=virtio"

fail_guest() {
	cp "$log" "$out/console.log" 2>/dev/null || true
	echo "live $kname: $1; console tail:" >&2
	mmc_qemu_tail 30
	exit 3
}
guest_fail='Kernel panic|MEMMAPCHECK-FAILED|MEMMAPCHECK-LIVE-FAILED'
deadline=$(( $(date +%s) + timeout )) t_ready=
for marker in MEMMAPCHECK-READY MEMMAPCHECK-LIVE-DONE; do
	rc=0
	mmc_qemu_wait $(( deadline - $(date +%s) )) "$marker" "$guest_fail" || rc=$?
	case $rc in
	0) ;;
	2) fail_guest "QEMU exited before $marker" ;;
	3) fail_guest "no $marker within $timeout s" ;;
	*) fail_guest "guest failed" ;;
	esac
	[ -n "$t_ready" ] || t_ready=$(elapsed)
done
t_live=$(elapsed)
# Right after: the dump starts as soon as the marker is seen (the guest idles).
elf=$work/dump.elf
mmc_qemu_dump "$elf" elf || fail_guest "QMP dump-guest-memory failed"
t_dump=$(elapsed)
mmc_qemu_quit
cp "$log" "$out/console.log"
grep -q -a 'MEMMAPCHECK-READY status=0' "$log" || echo "live $kname: WARNING: guest setup reported failures (see $out/console.log)" >&2
grep -a -m1 MEMMAPCHECK-LIVE-DONE "$log" | tr -d '\r'
if grep -q -a 'MEMMAPCHECK-LIVE-DONE.*via=console' "$log"; then
	tr -d '\r' < "$log" | sed -n '/^MEMMAPCHECK-LIVE-BASE64-BEGIN/,/^MEMMAPCHECK-LIVE-BASE64-END/p' |
		grep -E '^[A-Za-z0-9+/=]+$' | base64 -d > "$work/live.tgz" || die "bad base64 on the console"
	want=$(tr -d '\r' < "$log" | sed -n 's/^MEMMAPCHECK-LIVE-BASE64-BEGIN //p')
	[ "$(sha256sum < "$work/live.tgz" | cut -d' ' -f1)" = "$want" ] || die "the live results were garbled on the console"
	tar -xzf "$work/live.tgz" -C "$out" || die "bad tar archive from the console"
else
	tar -xf "$xfer" -C "$out" || die "no tar archive on the transfer disk"
fi
[ -s "$out/live/live.snap" ] || { cat "$out/live/snapshot.err" >&2 || true; die "the guest wrote no live snapshot (memmapcheck snapshot --live exit $(cat "$out/live/snapshot.rc"))"; }

# ---- dump side --------------------------------------------------------------
# The CLI reads the raw QEMU ELF through libkdumpfile: try it as QEMU wrote it
# first, and repair the header (scripts/prove/fix-qemu-elf.py) only if that fails.
snap_dump() {
	nice "$MMC" snapshot --no-progress -o "$out/dump.snap" "$out/kernel.layout" "$elf" 2>"$work/dump-snap.err"
}
hdr=$("$PY" "$top/scripts/prove/fix-qemu-elf.py" "$elf" --check 2>&1) || true
if snap_dump; then
	echo "raw QEMU ELF read as is ($hdr)" > "$out/elf-header"
else
	echo "raw QEMU ELF failed ($hdr): $(cat "$work/dump-snap.err")" > "$out/elf-header"
	"$PY" "$top/scripts/prove/fix-qemu-elf.py" "$elf" >/dev/null
	snap_dump || { cat "$work/dump-snap.err" >&2; die "memmapcheck snapshot of the dump failed, even after fix-qemu-elf.py"; }
	echo "repaired with fix-qemu-elf.py, then read" >> "$out/elf-header"
fi
sed 's/^/live: dump: /' "$work/dump-snap.err"
t_snap=$(elapsed)
[ $keep_elf = 1 ] && mv "$elf" "$out/dump.elf"
rm -f "$elf"
"$MMC" ranges --json "$out/dump.snap" > "$out/ranges-dump.json"
set +e
"$MMC" diff -n 5 "$out/live/live.snap" "$out/dump.snap" > "$out/diff.txt"
"$MMC" diff --json -n 5 "$out/live/live.snap" "$out/dump.snap" > "$out/diff.json"
diff_rc=$?
set -e
[ $diff_rc -le 1 ] || [ $diff_rc -eq 4 ] || { cat "$out/diff.txt" >&2; die "memmapcheck diff exit $diff_rc"; }
{
	echo "ready $t_ready"
	echo "live_done $t_live"
	echo "live_snapshot_in_guest_ms $(cat "$out/live/snapshot.ms")"
	echo "dumped $t_dump"
	echo "dump_snapshot_done $t_snap"
	echo "diff_exit $diff_rc"
} > "$out/times"

# ---- per-range expectations -------------------------------------------------
rc=0
"$PY" - "$out" <<'PYEOF' || rc=$?
import json, os, sys
out = sys.argv[1]
ns = []
for e in open(os.path.join(out, "ns")).read().strip().split(","):
    start, mode, align, mp = e.split(":")
    ns.append((int(start, 16), mode, align, mp))
def region(pfn):
    a = pfn << 12
    best = None
    for r in ns:
        if r[0] <= a and (best is None or r[0] > best[0]):
            best = r
    return best
d = json.load(open(os.path.join(out, "diff.json")))
live = json.load(open(os.path.join(out, "live", "ranges.json")))
dump = json.load(open(os.path.join(out, "ranges-dump.json")))
def altmap(doc, idx):
    r = doc["ranges"][idx]
    return doc["pgmaps"][r["pgmap"]]["has_altmap"]
bad = 0
rows = []
print("live: %-3s %-22s %-12s %-3s %-8s %8s %8s %8s  %-10s %s" %
      ("rng", "pfns", "namespace", "map", "altmap", "pages", "unr-live", "unr-dump", "verdict", "expected"))
# pgmaps that are not pmem namespaces keep their struct pages in RAM
NOT_PMEM = ("MEMORY_DEVICE_PRIVATE", "MEMORY_DEVICE_COHERENT", "MEMORY_DEVICE_PCI_P2PDMA")
def pgmap_type(doc, idx):
    return doc["pgmaps"][doc["ranges"][idx]["pgmap"]]["type_name"] if idx >= 0 else "?"
for i, r in enumerate(d["ranges"]):
    typ = pgmap_type(dump, r["b_index"])
    reg = None if typ in NOT_PMEM else region(r["start_pfn"])
    # a raw legacy namespace (no pfn device) has its struct pages in RAM
    if typ in NOT_PMEM:
        mp = "mem"
    else:
        mp = ("mem" if reg[1] == "raw" else reg[3]) if reg else "?"
    am = altmap(live, r["a_index"]) if r["a_index"] >= 0 else None
    pages = r["end_pfn"] - r["start_pfn"]
    if mp == "mem":
        exp = "identical"
        ok = r["verdict"] == "identical" and r["unreadable_a"] == 0 and r["unreadable_b"] == 0
    elif mp == "dev":
        exp = "incomplete"
        ok = (r["verdict"] == "incomplete" and r["unreadable_a"] > 0 and r["unreadable_b"] == 0
              and r["differing"] == 0)
    else:
        exp, ok = "?", False
    ok = ok and r["a_index"] >= 0 and r["b_index"] >= 0 and am == (mp == "dev")
    bad += not ok
    if typ in NOT_PMEM:
        what = typ[len("MEMORY_DEVICE_"):].lower()
    else:
        what = ("raw" if reg[1] == "raw" else "%s-%s" % (reg[1], reg[2])) if reg else "?"
    print("live: %-3d %-22s %-12s %-3s %-8s %8d %8d %8d  %-10s %s%s" %
          (i, "0x%x-0x%x" % (r["start_pfn"], r["end_pfn"]), what, mp, am, pages,
           r["unreadable_a"], r["unreadable_b"], r["verdict"], exp, "" if ok else "  <-- NOT AS EXPECTED"))
    rows.append("\t".join(str(x) for x in (i, r["start_pfn"], r["end_pfn"], what, mp, am, pages,
                r["compared"], r["differing"], r["unreadable_a"], r["unreadable_b"], r["verdict"], exp,
                "ok" if ok else "FAIL")))
if len(live["ranges"]) != len(dump["ranges"]) or len(d["ranges"]) != len(dump["ranges"]):
    print("live: range count differs: live %d, dump %d, diff %d" %
          (len(live["ranges"]), len(dump["ranges"]), len(d["ranges"])))
    bad += 1
print("live: overall verdict %s: %s" % (d["verdict"], d["summary"]))
with open(os.path.join(out, "summary.tsv"), "w") as f:
    f.write("range\tstart_pfn\tend_pfn\tnamespace\tmap\taltmap\tpages\tcompared\tdiffering\tunreadable_live\tunreadable_dump\tverdict\texpected\tresult\n")
    f.write("\n".join(rows) + "\n")
sys.exit(1 if bad else 0)
PYEOF
echo "live $kname: ready $t_ready s, live check done $t_live s (snapshot in guest $(cat "$out/live/snapshot.ms") ms), dumped $t_dump s, dump snapshot $t_snap s, total $(elapsed) s"
echo "live $kname: ELF: $(cat "$out/elf-header")"
echo "live $kname: results in $out"
exit $rc
