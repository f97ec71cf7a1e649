# SPDX-License-Identifier: GPL-2.0-or-later
"""What the Python test scripts (tests/*.t) share: their TAP output, and where
the material they test with lies (the build, the cache, the committed dumps
and the saved layout of the kernel an image ran).

A script imports it with its own directory on sys.path:
    sys.dont_write_bytecode = True    # no tests/__pycache__ left behind
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from taplib import CLI, Tap       # noqa: E402
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("MMC_BUILD", os.path.join(TOP, "build"))
CLI = os.path.join(BUILD, "memmapcheck")
CACHE = os.environ.get("MEMMAPCHECK_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "memmapcheck"))
LAYOUTS = os.path.join(TOP, "test-vectors", "layouts")


class Tap:
    """The numbered results of one script and its plan, printed last.

    A failure is followed by its diag text as '# ' lines: the first
    diag_lines of them, the last ones with diag_last (where the end of a
    log says what went wrong), all with diag_lines=None.  diag need not be
    a string (str() of it is printed)."""

    def __init__(self, diag_lines=30, diag_last=False):
        self.n = 0
        self.failed = 0
        self.diag_lines = diag_lines
        self.diag_last = diag_last

    def __call__(self, ok, what, diag=None, todo=None):
        """One result; returns bool(ok), so that a check can guard the
        ones that need it.  todo: why a failure is known and not settled
        yet; it is reported as a TAP TODO (diag included) and does not make
        the script fail."""
        self.n += 1
        # a '#' in the description would start a TAP directive ("range #2")
        line = ("ok" if ok else "not ok") + " %d - %s" % (self.n, what.replace("#", "\\#"))
        if todo:
            line += " # TODO " + todo
        print(line)
        if not ok:
            if not todo:
                self.failed += 1
            lines = ("" if diag is None else str(diag)).splitlines()
            if self.diag_lines is not None:
                lines = lines[-self.diag_lines:] if self.diag_last else lines[:self.diag_lines]
            for d in lines:
                print("# " + d)
        sys.stdout.flush()
        return bool(ok)

    def skip(self, why, what=None):
        """A result not tested here, and why: "ok N - what # SKIP why"
        ("ok N # SKIP why" without what)."""
        self.n += 1
        print("ok %d%s # SKIP %s" % (self.n, " - " + what if what else "", why))
        sys.stdout.flush()

    def plan(self):
        """Print the plan (1..N, after the results); return the script's exit
        status: 1 if a result failed, else 0."""
        print("1..%d" % self.n)
        sys.stdout.flush()
        return 1 if self.failed else 0


def run(cmd, env=None, cwd=None):
    """(exit status, standard output, standard error) of cmd, as text."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def kernel_dir(image):
    """The cache's directory of the kernel an image ran (its vmlinux)."""
    return os.path.join(CACHE, "kernels", kernel_of(image))


def skip_all(why, stderr=False):
    """Nothing of the script can run here: the plan 1..0 with the reason, and
    exit 0.  stderr: say it there too, where a quiet prove run shows it."""
    print("1..0 # SKIP " + why)
    if stderr:
        print("%s: SKIPPED: %s" % (os.path.basename(sys.argv[0]), why), file=sys.stderr)
    sys.exit(0)


_unpacked = {}


def unpack(group):
    """dumps/<group>.tar.xz unpacked into the cache by scripts/vectors/unpack-dumps.sh
    (which does it once per tar content; asked once per run here):
    (its directory, or None if that failed; the script's stderr)."""
    if group not in _unpacked:
        r = subprocess.run([os.path.join(TOP, "scripts", "vectors", "unpack-dumps.sh"), group],
                           capture_output=True)
        _unpacked[group] = (r.stdout.decode().strip() if r.returncode == 0 else None,
                            r.stderr.decode(errors="replace"))
    return _unpacked[group]


def unpacked(group):
    """The directory of the unpacked dumps/<group>.tar.xz, or None."""
    return unpack(group)[0]


