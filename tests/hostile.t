#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile inputs, round 2 (issue 20): every class the hostile-user run
found, each member built here from a committed dump, with the outcome its
format or POSIX says, not what memmapcheck printed once.

  1  notes libkdumpfile fails on part-way (an NT_PRSTATUS shorter than
     x86_64's 336-byte elf_prstatus): exit 2 naming the note, never a
     crash, and under valgrind no invalid access;
  2  inputs that are not regular files or block devices (a FIFO, a
     character device): refused at once; signals that end a snapshot
     leave no temporary file;
  3  (mem_extent_elf.c, tests/unit/test_mem.c and damage.py's ELF cases);
  4  VMCOREINFO contradicting the dump: exit 2 naming the key;
  5  VMCOREINFO without BUILD-ID: said, never a complete verdict;
  6  an output that is the file standard output goes to: refused;
  7  repeated options, MEMMAPCHECK_THREADS, --map, show --pfn.

Checks are labelled [proof] (the expectation comes from the format, POSIX
or the dump's own bytes) or [guard].  TAP output.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import CLI, TOP, Tap, skip_all, unpacked  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "scripts", "oracle"))
import damage  # noqa: E402

tap = Tap(diag_lines=20)
LAYOUTS = os.path.join(TOP, "test-vectors", "layouts")
LAYOUT = os.path.join(LAYOUTS, "6.12-base.layout")
PRSTATUS = 336          # sizeof(struct elf_prstatus), x86_64
SUPP = os.path.join(TOP, "tests", "valgrind.supp")


def run(args, timeout=120, env=None, valgrind=False):
    cmd = [CLI] + args
    if valgrind:
        cmd = ["valgrind", "-q", "--error-exitcode=99", "--suppressions=" + SUPP] + cmd
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def with_note_descsz(src, dst, name, ntype, descsz):
    """A copy whose first note NAME/NTYPE declares descsz bytes."""
    d = damage.KDump(src)
    data = bytearray(d.data)
    i = d.note_off
    while i + 12 <= d.note_off + d.note_size:
        nsz, dsz, typ = struct.unpack_from("<III", data, i)
        nm = bytes(data[i + 12:i + 12 + nsz]).rstrip(b"\0")
        if nm == name and typ == ntype:
            struct.pack_into("<I", data, i + 4, descsz)
            open(dst, "wb").write(data)
            return True
        i += 12 + ((nsz + 3) & ~3) + ((dsz + 3) & ~3)
    return False


def class1(dump, work):
    # not a sanitized build: valgrind cannot run it
    valgrind = shutil.which("valgrind") is not None and os.environ.get("MMC_SANITIZED") != "1"
    for descsz in (0, 1, 3, PRSTATUS - 1, PRSTATUS):
        f = os.path.join(work, "prstatus-%d.kdump" % descsz)
        if not with_note_descsz(dump, f, b"CORE", 1, descsz):
            tap(False, "no NT_PRSTATUS note in %s" % dump)
            continue
        rc, _o, err = run(["ranges", "-q", LAYOUT, f])
        if descsz < PRSTATUS:
            tap(rc == 2 and "NT_PRSTATUS note of %d bytes" % descsz in err,
                "[proof] class 1: NT_PRSTATUS of %d bytes (< %d): exit %s naming the note, no crash" %
                (descsz, PRSTATUS, rc), err)
        else:
            tap(rc in (0, 4), "[proof] class 1: NT_PRSTATUS of %d bytes: read (exit %s)" % (descsz, rc), err)
        if valgrind and descsz in (0, PRSTATUS - 1):
            rc, _o, err = run(["ranges", "-q", LAYOUT, f], timeout=600, valgrind=True)
            tap(rc == 2 and "Invalid" not in err,
                "[proof] class 1: NT_PRSTATUS of %d bytes under valgrind: exit %s, no invalid access" % (descsz, rc), err)
    if not valgrind:
        tap.skip("valgrind not installed, or a sanitized build", "class 1 under valgrind")


def class2(dump, snap, work):
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    for what, args in (("DUMP", ["ranges", LAYOUT, fifo]),
                       ("KERNEL", ["ranges", fifo, dump]),
                       ("snapshot file", ["diff", fifo, snap]),
                       ("snapshot -o's DUMP", ["snapshot", "-o", os.path.join(work, "f.snap"), LAYOUT, fifo]),
                       ("lint IMAGE", ["lint", fifo])):
        t0 = time.time()
        rc, _o, err = run(args, timeout=20)
        tap(rc == 2 and "is a FIFO" in err and time.time() - t0 < 10,
            "[proof] class 2: a FIFO as %s: refused at once (exit %s, %.1f s)" % (what, rc, time.time() - t0), err)
    for dev in ("/dev/null", "/dev/zero"):
        rc, _o, err = run(["ranges", LAYOUT, dev], timeout=20)
        tap(rc == 2 and "character device" in err,
            "[proof] class 2: %s as DUMP: refused (exit %s)" % (dev, rc), err)
    # a signal that ends snapshot mid-walk: the temporary file goes with it
    sigs = [signal.SIGTERM, signal.SIGPIPE, signal.SIGALRM, signal.SIGUSR1, signal.SIGHUP]
    if os.environ.get("MMC_SANITIZED") != "1":
        # a crash too (class 1 left its temporary file); a sanitizer's
        # own SIGSEGV handler is left alone
        sigs.append(signal.SIGSEGV)
    for sig in sigs:
        out = os.path.join(work, "sig.snap")
        # the signal as a shell gives it: not ignored (under nohup SIGHUP
        # is, and the CLI then rightly finishes its file)
        p = subprocess.Popen([CLI, "snapshot", "-q", "-o", out, LAYOUT, dump],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=lambda s=sig: signal.signal(s, signal.SIG_DFL))
        caught = False
        deadline = time.time() + 30
        while time.time() < deadline and p.poll() is None:
            if any(n.startswith("sig.snap.tmp.") for n in os.listdir(work)):
                p.send_signal(signal.SIGSTOP)
                caught = True
                break
        if caught:
            p.send_signal(sig)
            p.send_signal(signal.SIGCONT)
        rc = p.wait(timeout=60)
        left = [n for n in os.listdir(work) if n.startswith("sig.snap")]
        if not caught:
            tap.skip("the walk ended before its temporary file was seen", "class 2: %s" % sig.name)
            continue
        # SIGTERM/SIGHUP stop the walk and then end the process by the signal
        tap(rc == -sig and not left,
            "[proof] class 2/7: %s during snapshot: ended by it (%s), no temporary file left %s" %
            (sig.name, rc, left))
        for n in left:
            os.unlink(os.path.join(work, n))


def class3_kdump(dump, work):
    """kdump-compressed: a page's data overlapping other pages' data (not
    the same block) is unreadable, all of them; the same block twice reads
    (one page's data, as the shared zero page is)."""
    d = damage.KDump(dump)
    o = damage.Oracle(d, LAYOUT)
    f = sorted(o.struct)[5]
    i = d.index[f]
    off_next, size_next = d.desc[i + 1][0], d.desc[i + 1][1]
    b = bytearray(d.data)
    struct.pack_into("<Q", b, d.desc_pos(f), off_next + 8)
    path = os.path.join(work, "overlap.kdump")
    open(path, "wb").write(b)
    lo, hi = off_next + 8, off_next + 8 + d.desc[i][1]
    # the pages whose data [off, off + size) meets f's new data, f too
    want = {f} | {p for p, (off, size, _fl, _pf) in zip(d.pfns, d.desc)
                  if p != f and off < hi and off + size > lo}
    snap = os.path.join(work, "overlap.snap")
    rc, _o, err = run(["snapshot", "-o", snap, LAYOUT, path])
    _r, out, _e = run(["show", "--json", snap])
    unread = set()
    try:
        for r in json.loads(out)["ranges"]:
            for x in r["runs"]:
                if x["state"] == "unreadable":
                    unread.update(range(x["first_pfn"], x["last_pfn"] + 1))
    except ValueError:
        pass
    want_pfns = set()
    for fr in want:
        want_pfns |= set(o.struct.get(fr, ()))
    tap(rc == 4 and unread == want_pfns and "overlaps another page's" in err,
        "[proof] class 3 (kdump): pfn 0x%x's data moved 8 bytes into pfn 0x%x's: frames %s unreadable (%d struct pages, from the descriptors), said (exit %s)"
        % (f, d.pfns[i + 1], sorted(hex(x) for x in want), len(want_pfns), rc), err)


def class4_5(dump, work):
    full = os.path.join(work, "full.snap")
    for name, edits, key in (
            ("l5", {"NUMBER(pgtable_l5_enabled)": "1"}, "NUMBER(pgtable_l5_enabled)"),
            ("phys-base", {"NUMBER(phys_base)": str(2 << 20)}, "NUMBER(phys_base)"),
            ("kerneloffset", {"KERNELOFFSET": "200000", "SYMBOL(_stext)": "ffffffff81200000"},
             "KERNELOFFSET")):
        f = os.path.join(work, "vi-%s.kdump" % name)
        damage.with_vmcoreinfo(dump, f, edits)
        out = os.path.join(work, "vi-%s.snap" % name)
        rc, _o, err = run(["snapshot", "-o", out, LAYOUT, f])
        tap(rc == 2 and "VMCOREINFO contradicts" in err and key in err and not os.path.exists(out),
            "[proof] class 4: %s (a 4-level, phys_base 0, KERNELOFFSET 0 dump): exit %s naming %s, no snapshot" %
            (", ".join("%s=%s" % kv for kv in edits.items()), rc, key), err)
    f = os.path.join(work, "no-build-id.kdump")
    damage.with_vmcoreinfo(dump, f, {"BUILD-ID": None})
    out = os.path.join(work, "nb.snap")
    rc, o, err = run(["snapshot", "-o", out, LAYOUT, f])
    tap(rc == 4 and "build-id not checked" in err and os.path.exists(out),
        "[proof] class 5: VMCOREINFO without BUILD-ID: snapshot written, exit %s, 'build-id not checked' said" % rc, err)
    rc, o, err = run(["diff", full, out])
    tap(rc == 4 and o.startswith("incomplete"),
        "[proof] class 5: diff against it: incomplete (exit %s), never identical" % rc, o + err)
    rc, o, err = run(["ranges", out])
    tap(rc == 4 and "build-id not checked" in (o + err),
        "[proof] class 5: ranges of that snapshot says it (exit %s)" % rc, err)
    tmpl = os.path.join(unpacked("6.12") or "", "6.12-template-b1.kdump")
    if os.path.exists(tmpl):
        f = os.path.join(work, "tmpl-no-build-id.kdump")
        damage.with_vmcoreinfo(tmpl, f, {"BUILD-ID": None})
        rc, _o, err = run(["ranges", LAYOUT, f])
        tap(rc in (2, 4) and ("build-id not checked" in err or "contradicts" in err),
            "[proof] class 5: another kernel's dump (template) without BUILD-ID and the base layout: exit %s, not 0" % rc, err)


def class6_7(snap, work):
    rep = os.path.join(work, "out.txt")
    with open(rep, "w") as f:
        p = subprocess.run([CLI, "diff", "--report", rep, snap, snap], stdout=f,
                           stderr=subprocess.PIPE)
    err = p.stderr.decode()
    tap(p.returncode == 2 and "standard output goes to" in err,
        "[proof] class 6: --report naming standard output's file: refused (exit %s)" % p.returncode, err)
    for args, name in ((["diff", "-n", "3", "-n", "4", snap, snap], "-n/--max-pages"),
                       (["diff", "-f", "json", "--json", snap, snap], "--json"),
                       (["show", "-r", "1", "-r", "2", snap], "-r/--range")):
        rc, _o, err = run(args)
        tap(rc == 2 and name in err and "twice" in err,
            "[proof] class 7: %s: exit %s naming %s" % (" ".join(args[:-1]), rc, name), err)
    for v in ("-1", "abc", "999999999", "0"):
        env = dict(os.environ, MEMMAPCHECK_THREADS=v)
        rc, _o, err = run(["ranges", snap], env=env)
        tap(rc == 2 and "MEMMAPCHECK_THREADS" in err,
            "[proof] class 7: MEMMAPCHECK_THREADS=%s: exit %s naming it" % (v, rc), err)
    notdir = os.path.join(work, "notdir")
    open(notdir, "w").close()
    rc, o, err = run(["diff", "--map", notdir, snap, snap])
    tap(rc == 2 and not o and "not a directory" in err,
        "[proof] class 7: diff --map FILE: refused before any verdict (exit %s, %d bytes out)" % (rc, len(o)), err)
    # show --pfn: the page the snapshot's own JSON lists for that pfn
    _rc, o, _e = run(["show", "--json", snap])
    ranges = json.loads(o)["ranges"]
    r = ranges[1]
    run0 = r["runs"][0]
    pfn = run0["first_pfn"]
    rc, o, err = run(["show", "--pfn", hex(pfn), "-f", "json", snap])
    try:
        page = json.loads(o)["page"]
    except (ValueError, KeyError):
        page = {}
    tap(rc == 0 and page.get("pfn") == pfn and page.get("slots") == run0.get("slots") and
        page.get("flags") == run0.get("flags"),
        "[proof] class 7: show --pfn 0x%x: the record show --json gives for its run" % pfn, o[:300] + err)
    rc, _o, err = run(["show", "--pfn", "1", snap])
    tap(rc == 2 and "in no range" in err, "[proof] class 7: show --pfn of a pfn in no range: exit %s" % rc, err)


def main():
    d = unpacked("6.12")
    if not d:
        skip_all("dumps/6.12.tar.xz not unpacked")
    if not os.access(CLI, os.X_OK):
        skip_all("%s not built" % CLI)
    dump = os.path.join(d, "6.12-base-b1.kdump")
    work = tempfile.mkdtemp(prefix="mmc-hostile-")
    try:
        snap = os.path.join(work, "full.snap")
        rc, _o, err = run(["snapshot", "-q", "-o", snap, LAYOUT, dump])
        tap(rc == 0, "[guard] 6.12-base-b1: snapshot exit %s" % rc, err)
        class1(dump, work)
        class2(dump, snap, work)
        class3_kdump(dump, work)
        class4_5(dump, work)
        class6_7(snap, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.plan()


if __name__ == "__main__":
    sys.exit(main())
