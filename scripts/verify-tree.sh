#!/usr/bin/env bash
# Verify a kernel tree with the series its version's range gives (or the
# one its row of configs/trees.conf names), and
# record the result as its row of docs/verified.txt: the tree is a base
# (bases.conf) or a tree of configs/trees.conf. The steps, each with a
# column of the row:
#   am        plain git am of the series (scripts/apply.sh)
#   y, m      the guest configuration built with CONFIG_LWNFS=y, and =m
#   w1        fs/lwnfs/ compiled again with W=1 in both: no diagnostic
#   kselftest the =y guest: KUnit and the kselftest (scripts/guest.sh)
#   module    the out-of-tree module (module/<series>) built with W=1
#             against the tree's CONFIG_LWNFS=n kernel
# A step whose input failed is "-". The row also carries the tree's
# provenance and the hash of the lwnfs sources it was verified with
# (lwnfs_sources_hash), by which it goes stale when they change. Rows of
# other trees are kept as they are. A tree takes the series its row of
# configs/trees.conf names: the one its version's range gives, or a base's
# (to verify a version before a range holds it).
#
# usage: scripts/verify-tree.sh BASE|TREE
# Exit status: 0 when every step passed and the row is recorded, 1 when a
# step failed and the row is recorded, 2 when nothing could be recorded (a
# broken row, a failed fetch, sources that changed during the run), 4 when
# the tree is not here (a git tree whose clone is not named).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# unrecorded MESSAGE: stop with status 2, nothing recorded
unrecorded() {
	echo "error: $*; nothing recorded" >&2
	exit 2
}
name=${1:?usage: $0 BASE|TREE}
(check_target "$name") || unrecorded "$name: no such base or tree"
series=$(series_of "$name") || unrecorded "$name: no series to verify it with"
sources=$(lwnfs_sources_hash "$series") || unrecorded "$name: the $series series or its module source is missing"
S=$LWNFS_TOP/scripts
logs=$LWNFS_CACHE/logs/verify-$name
mkdir -p "$logs"
rm -f "$logs"/*.log

rc=0
"$S/fetch-base.sh" "$name" >"$logs/fetch.log" 2>&1 || rc=$?
if [ "$rc" -eq 4 ]; then
	tail -n 1 "$logs/fetch.log" >&2
	exit 4
fi
[ "$rc" -eq 0 ] || { cat "$logs/fetch.log" && unrecorded "$name: fetching its tree failed"; }

declare -A res=()
failed=0
# step COLUMN COMMAND...: run it, its output in the column's log
step() {
	local col=$1
	shift
	if "$@" >>"$logs/$col.log" 2>&1; then
		res[$col]=pass
	else
		res[$col]=FAIL failed=1
		echo "$name: $col failed (log: $logs/$col.log)" >&2
	fi
}
# ran COLUMN...: whether each of them passed
ran() {
	local c
	for c in "$@"; do [ "${res[$c]:-}" = pass ] || return 1; done
}
# the tree's own version, from its Makefile (a Debian base's pin is the
# package's version)
kv=$(git -C "$(tree_dir "$name")" show "$BASE_TAG:Makefile" | makefile_version) ||
	unrecorded "$name: its tree's Makefile cannot be read"
info "$name: Linux $kv, with the $series series"
# a tree that holds the current series, applied by apply.sh's git am,
# keeps its builds: applying again would rebuild what depends on the hooks
if (need_applied "$name") >/dev/null 2>&1; then
	res[am]=pass
	echo "$name: the tree holds $(series_dir "$name" | sed "s|^$LWNFS_TOP/||"), applied with git am" >"$logs/am.log"
else
	step am "$S/apply.sh" "$name"
fi
if ran am; then
	step y "$S/build.sh" "$name" y
	step m "$S/build.sh" "$name" m
	if ran y m; then
		step w1 "$S/check-warnings.sh" "$name" w1 y
		[ "${res[w1]}" = FAIL ] || step w1 "$S/check-warnings.sh" "$name" w1 m
	fi
	if ran y; then
		step kselftest "$S/selftest.sh" "$name" y
		ran kselftest && step kselftest "$S/guest.sh" "$name" y test
	fi
	# (the module's column: the =n kernel it builds against, then it)
	step module "$S/build.sh" "$name" n
	ran module && step module "$S/module.sh" "$name"
fi

# the sources the steps used: the same at the end as at the start
[ "$(lwnfs_sources_hash "$series" || true)" = "$sources" ] ||
	unrecorded "patches/$series or module/$series changed while $name was verified; run it again"
row=$(printf '%s\t' "$name" "$kv" "$series" "$(provenance "$name")" "$(base_pin "$name")" "$sources")
for c in am y m w1 kselftest module; do
	row+="${res[$c]:--}"$'\t'
done
row+=$(date -u +%Y-%m-%d)
record_verified "$name" "$row" || unrecorded "docs/verified.txt could not be written"
"$S/gen-docs.sh" verified lines >/dev/null ||
	echo "$name: its row is recorded, but the tables that show it were not rewritten: run scripts/gen-docs.sh verified lines" >&2
summary=$(for c in am y m w1 kselftest module; do printf '%s %s, ' "$c" "${res[$c]:--}"; done)
if [ "$failed" -eq 0 ]; then
	info "$name: verified with the $series series: ${summary%, } (docs/verified.txt)"
else
	die "$name: not verified with the $series series: ${summary%, } (docs/verified.txt; logs: $logs)"
fi
