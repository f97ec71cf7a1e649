#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The per-test time table printed at the end of make check's runs: the
lines tests/timed-run appended to FILE, slowest first, with the total.

usage: tests/time-table.py FILE [TITLE]
"""
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = []
    try:
        with open(argv[1]) as f:
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) == 4:
                    rows.append((float(c[0]), float(c[1]), int(c[2]), c[3]))
    except OSError as e:
        print("time-table: %s" % e, file=sys.stderr)
        return 2
    rows.sort(key=lambda r: (-r[0], r[3]))
    title = argv[2] if len(argv) > 2 else "tests"
    print("%s: seconds per test, slowest first" % title)
    print("%9s %9s  %s" % ("wall", "CPU", "test"))
    for wall, cpu, rc, test in rows:
        print("%9.1f %9.1f  %s%s" % (wall, cpu, test, "  (exit %d)" % rc if rc else ""))
    print("%9.1f %9.1f  total of %d tests" % (sum(r[0] for r in rows),
                                                sum(r[1] for r in rows), len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
