#!/usr/bin/env bash
# Build the lwnfs kselftest of a base with the kernel's own selftest build,
# statically linked so that it runs in the busybox guest.
#
# usage: scripts/selftest.sh BASE [VARIANT]
# Output: BUILD/kselftest/filesystems/lwnfs/lwnfs_test in the build
# directory of LWNFS_ARCH (default x86_64) and VARIANT (default y), the one
# scripts/guest.sh boots, with a record of the series it was built from.
# VARIANT hdr builds no kernel: the uapi headers alone, for the guests of
# Debian's own kernels (scripts/distro-guest.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE [VARIANT]}
variant=${2:-y}
arch=${LWNFS_ARCH:-x86_64}
check_arch "$arch"
need_applied_variant "$base" "$variant"
tree=$(tree_dir "$base")
bd=$(build_dir "$base" "$arch-$variant")
[ -d "$tree/tools/testing/selftests/filesystems/lwnfs" ] ||
	die "$base has no lwnfs selftest at $(git -C "$tree" log -1 --format=%s)"
if [ "$variant" = hdr ]; then
	mkdir -p "$bd"
else
	[ -f "$bd/.config" ] || die "no $arch-$variant build of $base yet; run: make build BASE=$base VARIANT=$variant"
fi
cross=$(arch_field "$arch" cross)

out=$bd/kselftest/filesystems/lwnfs
rm -f "$out/lwnfs_test" "$out/.lwnfs-selftest"
# The test checks statfs's f_type against the series' own <linux/magic.h>,
# so the base's uapi headers are installed first, in the build directory
# (KHDR_INCLUDES points there), not taken from the host.
make -s -C "$tree" O="$bd" ARCH="$(arch_field "$arch" karch)" CROSS_COMPILE="$cross" \
	headers >"$bd/kselftest.log" 2>&1 || {
	cat "$bd/kselftest.log"
	die "$base: make headers failed"
}
grep -qs LWNFS_MAGIC "$bd/usr/include/linux/magic.h" ||
	die "$base: $bd/usr/include/linux/magic.h has no LWNFS_MAGIC"
make -s -C "$tree/tools/testing/selftests" O="$bd" TARGETS=filesystems/lwnfs \
	ARCH="$(arch_field "$arch" karch)" CROSS_COMPILE="$cross" CC="${cross}gcc" \
	LDFLAGS=-static >>"$bd/kselftest.log" 2>&1 || {
	cat "$bd/kselftest.log"
	die "$base: make -C tools/testing/selftests TARGETS=filesystems/lwnfs failed"
}
bin=$out/lwnfs_test
grep -q 'statically linked' <<<"$(file "$bin")" || die "$bin is not statically linked"
if grep -q 'warning:' "$bd/kselftest.log"; then
	cat "$bd/kselftest.log"
	die "$base: the selftest build has warnings"
fi
printf 'series=%s\nhead=%s\n' "$(series_hash "$base")" "$(git -C "$tree" rev-parse HEAD)" >"$out/.lwnfs-selftest"
info "$base: built $bin"
