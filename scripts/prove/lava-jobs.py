#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write LAVA job definitions that boot a kernel and take memmapcheck's live
snapshot in it (lava/test-definitions/automated/linux/memmapcheck/).

usage: scripts/prove/lava-jobs.py -o OUTDIR [options] --job NAME:KERNEL_DIR:RAMDISK[:GUEST_LAYOUT] ...

  --job NAME:KERNEL_DIR:RAMDISK[:GUEST_LAYOUT]
        one job: KERNEL_DIR holds bzImage (and vmlinux; its saved layout is in
        the RAMDISK, scripts/prove/lava-ramdisk.sh); GUEST_LAYOUT is a name or path
        of scripts/prove/guest/layouts (default standard).  Repeat for more jobs.
  --device-type TYPE   qemu (default): runnable as written, by lava-run with
        lava/devices/qemu-tcg.yaml or by a lab's qemu devices.  Any other type:
        the job is lava/templates/device-job.yaml filled in (doc/LABS.md), with
        the artefacts' URLs under --url-base.
  --url-base URL       where a lab serves the kernel, .deb and layout (other
        device types; default: file:// URLs of the local files)
  --deb FILE, --rootfs-url URL   other device types: the .deb served under
        --url-base, and the lab's root filesystem
  --test-repo REPO     git repository holding lava/test-definitions (default:
        OUTDIR/test-definitions, a repository made of this checkout's
        lava/test-definitions alone: a job's overlay then carries only them);
        --test-path PATH inside it
  --kaslr              boot without nokaslr
  --rebind N           driver rebind rounds (default: the guest layout's)
Writes OUTDIR/NAME.yaml per job and OUTDIR/jobs.tsv (name, kernel, layout, file).
"""
import argparse
import os
import shlex
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEST_PATH = "lava/test-definitions/automated/linux/memmapcheck/memmapcheck.yaml"
PROMPT = "root@mmc-guest:~#"


def guest_layout(layout, kaslr, rebind):
    """(kernel command line, QEMU arguments) of a guest layout, from
    scripts/prove/guest/layout.sh itself; the QEMU arguments as
    scripts/prove/lib-qemu.sh's mmc_qemu_start builds them (RAM, DIMMs, extras)."""
    script = r'''
. "$1/scripts/prove/guest/layout.sh"
mmc_layout_load "$2" || exit 2
printf '%s\n' "$MMC_GUEST_ARGS" "$MMC_REBIND"
printf '%s\n' "${MMC_QEMU_OPTS[@]}"
'''
    r = subprocess.run(["bash", "-c", script, "-", TOP, layout], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("lava-jobs: guest layout %s: %s" % (layout, r.stderr.strip()))
    lines = r.stdout.split("\n")
    guest_args, layout_rebind, opts = lines[0], lines[1], [l for l in lines[2:] if l != ""]
    ram, huge, dimms, extra, i = None, False, [], [], 0
    while i < len(opts):
        o = opts[i]
        if o == "--ram":
            ram = opts[i + 1]; i += 2
        elif o == "--huge":
            huge = True; i += 1
        elif o == "--dimm":
            dimms.append(opts[i + 1]); i += 2
        elif o == "--":
            extra += [x for x in opts[i + 1:] if x != "--"]; break
        else:
            sys.exit("lava-jobs: guest layout %s: QEMU option %s unknown here" % (layout, o))
    mib = int(ram[:-1]) * (1024 if ram.endswith("G") else 1) if ram[-1] in "GM" else int(ram)
    mem = ram
    if dimms:
        top = max(int(d.split(":")[0]) + int(d.split(":")[1]) for d in dimms)
        mem = "%s,slots=%d,maxmem=%dM" % (ram, len(dimms), mib + top - 4096)
    qemu = ["-m", mem]
    if huge:
        qemu = ["-M", "pc,memory-backend=m0", "-object",
                "memory-backend-ram,id=m0,size=%s,reserve=off" % ram, "-m", mem]
    for n, d in enumerate(dimms):
        start, size = d.split(":")
        qemu += ["-object", "memory-backend-ram,id=dimm%d,size=%sM" % (n, size),
                 "-device", "pc-dimm,id=pcdimm%d,memdev=dimm%d,addr=0x%x" % (n, n, int(start) << 20)]
    qemu += extra
    cmdline = "console=ttyS0,115200 panic=-1 rdinit=/lava-init %s mmc.mode=normal mmc.rebind=%s" % (
        guest_args, rebind if rebind is not None else layout_rebind)
    if not kaslr:
        cmdline = "nokaslr " + cmdline
    return cmdline, qemu


def yq(s):
    """A YAML double-quoted scalar."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def qemu_job(name, kdir, ramdisk, layout, a):
    cmdline, qemu = guest_layout(layout, a.kaslr, a.rebind)
    kernel = os.path.abspath(os.path.join(kdir, "bzImage"))
    image_arg = "-kernel {kernel} -append %s %s" % (shlex.quote(cmdline), " ".join(shlex.quote(x) for x in qemu))
    return """\
# memmapcheck live snapshot: kernel %(kname)s, guest layout %(layout)s
# (scripts/prove/lava-jobs.py).  Runs as it is: lava-run --device lava/devices/qemu-tcg.yaml
device_type: qemu
job_name: %(job_name)s
timeouts:
  job: {minutes: 45}
  action: {minutes: 30}
  connection: {minutes: 5}
priority: medium
visibility: public
context:
  arch: amd64
  no_kvm: true
  machine: pc
  cpu: max,la57=off
  memory: %(memory)d
  guestfs_interface: virtio
metadata:
  memmapcheck.kernel: %(kname)s
  memmapcheck.guest_layout: %(layout)s
actions:
- deploy:
    timeout: {minutes: 15}
    to: tmpfs
    os: oe
    images:
      kernel:
        image_arg: %(image_arg)s
        url: file://%(kernel)s
      ramdisk:
        image_arg: -initrd {ramdisk}
        url: file://%(ramdisk)s
- boot:
    method: qemu
    media: tmpfs
    timeout: {minutes: 15}
    prompts:
    - %(prompt)s
- test:
    timeout: {minutes: 20}
    definitions:
    - repository: %(repo)s
      from: git
      history: false
      path: %(path)s
      name: memmapcheck
      parameters:
        DEB: /memmapcheck/debs
        LAYOUT: /memmapcheck/kernel.layout
        SETUP: init
        ARTEFACT: console
""" % {"kname": os.path.basename(os.path.normpath(kdir)), "layout": layout,
       "job_name": yq("memmapcheck %s %s" % (name, layout)), "image_arg": yq(image_arg),
       "kernel": kernel, "ramdisk": os.path.abspath(ramdisk), "prompt": yq(PROMPT),
       "repo": yq(a.test_repo), "path": yq(a.test_path), "memory": guest_ram_mib(qemu)}


def guest_ram_mib(qemu):
    """The guest RAM in MiB (the value of -m), for the job context."""
    m = qemu[qemu.index("-m") + 1].split(",")[0]
    return int(m[:-1]) * 1024 if m.endswith("G") else int(m.rstrip("M"))


def template_job(name, kdir, ramdisk, layout, a):
    with open(os.path.join(TOP, "lava", "templates", "device-job.yaml")) as f:
        text = f.read()
    base = a.url_base.rstrip("/") if a.url_base else None

    def url(path, served):
        return "%s/%s" % (base, served) if base else "file://" + os.path.abspath(path)
    subst = {
        "DEVICE_TYPE": a.device_type,
        "JOB_NAME": "memmapcheck %s %s" % (name, a.device_type),
        "KERNEL_URL": url(os.path.join(kdir, "bzImage"), "%s/bzImage" % name),
        "LAYOUT_URL": url(os.path.join(kdir, "kernel.layout"), "%s/kernel.layout" % name),
        "DEB_URL": url(a.deb or "memmapcheck.deb", "memmapcheck.deb"),
        "TEST_REPO": a.test_repo,
        "TEST_PATH": a.test_path,
        "ROOTFS_URL": a.rootfs_url or "@ROOTFS_URL@",
    }
    for k, v in subst.items():
        text = text.replace("@%s@" % k, v)
    return text


def test_definitions_repo(path):
    """A git repository of lava/test-definitions as they are in this
    checkout (LAVA clones the repository a job names into its overlay)."""
    import shutil
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(os.path.join(TOP, "lava", "test-definitions"),
                    os.path.join(path, "lava", "test-definitions"))
    env = dict(os.environ, GIT_AUTHOR_NAME="memmapcheck", GIT_AUTHOR_EMAIL="memmapcheck@localhost",
               GIT_COMMITTER_NAME="memmapcheck", GIT_COMMITTER_EMAIL="memmapcheck@localhost",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "memmapcheck test definitions"]):
        subprocess.run(["git", "-C", path] + cmd, check=True, env=env, capture_output=True)
    return path


def main():
    p = argparse.ArgumentParser(description="LAVA jobs for memmapcheck live snapshots")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--job", action="append", required=True)
    p.add_argument("--device-type", default="qemu")
    p.add_argument("--url-base")
    p.add_argument("--deb", help="the memmapcheck .deb (other device types)")
    p.add_argument("--rootfs-url", help="the NFS root filesystem (other device types)")
    p.add_argument("--test-repo")
    p.add_argument("--test-path", default=TEST_PATH)
    p.add_argument("--kaslr", action="store_true")
    p.add_argument("--rebind", type=int)
    a = p.parse_args()
    os.makedirs(a.output, exist_ok=True)
    if not a.test_repo:
        a.test_repo = test_definitions_repo(os.path.join(os.path.abspath(a.output), "test-definitions"))
    rows = []
    for j in a.job:
        f = j.split(":")
        if len(f) not in (3, 4) or not f[0]:
            sys.exit("lava-jobs: --job NAME:KERNEL_DIR:RAMDISK[:GUEST_LAYOUT], not %s" % j)
        name, kdir, ramdisk = f[:3]
        layout = f[3] if len(f) == 4 else "standard"
        if not os.path.isfile(os.path.join(kdir, "bzImage")):
            sys.exit("lava-jobs: no bzImage in %s" % kdir)
        if a.device_type == "qemu" and not os.path.isfile(ramdisk):
            sys.exit("lava-jobs: no ramdisk %s (scripts/prove/lava-ramdisk.sh)" % ramdisk)
        text = (qemu_job if a.device_type == "qemu" else template_job)(name, kdir, ramdisk, layout, a)
        out = os.path.join(a.output, "%s.yaml" % name)
        with open(out + ".tmp", "w") as fh:
            fh.write(text)
        os.replace(out + ".tmp", out)
        rows.append((name, os.path.abspath(kdir), layout, out))
    with open(os.path.join(a.output, "jobs.tsv"), "w") as fh:
        for r in rows:
            fh.write("\t".join(r) + "\n")
    for r in rows:
        print("lava-jobs: %s (%s, layout %s) -> %s" % r)


if __name__ == "__main__":
    main()
