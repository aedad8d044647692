#!/usr/bin/env bash
# Reset a cached base tree to its pristine commit and apply the base's series
# with git am, as a user would. The tree records which series it holds
# (.git/lwnfs-applied), which the later steps check. A tree of
# configs/trees.conf takes the series its version's range gives.
#
# usage: scripts/apply.sh BASE|TREE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
tree=$(tree_dir "$base")
series=$(series_dir "$base")

rm -f "$(applied_file "$base")"
git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" checkout -q -f -B lwnfs "$BASE_TAG"
mapfile -t files < <(sed "s|^|$series/|" "$series/series")
if ! git_fixed -C "$tree" am -q "${files[@]}"; then
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	die "git am of ${series#"$LWNFS_TOP"/} failed on $tree (reset to its pristine state).
  If the sources changed, regenerate: make patches
  If Debian's tree moved on: make bump"
fi
printf 'series=%s\nhead=%s\n' "$(series_hash "$base")" "$(git -C "$tree" rev-parse HEAD)" >"$(applied_file "$base")"
info "$base: applied $(git -C "$tree" rev-list --count "$BASE_TAG..HEAD") patches with git am"
