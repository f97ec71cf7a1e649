#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The damage matrix of scripts/oracle/damage.py (`damage.py run`): the
damaged copies of a dump, each with the outcome damage.py's oracle says its
damage implies, and the run of memmapcheck on each against that outcome.

A case is planned first (what it damages, its class, the pfns it reaches)
and written only when it runs, as spans of its source file (the committed
dump or one of the forms damage.py writes) with bytes replaced; it is
removed when checked, so that at most one copy per worker exists at a time.
The cases run MMC_DAMAGE_JOBS at a time (default 2); TAP comes out in plan
order.
"""
import bisect
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from damage import DD_COMP, PAGE, KDump, Oracle, read_flat, write_elf, write_flat, write_zlib

# ---------------------------------------------------------------- cases

class Case:
    """pfns: the compared pfns whose struct pages the damage reaches; all
    the struct pfns it reaches, never-compared ones too, may be unread.
    make: how its file is written when it runs (a recipe of copy_of()),
    None for a file that exists (an undamaged form)."""

    def __init__(self, name, form, path, cls, pfns=(), note='', reach=None, says=None):
        self.name, self.form, self.path = name, form, path
        self.cls, self.note = cls, note
        self.pfns = pfns if isinstance(pfns, set) else set(pfns)
        self.reach = self.pfns if reach is None else \
            reach if isinstance(reach, set) else set(reach)
        # a struct case whose pages must come out unreadable (never read
        # from one of two claims), with a warning holding this text
        self.says = says
        self.make = None


def copy_of(src, edits=(), cut=None, spans=None):
    """The recipe of a copy of src (its first `cut` bytes, or the byte
    spans [(offset, size)] of it one after another) with bytes replaced
    ([(offset in the copy, bytes)])."""
    if spans is None:
        spans = [(0, os.path.getsize(src) if cut is None else cut)]
    return src, list(spans), list(edits)


def with_recipes(cases, recipes):
    """Each case whose file has a recipe gets it (written when it runs)."""
    for c in cases:
        c.make = recipes.get(c.path, c.make)
    return cases


def write_copy(dst, recipe):
    """Write a recipe of copy_of(): in the kernel (sendfile), no bytes
    through this process but the replaced ones."""
    src, spans, edits = recipe
    with open(src, 'rb') as i, open(dst, 'wb') as o:
        for off, size in spans:
            end = off + size
            while off < end:
                n = os.sendfile(o.fileno(), i.fileno(), off, end - off)
                if n <= 0:
                    raise ValueError('%s: shorter than %d bytes' % (src, end))
                off += n
        for off, new in edits:
            os.pwrite(o.fileno(), new, off)


def pfn_by_off(d):
    """The pfn of each data block in d.by_off's order (made once per dump)."""
    if getattr(d, 'pfn_by_off', None) is None:
        d.pfn_by_off = [d.pfns[i] for _off, _size, i in d.by_off]
    return d.pfn_by_off


