#!/usr/bin/env bash
# Check that a base's series drops into a kernel-yocto build through
# contrib/meta-lwnfs, as the layer's recipes and the kernel tools read it:
#  - the bbappends add lwnfs only when DISTRO_FEATURES has "lwnfs";
#  - lwnfs-kernel.inc adds the feature of the series it takes (which
#    series that is, for each version, scripts/check-ranges.sh checks);
#  - the base's feature (features/lwnfs/lwnfs-BASE.scc) names the base's
#    whole series in order, each patch where the kernel tools find it (in
#    lwnfs-patches, the layer's link to patches/), and the config features
#    name fragments equal to contrib/fragments/;
#  - its patches apply to the pristine base as kgit-s2q applies them, with
#    git am, one by one. kgit-s2q falls back to git am -C1 and then to
#    git apply --index -C1; a patch that needs a fallback fails here, named
#    with the fallback that would take it.
#
# usage: scripts/check-yocto.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
series=$(series_dir "$base")
layer=$LWNFS_TOP/contrib/meta-lwnfs
linux=$layer/recipes-kernel/linux
features=$LWNFS_TOP/$KMETA/features/lwnfs
for f in "$layer/conf/layer.conf" "$linux/lwnfs-kernel.inc" "$linux/linux-yocto_%.bbappend" \
	"$features/lwnfs-$base.scc" "$features/lwnfs-y.scc" "$features/lwnfs-m.scc"; do
	[ -f "$f" ] || die "${f#"$LWNFS_TOP"/} is missing (make patches writes the features)"
done
[ "$(readlink -f "$linux/lwnfs/lwnfs-patches")" = "$(readlink -f "$LWNFS_TOP/patches")" ] ||
	die "contrib/meta-lwnfs/recipes-kernel/linux/lwnfs/lwnfs-patches must be a link to patches/"

# every bbappend requires the include only with the distro feature
while IFS= read -r app; do
	# shellcheck disable=SC2016 # BitBake expressions, matched literally
	grep -qxF "require \${@bb.utils.contains('DISTRO_FEATURES', 'lwnfs', 'recipes-kernel/linux/lwnfs-kernel.inc', '', d)}" "$app" ||
		die "${app#"$LWNFS_TOP"/} does not require lwnfs-kernel.inc under DISTRO_FEATURES 'lwnfs' alone"
	[ "$(grep -cv '^#' "$app")" -eq 1 ] || die "${app#"$LWNFS_TOP"/} must hold only the gated require"
done < <(find "$layer" -name '*.bbappend')

# the base's own kernel version (which series each version's
# LINUX_VERSION takes, through the include's own expressions, is
# scripts/check-ranges.sh's to check, for every version)
kv=$(git -C "$(tree_dir "$base")" show "$BASE_TAG:Makefile" | makefile_version)
# shellcheck disable=SC2016 # a BitBake expression, matched literally
grep -qF 'features/lwnfs/lwnfs-${LWNFS_SERIES}.scc' "$linux/lwnfs-kernel.inc" ||
	die "lwnfs-kernel.inc does not add features/lwnfs/lwnfs-\${LWNFS_SERIES}.scc"

# the module recipe's licence checksum is COPYING's
recipe=$layer/recipes-kernel/lwnfs-module/lwnfs-module.bb
# shellcheck disable=SC2016 # a BitBake expression, matched literally
md5=$(sed -n 's|^LIC_FILES_CHKSUM = "file://${LWNFS_TOP}/COPYING;md5=\([0-9a-f]*\)"$|\1|p' "$recipe")
[ "$md5" = "$(md5sum <"$LWNFS_TOP/COPYING" | cut -c1-32)" ] ||
	die "lwnfs-module.bb's LIC_FILES_CHKSUM is not COPYING's md5 ($(md5sum <"$LWNFS_TOP/COPYING" | cut -c1-32))"

# the config features: one kconf each, a fragment equal to contrib/fragments/
for kind in y m; do
	read -r k t cfg < <(grep '^kconf ' "$features/lwnfs-$kind.scc")
	{ [ "$k $t" = "kconf non-hardware" ] && [ -f "$features/$cfg" ]; } ||
		die "features/lwnfs/lwnfs-$kind.scc names no fragment of its directory"
	cmp -s "$features/$cfg" "$LWNFS_TOP/contrib/fragments/lwnfs-$kind.config" ||
		die "features/lwnfs/$cfg is not contrib/fragments/lwnfs-$kind.config; run: make patches"
done

# the base's feature: known directives, the series in order
scc_patches=()
while read -r directive rest; do
	case "$directive" in
	'' | '#'*) ;;
	define)
		case "$rest" in
		KFEATURE_DESCRIPTION\ \"*\" | KFEATURE_COMPATIBILITY\ *) ;;
		*) die "lwnfs-$base.scc: unexpected define: $rest" ;;
		esac ;;
	patch)
		{ [ "${rest%%/*}" = "$base" ] && [ -f "$LWNFS_TOP/patches/$rest" ]; } ||
			die "lwnfs-$base.scc names $rest, which is not a patch of patches/$base"
		scc_patches+=("${rest#*/}") ;;
	*) die "lwnfs-$base.scc: unknown directive '$directive'" ;;
	esac
done <"$features/lwnfs-$base.scc"
[ "$(printf '%s\n' "${scc_patches[@]}")" = "$(cat "$series/series")" ] ||
	die "the patches of lwnfs-$base.scc are not patches/$base/series, in order; run: make patches"

# kgit-s2q's order of attempts, on the pristine base's files
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scratch_repo "$base" "$series" "$work/tree"
for p in "${scc_patches[@]}"; do
	how=$(s2q_apply "$work/tree" "$series/$p") || die "$base: $p does not apply in any way kgit-s2q tries"
	[ -z "$how" ] || die "$base: git am of $p fails; it applies only with $how, a fallback of kgit-s2q"
done
info "$base: meta-lwnfs's feature lwnfs-$base.scc names the series in order, and on Linux $kv git am applies all ${#scc_patches[@]} patches as kgit-s2q first tries"
