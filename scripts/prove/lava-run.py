#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run memmapcheck's LAVA jobs here with Debian's lava-dispatcher, without a
server (`lava-run` with a device dictionary), and collect what a lab would:
each job's LAVA results and the snapshot the device handed out.

usage: scripts/prove/lava-run.py [-d DEVICE.yaml] [-j N] -o OUTDIR JOB.yaml...

  -d DEVICE.yaml  device dictionary (default lava/devices/qemu-tcg.yaml)
  -j N            jobs at once, one QEMU each (default 1: this is N devices)
Per job, in OUTDIR/NAME/ (NAME: the job file's name without .yaml):
  lava.log        lava-run's log (one YAML mapping per line)
  results.tsv     every LAVA test case: definition, case, result, measurement
  live.snap       the snapshot, from the console (sha256 and size checked)
  seconds         wall time of the job
Exit: 0 every job finished and handed out its snapshot, 1 otherwise, 2 usage.
"""
import argparse
import base64
import concurrent.futures
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_log(path):
    """(results, console lines) of a lava-run log."""
    results, console = [], []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                e = json.loads(line)
            except ValueError:
                # result lines carry YAML tags (`"endtc": ! "603"`): not JSON
                try:
                    e = yaml.load(line, Loader=yaml.SafeLoader)
                except yaml.YAMLError:
                    continue
            if not isinstance(e, dict):
                continue
            if e.get("lvl") == "results" and isinstance(e.get("msg"), dict):
                results.append(e["msg"])
            elif e.get("lvl") == "target" and isinstance(e.get("msg"), str):
                console.append(e["msg"])
    return results, console


def artefact(console, out):
    """The snapshot between MEMMAPCHECK-ARTEFACT-BEGIN and -END, checked;
    None and why if it is not there whole."""
    lines, sha, size, inside = [], None, None, False
    for m in console:
        for l in m.splitlines():
            l = l.strip()
            if l.startswith("MEMMAPCHECK-ARTEFACT-BEGIN "):
                f = l.split()
                if len(f) == 4:
                    inside, lines, sha, size = True, [], f[2], int(f[3])
            elif l.startswith("MEMMAPCHECK-ARTEFACT-END"):
                inside = False
                break
            elif inside:
                lines.append(l)
    if sha is None:
        return "no MEMMAPCHECK-ARTEFACT-BEGIN line in the console"
    try:
        data = gzip.decompress(base64.b64decode("".join(lines)))
    except (ValueError, OSError) as e:
        return "the artefact does not decode: %s" % e
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha:
        return "the artefact is %d bytes, sha256 %s; the device said %d, %s" % (
            len(data), hashlib.sha256(data).hexdigest(), size, sha)
    with open(out, "wb") as f:
        f.write(data)
    return None


def run_job(job, device, outdir, job_id):
    name = os.path.basename(job)[:-5] if job.endswith(".yaml") else os.path.basename(job)
    d = os.path.join(outdir, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    log = os.path.join(d, "lava.log")
    t0 = time.time()
    # libguestfs (the test overlay's disk) tries KVM first: /dev/kvm may
    # exist and not work (a nested guest that hangs); TCG always works
    env = dict(os.environ, LIBGUESTFS_BACKEND_SETTINGS="force_tcg")
    with open(log, "w") as f:
        rc = subprocess.run(["nice", "-n", "10", "lava-run", "--job-id", str(job_id),
                             "--output-dir", os.path.join(d, "lava-output"),
                             "--device", device, job], stdout=f, stderr=subprocess.STDOUT,
                            env=env).returncode
    secs = time.time() - t0
    with open(os.path.join(d, "seconds"), "w") as f:
        f.write("%.1f\n" % secs)
    results, console = parse_log(log)
    with open(os.path.join(d, "results.tsv"), "w") as f:
        for r in results:
            f.write("%s\t%s\t%s\t%s\n" % (r.get("definition"), r.get("case"), r.get("result"),
                                          r.get("measurement", "")))
    why = artefact(console, os.path.join(d, "live.snap"))
    job_ok = any(r.get("definition") == "lava" and r.get("case") == "job" and r.get("result") == "pass"
                 for r in results)
    return name, rc, job_ok, why, secs, results


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-d", "--device", default=os.path.join(TOP, "lava", "devices", "qemu-tcg.yaml"))
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("job", nargs="+")
    a = p.parse_args()
    if not shutil.which("lava-run"):
        print("lava-run: not installed (apt-get install lava-dispatcher)", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        # lava-dispatcher's own rule ("lava-run should be executed as root"):
        # it mounts, chroots and writes /var/lib/lava
        print("lava-run: must run as root, as LAVA's dispatcher does", file=sys.stderr)
        return 2
    os.makedirs(a.output, exist_ok=True)
    # lava-run keeps its downloads and overlays here
    os.makedirs("/var/lib/lava/dispatcher/tmp", exist_ok=True)
    failed = 0
    base_id = int(time.time()) % 100000 * 100
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(run_job, os.path.abspath(j), os.path.abspath(a.device),
                          os.path.abspath(a.output), base_id + i) for i, j in enumerate(a.job)]
        for fu in futs:
            name, rc, job_ok, why, secs, results = fu.result()
            cases = [r for r in results if r.get("definition") not in ("lava", None)]
            print("lava-run: %s: lava-run exit %d, job %s, %d test cases (%s), %.0f s, snapshot: %s" % (
                name, rc, "pass" if job_ok else "FAIL", len(cases),
                ", ".join("%s %s" % (r["case"], r["result"]) for r in cases
                          if not r["case"].startswith("memmapcheck-lint-")),
                secs, why or "live.snap"))
            if rc != 0 or not job_ok or why:
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
