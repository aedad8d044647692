#!/usr/bin/env bash
# Build fs/lwnfs/ at every patch of a base's series, with W=1, and the lwnfs
# kselftest at every patch that has it, so that the series bisects: each
# patch must build on its own, without a warning. Run after
# scripts/apply.sh; the tree is back at the full series after, even when
# interrupted (and a tree left elsewhere is refused by the other steps).
#
# usage: scripts/check-bisect.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_applied "$base"
tree=$(tree_dir "$base")
log=$(mktemp)
trap 'rm -f "$log"; git -C "$tree" checkout -q lwnfs' EXIT

n=0 kconfig=''
while IFS= read -r c; do
	n=$((n + 1))
	git -C "$tree" checkout -q "$c"
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	# What the base needs before fs/lwnfs can build (the configuration,
	# the generated headers), made again only where a patch changes a
	# Kconfig file; then fs/lwnfs compiled on its own, and judged
	# (scripts/lib.sh judge_build).
	if [ "$(kconfig_diff "$base" "$c")" != "$kconfig" ]; then
		kconfig=$(kconfig_diff "$base" "$c")
		if ! MAKEFLAGS_EXTRA="W=1" "$LWNFS_TOP/scripts/build.sh" "$base" bisect prepare >"$log" 2>&1; then
			cat "$log"
			die "$base: patch $n ($subject): the tree does not configure and prepare"
		fi
	fi
	rm -rf "$(build_dir "$base" "${LWNFS_ARCH:-x86_64}-bisect")/fs/lwnfs"
	if ! MAKEFLAGS_EXTRA="W=1" "$LWNFS_TOP/scripts/build.sh" "$base" bisect fs/lwnfs/ >"$log" 2>&1 ||
		! verdict=$(judge_build "$log" "$base" gcc); then
		cat "$log"
		echo "${verdict:-}"
		die "$base: patch $n ($subject) does not build cleanly on its own"
	fi
	grep '^allowed' <<<"$verdict" || true
	what="fs/lwnfs"
	if [ -d "$tree/tools/testing/selftests/filesystems/lwnfs" ]; then
		"$LWNFS_TOP/scripts/selftest.sh" "$base" bisect >"$log" 2>&1 || {
			cat "$log"
			die "$base: patch $n ($subject): the lwnfs kselftest does not build cleanly"
		}
		what="$what and the kselftest"
	fi
	echo "patch $n: $what build (W=1, 0 warnings): $subject"
done < <(git -C "$tree" rev-list --reverse "$BASE_TAG..lwnfs")
info "$base: all $n patches build on their own"
