#!/usr/bin/env bash
# Make the cached debootstrap chroot of a Debian release, in which DKMS
# builds lwnfs for that release's kernels (configs/distro.conf), with the
# release's compilers and dkms. Made once; its apt sources are the
# suites of its kernels, from this machine's Debian mirror.
#
# usage: scripts/distro-root.sh RELEASE   (bullseye, bookworm, trixie)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

release=${1:?usage: $0 RELEASE}
[ -n "$(chroot_suites "$release")" ] ||
	die "no kernel of configs/distro.conf is built in a '$release' chroot (chroots: $(conf_rows "$DISTRO_CONF" | awk '{ print $2 }' | sort -u | paste -sd' '))"
[ "$(id -u)" -eq 0 ] || die "a chroot needs root; run as root"
need_cmd debootstrap debootstrap
need_cmd unshare util-linux
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "no $keyring; run: apt-get install debian-archive-keyring"
root=$(distro_root "$release")

sources=()
while IFS= read -r s; do
	sources+=("deb [signed-by=$keyring] $(mirror_for "$s") $s main")
done < <(chroot_suites "$release")
key=$(printf '%s\n' "$release" "${sources[@]}" | sha256sum | cut -c1-16)
if [ -f "$root/.lwnfs-root" ] && [ "$(stamp_get "$root/.lwnfs-root" key)" = "$key" ]; then
	info "$release: chroot $root (cached)"
	exit 0
fi

# made apart and moved into place, so that a broken run leaves no
# half-made chroot behind
rm -rf "$root" "$root.new"
mkdir -p "$(dirname "$root")"
log=$LWNFS_CACHE/logs/distro-root-$release.log
mkdir -p "$(dirname "$log")"
info "$release: debootstrap (log: $log)"
debootstrap --variant=minbase --keyring="$keyring" "$release" "$root.new" "$(mirror_for "$release")" >"$log" 2>&1 || {
	tail -n 20 "$log"
	die "$release: debootstrap failed (log: $log)"
}
printf '%s\n' "${sources[@]}" >"$root.new/etc/apt/sources.list"
# no recommends, and no initramfs for the images a headers package pulls in
printf 'APT::Install-Recommends "0";\nAPT::Install-Suggests "0";\n' >"$root.new/etc/apt/apt.conf.d/90lwnfs"
mv "$root.new" "$root"
in_root "$release" apt-get update -qq >>"$log" 2>&1 || {
	tail -n 20 "$log"
	die "$release: apt-get update in the chroot failed (log: $log)"
}
# the tools DKMS needs to build and sign a module, for every kernel
in_root "$release" apt-get install -y -qq build-essential dkms kmod openssl xz-utils >>"$log" 2>&1 || {
	tail -n 20 "$log"
	die "$release: installing build-essential and dkms in the chroot failed (log: $log)"
}
printf 'key=%s\n' "$key" >"$root/.lwnfs-root"
info "$release: chroot $root ($(du -sh "$root" | cut -f1))"
