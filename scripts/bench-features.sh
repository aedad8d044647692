#!/usr/bin/env bash
# make bench-features: what each feature of lwnfs costs in text, on the
# newest base's bench build (tinyconfig, -Os; scripts/build.sh
# VARIANT=bench). lwnfs's objects are built from its final sources, and
# again from those sources without one feature at a time: each of
# bench/without/*.diff takes one out (the first line of each says which),
# and the mount errors' messages are taken out by turning each
# "return invalfc(...);" into "return -EINVAL;". Each build compiles the
# objects in a directory of their own against that build (M=), listed as
# obj-y as fs/lwnfs/Makefile lists them, so that they are compiled as the
# built-in objects are (not as a module's: no -DMODULE), with W=1 and the
# paths in their strings made the in-tree ones. The everything build must
# then have the sections of the bench build's own fs/lwnfs objects, the
# same sizes, but for .modinfo, which names the module's file by where it
# was built; that is checked, and the costs, differences between builds
# made alike, are taken from the bench build's figure. size(1)'s text
# column of super.o and counter.o is taken. The
# builds have -Werror, so that a diff that leaves a function or a variable
# unused fails; the messages' variant has not (it leaves one local unused,
# which costs no text). A feature's cost
# is the final sources' text less the text without it. The table goes to
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
# from the lwnfs sources in DIR as a module against the bench build, with
# KCFLAGS=FLAGS
text() {
	local src=$1 flags=${2:-} mod=$bd/bench-features
	rm -rf "$mod"
	mkdir -p "$mod"
	cp "$src"/*.c "$src"/*.h "$mod/"
	rm -f "$mod/lwnfs_kunit.c"
	printf 'obj-y := lwnfs.o\nlwnfs-y := super.o counter.o\n' >"$mod/Kbuild"
	flags+=" -fmacro-prefix-map=$tree/= -fmacro-prefix-map=$mod/=fs/lwnfs/"
	make -s -C "$tree" O="$bd" -j"$JOBS" CC="ccache gcc" M="$mod" W=1 KCFLAGS="$flags" super.o counter.o >&2 ||
		die "the lwnfs objects of $src did not build against $bd"
	t=$(size -t "$mod/super.o" "$mod/counter.o" | awk 'END { print $1 }')
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

# sections DIR: the sizes of the sections of DIR's super.o and counter.o
# but .modinfo
sections() {
	size -A "$1/super.o" "$1/counter.o" | awk '$1 ~ /^\./ && $1 != ".modinfo" { print $1, $2 }'
}

mine=$(text "$final" -Werror)
[ "$(sections "$bd/bench-features")" = "$(sections "$bd/fs/lwnfs")" ] ||
	die "the final sources built here and the bench build's fs/lwnfs objects differ in more than .modinfo:
$(diff <(sections "$bd/fs/lwnfs") <(sections "$bd/bench-features"))"
full=$(size -t "$bd/fs/lwnfs/super.o" "$bd/fs/lwnfs/counter.o" | awk 'END { print $1 }')
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
	rows+=("| $what | $((full - (mine - t))) | $((mine - t)) |")
done
quiet=$(text "$work/quiet")
rows+=("| the mount errors' messages | $((full - (mine - quiet))) | $((mine - quiet)) |")

{
	echo "<!-- features: begin (scripts/bench-features.sh writes this table) -->"
	echo "Made by \`make bench-features\` on $base ($(base_field "$base" version), $(date -u +%Y-%m-%d)): \`size\`'s text"
	echo "column of \`super.o\` and \`counter.o\` as the bench build (x86_64 tinyconfig, -Os,"
	echo "lwnfs built in, KUnit off) compiles them, with W=1. With everything, the text is"
	echo "$full bytes, that build's own figure."
	echo
	echo "| without | text (bytes) | the feature costs |"
	echo "|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo "<!-- features: end -->"
} >"$work/table"
replace_section "$readme" features "$work/table"
cat "$work/table"
