#!/usr/bin/env bash
# make bench-features: what each feature of lwnfs costs in text, on the
# newest base's bench build (tinyconfig, -Os; scripts/build.sh
# VARIANT=bench). lwnfs's objects are built from its final sources, and
# again from those sources without one feature at a time: each of
# bench/without/*.diff takes one out (the first line of each says which),
# and the mount errors' messages are taken out by turning each
# "return invalfc(...);" into "return -EINVAL;". Each build compiles
# super.o and counter.o against that build (M=), in a directory laid out
# as the kernel's (fs/lwnfs/, listed as obj-y as fs/lwnfs/Makefile lists
# them), so that they are compiled as the built-in objects are: no
# -DMODULE, the same module file name, the same source paths in their
# strings. W=1 is added, which changes no code (only FORTIFY_SOURCE, off
# in the bench build, reads its macro). The everything build must then be
# the bench build's own fs/lwnfs objects, byte for byte, which is
# checked; size(1)'s text column of super.o and counter.o is taken. The
# builds have -Werror, so that a diff that leaves a function or a
# variable unused fails; the messages' variant has not (it leaves one
# local unused, which costs no text). A feature's cost is the final
# sources' text less the text without it. The table goes to
# bench/README.md, between its "features" markers.
#
# usage: scripts/bench-features.sh BASE   (the newest base)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
check_base "$base"
[ "$base" = "$(newest_base)" ] ||
	die "bench/without/*.diff take features out of the newest base's sources: run it on $(newest_base)"
# where the table goes, checked before anything is built
readme=$LWNFS_TOP/bench/README.md
generated_section "$readme" features >/dev/null
need_cmd size binutils
need_cmd patch patch
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
"$LWNFS_TOP/scripts/gen-patches.sh" --final "$base" "$work/final" >/dev/null
final=$work/final/fs/lwnfs

# text DIR [FLAGS]: size(1)'s text column of super.o and counter.o built
# from the lwnfs sources in DIR as the built-in ones, against the bench
# build, with KCFLAGS=FLAGS; the objects stay in $mod/fs/lwnfs
mod=$bd/bench-features
real_tree=$(cd "$tree" && pwd -P)
text() {
	local src=$1 flags=${2:-} t
	rm -rf "$mod"
	mkdir -p "$mod/fs/lwnfs"
	cp "$src"/*.c "$src"/*.h "$mod/fs/lwnfs/"
	rm -f "$mod/fs/lwnfs/lwnfs_kunit.c"
	echo 'obj-y += fs/lwnfs/' >"$mod/Kbuild"
	printf 'obj-y := lwnfs.o\nlwnfs-y := super.o counter.o\n' >"$mod/fs/lwnfs/Kbuild"
	make -s -C "$tree" O="$bd" -j"$JOBS" CC="ccache gcc" M="$mod" W=1 \
		KCFLAGS="$flags -fmacro-prefix-map=$real_tree/=" fs/lwnfs/super.o fs/lwnfs/counter.o >&2 ||
		die "the lwnfs objects of $src did not build against $bd"
	t=$(size -t "$mod/fs/lwnfs/super.o" "$mod/fs/lwnfs/counter.o" | awk 'END { print $1 }')
	[[ "$t" =~ ^[0-9]+$ ]] || die "size -t failed on the objects of $src"
	echo "$t"
}

# without NAME: the final sources without the feature bench/without/NAME.diff
# takes out, in $work/NAME
without() {
	local diff=$LWNFS_TOP/bench/without/$1.diff
	mkdir -p "$work/$1"
	cp "$final"/*.c "$final"/*.h "$work/$1/"
	patch -s -p1 -F0 --no-backup-if-mismatch -d "$work/$1" <"$diff" >&2 ||
		die "bench/without/$1.diff no longer applies to fs-lwnfs/: make it again from the final sources (docs/hacking.md)"
}

# the final sources without the messages of invalfc(): each returns -EINVAL
mkdir -p "$work/quiet"
cp "$final"/* "$work/quiet/"
calls=$(grep -c 'invalfc(' "$work/quiet/super.c")
whole=$(perl -0 -ne 'print scalar(() = /return\s+invalfc\(fc,[^;]*?\);/g)' "$work/quiet/super.c")
[ "$calls" = "$whole" ] || die "of the $calls invalfc() calls, $whole are whole return statements"
perl -0pi -e 's/return\s+invalfc\(fc,[^;]*?\);/return -EINVAL;/g' "$work/quiet/super.c"
! grep -q invalfc "$work/quiet/super.c" || die "invalfc() is left in the quiet variant"

full=$(text "$final" -Werror)
for o in super.o counter.o; do
	cmp -s "$mod/fs/lwnfs/$o" "$bd/fs/lwnfs/$o" ||
		die "$o built here from the final sources differs from the bench build's fs/lwnfs/$o:
$(diff <(size -A "$bd/fs/lwnfs/$o" | tail -n +2) <(size -A "$mod/fs/lwnfs/$o" | tail -n +2))
$(cmp -l "$bd/fs/lwnfs/$o" "$mod/fs/lwnfs/$o" | wc -l) bytes differ"
done
rows=()
shopt -s nullglob
diffs=("$LWNFS_TOP"/bench/without/*.diff)
[ ${#diffs[@]} -gt 0 ] || die "no bench/without/*.diff"
for d in "${diffs[@]}"; do
	name=$(basename "$d" .diff)
	what=$(head -n 1 "$d" | sed -n 's/^# without: //p')
	[ -n "$what" ] || die "$d: its first line must be '# without: WHAT IT TAKES OUT'"
	without "$name"
	t=$(text "$work/$name" -Werror)
	rows+=("| $what | $t | $((full - t)) |")
done
quiet=$(text "$work/quiet")
rows+=("| the mount errors' messages | $quiet | $((full - quiet)) |")

{
	echo "<!-- features: begin (scripts/bench-features.sh writes this table) -->"
	echo "Made by \`make bench-features\` on $base ($(base_field "$base" version), $(date -u +%Y-%m-%d)): \`size\`'s text"
	echo "column of \`super.o\` and \`counter.o\`, built as the bench build (x86_64 tinyconfig,"
	echo "-Os, lwnfs built in, KUnit off) builds them, and with W=1. With everything, the"
	echo "text is $full bytes: the bench build's own objects, byte for byte."
	echo
	echo "| without | text (bytes) | the feature costs |"
	echo "|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo "<!-- features: end -->"
} >"$work/table"
replace_section "$readme" features "$work/table"
cat "$work/table"
