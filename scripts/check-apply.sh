#!/usr/bin/env bash
# Check that a base's series applies to the pristine tree with zero fuzz
# through patch(1) and quilt, the two other ways users apply it. (git am is
# checked by scripts/apply.sh.) Only the files the series touches are taken
# from the base, into a scratch directory, so the cached tree is not touched.
#
# usage: scripts/check-apply.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
need_cmd quilt quilt
tree=$(tree_dir "$base")
series=$(series_dir "$base")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scratch_tree "$base" "$series" "$work/patch"
while IFS= read -r p; do
	out=$(patch -d "$work/patch" -p1 -F0 --dry-run <"$series/$p" 2>&1) ||
		die "$base: patch -p1 -F0 --dry-run failed for $p:
$out"
	patch -s -d "$work/patch" -p1 -F0 --no-backup-if-mismatch <"$series/$p" ||
		die "$base: patch -p1 -F0 failed for $p"
done <"$series/series"
info "$base: patch -p1 -F0 applies all $(wc -l <"$series/series") patches"

# quilt, both with the base's own series and, for the newest base, with the
# top-level series file the README documents.
quilt_push() {
	local dir=$1 qpatches=$2
	scratch_tree "$base" "$series" "$dir"
	(cd "$dir" && QUILT_PATCHES=$qpatches quilt push -a -q --fuzz=0 >"$work/quilt.log" 2>&1) || {
		cat "$work/quilt.log" >&2
		die "$base: quilt push -a --fuzz=0 failed (QUILT_PATCHES=$qpatches)"
	}
}
quilt_push "$work/quilt" "$series"
if [ "$base" = "$(newest_base)" ]; then
	quilt_push "$work/quilt-top" "$LWNFS_TOP"
fi
info "$base: quilt push -a applies the series"
