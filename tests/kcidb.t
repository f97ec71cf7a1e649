#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memmapcheck diff -f kcidb`: KCIDB JSON of real comparisons, validated
against kcidb-io's own schema (test-vectors/kcidb/SOURCE: v5.3) with Debian's
python3-jsonschema, and checked against verdicts that come from outside the
tool:

  [oracle] 6.12 base vs the template port: identical (test-vectors/verdicts.tsv,
           the port's claim) -> root PASS, every range PASS
  [oracle] 6.12 base vs mut-tail-refcount: different in exactly the fields the
           mutant changes (verdicts.tsv: _refcount) -> root FAIL
  [proof]  a dump cut in half (pages past the cut are not in the file) -> SKIP
           with the reason, never PASS
  [proof]  the schema bites: the same document with a path KCIDB forbids fails
  [guard]  the range nodes carry the counts `diff --json` gives; identity files
           reach the checkouts and builds; a bad identity file is exit 2

The schema file is not committed (test-vectors/kcidb/README.md): without it
the schema checks skip loudly; the others still run.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CACHE, CLI, TOP, Tap, dump_path, layout_of, skip_all  # noqa: E402

BASE, TEMPLATE, MUTANT = "6.12-base-b1", "6.12-template-b1", "6.12-mut-tail-refcount-b1"
tap = Tap(diag_lines=40)


def source():
    with open(os.path.join(TOP, "test-vectors", "kcidb", "SOURCE")) as f:
        return dict(l.rstrip("\n").split("\t", 1) for l in f if l.strip() and not l.startswith("#"))


def schema_validator(src):
    """(validator, None) or (None, why not)."""
    try:
        import jsonschema
    except ImportError:
        return None, "python3-jsonschema not installed (apt-get install python3-jsonschema)"
    path = os.environ.get("MMC_KCIDB_SCHEMA") or os.path.join(CACHE, "kcidb", src["file"])
    if not os.path.isfile(path):
        return None, "no KCIDB schema at %s (test-vectors/kcidb/README.md says how to make it)" % path
    with open(path, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != src["sha256"]:
        return None, "%s is not the schema of test-vectors/kcidb/SOURCE (sha256 differs)" % path
    schema = json.loads(raw)
    schema.setdefault("$schema", "http://json-schema.org/draft-07/schema#")
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()), None


def verdict_row(base, other):
    with open(os.path.join(TOP, "test-vectors", "verdicts.tsv")) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) >= 5 and c[0] == "diff" and c[1] == base and c[2] == other:
                return {"verdict": c[3], "fields": set() if c[4] == "-" else set(c[4].split(","))}
    return None


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([CLI] + args, capture_output=True, text=True, env=e)


def kcidb(a, b, env=None):
    r = run(["diff", "-q", "-f", "kcidb", a, b], env)
    try:
        return r.returncode, json.loads(r.stdout), r.stderr
    except ValueError as e:
        return r.returncode, None, "%s\n%s\n%s" % (e, r.stdout[:2000], r.stderr)


def schema_check(validator, why, doc, what):
    if validator is None:
        tap.skip(why, what)
        return
    errs = [e for e in validator.iter_errors(doc)]
    tap(not errs, what, "\n".join("%s: %s" % ("/".join(map(str, e.path)), e.message) for e in errs[:10]))


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("no memmapcheck CLI at %s (make)" % CLI, stderr=True)
    dumps = {i: dump_path(i) for i in (BASE, TEMPLATE, MUTANT)}
    if not all(dumps.values()):
        skip_all("committed 6.12 dumps not available (%s)" % dumps, stderr=True)
    src = source()
    validator, why = schema_validator(src)
    with tempfile.TemporaryDirectory(prefix="kcidb.") as tmp:
        snaps = {}
        for img, d in dumps.items():
            snaps[img] = os.path.join(tmp, img + ".snap")
            r = run(["snapshot", "-q", "-o", snaps[img], layout_of(img), d])
            if r.returncode != 0:
                skip_all("snapshot of %s failed: %s" % (img, r.stderr.strip()), stderr=True)
        checks(tmp, snaps, dumps, validator, why, src)
    return tap.plan()


