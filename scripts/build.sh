#!/usr/bin/env bash
# Build a base's tree (with the series applied) out of tree, with ccache.
#
# usage: scripts/build.sh BASE VARIANT [MAKE TARGETS...]
#   y, m, n   tinyconfig + configs/guest.config + configs/lwnfs-VARIANT.config
#   bisect    the same with configs/lwnfs-bisect.config (for any patch of the series)
#   allmod    allmodconfig, fs/lwnfs/ only
#   clang     the y config with LLVM (Debian's newest clang here), fs/lwnfs/
#
# Extra make arguments (W=1, C=2 ...) may be given in MAKEFLAGS_EXTRA.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE VARIANT [TARGETS...]}
variant=${2:?usage: $0 BASE VARIANT [TARGETS...]}
shift 2
need_tree "$base"
tree=$(tree_dir "$base")
[ -f "$tree/fs/lwnfs/Kconfig" ] || die "$base has no fs/lwnfs; run: make apply BASE=$base"

LLVM_SUFFIX=${LLVM_SUFFIX:--16}
export CCACHE_DIR=${CCACHE_DIR:-$LWNFS_CACHE/ccache}
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2026-01-01}
export KBUILD_BUILD_USER=lwnfs KBUILD_BUILD_HOST=lwnfs
need_cmd ccache ccache

case "$variant" in
y | m | n | bisect)
	bd=$(build_dir "$base" tiny)
	cc=(CC="ccache gcc")
	frags=("$LWNFS_TOP/configs/guest.config" "$LWNFS_TOP/configs/lwnfs-$variant.config")
	defconfig=tinyconfig
	;;
allmod)
	bd=$(build_dir "$base" allmod)
	cc=(CC="ccache gcc")
	frags=()
	defconfig=allmodconfig
	;;
clang)
	need_cmd "clang$LLVM_SUFFIX" "clang$LLVM_SUFFIX lld$LLVM_SUFFIX llvm$LLVM_SUFFIX"
	bd=$(build_dir "$base" clang)
	cc=(LLVM="$LLVM_SUFFIX" CC="ccache clang$LLVM_SUFFIX")
	frags=("$LWNFS_TOP/configs/guest.config" "$LWNFS_TOP/configs/lwnfs-y.config")
	defconfig=tinyconfig
	;;
*) die "unknown variant '$variant' (y, m, n, bisect, allmod, clang)" ;;
esac
[ $# -gt 0 ] || set -- all

mkdir -p "$bd"
# shellcheck disable=SC2086 # MAKEFLAGS_EXTRA is a list of make arguments
kmake() {
	make -s -C "$tree" O="$bd" -j"$JOBS" "${cc[@]}" ${MAKEFLAGS_EXTRA:-} "$@"
}

kmake "$defconfig" >/dev/null
if [ ${#frags[@]} -gt 0 ]; then
	(cd "$bd" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$bd" "$bd/.config" "${frags[@]}") >/dev/null
	kmake olddefconfig >/dev/null
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*) grep -qx -- "$line" "$bd/.config" ||
				die "$base/$variant: '$line' from ${f#"$LWNFS_TOP"/} did not stick in $bd/.config" ;;
			"# CONFIG_"*)
				sym=${line#\# }
				sym=${sym%% *}
				! grep -q "^$sym=" "$bd/.config" ||
					die "$base/$variant: '$line' did not stick" ;;
			esac
		done <"$f"
	done
fi
kmake "$@"
info "$base/$variant: built $* in $bd"
