#!/usr/bin/env bash
# Take back sources edited as states (see scripts/gen-patches.sh --states):
# the last state becomes fs-lwnfs/, Documentation/ and selftests-lwnfs/, and
# each patch's split/<patch>.diff is rewritten as the difference between the
# state before it and after it, in the files that existed before it.
#
# Safe by construction: an export made from other sources is refused; an
# edit made in state k and missing from state k+1 (which would become a
# revert inside patch k+1) is carried forward and named, or fails; and the
# result is generated again and compared with the edited states, restoring
# the previous sources if anything would be lost.
#
# usage: scripts/split-import.sh DIR      (LWNFS_ACCEPT=1: see carry_edits)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: $0 DIR}
check_export "$dir" states
conf=$LWNFS_TOP/split/patches.conf
mapfile -t patches < <(conf_rows "$conf" | awk '{ print $1 }')
n=${#patches[@]}
[ -d "$dir/$n" ] || die "$dir/$n missing; make it with scripts/gen-patches.sh --states $dir"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$LWNFS_TOP/scripts/gen-patches.sh" --states "$work/orig" >/dev/null
ok=1
for ((k = 1; k < n; k++)); do
	carry_edits "$work/orig/$k" "$dir/$k" "$dir/$((k + 1))" "state $k (${patches[k - 1]})" "state $((k + 1))" || ok=0
done
[ "$ok" = 1 ] || die "nothing imported"

# Import, then prove the round trip; put everything back if it fails.
(cd "$LWNFS_TOP" && tar -cf "$work/backup.tar" fs-lwnfs selftests-lwnfs Documentation split)
for ((k = 2; k <= n; k++)); do
	diff_tree "$dir/$((k - 1))" "$dir/$k" "$LWNFS_TOP/split/${patches[k - 1]}.diff"
done
import_sources "$dir/$n"
if ! "$LWNFS_TOP/scripts/gen-patches.sh" --states "$work/again" >/dev/null ||
	! diff -r -x .lwnfs-export "$dir" "$work/again"; then
	(cd "$LWNFS_TOP" && rm -rf fs-lwnfs selftests-lwnfs Documentation split && tar -xf "$work/backup.tar")
	die "the imported sources do not give back the edited states (differences above); nothing imported"
fi
info "imported $dir; now run: make patches"
