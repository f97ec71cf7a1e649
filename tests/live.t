#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The live path, end to end: scripts/vectors/live/run-live.sh boots the 6.12 base test
guest under QEMU TCG (every run: nothing cached), runs `memmapcheck snapshot
--live` inside it against its own /proc/kcore, dumps the same guest right after
and diffs live against dump.  TAP output; about 35-60 s.

The ranges expected come from outside the tool: one per pmem namespace of the
standard layout (scripts/prove/guest/layout.sh), and the other pgmaps as the guest
kernel announced them on its console (lib/test_hmm.c "added new 256 MB chunk
... PFNs [a b)": MEMORY_DEVICE_COHERENT at the layout's test_hmm.spm_addr_dev0/1,
MEMORY_DEVICE_PRIVATE elsewhere; drivers/pci/p2pdma.c "added peer-to-peer DMA
memory a-b": MEMORY_DEVICE_PCI_P2PDMA).

Per range (from `memmapcheck diff --json`, not only the exit code):
  map=mem (struct pages in RAM, incl. the raw legacy namespace, and the
  private, coherent and p2pdma pgmaps):
      verdict identical, no unreadable page on either side, and the raw slot
      values of every run equal in both snapshots
  map=dev (struct pages on the device, not in /proc/kcore):
      verdict incomplete (never identical, never different), every struct page
      unreadable live, none unreadable in the dump, none differing
Skips (loudly) without qemu-system-x86_64, the 6.12-base kernel, the CLI or the
initramfs tools.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import BUILD, CACHE, CLI, TOP, Tap, skip_all  # noqa: E402

KDIR = os.path.join(CACHE, "kernels", "6.12-base")
RUN = os.path.join(TOP, "scripts", "vectors", "live", "run-live.sh")
GUEST_TIMEOUT = 150    # boot + setup + live check (about 20 s here)
TIMEOUT = 240          # the whole run-live.sh

# A map=mem range whose verdict is "different" although every raw slot value
# equals the dump's: MMC_V_OBJ ids are numbered by first appearance over the
# whole snapshot, so objects only seen in the (unreadable live) map=dev ranges
# before it shift the numbers.  Engine bug, reported; remove once fixed.
TODO_OBJ = ("engine: MMC_V_OBJ first-appearance numbers shift after unreadable "
            "ranges (raw values equal)")

tap = Tap(diag_lines=40)


def missing():
    if not shutil.which("qemu-system-x86_64"):
        return "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
    for f in ("bzImage", "vmlinux"):
        if not os.path.isfile(os.path.join(KDIR, f)):
            return "no %s in %s (scripts/vectors/build-kernel.sh 6.12 base)" % (f, KDIR)
    if not os.access(CLI, os.X_OK):
        return "no memmapcheck CLI at %s (make)" % CLI
    for t in ("busybox", "ndctl", "cpio", "gcc"):
        if not shutil.which(t) and not os.path.exists("/usr/sbin/" + t):
            return "%s not installed (needed for the guest initramfs)" % t
    return None


def standard_layout():
    """mmc.ns= and the extra kernel parameters of the standard layout, from
    scripts/prove/guest/layout.sh itself."""
    out = subprocess.run(["bash", "-c", '. "$1"; mmc_layout 320 1 && echo "$MMC_NS" && echo "$MMC_KARGS"',
                          "-", os.path.join(TOP, "scripts", "prove", "guest", "layout.sh")],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    ns = []
    for e in out[0].split(","):
        start, mode, align, mp = e.split(":")
        ns.append({"start": int(start, 16), "mode": mode, "align": align,
                   "map": "mem" if mode == "raw" else mp,
                   "name": "raw" if mode == "raw" else "%s-%s" % (mode, align)})
    spm = set()
    for a in out[1].split():
        m = re.match(r"test_hmm\.spm_addr_dev[01]=(\S+)$", a)
        if m:
            spm.add(int(m.group(1), 0) >> 12)
    return ns, spm


def announced_pgmaps(console, spm):
    """(start_pfn, end_pfn, type) of every pgmap the guest kernel announced."""
    found = []
    # kernel log lines only (/init repeats some of them after "mmc-init:")
    console = "\n".join(l for l in console.splitlines() if l.startswith("["))
    for m in re.finditer(r"added new \d+ MB chunk .*PFNs \[0x([0-9a-f]+) 0x([0-9a-f]+)\)", console):
        a, b = int(m.group(1), 16), int(m.group(2), 16)
        found.append((a, b, "MEMORY_DEVICE_COHERENT" if a in spm else "MEMORY_DEVICE_PRIVATE"))
    for m in re.finditer(r"added peer-to-peer DMA memory 0x([0-9a-f]+)-0x([0-9a-f]+)", console):
        found.append((int(m.group(1), 16) >> 12, (int(m.group(2), 16) + 1) >> 12,
                      "MEMORY_DEVICE_PCI_P2PDMA"))
    return sorted(found)


def region_of(ns, pfn):
    best = None
    for r in ns:
        if r["start"] <= pfn << 12 and (best is None or r["start"] > best["start"]):
            best = r
    return best


def cli_json(*args):
    """The JSON a command prints; exit 4 (some pages unreadable: the live
    snapshot's map=dev struct pages) still prints it."""
    r = subprocess.run([CLI] + list(args), capture_output=True, text=True)
    if r.returncode not in (0, 4):
        raise subprocess.CalledProcessError(r.returncode, r.args, r.stdout, r.stderr)
    return json.loads(r.stdout)


def raw_runs(snap, idx):
    """Every run of range idx as (first, last, state, role, raw slot values)."""
    d = cli_json("show", "--json", "-r", str(idx), snap)
    return [(r["first_pfn"], r["last_pfn"], r["state"], r["role"],
             tuple(s["raw"] for s in r.get("slots", [])))
            for r in d["ranges"][0]["runs"]]


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return "(%s)" % e


def main():
    why = missing()
    if why:
        skip_all(why, stderr=True)
    os.makedirs(os.path.join(CACHE, "live"), exist_ok=True)
    out = tempfile.mkdtemp(prefix="test.", dir=os.path.join(CACHE, "live"))
    try:
        run(out)
    finally:
        if tap.failed == 0 or os.environ.get("MMC_LIVE_KEEP") != "1":
            shutil.rmtree(out, ignore_errors=True)
        else:
            print("# results kept in " + out)
    return tap.plan()


def run(out):
    t0 = time.time()
    # Own process group: on a timeout QEMU (started by run-live.sh) goes too.
    p = subprocess.Popen([RUN, KDIR, "-o", out, "--timeout", str(GUEST_TIMEOUT)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ, MMC_BUILD=BUILD), start_new_session=True)
    try:
        log = p.communicate(timeout=TIMEOUT)[0]
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGTERM)
        time.sleep(2)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        rc, log = -1, "run-live.sh killed after %d s\n%s" % (TIMEOUT, p.communicate()[0])
    secs = time.time() - t0
    print("# run-live.sh: exit %d in %.0f s" % (rc, secs))
    for line in log.splitlines():
        if line.startswith("live 6.12-base:") or "LIVE-DONE" in line:
            print("# " + line)
    # 0: all as expected, 1: some range not as expected (checked below)
    tap(rc in (0, 1), "run-live.sh booted, checked live and dumped (exit %d)" % rc, log)
    if rc not in (0, 1):
        return
    console = read(os.path.join(out, "console.log"))
    tap("MEMMAPCHECK-READY status=0" in console, "guest namespace setup reported status 0",
        "\n".join(l for l in console.splitlines() if "mmc-init" in l))
    # /proc/kcore shows System RAM, not device memory: the struct pages of
    # map=dev namespaces (in their altmap, on the device) are unreadable
    # live, so snapshot and ranges write their output and exit 4.  Expected
    # count: the pages of the ranges whose pgmap has an altmap, from the dump.
    dump = json.load(open(os.path.join(out, "ranges-dump.json")))
    want_unread = sum(r["end_pfn"] - r["start_pfn"] for r in dump["ranges"]
                      if dump["pgmaps"][r["pgmap"]]["has_altmap"])
    serr = read(os.path.join(out, "live", "snapshot.err"))
    m = re.search(r"(\d+) unreadable", serr)
    tap(read(os.path.join(out, "live", "snapshot.rc")).strip() == "4" and
        m is not None and int(m.group(1)) == want_unread and
        "Sanitizer" not in serr and "runtime error" not in serr,
        "memmapcheck snapshot --live LAYOUT /proc/kcore in the guest: exit 4, exactly the %d "
        "map=dev struct pages (on the device, not in /proc/kcore) unreadable" % want_unread, serr)
    tap(read(os.path.join(out, "live", "ranges.rc")).strip() == "4",
        "memmapcheck ranges --live LAYOUT /proc/kcore in the guest: exit 4 (map=dev struct pages unreadable)",
        read(os.path.join(out, "live", "ranges-kcore.err")))

    ns, spm = standard_layout()
    other = announced_pgmaps(console, spm)
    live = json.load(open(os.path.join(out, "live", "ranges.json")))
    dump = json.load(open(os.path.join(out, "ranges-dump.json")))
    d = json.load(open(os.path.join(out, "diff.json")))
    key = lambda doc: [(r["start_pfn"], r["end_pfn"], r["type"],
                        doc["pgmaps"][r["pgmap"]]["has_altmap"]) for r in doc["ranges"]]
    tap(len(live["ranges"]) == len(ns) + len(other) and key(live) == key(dump),
        "live and dump find the same %d ranges (%d namespaces, %d other pgmaps announced)"
        % (len(ns) + len(other), len(ns), len(other)),
        "live %s\ndump %s" % (key(live), key(dump)))
    tap(len(other) >= 5, "the guest announced at least 2 private, 2 coherent and 1 p2pdma pgmaps",
        "\n".join("0x%x-0x%x %s" % o for o in other))
    typed = lambda doc: sorted((r["start_pfn"], r["end_pfn"], doc["pgmaps"][r["pgmap"]]["type_name"])
                               for r in doc["ranges"])
    for o in other:
        tap(o in typed(dump), "pgmap 0x%x-0x%x %s found in the dump" % o,
            "\n".join(map(str, typed(dump))))
    tap(len(d["ranges"]) == len(dump["ranges"]) and
        all(r["a_index"] >= 0 and r["b_index"] >= 0 for r in d["ranges"]),
        "the diff pairs every range", json.dumps(d["ranges"])[:2000])

    todo_ranges = []
    other_at = {(a, b): t for a, b, t in other}
    for i, r in enumerate(d["ranges"]):
        typ = other_at.get((r["start_pfn"], r["end_pfn"]))
        reg = ({"name": typ[len("MEMORY_DEVICE_"):].lower(), "map": "mem"} if typ
               else region_of(ns, r["start_pfn"]))
        pages = r["end_pfn"] - r["start_pfn"]
        am = live["pgmaps"][live["ranges"][r["a_index"]]["pgmap"]]["has_altmap"]
        name = "range %d pfn 0x%x-0x%x %s map=%s" % (i, r["start_pfn"], r["end_pfn"],
                                                     reg["name"] if reg else "?",
                                                     reg["map"] if reg else "?")
        diag = json.dumps(r)
        if not reg:
            tap(False, name + ": lies in a pmem region of the layout", diag)
            continue
        tap(am == (reg["map"] == "dev"),
            "%s: altmap %s matches the namespace" % (name, am), diag)
        if reg["map"] == "dev":
            tap(r["verdict"] == "incomplete" and r["unreadable_a"] == pages and
                r["unreadable_b"] == 0 and r["differing"] == 0,
                "%s: incomplete, all %d struct pages unreadable live, none in the dump"
                % (name, pages), diag)
            continue
        same_raw = raw_runs(os.path.join(out, "live", "live.snap"), r["a_index"]) == \
            raw_runs(os.path.join(out, "dump.snap"), r["b_index"])
        tap(same_raw, "%s: raw slot values of every run equal live and in the dump" % name)
        ok = (r["verdict"] == "identical" and r["unreadable_a"] == 0 and
              r["unreadable_b"] == 0 and r["compared"] == pages)
        tap(ok, "%s: identical, %d struct pages compared, none unreadable" % (name, pages),
            diag + "\n" + read(os.path.join(out, "diff.txt")))

    dev = [r for r in d["ranges"] if (r["start_pfn"], r["end_pfn"]) not in other_at and
           (region_of(ns, r["start_pfn"]) or {}).get("map") == "dev"]
    nd, dev_pages = len(dev), sum(r["end_pfn"] - r["start_pfn"] for r in dev)
    ok = d["verdict"] == "incomplete" and d["pages_unreadable"] == dev_pages
    other = [r["verdict"] for i, r in enumerate(d["ranges"])
             if r["verdict"] == "different" and i not in todo_ranges]
    tap(ok, "overall verdict incomplete, %d map=dev ranges unreadable live (got %s: %s)"
        % (nd, d["verdict"], d["summary"]), "other differing ranges: %s" % other)
    times = read(os.path.join(out, "times"))
    for line in times.splitlines():
        print("# time " + line)
    print("# ELF: " + read(os.path.join(out, "elf-header")).strip())


if __name__ == "__main__":
    sys.exit(main())
