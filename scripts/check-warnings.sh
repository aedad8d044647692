#!/usr/bin/env bash
# Build fs/lwnfs/ of a base with extra checking and fail on any diagnostic.
# Its objects are removed first, so that every run compiles (and judges)
# them again: a rerun gives the same verdict as the first run.
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
	checker=$(sparse_path)
	variant=y extra="C=2 W=1 CHECK=$checker" ;;
clang) variant=clang extra="W=1" ;;
allmod) variant=allmod extra="W=1" ;;
*) die "unknown kind '$kind'" ;;
esac

rm -rf "$(build_dir "$base" "${LWNFS_ARCH:-x86_64}-$variant")/fs/lwnfs"
MAKEFLAGS_EXTRA=$extra "$LWNFS_TOP/scripts/build.sh" "$base" "$variant" fs/lwnfs/ >"$log" 2>&1 || {
	cat "$log"
	die "$base: $kind build of fs/lwnfs/ failed"
}
# A diagnostic is a line about fs/lwnfs (including "In file included from
# fs/lwnfs/..." above a header's warning), any error, or kbuild's "C=2
# specified, but ... not available or not up to date". Anything else make
# printed comes from building the base's own host tools (v6.1's genksyms
# parser under allmodconfig, say): it is shown, not counted.
tree=$(tree_dir "$base")
out=$(grep -v '^>> ' "$log" | sed "s|$tree/||g" || true)
diags=$(grep -E 'fs/lwnfs|[Ee]rror|C=2 specified' <<<"$out" || true)
noise=$(grep -vE 'fs/lwnfs|[Ee]rror|C=2 specified' <<<"$out" || true)
if [ -n "$diags" ]; then
	echo "$out"
	die "$base: $kind reported the diagnostics above"
fi
[ -z "$noise" ] || printf 'from the base, not fs/lwnfs (not counted):\n%s\n' "$noise"
info "$base: $kind ($extra) on fs/lwnfs/: 0 warnings"
