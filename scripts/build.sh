#!/usr/bin/env bash
# Build a base's tree (with the series applied) out of tree, with ccache,
# in the build directory of its architecture and variant.
#
# usage: scripts/build.sh BASE VARIANT [MAKE TARGETS...]
#   VARIANT   a row of configs/variants.conf: y, m, n (lwnfs built in, a
#             module, off), kunitm, bisect, allmod, clang, bench, benchm,
#             kasan, kcsan; the table says what each is built from
# Each configs/NAME.config is followed by configs/BASE/NAME.config where a
# base has one (a base whose Kconfig lacks or differs in some option).
#
# LWNFS_ARCH (default x86_64) picks a row of configs/arch.conf. Extra make
# arguments (W=1, C=2 ...) may be given in MAKEFLAGS_EXTRA. The build
# directory records which series and commit a full build was made from
# (.lwnfs-build), which scripts/guest.sh checks before it boots it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE VARIANT [TARGETS...]}
variant=${2:?usage: $0 BASE VARIANT [TARGETS...]}
shift 2
arch=${LWNFS_ARCH:-x86_64}
check_arch "$arch"
need_applied_variant "$base" "$variant"
tree=$(tree_dir "$base")

export CCACHE_DIR=${CCACHE_DIR:-$LWNFS_CACHE/ccache}
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2026-01-01}
export KBUILD_BUILD_USER=lwnfs KBUILD_BUILD_HOST=lwnfs
need_cmd ccache ccache
karch=$(arch_field "$arch" karch)
cross=$(arch_field "$arch" cross)
[ -z "$cross" ] || need_cmd "${cross}gcc" "gcc-${cross%-}"
guest_frag=$CONFIGS/guest-$arch.config

cc=(ARCH="$karch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc")
row=$(conf_rows "$CONFIGS/variants.conf" | awk -v v="$variant" '$1 == v')
[ -n "$row" ] || die "unknown variant '$variant' ($(conf_rows "$CONFIGS/variants.conf" | awk '{ printf "%s ", $1 }')see configs/variants.conf)"
read -r _ defconfig seeds varch names <<<"$row"
[ "$varch" = any ] || [ "$varch" = "$arch" ] || die "the $variant build is $varch only"
# once the patch has the KUnit option, a bisect build builds the tests too
if [ "$variant" = bisect ] && grep -q LWNFS_KUNIT_TEST "$tree/fs/lwnfs/Kconfig"; then
	names=$(conf_rows "$CONFIGS/variants.conf" | awk '$1 == "y" { $1 = $2 = $3 = $4 = ""; print }')
fi
frags=()
for name in $names; do
	case "$name" in
	-) ;;
	guest) frags+=("$guest_frag") ;;
	fragment) frags+=("$LWNFS_FRAGMENT") ;;
	*) frags+=("$CONFIGS/$name.config") ;;
	esac
done
if [ "$variant" = clang ]; then
	llvm=$(base_field "$base" clang)
	[ "$llvm" != no ] || die "bases.conf says clang cannot build $base"
	need_cmd "/usr/lib/llvm-$llvm/bin/clang" "clang-$llvm lld-$llvm llvm-$llvm"
	# LLVM's own directory first, so that every LLVM tool is that version:
	# v5.10's kbuild does not know LLVM=-16, only LLVM=1
	PATH=/usr/lib/llvm-$llvm/bin:$PATH
	cc=(ARCH="$karch" LLVM=1 CC="ccache clang")
fi
# A base whose Kconfig differs has its own lines for a fragment in
# configs/BASE/NAME.config, read right after configs/NAME.config: where
# both name a symbol, the base's line wins.
# (a tree takes its series' lines)
own=$(series_of "$base")
for f in "$CONFIGS/$own"/*.config; do
	[ ! -e "$f" ] || [ -f "$CONFIGS/${f##*/}" ] ||
		die "${f#"$LWNFS_TOP"/} overrides no fragment: there is no configs/${f##*/}"
done
with_base=()
for f in "${frags[@]}"; do
	with_base+=("$f")
	[ "${f%/*}" != "$CONFIGS" ] || [ ! -f "$CONFIGS/$own/${f##*/}" ] || with_base+=("$CONFIGS/$own/${f##*/}")
