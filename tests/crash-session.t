#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""memmapcheck.so in a long crash session, the way a person uses it.

1. ^C: crash is driven through a pipe, as a terminal would; 40 times a
   `memmapcheck snapshot -f` (a fresh walk) is interrupted with SIGINT at
   delays spread over the length of one walk, and `memmapcheck show` a few
   times while it prints; then the session must still work and give the
   same answer as before: `memmapcheck diff BASE` identical, and a new
   snapshot identical to the first (CLI diff).  crash's SIGINT handler
   longjmps out of the command (crash-ext/memmapcheck.c says how nothing is
   leaked or left half-built); RSS is compared before and after.
2. valgrind memcheck: a session of MMC_CRASH_VALGRIND_CMDS (default 2000)
   mixed commands, good and bad, under valgrind; no error and no leak
   whose stack is in memmapcheck.so (crash 8.0.2 has errors of its own at
   start-up: counted apart), and RSS flat between two points.  Slow (crash
   and gdb load a 600 MB debug vmlinux under valgrind): skipped loudly
   unless MMC_CRASH_VALGRIND=1 (make check sets it).

Per crash found (8.0.2 for the 6.1 dumps, 9.x for 6.12 too).  Anything
absent is a loud SKIP.
"""
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import BUILD, CACHE, CLI, Tap, unpacked  # noqa: E402

tap = Tap(diag_lines=20, diag_last=True)


def crash_version(c):
    try:
        out = subprocess.run([c, '--version'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=60).stdout.decode()
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'^crash (\S+)', out, re.M)
    return m.group(1) if m else None


class Session:
    """crash on a pipe, commands in, output read up to a marker."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.buf = b''
        self.marks = 0

    def send(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def mark(self, timeout, retry=False):
        """Everything the commands sent so far printed.  retry: a ^C that
        lands while crash reads its input may take the marker line with
        it (crash's restart drops the line in hand): ask again, once a
        minute."""
        start = len(self.buf)
        end = time.time() + timeout
        while True:
            self.marks += 1
            tag = '@@ mark %d' % self.marks
            self.send('!echo %s\n' % tag)
            again = time.time() + 60 if retry else end
            while tag.encode() not in self.buf[start:]:
                now = time.time()
                if now >= end:
                    raise TimeoutError('no "%s" after %ds: %r' % (tag, timeout, self.buf[-400:]))
                if now >= again:
                    break
                r, _, _ = select.select([self.p.stdout], [], [], min(end, again) - now)
                if not r:
                    continue
                chunk = os.read(self.p.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError('crash ended: %r' % self.buf[-400:])
                self.buf += chunk
            else:
                return self.buf[start:].decode(errors='replace').split(tag)[0]

    def rss_kb(self):
        for line in open('/proc/%d/status' % self.p.pid):
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
        return 0

    def close(self):
        try:
            self.send('q\n')
            self.p.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()


def interrupts(crash, ver, so, vmlinux, dump, work):
    name = '%s, %s' % (ver, os.path.basename(dump))
    s = Session([crash, '-s', vmlinux, dump])
    try:
        out = s.mark(120)
        s.send('extend %s\nmemmapcheck snapshot -o %s/base.snap\n' % (so, work))
        out = s.mark(120)
        tap('memmapcheck: wrote' in out, '%s: extension loaded, first snapshot' % name, out)
        # a walk's time: a snapshot and its marker, less a marker alone
        # (crash runs `!echo` through a shell, as long as a small walk)
        t0 = time.time()
        s.mark(120)
        alone = time.time() - t0
        t0 = time.time()
        s.send('memmapcheck snapshot -f -o %s/t.snap\n' % work)
        s.mark(600)
        walk = max(time.time() - t0 - alone, 0.01)
        rss0 = s.rss_kb()
        cut = cmds = tries = 0
        scale = walk
        # 40 interrupts at delays spread over 0-1.1 walks; a ^C that
        # lands after the walk shrinks the spread, so the measurement's
        # error cannot leave the walks uninterrupted (at most 80 tries)
        while tries < 40 or (cut < 10 and tries < 80):
            s.send('memmapcheck snapshot -f -o %s/x.snap\n' % work)
            time.sleep(scale * (tries % 10) / 8.0)
            os.kill(s.p.pid, signal.SIGINT)
            time.sleep(0.2)
            out = s.mark(600, retry=True)
            landed = out.count('interrupted after')
            cut += landed
            cmds += out.count('memmapcheck: interrupted')
            if not landed and tries % 10:
                scale *= 0.85
            tries += 1
        for i in range(6):
            s.send('memmapcheck show\n')
            time.sleep(0.002 * i)
            os.kill(s.p.pid, signal.SIGINT)
            time.sleep(0.2)
            s.mark(600, retry=True)
        s.send('memmapcheck show | head -2\nmemmapcheck lint -j | head -1\n')
        s.mark(600)
        rss1 = s.rss_kb()
        # delays spread over 0-1.1 walks: most land inside one; a quarter
        # at least, or the test did not interrupt walks
        tap(cut >= 10, '%s: %d of %d walks (%.2f s each) cut short by ^C, %d commands interrupted'
            % (name, cut, tries, walk, cmds))
        s.send('memmapcheck diff %s/base.snap\n' % work)
        out = s.mark(120)
        tap(re.search(r'^identical: ', out, re.M) is not None,
            '%s: after the interrupts, diff against the first snapshot: identical' % name, out)
        s.send('memmapcheck snapshot -o %s/after.snap\n' % work)
        out = s.mark(120)
        d = subprocess.run([CLI, 'diff', '%s/base.snap' % work, '%s/after.snap' % work],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        tap(d.returncode == 0, '%s: a snapshot made after them equals the first (CLI diff exit %d)'
            % (name, d.returncode), d.stdout.decode())
        tap(rss1 - rss0 < 8192, '%s: RSS %d KiB -> %d KiB over %d interrupted commands'
            % (name, rss0, rss1, tries + 6))
    except (TimeoutError, EOFError) as e:
        tap(False, '%s: the session kept answering' % name, str(e))
    finally:
        s.close()


def mixed_commands(work, count):
    """count commands: a fresh walk and a lint every 100, a diff every 25,
    the rest cheap ones, half of them wrong (bad options, missing and
    wrong files, ranges that do not exist, a device as -o)."""
    cheap = [
        'memmapcheck ranges > /dev/null',
        'memmapcheck bogus',
        'memmapcheck diff %s/nonexistent.snap' % work,
        'memmapcheck show -r 99999',
        'memmapcheck diff -r 1 %s/base.snap' % work,
        'memmapcheck show -n -1',
        'memmapcheck snapshot -o /dev/null',
        'memmapcheck diff %s/notasnap' % work,
        'memmapcheck show -r 1 > /dev/null',
        'memmapcheck ranges -j > /dev/null',
    ]
    cmds = []
    for i in range(count):
        if i % 100 == 0:
            cmds.append('memmapcheck snapshot -f -o %s/loop.snap > /dev/null' % work)
        elif i % 100 == 50:
            cmds.append('memmapcheck lint -j > /dev/null')
        elif i % 25 == 10:
            cmds.append('memmapcheck diff %s/base.snap > /dev/null' % work)
        else:
            cmds.append(cheap[i % len(cheap)])
    return cmds


def under_valgrind(crash, ver, so, vmlinux, dump, work):
    name = '%s, %s' % (ver, os.path.basename(dump))
    count = int(os.environ.get('MMC_CRASH_VALGRIND_CMDS', '2000'))
    log = os.path.join(work, 'valgrind.log')
    with open(os.path.join(work, 'notasnap'), 'w') as f:
        f.write('not a snapshot\n')
    # the extension reads the dump file through libkdumpfile: its 0.5.1
    # kdump_free() bug is suppressed as in the other valgrind runs
    supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'valgrind.supp')
    s = Session(['valgrind', '--tool=memcheck', '--leak-check=full',
                 '--suppressions=' + supp,
                 '--num-callers=30', '--log-file=' + log, crash, '-s', vmlinux, dump])
    try:
        s.mark(7200)
        s.send('extend %s\nmemmapcheck snapshot -o %s/base.snap\n' % (so, work))
        s.mark(3600)
        cmds = mixed_commands(work, count)
        half = count // 4
        for c in cmds[:half]:
            s.send(c + '\n')
        s.mark(7200)
        rss0 = s.rss_kb()
        t0 = time.time()
        for c in cmds[half:]:
            s.send(c + '\n')
        out = s.mark(14400)
        rss1 = s.rss_kb()
        secs = time.time() - t0
        s.send('extend -u %s\n' % os.path.basename(so))
        s.mark(600)
    except (TimeoutError, EOFError) as e:
        tap(False, '%s: %d commands under valgrind' % (name, count), str(e))
        s.p.kill()
        return
    s.close()
    text = open(log).read()
    blocks = re.split(r'\n==\d+== \n', text)
    ours = [b for b in blocks if 'memmapcheck.so' in b or 'mmc_' in b]
    errors = [b for b in ours if re.search(r'Invalid|uninitialised|Mismatched|overlap|free\(\)', b)]
    leaks = [b for b in ours if re.search(r'definitely lost|indirectly lost', b)]
    theirs = len([b for b in blocks if re.search(r'^==\d+== (Invalid|Conditional|Use of)', b, re.M)]) - len(errors)
    tap(not errors, '%s: %d commands under valgrind memcheck: %d errors in memmapcheck.so (crash\'s own: %d)'
        % (name, count, len(errors), theirs), '\n\n'.join(errors[:3]))
    tap(not leaks, '%s: no leak from memmapcheck.so at exit (extend -u, then quit)' % name,
        '\n\n'.join(leaks[:3]))
    tap(rss1 - rss0 < 16384, '%s: RSS %d KiB -> %d KiB over the last %d commands (%.0f s)'
        % (name, rss0, rss1, count - half, secs))


def main():
    crashes = []
    for c in (os.environ.get('MMC_CRASHES') or
              '/usr/bin/crash %s/crash-9/root/usr/bin/crash' % CACHE).split():
        v = crash_version(c) if os.access(c, os.X_OK) else None
        so = os.path.join(BUILD, 'crash-ext', v or '-', 'memmapcheck.so')
        if not v:
            tap.skip('crash %s absent' % c)
        elif not os.path.exists(so):
            tap.skip('crash %s: no memmapcheck.so built at %s' % (v, so))
        else:
            crashes.append((c, v, so))
    if not os.access(CLI, os.X_OK):
        tap.skip('no CLI at %s' % CLI)
        crashes = []
    pairs = []
    for c, v, so in crashes:
        if v.startswith('8.'):
            d = unpacked('6.1-stock')
            vm = os.path.join(CACHE, 'kernels', '6.1-stock', 'vmlinux')
            img = d and os.path.join(d, '6.1-stock-b1.kdump')
        else:
            d = unpacked('6.12')
            vm = os.path.join(CACHE, 'kernels', '6.12-base', 'vmlinux')
            img = d and os.path.join(d, '6.12-base-b1.kdump')
        if not img or not os.path.exists(img) or not os.path.exists(vm):
            tap.skip('crash %s: needs %s and %s' % (v, img, vm))
            continue
        pairs.append((c, v, so, vm, img))
    for c, v, so, vm, img in pairs:
        with tempfile.TemporaryDirectory() as work:
            interrupts(c, v, so, vm, img, work)
    if os.environ.get('MMC_CRASH_VALGRIND', '0') != '1':
        tap.skip('valgrind session: MMC_CRASH_VALGRIND=1 runs it (tens of minutes)')
    elif not subprocess.run(['sh', '-c', 'command -v valgrind'],
                            stdout=subprocess.DEVNULL).returncode == 0:
        tap.skip('valgrind not installed')
    elif pairs:
        c, v, so, vm, img = pairs[0]
        with tempfile.TemporaryDirectory() as work:
            under_valgrind(c, v, so, vm, img, work)
    return tap.plan()


if __name__ == '__main__':
    sys.exit(main())