def checks(tmp, snaps, dumps, validator, why, src):
    # ---- identical
    exp = verdict_row(BASE, TEMPLATE)
    rc, doc, err = kcidb(snaps[BASE], snaps[TEMPLATE])
    tap(doc is not None and rc == 0, "[oracle] base vs template: exit 0 and JSON", err)
    if doc is None:
        return
    schema_check(validator, why, doc, "[proof] base vs template: valid KCIDB v%s" % src["version"])
    tap(doc["version"] == {"major": 5, "minor": 3}, "[guard] version 5.3 declared", doc["version"])
    root = [t for t in doc["tests"] if t["path"] == "memmapcheck"]
    ranges = [t for t in doc["tests"] if t["path"].startswith("memmapcheck.range_")]
    tap(exp and exp["verdict"] == "identical" and len(root) == 1 and root[0]["status"] == "PASS",
        "[oracle] base vs template: root PASS (verdicts.tsv: %s)" % (exp and exp["verdict"]), root)
    tap(ranges and all(t["status"] == "PASS" for t in ranges),
        "[oracle] base vs template: all %d range nodes PASS" % len(ranges),
        [(t["path"], t["status"]) for t in ranges])
    rel = {b["misc"]["kernel_release"] for b in doc["builds"]}
    tap(rel == {"6.12.117"} and len({b["id"] for b in doc["builds"]}) == 2
        and all(t["build_id"] == doc["builds"][1]["id"] for t in doc["tests"]),
        "[guard] two builds (release 6.12.117), every test on the patched one",
        json.dumps(doc["builds"], indent=1))
    # every range node's counts are the diff's own (--json)
    j = json.loads(run(["diff", "-q", "--json", snaps[BASE], snaps[MUTANT]]).stdout)
    rc, mdoc, err = kcidb(snaps[BASE], snaps[MUTANT])
    mranges = {(t["misc"]["start_pfn"], t["misc"]["end_pfn"]): t for t in mdoc["tests"]
               if t["path"].startswith("memmapcheck.range_")}
    bad = []
    for r in j["ranges"]:
        t = mranges.get((r["start_pfn"], r["end_pfn"]))
        if not t or (t["misc"]["compared"], t["misc"]["differing"], t["misc"]["fields"]) != \
                (r["compared"], r["differing"], r["fields"]) or \
                t["status"] != {"identical": "PASS", "different": "FAIL", "incomplete": "SKIP"}[r["verdict"]]:
            bad.append((r["start_pfn"], r["end_pfn"], t and t["misc"], r))
    tap(not bad and len(mranges) == len(j["ranges"]),
        "[guard] base vs mutant: one node per range (%d) with diff --json's counts and verdict" % len(j["ranges"]), bad)

    # ---- different
    exp = verdict_row(BASE, MUTANT)
    tap(rc == 1, "[oracle] base vs mut-tail-refcount: exit 1", err)
    schema_check(validator, why, mdoc, "[proof] base vs mutant: valid KCIDB v%s" % src["version"])
    mroot = [t for t in mdoc["tests"] if t["path"] == "memmapcheck"][0]
    fields = set()
    for t in mranges.values():
        if t["status"] == "FAIL":
            fields |= set(t["misc"]["fields"])
    tap(mroot["status"] == "FAIL" and exp and fields == exp["fields"],
        "[oracle] base vs mutant: root FAIL, failing ranges differ in %s (verdicts.tsv: %s)"
        % (",".join(sorted(fields)), exp and ",".join(sorted(exp["fields"]))), mroot)

    # ---- incomplete: half a dump
    half = os.path.join(tmp, "half.kdump")
    with open(dumps[BASE], "rb") as f, open(half, "wb") as g:
        g.write(f.read(os.path.getsize(dumps[BASE]) // 2))
    hsnap = os.path.join(tmp, "half.snap")
    r = run(["snapshot", "-q", "-o", hsnap, layout_of(BASE), half])
    rc, hdoc, err = kcidb(snaps[BASE], hsnap)
    hroot = hdoc and [t for t in hdoc["tests"] if t["path"] == "memmapcheck"][0]
    tap(r.returncode == 4 and rc == 4 and hroot and hroot["status"] == "SKIP"
        and "incomplete" in hroot["comment"] and all(t["status"] != "PASS" or t["path"] != "memmapcheck"
                                                     for t in hdoc["tests"]),
        "[proof] base vs a dump cut in half: root SKIP with the reason (%s)" % (hroot and hroot["comment"]),
        (r.returncode, rc, err, hroot))
    if hdoc:
        schema_check(validator, why, hdoc, "[proof] incomplete: valid KCIDB v%s" % src["version"])

    # ---- the validator bites
    if validator is not None:
        broken = json.loads(json.dumps(mdoc))
        broken["tests"][1]["path"] = "memmapcheck.range 0x14000"
        broken["builds"][0]["id"] = "no origin"
        n = len(list(validator.iter_errors(broken)))
        tap(n == 2, "[proof] the schema refuses a path with a space and an id without origin (%d errors)" % n)
    else:
        tap.skip(why, "[proof] the schema refuses a bad document")

    # ---- identity files
    ids = {}
    for side, text in (("base", "checkout_id=lab_x:checkout-base\nbuild_id=lab_x:build-base\n"
                                "tree_name=debian-6.12\npatchset_hash=\nkernel=6.12-base\n"),
                       ("new", "# the template port\nbuild_id=lab_x:build-new\ntree_name=debian-6.12\n"
                               "patchset_hash=%s\npatch=template.patch https://example.org/template.patch\n"
                               "architecture=x86_64\nconfig_name=tinyconfig+memmapcheck\n" % ("ab" * 32))):
        ids[side] = os.path.join(tmp, side + ".ids")
        with open(ids[side], "w") as f:
            f.write(text)
    env = {"MEMMAPCHECK_KCIDB_BASE": ids["base"], "MEMMAPCHECK_KCIDB_NEW": ids["new"],
           "MEMMAPCHECK_KCIDB_ORIGIN": "lab_x"}
    rc, idoc, err = kcidb(snaps[BASE], snaps[TEMPLATE], env)
    ok = idoc is not None and rc == 0
    if ok:
        co, bu = idoc["checkouts"], idoc["builds"]
        ok = (co[0]["id"] == "lab_x:checkout-base" and co[0]["patchset_hash"] == ""
              and co[1]["patchset_hash"] == "ab" * 32
              and co[1]["patchset_files"] == [{"name": "template.patch", "url": "https://example.org/template.patch"}]
              and bu[0]["id"] == "lab_x:build-base" and bu[1]["id"] == "lab_x:build-new"
              and bu[1].get("checkout_id") == co[1]["id"] and bu[1].get("architecture") == "x86_64"
              and all(t["build_id"] == "lab_x:build-new" and t["origin"] == "lab_x" for t in idoc["tests"]))
    tap(ok, "[guard] identity files: the lab's ids, patch and config reach checkouts, builds and tests",
        json.dumps(idoc, indent=1)[:3000] if idoc else err)
    if idoc:
        schema_check(validator, why, idoc, "[proof] with identity files: valid KCIDB v%s" % src["version"])
    with open(ids["new"], "a") as f:
        f.write("git_commit_hash=xyz\n")
    r = run(["diff", "-q", "-f", "kcidb", snaps[BASE], snaps[TEMPLATE]], env)
    tap(r.returncode == 2 and ids["new"] in r.stderr and "line 8" in r.stderr and not r.stdout,
        "[guard] a bad identity file: exit 2 naming the file and line, nothing on stdout", r.stderr)
    r = run(["diff", "-q", "-f", "kcidb", snaps[BASE], snaps[TEMPLATE]], {"MEMMAPCHECK_KCIDB_ORIGIN": "Lab X"})
    tap(r.returncode == 2 and "origin" in r.stderr, "[guard] a bad origin: exit 2", r.stderr)
    r = run(["lint", "-f", "kcidb", snaps[BASE]])
    tap(r.returncode == 2 and "lint takes -f text|json|ktap|junit" in r.stderr,
        "[guard] -f kcidb is for diff and compare only", r.stderr)
    # --report-format kcidb beside a KTAP stdout: the same document
    rep = os.path.join(tmp, "report.json")
    r = run(["diff", "-q", "-f", "ktap", "--report", rep, "--report-format", "kcidb",
             snaps[BASE], snaps[MUTANT]])
    with open(rep) as f:
        same = json.load(f) == mdoc
    tap(r.returncode == 1 and r.stdout.startswith("KTAP version 1") and same,
        "[guard] --report-format kcidb writes the same document beside KTAP", r.stderr)


if __name__ == "__main__":
    sys.exit(main())
