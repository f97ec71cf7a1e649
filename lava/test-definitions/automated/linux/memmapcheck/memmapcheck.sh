#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# memmapcheck on the device under test: a snapshot of every ZONE_DEVICE
# struct page, read by the booted kernel's own /proc/kcore (no QMP, no dump),
# for a later comparison of a base and a patched kernel (scripts/prove/lava-compare.sh).
#
# usage: memmapcheck.sh [-d DEB] [-l LAYOUT] [-s SETUP] [-r REBIND] [-a ARTEFACT] [-o OUTDIR]
#   -d DEB       memmapcheck .deb: a file, a directory of .debs (installed together:
#                memmapcheck and, on a rootfs without apt, its libraries), an http(s)
#                URL, or "installed" (default: /memmapcheck/debs)
#   -l LAYOUT    the kernel's saved layout (`memmapcheck layout -o` at build time):
#                a file or an http(s) URL (default: /memmapcheck/kernel.layout)
#   -s SETUP     how the device memory was put in use before the snapshot:
#                init    the memmapcheck test guest's /init did it at boot (QEMU:
#                        namespaces from mmc.ns=, rebind, daxtouch); wait for its
#                        MEMMAPCHECK-READY line in /run/mmc-init.log
#                rebind  unbind/rebind every dax_pmem and nd_pmem device REBIND
#                        times here, then map and touch every /dev/dax* with
#                        daxtouch if the device has it
#                none    take the memory as it is
#   -r REBIND    rounds for -s rebind (default 3)
#   -a ARTEFACT  where the snapshot goes: "console" (gzip+base64 between
#                MEMMAPCHECK-ARTEFACT-BEGIN/END lines of the log, default), a
#                directory, or an http(s) URL to PUT it to (curl -T)
#   -o OUTDIR    results (default ./output): result.txt (Linaro's format),
#                live.snap, the commands' outputs
#
# Each step is a LAVA test case (lava-test-case when it exists, and a line of
# OUTDIR/result.txt either way): memmapcheck-install, memmapcheck-layout,
# memmapcheck-workload, memmapcheck-snapshot, memmapcheck-snapshot-complete,
# one memmapcheck-lint-<range> per range, memmapcheck-artefact.
#
# What a live snapshot cannot see is said, not left out: struct pages kept on
# the device itself (map=dev, the altmap) are not in /proc/kcore, so those
# ranges are unreadable live and the snapshot is "incomplete"
# (memmapcheck-snapshot-complete: skip, with the ranges and the reason).
DEB=/memmapcheck/debs LAYOUT=/memmapcheck/kernel.layout SETUP=init REBIND=3
ARTEFACT=console OUT=./output
while getopts "d:l:s:r:a:o:h" o; do
	case $o in
	d) DEB=$OPTARG ;;
	l) LAYOUT=$OPTARG ;;
	s) SETUP=$OPTARG ;;
	r) REBIND=$OPTARG ;;
	a) ARTEFACT=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^DEB=/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
: > "$OUT/result.txt"

