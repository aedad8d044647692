#!/usr/bin/env bash
# Check that a base's series applies to the pristine tree with zero fuzz
# through patch(1) and quilt, the two other ways users apply it. (git am is
# checked by scripts/apply.sh.) Then run each block of the README's
# applying section as it stands, with this checkout for /path/to/lwnfs and
# the base for the line the README's examples name: each must leave the
# same files as patch -F0. Only the files the series touches are taken
# from the base, into scratch directories, so the cached tree is not
# touched.
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

# The README's blocks: those of its applying section. Each that applies
# the series starts with "cd linux" (scripts/lint-docs.py requires it too)
# and names one line's patches/, the line of the README's examples.
mkdir "$work/readme"
awk -v dir="$work/readme" '
	$0 == "<!-- apply: begin -->" { on = 1; next }
	$0 == "<!-- apply: end -->" { on = 0 }
	on && /^```/ { if (inb) { inb = 0; close(f) } else { inb = 1; n++; f = sprintf("%s/%02d.sh", dir, n) } next }
	on && inb { print > f }' "$LWNFS_TOP/README.md"
ran=0
for block in "$work/readme"/*.sh; do
	[ -f "$block" ] || continue
	n=$(basename "$block" .sh)
	grep -qE '(^|[[:space:];&|])(git am|git apply|patch|quilt|b4) ' "$block" || continue
	[ "$(head -n 1 "$block")" = "cd linux" ] ||
		die "the README's block $n of its applying section applies the series and does not start with 'cd linux'"
	line=$(grep -o '/patches/v[0-9.]*[0-9]' "$block" | sort -u)
	if [ -z "$line" ] || [ "$(wc -l <<<"$line")" -ne 1 ]; then
		die "the README's block $n of its applying section must name one line's patches/, not: ${line:-none}"
	fi
	check_base "${line#/patches/}"
	dir=$work/readme-$n
	scratch_repo "$base" "$series" "$dir"
	# shellcheck disable=SC2016 # (the block expands the variables)
	sed -i -e '1s|.*|cd "$LWNFS_SCRATCH"|' -e 's|/path/to/lwnfs|$LWNFS_CHECKOUT|g' \
		-e "s|${line//./\\.}\\b|/patches/\$LWNFS_LINE|g" "$block"
	(export LWNFS_SCRATCH=$dir LWNFS_CHECKOUT=$LWNFS_TOP LWNFS_LINE=$base &&
		git -C "$dir" config user.name "$LWNFS_IDENT_NAME" &&
		git -C "$dir" config user.email "$LWNFS_IDENT_EMAIL" &&
		bash -euo pipefail "$block") >"$work/block.log" 2>&1 || {
		cat "$work/block.log" >&2
		die "$base: the README's block $n of its applying section failed:
$(cat "$block")"
	}
	diff -r -x .git -x .pc "$work/patch" "$dir" >&2 ||
		die "$base: the README's block $n left other files than patch -p1 -F0:
$(cat "$block")"
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || die "the README's applying section has no block that applies the series"
info "$base: the README's $ran applying blocks apply the series"
