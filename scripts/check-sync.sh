#!/usr/bin/env bash
# Fail when patches/ or series differ from a fresh generation: the committed
# patches must be exactly what `make patches` makes from the sources.
#
# usage: scripts/check-sync.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
"$LWNFS_TOP/scripts/gen-patches.sh" -o "$fresh" >/dev/null
newest=$(newest_base)
sed "s|^|patches/$newest/|" "$fresh/$newest/series" >"$fresh/series.top"

status=0
diff -ru "$fresh" "$LWNFS_TOP/patches" --exclude=series.top || status=1
diff -u "$fresh/series.top" "$LWNFS_TOP/series" || status=1
[ "$status" -eq 0 ] ||
	die "patches/ is out of sync with fs-lwnfs/, Documentation/ and split/; run: make patches, and commit the result"
info "patches/ and series match a fresh generation for: $(all_bases | tr '\n' ' ')"
