#!/usr/bin/env bash
# Check that a base's series drops into Buildroot: through the external
# tree contrib/buildroot, whose kernel extension picks the series of the
# kernel's version with lwnfs-line.sh and applies it with Buildroot's
# apply-patches.sh rules; and through BR2_LINUX_KERNEL_PATCH, once as
# shipped (with its series file) and once as a directory of only the
# *.patch files. Check that the extension stops on a version no series
# serves, and that the symbols of contrib/fragments/ (which the external
# tree's config fixups set) exist on the base once the series is in.
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
ext=$LWNFS_TOP/contrib/buildroot
for f in external.desc Config.in external.mk linux/Config.ext.in linux/linux-ext-lwnfs.mk lwnfs-line.sh \
	package/lwnfs/lwnfs.mk package/lwnfs-module/lwnfs-module.mk; do
	[ -f "$ext/$f" ] || die "contrib/buildroot/$f is missing"
done
grep -qx 'name: LWNFS' "$ext/external.desc" || die "contrib/buildroot/external.desc does not name the tree LWNFS"
grep -qx 'LINUX_EXTENSIONS += lwnfs' "$ext/linux/linux-ext-lwnfs.mk" ||
	die "contrib/buildroot/linux/linux-ext-lwnfs.mk does not add the extension lwnfs"

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

# The extension, run by make from linux-ext-lwnfs.mk itself, as linux.mk
# runs its pre-patch hook: LWNFS_DIR is the checkout (the package lwnfs's
# copy of it), and APPLY_PATCHES a stand-in for Buildroot's
# apply-patches.sh that applies a directory by its series file, as that
# does, with br_apply. It must pick the base's series from the base's own
# Makefile; a version no series serves must stop it.
scratch_tree "$base" "$series" "$work/ext"
# (the scratch tree holds only the files the series changes; the
# extension reads the top Makefile)
git -C "$(tree_dir "$base")" show "$BASE_TAG:Makefile" >"$work/ext/Makefile"
# shellcheck disable=SC2016 # the stand-in's own arguments, written literally
printf '#!/usr/bin/env bash\nset -euo pipefail\nLWNFS_LOCK=no\n. "%s/scripts/lib.sh"\n%s\n%s\n%s\nbr_apply "$2" "$1" >"%s/applied"\n' \
	"$LWNFS_TOP" "base=$base work=$work" "$(declare -f br_patch_list)" "$(declare -f br_apply)" "$work" >"$work/apply-patches"
chmod +x "$work/apply-patches"
# shellcheck disable=SC2016 # a make variable, written literally
printf 'include %s/linux/linux-ext-lwnfs.mk\nall:\n\t$(LWNFS_PREPARE_KERNEL)\n' "$ext" >"$work/ext.mk"
run_ext() {
	make -s -f "$work/ext.mk" BR2_EXTERNAL_LWNFS_PATH="$ext" LINUX_DIR="$1" LWNFS_DIR="$LWNFS_TOP" \
		APPLY_PATCHES="$work/apply-patches" all
}
run_ext "$work/ext" || die "$base: the kernel extension's hook fails on $base's own tree"
n=$(cat "$work/applied")
mkdir "$work/other"
printf 'VERSION = 4\nPATCHLEVEL = 19\nSUBLEVEL = 325\n' >"$work/other/Makefile"
if run_ext "$work/other" >/dev/null 2>"$work/stop"; then
	die "the kernel extension patches Linux 4.19, a version no series serves"
fi
grep -q "^lwnfs: Linux 4\.19\.325 is outside the versions lwnfs serves ($("$LWNFS_TOP/scripts/ranges.sh" text | sed 's/\./\\./g')); no series for it$" "$work/stop" ||
	die "the kernel extension's stop on Linux 4.19 does not name the version and the versions lwnfs serves: $(cat "$work/stop")"

scratch_tree "$base" "$series" "$work/with-series"
br_apply "$series" "$work/with-series" >/dev/null
rm "$work/ext/Makefile"
diff -r "$work/ext" "$work/with-series" >/dev/null ||
	die "$base: the extension and BR2_LINUX_KERNEL_PATCH give different trees"

# the same directory as a user might copy it: the *.patch files only
mkdir "$work/patches-only"
cp "$series"/*.patch "$work/patches-only/"
[ "$(br_patch_list "$work/patches-only")" = "$(br_patch_list "$series")" ] ||
	die "$base: the C-locale order of the *.patch files is not the series order"
scratch_tree "$base" "$series" "$work/glob"
br_apply "$work/patches-only" "$work/glob" >/dev/null
diff -r "$work/with-series" "$work/glob" >/dev/null ||
	die "$base: applying the *.patch files gives another tree than applying the series"

# every symbol the fragments set is defined on the base with the series in
tree=$(tree_dir "$base")
while IFS= read -r sym; do
	if ! grep -rqsxE "(menu)?config $sym" "$work/with-series" --include='Kconfig*' &&
		! git -C "$tree" grep -qE "^(menu)?config $sym$" "$BASE_TAG" -- "*Kconfig*"; then
		die "$base: contrib/fragments/ sets CONFIG_$sym, which $base with the series does not define"
	fi
done < <(cat "$LWNFS_TOP"/contrib/fragments/*.config | sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=.*/\1/p' | sort -u)
info "$base: the external tree picks and applies all $n patches, and stops on a version no series serves; BR2_LINUX_KERNEL_PATCH applies them (series file, and the *.patch files alone); the fragments' symbols exist"