say() { echo "memmapcheck-lava: $*"; }
# result NAME pass|fail|skip [MEASUREMENT UNITS]
result() {
	if command -v lava-test-case >/dev/null 2>&1; then
		if [ $# -ge 4 ]; then
			lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
		else
			lava-test-case "$1" --result "$2"
		fi
	fi
	echo "$*" >> "$OUT/result.txt"
}
fetch() {	# URL FILE
	if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"; else wget -q -O "$2" "$1"; fi
}

# ---- install from the .deb
install_debs() {
	case $DEB in
	installed) command -v memmapcheck >/dev/null; return ;;
	http://*|https://*) fetch "$DEB" /tmp/memmapcheck.deb || return 1; set -- /tmp/memmapcheck.deb ;;
	*) if [ -d "$DEB" ]; then set -- "$DEB"/*.deb; else set -- "$DEB"; fi ;;
	esac
	[ -f "$1" ] || { say "no .deb at $DEB"; return 1; }
	say "dpkg -i $*"
	if dpkg -i "$@"; then
		:
	elif command -v apt-get >/dev/null 2>&1; then
		# a Debian rootfs: the libraries from its archive
		apt-get install -f -y || return 1
	else
		return 1
	fi
	command -v memmapcheck >/dev/null
}
if install_debs > "$OUT/install.log" 2>&1; then
	result memmapcheck-install pass
	say "$(memmapcheck --version) from $(dpkg -S "$(command -v memmapcheck)" 2>/dev/null || echo "$DEB")"
else
	sed 's/^/memmapcheck-lava: install: /' "$OUT/install.log" | tail -20
	result memmapcheck-install fail
	exit 0
fi

# ---- the kernel's saved layout
case $LAYOUT in
http://*|https://*) fetch "$LAYOUT" "$OUT/kernel.layout" && LAYOUT=$OUT/kernel.layout ;;
esac
if [ -s "$LAYOUT" ]; then
	result memmapcheck-layout pass
else
	say "no layout at $LAYOUT"
	result memmapcheck-layout fail
	exit 0
fi

# ---- the workload
workload_init() {
	i=0
	while [ $i -lt 600 ]; do
		line=$(grep -a '^MEMMAPCHECK-READY' /run/mmc-init.log 2>/dev/null | head -1)
		[ -n "$line" ] && break
		sleep 0.5; i=$((i+1))
	done
	grep -a '^mmc-init:' /run/mmc-init.log 2>/dev/null | tail -40
	[ -n "$line" ] || { say "no MEMMAPCHECK-READY from /init in 300 s"; return 1; }
	[ "$line" = "MEMMAPCHECK-READY status=0" ]
}
workload_rebind() {	# the guest /init's rebind loop (scripts/prove/guest/init), for a lab's own rootfs
	fail=0 r=0
	while [ $r -lt "$REBIND" ]; do
		r=$((r+1))
		for drv in dax_pmem nd_pmem; do
			d=/sys/bus/nd/drivers/$drv
			[ -d $d ] || continue
			devs=
			for l in $d/*; do
				b=$(basename "$l")
				case $b in dax*|pfn*|namespace*|btt*) [ -L "$l" ] && devs="$devs $b" ;; esac
			done
			for b in $devs; do echo "$b" > $d/unbind || say "unbind $drv $b failed"; done
			for b in $devs; do echo "$b" > $d/bind || { say "bind $drv $b failed"; fail=1; }; done
		done
	done
	say "rebind: $REBIND rounds"
	devs=$(ls /dev/dax* 2>/dev/null)
	if [ -n "$devs" ] && command -v daxtouch >/dev/null 2>&1; then
		rm -f /tmp/daxtouch.ready
		daxtouch -n 4 -r /tmp/daxtouch.ready $devs &
		i=0; while [ ! -e /tmp/daxtouch.ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
		[ -e /tmp/daxtouch.ready ] || { say "daxtouch did not finish"; fail=1; }
	elif [ -n "$devs" ]; then
		say "no daxtouch on this device: $devs not mapped"
	fi
	return $fail
}
case $SETUP in
init) workload_init > "$OUT/workload.log" 2>&1; wrc=$? ;;
rebind) workload_rebind > "$OUT/workload.log" 2>&1; wrc=$? ;;
none) wrc=skip ;;
*) say "unknown -s $SETUP"; wrc=1 ;;
esac
cat "$OUT/workload.log" 2>/dev/null
case $wrc in
0) result memmapcheck-workload pass ;;
skip) result memmapcheck-workload skip ;;
*) result memmapcheck-workload fail ;;
esac

# ---- the snapshot, from this kernel's /proc/kcore
t0=$(awk '{printf "%d", $1*1000}' /proc/uptime)
memmapcheck snapshot --live --no-progress -o "$OUT/live.snap" "$LAYOUT" /proc/kcore \
	> "$OUT/snapshot.out" 2> "$OUT/snapshot.err" < /dev/null
src=$?
ms=$(( $(awk '{printf "%d", $1*1000}' /proc/uptime) - t0 ))
sed 's/^/memmapcheck-lava: snapshot: /' "$OUT/snapshot.err"
case $src in
0|4) result memmapcheck-snapshot pass "$ms" ms ;;
*) result memmapcheck-snapshot fail; exit 0 ;;
esac

# Which ranges keep their struct pages on the device (an altmap): the RANGES
# table of `memmapcheck ranges` (columns: # START_PFN END_PFN PAGES PGMAP
# RANGE VMEMMAP RESERVE ALTMAP DEVICE).
memmapcheck ranges "$OUT/live.snap" > "$OUT/ranges.txt" 2>&1
altmap_of() {	# START_PFN -> altmap pfns of that range
	sed -n '/^RANGES/,$p' "$OUT/ranges.txt" | awk -v s="$1" '$2 == s { print $9; exit }'
}
memmapcheck lint -q -f ktap "$OUT/live.snap" > "$OUT/lint.ktap" 2> "$OUT/lint.err"
lrc=$?
unread=0 why=
# "ok 3 range 0x28000-0x30000 devdax # SKIP 31744 pages unreadable"
while read -r st num w1 span type rest; do
	case $st in ok|not) ;; *) continue ;; esac
	[ "$st" = not ] && { num=$w1; w1=$span; span=$type; type=${rest%% *}; rest=${rest#* }; }
	[ "$w1" = range ] || continue
	name=memmapcheck-lint-$(echo "${span}-$type" | tr -c 'A-Za-z0-9_\n-' '_')
	case "$st $rest" in
	"ok # SKIP"*)
		n=$(echo "$rest" | awk '{print $3}')
		unread=$((unread + n))
		a=$(altmap_of "${span%%-*}")
		if [ -n "$a" ] && [ "$a" != 0 ]; then
			r="map=dev: the struct pages are on the device (altmap), /proc/kcore does not reach them"
		else
			r="not in /proc/kcore"
		fi
		say "incomplete: range $span $type: $n struct pages unreadable live: $r"
		why="$why; $span $type: $r"
		result "$name" skip "$n" pages ;;
	ok*) result "$name" pass ;;
	not*) result "$name" fail ;;
	esac
done < "$OUT/lint.ktap"
sed -n 's/^# /memmapcheck-lava: lint: /p' "$OUT/lint.ktap" | head -40
say "lint exit $lrc"
if [ $src = 4 ]; then
	say "the snapshot is incomplete: $unread struct pages unreadable live${why:+ (${why#; })}; a comparison of it says incomplete for those ranges, never identical"
	result memmapcheck-snapshot-complete skip "$unread" pages
else
	result memmapcheck-snapshot-complete pass
fi

# ---- the artefact
name=memmapcheck-$(uname -r)-$(date +%s 2>/dev/null || echo 0).snap
case $ARTEFACT in
console)
	gzip -c "$OUT/live.snap" > /tmp/live.snap.gz
	echo "MEMMAPCHECK-ARTEFACT-BEGIN live.snap $(sha256sum < "$OUT/live.snap" | cut -d' ' -f1) $(wc -c < "$OUT/live.snap")"
	base64 < /tmp/live.snap.gz
	echo "MEMMAPCHECK-ARTEFACT-END live.snap"
	arc=0 ;;
http://*|https://*)
	curl -fsS -T "$OUT/live.snap" "${ARTEFACT%/}/$name"; arc=$?
	[ $arc = 0 ] && command -v lava-test-reference >/dev/null 2>&1 &&
		lava-test-reference memmapcheck-snapshot-url --result pass --reference "${ARTEFACT%/}/$name" ;;
*)
	mkdir -p "$ARTEFACT" && cp "$OUT/live.snap" "$ARTEFACT/$name"; arc=$? ;;
esac
if [ $arc = 0 ]; then result memmapcheck-artefact pass; else result memmapcheck-artefact fail; fi
exit 0
