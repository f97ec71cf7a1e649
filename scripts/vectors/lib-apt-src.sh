# SPDX-License-Identifier: GPL-2.0-or-later
# lib-apt-src.sh: a private apt configuration with deb-src lines for other
# Debian suites, derived at run time from the URIs the system already uses
# (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list).  No mirror host
# is ever written into the repository; the system's apt state is not touched.
#
#   . lib-apt-src.sh
#   apt_src_init DIR SUITE...     # writes DIR/sources.list, runs apt-get update
#   apt_src apt-get source ...    # runs a command with the private config
#   apt_src_versions PKG          # source versions known, newest first

apt_src_uris() {	# print the archive URIs (not -security) the system uses
	{
		local f
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			# one stanza per paragraph: print URIs of stanzas whose Suites
			# are not security suites
			awk 'BEGIN{RS=""; FS="\n"}
			{ u=""; s="";
			  for (i=1;i<=NF;i++) {
			    if ($i ~ /^URIs:/) { u=$i; sub(/^URIs:[ \t]*/,"",u) }
			    if ($i ~ /^Suites:/) { s=$i }
			  }
			  if (u != "" && s !~ /-security/) { n=split(u,a,/[ \t]+/); for (j=1;j<=n;j++) print a[j] }
			}' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk '$1=="deb" || $1=="deb-src" {
				i=2; if ($2 ~ /^\[/) { while (i<=NF && $i !~ /\]$/) i++; i++ }
				if ($(i+1) !~ /-security/) print $i }' "$f"
		done
	} | awk '/^(https?|file|mirror[+a-z]*):/ && !seen[$0]++'
}

APT_SRC_DIR=
apt_src() {
	"$@" -o Dir::Etc::sourcelist="$APT_SRC_DIR/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$APT_SRC_DIR/lists" \
		-o Dir::Cache="$APT_SRC_DIR/cache" \
		-o Dir::State::status=/var/lib/dpkg/status \
		-o APT::Get::List-Cleanup=0 \
		-o APT::Sandbox::User=root
}

apt_src_init() {	# DIR SUITE...
	APT_SRC_DIR=$1; shift
	mkdir -p "$APT_SRC_DIR/lists/partial" "$APT_SRC_DIR/cache/archives/partial"
	local uris key=
	uris=$(apt_src_uris)
	[ -n "$uris" ] || { echo "lib-apt-src: no apt URIs found in /etc/apt" >&2; return 1; }
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] && key=" [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	local u s
	for u in $uris; do
		for s in "$@"; do
			echo "deb-src$key $u $s main"
		done
	done > "$APT_SRC_DIR/sources.list.new"
	# refresh the index at most once every 6 hours
	if ! cmp -s "$APT_SRC_DIR/sources.list.new" "$APT_SRC_DIR/sources.list" ||
	   [ -z "$(find "$APT_SRC_DIR/lists" -maxdepth 1 -name '*Sources*' -mmin -360 2>/dev/null)" ]; then
		mv "$APT_SRC_DIR/sources.list.new" "$APT_SRC_DIR/sources.list"
		apt_src apt-get -q update >&2
	else
		rm -f "$APT_SRC_DIR/sources.list.new"
	fi
}

apt_src_versions() {	# PKG: source versions in the private index, newest first
	apt_src apt-cache showsrc "$1" 2>/dev/null |
		awk -v p="$1" '/^Package:/ {ok = ($2 == p)} ok && /^Version:/ {print $2}' |
		sort -u | sort -r -V
}
