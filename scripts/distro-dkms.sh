#!/usr/bin/env bash
# Build lwnfs for one of Debian's kernels (configs/distro.conf) the way a
# Debian user does: in the release's chroot, install the kernel's headers,
# then the lwnfs-dkms package, and let DKMS build and install the module.
# Then take the module and the kernel's image out for the guest
# (scripts/distro-guest.sh).
#
# usage: scripts/distro-dkms.sh NAME DEB
#   NAME  a kernel of configs/distro.conf
#   DEB   the lwnfs-dkms package (make deb's)
# Output: in the cache's distro/out/NAME/: lwnfs.ko, vmlinuz, dkms.txt
# (what DKMS said and built).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: $0 NAME DEB}
deb=${2:?usage: $0 NAME DEB}
check_distro "$name"
[ -f "$deb" ] || die "no package $deb; run: make deb"
release=$(distro_field "$name" chroot)
version=$(distro_field "$name" version)
kr=$(kernel_release "$name")
suite=$(distro_field "$name" suites)
suite=${suite##*,}
"$LWNFS_TOP/scripts/distro-root.sh" "$release"
root=$(distro_root "$release")
out=$(distro_out "$name")
rm -rf "$out"
mkdir -p "$out"
log=$LWNFS_CACHE/logs/distro-dkms-$name.log
: >"$log"
run() {
	in_root "$release" "$@" >>"$log" 2>&1
}
fail() {
	tail -n 30 "$log"
	die "$name: $* (log: $log)"
}

# The package, from scratch: the earlier run's is purged first (its prerm
# removes the module from DKMS), so that this run's DKMS build is its own,
# and so that a package an earlier run left half-configured does not fail
# the headers' installation.
run dpkg --purge lwnfs-dkms || fail "dpkg --purge lwnfs-dkms failed"
[ ! -e "$root/var/lib/dkms/lwnfs" ] || fail "dpkg --purge lwnfs-dkms left /var/lib/dkms/lwnfs"

# The kernel's headers, at the pinned version. (On 6.12 they depend on
# the image too: it is installed without an initramfs.)
info "$name: linux-headers-$kr $version"
if ! run apt-get install -y -qq -t "$suite" "linux-headers-$kr=$version"; then
	run apt-get update -qq || fail "apt-get update in the chroot failed"
	run apt-get install -y -qq -t "$suite" "linux-headers-$kr=$version" ||
		fail "linux-headers-$kr=$version did not install; is the pin in configs/distro.conf still offered? run: make distro-drift"
fi

cp "$deb" "$root/tmp/lwnfs-dkms.deb"
# The chroot runs the host's kernel, which DKMS would take for a chroot's
# host, and build for every kernel: uname -r says the kernel is this one.
# Then bookworm's DKMS builds for it and the newest kernel only, and the
# package's postinst must build for the others. (bullseye's DKMS also
# wants the kernel's /boot/config, which the chroot lacks, and trixie's
# builds for all kernels: there DKMS itself builds for every kernel.)
mkdir -p "$root/usr/local/lwnfs-bin"
printf '#!/bin/sh
[ "$*" = -r ] && exec echo %s
exec /bin/uname "$@"
' "$kr" >"$root/usr/local/lwnfs-bin/uname"
chmod 755 "$root/usr/local/lwnfs-bin/uname"
info "$name: apt-get install lwnfs-dkms (DKMS builds lwnfs)"
# (apt gives dpkg's scripts the PATH of its option DPkg::Path)
if ! run apt-get install -y -qq -o DPkg::Path=/usr/local/lwnfs-bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/tmp/lwnfs-dkms.deb; then
	# DKMS's own build log says why
	for m in "$root"/var/lib/dkms/lwnfs/*/build/make.log; do
		[ ! -f "$m" ] || { echo "--- ${m#"$root"}:"; tail -n 20 "$m"; } >>"$log"
	done
	fail "installing lwnfs-dkms failed"
fi
# built for every kernel of the chroot with headers (all of served versions)
in_root "$release" dkms status -m lwnfs >"$out/dkms.txt" 2>&1 || true
# (the build links are absolute: resolved in the chroot)
# shellcheck disable=SC2016 # expanded by the chroot's shell
kernels=$(in_root "$release" sh -c 'for b in /lib/modules/*/build/include; do [ -d "$b" ] && echo "$b"; done; true')
[ -n "$kernels" ] || fail "no kernel headers in the chroot"
for b in $kernels; do
	k=${b%/build/include}
	k=${k##*/}
	grep -F " $k, " "$out/dkms.txt" | grep -q ': installed' ||
		fail "DKMS did not install lwnfs for $k, a kernel of the chroot: $(cat "$out/dkms.txt")"
done

# The module DKMS installed (compressed as the kernel's own modules are)
ko=''
[ ! -d "$root/lib/modules/$kr/updates/dkms" ] ||
	ko=$(cd "$root" && find "lib/modules/$kr/updates/dkms" -name 'lwnfs.ko*' | head -n 1)
[ -n "$ko" ] || fail "no lwnfs.ko under /lib/modules/$kr/updates/dkms"
case "$ko" in
*.ko) cp "$root/$ko" "$out/lwnfs.ko" ;;
*.ko.xz) xz -dc "$root/$ko" >"$out/lwnfs.ko" ;;
*) fail "DKMS installed $ko, which this script cannot unpack" ;;
esac
vermagic=$(modinfo -F vermagic "$out/lwnfs.ko")
[ "${vermagic%% *}" = "$kr" ] || fail "lwnfs.ko's vermagic is '$vermagic', not for $kr"
signer=$(modinfo -F signer "$out/lwnfs.ko" || true)
printf 'module=/%s\nvermagic=%s\nsigner=%s\n' "$ko" "$vermagic" "${signer:-none}" >>"$out/dkms.txt"

