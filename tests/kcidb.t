#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memmapcheck diff -f kcidb`: KCIDB JSON of real comparisons, validated
with Debian's python3-jsonschema (Draft 7, format checking) against this
project's own KCIDB v5.3 schema (test-vectors/kcidb/memmapcheck-kcidb.schema.json,
written from KCIDB's documentation) and, when its file is there, also
against kcidb-io's own (test-vectors/kcidb/SOURCE), and checked against
verdicts that come from outside the tool:

  [oracle] 6.12 base vs the template port: identical (test-vectors/verdicts.tsv,
           the port's claim) -> root PASS, every range PASS
  [oracle] 6.12 base vs mut-tail-refcount: different in exactly the fields the
           mutant changes (verdicts.tsv: _refcount) -> root FAIL
  [proof]  a dump cut in half (pages past the cut are not in the file) -> SKIP
           with the reason, never PASS
  [proof]  every document is valid against both schemas; the own schema
           refuses documents KCIDB's documentation forbids (wrong version,
           bad status, missing id, unknown key, id without origin, ...), each
           at the broken place, and takes documented variants; kcidb-io's
           schema refuses the same ones (when there)
  [guard]  the range nodes carry the counts `diff --json` gives; identity files
           reach the checkouts and builds; a bad identity file is exit 2

kcidb-io's schema file is not committed (test-vectors/kcidb/README.md): without
it a '# ' line says the extra checks were not made; the own schema's checks
never skip when python3-jsonschema is installed.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kcidb_schema import Schemas, errors_of, schema_check  # noqa: E402
from taplib import CLI, TOP, Tap, dump_path, layout_of, skip_all  # noqa: E402

BASE, TEMPLATE, MUTANT = "6.12-base-b1", "6.12-template-b1", "6.12-mut-tail-refcount-b1"
tap = Tap(diag_lines=40)


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


def main():
    if not os.access(CLI, os.X_OK):
        skip_all("no memmapcheck CLI at %s (make)" % CLI, stderr=True)
    dumps = {i: dump_path(i) for i in (BASE, TEMPLATE, MUTANT)}
    if not all(dumps.values()):
        skip_all("committed 6.12 dumps not available (%s)" % dumps, stderr=True)
    sch = Schemas()
    sch.announce(tap)
    with tempfile.TemporaryDirectory(prefix="kcidb.") as tmp:
        snaps = {}
        for img, d in dumps.items():
            snaps[img] = os.path.join(tmp, img + ".snap")
            r = run(["snapshot", "-q", "-o", snaps[img], layout_of(img), d])
            if r.returncode != 0:
                skip_all("snapshot of %s failed: %s" % (img, r.stderr.strip()), stderr=True)
        checks(tmp, snaps, dumps, sch)
    return tap.plan()


