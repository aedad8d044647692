#!/usr/bin/env bash
# Run the base's own scripts/checkpatch.pl --strict on every patch of its
# series. Any error or warning fails; CHECKs are listed, and each one must be
# justified in its patch's commit message.
#
# usage: scripts/checkpatch.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
tree=$(tree_dir "$base")
series=$LWNFS_TOP/patches/$base

errors=0 warnings=0 checks=0
while IFS= read -r p; do
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --showfile --no-summary-file "$series/$p" 2>&1) || true
	total=$(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p')
	[ -n "$total" ] || die "$base: checkpatch printed no total for $p:
$out"
	read -r e w c <<<"$total"
	errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
	if [ "$((e + w + c))" -gt 0 ]; then
		echo "$p:"
		echo "$out" | grep -E -A1 '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):|^(ERROR|WARNING|CHECK):' | sed 's/^/    /' || true
	fi
done <"$series/series"
echo "checkpatch --strict on $base: $errors errors, $warnings warnings, $checks checks"
[ "$errors" -eq 0 ] && [ "$warnings" -eq 0 ]
