#!/usr/bin/env bash
# Take back per-base sources edited as finals (see scripts/gen-patches.sh
# --finals): the newest base's become fs-lwnfs/, Documentation/ and
# selftests-lwnfs/, and each older base's deltas/<base>.diff is rewritten as
# its difference from the next newer base.
#
# usage: scripts/delta-import.sh DIR
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: $0 DIR}
mapfile -t bases < <(all_bases)
for b in "${bases[@]}"; do
	[ -d "$dir/$b" ] || die "$dir/$b missing; make it with scripts/gen-patches.sh --finals $dir"
done

for ((i = 1; i < ${#bases[@]}; i++)); do
	diff_tree "$dir/${bases[i - 1]}" "$dir/${bases[i]}" "$LWNFS_TOP/deltas/${bases[i]}.diff"
done
import_sources "$dir/${bases[0]}"
info "imported $dir; now run: make patches"
