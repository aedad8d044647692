#!/usr/bin/env bash
# Install the Debian packages lwnfs's targets need (the machine runs as
# root): those configs/deps.conf gives the sets named, or all of them.
# Nothing is done when they are all present already.
#
# usage: scripts/deps.sh [--list | --warn] [SET...]
#   SET: demo, build, clang, cross, docs, lint, cocci, soak, bench, deb,
#   distro (none: every set); --list prints the packages and installs
#   nothing; --warn (the make targets' own call) says nothing when the
#   packages are there, and when they are not and this is not root, names
#   them and goes on: the step that needs one stops with its name
set -euo pipefail
# (apt and dpkg have their own locks; the cache is not touched)
LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

list=0 warn=0
case "${1:-}" in
--list) list=1 && shift ;;
--warn) warn=1 && shift ;;
esac
sets=("$@")
known=" demo build clang cross docs lint cocci soak bench deb distro "
for s in "${sets[@]}"; do
	[[ "$known" == *" $s "* ]] || die "unknown package set '$s' (configs/deps.conf:$known)"
done
# wanted SETS: whether a row of those sets is wanted
wanted() {
	local s
	[ ${#sets[@]} -gt 0 ] || return 0
	for s in "${sets[@]}"; do
		[[ ",$1," == *",$s,"* ]] && return 0
	done
	return 1
}
PACKAGES=()
while read -r pkg in_sets; do
	! wanted "$in_sets" || PACKAGES+=("$pkg")
done < <(conf_rows "$CONFIGS/deps.conf")
# the LLVM versions bases.conf builds with
if wanted clang; then
	for v in $(all_bases | while read -r b; do base_field "$b" clang; done | grep -vx no | sort -u); do
		PACKAGES+=("clang-$v" "lld-$v" "llvm-$v")
	done
fi
# each architecture's QEMU, cross compiler and C library (for the static
# kselftest); the demo's architecture's for the demo
for a in $(conf_rows "$CONFIGS/arch.conf" | awk '{ print $1 }'); do
	if [ "$a" = "${LWNFS_ARCH:-x86_64}" ]; then
		wanted demo,cross || continue
	else
		wanted cross || continue
	fi
	q=$(arch_field "$a" qemu_pkg)
	[ -z "$q" ] || PACKAGES+=("$q")
	cross=$(arch_field "$a" cross)
	[ -z "$cross" ] || PACKAGES+=("gcc-${cross%-}" "libc6-dev-$(arch_field "$a" debarch)-cross")
done

if [ $list = 1 ]; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi
what="the Debian packages of ${sets[*]:-every set}"
missing=()
for p in "${PACKAGES[@]}"; do
	grep -q 'ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	[ $warn = 1 ] || info "$what are present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ] && [ $warn = 1 ]; then
	info "warning: not installed: ${missing[*]}; as root: apt-get install ${missing[*]}"
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
