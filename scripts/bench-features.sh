#!/usr/bin/env bash
# make bench-features: what each feature of the series costs in text, on
# BASE's bench build (tinyconfig, -Os; scripts/build.sh VARIANT=bench).
# lwnfs's objects are built from the sources after each patch of the series
# (gen-patches.sh --states), and from the final sources with the mount
# errors' messages left out, each as the objects of an out-of-tree module
# against that build (M=; no modpost, since the build exports what the
# KUnit patch exports too), and size(1)'s text column of super.o and
# counter.o is taken for each. A feature's cost is the difference from the build before it.
# The table goes to bench/features.md.
#
# usage: scripts/bench-features.sh BASE
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
check_base "$base"
need_cmd size binutils
need_cmd perl perl
[ "${LWNFS_ARCH:-x86_64}" = x86_64 ] || die "make bench-features runs on x86_64 builds only"
(need_applied "$base") 2>/dev/null || "$LWNFS_TOP/scripts/apply.sh" "$base"
need_applied "$base"
tree=$(tree_dir "$base")
"$LWNFS_TOP/scripts/build.sh" "$base" bench
bd=$(build_dir "$base" x86_64-bench)
export CCACHE_DIR=${CCACHE_DIR:-$LWNFS_CACHE/ccache}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$base" = "$(newest_base)" ]; then
	"$LWNFS_TOP/scripts/gen-patches.sh" --states "$work/states" >/dev/null
else
	"$LWNFS_TOP/scripts/gen-patches.sh" --states "$work/states" "$base" >/dev/null
fi
mapfile -t patches < <(conf_rows "$LWNFS_TOP/split/patches.conf" | awk '{ print $1 }')
n=${#patches[@]}

# text DIR: size(1)'s text column of super.o and counter.o built from the
# lwnfs sources in DIR as a module against the bench build
text() {
	local src=$1 mod=$bd/bench-features
	rm -rf "$mod"
	mkdir -p "$mod"
	cp "$src"/*.c "$src"/*.h "$mod/"
	rm -f "$mod/lwnfs_kunit.c"
	printf 'obj-m := lwnfs.o\nlwnfs-y := super.o counter.o\n' >"$mod/Kbuild"
	make -s -C "$tree" O="$bd" -j"$JOBS" CC="ccache gcc" M="$mod" super.o counter.o >&2 ||
		die "the lwnfs objects of $src did not build against $bd"
	t=$(size -t "$mod/super.o" "$mod/counter.o" | awk 'END { print $1 }')
	[[ "$t" =~ ^[0-9]+$ ]] || die "size -t failed on the objects of $src"
	echo "$t"
}

# the final sources without the messages of invalfc(): each returns -EINVAL
mkdir -p "$work/quiet"
cp "$work/states/$n/fs/lwnfs/"* "$work/quiet/"
calls=$(grep -c 'invalfc(' "$work/quiet/super.c")
whole=$(perl -0 -ne 'print scalar(() = /return\s+invalfc\(fc,[^;]*?\);/g)' "$work/quiet/super.c")
[ "$calls" = "$whole" ] || die "of the $calls invalfc() calls, $whole are whole return statements"
perl -0pi -e 's/return\s+invalfc\(fc,[^;]*?\);/return -EINVAL;/g' "$work/quiet/super.c"
! grep -q invalfc "$work/quiet/super.c" || die "invalfc() is left in the quiet variant"

out=$LWNFS_TOP/bench/features.md
{
	echo "# What each feature costs in text"
	echo
	echo "Made by \`scripts/bench-features.sh $base\` ($(base_field "$base" version), $(date -u +%Y-%m-%d)): \`size\`'s"
	echo "text column of \`super.o\` and \`counter.o\`, built as an out-of-tree module against"
	echo "the bench build (x86_64 tinyconfig, -Os), from the sources after each patch of the"
	echo "series. A feature's cost is its build's text less the one before it. Built in, the"
	echo "objects differ from these by the module's own few bytes: [results.md](results.md)"
	echo "has the built-in figure."
	echo
	echo "| sources | text (bytes) | the feature costs |"
	echo "|---|---|---|"
	prev=''
	for ((k = 1; k <= n; k++)); do
		t=$(text "$work/states/$k/fs/lwnfs")
		subject=$(head -n 1 "$LWNFS_TOP/split/${patches[k - 1]}.msg" | sed 's/^lwnfs: //')
		echo "| after patch $k: $subject | $t | ${prev:+$((t - prev))} |"
		prev=$t
	done
	full=$t
	quiet=$(text "$work/quiet")
	echo "| the final sources | $full | |"
	echo "| the final sources, mount errors without their messages | $quiet | messages: $((full - quiet)) |"
} >"$work/features.md"
mv "$work/features.md" "$out"
cat "$out"
