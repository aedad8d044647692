#!/usr/bin/env bash
# Build module/BASE/, lwnfs's out-of-tree module source, the way users build
# it: make -C <kernel build dir> M=<dir>, with W=1, here against the base's
# kernel built with CONFIG_LWNFS=n (make build VARIANT=n). That kernel has
# the series applied, so its <linux/magic.h> has lwnfs's magic and the
# Kbuild's fallback for a kernel without it is not compiled here. Any
# warning fails it. scripts/guest.sh BASE oot boots that kernel with the
# module.
#
# usage: scripts/module.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
arch=${LWNFS_ARCH:-x86_64}
check_arch "$arch"
need_applied "$base"
own=$(series_of "$base")
src=$LWNFS_TOP/module/$own
[ -f "$src/Kbuild" ] || die "no module source in module/$own; run: make patches"
kbd=$(build_dir "$base" "$arch-n")
{ [ -f "$kbd/.lwnfs-build" ] && [ -f "$kbd/Module.symvers" ]; } ||
	die "no CONFIG_LWNFS=n kernel of $base to build against; run: make build BASE=$base VARIANT=n"
[ "$(stamp_get "$kbd/.lwnfs-build" series)" = "$(series_hash "$base")" ] ||
	die "the n kernel of $base was built from another series; run: make build BASE=$base VARIANT=n"
! grep -q '^CONFIG_LWNFS=' "$kbd/.config" || die "$kbd has CONFIG_LWNFS set; the module is for a kernel without it"

out=$(build_dir "$base" "$arch-oot")
rm -rf "$out"
mkdir -p "$out/src"
module_files "$src" | while IFS= read -r f; do cp "$src/$f" "$out/src/"; done
export CCACHE_DIR=${CCACHE_DIR:-$LWNFS_CACHE/ccache}
cross=$(arch_field "$arch" cross)
log=$out/build.log
make -C "$kbd" ARCH="$(arch_field "$arch" karch)" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" \
	M="$out/src" W=1 modules >"$log" 2>&1 || {
	cat "$log"
	die "$base: make -C <n kernel> M=module/$own modules failed"
}
if ! judge_build "$log" "$base" gcc >"$out/judge.log"; then
	cat "$out/judge.log"
	die "$base: the out-of-tree module build has diagnostics"
fi
[ -f "$out/src/lwnfs.ko" ] || die "$base: the module build made no lwnfs.ko"
printf 'series=%s\nsource=%s\n' "$(series_hash "$base")" "$(module_hash "$src")" >"$out/.lwnfs-module"
info "$base: built $out/src/lwnfs.ko out of tree from module/$own (W=1, no warnings)"
