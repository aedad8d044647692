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
	newer=$dir/${bases[i - 1]} older=$dir/${bases[i]}
	out=$LWNFS_TOP/deltas/${bases[i]}.diff
	: >"$out.new"
	while IFS= read -r f; do
		diff -u --label "a/$f" --label "b/$f" "$newer/$f" "$older/$f" >>"$out.new" || true
	done < <(cd "$newer" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
	if [ -s "$out.new" ]; then
		mv "$out.new" "$out"
	else
		rm -f "$out.new" "$out"
	fi
done

newest=$dir/${bases[0]}
rsync -a --delete "$newest/fs/lwnfs/" "$LWNFS_TOP/fs-lwnfs/"
rsync -a --delete "$newest/tools/testing/selftests/filesystems/lwnfs/" "$LWNFS_TOP/selftests-lwnfs/"
cp "$newest/Documentation/filesystems/lwnfs.rst" "$LWNFS_TOP/Documentation/filesystems/lwnfs.rst"
info "imported $dir; now run: make patches"