def own_groups():
    """The groups of their own: each test-vectors/<group>-images.txt with an
    "# own-group" line, whose images dumps/<group>.tar.xz holds and no
    kernel version's group does (scripts/vectors/make-vectors.sh own_groups reads
    the same lines)."""
    tv = os.path.join(TOP, "test-vectors")
    out = []
    for f in sorted(os.listdir(tv)):
        if f.endswith("-images.txt"):
            with open(os.path.join(tv, f)) as lst:
                if "# own-group" in (line.rstrip("\n") for line in lst):
                    out.append(f[:-len("-images.txt")])
    return out


def group_of(image):
    """The dumps/<group>.tar.xz an image is committed in: a group of its own
    when its test-vectors/<group>-images.txt lists it (own_groups()), else
    its kernel version's."""
    for g in own_groups():
        with open(os.path.join(TOP, "test-vectors", g + "-images.txt")) as f:
            if image in (l.strip() for l in f if not l.startswith("#")):
                return g
    return "6.1-stock" if image.startswith("6.1-") else image.split("-", 1)[0]


def kernel_of(image):
    """The kernel (saved layout) of an image: its name without the boot (-bN,
    or -kdump for the kdump-captured one) and without what only the guest
    changed (5-level paging, a one-namespace layout); -kaslr and -fixed are
    kernels of their own.  The rule scripts/vectors/make-vectors.sh saves the layouts
    by (its kernel_of()): each suffix stripped once, in this order."""
    k = re.sub(r"-b\d+$", "", image)
    for sfx in ("-kdump", "-la57", "-dax1g-section", "-dax1g-misaligned"):
        if k.endswith(sfx):
            k = k[:-len(sfx)]
    return k


def layout_of(image):
    """The saved layout (test-vectors/layouts/) of the kernel an image ran."""
    return os.path.join(LAYOUTS, kernel_of(image) + ".layout")


def dax_chain_images():
    """test-vectors/dax-chain-images.txt: the images dumps/dax-chain.tar.xz
    holds again, trimmed with the device-dax chain; dump_path() takes those
    copies."""
    path = os.path.join(TOP, "test-vectors", "dax-chain-images.txt")
    with open(path) as f:
        return {w for w in (line.split("#", 1)[0].strip() for line in f) if w}


def dump_path(image):
    """The committed dump of an image, or None.  MMC_VECTOR_DIR/<image>.kdump
    (or .elf) first (images not packed yet), then dumps/<image>.kdump|.elf;
    else dumps/dax-chain.tar.xz for the images dax_chain_images() names,
    dumps/<group>.tar.xz for the others, which holds <image>.kdump files (uncompressed
    kdump format; xz over the whole tar lets images share the dictionary),
    unpacked into the cache by scripts/vectors/unpack-dumps.sh."""
    for d in filter(None, [os.environ.get("MMC_VECTOR_DIR"), os.path.join(TOP, "dumps")]):
        for ext in (".kdump", ".elf"):
            p = os.path.join(d, image + ext)
            if os.path.exists(p):
                return p
    g = group_of(image)
    if image in dax_chain_images():
        g = "dax-chain"
    if not os.path.exists(os.path.join(TOP, "dumps", g + ".tar.xz")):
        return None
    d = unpacked(g)
    if not d:
        return None
    p = os.path.join(d, image + ".kdump")
    return p if os.path.exists(p) else None


