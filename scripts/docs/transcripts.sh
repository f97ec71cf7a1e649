#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate every transcript in README.md, FINDINGS.md and doc/*.md from the
# committed material (see scripts/docs/transcripts.py for the markers).
# usage: scripts/docs/transcripts.sh [--check] [FILE...]
#   MMC_BUILD: the build dir holding memmapcheck (default build/)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check=
[ "${1:-}" = --check ] && { check=--check; shift; }
if [ $# -eq 0 ]; then
	set -- "$top/README.md" "$top/FINDINGS.md"
	for f in "$top"/doc/*.md; do
		grep -qE '^<!-- (transcript|generated)' "$f" && set -- "$@" "$f"
	done
fi
exec /usr/bin/python3 "$top/scripts/docs/transcripts.py" $check "$@"
