#!/usr/bin/env bash
# Fail when patches/, series, module/ or meta-lwnfs's kernel features differ
# from a fresh generation: they must be exactly what `make patches` makes
# from the sources. A base whose tree is not here (a git snapshot without
# its clone) cannot be generated; its series is checked without the tree
# (scripts/check-series.sh), and so is every other base's, which shows that
# the tree-free check accepts what a generation makes.
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
	if generable "$b"; then
		treed+=("$b")
	else
		treeless+=("$b")
	fi
done
[ ${#treed[@]} -eq 0 ] || "$LWNFS_TOP/scripts/gen-patches.sh" -o "$fresh" "${treed[@]}" >/dev/null
for b in "${bases[@]}"; do
	"$LWNFS_TOP/scripts/check-series.sh" "$b" || status=1
done
"$LWNFS_TOP/scripts/gen-module.sh" -o "$fresh/module" "${bases[@]}" >/dev/null
"$LWNFS_TOP/scripts/gen-yocto.sh" -o "$fresh/kmeta" >/dev/null
diff -ru "$fresh/kmeta" "$LWNFS_TOP/$KMETA" || status=1
newest=$(newest_base)
for b in "${bases[@]}"; do
	[ ! -d "$fresh/$b" ] || diff -ru "$fresh/$b" "$LWNFS_TOP/patches/$b" || status=1
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
[ ${#treed[@]} -eq 0 ] ||
	info "patches/, series, module/ and meta-lwnfs's features match a fresh generation for: ${treed[*]}"
for b in "${treeless[@]}"; do
	info "$b: module/ and meta-lwnfs's features match; patches/$b was checked without its tree: its hooks' context and index lines were not (no tree: $(base_tree_text "$b"))"
done
