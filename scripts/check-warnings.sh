#!/usr/bin/env bash
# Build fs/lwnfs/ of a base with extra checking and fail on any diagnostic.
#
# usage: scripts/check-warnings.sh BASE sparse   # C=2 W=1 with sparse, =y config
#        scripts/check-warnings.sh BASE clang    # W=1 with LLVM, =y config
#        scripts/check-warnings.sh BASE allmod   # W=1 under allmodconfig
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE sparse|clang|allmod}
kind=${2:?usage: $0 BASE sparse|clang|allmod}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

case "$kind" in
sparse)
	checker=$("$LWNFS_TOP/scripts/sparse.sh")
	variant=y extra="C=2 W=1 CHECK=$checker" ;;
clang) variant=clang extra="W=1" ;;
allmod) variant=allmod extra="W=1" ;;
*) die "unknown kind '$kind'" ;;
esac

# The y config must be built fully first so that fs/lwnfs is checked in a
# complete tree; the other kinds prepare what they need themselves.
if [ "$kind" = sparse ]; then
	"$LWNFS_TOP/scripts/build.sh" "$base" y >/dev/null
fi
MAKEFLAGS_EXTRA=$extra "$LWNFS_TOP/scripts/build.sh" "$base" "$variant" fs/lwnfs/ >"$log" 2>&1 || {
	cat "$log"
	die "$base: $kind build of fs/lwnfs/ failed"
}
# Anything make printed beyond our own ">>" line is a diagnostic, including
# kbuild's "C=2 specified, but ... not available or not up to date".
if grep -v '^>> ' "$log" | grep -q .; then
	grep -v '^>> ' "$log"
	die "$base: $kind reported the diagnostics above"
fi
info "$base: $kind ($extra) on fs/lwnfs/: 0 warnings"
