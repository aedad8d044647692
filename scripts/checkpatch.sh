#!/usr/bin/env bash
# Run the base's own scripts/checkpatch.pl --strict on every patch of its
# series. Any error or warning fails, except the known false positives listed
# in configs/checkpatch.allow for that base (or for "*", every base), which are shown and counted.
# CHECKs are listed; each one must be justified in its patch's message.
#
# usage: scripts/checkpatch.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
tree=$(tree_dir "$base")
series=$LWNFS_TOP/patches/$base
allow=$LWNFS_TOP/configs/checkpatch.allow

# allowed TYPE FILE: is this a known false positive on this base?
allowed() {
	awk -F'\t' -v b="$base" -v t="$1" -v f="$2" '!/^#/ && ($1 == b || $1 == "*") && $2 == t && $3 == f { ok = 1 } END { exit !ok }' "$allow"
}

errors=0 warnings=0 checks=0 allowed_n=0
while IFS= read -r p; do
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --show-types --showfile --no-summary-file "$series/$p" 2>&1) || true
	grep -q '^total: ' <<<"$out" || die "$base: checkpatch printed no total for $p:
$out"
	# one line per finding: FILE:LINE: LEVEL:TYPE: message
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		file=${line%%:*}
		level=$(sed -E 's/^[^ ]+: (ERROR|WARNING|CHECK):.*/\1/' <<<"$line")
		type=$(sed -E 's/^[^ ]+: [A-Z]+:([A-Z_]+):.*/\1/' <<<"$line")
		if allowed "$type" "$file"; then
			allowed_n=$((allowed_n + 1))
			echo "$p: allowed (configs/checkpatch.allow): $line"
			continue
		fi
		echo "$p: $line"
		case "$level" in
		ERROR) errors=$((errors + 1)) ;;
		WARNING) warnings=$((warnings + 1)) ;;
		CHECK) checks=$((checks + 1)) ;;
		esac
	done < <(grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' <<<"$out" || true)
	# findings without a file (commit message, sign-off) have no FILE: prefix
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		echo "$p: $line"
		case "$line" in ERROR*) errors=$((errors + 1)) ;; WARNING*) warnings=$((warnings + 1)) ;; CHECK*) checks=$((checks + 1)) ;; esac
	done < <(grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" || true)
done <"$series/series"
echo "checkpatch --strict on $base: $errors errors, $warnings warnings, $checks checks ($allowed_n known false positives allowed)"
[ "$errors" -eq 0 ] && [ "$warnings" -eq 0 ]
