#!/usr/bin/env bash
# Take back sources edited as states (see scripts/gen-patches.sh --states):
# the last state becomes fs-lwnfs/, Documentation/ and selftests-lwnfs/, and
# each patch's split/<patch>.diff is rewritten as the difference between the
# state before it and after it, in the files that existed before it.
#
# usage: scripts/split-import.sh DIR
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: $0 DIR}
conf=$LWNFS_TOP/split/patches.conf
mapfile -t patches < <(awk '!/^#/ && NF { print $1 }' "$conf")
n=${#patches[@]}
[ -d "$dir/$n" ] || die "$dir/$n missing; make it with scripts/gen-patches.sh --states $dir"

for ((k = 2; k <= n; k++)); do
	diff_tree "$dir/$((k - 1))" "$dir/$k" "$LWNFS_TOP/split/${patches[k - 1]}.diff"
done
import_sources "$dir/$n"
info "imported $dir; now run: make patches"
