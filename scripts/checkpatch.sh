#!/usr/bin/env bash
# Run the base's own scripts/checkpatch.pl --strict on every patch of its
# series. Any error or warning fails, in the code or in the commit message,
# except the known false positives listed in configs/checkpatch.allow for
# that base (or for "*", every base), which are shown and counted. The
# findings read are cross-checked against checkpatch's own "total:" line
# and exit status, so a finding in a form this script does not parse fails.
# CHECKs are listed, not failed; each one must be justified in its patch.
#
# usage: scripts/checkpatch.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
tree=$(tree_dir "$base")
series=$LWNFS_TOP/patches/$base
[ -s "$series/series" ] || die "no series for $base; run: make patches"
allow=$CONFIGS/checkpatch.allow

# allowed TYPE FILE: is this a known false positive on this base?
allowed() {
	awk -F'\t' -v b="$base" -v t="$1" -v f="$2" '!/^#/ && ($1 == b || $1 == "*") && $2 == t && $3 == f { ok = 1 } END { exit !ok }' "$allow"
}

# A finding is "FILE:LINE: LEVEL:TYPE: message"; FILE is empty for the
# commit message, and "FILE:LINE: " is missing for a few patch-wide ones
# (a missing Signed-off-by).
finding='^([^ ]*:[0-9]+: )?(ERROR|WARNING|CHECK):([A-Z0-9_]+):'
errors=0 warnings=0 checks=0 allowed_n=0
while IFS= read -r p; do
	rc=0
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --show-types --showfile --no-summary-file "$series/$p" 2>&1) || rc=$?
	total=$(grep -E '^total: [0-9]+ errors, [0-9]+ warnings, [0-9]+ checks' <<<"$out" || true)
	[ -n "$total" ] || die "$base: checkpatch printed no total for $p:
$out"
	read -r t_err t_warn t_chk < <(sed -E 's/^total: ([0-9]+) errors, ([0-9]+) warnings, ([0-9]+) checks.*/\1 \2 \3/' <<<"$total")
	e=0 w=0 c=0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		level=$(sed -E "s/$finding.*/\\2/" <<<"$line")
		type=$(sed -E "s/$finding.*/\\3/" <<<"$line")
		file=
		[[ $line =~ ^([^ ]*):[0-9]+:\  ]] && file=${BASH_REMATCH[1]}
		case "$level" in ERROR) e=$((e + 1)) ;; WARNING) w=$((w + 1)) ;; CHECK) c=$((c + 1)) ;; esac
		if [ -n "$file" ] && allowed "$type" "$file"; then
			allowed_n=$((allowed_n + 1))
			echo "$p: allowed (configs/checkpatch.allow): $line"
			continue
		fi
		echo "$p: ${file:-(commit message)}: $line"
		case "$level" in
		ERROR) errors=$((errors + 1)) ;;
		WARNING) warnings=$((warnings + 1)) ;;
		CHECK) checks=$((checks + 1)) ;;
		esac
	done < <(grep -E "$finding" <<<"$out" || true)
	if [ "$e $w $c" != "$t_err $t_warn $t_chk" ]; then
		echo "$out"
		die "$base: $p: checkpatch counted $t_err errors, $t_warn warnings, $t_chk checks, but $e, $w, $c were read from its output above"
	fi
	if [ $((e + w + c)) -eq 0 ] && [ "$rc" -ne 0 ]; then
		echo "$out"
		die "$base: $p: checkpatch exited with status $rc and no finding"
	fi
done <"$series/series"
echo "checkpatch --strict on $base: $errors errors, $warnings warnings, $checks checks ($allowed_n known false positives allowed)"
[ "$errors" -eq 0 ] && [ "$warnings" -eq 0 ]