# A kernel of a version lwnfs does not serve (the build directory of a
# made-up release): the package's postinst must name it and pass, and DKMS
# must build nothing for it. DKMS's kernel hook, whose status a kernel
# package's postinst passes on, must skip it too, except on bookworm:
# its DKMS 3.0.10 counts the skip as a failure (status 11), which the
# package's README.Debian says; the check notices when that changes.
fake=4.19.99-lwnfs-unserved
! "$LWNFS_TOP/scripts/ranges.sh" series 4.19 >/dev/null || die "bases.conf's ranges hold 4.19: choose another made-up kernel here"
# (removed however this script ends: a later run would find it)
trap 'rm -rf "$root/lib/modules/$fake" "$root"/var/lib/dkms/lwnfs/*/"$fake"' EXIT
mkdir -p "$root/lib/modules/$fake/build/include"
in_root "$release" env PATH=/usr/local/lwnfs-bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/var/lib/dpkg/info/lwnfs-dkms.postinst configure >"$out/unsupported.txt" 2>&1 ||
	fail "the postinst failed with the unsupported kernel $fake: $(tail -n 5 "$out/unsupported.txt")"
hook=0
in_root "$release" /etc/kernel/postinst.d/dkms "$fake" >>"$out/unsupported.txt" 2>&1 || hook=$?
built=$(find "$root/var/lib/dkms/lwnfs" -path "*/$fake/*" -name 'lwnfs.ko*' | head -n 1)
rm -rf "$root/lib/modules/$fake" "$root"/var/lib/dkms/lwnfs/*/"$fake"
grep -q "lwnfs-dkms: Linux $fake is outside the versions lwnfs serves" "$out/unsupported.txt" ||
	fail "the postinst did not name the unsupported kernel $fake: $(tail -n 5 "$out/unsupported.txt")"
[ -z "$built" ] || fail "DKMS built lwnfs for the unsupported kernel $fake"
dkms_version=$(in_root "$release" dkms --version 2>/dev/null | sed -n 's/^[^0-9]*\([0-9][0-9.]*\).*/\1/p' | head -n 1)
case "$dkms_version,$hook" in
3.0.*,11 | 2.*,0 | 3.[1-9]*,0) ;;
*) fail "DKMS $dkms_version's kernel hook ended with status $hook for the unsupported kernel $fake; README.Debian says 11 for 3.0, else 0" ;;
esac
printf 'dkms=%s\nunsupported_hook=%s\n' "$dkms_version" "$hook" >>"$out/dkms.txt"

# The kernel's image: the chroot's, when the headers brought it, else the
# package's (on 7.3, a meta package over linux-binary-*), unpacked.
if [ -f "$root/boot/vmlinuz-$kr" ]; then
	cp "$root/boot/vmlinuz-$kr" "$out/vmlinuz"
else
	in_root "$release" sh -c "rm -rf /tmp/img && mkdir /tmp/img && cd /tmp/img &&
		apt-get download -t $suite linux-image-$kr=$version &&
		for p in \$(apt-cache depends linux-image-$kr=$version | sed -n 's/^ *Depends: \(linux-binary-.*\)/\1/p'); do
			apt-get download -t $suite \$p=$version; done" >>"$log" 2>&1 ||
		fail "downloading linux-image-$kr=$version failed"
	rm -rf "$out/img"
	for d in "$root"/tmp/img/*.deb; do
		dpkg-deb -x "$d" "$out/img"
	done
	img=$(find "$out/img" -name "vmlinuz*" -type f | head -n 1)
	[ -n "$img" ] || fail "no vmlinuz in linux-image-$kr=$version"
	mv "$img" "$out/vmlinuz"
	rm -rf "$out/img"
fi
printf 'release=%s\nkernel=%s\nversion=%s\n' "$release" "$kr" "$version" >>"$out/dkms.txt"
# what the kernel's configuration turns on that the tinyconfig guests do
# not (the headers carry the kernel's .config)
config=$(find "$root/usr/src/linux-headers-$kr" -maxdepth 1 -name .config | head -n 1)
[ -n "$config" ] || fail "no .config in /usr/src/linux-headers-$kr"
echo "config=$(grep -oE "^CONFIG_($DISTRO_OPTIONS)=y" "$config" | sed 's/^CONFIG_//; s/=y$//' | paste -sd' ')" >>"$out/dkms.txt"
info "$name: DKMS built lwnfs for $kr ($version), $(du -h "$out/lwnfs.ko" | cut -f1), signer: ${signer:-none}"
