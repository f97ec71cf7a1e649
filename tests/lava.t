#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""memmapcheck in a lab's engine, end to end here: LAVA jobs written by
scripts/prove/lava-jobs.py for the 6.12 base, template and mut-tail-refcount
kernels, run by Debian's lava-dispatcher (lava-run, no server) in QEMU
guests that install the .deb with dpkg and take `snapshot --live`; then
the comparison job (scripts/prove/lava-compare.sh) on the snapshots they handed
out, in KTAP and KCIDB.

  [proof]  every job passes LAVA's own schema (lava_common.schemas, strict)
           and lava-run --validate; so does a job for a real device type
  [proof]  each LAVA job passes; install, workload, snapshot and artefact
           test cases pass; the snapshot arrives whole (sha256)
  [oracle] what live reading cannot see: memmapcheck-snapshot-complete is
           "skip" and the skipped ranges are exactly the map=dev namespaces
           of the guest layout (scripts/prove/guest/layout.sh)
  [oracle] base vs template (the port's claim, test-vectors/verdicts.tsv):
           no range differs, every range live reading sees is identical, the
           map=dev ranges are incomplete: exit 4, KTAP and KCIDB say so
  [oracle] base vs mut-tail-refcount: different in _refcount only
           (verdicts.tsv), exit 1, KTAP "not ok", KCIDB FAIL
  [proof]  both KCIDB documents are valid against the project's own KCIDB
           v5.3 schema (test-vectors/kcidb/memmapcheck-kcidb.schema.json) and,
           as extra checks where its file is there, against kcidb-io's own
           (test-vectors/kcidb/README.md; a '# ' line says when it is not)
Needs lava-dispatcher, qemu-system-x86, the 6.12-base and 6.12-template
kernels (and 6.12-mut-tail-refcount for the mutant checks) and a memmapcheck
.deb (MEMMAPCHECK_DEB, else scripts/prove/lava-deb.sh builds one). About 10-20
minutes (three guests under TCG, one after the other; MMC_LAVA_JOBS=N runs N
at once; MMC_LAVA_KEEP=1 keeps the jobs, logs, snapshots and reports).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kcidb_schema import Schemas, schema_check  # noqa: E402
from taplib import CACHE, CLI, TOP, Tap, skip_all  # noqa: E402

KERNELS = {"base": "6.12-base", "template": "6.12-template", "mutant": "6.12-mut-tail-refcount"}
PY = "/usr/bin/python3"    # lava_common is Debian's, for Debian's python
tap = Tap(diag_lines=40, diag_last=True)


def kdir(k):
    return os.path.join(CACHE, "kernels", k)


def missing():
    if os.environ.get("MMC_SANITIZED") == "1":
        # the guests run the .deb, built from the sources either way
        return "the LAVA guests run the packaged build, not the sanitized one (check-normal runs this)"
    for t in ("lava-run", "qemu-system-x86_64", "git", "cpio"):
        if not shutil.which(t):
            return "%s not installed (scripts/setup-deps.sh: lava-dispatcher, qemu-system-x86)" % t
    if os.geteuid() != 0:
        return "lava-run runs as root only (lava-dispatcher: \"lava-run should be executed as root\")"
    if not os.access(CLI, os.X_OK):
        return "no memmapcheck CLI at %s (make)" % CLI
    for k in ("base", "template"):
        for f in ("bzImage", "vmlinux"):
            if not os.path.isfile(os.path.join(kdir(KERNELS[k]), f)):
                return "no %s in %s (scripts/vectors/build-kernel.sh 6.12 %s)" % (f, kdir(KERNELS[k]), k)
    if not os.environ.get("MEMMAPCHECK_DEB") and not shutil.which("dpkg-buildpackage"):
        return "no MEMMAPCHECK_DEB and no dpkg-buildpackage to build one"
    return None


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def layout_nss(name="standard"):
    """The guest layout's namespaces: (start pfn, map) from layout.sh itself."""
    out = run(["bash", "-c", '. "$1"; mmc_layout_load "$2" && echo "$MMC_NS"', "-",
               os.path.join(TOP, "scripts", "prove", "guest", "layout.sh"), name], check=True).stdout.strip()
    res = []
    for e in out.split(","):
        start, mode, align, mp = e.split(":")
        res.append((int(start, 16) >> 12, "mem" if mode == "raw" else mp))
    return res


def verdict_rules(image):
    """The lint rules test-vectors/verdicts.tsv expects on an image's dump."""
    with open(os.path.join(TOP, "test-vectors", "verdicts.tsv")) as f:
        for l in f:
            c = l.rstrip("\n").split("\t")
            if len(c) >= 5 and c[0] == "lint" and c[1] == image:
                return set(c[4].split(",")) if c[4] != "-" else set()
    return None


def validate_schema(job):
    r = run([PY, "-c", "import sys, yaml\nfrom lava_common.schemas import validate\n"
             "validate(yaml.safe_load(open(sys.argv[1])), strict=True)", job])
    return r.returncode == 0, r.stderr[-2000:]


def results(d):
    res = {}
    with open(os.path.join(d, "results.tsv")) as f:
        for l in f:
            defn, case, result, meas = (l.rstrip("\n").split("\t") + [""] * 4)[:4]
            res[(defn, case)] = (result, meas)
    return res


def main():
    why = missing()
    if why:
        skip_all(why, stderr=True)
    have_mut = all(os.path.isfile(os.path.join(kdir(KERNELS["mutant"]), f)) for f in ("bzImage", "vmlinux"))
    work = tempfile.mkdtemp(prefix="lava.t.", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        body(work, have_mut)
    finally:
        if os.environ.get("MMC_LAVA_KEEP") != "1":
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("# kept " + work)
    return tap.plan()


def body(work, have_mut):
    t0 = time.time()
    deb = os.environ.get("MEMMAPCHECK_DEB")
    if not deb:
        r = run([os.path.join(TOP, "scripts", "prove", "lava-deb.sh")])
        deb = r.stdout.strip()
        if r.returncode != 0 or not os.path.isfile(deb):
            tap(False, "[proof] the memmapcheck .deb of this checkout (scripts/prove/lava-deb.sh)", r.stderr)
            return
    print("# .deb: %s (%.0f s)" % (deb, time.time() - t0))
    sides = ["base", "template"] + (["mutant"] if have_mut else [])
    base_cpio = os.path.join(work, "initramfs.cpio.gz")
    r = run([os.path.join(TOP, "scripts", "prove", "guest", "build-initramfs.sh"), "-o", base_cpio])
    if r.returncode != 0:
        tap(False, "[proof] the capture initramfs", r.stderr)
        return
    jobs = []
    for s in sides:
        lay = os.path.join(work, s + ".layout")
        r1 = run([CLI, "layout", "-q", "-o", lay, os.path.join(kdir(KERNELS[s]), "vmlinux")])
        rd = os.path.join(work, s + ".ramdisk.cpio.gz")
        r2 = run([os.path.join(TOP, "scripts", "prove", "lava-ramdisk.sh"), "--base", base_cpio, "-o", rd,
                  "-d", deb, "-l", lay])
        if r1.returncode or r2.returncode:
            tap(False, "[proof] %s: saved layout and ramdisk" % s, r1.stderr + r2.stderr)
            return
        jobs.append("--job")
        jobs.append("%s:%s:%s:standard" % (s, kdir(KERNELS[s]), rd))
    jdir = os.path.join(work, "jobs")
    r = run([PY, os.path.join(TOP, "scripts", "prove", "lava-jobs.py"), "-o", jdir] + jobs)
    tap(r.returncode == 0, "[guard] lava-jobs.py wrote %d jobs" % len(sides), r.stderr)
    print("# ramdisks and jobs: %.0f s" % (time.time() - t0))
    device = os.path.join(TOP, "lava", "devices", "qemu-tcg.yaml")
    for s in sides:
        job = os.path.join(jdir, s + ".yaml")
        ok, err = validate_schema(job)
        r = run(["lava-run", "--validate", "--job-id", "1", "--output-dir", os.path.join(work, "validate-" + s),
                 "--device", device, job])
        tap(ok and r.returncode == 0, "[proof] %s job: LAVA's schema (strict) and lava-run --validate" % s,
            err + r.stdout[-1500:])
    # a real device type, from the documented template
    r = run([PY, os.path.join(TOP, "scripts", "prove", "lava-jobs.py"), "-o", os.path.join(work, "tjobs"),
             "--device-type", "x86-board", "--url-base", "https://lab.example/memmapcheck",
             "--rootfs-url", "https://lab.example/bookworm-rootfs.tar.xz",
             "--test-repo", "https://lab.example/memmapcheck.git",
             "--job", "base:%s:-" % kdir(KERNELS["base"])])
    ok, err = validate_schema(os.path.join(work, "tjobs", "base.yaml"))
    tap(r.returncode == 0 and ok, "[proof] a job for a real device type (lava/templates/device-job.yaml): LAVA's schema",
        r.stderr + err)

    # ---- run them
    res_dir = os.path.join(work, "results")
    t1 = time.time()
    r = run([PY, os.path.join(TOP, "scripts", "prove", "lava-run.py"), "-j", os.environ.get("MMC_LAVA_JOBS", "1"),
             "-o", res_dir] + [os.path.join(jdir, s + ".yaml") for s in sides])
    for l in r.stdout.splitlines():
        print("# " + l)
    print("# lava-run of %d jobs: %.0f s" % (len(sides), time.time() - t1))
    mapdev = {pfn for pfn, mp in layout_nss() if mp == "dev"}
    for s in sides:
        d = os.path.join(res_dir, s)
        log = os.path.join(d, "lava.log")
        try:
            res = results(d)
        except OSError as e:
            tap(False, "[proof] %s: LAVA results" % s, e)
            continue
        job_ok = res.get(("lava", "job"), ("",))[0] == "pass"
        steps = {c: res.get(("0_memmapcheck", c), ("missing",))[0]
                 for c in ("memmapcheck-install", "memmapcheck-layout", "memmapcheck-workload",
                           "memmapcheck-snapshot", "memmapcheck-artefact")}
        tail = open(log, errors="replace").read()[-3000:] if os.path.exists(log) else ""
        tap(job_ok and all(v == "pass" for v in steps.values()) and os.path.isfile(os.path.join(d, "live.snap")),
            "[proof] %s: LAVA job pass, %s, snapshot handed out (%s s)" % (
                s, ", ".join("%s %s" % (k[12:], v) for k, v in steps.items()),
                open(os.path.join(d, "seconds")).read().strip()), tail)
        skipped = {int(c[len("memmapcheck-lint-"):].split("-")[0], 16)
                   for (defn, c), (v, _) in res.items()
                   if defn == "0_memmapcheck" and c.startswith("memmapcheck-lint-") and v == "skip"}
        if s in ("base", "template"):
            # verdicts.tsv: lint of the dumps of these kernels finds FINDINGS 2
            # (head-align, head-cycle, head-frame, vmemmap-share) in the 1 GiB
            # devdax range at pfn 0x3f000, and nothing else
            failing = {c[len("memmapcheck-lint-"):] for (defn, c), (v, _) in res.items()
                       if defn == "0_memmapcheck" and c.startswith("memmapcheck-lint-") and v == "fail"}
            rules = verdict_rules("6.12-%s-b1" % s)
            logtext = open(log, errors="replace").read()
            tap(failing == {"0x3f000-0x80000-devdax"} and rules and
                all("memmapcheck-lava: lint: %s: pfn 0x" % r in logtext for r in rules),
                "[oracle] %s: lint on the device fails only the 1 GiB devdax range, with %s (verdicts.tsv)" % (
                    s, ",".join(sorted(rules or []))), sorted(failing))
        complete = res.get(("0_memmapcheck", "memmapcheck-snapshot-complete"), ("missing",))[0]
        tap(complete == "skip" and skipped == mapdev,
            "[oracle] %s: live reading cannot see map=dev: snapshot-complete %s, skipped ranges %s = map=dev %s" % (
                s, complete, sorted(hex(x) for x in skipped), sorted(hex(x) for x in mapdev)))

    # ---- the comparison job
    sch = Schemas()
    sch.announce(tap)
    snap = {s: os.path.join(res_dir, s, "live.snap") for s in sides}
    if not all(os.path.isfile(p) for p in snap.values()):
        tap(False, "[proof] snapshots for the comparison", snap)
        return
    cmp_ = {}
    for s in sides[1:]:
        out = os.path.join(work, "compare-" + s)
        r = run([os.path.join(TOP, "scripts", "prove", "lava-compare.sh"), snap["base"], snap[s], out],
                env=dict(os.environ, MEMMAPCHECK=CLI))
        print("# " + r.stdout.strip())
        try:
            ktap = open(os.path.join(out, "report.ktap")).read()
            kc = json.load(open(os.path.join(out, "report.kcidb.json")))
        except (OSError, ValueError) as e:
            tap(False, "[proof] base vs %s: reports" % s, "%s\n%s" % (e, r.stderr))
            continue
        cmp_[s] = (r.returncode, ktap, kc)
    if "template" in cmp_:
        rc, ktap, kc = cmp_["template"]
        ranges = [t for t in kc["tests"] if t["path"].startswith("memmapcheck.range_")]
        skip = {t["misc"]["start_pfn"] for t in ranges if t["status"] == "SKIP"}
        others = {t["status"] for t in ranges if t["misc"]["start_pfn"] not in mapdev}
        tap(rc == 4 and "not ok" not in ktap and skip == mapdev and others == {"PASS"},
            "[oracle] base vs template: exit %d, no range differs, %d ranges identical, map=dev incomplete (SKIP) %s" % (
                rc, sum(1 for t in ranges if t["status"] == "PASS"), sorted(hex(x) for x in skip)), ktap)
        schema_check(tap, sch, kc, "[proof] base vs template: KCIDB")
    if "mutant" in cmp_:
        rc, ktap, kc = cmp_["mutant"]
        fields = set()
        for t in kc["tests"]:
            if t["path"].startswith("memmapcheck.range_") and t["status"] == "FAIL":
                fields |= set(t["misc"]["fields"])
        root = [t for t in kc["tests"] if t["path"] == "memmapcheck"][0]
        tap(rc == 1 and "not ok" in ktap and root["status"] == "FAIL" and fields == {"_refcount"},
            "[oracle] base vs mut-tail-refcount: exit %d, KTAP not ok, KCIDB FAIL in %s (verdicts.tsv: _refcount)" % (
                rc, ",".join(sorted(fields))), ktap)
        schema_check(tap, sch, kc, "[proof] base vs mutant: KCIDB")
    else:
        tap.skip("no %s kernel (scripts/vectors/build-kernel.sh 6.12 mut-tail-refcount)" % KERNELS["mutant"],
                 "[oracle] base vs mut-tail-refcount")
    print("# total %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    sys.exit(main())
