#!/usr/bin/env bash
# Build the lwnfs kselftest of a base with the kernel's own selftest build,
# statically linked so that it runs in the busybox guest.
#
# usage: scripts/selftest.sh BASE
# Output: BUILD/kselftest/filesystems/lwnfs/lwnfs_test in the base's tiny
# build directory (the one scripts/guest.sh boots).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
tree=$(tree_dir "$base")
bd=$(build_dir "$base" tiny)
[ -d "$tree/tools/testing/selftests/filesystems/lwnfs" ] ||
	die "$base has no lwnfs selftest; run: make apply BASE=$base"
[ -f "$bd/.config" ] || die "no build of $base yet; run: scripts/build.sh $base y"

make -s -C "$tree/tools/testing/selftests" O="$bd" TARGETS=filesystems/lwnfs \
	LDFLAGS=-static >"$bd/kselftest.log" 2>&1 || {
	cat "$bd/kselftest.log"
	die "$base: make -C tools/testing/selftests TARGETS=filesystems/lwnfs failed"
}
bin=$bd/kselftest/filesystems/lwnfs/lwnfs_test
file "$bin" | grep -q 'statically linked' || die "$bin is not statically linked"
if grep -q 'warning:' "$bd/kselftest.log"; then
	cat "$bd/kselftest.log"
	die "$base: the selftest build has warnings"
fi
info "$base: built $bin"
