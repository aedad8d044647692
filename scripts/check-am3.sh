#!/usr/bin/env bash
# Check that a base's series applies with git am -3 to a lightly patched
# tree: the pristine base's files plus one unrelated local change inside
# the context of the series' fs/Kconfig hunk (a vendor filesystem's
# "source" line above it, the commonest local change there). Plain git am
# must refuse that tree, or the check would prove nothing; git am -3 must
# apply the whole series, and keep the local change.
#
# usage: scripts/check-am3.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
series=$(series_dir "$base")
mapfile -t patches <"$series/series"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/tree
scratch_repo "$base" "$series" "$repo"

# The local change: a line inserted above the line before the fs-kconfig
# anchor, two lines above where lwnfs's line goes.
local_line='source "fs/vendorfs/Kconfig"'
anchor=$(hook_anchor fs-kconfig "$base")
at=$(grep -nE -- "$anchor" "$repo/fs/Kconfig" | cut -d: -f1 || true)
if [ -z "$at" ] || [ "$(wc -l <<<"$at")" -ne 1 ]; then
	die "$base: the fs-kconfig anchor /$anchor/ is not one line of fs/Kconfig"
fi
[ "$at" -ge 2 ] || die "$base: the fs-kconfig anchor is fs/Kconfig's first line; there is no line above it to change"
sed -i "$((at - 1))i $local_line" "$repo/fs/Kconfig"
git_fixed -C "$repo" commit -q -a -m "fs: add vendorfs (a local change)"
local_commit=$(git -C "$repo" rev-parse HEAD)

if git_fixed -C "$repo" am -q "${patches[@]/#/$series/}" >"$work/am.log" 2>&1; then
	die "$base: plain git am applied the series to the changed tree: the local change is not in the patch's context, so this check proves nothing"
fi
grep -q 'patch failed: fs/Kconfig' "$work/am.log" || {
	cat "$work/am.log"
	die "$base: plain git am failed, but not on fs/Kconfig's context"
}
git_fixed -C "$repo" am --abort
git_fixed -C "$repo" reset -q --hard "$local_commit"

git_fixed -C "$repo" am -q -3 "${patches[@]/#/$series/}" >"$work/am.log" 2>&1 || {
	cat "$work/am.log"
	die "$base: git am -3 failed on a tree with one local change in fs/Kconfig"
}
[ "$(git -C "$repo" rev-list --count "$local_commit..HEAD")" -eq ${#patches[@]} ] ||
	die "$base: git am -3 did not make one commit per patch"
grep -qx -- "$local_line" "$repo/fs/Kconfig" || die "$base: git am -3 lost the local change"
grep -qx 'source "fs/lwnfs/Kconfig"' "$repo/fs/Kconfig" || die "$base: git am -3 did not add lwnfs to fs/Kconfig"
info "$base: plain git am refuses a tree with a local change in fs/Kconfig's context; git am -3 applies all ${#patches[@]} patches and keeps it"
