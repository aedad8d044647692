#!/usr/bin/env bash
# Install the Debian packages the pipeline needs (the machine runs as root).
# Nothing is done when they are all present already.
#
# usage: scripts/deps.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	build-essential bc bison flex libelf-dev libssl-dev cpio kmod xz-utils
	git patch quilt ccache dpkg-dev shellcheck rsync util-linux
	python3-sphinx python3-yaml python3-ply python3-git
	busybox-static file trinity gnuplot-nox
	coccinelle ocaml
	debhelper dh-dkms debootstrap
)
# the LLVM versions bases.conf builds with, and each architecture's QEMU,
# cross compiler and C library (for the static kselftest)
for v in $(all_bases | while read -r b; do base_field "$b" clang; done | grep -vx no | sort -u); do
	PACKAGES+=("clang-$v" "lld-$v" "llvm-$v")
done
for a in $(conf_rows "$CONFIGS/arch.conf" | awk '{ print $1 }'); do
	q=$(arch_field "$a" qemu_pkg)
	[ -z "$q" ] || PACKAGES+=("$q")
	cross=$(arch_field "$a" cross)
	[ -z "$cross" ] || PACKAGES+=("gcc-${cross%-}" "libc6-dev-$(arch_field "$a" debarch)-cross")
done

missing=()
for p in "${PACKAGES[@]}"; do
	grep -q 'ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	info "all ${#PACKAGES[@]} Debian packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages; run as root:
  apt-get update && apt-get install -y ${missing[*]}"
fi
info "installing: ${missing[*]}"
# Wait for another apt or dpkg run to release its lock instead of failing.
lock_wait=(-o DPkg::Lock::Timeout=600)
# (the lock of the package lists is not covered by the option: retry)
for try in 1 2 3 4 5 6 7 8 9 10; do
	apt-get "${lock_wait[@]}" update -qq && break
	[ "$try" -lt 10 ] || die "apt-get update failed 10 times; run by hand: apt-get update"
	info "apt-get update failed (another apt run?); trying again in 30 s"
	sleep 30
done
DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install failed; run by hand: apt-get install -y ${missing[*]}"
