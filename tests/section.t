#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The section-based device-DAX vmemmap port (patches/7.2/section-vmemmap.patch)
and its two mutants on their committed images (dumps/section-vmemmap.tar.xz):
issue 18's "different exactly as claimed" on a real series.  TAP.

Every check says what its expectation rests on:
  [proof]  the port's and the mutants' own semantics (the patch header,
           patches/README.md, doc/SECTION-VMEMMAP.md's derivation)
           and the standard guest's geometry: range #0 devdax 2M map=mem in
           an early section (0x14000-0x18000, 32 compound pages), #2 devdax
           2M map=mem in one whole section (0x20000-0x28000, 64 compound
           pages of 8 vmemmap pages each), #3 devdax 2M map=dev (altmap:
           2 reserve + 512 memmap + 510 align pfns, then 62 compound pages),
           #6 devdax 1G map=mem (0x3f000-0x80000, FINDINGS 4's misaligned
           start); 64 struct pages per vmemmap page.  The claims files were
           written from the patches, never from memmapcheck's output.
  [guard]  a count the tool gave (range #6, where the base's FINDINGS 4
           layout makes the per-page outcome the alignment fix's), or the
           same answer two ways (chunk by chunk and page by page).

Lint: the kernel's rule for the port is that a read-only frame shared
across compound pages holding only tails is correct, a writable one is not
(doc/SECTION-VMEMMAP.md); lint reads the writable bit from snapshot v5's
vmemmap protection (rule vmemmap-ro, and vmemmap-share's exception).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, Snapshots, Tap, cli_diff, skip_all  # noqa: E402

tap = Tap(diag_lines=60)
snap = Snapshots(tap, "[guard] snapshot of %s: exit 0, nothing unread")

BASE, PORT = "7.2-base-b1", "7.2-section-vmemmap-b1"
WRITABLE, UNINIT = "7.2-mut-section-writable-b1", "7.2-mut-section-tail-uninit-b1"

# the standard guest's ranges the port touches, by start pfn
R0, R2, R3, R6 = 0x14000, 0x20000, 0x28000, 0x3f000
PPV = 64                        # struct pages per vmemmap page (4096 / 64)
CP2M = 512                      # pfns of a 2 MiB compound page
R0_CP = (0x18000 - 0x14000) // CP2M                  # 32
R2_CP = (0x28000 - 0x20000) // CP2M                  # 64, one whole section
R3_CP = (0x30000 - 0x28000 - (2 + 512 + 510)) // CP2M  # 62 after the altmap
VP_PER_CP = CP2M // PPV         # 8 vmemmap pages per 2 MiB compound page
# range #2: vp1..vp7 of every compound page map the section's frame (the
# first compound page's vp1 allocates it, so its sharing is unchanged) and
# all of them are write-protected
R2_MOVED = (R2_CP - 1) * (VP_PER_CP - 1)              # 441
R2_READ_ONLY = R2_CP * (VP_PER_CP - 1)                # 448
# (the snapshot's role "shared" is a struct page whose frame an earlier
# vmemmap page of its own compound page maps: sharing across compound pages
# shows in vmemmap_frame, not in the role, so the roles do not change)
# The port makes compound_info_has_mask() true kernel-wide: the one 2 MiB THP
# the guest's HMM workload migrates into device-private memory
# (scripts/prove/guest/init: mmc.hmm default 0:4:1, one huge page to device 0)
# has its 511 tails in the mask form too.
THP_TAILS = 511
# the 1 GiB page of the port (head 0x40000): every vmemmap page but the head's
R6_READ_ONLY = (0x40000 // PPV) - 1                   # 4095


def claims_of(name):
    return os.path.join(TOP, "patches", "7.2", name + ".claims")


def diff_json(a, b, *opts, env=None, n=3):
    r = cli_diff(a, b, "-q", "-n", str(n), "-f", "json", "--max-groups", "100000", *opts, env=env)
    try:
        return r.returncode, json.loads(r.stdout), r.stderr.decode()
    except ValueError:
        return r.returncode, None, r.stdout.decode()[:2000] + r.stderr.decode()


def text(a, b, *opts):
    r = subprocess.run([CLI, "diff", "-q", "-n", "3"] + list(opts) + [a, b],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return r.stdout.decode(errors="replace")


def by_start(js):
    return {r["start_pfn"]: (i, r) for i, r in enumerate(js["ranges"])}


def claim(js, name):
    for c in js["claims"]["claims"]:
        if c["name"] == name:
            return c
    return {}


def claim_in(js, name, start, key):
    """What claim name covered in the range starting at start: pages or vframes."""
    i = by_start(js)[start][0]
    for x in claim(js, name).get("by_range", []):
        if x["range"] == i:
            return x[key]
    return 0


def other_ranges_identical(js, touched):
    return all(r["verdict"] == "identical" for s, (i, r) in by_start(js).items() if s not in touched)


def check_port(a, port):
    rc, js, err = diff_json(a, port, "--strict", "--claims", claims_of("section-vmemmap"))
    if js is None:
        tap(False, "[proof] port against 7.2-base with its claims", err)
        return
    diag = lambda: text(a, port, "--claims", claims_of("section-vmemmap"))  # noqa: E731
    r = by_start(js)
    thp = [s for s, (i, x) in r.items() if x["type"] == "private" and x["verdict"] == "as claimed"]
    tap(rc == 0 and js["verdict"] == "as claimed" and js["claims"]["unseen"] == [] and
        js["pages_differing"] == 0 and other_ranges_identical(js, (R0, R2, R3, R6) + tuple(thp)) and
        all(r[s][1]["verdict"] == "as claimed" for s in (R0, R2, R3, R6)) and len(thp) == 1 and
        r[thp[0]][1]["claimed"] == THP_TAILS and claim_in(js, "thp-tail-mask", thp[0], "pages") == THP_TAILS,
        "[proof] port against 7.2-base-b1 with section-vmemmap.claims, --strict: as claimed, exit 0; "
        "ranges #0, #2, #3, #6 as claimed, one device-private range with the HMM workload's THP "
        "(%d tails, mask form), every other range identical" % THP_TAILS, diag())
    tap(r[R0][1]["claimed"] == R0_CP * 511 and claim_in(js, "tail-mask", R0, "pages") == R0_CP * 511 and
        r[R0][1]["vframes_claimed"] == 0,
        "[proof] range #0 (early section, boot memmap): every tail's compound_info in the mask form, "
        "%d pages (32 x 511), its vmemmap unchanged" % (R0_CP * 511), diag())
    tap(r[R3][1]["claimed"] == R3_CP * 511 and claim_in(js, "tail-mask", R3, "pages") == R3_CP * 511 and
        r[R3][1]["vframes_claimed"] == 0,
        "[proof] range #3 (map=dev, altmap): every tail in the mask form, %d pages (62 x 511), "
        "its vmemmap unchanged (the patch header's corrected item)" % (R3_CP * 511), diag())
    tap(r[R2][1]["claimed"] == R2_CP * 511 and claim_in(js, "tail-mask", R2, "pages") == R2_CP * 511 and
        claim_in(js, "section-shared-frame", R2, "vframes") == R2_MOVED and
        claim_in(js, "shared-frame-read-only", R2, "vframes") == R2_READ_ONLY and
        r[R2][1]["vframes_claimed"] == R2_READ_ONLY and r[R2][1]["vframes_differing"] == 0,
        "[proof] range #2 (one section, 64 compound pages): %d tails in the mask form, "
        "%d vmemmap pages map the section's frame read-only (together), %d read-only"
        % (R2_CP * 511, R2_MOVED, R2_READ_ONLY), diag())
    c = {x["name"]: x for x in js["claims"]["claims"]}
    tap(c.get("natural-align", {}).get("ranges") == 1 and r[R6][1]["claimed"] == 266240,
        "[guard] range #6 (1 GiB, FINDINGS 4's start): all 266240 pages claimed, natural-align in "
        "that range only (per claim: %s)" % ", ".join("%s %d pages %d vmemmap" % (n, x["pages"], x["vframes"])
                                                    for n, x in c.items()), diag())
    rc2, js2, _ = diff_json(a, port, "--strict", "--claims", claims_of("section-vmemmap"),
                            env={"MEMMAPCHECK_PER_PAGE": "1"})
    same = js2 is not None and js2["verdict"] == js["verdict"] and \
        [(x["name"], x["pages"], x["vframes"], x["fields"], x["by_range"]) for x in js["claims"]["claims"]] == \
        [(x["name"], x["pages"], x["vframes"], x["fields"], x["by_range"]) for x in js2["claims"]["claims"]]
    tap(rc2 == rc and same, "[guard] the same claims answer page by page (MEMMAPCHECK_PER_PAGE=1)")


def check_writable(a, port, w):
    rc, js, err = diff_json(a, w, "--claims", claims_of("section-vmemmap"))
    if js is None:
        tap(False, "[proof] mut-section-writable against 7.2-base with the port's claims", err)
        return
    r = by_start(js)
    sh = claim(js, "section-shared-frame")
    unmet = sh.get("unmet", [])
    beyond = [s for s, (i, x) in r.items() if x["verdict"] == "beyond the claims"]
    tap(rc == 1 and js["verdict"] == "beyond the claims" and beyond == [R2] and
        js["pages_differing"] == 0 and r[R2][1]["vframes_differing"] == R2_MOVED and
        js["fields"] == {"vmemmap_frame": R2_MOVED},
        "[proof] mut-section-writable against 7.2-base-b1 with the PORT's claims: beyond the claims, "
        "exit 1 (no --strict): range #2's %d vmemmap pages map the shared frame but stay writable" % R2_MOVED,
        text(a, w, "--claims", claims_of("section-vmemmap")))
    tap(unmet == [{"field": "vmemmap_writable", "claimed": "1 -> 0", "unchanged": True, "pages": 0,
                   "vframes": R2_MOVED}] and
        sorted(js["claims"]["unseen"]) == ["section-shared-frame", "shared-frame-read-only"],
        "[proof] ... reported as what the together claim missed: vmemmap_writable unchanged, claimed "
        "1 -> 0, on %d vmemmap pages; the two read-only claims not seen" % R2_MOVED, json.dumps(sh))
    rc, js, err = diff_json(a, w, "--strict", "--claims", claims_of("mut-section-writable"))
    tap(rc == 0 and js and js["verdict"] == "as claimed" and js["claims"]["unseen"] == [],
        "[proof] mut-section-writable with its own claims (the port's without the read-only change): "
        "as claimed, --strict", err if js is None else text(a, w, "--claims", claims_of("mut-section-writable")))
    rc, js, err = diff_json(port, w)
    ok = js is not None and rc == 1 and js["fields"] == {"vmemmap_writable": R2_READ_ONLY + R6_READ_ONLY}
    if ok:
        r = by_start(js)
        ok = r[R2][1]["vframes_differing"] == R2_READ_ONLY and r[R6][1]["vframes_differing"] == R6_READ_ONLY \
            and js["pages_differing"] == 0 and other_ranges_identical(js, (R2, R6))
    tap(ok, "[proof] mut-section-writable against the port: only vmemmap_writable differs, on the "
        "port's read-only tail vmemmap pages (range #2: %d, the 1 GiB page: %d)" % (R2_READ_ONLY, R6_READ_ONLY),
        text(port, w))


def check_uninit(a, port, u):
    rc, js, err = diff_json(a, u, "--claims", claims_of("section-vmemmap"), n=R2_CP + 1)
    if js is None:
        tap(False, "[proof] mut-section-tail-uninit against 7.2-base with the port's claims", err)
        return
    r = by_start(js)
    beyond = [s for s, (i, x) in r.items() if x["verdict"] == "beyond the claims"]
    pfns = [p["pfn"] for p in js.get("pages", [])]
    page63 = set(R2 + k * CP2M + 63 for k in range(R2_CP))
    # page[63] keeps its frame's stale bytes: those of an earlier struct page
    # there may differ from the base in compound_info alone, which tail-mask
    # claims; every other page[63] is beyond, and nothing else is
    rc2, jp, _ = diff_json(port, u)
    ci_only = [g for g in (jp or {}).get("groups", []) if g.get("fields") == "compound_info" and
               g["first_pfn"] in page63 and g["pages"] == 1]
    tap(rc == 1 and js["verdict"] == "beyond the claims" and beyond == [R2] and
        0 < js["pages_differing"] <= R2_CP and len(pfns) == js["pages_differing"] and
        set(pfns) <= page63 and js["pages_differing"] + len(ci_only) == R2_CP and
        js["claims"]["unseen"] == [],
        "[proof] mut-section-tail-uninit against 7.2-base-b1 with the PORT's claims: beyond the claims, "
        "exit 1: page[63] of range #2's compound pages (0x%x, 0x%x, ...) and nothing else, %d of %d (the "
        "other %d hold stale struct pages that differ in compound_info alone, as tail-mask claims); the "
        "1 GiB page's 0x4003f is natural-align's" % (R2 + 63, R2 + CP2M + 63, js["pages_differing"], R2_CP,
                                                      len(ci_only)),
        text(a, u, "--claims", claims_of("section-vmemmap")))
    rc, js, err = diff_json(a, u, "--strict", "--claims", claims_of("mut-section-tail-uninit"))
    tap(rc == 0 and js and js["verdict"] == "as claimed" and js["claims"]["unseen"] == [],
        "[proof] mut-section-tail-uninit with its own claims (the port's + tail63-uninit): as claimed, --strict",
        err if js is None else text(a, u, "--claims", claims_of("mut-section-tail-uninit")))
    rc, js, err = diff_json(port, u)
    ok = js is not None and rc == 1
    if ok:
        r = by_start(js)
        ok = r[R2][1]["differing"] == R2_CP and r[R6][1]["differing"] == 1 and \
            other_ranges_identical(js, (R2, R6)) and \
            all(x["vframes_differing"] == 0 for i, x in r.values())
    tap(ok, "[proof] mut-section-tail-uninit against the port: page[63] of each optimized compound page "
        "only (range #2: %d, the 1 GiB page: 0x4003f), the vmemmap as the port's" % R2_CP, text(port, u))


def lint(s):
    r = subprocess.run([CLI, "lint", "-q", "-f", "json", "--max-groups", "100000", s],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def check_lint(port, w):
    lp, lw = lint(port), lint(w)
    if lp is None or lw is None:
        tap(False, "[proof] lint of the port and of mut-section-writable gives JSON")
        return

    def share_in(js, start):
        return [g for g in js.get("groups", []) if g.get("rule") == "vmemmap-share" and
                start <= g.get("first_pfn", -1) < start + 0x8000]
    now = "lint now: port %s %s; mut-section-writable %s %s" % (
        lp["verdict"], json.dumps(lp["rules"]), lw["verdict"], json.dumps(lw["rules"]))
    # the kernel's rule: the port's read-only frames shared across compound
    # pages, holding tails only, are correct; the mutant's writable ones are not
    tap("vmemmap-share" not in lp["rules"] and len(share_in(lw, R2)) > 0,
        "[proof] lint: the port's read-only shared tail frames are no vmemmap-share violation; "
        "mut-section-writable's writable ones in range #2 are (%s)" % now, now)


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built (set MMC_BUILD)" % CLI)
    work = snap.work = tempfile.mkdtemp(prefix="section.")
    try:
        a, port, w, u = (snap(i) for i in (BASE, PORT, WRITABLE, UNINIT))
        if not (a and port):
            tap.skip("7.2-base-b1 or 7.2-section-vmemmap-b1 not committed (dumps/, test-vectors/layouts/)")
        else:
            check_port(a, port)
            if w:
                check_writable(a, port, w)
            else:
                tap.skip("7.2-mut-section-writable-b1 not committed")
            if u:
                check_uninit(a, port, u)
            else:
                tap.skip("7.2-mut-section-tail-uninit-b1 not committed")
            if w:
                check_lint(port, w)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(tap.plan())


if __name__ == "__main__":
    main()
