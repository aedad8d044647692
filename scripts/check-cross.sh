#!/usr/bin/env bash
# Build a base for an architecture that is built but not booted (arm,
# riscv64 in configs/arch.conf): the whole small kernel with lwnfs =y (and
# its KUnit tests) and =m, so that what only the link shows (a 64-bit
# division that needs a libgcc helper, an undefined symbol in the module)
# fails here; then fs/lwnfs/ again with W=1, and the kselftest, statically
# linked for that architecture. Any warning fails.
#
# usage: scripts/check-cross.sh ARCH BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: $0 ARCH BASE}
base=${2:?usage: $0 ARCH BASE}
check_arch "$arch"
export LWNFS_ARCH=$arch
S=$LWNFS_TOP/scripts
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for variant in y m; do
	"$S/build.sh" "$base" "$variant" >"$log" 2>&1 || {
		cat "$log"
		die "$base/$arch: the =$variant build failed"
	}
	# the link and modpost steps, which the W=1 pass below does not run
	if grep -iE 'warning' "$log" | grep -q lwnfs; then
		grep -iE 'warning' "$log" | grep lwnfs
		die "$base/$arch: the =$variant build warns about lwnfs"
	fi
	"$S/check-warnings.sh" "$base" w1 "$variant" | tail -n 1
done
"$S/selftest.sh" "$base" y | tail -n 1
bd=$(build_dir "$base" "$arch-m")
info "$base/$arch: =y and =m build, 0 warnings; lwnfs.ko $(stat -c %s "$bd/fs/lwnfs/lwnfs.ko") bytes"