done
frags=("${with_base[@]}")
[ $# -gt 0 ] || set -- all
bd=$(build_dir "$base" "$arch-$variant")
stamp=$bd/.lwnfs-build
head=$(git -C "$tree" rev-parse HEAD)

# A build directory made for the first time starts as a copy of a built
# one, the seed: benchm's is bench's when that is built, the others' and
# benchm's otherwise the y variant's. These variants differ from the seed in
# a few options, and kbuild recompiles only what those options reach (it
# tracks each object's CONFIG_ symbols), where a new directory would
# recompile the whole kernel. The copy keeps none of the seed's records.
if [ ! -e "$bd/.config" ]; then
	for from in ${seeds//[,-]/ }; do
		seed=$(build_dir "$base" "$arch-$from")
		[ -f "$seed/.lwnfs-build" ] || continue
		mkdir -p "$bd"
		cp -a "$seed/." "$bd/"
		rm -rf "$bd/.lwnfs-build" "$bd/.lwnfs-config" "$bd/kselftest" "$bd/bench-debugfs" "$bd/bench-features"
		info "$base/$arch-$variant: starts from a copy of the $from build"
		break
	done
fi
mkdir -p "$bd"
# shellcheck disable=SC2086 # MAKEFLAGS_EXTRA is a list of make arguments
kmake() {
	make -s -C "$tree" O="$bd" -j"$JOBS" "${cc[@]}" ${MAKEFLAGS_EXTRA:-} "$@"
}


# The configuration is made again only when what it comes from changed:
# the base, the Kconfig files the series changes (the tree is the base
# plus a commit of the series: need_applied), the fragments, the compiler.
# (Making it runs hundreds of compiler probes: minutes with clang.)
config_key=$( (echo "$(git -C "$tree" rev-parse "$BASE_TAG") $defconfig ${cc[*]}"
	kconfig_diff "$base" HEAD; cat "${frags[@]}" /dev/null) | sha256sum | cut -c1-16)
if [ ! -f "$bd/.config" ] || [ "$(stamp_get "$bd/.lwnfs-config" key)" != "$config_key" ]; then
	rm -f "$bd/.lwnfs-config"
	kmake "$defconfig" >/dev/null
	if [ ${#frags[@]} -gt 0 ]; then
		(cd "$bd" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$bd" "$bd/.config" "${frags[@]}") >/dev/null
		kmake olddefconfig >/dev/null
	fi
	echo "key=$config_key" >"$bd/.lwnfs-config"
fi
# The image is stale from here until a full build succeeds, unless this is
# a partial build (fs/lwnfs/ for the warning stages) of the very commit and
# configuration the image was made from.
if [ "$*" = all ] || [ "$(stamp_get "$stamp" head)" != "$head" ] ||
	[ "$(stamp_get "$stamp" config)" != "$config_key" ]; then
	rm -f "$stamp"
fi
# Every fragment line must be in .config as written; where fragments name
# the same symbol, the later one wins, as in merge_config.sh.
declare -A want=() from=()
order=()
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# } sym=${sym%% *} ;;
		*) continue ;;
		esac
		[ -n "${want[$sym]+set}" ] || order+=("$sym")
		want[$sym]=$line from[$sym]=${f#"$LWNFS_TOP"/}
	done <"$f"
done
for sym in "${order[@]}"; do
	line=${want[$sym]}
	case "$line" in
	CONFIG_*) grep -qx -- "$line" "$bd/.config" ;;
	*) ! grep -q "^$sym=" "$bd/.config" ;;
	esac || die "$base/$arch-$variant: '$line' from ${from[$sym]} did not stick in $bd/.config"
done
kmake "$@"
if [ "$*" = all ]; then
	printf 'series=%s\nhead=%s\nconfig=%s\narch=%s\nvariant=%s\n' \
		"$(series_hash "$base")" "$head" "$config_key" "$arch" "$variant" >"$stamp"
fi
info "$base/$arch-$variant: built $* in $bd"
