#!/usr/bin/env bash
# Fail when patches/, series, module/ (each with the ranges file) or
# meta-lwnfs's kernel features differ from a fresh generation: they must be
# exactly what `make patches` makes from the sources. Every base's series
# is generated without its tree, from the hooks' sections kept in
# split/hooks/ (which must be captured at the pin bases.conf names); a base
# whose tree is here is also generated on the tree, and the two must be the
# same byte for byte: the trees verify the captures. check-series.sh then
# checks each series against the sources in its own way.
#
# usage: scripts/check-sync.sh [BASE...]     (default: every base)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then
	bases=("$@")
else
	mapfile -t bases < <(all_bases)
fi
status=0
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
treed=() treeless=()
for b in "${bases[@]}"; do
	if tree_ready "$b"; then
		treed+=("$b")
	else
		treeless+=("$b")
	fi
done
"$LWNFS_TOP/scripts/gen-patches.sh" --no-capture -o "$fresh" "${bases[@]}" >/dev/null
if [ ${#treed[@]} -gt 0 ]; then
	"$LWNFS_TOP/scripts/gen-patches.sh" --tree -o "$fresh/tree" "${treed[@]}" >/dev/null
	for b in "${treed[@]}"; do
		diff -ru "$fresh/tree/$b" "$fresh/$b" >&2 || {
			echo "$b: the series made on its tree (-) differs from the one made from split/hooks/$b.hooks (+); capture it again: make capture BASE=$b" >&2
			status=1
		}
	done
fi
for b in "${bases[@]}"; do
	"$LWNFS_TOP/scripts/check-series.sh" "$b" || status=1
done
"$LWNFS_TOP/scripts/gen-module.sh" -o "$fresh/module" "${bases[@]}" >/dev/null
"$LWNFS_TOP/scripts/gen-yocto.sh" -o "$fresh/kmeta" >/dev/null
diff -ru "$fresh/kmeta" "$LWNFS_TOP/$KMETA" || status=1
"$LWNFS_TOP/scripts/ranges.sh" write "$fresh/ranges"
for f in patches/ranges module/ranges; do
	diff -u "$fresh/ranges" "$LWNFS_TOP/$f" || status=1
done
newest=$(newest_base)
for b in "${bases[@]}"; do
	diff -ru "$fresh/$b" "$LWNFS_TOP/patches/$b" || status=1
	# (what building module/<base> in place leaves is not compared)
	diff -u <(module_files "$fresh/module/$b") <(module_files "$LWNFS_TOP/module/$b") || status=1
	while IFS= read -r f; do
		diff -u "$fresh/module/$b/$f" "$LWNFS_TOP/module/$b/$f" || status=1
	done < <(module_files "$fresh/module/$b")
	if [ "$b" = "$newest" ]; then
		sed "s|^|patches/$newest/|" "$fresh/$newest/series" | diff -u - "$LWNFS_TOP/series" || status=1
	fi
done
# a directory in patches/ or module/ that no base of bases.conf generates
for d in "$LWNFS_TOP"/patches/*/ "$LWNFS_TOP"/module/*/; do
	b=$(basename "$d")
	(check_base "$b") 2>/dev/null || { echo "${d#"$LWNFS_TOP"/}: no such base in bases.conf"; status=1; }
done
[ "$status" -eq 0 ] ||
	die "patches/, module/ or $KMETA is out of sync with the sources; run: make patches, and commit the result"
info "patches/, series, module/, the ranges and meta-lwnfs's features match a fresh generation for: ${bases[*]}"
[ ${#treed[@]} -eq 0 ] || info "the series made on the trees match the captures: ${treed[*]}"
for b in "${treeless[@]}"; do
	info "$b: no tree here ($(base_tree_text "$b")): its capture was not verified against it"
done
