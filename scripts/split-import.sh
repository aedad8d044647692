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
	p=${patches[k - 1]}
	out=$LWNFS_TOP/split/$p.diff
	: >"$out.new"
	while IFS= read -r f; do
		[ -f "$dir/$k/$f" ] || continue
		diff -u --label "a/$f" --label "b/$f" "$dir/$((k - 1))/$f" "$dir/$k/$f" >>"$out.new" || true
	done < <(cd "$dir/$((k - 1))" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
	if [ -s "$out.new" ]; then
		mv "$out.new" "$out"
	else
		rm -f "$out.new" "$out"
	fi
done

last=$dir/$n
rsync -a --delete "$last/fs/lwnfs/" "$LWNFS_TOP/fs-lwnfs/"
rsync -a --delete "$last/tools/testing/selftests/filesystems/lwnfs/" "$LWNFS_TOP/selftests-lwnfs/"
cp "$last/Documentation/filesystems/lwnfs.rst" "$LWNFS_TOP/Documentation/filesystems/lwnfs.rst"
info "imported $dir; now run: make patches"
