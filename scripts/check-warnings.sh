#!/usr/bin/env bash
# Build fs/lwnfs/ of a base with extra checking and fail on any diagnostic.
# Its objects are removed before it is judged, so that every run compiles
# them again: a rerun gives the same verdict as the first run. Known
# warnings of a base's own headers are listed in configs/warnings.allow
# (scripts/lib.sh judge_build).
#
# usage: scripts/check-warnings.sh BASE sparse   # C=2 W=1 with sparse, =y config
#        scripts/check-warnings.sh BASE clang    # W=1 with LLVM, =y config
#        scripts/check-warnings.sh BASE allmod   # W=1 under allmodconfig
#        scripts/check-warnings.sh BASE w1 [y|m] # W=1 with gcc, the y (or m) config
# LWNFS_ARCH picks the architecture (configs/arch.conf), as for build.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE sparse|clang|allmod|w1 [VARIANT]}
kind=${2:?usage: $0 BASE sparse|clang|allmod|w1 [VARIANT]}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

case "$kind" in
sparse)
	checker=$(sparse_path)
	variant=y extra="C=2 W=1 CHECK=$checker" ;;
clang) variant=clang extra="W=1" ;;
allmod) variant=allmod extra="W=1" ;;
w1)
	variant=${3:-y} extra="W=1"
	case "$variant" in y | m) ;; *) die "w1 takes the y or m variant, not '$variant'" ;; esac ;;
*) die "unknown kind '$kind'" ;;
esac

bd=$(build_dir "$base" "${LWNFS_ARCH:-x86_64}-$variant")
tree=$(tree_dir "$base")
build() {
	MAKEFLAGS_EXTRA=$extra "$LWNFS_TOP/scripts/build.sh" "$base" "$variant" fs/lwnfs/ >"$log" 2>&1 || {
		cat "$log"
		die "$base: $kind build of fs/lwnfs/ failed"
	}
}
# First pass: whatever the base itself needs (host tools, headers), whose
# output is the base's. Second pass: only fs/lwnfs, compiled again, so every
# diagnostic in it comes from compiling lwnfs, whatever file it points at
# (a KUnit macro from lwnfs code warns in a kernel header, say).
build
rm -rf "$bd/fs/lwnfs"
build
case "$kind" in clang) compiler=clang ;; *) compiler=gcc ;; esac
if ! verdict=$(judge_build "$log" "$base" "$compiler"); then
	sed "s|$tree/||g" "$log"
	echo "$verdict"
	die "$base: $kind reported diagnostics compiling fs/lwnfs (above)"
fi
grep '^allowed' <<<"$verdict" || true
info "$base: $kind ($extra) on fs/lwnfs/: 0 warnings ($(tail -n 1 <<<"$verdict"))"
