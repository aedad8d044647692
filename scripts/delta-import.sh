#!/usr/bin/env bash
# Take back per-base sources edited as finals (see scripts/gen-patches.sh
# --finals): the newest base's become fs-lwnfs/, Documentation/ and
# selftests-lwnfs/, and each older base's deltas/<base>.diff is rewritten as
# its difference from the next newer base.
#
# Safe by construction: an export made from other sources is refused; an
# edit made in a newer base and missing from an older one (which would
# become a delta that undoes it) is carried into the older base and named,
# or fails; and the result is generated again and compared with the edited
# finals, restoring the previous sources if anything would be lost.
#
# usage: scripts/delta-import.sh DIR      (LWNFS_ACCEPT=1: see carry_edits)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: $0 DIR}
check_export "$dir" finals
mapfile -t bases < <(all_bases)
for b in "${bases[@]}"; do
	[ -d "$dir/$b" ] || die "$dir/$b missing; make it with scripts/gen-patches.sh --finals $dir"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$LWNFS_TOP/scripts/gen-patches.sh" --finals "$work/orig" >/dev/null
ok=1
for ((i = 1; i < ${#bases[@]}; i++)); do
	carry_edits "$work/orig/${bases[i - 1]}" "$dir/${bases[i - 1]}" "$dir/${bases[i]}" \
		"${bases[i - 1]}" "${bases[i]}" || ok=0
done
[ "$ok" = 1 ] || die "nothing imported"

(cd "$LWNFS_TOP" && tar -cf "$work/backup.tar" fs-lwnfs selftests-lwnfs Documentation deltas)
for ((i = 1; i < ${#bases[@]}; i++)); do
	diff_tree "$dir/${bases[i - 1]}" "$dir/${bases[i]}" "$LWNFS_TOP/deltas/${bases[i]}.diff"
done
import_sources "$dir/${bases[0]}"
if ! "$LWNFS_TOP/scripts/gen-patches.sh" --finals "$work/again" >/dev/null ||
	! diff -r -x .lwnfs-export "$dir" "$work/again"; then
	(cd "$LWNFS_TOP" && rm -rf fs-lwnfs selftests-lwnfs Documentation deltas && tar -xf "$work/backup.tar")
	die "the imported sources do not give back the edited finals (differences above); nothing imported"
fi
info "imported $dir; now run: make patches"