class Snapshots:
    """A test's snapshots of committed images, each made once (with the
    saved layout of the image's kernel) into work, the test's directory,
    which it sets before the first call.  snap(image): the file, or None
    when the dump or the layout is not there or the CLI exits with another
    code than ok_rcs (0; 4 too for a test that takes incomplete images:
    the file is written); that last one is a failed result of tap named
    fail % image."""

    def __init__(self, tap, fail, ok_rcs=(0,)):
        self.tap, self.fail, self.ok_rcs = tap, fail, ok_rcs
        self.work = None
        self.made = {}

    def __call__(self, image):
        if image in self.made:
            return self.made[image]
        d = dump_path(image)
        path = None
        if d and os.path.exists(layout_of(image)):
            path = os.path.join(self.work, image + ".snap")
            r = subprocess.run([CLI, "snapshot", "-q", "-o", path, layout_of(image), d],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode not in self.ok_rcs:
                self.tap(False, self.fail % image, r.stdout.decode())
                path = None
        self.made[image] = path
        return path


def cli_diff(a, b, *opts, env=None):
    """memmapcheck diff OPTS a b, chunk by chunk unless env sets
    MEMMAPCHECK_PER_PAGE (the environment's own is dropped): the finished
    process, its output as bytes."""
    e = dict(os.environ)
    e.pop("MEMMAPCHECK_PER_PAGE", None)
    if env:
        e.update(env)
    return subprocess.run([CLI, "diff"] + list(opts) + [a, b],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)


def _size_pfns(s):
    """standard-hvo.sh's sizes and addresses (256M, 4G, 0x100000000) in pfns."""
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)([MG]?)", s)
    v = int(m.group(1), 0)
    v <<= {"M": 20, "G": 30, "": 20 if not s.startswith("0x") else 0}[m.group(2)]
    return v // HVO_PAGE


HVO_PAGE = 4096
HVO_STRUCT_PAGE = 64                # sizeof(struct page) on x86_64
HVO_BLOCK = (128 << 20) // HVO_PAGE  # a memory block's pfns: x86_64 below 64 GiB
                                    # (probe_memory_block_size())


def hvo_guest():
    """What scripts/prove/guest/layouts/standard-hvo.sh says the guest holds at
    dump time: "pools" {order: (nr, free)}; "hotplug" the DIMM's (start, end)
    pfns; "huge2m" the 2 MiB folios allocated on it; "blocks" its memory
    blocks' (start, end); "memmaps" each block's self-hosted memmap, the
    PFN_UP(block pages * sizeof(struct page) / PAGE_SIZE) pfns at its start
    (memory_block_memmap_on_memory_pages())."""
    path = os.path.join(TOP, "scripts", "prove", "guest", "layouts", "standard-hvo.sh")
    hug = plug = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "hugetlb":
                hug = w[1:]
            elif w and w[0] == "hotplug":
                plug = w[1:]
    kv = {}
    for x in hug[2:] + plug[2:]:
        k, _, v = x.partition("=")
        kv[k] = int(v)
    demote = kv.get("demote1g", 0)
    nr2 = int(hug[0]) + kv.get("add2m", 0) - kv.get("free2m", 0) + 512 * demote + kv.get("huge2m", 0)
    nr1 = int(hug[1]) - demote
    start, size = _size_pfns(plug[0]), _size_pfns(plug[1])
    blocks = [(start + k, start + k + HVO_BLOCK) for k in range(0, size, HVO_BLOCK)]
    memmap = HVO_BLOCK * HVO_STRUCT_PAGE // HVO_PAGE
    return {
        "pools": {9: (nr2, nr2 - kv.get("file2m", 0) - kv.get("anon2m", 0)),
                  18: (nr1, nr1 - kv.get("file1g", 0))},
        "hotplug": (start, start + size),
        "huge2m": kv.get("huge2m", 0),
        "blocks": blocks,
        "memmaps": [(s, s + memmap) for s, _ in blocks],
    }


