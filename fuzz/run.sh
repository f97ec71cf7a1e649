#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every fuzz target for a bounded time; print execs and crashes each.
# usage: fuzz/run.sh FUZZ_BUILD_DIR SECONDS [TARGET...]
#   FUZZ_RUNS=N: also stop a target after N executions (make fuzz FUZZ_RUNS=N)
# Seeds: fuzz/mkseeds.py from the committed vectors (dumps unpacked by
# scripts/vectors/unpack-dumps.sh when they can be), plus fuzz/corpus/<target>/ and
# the reproducers in fuzz/crashes/<target>/.  A crash leaves its input in
# FUZZ_BUILD_DIR/crashes/<target>/: turn it into fuzz/crashes/<target>/.
set -u
LSAN_OPTIONS=${LSAN_OPTIONS:-}
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: run.sh FUZZ_BUILD_DIR SECONDS [TARGET...]}
secs=${2:?seconds}
shift 2
targets=${*:-snapshot layout decode walk dump patterns open}
seeds=$B/seeds
# (seeds made before fuzz_patterns existed lack its directory)
if [ ! -d "$seeds/patterns" ]; then
	args=()
	for g in 6.1-stock 6.12 7.2; do
		d=$("$top/scripts/vectors/unpack-dumps.sh" "$g" 2> /dev/null) || continue
		case $g in
		6.1-stock) args+=("$d/6.1-stock-b1.kdump" "$top/test-vectors/layouts/6.1-stock.layout") ;;
		*) args+=("$d/$g-base-b1.kdump" "$top/test-vectors/layouts/$g-base.layout") ;;
		esac
	done
	python3 "$top/fuzz/mkseeds.py" "$seeds" "${args[@]}" || exit 1
fi
declare -A maxlen=([snapshot]=65536 [layout]=16384 [decode]=4096 [walk]=1024 [dump]=400000
	[patterns]=65536 [open]=400000)
printf '%-10s %12s %10s %8s %s\n' TARGET EXECS EXECS/S CRASHES CORPUS
status=0
for t in $targets; do
	corpus=$B/corpus/$t
	crashes=$B/crashes/$t
	mkdir -p "$corpus" "$crashes"
	# libFuzzer writes new inputs into the first corpus directory: the
	# build's, never the repository's
	opts=(-rss_limit_mb=2048)
	[ -z "${FUZZ_RUNS:-}" ] || opts+=(-runs="$FUZZ_RUNS")
	# fuzz_open leaks on purpose: a context whose kdump_open_fd() failed
	# is abandoned (about 4.4 MB each, engine/mem_kdump.c), which LSan
	# would report after every such input and which adds up
	[ "$t" = open ] && opts=(-rss_limit_mb=6144 -detect_leaks=0 "${opts[@]:1}")
	extra=()
	for d in "$top/fuzz/corpus/$t" "$top/fuzz/crashes/$t"; do
		[ -d "$d" ] && extra+=("$d")
	done
	LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:$LSAN_OPTIONS \
	nice "$B/fuzz_$t" -max_total_time="$secs" -max_len="${maxlen[$t]}" \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		"${opts[@]}" "$corpus" "${extra[@]}" "$seeds/$t" > "$B/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$t.log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$B/$t.log" | tail -1)
	n=$(find "$crashes" -type f | wc -l)
	printf '%-10s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${speed:-?}" "$n" \
		"$(find "$corpus" -type f | wc -l) inputs"
	[ "$n" = 0 ] && [ "$rc" = 0 ] || status=1
done
exit $status