def frames_hit_kdump(d, lo, hi, cut=False):
    """pfns whose descriptor or data lies in [lo, hi) (cut: or beyond)."""
    if cut:
        hi = 1 << 64
    hit = set()
    first = max(0, (lo - d.desc_off) // 24)
    last = min(len(d.desc), max(0, (hi - d.desc_off + 23) // 24))
    hit.update(d.pfns[first:last])
    # data blocks starting before hi and ending after lo: those starting
    # in (lo, hi) all, those starting at or before lo when they reach past it
    j = bisect.bisect_left(d.data_offs, lo - d.max_block)
    k = max(j, bisect.bisect_right(d.data_offs, lo))
    for off, size, i in d.by_off[j:k]:
        if off + size > lo:
            hit.add(d.pfns[i])
    hit.update(pfn_by_off(d)[k:max(k, bisect.bisect_left(d.data_offs, hi))])
    return hit


def desc_users(d):
    """How many descriptors point at each data offset (made once per dump)."""
    if getattr(d, 'desc_users', None) is None:
        d.desc_users = {}
        for off, _size, _f, _pf in d.desc:
            d.desc_users[off] = d.desc_users.get(off, 0) + 1
    return d.desc_users


def pick(d, oracle, cls, avoid_shared=True):
    """A dumped pfn of a class whose data block is its own and not zeros."""
    count = desc_users(d)
    if cls == 'meta':
        order = sorted(oracle.meta, key=lambda p: ('page table' in oracle.meta[p], p))
    elif cls == 'struct':
        order = sorted(oracle.struct, key=lambda p: (len(oracle.struct[p]), p))
    else:
        busy = set(oracle.meta) | set(oracle.struct) | oracle.shown
        order = [p for p in d.pfns if p not in busy][len(d.pfns) // 3:]
    for p in order:
        i = d.index.get(p)
        if i is None:
            continue
        off, size, _f, _pf = d.desc[i]
        if avoid_shared and count[off] > 1:
            continue
        if any(d.data[off:off + size]):
            return p
    return None


def meta_pick(d, oracle, kind):
    for p in sorted(oracle.meta):
        if kind in oracle.meta[p] and p in d.index:
            off, size, _f, _pf = d.desc[d.index[p]]
            if any(d.data[off:off + size]):
                return p
    return None


def kdump_cases(d, oracle, src, form, work):
    """Damage a kdump-compressed form: headers, descriptors, data, cuts."""
    cases, size, later = [], len(d.data), {}
    tag = lambda n: os.path.join(work, '%s-%s.kdump' % (form, n))

    def cut_case(name, at, why):
        path = tag(name)
        later[path] = copy_of(src, cut=at)
        if at < d.data_start and at < d.desc_off:
            cases.append(Case(name, form, path, 'format', note=why))
            return
        hit = frames_hit_kdump(d, at, None, cut=True)
        cls, pfns = oracle.classify(hit)
        cases.append(Case(name, form, path, cls, pfns, why, oracle.reach(hit)))

    # truncations: headers, bitmaps, descriptor table, page data, last byte
    cut_case('cut-header', 300, 'in the disk_dump_header')
    cut_case('cut-subheader', d.bs + 40, 'in the kdump_sub_header')
    cut_case('cut-bitmap', d.bitmap_off + (d.desc_off - d.bitmap_off) // 2, 'in the page bitmaps')
    cut_case('cut-desc-start', d.desc_off + 24 * 10 + 5, 'in the 11th page descriptor')
    cut_case('cut-desc-mid', (d.desc_off + d.data_start) // 2, 'in the middle of the descriptor table')
    cut_case('cut-desc-end', d.data_start - 7, 'in the last page descriptor')
    for pct in (25, 50, 75, 90):
        cut_case('cut-data-%d' % pct, d.data_start + (size - d.data_start) * pct // 100,
                 '%d%% into the page data' % pct)
    cut_case('cut-last-byte', size - 1, 'the last byte')
    # the cut just after the last byte any struct frame needs, and just before
    last_struct = max((d.desc[d.index[p]][0] + d.desc[d.index[p]][1])
                      for p in oracle.struct if p in d.index)
    if last_struct < size:
        cut_case('cut-after-struct', last_struct, 'just after the last struct page data')
    cut_case('cut-in-struct', last_struct - 100, 'inside the last struct page data')

    # header fields
    path = tag('zero-signature')
    later[path] = copy_of(src, [(0, b'\0' * 8)])
    cases.append(Case('zero-signature', form, path, 'format', note='signature zeroed'))
    path = tag('flip-block-size')
    later[path] = copy_of(src, [(428, struct.pack('<I', d.bs ^ 0x1000))])
    cases.append(Case('flip-block-size', form, path, 'format', note='block_size flipped'))
    path = tag('zero-bitmap-blocks')
    later[path] = copy_of(src, [(436, b'\0' * 4)])
    cases.append(Case('zero-bitmap-blocks', form, path, 'format', note='bitmap_blocks zeroed'))

    # page descriptors and page data of a frame of each class
    for cls in ('struct', 'meta', 'other'):
        p = pick(d, oracle, cls)
        if p is None:
            continue
        i = d.index[p]
        dpos = d.desc_pos(p)
        off, sz, _f, _pf = d.desc[i]
        want = oracle.classify({p}) + ('', oracle.reach({p}))
        path = tag('zero-desc-%s' % cls)
        later[path] = copy_of(src, [(dpos, b'\0' * 24)])
        cases.append(Case('zero-desc-%s' % cls, form, path, want[0], want[1],
                          'descriptor of pfn %#x zeroed' % p, want[3]))
        # a shorter size: raw data is then not a page, compressed data
        # is cut (a longer one would still decompress)
        path = tag('flip-desc-size-%s' % cls)
        later[path] = copy_of(src, [(dpos + 8, struct.pack('<I', sz - 64 if sz > 64 else sz // 2))])
        cases.append(Case('flip-desc-size-%s' % cls, form, path, want[0], want[1],
                          'size of pfn %#x flipped' % p, want[3]))
        # page_flags (the 4th field) is not read by libkdumpfile
        path = tag('flip-desc-pageflags-%s' % cls)
        later[path] = copy_of(src, [(dpos + 16, b'\xff' * 8)])
        cases.append(Case('flip-desc-pageflags-%s' % cls, form, path, 'other',
                          note='unused page_flags of pfn %#x flipped' % p))
        orig = d.data[off:off + sz]
        path = tag('zero-data-%s' % cls)
        later[path] = copy_of(src, [(off, b'\0' * sz)])
        cases.append(Case('zero-data-%s' % cls, form, path, want[0], want[1],
                          'data of pfn %#x zeroed' % p, want[3]))
        flip = bytes(b ^ 0xff for b in orig[sz // 2:sz // 2 + 16])
        path = tag('flip-data-%s' % cls)
        later[path] = copy_of(src, [(off + sz // 2, flip)])
        if cls == 'meta' and not d.desc[i][2] & DD_COMP:
            # 16 raw bytes of a kernel structure may be ones nobody reads
            want2 = ('meta-or-clean', set(), '', set())
        else:
            want2 = want
        cases.append(Case('flip-data-%s' % cls, form, path, want2[0], want2[1],
                          '16 bytes of pfn %#x data flipped (%s)' %
                          (p, 'compressed' if d.desc[i][2] else 'raw'), want2[3]))
    # the kernel structures one by one: zeroed, each must stop discovery
    for kind in ('xa_node', 'dev_pagemap', 'page table (vmemmap)', 'kernel variable vmemmap_base'):
        p = meta_pick(d, oracle, kind)
        if p is None:
            continue
        off, sz, _f, _pf = d.desc[d.index[p]]
        name = 'zero-%s' % kind.replace(' ', '-').replace('(', '').replace(')', '')
        path = tag(name)
        later[path] = copy_of(src, [(off, b'\0' * sz)])
        cases.append(Case(name, form, path, 'meta', note='%s frame %#x zeroed' % (kind, p)))
    return with_recipes(cases, later)


def flat_cases(d, oracle, flat, segs, form, work):
    """Drop one segment (its bytes become a hole in the reassembled dump),
    or end the stream early."""
    cases, later = [], {}
    size_flat = os.path.getsize(flat)
    tag = lambda n: os.path.join(work, '%s-%s.flat' % (form, n))
    by_class = {}
    for pos, off, size in segs:
        if off < d.desc_off:
            continue
        hit = frames_hit_kdump(d, off, off + size)
        cls, pfns = oracle.classify(hit)
        if cls not in by_class or (cls == 'struct' and len(pfns) < len(by_class[cls][3])):
            by_class[cls] = (pos, off, size, pfns, hit)
    for cls, (pos, off, size, pfns, hit) in sorted(by_class.items()):
        path = tag('drop-segment-%s' % cls)
        later[path] = copy_of(flat, spans=[(0, pos), (pos + 16 + size, size_flat - pos - 16 - size)])
        cases.append(Case('drop-segment-%s' % cls, form, path, cls, pfns,
                          'segment for dump bytes %d-%d left out' % (off, off + size),
                          oracle.reach(hit)))
    # the stream cut in a segment near the end: everything after is a hole
    pos, off, size = segs[len(segs) * 9 // 10]
    path = tag('cut-stream')
    later[path] = copy_of(flat, cut=pos + 16 + size // 2)
    hit = frames_hit_kdump(d, off + size // 2, None, cut=True)
    cls, pfns = oracle.classify(hit)
    cases.append(Case('cut-stream', form, path, cls, pfns, 'stream cut in a segment',
                      oracle.reach(hit)))
    path = tag('no-end-marker')
    later[path] = copy_of(flat, cut=size_flat - 16)
    cases.append(Case('no-end-marker', form, path, 'other', note='end marker missing'))
    path = tag('bad-segment-header')
    pos = segs[len(segs) // 2][0]
    later[path] = copy_of(flat, [(pos, struct.pack('>qq', -5, 16))])
    cases.append(Case('bad-segment-header', form, path, 'format',
                      note='segment header with a negative offset'))
    return with_recipes(cases, later)


def elf_cases(d, oracle, elf, table, dataoff, end, work):
    cases, later = [], {}
    tag = lambda n: os.path.join(work, 'elf-%s.elf' % n)
    with open(elf, 'rb') as f:
        data = f.read(dataoff)        # the headers and notes

    def seg_frames(p, n):
        return set(range(p, p + n))

    def cut(name, at, why):
        path = tag(name)
        later[path] = copy_of(elf, cut=at)
        if at < dataoff:
            cases.append(Case(name, 'elf', path, 'format', note=why))
            return
        hit = set()
        for _ph, p, n, off in table:
            if off + n * PAGE > at:
                first = max(0, (at - off) // PAGE)
                hit |= set(range(p + first, p + n))
        cls, pfns = oracle.classify(hit)
        cases.append(Case(name, 'elf', path, cls, pfns, why, oracle.reach(hit)))

    cut('cut-phdrs', 64 + 56 * 2 + 10, 'in the program headers')
    cut('cut-notes', 64 + 56 * (1 + len(table)) + 100, 'in the notes')
    cut('cut-data-50', dataoff + (end - dataoff) // 2, 'half way into the data')
    cut('cut-last-byte', end - 1, 'the last byte')
    best = {}
    for ph, p, n, off in table:
        cls, pfns = oracle.classify(seg_frames(p, n))
        if cls not in best or (cls == 'struct' and len(pfns) < len(best[cls][2])):
            best[cls] = (ph, p, pfns, n, oracle.reach(seg_frames(p, n)))
    # the segment table against itself (mem_extent_elf.c): outcomes from the
    # ELF's own program headers
    phdr = lambda ph: list(struct.unpack_from('<IIQQQQQQ', data, ph))

    def edited(name, edits, cls, pfns, why, reach, says=None):
        path = tag(name)
        later[path] = copy_of(elf, [(ph, struct.pack('<IIQQQQQQ', *f)) for ph, f in edits])
        cases.append(Case(name, 'elf', path, cls, pfns, why, reach, says))
    others = [t for t in table if oracle.classify(seg_frames(t[1], t[2]))[0] == 'other']
    structs = sorted((t for t in table
                      if oracle.classify(seg_frames(t[1], t[2]))[0] == 'struct'),
                     key=lambda t: t[2])
    if others and structs:
        oph, op, on, _oo = others[0]
        sph, sp, sn, soff = structs[0]
        # one page of an 'other' segment moved onto the first struct frame:
        # the same physical page twice with different bytes (the other
        # page's own frame is then in no segment: 'other' too)
        f = phdr(oph)
        f[4], f[5], f[6] = sp * PAGE, PAGE, PAGE
        hit = {sp} | seg_frames(op, on)
        cls, pfns = oracle.classify(hit)
        edited('alias-differ-struct', [(oph, f)], cls, pfns,
               'PT_LOAD of pfn %#x moved onto struct frame %#x: two contents' % (op, sp),
               oracle.reach(hit), 'map the same physical memory with different contents')
        # the same page mapped again by a copy of the struct segment's own
        # header: same bytes, nothing lost but the other page
        f = phdr(sph)
        hit = seg_frames(op, on)
        cls, pfns = oracle.classify(hit)
        edited('alias-same', [(oph, f)], cls, pfns,
               'PT_LOAD of pfn %#x replaced by a copy of the one of %#x: same bytes' % (op, sp),
               oracle.reach(hit))
        # the struct segment's data pointed at the ELF headers
        f = phdr(sph)
        f[2] = 0
        hit = seg_frames(sp, sn)
        cls, pfns = oracle.classify(hit)
        edited('load-in-headers', [(sph, f)], cls, pfns,
               'PT_LOAD of pfns %#x-%#x pointed at file offset 0' % (sp, sp + sn - 1),
               oracle.reach(hit), 'lies in the ELF header')
        # the struct segment 8 bytes up: not page-aligned, every page
        # shifted, the first 8 bytes in no segment
        f = phdr(sph)
        f[4] += 8
        hit = seg_frames(sp, sn + 1)
        cls, pfns = oracle.classify(hit)
        edited('load-misaligned', [(sph, f)], cls, pfns,
               'PT_LOAD of pfns %#x-%#x moved up 8 bytes' % (sp, sp + sn - 1),
               oracle.reach(hit), 'only partly inside the PT_LOAD segments')
    for cls, (ph, p, pfns, n, reach) in sorted(best.items()):
        path = tag('drop-load-%s' % cls)
        later[path] = copy_of(elf, [(ph, struct.pack('<I', 0))])     # PT_NULL
        cases.append(Case('drop-load-%s' % cls, 'elf', path, cls, pfns,
                          'PT_LOAD of pfns %#x-%#x dropped' % (p, p + n - 1), reach))
    return with_recipes(cases, later)


# ---------------------------------------------------------------- checking

# Sanitized builds: errors and leaks must not look like exit 1 (different).
SAN_ENV = dict(os.environ)
SAN_ENV['ASAN_OPTIONS'] = 'exitcode=86:' + os.environ.get('ASAN_OPTIONS', '')
SAN_ENV['LSAN_OPTIONS'] = 'exitcode=87:suppressions=%s:%s' % (
    os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                 'tests', 'lsan.supp'), os.environ.get('LSAN_OPTIONS', ''))


def run(cmd, timeout=300):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=SAN_ENV)
        return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        return 'timeout', '', ''


def unread_pfns(m, snap):
    rc, out, _ = run([m, 'show', '--json', snap])
    got = set()
    if rc not in (0, 4):
        return None
    for r in json.loads(out)['ranges']:
        for run_ in r['runs']:
            if run_['state'] in ('unreadable', 'unmapped'):
                got.update(range(run_['first_pfn'], run_['last_pfn'] + 1))
    return got


# run --valgrind SUPP: the snapshot of each chosen case runs under valgrind
# memcheck (exit 99 on any error it does not suppress)
VALGRIND = []


def check(m, layout, base_snap, c, work, unread0, valgrind=False):
    """(ok, outcome text, why not); unread0: pfns unread undamaged"""
    snap = c.path + '.snap'
    # not -q: the summary names the file and what could not be read
    rc, _o, err = run((VALGRIND if valgrind else []) +
                      [m, 'snapshot', '-o', snap, layout, c.path],
                      timeout=1800 if valgrind else 300)
    crash = rc not in (0, 1, 2, 3, 4) or 'Sanitizer' in err or 'runtime error' in err or \
        'Invalid read' in err or 'Invalid write' in err
    if crash:
        return False, 'rc %s' % rc, 'crashed or hung: ' + err[-300:]
    named = os.path.basename(c.path) in err
    # where in the file or the kernel: an offset, an address or a size
    located = bool(re.search(r'offset \d|0x[0-9a-f]+|\d+ bytes|needs? \d', err))
    if rc in (2, 3) or (rc == 4 and not os.path.exists(snap)):
        outcome = 'exit %d' % rc
        if c.cls in ('format', 'meta', 'meta-or-clean'):
            good = named and located
            return good, outcome, '' if good else \
                'message does not name the file and where: ' + err.strip()[-200:]
        return False, outcome, 'refused: ' + err.strip()[-300:]
    drc, dout, derr = run([m, 'diff', '--json', base_snap, snap])
    if drc not in (0, 1, 4):
        return False, 'diff rc %s' % drc, derr[-300:]
    verdict = json.loads(dout)['verdict']
    outcome = '%s (snapshot %d)' % (verdict, rc)
    if c.cls == 'format':
        return False, outcome, 'format damage not refused'
    if c.cls == 'other':
        good = rc == 0 and drc == 0
        return good, outcome, '' if good else 'expected the clean verdict'
    if c.cls == 'meta-or-clean':
        good = drc != 0 or rc == 0
        return good, outcome, ''
    if c.cls == 'meta':
        # written with exit 4: the snapshot itself says what is missing,
        # and the warning names the file
        good = rc == 4 and drc != 0 and named
        return good, outcome, '' if good else \
            'expected exit 2 or 4 naming the file: ' + err.strip()[-200:]
    if c.says is not None:
        # two claims on one page: unreadable and said, never one of them
        got = unread_pfns(m, snap) or set()
        got -= unread0
        good = rc == 4 and bool(got) and got <= c.reach and c.says in err and named
        return good, outcome + ' %d pfns unread' % len(got), '' if good else \
            'expected exit 4, only the damaged pfns unreadable and "%s": %s' % (c.says, err.strip()[-300:])
    # struct: different or incomplete, naming only those pfns
    if drc == 0:
        return False, outcome, 'identical although compared struct pages were damaged'
    got = unread_pfns(m, snap)
    if rc == 4 and got - unread0:
        got -= unread0
        good = got <= c.reach
        return good, outcome + ' %d pfns unread' % len(got), \
            '' if good else 'unreadable pfns not the damaged ones'
    groups = json.loads(dout)['groups']
    good = bool(groups) and all(g['first_pfn'] in c.pfns and g['last_pfn'] in c.pfns
                                for g in groups)
    n = json.loads(dout)['pages_differing']
    good = good and n <= len(c.pfns)
    return good, outcome + ' %d pfns differ' % n, '' if good else 'differing pfns not the damaged ones'



def makedumpfile_flat(dump, work, cache=None):
    """makedumpfile -F -d 0 DUMP (its flattened format), or None when it
    fails.  With a cache directory the output is kept there, named by the
    dump's sha256 and makedumpfile's version: the same conversion for every
    run and both builds (10-20 s of CPU each time for a 100 MB dump)."""
    path = os.path.join(work, 'makedumpfile.flat')
    key = None
    if cache:
        p = subprocess.run(['makedumpfile', '-v'], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        ver = re.search(rb'makedumpfile: version (\S+)', p.stdout)
        h = hashlib.sha256()
        with open(dump, 'rb') as f:
            for block in iter(lambda: f.read(1 << 20), b''):
                h.update(block)
        if ver:
            key = os.path.join(cache, 'makedumpfile-F-d0-%s-%s.flat'
                               % (ver.group(1).decode(), h.hexdigest()))
            if os.path.exists(key):
                # the cases' files and snapshots go to work, not the cache
                try:
                    os.link(key, path)
                except OSError:
                    shutil.copyfile(key, path)
                return path
    with open(path, 'wb') as out:
        p = subprocess.run(['makedumpfile', '-F', '-d', '0', dump],
                           stdout=out, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        return None
    if key:
        # renamed into place: a run beside this one finds all of it or none
        # (a cache that cannot be written only costs the next run the time)
        tmp = '%s.%d.tmp' % (key, os.getpid())
        try:
            os.makedirs(cache, exist_ok=True)
            shutil.copyfile(path, tmp)
            os.replace(tmp, key)
        except OSError as e:
            print('# makedumpfile -F output not kept in %s: %s' % (cache, e))
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


def plan(d, o, dump, forms, flags, work, cache=None):
    """Every case of the forms asked for, in the order they run; the forms
    damage.py writes are written here (the damaged copies when they run)."""
    cases = []
    if 'raw' in forms:
        cases += kdump_cases(d, o, dump, 'raw', work)
    if 'zlib' in forms:
        z = os.path.join(work, 'zlib.kdump')
        write_zlib(d, z)
        cases.append(Case('undamaged', 'zlib', z, 'other'))
        cases += kdump_cases(KDump(z), o, z, 'zlib', work)
    if 'flat' in forms:
        fl = os.path.join(work, 'dump.flat')
        segs = write_flat(dump, fl)
        cases.append(Case('undamaged', 'flat', fl, 'other'))
        cases += flat_cases(d, o, fl, segs, 'flat', work)
        if '--makedumpfile' in flags:
            mf = makedumpfile_flat(dump, work, cache)
            if mf:
                cases.append(Case('undamaged', 'makedumpfile -F', mf, 'other'))
                cases += flat_cases(d, o, mf, read_flat(mf), 'makedumpfile-F', work)
    if 'elf' in forms:
        e = os.path.join(work, 'dump.elf')
        table, dataoff, end = write_elf(d, o, e)
        cases.append(Case('undamaged', 'elf', e, 'other'))
        cases += elf_cases(d, o, e, table, dataoff, end, work)
    return cases


def run_main(args):
    """damage.py run ARGS (see damage.py's usage)."""
    opts = {'--forms': 'raw,zlib,flat,elf'}
    flags = set()
    i = 0
    while i < len(args):
        if args[i] in ('--makedumpfile',):
            flags.add(args[i])
            i += 1
        else:
            opts[args[i]] = args[i + 1]
            i += 2
    m, layout, dump, work = (opts['--memmapcheck'], opts['--layout'], opts['--dump'],
                             opts['--work'])
    name = os.path.basename(dump).rsplit('.', 1)[0]
    forms = opts['--forms'].split(',')
    jobs = max(1, int(os.environ.get('MMC_DAMAGE_JOBS', '2')))
    os.makedirs(work, exist_ok=True)
    d = KDump(dump)
    o = Oracle(d, layout)
    print('# %s: %d ranges, %d struct frames (%d pfns), %d meta frames' %
          (name, len(o.ranges), len(o.struct), sum(len(v) for v in o.struct.values()),
           len(o.meta)))
    sys.stdout.flush()
    base = os.path.join(work, 'base.snap')
    rc, _o, err = run([m, 'snapshot', '-q', '-o', base, layout, dump])
    results = []
    n = 0

    def report(ok, text):
        nonlocal n
        n += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, text))
        sys.stdout.flush()

    report(rc in (0, 4), '%s: snapshot of the undamaged dump (exit %s)' % (name, rc))
    undamaged_rc = rc
    unread0 = unread_pfns(m, base) or set()
    cases = plan(d, o, dump, forms, flags, work, opts.get('--cache'))
    if '--valgrind' in opts:
        VALGRIND[:] = ['valgrind', '-q', '--error-exitcode=99',
                       '--suppressions=' + opts['--valgrind']]
    vg_all = opts.get('--valgrind-cases', 'cheap') == 'all'
    seen_kinds, chosen = set(), []
    for c in cases:
        # cheap: every case refused for its format (fast under valgrind)
        # and the first of each form and class
        kind = (c.form, c.cls)
        chosen.append(bool(VALGRIND) and (vg_all or c.cls == 'format' or kind not in seen_kinds))
        seen_kinds.add(kind)

    def one(c, vg):
        """Write the case's file, check it, remove what it wrote."""
        t0 = time.time()
        try:
            if c.make is not None:
                write_copy(c.path, c.make)
            ok, outcome, why = check(m, layout, base, c, work, unread0, valgrind=vg)
        finally:
            for f in (c.path, c.path + '.snap'):
                if f.startswith(work) and os.path.exists(f) and c.name != 'undamaged':
                    os.unlink(f)
        return ok, outcome + ' %.1fs%s' % (time.time() - t0, ' valgrind' if vg else ''), why

    # the cases are independent processes on their own files: jobs at a
    # time, reported in plan order
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = [pool.submit(one, c, vg) for c, vg in zip(cases, chosen)]
        for c, fut in zip(cases, done):
            ok, outcome, why = fut.result()
            if undamaged_rc == 4 and c.cls == 'other':
                # an image that is incomplete undamaged stays so
                ok = ok or outcome.startswith('incomplete')
            report(ok, '%s: %s %s [%s%s]: %s%s' % (name, c.form, c.name, c.cls,
                                                    ' %d pfns' % len(c.pfns) if c.pfns else '',
                                                    c.note, outcome and ' -> ' + outcome))
            if not ok:
                print('# ' + why.replace('\n', '\n# '))
            results.append((c.form + ' ' + c.name, c.cls, outcome, ok))
    print('1..%d' % n)
    if '--table' in opts:
        with open(opts['--table'], 'a') as t:
            for row in results:
                t.write('%s\t%s\t%s\t%s\t%s\n' % (name, row[0], row[1], row[2],
                                                  'ok' if row[3] else 'WRONG'))
    return 0 if all(r[3] for r in results) else 1


if __name__ == '__main__':
    sys.exit(run_main(sys.argv[2:] if sys.argv[1:2] == ['run'] else sys.argv[1:]))
