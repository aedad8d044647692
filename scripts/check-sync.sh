#!/usr/bin/env bash
# Fail when patches/, series or module/ differ from a fresh generation: the
# committed patches and module sources must be exactly what `make patches`
# makes from the sources.
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
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
"$LWNFS_TOP/scripts/gen-patches.sh" -o "$fresh" "${bases[@]}" >/dev/null
"$LWNFS_TOP/scripts/gen-module.sh" -o "$fresh/module" "${bases[@]}" >/dev/null
newest=$(newest_base)

status=0
for b in "${bases[@]}"; do
	diff -ru "$fresh/$b" "$LWNFS_TOP/patches/$b" || status=1
	diff -ru -x .gitignore "$fresh/module/$b" "$LWNFS_TOP/module/$b" || status=1
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
	die "patches/ or module/ is out of sync with fs-lwnfs/, Documentation/ and split/; run: make patches, and commit the result"
info "patches/, series and module/ match a fresh generation for: ${bases[*]}"
