#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Claims files on the committed real images (dumps/, test-vectors/layouts/):
memmapcheck diff --claims, through the CLI (and crash's diff -c).  TAP.

Every check says what its expectation rests on:
  [proof]  the patch's own semantics: patches/<kver>/<name>.claims was
           derived from the patch, its header, patches/README.md,
           series.tsv and the kernel source, never from memmapcheck's
           output; series.tsv's verdict column; the grammar (doc/CLAIMS.md).
  [guard]  the same answer two ways (chunk by chunk and
           MEMMAPCHECK_PER_PAGE=1's page by page), or a count the tool gave.

Checks:
  - every patch of patches/<kver>/series.tsv has its claims file; the
    template port and mut-section-before-copy claim nothing;
  - each patch is "as claimed", with --strict (no claim unseen), against
    <kver>-base-b1 with its own claims; the same page by page;
  - each patch series.tsv calls different is "beyond the claims" with the
    template's (empty) claims, exit 1;
  - two mutants' claims swapped: beyond the claims and claimed but not seen;
  - the FINDINGS 4 fix is as claimed with a file that allows changes only
    in 1 GiB device-dax ranges (standard and dax1g-section geometry), and
    beyond one that allows 2 MiB ranges only;
  - a 6.12-named claims file on a 7.2 pair: the rename said once, as claimed;
  - parser and binding errors through the CLI name the file and line (exit 2);
  - --strict, exit codes (0, 1, 2, 4), JSON, KTAP, JUnit, the map;
  - crash's memmapcheck diff -c/-s (crash 8.0.2 on 6.1, when available).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import BUILD, CACHE, CLI, TOP, Snapshots, Tap, cli_diff, dump_path, layout_of, skip_all  # noqa: E402

tap = Tap(diag_lines=40)
work = None
# a snapshot of a committed image (made once), or None
snap = Snapshots(tap, "[guard] snapshot of %s", ok_rcs=(0, 4))


def series(kver):
    """(name, kind, verdict) of patches/<kver>/series.tsv."""
    out = []
    with open(os.path.join(TOP, "patches", kver, "series.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            out.append((c[0], c[1], c[2]))
    return out


def claims_of(kver, name):
    return os.path.join(TOP, "patches", kver, name + ".claims")


def diff(a, b, *opts, env=None):
    """memmapcheck diff OPTS a b: (exit code, stdout, stderr)."""
    r = cli_diff(a, b, "-q", "-n", "0", *opts, env=env)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def claims_summary(js):
    """What a JSON report says of the claims, for comparing two runs."""
    c = js["claims"]
    return (js["verdict"], js["pages_differing"], c["pages_claimed"], tuple(c["unseen"]),
            tuple((x["name"], x["pages"], x["vframes"], x["range_pages"], x["pgmap_diffs"],
                   tuple(sorted(x["fields"].items()))) for x in c["claims"]),
            tuple((r["claimed"], r["differing"], r["verdict"]) for r in js["ranges"]))


def check_patches(kver):
    base = snap(kver + "-base-b1")
    if not base:
        tap.skip("no committed %s-base-b1 (dumps/%s.tar.xz) or its layout" % (kver, kver))
        return
    empty = claims_of(kver, "template")
    for name, kind, verdict in series(kver):
        path = claims_of(kver, name)
        if not os.path.exists(path):
            tap(False, "[proof] %s/%s.claims exists" % (kver, name))
            continue
        with open(path) as f:
            body = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
        if name in ("template", "mut-section-before-copy"):
            tap(body == ["memmapcheck-claims 1\n"],
                "[proof] %s/%s.claims claims nothing (the header line only)" % (kver, name),
                "".join(body))
        other = snap("%s-%s-b1" % (kver, name))
        if not other:
            tap.skip("no committed %s-%s-b1" % (kver, name))
            continue
        rc, out, err = diff(base, other, "--strict", "--claims", path)
        tap(rc == 0 and out.startswith("as claimed: ") and "claimed but not seen" not in out,
            "[proof] %s %s (%s): as claimed with its own claims, --strict, exit 0 (%s)"
            % (kver, name, kind, out.split("\n", 1)[0][:110]), out + err)
        rc1, j1, _ = diff(base, other, "-f", "json", "--claims", path)
        rc2, j2, _ = diff(base, other, "-f", "json", "--claims", path,
                          env={"MEMMAPCHECK_PER_PAGE": "1"})
        try:
            same = claims_summary(json.loads(j1)) == claims_summary(json.loads(j2))
        except (ValueError, KeyError) as e:
            same = False
            j1 += "\n" + str(e)
        tap(rc1 == rc2 == 0 and same,
            "[guard] %s %s: the same claims answer page by page (MEMMAPCHECK_PER_PAGE=1)"
            % (kver, name), j1[:2000])
        rc, out, err = diff(base, other, "--claims", empty)
        if verdict == "different":
            tap(rc == 1 and out.startswith("beyond the claims: "),
                "[proof] %s %s: beyond the claims with the template's empty claims, exit 1"
                % (kver, name), out[:3000] + err)
        else:
            tap(rc == 0 and out.startswith("as claimed: no difference"),
                "[proof] %s %s (series.tsv: %s): as claimed with the empty claims too"
                % (kver, name, verdict), out[:3000] + err)


def check_swap(kver):
    base, tr, zn = (snap("%s-%s-b1" % (kver, n))
                    for n in ("base", "mut-tail-refcount", "mut-zone-nid-swap"))
    if not (base and tr and zn):
        tap.skip("%s: base, mut-tail-refcount or mut-zone-nid-swap not committed" % kver)
        return
    # tail refcount and the zone field are disjoint changes by the two
    # patches' semantics: each one's claims cover none of the other's
    for img, name, other in ((tr, "mut-tail-refcount", "mut-zone-nid-swap"),
                             (zn, "mut-zone-nid-swap", "mut-tail-refcount")):
        rc, out, err = diff(base, img, "-f", "json", "--claims", claims_of(kver, other))
        try:
            js = json.loads(out)
            unseen = js["claims"]["unseen"]
            ok = rc == 1 and js["verdict"] == "beyond the claims" and \
                js["pages_differing"] > 0 and len(unseen) >= 1
        except (ValueError, KeyError):
            ok, unseen = False, []
        tap(ok, "[proof] %s %s with %s's claims: beyond the claims, claimed but not seen: %s"
            % (kver, name, other, ",".join(unseen)), out[:2000] + err)


def check_findings4():
    only_1g = write("only-1g.claims", "memmapcheck-claims 1\n"
                    "claim natural-align\n"
                    "    reason compound pages start at pfns aligned to their order (FINDINGS 4 fix)\n"
                    "    where type=devdax shift=18\n"
                    "    field any\n")
    only_2m = write("only-2m.claims", "memmapcheck-claims 1\n"
                    "claim wrong-range\n"
                    "    reason a fix that would only change 2 MiB device-dax ranges\n"
                    "    where type=devdax shift=9\n"
                    "    field any\n")
    for kver in ("6.12", "7.2"):
        for geo in ("", "-dax1g-section"):
            a = snap("%s-base%s-b1" % (kver, geo))
            b = snap("%s-fix-compound-natural-align%s-b1" % (kver, geo))
            if not (a and b):
                tap.skip("%s FINDINGS 4 pair%s not committed" % (kver, geo))
                continue
            rc, out, err = diff(a, b, "--strict", "--claims", only_1g)
            tap(rc == 0 and out.startswith("as claimed: "),
                "[proof] %s FINDINGS 4 fix%s: as claimed with changes allowed only in 1 GiB device-dax ranges"
                % (kver, geo or " (standard layout)"), out[:3000] + err)
            rc, out, err = diff(a, b, "--claims", only_2m)
            tap(rc == 1 and out.startswith("beyond the claims: ") and "claimed but not seen: wrong-range" in out,
                "[proof] %s FINDINGS 4 fix%s: beyond a file allowing 2 MiB ranges only"
                % (kver, geo), out[:3000] + err)


def check_alias():
    a, b = snap("7.2-base-b1"), snap("7.2-mut-stale-compound-head-b1")
    if not (a and b):
        tap.skip("7.2 base or mut-stale-compound-head not committed")
        return
    # 7.2's own claims spelled with 6.12's member names
    with open(claims_of("7.2", "mut-stale-compound-head")) as f:
        text = f.read()
    text = re.sub(r"\bcompound_info\b", "compound_head", text)
    path = write("stale-612-names.claims", text)
    rc, out, err = diff(a, b, "--strict", "--claims", path)
    notes = re.findall(r"compound_head is compound_info in 7\.2\.\d+ \(a kernel rename\)", out)
    tap(rc == 0 and out.startswith("as claimed: ") and len(notes) == 1 and
        "claimed as compound_info" in out,
        "[proof] 6.12 names (compound_head) on a 7.2 pair: taken as compound_info, said once, as claimed",
        out[:3000] + err)
    rc, out, err = diff(a, b, "-f", "json", "--claims", path)
    try:
        n = len(json.loads(out)["claims"]["notes"])
    except (ValueError, KeyError):
        n = -1
    tap(rc == 0 and n == 1, "[proof] ... and the JSON carries the one note (%d)" % n, out[:1000])


def check_errors_and_exits():
    a, b = snap("7.2-base-b1"), snap("7.2-template-b1")
    tr = snap("7.2-mut-tail-refcount-b1")
    if not (a and b and tr):
        tap.skip("7.2 base, template or mut-tail-refcount not committed")
        return
    bad = write("bad.claims", "memmapcheck-claims 1\n\nclaim x\n    reason r\n    pages tail,neck\n"
                "    field _refcount\n")
    rc, out, err = diff(a, b, "--claims", bad)
    tap(rc == 2 and re.search(r"bad\.claims: line 5: unknown role 'neck'", err) and not out,
        "[proof] a bad role: exit 2, the error names the file and line 5", err)
    neither = write("neither.claims", "memmapcheck-claims 1\nclaim x\n    reason r\n"
                    "    field _folio_nr_pages\n")
    rc, out, err = diff(a, b, "--claims", neither)
    tap(rc == 2 and re.search(r"neither\.claims: line 4: field _folio_nr_pages exists in neither image "
                              r"\(7\.2\.\d+ and 7\.2\.\d+\)", err),
        "[proof] _folio_nr_pages (gone in 7.x) on a 7.2 pair: exit 2 naming line 4 and both releases", err)
    rc, out, err = diff(a, b, "--strict")
    tap(rc == 2 and "--strict needs --claims FILE" in err, "[proof] --strict without --claims: usage error", err)
    rc, out, err = diff(a, b, "--claims", "/nonexistent.claims")
    tap(rc == 2 and "/nonexistent.claims: no such file" in err, "[proof] a missing claims file: exit 2", err)
    # a claim the template port does not make: not seen; --strict fails it
    claims = claims_of("7.2", "mut-tail-refcount")
    rc, out, err = diff(a, b, "--claims", claims)
    tap(rc == 0 and out.startswith("as claimed: no difference") and
        "claimed but not seen: tail-refcount" in out.split("\n", 1)[0],
        "[proof] template vs mut-tail-refcount's claims: as claimed, the claim not seen, exit 0", out[:2000])
    rc, out, err = diff(a, b, "--strict", "--claims", claims)
    tap(rc == 1 and "(--strict: fails)" in out.split("\n", 1)[0],
        "[proof] ... with --strict: exit 1", out[:2000])
    # incomplete stays 4: a real kdump lacks the map=dev struct pages
    kd, base = snap("6.12-base-kdump"), snap("6.12-base-b1")
    if kd and base:
        rc, out, err = diff(base, kd, "--claims", claims_of("6.12", "template"))
        tap(rc == 4 and out.startswith("incomplete"),
            "[proof] 6.12-base-b1 vs its in-guest kdump (verdicts.tsv: incomplete), empty claims: exit 4",
            out[:2000])
        rc, out, err = diff(base, kd, "--strict", "--claims", claims_of("6.12", "mut-tail-refcount"))
        tap(rc == 4 and "claimed but not seen: tail-refcount" in out,
            "[proof] ... with an unseen claim and --strict: still 4", out[:2000])
    else:
        tap.skip("6.12-base-kdump not committed")
    # the formats
    rc, out, err = diff(a, tr, "-f", "ktap", "--claims", claims_of("7.2", "mut-tail-refcount"))
    lines = out.splitlines()
    tap(rc == 0 and "1..16" in lines and "ok 16 claim tail-refcount" in lines and
        any(l.startswith("# claim tail-refcount: ") and "set_page_count" in l for l in lines),
        "[proof] KTAP: 15 ranges + 1 claim, the claim's reason beside its pages", out[:3000])
    rc, out, err = diff(a, tr, "-f", "junit", "--claims", claims_of("7.2", "mut-tail-refcount"))
    tap(rc == 0 and 'tests="16" failures="0"' in out and
        '<testcase classname="memmapcheck.claims" name="claim tail-refcount">' in out,
        "[proof] JUnit: a testcase per claim", out[:3000])
    rc, out, err = diff(a, tr, "-f", "json", "--claims", claims_of("7.2", "template"))
    try:
        js = json.loads(out)
        ok = rc == 1 and js["verdict"] == "beyond the claims" and js["fields"] == {"_refcount": 346977} \
            and js["claims"]["claims"] == []
    except (ValueError, KeyError):
        ok = False
    tap(ok, "[proof] JSON, mut-tail-refcount beyond the empty claims: only _refcount beyond (346977 pages, "
        "verdicts.tsv's count)", out[:2000])
    # the map: claimed differences green, none red
    mapdir = os.path.join(work, "map")
    rc, out, err = diff(a, tr, "--map", mapdir, "--claims", claims_of("7.2", "mut-tail-refcount"))
    svgs = {}
    for n in sorted(os.listdir(mapdir)) if os.path.isdir(mapdir) else []:
        if n.endswith(".svg"):
            with open(os.path.join(mapdir, n)) as f:
                svgs[n] = f.read()
    green = sum(s.count('fill="#2ca02c" data-claim="tail-refcount"') for s in svgs.values())
    red = sum(s.count('fill="#d62728">') for s in svgs.values())
    tap(rc == 0 and len(svgs) == 15 and green > 0 and red == 0,
        "[proof] --map, as claimed: claimed differences drawn green (%d rects), nothing red" % green, err)


def check_compare():
    names = ("7.2-base-b1", "7.2-mut-fsdax-refcount-b1")
    dumps = [dump_path(n) for n in names]
    if not all(dumps):
        tap.skip("7.2 base or mut-fsdax-refcount dump not committed")
        return
    r = subprocess.run([CLI, "compare", "-q", "-n", "0", "--strict", "--claims",
                        claims_of("7.2", "mut-fsdax-refcount"),
                        layout_of(names[0]), dumps[0], layout_of(names[1]), dumps[1]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = r.stdout.decode()
    tap(r.returncode == 0 and out.startswith("as claimed: 93181 of "),
        "[proof] compare --claims on the kernel+dump pairs: as claimed, exit 0", out[:2000])


def check_crash():
    crash = "/usr/bin/crash"
    so = os.path.join(os.environ.get("MMC_CRASH_EXT", os.path.join(BUILD, "crash-ext")),
                      "8.0.2", "memmapcheck.so")
    vmlinux = os.path.join(CACHE, "kernels", "6.1-stock", "vmlinux")
    b1, b2 = dump_path("6.1-stock-b1"), snap("6.1-stock-b2")
    if not (os.access(crash, os.X_OK) and os.path.exists(so) and os.path.exists(vmlinux) and b1 and b2):
        tap.skip("crash 8.0.2, its memmapcheck.so, the 6.1 vmlinux or the 6.1 dumps missing")
        return
    unseen = write("crash.claims", "memmapcheck-claims 1\nclaim tails\n    reason a claim two boots do not make\n"
                   "    field _refcount\n")
    bad = write("crash-bad.claims", "memmapcheck-claims 1\nclaim tails\n    field _refcount\n")
    cmds = write("crash.cmds", "extend %s\nmemmapcheck diff -c %s %s\nmemmapcheck diff --claims %s -s %s\n"
                 "memmapcheck diff -c %s %s\nmemmapcheck diff -s %s\nmemmapcheck lint --threads 2\n"
                 % (so, unseen, b2, unseen, b2, bad, b2, b2))
    r = subprocess.run([crash, "-s", vmlinux, b1, "-i", cmds], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    out = r.stdout.decode(errors="replace")
    tap(out.count("as claimed: no difference, 507904 pages in 9 ranges") == 2 and
        "claimed but not seen: tails" in out,
        "[proof] crash diff -c: two boots of 6.1 as claimed, the claim not seen", out[-3000:])
    tap("--strict: 1 claim not seen: the check fails" in out,
        "[proof] crash diff --claims ... -s: the unseen claim fails", out[-3000:])
    tap(re.search(r"crash-bad\.claims: line 2: claim tails has no reason line", out) is not None,
        "[proof] crash diff -c with a bad file: the error names its line, the session goes on", out[-3000:])
    tap("-s/--strict needs -c/--claims FILE" in out, "[proof] crash diff -s alone: refused", out[-3000:])
    tap("lint: --threads: is one of the CLI's long options; inside crash this subcommand takes -j -f -v" in out,
        "[proof] crash lint --threads (a CLI option only): refused, naming what lint takes", out[-3000:])


def check_prove():
    prove = os.path.join(TOP, "scripts", "prove", "memmapcheck-prove")
    r = subprocess.run([prove, "--strict", "/tmp", "x.patch"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tap(r.returncode == 2 and b"--strict needs --claims FILE" in r.stderr,
        "[proof] memmapcheck-prove --strict without --claims: exit 2", r.stderr.decode())
    r = subprocess.run([prove, "--claims", "/nonexistent.claims", "/tmp", "x.patch"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tap(r.returncode == 2 and b"/nonexistent.claims: no such claims file" in r.stderr,
        "[proof] memmapcheck-prove --claims of a missing file: exit 2", r.stderr.decode())
    # --help: the comment block at the top of the script, not the script
    r = subprocess.run([prove, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = r.stdout.decode()
    tap(r.returncode == 0 and out.startswith("memmapcheck-prove: ") and "--claims FILE" in out and
        "--strict" in out and "doc/PROVE.md has examples." in out and "set -E" not in out and
        "ORIG_ARGS" not in out and len(out.splitlines()) < 50,
        "[proof] memmapcheck-prove --help: its usage (with --claims, --strict), exit 0, not the script (%d lines)"
        % len(out.splitlines()), out[-1500:] + r.stderr.decode())
    # end to end, when the prove cache has the 7.2 tree's kernels (built by
    # an earlier memmapcheck-prove run): --claims reaches every diff
    tree = os.path.join(CACHE, "src", "linux-7.2")
    out_dir = os.path.join(work, "prove-report")
    claims = claims_of("7.2", "mut-tail-refcount")
    if not os.path.isdir(tree):
        tap.skip("memmapcheck-prove --claims end to end: no 7.2 tree in %s" % tree)
        return
    # no kernel of any earlier run: skip before prove waits for the tree's
    # lock (a build of the shared tree holds it for an hour)
    pk = os.path.join(CACHE, "prove", "kernels")
    if not (os.path.isdir(pk) and os.listdir(pk)):
        tap.skip("memmapcheck-prove --claims end to end: %s holds no kernel "
                 "(a memmapcheck-prove run on %s builds them)" % (pk, tree))
        return
    r = subprocess.run([prove, "--no-build", "-q", "-o", out_dir, "--claims", claims, "--strict",
                        tree, os.path.join(TOP, "patches", "7.2", "template.patch")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
    err = r.stderr.decode()
    if r.returncode == 2 and "not built yet" in err:
        tap.skip("memmapcheck-prove --claims end to end: the prove cache has no 7.2 kernels "
                 "(a memmapcheck-prove run on %s builds them)" % tree)
        return
    try:
        with open(os.path.join(out_dir, "claims")) as f:
            kept = f.read()
        with open(os.path.join(out_dir, "report.json")) as f:
            js = json.load(f)
        with open(claims) as f:
            same = f.read() == kept
    except (OSError, ValueError):
        js, same = {}, False
    # the template claims nothing mut-tail-refcount claims: not seen,
    # and --strict fails it (exit 1), in the text and the JSON alike
    tap(r.returncode == 1 and same and "(--strict: fails)" in r.stdout.decode() and
        js.get("claims", {}).get("unseen") == ["tail-refcount"],
        "[proof] memmapcheck-prove --claims --strict on template.patch with mut-tail-refcount's claims: "
        "the claim not seen, exit 1, the file kept in the report", r.stdout.decode() + err[-2000:])


def main():
    global work
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built (set MMC_BUILD)" % CLI)
    work = snap.work = tempfile.mkdtemp(prefix="claims.")
    try:
        for kver in ("6.12", "7.2"):
            check_patches(kver)
            check_swap(kver)
        check_findings4()
        check_alias()
        check_errors_and_exits()
        check_compare()
        check_crash()
        check_prove()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(tap.plan())


if __name__ == "__main__":
    main()
