#!/usr/bin/env bash
# Build fs/lwnfs/ at every patch of a base's series, with W=1, so that the
# series bisects: each patch must build on its own, without a warning.
# Run after scripts/apply.sh; the tree is back at the full series after.
#
# usage: scripts/check-bisect.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
tree=$(tree_dir "$base")
head=$(git -C "$tree" rev-parse --abbrev-ref HEAD)
[ "$head" = lwnfs ] || die "$base's tree is not on the lwnfs branch; run: make apply BASE=$base"
log=$(mktemp)
trap 'rm -f "$log"; git -C "$tree" checkout -q lwnfs' EXIT

n=0
while IFS= read -r c; do
	n=$((n + 1))
	git -C "$tree" checkout -q "$c"
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	# once the KUnit option exists, build the tests too
	variant=bisect
	grep -q LWNFS_KUNIT_TEST "$tree/fs/lwnfs/Kconfig" && variant=y
	if ! MAKEFLAGS_EXTRA="W=1" "$LWNFS_TOP/scripts/build.sh" "$base" "$variant" fs/lwnfs/ >"$log" 2>&1 ||
		grep -v '^>> ' "$log" | grep -q .; then
		cat "$log"
		die "$base: patch $n ($subject) does not build cleanly on its own"
	fi
	echo "patch $n builds (W=1, 0 warnings, config $variant): $subject"
done < <(git -C "$tree" rev-list --reverse "$BASE_TAG..lwnfs")
info "$base: all $n patches build on their own"
