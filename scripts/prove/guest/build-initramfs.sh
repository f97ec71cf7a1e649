#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the test guest's initramfs (gzip'd newc cpio).
# usage: build-initramfs.sh -o OUT.cpio.gz [--modules MODDIR] [--kdump BZIMAGE]
#   --modules MODDIR  lib/modules/<ver> of a modular (stock) kernel: copies the
#                     pmem/dax/ext4/fw_cfg modules and their dependencies, in load order
#   --kdump BZIMAGE   also embed BZIMAGE and the plain initramfs as /boot/{bzImage,initrd.img}
#                     for an in-guest kexec -p
# Contents: busybox-static, /init, ndctl and kexec with the shared libraries ldd
# lists, and the static workload helpers daxtouch, hmmtouch, p2ptouch, hugetouch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out= moddir= kdump=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	--modules) moddir=$2; shift ;;
	--kdump) kdump=$2; shift ;;
	*) echo "usage: $0 -o OUT [--modules DIR] [--kdump BZIMAGE]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "$0: -o OUT required" >&2; exit 2; }
for t in busybox ndctl kexec gcc cpio; do
	command -v $t >/dev/null || [ -x /usr/sbin/$t ] || { echo "$0: missing $t (apt-get install busybox-static ndctl kexec-tools gcc cpio)" >&2; exit 2; }
done
busybox=$(command -v busybox)
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	{ echo "$0: $busybox is not static (apt-get install busybox-static)" >&2; exit 2; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,mnt,run,etc,boot,lib/modules}
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
install -m 755 "$here/init" "$root/init"
for t in daxtouch hmmtouch p2ptouch hugetouch; do
	gcc -static -O2 -Wall -o "$root/bin/$t" "$here/$t.c"
done

copy_bin() { # binary with its shared libraries (ldd), at the same paths
	local b=$1 dst=$2 lib
	cp "$b" "$root$dst"
	for lib in $(ldd "$b" | awk '/=> \//{print $3} /^\s*\/lib/{print $1}'); do
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
}
copy_bin "$(command -v ndctl)" /usr/bin/ndctl
copy_bin "$(command -v kexec || echo /usr/sbin/kexec)" /usr/sbin/kexec
# glibc's loader also looks under /lib64 and /usr/lib*: make the usrmerge links
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
mkdir -p "$root/usr/lib"
ln -sfn ../../lib/x86_64-linux-gnu "$root/usr/lib/x86_64-linux-gnu" 2>/dev/null || true

if [ -n "$moddir" ]; then
	declare -A done_=()
	order=()
	modfile() { find "$moddir" -name "$1.ko*" -o -name "$(echo "$1" | tr _ -).ko*" | head -1; }
	visit() {
		local m=$1 f d
		[ -n "${done_[$m]:-}" ] && return 0
		done_[$m]=1
		f=$(modfile "$m")
		[ -n "$f" ] || { echo "$0: module $m not found in $moddir (built in?)" >&2; return 0; }
		for d in $(modinfo -F depends "$f" | tr ',' ' '); do visit "$d"; done
		local base
		base=$(basename "$f")
		case $f in
		*.ko.xz) xz -dc "$f" > "$root/lib/modules/${base%.xz}"; base=${base%.xz} ;;
		*.ko.zst) zstd -qdc "$f" > "$root/lib/modules/${base%.zst}"; base=${base%.zst} ;;
		*.ko.gz) gzip -dc "$f" > "$root/lib/modules/${base%.gz}"; base=${base%.gz} ;;
		*) cp "$f" "$root/lib/modules/$base" ;;
		esac
		order+=("$base")
	}
	for m in qemu_fw_cfg libnvdimm nd_e820 nd_btt nd_pmem device_dax dax_pmem crc16 crc32c_generic mbcache jbd2 ext4 \
		nvme_core nvme; do
		visit $m
	done
	printf '%s\n' "${order[@]}" > "$root/lib/modules/load.order"
	echo "initramfs: modules ${order[*]}" >&2
fi

mkcpio() { (cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -6n; }
if [ -n "$kdump" ]; then
	cp "$kdump" "$root/boot/bzImage"
	mkcpio "$root" > "$root.plain"
	mv "$root.plain" "$root/boot/initrd.img"
fi
mkdir -p "$(dirname "$out")"
mkcpio "$root" > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out $(stat -c %s "$out") bytes" >&2