class HvoOracle:
    """scripts/oracle/oracle.py hvo (drgn over a kernel's debug vmlinux) on
    the cache's FULL captures of issue 19's images: the second
    implementation that tests/hugetlb.t and tests/hvo-lint.t hold the tool,
    run on the committed trimmed dumps, against.  Its answers are recorded
    in test-vectors/hvo-oracle/KEY.json.xz, so that the tests need neither
    the 600 MB vmlinux files nor the full dumps:

      default            read the record (a missing one fails);
      MMC_HVO_LIVE=1     (make check-hvo) run the oracle again on the full
                         dumps and require the recorded answer; where a
                         vmlinux, a full dump or drgn is missing, say so
                         (SKIP) and read the record;
      MMC_HVO_RECORD=1   run it and write the record.

    A record is the oracle's JSON (`check`, which prints text, as {"exit",
    "out"}), with the cache's path written as $CACHE."""

    RECORDS = os.path.join(TOP, "test-vectors", "hvo-oracle")
    # drgn is in Debian's python3-drgn, for /usr/bin/python3 (doc/ORACLE.md)
    PYTHON = "/usr/bin/python3"

    def __init__(self, tap):
        self.tap = tap
        self.record = os.environ.get("MMC_HVO_RECORD") == "1"
        self.live = self.record or os.environ.get("MMC_HVO_LIVE") == "1"
        self._drgn = None

    @staticmethod
    def full(image):
        """The cache's full capture of image, or None."""
        p = os.path.join(CACHE, "images", image + ".kdump")
        return p if os.path.exists(p) else None

    @staticmethod
    def vmlinux(image):
        p = os.path.join(kernel_dir(image), "vmlinux")
        return p if os.path.exists(p) else None

    def have_drgn(self):
        if self._drgn is None:
            self._drgn = os.path.exists(self.PYTHON) and run([self.PYTHON, "-c", "import drgn"])[0] == 0
        return self._drgn

    def path(self, key):
        return os.path.join(self.RECORDS, key + ".json.xz")

    def read(self, key):
        import json
        import lzma
        if not os.path.exists(self.path(key)):
            return None
        with lzma.open(self.path(key), "rt") as f:
            return json.load(f)

    @staticmethod
    def normal(js):
        """js with the cache's path as $CACHE (a record holds no machine's path)."""
        if isinstance(js, dict):
            return {k: HvoOracle.normal(v) for k, v in js.items()}
        if isinstance(js, list):
            return [HvoOracle.normal(v) for v in js]
        if isinstance(js, str) and js.startswith(CACHE + "/"):
            return "$CACHE" + js[len(CACHE):]
        return js

    def __call__(self, key, images, args):
        """The answer of `oracle.py hvo ARGS`, where each None in args is
        the next of images' vmlinux and full dump in turn (list and check:
        [image]; diff: [a, b]; predict: [base]), or None (the failure is
        reported)."""
        import json
        import lzma
        rel = os.path.relpath(self.path(key), TOP)
        rec = self.read(key)
        if not self.live:
            self.tap(rec is not None, "[guard] oracle %s: recorded in %s" % (key, rel),
                     "missing: MMC_HVO_RECORD=1 make check-hvo records it from the cache's full dumps")
            return rec
        need = [p for i in images for p in (self.vmlinux(i), self.full(i))]
        if not self.have_drgn() or None in need:
            self.tap.skip("oracle %s not run again: %s" % (
                key, "no drgn in %s" % self.PYTHON if not self.have_drgn() else
                "no vmlinux or full dump of %s in %s" % (" ".join(images), CACHE)),
                "oracle %s" % key)
            self.tap(rec is not None, "[guard] oracle %s: recorded in %s" % (key, rel))
            return rec
        it = iter(need)
        argv = [next(it) if a is None else a for a in args]
        rc, out, err = run([self.PYTHON, os.path.join(TOP, "scripts", "oracle", "oracle.py"), "hvo"] + argv)
        if not self.tap(rc in (0, 1) and (rc == 0 or args[0] == "check"),
                        "[guard] oracle hvo %s runs on the full dumps (exit %d)" % (key, rc), err):
            return rec
        js = self.normal({"exit": rc, "out": out} if args[0] == "check" else json.loads(out))
        if self.record:
            os.makedirs(self.RECORDS, exist_ok=True)
            with lzma.open(self.path(key), "wt", preset=9) as f:
                json.dump(js, f, sort_keys=True, separators=(",", ":"))
            rec = js
        self.tap(rec == js, "[oracle] oracle %s on the full dumps gives its record %s" % (key, rel),
                 "the record differs (or is missing): MMC_HVO_RECORD=1 make check-hvo rewrites it")
        return js
