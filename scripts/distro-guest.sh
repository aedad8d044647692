#!/usr/bin/env bash
# Boot one of Debian's own kernels (configs/distro.conf) in a QEMU guest,
# as Debian boots it (its own command line defaults, its LSMs), with the
# lwnfs module DKMS built for it (scripts/distro-dkms.sh) and its base's
# kselftest (scripts/selftest.sh BASE hdr), and judge the run
# (scripts/verdict.sh --mode distro).
#
# usage: scripts/distro-guest.sh NAME
# On a real-time kernel (flavour rt-*) the guest also runs soak/lwnfs_soak's
# stress and race for DISTRO_STRESS s each (default 5). The console log is
# the cache's logs/distro-NAME.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: $0 NAME}
check_distro "$name"
need_cmd qemu-system-x86_64 qemu-system-x86
need_cmd cpio cpio
base=$(distro_field "$name" base)
kr=$(kernel_release "$name")
version=$(distro_field "$name" version)
out=$(distro_out "$name")
for f in lwnfs.ko vmlinuz dkms.txt; do
	[ -f "$out/$f" ] || die "no $f for $name; run: scripts/distro-dkms.sh $name DEB (make distro does)"
done
[ "$(stamp_get "$out/dkms.txt" version)" = "$version" ] ||
	die "$name's module was built for $(stamp_get "$out/dkms.txt" version), the pin is $version; run make distro again"
selftest=$(build_dir "$base" x86_64-hdr)/kselftest/filesystems/lwnfs/lwnfs_test
if [ ! -x "$selftest" ] || [ "$(stamp_get "$(dirname "$selftest")/.lwnfs-selftest" series)" != "$(series_hash "$base")" ]; then
	die "no kselftest of the $base series; run: scripts/selftest.sh $base hdr"
fi
stress=0
case "$(distro_field "$name" flavour)" in rt-*) stress=${DISTRO_STRESS:-5} ;; esac
[[ "$stress" =~ ^[0-9]+$ ]] || die "DISTRO_STRESS must be a number of seconds, not '$stress'"
busybox=$("$LWNFS_TOP/scripts/fetch-busybox.sh" x86_64 | tail -n 1)

root=$LWNFS_CACHE/guest/distro-$name
rm -rf "$root"
mkdir -p "$root"/{bin,lib,etc/lwnfs,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$LWNFS_TOP/guest/init" "$root/init"
cp "$LWNFS_TOP/guest/tests.sh" "$root/etc/lwnfs/tests.sh"
cp "$selftest" "$root/bin/lwnfs_test"
cp "$out/lwnfs.ko" "$root/lib/lwnfs.ko"
gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/lwnfs_soak" "$LWNFS_TOP/soak/lwnfs_soak.c"
initrd=$root.cpio.gz
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$initrd"

log=$LWNFS_CACHE/logs/distro-$name.log
mkdir -p "$(dirname "$log")"
smp=2 limit=${GUEST_TIMEOUT:-$((600 + 4 * stress))}
start=$SECONDS
rc=0
timeout "$limit" qemu-system-x86_64 -m 1024 -smp "$smp" -nographic -no-reboot \
	-kernel "$out/vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic lwnfs_guest=distro lwnfs_stress=$stress" \
	</dev/null 2>&1 | tr -d '\r' >"$log" || rc=${PIPESTATUS[0]}
if [ "$rc" -eq 124 ]; then
	echo "--- the last lines of the console ($log):"
	tail -n 30 "$log"
	die "$name ($kr): the guest did not finish in ${limit}s (GUEST_TIMEOUT); stopped"
fi
rc=0
"$LWNFS_TOP/scripts/verdict.sh" --mode distro --smp "$smp" --stress "$stress" \
	--kselftests "$(grep -c '^TEST\(_F\)\?\(_TIMEOUT\)\?(' "$(tree_dir "$base")/tools/testing/selftests/filesystems/lwnfs/lwnfs_test.c")" \
	--debian-version "$version" --taint 12288 "$log" || rc=$?
case $rc in
0) ;;
1) die "$name ($kr, Debian $version): the guest failed" ;;
*) die "scripts/verdict.sh ended with status $rc, not a verdict" ;;
esac
info "$name ($kr, Debian $version): the guest passed in $((SECONDS - start))s"
