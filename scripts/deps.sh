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
	clang-16 lld-16 llvm-16
	python3-sphinx python3-yaml python3-ply python3-git
	qemu-system-x86 busybox-static file
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
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
apt-get "${lock_wait[@]}" update -qq ||
	die "apt-get update failed; run by hand: apt-get update"
DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install failed; run by hand: apt-get install -y ${missing[*]}"
