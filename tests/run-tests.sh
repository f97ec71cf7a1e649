#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One test run of make check (check-normal, check-san, check-quick): prove
# with its timer, each test through tests/timed-run, then the table of the
# seconds each test took (tests/time-table.py), slowest first, and
# prove's closing "Result:" line repeated as the last line.
# usage: tests/run-tests.sh TITLE [PROVE-OPTION...] TEST...
# MMC_RUN_CACHE: the directory the run's tests share what they compute
# alike (scripts/oracle/oracle.py's predictions); make check sets one for both of
# its runs, else the run makes its own and removes it.
# Exit status: prove's.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
title=${1:?usage: run-tests.sh TITLE [PROVE-OPTION...] TEST...}
shift
times=$(mktemp "${TMPDIR:-/tmp}/mmc-times.XXXXXX")
own=
if [ -z "${MMC_RUN_CACHE:-}" ]; then
	own=$(mktemp -d "${TMPDIR:-/tmp}/mmc-run.XXXXXX")
	export MMC_RUN_CACHE=$own
fi
trap 'rm -rf "$times" $own' EXIT
MMC_TIMES=$times prove --timer --exec "$top/tests/timed-run" "$@"
rc=$?
echo
python3 "$top/tests/time-table.py" "$times" "$title"
# prove's verdict again, so that the run still ends with a line CI reads
if [ "$rc" = 0 ]; then echo "Result: PASS"; else echo "Result: FAIL"; fi
exit $rc