def checks(tmp, snaps, dumps, sch):
    # ---- identical
    exp = verdict_row(BASE, TEMPLATE)
    rc, doc, err = kcidb(snaps[BASE], snaps[TEMPLATE])
    tap(doc is not None and rc == 0, "[oracle] base vs template: exit 0 and JSON", err)
    if doc is None:
        return
    schema_check(tap, sch, doc, "[proof] base vs template")
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
    schema_check(tap, sch, mdoc, "[proof] base vs mutant")
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
        schema_check(tap, sch, hdoc, "[proof] incomplete")

    # ---- identity files
    ids = {}
    for side, text in (("base", "checkout_id=lab_x:checkout-base\nbuild_id=lab_x:build-base\n"
                                "tree_name=debian-6.12\npatchset_hash=\nkernel=6.12-base\n"
                                "git_repository_url=https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git\n"
                                "git_commit_hash=%s\ngit_commit_name=v6.12.117\ncompiler=gcc (Debian 12.2.0-14) 12.2.0\n"
                                "snapshot_url=https://lab.example/artefacts/base.snap\n" % ("0123456789" * 4)),
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
        schema_check(tap, sch, idoc, "[proof] with identity files")
        bites(sch, idoc)
    with open(ids["new"], "a") as f:
        f.write("git_commit_hash=xyz\n")
    r = run(["diff", "-q", "-f", "kcidb", snaps[BASE], snaps[TEMPLATE]], env)
    tap(r.returncode == 2 and ids["new"] in r.stderr and "line 8" in r.stderr and not r.stdout,
        "[guard] a bad identity file: exit 2 naming the file and line, nothing on stdout", r.stderr)
    r = run(["diff", "-q", "-f", "kcidb", snaps[BASE], snaps[TEMPLATE]], {"MEMMAPCHECK_KCIDB_ORIGIN": "Lab X"})
    tap(r.returncode == 2 and "origin" in r.stderr, "[guard] a bad origin: exit 2", r.stderr)
    # the guide's git:// fallback: kcidb-io's 5.3 schema takes https:// only,
    # so the identity file must refuse it or the document must still be valid
    with open(ids["base"], "w") as f:
        f.write("git_repository_url=%s\n" % GIT_URL)
    rc, gdoc, err = kcidb(snaps[BASE], snaps[TEMPLATE], {"MEMMAPCHECK_KCIDB_BASE": ids["base"]})
    errs = errors_of(sch.own, gdoc) if sch.own is not None and gdoc is not None else []
    if sch.own is None:
        tap.skip(sch.own_why, "[proof] a git:// repository URL: refused, or a valid document")
    else:
        tap(rc == 2 or (rc == 0 and gdoc is not None and not errs),
            "[proof] a git:// repository URL: refused, or a valid document (exit %d)" % rc,
            "\n".join(errs) or err)
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



# ---- the schemas bite: documents KCIDB's documentation forbids
# (test-vectors/kcidb/README.md names the source of each rule).  Each is the
# identity-file document with one thing broken, and must be refused there,
# at that place, for that reason.  "kcidb": KCIDB itself forbids it, so
# kcidb-io's schema must refuse it too; "contract": memmapcheck's own promise,
# stricter than KCIDB (kcidb-io may accept it: said in a '# ' line).
def _set(keys, value):
    def f(d):
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return f


def _del(keys):
    def f(d):
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]
    return f


GIT_URL = "git://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git"
BROKEN = [
    # (what, kind, mutation, where the error must be, validator keywords)
    ("no version", "kcidb", _del(["version"]), [], {"required"}),
    ("version 4.3", "kcidb", _set(["version", "major"], 4), ["version", "major"], {"enum", "const"}),
    ("version as a string", "kcidb", _set(["version"], "5.3"), ["version"], {"type"}),
    ("an unknown top-level key", "kcidb", _set(["results"], []), [], {"additionalProperties"}),
    ("'issue' (singular, as the guide's example spells it)", "kcidb", _set(["issue"], []), [],
     {"additionalProperties"}),
    ("a test status PASSED", "kcidb", _set(["tests", 1, "status"], "PASSED"), ["tests", 1, "status"], {"enum"}),
    ("a test status pass (lower case)", "kcidb", _set(["tests", 0, "status"], "pass"), ["tests", 0, "status"],
     {"enum"}),
    ("a test without id", "kcidb", _del(["tests", 0, "id"]), ["tests", 0], {"required"}),
    ("a build without checkout_id", "kcidb", _del(["builds", 1, "checkout_id"]), ["builds", 1], {"required"}),
    ("a checkout without origin", "kcidb", _del(["checkouts", 0, "origin"]), ["checkouts", 0], {"required"}),
    ("a build id without origin prefix", "kcidb", _set(["builds", 0, "id"], "build-1234"), ["builds", 0, "id"],
     {"pattern"}),
    ("a test's build_id without origin prefix", "kcidb", _set(["tests", 2, "build_id"], ":build-new"),
     ["tests", 2, "build_id"], {"pattern"}),
    ("an origin with upper case and a space", "kcidb", _set(["tests", 0, "origin"], "Lab X"),
     ["tests", 0, "origin"], {"pattern"}),
    ("a test path with a space", "kcidb", _set(["tests", 1, "path"], "memmapcheck.range 0x14000"),
     ["tests", 1, "path"], {"pattern"}),
    ("a test path with an empty node", "kcidb", _set(["tests", 1, "path"], "memmapcheck..range"),
     ["tests", 1, "path"], {"pattern"}),
    ("a test field KCIDB does not define (extra data belongs in misc)", "kcidb",
     _set(["tests", 0, "result"], "PASS"), ["tests", 0], {"additionalProperties"}),
    ("a short git commit hash", "kcidb", _set(["checkouts", 0, "git_commit_hash"], "0123456789ab"),
     ["checkouts", 0, "git_commit_hash"], {"pattern"}),
    ("a sha1 as patchset_hash", "kcidb", _set(["checkouts", 1, "patchset_hash"], "ab" * 20),
     ["checkouts", 1, "patchset_hash"], {"pattern"}),
    ("a patch file name with a directory", "kcidb",
     _set(["checkouts", 1, "patchset_files", 0, "name"], "patches/template.patch"),
     ["checkouts", 1, "patchset_files", 0, "name"], {"pattern"}),
    ("a null comment (no property can be null)", "kcidb", _set(["tests", 0, "comment"], None),
     ["tests", 0, "comment"], {"type"}),
    ("misc as a string", "kcidb", _set(["builds", 0, "misc"], "x"), ["builds", 0, "misc"], {"type"}),
    ("version 5.2", "contract", _set(["version", "minor"], 2), ["version", "minor"], {"enum"}),
    ("a test without status", "contract", _del(["tests", 0, "status"]), ["tests", 0], {"required"}),
    ("a test outside the memmapcheck node", "contract", _set(["tests", 1, "path"], "ltp.sem01"),
     ["tests", 1, "path"], {"pattern"}),
    ("an id with an empty local part", "contract", _set(["tests", 0, "id"], "lab_x:"), ["tests", 0, "id"],
     {"pattern"}),
    ("no tests array", "contract", _del(["tests"]), [], {"required"}),
    ("a git:// repository URL (the guide allows it when there is no https:// one)", "contract",
     _set(["checkouts", 0, "git_repository_url"], GIT_URL), ["checkouts", 0, "git_repository_url"], {"pattern"}),
]

