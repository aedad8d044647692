#!/usr/bin/env bash
# Check that a base's series drops into a linux-yocto build: lay out a layer
# the way contrib/yocto/README.md tells users to, then check what the
# kernel tools would read. The bbappend must point at the feature
# directory; every file lwnfs.scc names must be there; its patches must be
# the base's whole series, in order; and they must apply to the pristine
# base one by one with plain git am, which allows neither fuzz nor reduced
# context (linux-yocto's kernel tools apply patches with git am).
#
# usage: scripts/check-yocto.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_tree "$base"
series=$(series_dir "$base")
contrib=$LWNFS_TOP/contrib/yocto
bbappend=$contrib/linux-yocto_%.bbappend
for f in "$contrib/lwnfs.scc" "$contrib/lwnfs.cfg" "$bbappend"; do
	[ -f "$f" ] || die "${f#"$LWNFS_TOP"/} is missing"
done
need_fragment_link contrib/yocto/lwnfs.cfg

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The layer, made by running the commands of contrib/yocto/README.md (its
# first shell block), which README.md must repeat line for line. The block
# sets LWNFS, LAYER and BASE for the reader to edit, and ends with bitbake;
# here those are this checkout, a scratch layer and the base under check.
recipe() {
	awk '/^```$/ { if (inside) exit; inside = 1; next } inside' "$1"
}
recipe "$contrib/README.md" >"$work/recipe.txt"
awk '/^### Yocto/ { on = 1 } on' "$LWNFS_TOP/README.md" >"$work/top.md"
recipe "$work/top.md" | diff -u "$work/recipe.txt" - ||
	die "the Yocto recipe in README.md is not the one in contrib/yocto/README.md"
for v in LWNFS LAYER BASE; do
	grep -q "^$v=" "$work/recipe.txt" || die "the recipe of contrib/yocto/README.md does not set $v"
done
grep -Ev '^(LWNFS|LAYER|BASE)=|^bitbake ' "$work/recipe.txt" >"$work/recipe.sh" || true
grep -q 'cp ' "$work/recipe.sh" || die "contrib/yocto/README.md has no recipe block"
layer=$work/meta-custom
(cd "$work" && LWNFS=$LWNFS_TOP LAYER=$layer BASE=$base bash -euo pipefail "$work/recipe.sh") ||
	die "the recipe of contrib/yocto/README.md failed"
feature=$layer/recipes-kernel/linux/files/lwnfs
[ -d "$feature" ] || die "the recipe of contrib/yocto/README.md made no $feature"

# The bbappend: the files/ directory on the search path, files/lwnfs as a
# kernel-metadata directory, lwnfs.scc as a kernel feature.
app=$layer/recipes-kernel/linux/$(basename "$bbappend")
[ -f "$app" ] || die "the recipe of contrib/yocto/README.md did not copy $(basename "$bbappend")"
# shellcheck disable=SC2016 # a BitBake expression, matched literally
grep -qF 'FILESEXTRAPATHS:prepend := "${THISDIR}/files:"' "$app" ||
	die "$(basename "$bbappend") does not put files/ on FILESEXTRAPATHS"
grep -q '^SRC_URI:append = .*file://lwnfs;type=kmeta;destsuffix=lwnfs' "$app" ||
	die "$(basename "$bbappend") does not fetch files/lwnfs as type=kmeta"
grep -q '^KERNEL_FEATURES:append = .*lwnfs\.scc' "$app" ||
	die "$(basename "$bbappend") does not add lwnfs.scc to KERNEL_FEATURES"

# The .scc: known directives only, every named file present.
scc_patches=()
kconfs=0
while read -r directive rest; do
	case "$directive" in
	'' | '#'*) ;;
	define)
		case "$rest" in
		KFEATURE_DESCRIPTION\ \"*\" | KFEATURE_COMPATIBILITY\ *) ;;
		*) die "lwnfs.scc: unexpected define: $rest" ;;
		esac ;;
	kconf)
		read -r ktype kfile <<<"$rest"
		[ "$ktype" = non-hardware ] || die "lwnfs.scc: kconf $ktype: lwnfs is non-hardware"
		[ -f "$feature/$kfile" ] || die "lwnfs.scc names $kfile, which is not in the feature directory"
		grep -qx 'CONFIG_LWNFS=y' "$feature/$kfile" || die "lwnfs.scc: $kfile does not set CONFIG_LWNFS=y"
		kconfs=$((kconfs + 1)) ;;
	patch)
		[ -f "$feature/$rest" ] || die "lwnfs.scc names $rest, which patches/$base does not have"
		scc_patches+=("$rest") ;;
	*) die "lwnfs.scc: unknown directive '$directive'" ;;
	esac
done <"$feature/lwnfs.scc"
grep -q '^define KFEATURE_DESCRIPTION ' "$feature/lwnfs.scc" || die "lwnfs.scc has no KFEATURE_DESCRIPTION"
[ "$kconfs" -eq 1 ] || die "lwnfs.scc has $kconfs kconf lines, not 1"
[ "$(printf '%s\n' "${scc_patches[@]}")" = "$(cat "$series/series")" ] ||
	die "the patches of lwnfs.scc are not patches/$base/series, in order:
$(diff <(printf '%s\n' "${scc_patches[@]}") "$series/series" || true)"

# git am, in the .scc's order, on the pristine base's files.
scratch_repo "$base" "$series" "$work/tree"
for p in "${scc_patches[@]}"; do
	git_fixed -C "$work/tree" am -q "$feature/$p" >"$work/am.log" 2>&1 || {
		cat "$work/am.log"
		die "$base: git am of $p (lwnfs.scc's order) failed"
	}
done
info "$base: the Yocto layout is complete, and git am applies lwnfs.scc's ${#scc_patches[@]} patches in order"
