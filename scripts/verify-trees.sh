#!/usr/bin/env bash
# Verify every tree of configs/trees.conf that this machine has (imported
# at its commit, or whose clone LWNFS_TREE_<tree> names) with
# scripts/verify-tree.sh, and name the ones it does not have: their rows of
# docs/verified.txt are kept as they are. With bases named, only the
# trees that take one of their series (make check-all BASE=...).
#
# usage: scripts/verify-trees.sh [BASE...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mapfile -t trees < <(conf_rows "$TREES_CONF" | awk '{ print $1 }')
if [ ${#trees[@]} -eq 0 ]; then
	info "configs/trees.conf names no tree: nothing to verify"
	exit 0
fi
ok=() bad=() unrecorded=() absent=() other=()
for t in "${trees[@]}"; do
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF -- "$(series_of "$t" 2>/dev/null || echo -)"; then
		other+=("$t")
		continue
	fi
	if ! has_tree "$t"; then
		absent+=("$t")
		continue
	fi
	rc=0
	"$LWNFS_TOP/scripts/verify-tree.sh" "$t" || rc=$?
	case $rc in
	0) ok+=("$t") ;;
	1) bad+=("$t") ;;
	4) absent+=("$t") ;;
	*) unrecorded+=("$t") ;;
	esac
done
[ ${#absent[@]} -eq 0 ] ||
	info "not here, their rows kept: ${absent[*]} (a clone named by LWNFS_TREE_<tree> verifies one; configs/trees.conf names the repositories)"
[ ${#other[@]} -eq 0 ] || info "not run, of other series than $*: ${other[*]}"
[ ${#ok[@]} -eq 0 ] || info "verified: ${ok[*]}"
[ ${#bad[@]} -eq 0 ] || echo "not verified, recorded in docs/verified.txt: ${bad[*]}" >&2
[ ${#unrecorded[@]} -eq 0 ] || echo "not verified, nothing recorded: ${unrecorded[*]} (above)" >&2
[ ${#bad[@]} -eq 0 ] && [ ${#unrecorded[@]} -eq 0 ]