# Documented as valid: the own schema must take them.
VALID = [
    ("status MISS, ERROR and DONE", lambda d: [t.update(status=s) for t, s in zip(d["tests"], ("MISS", "ERROR", "DONE"))]),
    ("a checkout of only id and origin (the guide's minimal object)",
     lambda d: d["checkouts"].__setitem__(1, {"id": "lab_x:32254", "origin": "lab_x"})),
    ("any string as the local part of an id", _set(["builds", 0, "id"], "lab_x:build 1/2+x:y")),
]


def bites(sch, doc):
    if sch.own is None:
        tap.skip(sch.own_why, "[proof] memmapcheck's KCIDB schema refuses what KCIDB's documentation forbids")
        return
    bad, disagree = [], []
    for what, kind, mutate, where, keywords in BROKEN:
        broken = json.loads(json.dumps(doc))
        mutate(broken)
        errs = list(sch.own.iter_errors(broken))
        if not errs or any(list(e.absolute_path) != where or e.validator not in keywords for e in errs):
            bad.append("%s: %s" % (what, [("/".join(map(str, e.absolute_path)), e.validator) for e in errs]
                                   or "accepted"))
        if sch.upstream is not None:
            up = list(sch.upstream.iter_errors(broken))
            if kind == "kcidb" and not up:
                disagree.append("%s: kcidb-io accepts it" % what)
            elif kind == "contract":
                print("# contract, stricter than KCIDB: %s: kcidb-io %s" % (
                    what, "refuses it too" if up else "accepts it"))
    tap(not bad, "[proof] memmapcheck's KCIDB schema refuses %d documents KCIDB's documentation or the contract "
        "forbids, each at the broken place" % len(BROKEN), "\n".join(bad))
    if sch.upstream is not None:
        tap(not disagree, "[proof] kcidb-io's v5.3 schema refuses the %d that KCIDB forbids too (extra)"
            % sum(1 for b in BROKEN if b[1] == "kcidb"), "\n".join(disagree))
    taken = []
    for what, mutate in VALID:
        ok = json.loads(json.dumps(doc))
        mutate(ok)
        errs = errors_of(sch.own, ok)
        if errs:
            taken.append("%s: %s" % (what, errs))
        if sch.upstream is not None and list(sch.upstream.iter_errors(ok)):
            print("# disagreement: %s: documented as valid, kcidb-io's v5.3 schema refuses it: %s"
                  % (what, errors_of(sch.upstream, ok)[:2]))
    tap(not taken, "[proof] memmapcheck's KCIDB schema takes %d documented variants" % len(VALID),
        "\n".join(taken))

if __name__ == "__main__":
    sys.exit(main())
