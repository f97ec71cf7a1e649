#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every transcript in README.md, FINDINGS.md and doc/*.md must be what the
# tool (and the helpers named in scripts/docs/transcripts.py) print today on the
# committed material: scripts/docs/transcripts.sh regenerates them, this test
# reruns each marked command and compares (run times and rates masked).
# Transcripts marked as recorded (crash sessions needing absent material,
# benchmarks, live guests) are reported as skipped, as are those whose
# material (Debian's 6.1 debug vmlinux, crash) is not in the cache.
# The expected text is what the documentation claims, not the tool's
# output: a failing line means the documentation went stale, or the tool
# changed what it prints.
# First, doc/DESIGN.md's file table against the tree: every engine/*.[ch]
# and cli/*.[ch] has a row, and every row names a file that exists ([proof]:
# the expectation is the tree itself).
set -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export MMC_BUILD=${MMC_BUILD:-$top/build}

python3 - "$top" <<'PY'
import glob, os, re, sys
top = sys.argv[1]
design = os.path.join(top, "doc", "DESIGN.md")
rows = set(re.findall(r"^\| `((?:engine|cli)/[^`]+)` \|", open(design).read(), re.M))
files = {os.path.relpath(p, top) for d in ("engine", "cli")
         for p in glob.glob(os.path.join(top, d, "*.[ch]"))}
missing, stale = sorted(files - rows), sorted(rows - files)
print("%sok 1 - [proof] every engine and cli file (%d) has a row in doc/DESIGN.md's file table%s"
      % ("not " if missing else "", len(files), ": missing " + " ".join(missing) if missing else ""))
print("%sok 2 - [proof] doc/DESIGN.md's file table names only files that exist%s"
      % ("not " if stale else "", ": no " + " ".join(stale) if stale else ""))
sys.exit(1 if missing or stale else 0)
PY
table=$?

"$top/scripts/docs/transcripts.sh" --check | awk -v k=2 '
/^(not )?ok [0-9]+/ { match($0, /[0-9]+/); print substr($0, 1, RSTART - 1) (substr($0, RSTART, RLENGTH) + k) substr($0, RSTART + RLENGTH); next }
/^1\.\.[0-9]+/ { s = substr($0, 4); match(s, /^[0-9]+/); n = substr(s, 1, RLENGTH) + 0; rest = substr(s, RLENGTH + 1);
		  if (rest != "") print "# transcripts:" rest; print "1.." (n + k); next }
{ print }'
transcripts=$?
[ $table = 0 ] && [ $transcripts = 0 ]
