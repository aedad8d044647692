#!/usr/bin/env bash
# Check that a base's series drops into Buildroot unchanged: apply
# patches/BASE/ to the pristine base under the rules Buildroot's
# BR2_LINUX_KERNEL_PATCH follows for a directory, once as shipped (with its
# series file) and once as a directory of only the *.patch files; and check
# that every symbol of contrib/buildroot/lwnfs.config exists on the base
# once the series is in.
#
# Buildroot's rules (support/scripts/apply-patches.sh, and linux.mk's
# "*.patch" pattern for a directory): a "series" file, when present, lists
# the patches (lines starting with "#" skipped, the first field taken);
# otherwise the *.patch files in C-locale order. A listed file that is
# missing, or a second patch of the same file name, is an error. Each is
# applied with patch -g0 -p1 -t -N, which allows fuzz; this project allows
# none, so a hunk that needs it fails here too. Any .rej file afterwards is
# an error.
#
# usage: scripts/check-buildroot.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
series=$(series_dir "$base")
fragment=$LWNFS_TOP/contrib/buildroot/lwnfs.config
need_fragment_link contrib/buildroot/lwnfs.config

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# br_patch_list DIR: the patches Buildroot applies from DIR, in its order.
br_patch_list() {
	if [ -e "$1/series" ]; then
		grep -Ev '^#' "$1/series" | cut -d ' ' -f1 | grep -v '^$' || true
	else
		(cd "$1" && LC_COLLATE=C ls -d -- *.patch 2>/dev/null) || true
	fi
}

# br_apply PATCH_DIR BUILD_DIR: apply as Buildroot does; fail as it fails.
br_apply() {
	local dir=$1 build=$2 p applied=() seen
	[ -n "$(br_patch_list "$dir")" ] || die "$base: Buildroot would find no patch in $dir"
	while IFS= read -r p; do
		[ -e "$dir/$p" ] || die "$base: Buildroot: missing patch file $dir/$p"
		for seen in "${applied[@]}"; do
			[ "$(basename "$seen")" != "$(basename "$p")" ] ||
				die "$base: Buildroot: duplicate file name '$(basename "$p")'"
		done
		applied+=("$p")
		if ! patch -g0 -p1 --no-backup-if-mismatch -d "$build" -t -N <"$dir/$p" >"$work/patch.log" 2>&1; then
			cat "$work/patch.log" >&2
			die "$base: Buildroot's patch -g0 -p1 -t -N fails for $p"
		fi
		if grep -q 'with fuzz' "$work/patch.log"; then
			cat "$work/patch.log" >&2
			die "$base: $p applies in Buildroot only with fuzz"
		fi
	done < <(br_patch_list "$dir")
	# a backstop: patch -t has failed already if a hunk was rejected
	if [ -n "$(find "$build" -name '*.rej' -o -name '.*.rej')" ]; then
		die "$base: Buildroot: reject files after applying $dir"
	fi
	echo "${#applied[@]}"
}

scratch_tree "$base" "$series" "$work/with-series"
n=$(br_apply "$series" "$work/with-series")

# the same directory as a user might copy it: the *.patch files only
mkdir "$work/patches-only"
cp "$series"/*.patch "$work/patches-only/"
[ "$(br_patch_list "$work/patches-only")" = "$(br_patch_list "$series")" ] ||
	die "$base: the C-locale order of the *.patch files is not the series order"
scratch_tree "$base" "$series" "$work/glob"
br_apply "$work/patches-only" "$work/glob" >/dev/null
diff -r "$work/with-series" "$work/glob" >/dev/null ||
	die "$base: applying the *.patch files gives another tree than applying the series"

# every symbol the fragment sets is defined on the base with the series in
tree=$(tree_dir "$base")
while IFS= read -r sym; do
	if ! grep -rqsxE "(menu)?config $sym" "$work/with-series" --include='Kconfig*' &&
		! git -C "$tree" grep -qE "^(menu)?config $sym$" "$BASE_TAG" -- "*Kconfig*"; then
		die "$base: contrib/buildroot/lwnfs.config sets CONFIG_$sym, which $base with the series does not define"
	fi
done < <(sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=.*/\1/p' "$fragment")
info "$base: Buildroot's rules apply all $n patches (series file, and the *.patch files alone); the fragment's $(grep -c '^CONFIG_' "$fragment") symbols exist"
