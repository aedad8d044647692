#!/bin/sh
# usage: lwnfs-line.sh KERNEL_DIR DIR [WHAT]
# Print DIR/vX.Y, the directory in DIR of the series that serves the kernel
# source in KERNEL_DIR: DIR/ranges (made by lwnfs's make patches) gives the
# versions each serves, and the kernel's version is its Makefile's VERSION
# and PATCHLEVEL. Stop with one line naming the kernel's version and the
# versions lwnfs serves when no series serves it. WHAT names what DIR holds
# (default: series).
set -eu
kdir=$1 dir=$2 what=${3:-series}
# the Buildroot package whose copy of the checkout DIR is in
case "$what" in module) pkg=lwnfs-module ;; *) pkg=lwnfs ;; esac
# field NAME: a number of the kernel's Makefile, without leading zeros
field() {
	f=$(sed -n "s/^$1 *= *//p" "$kdir/Makefile" | head -n 1)
	case "$f" in
	'' | *[!0-9]*) return 0 ;;
	esac
	f=$(echo "$f" | sed 's/^0*//')
	echo "${f:-0}"
}
v=$(field VERSION) p=$(field PATCHLEVEL) s=$(field SUBLEVEL)
if [ -z "$v" ] || [ -z "$p" ]; then
	echo "lwnfs: $kdir/Makefile names no numeric VERSION and PATCHLEVEL: not a kernel source" >&2
	exit 1
fi
[ -f "$dir/ranges" ] || {
	echo "lwnfs: $dir/ranges is missing: $dir is a copy of an lwnfs checkout older than the ranges; in Buildroot, run: make $pkg-dirclean (and, if the checkout has no ${dir##*/}/ranges either, make patches there)" >&2
	exit 1
}
# versions X.Y are ordered as the numbers X * 1000 + Y
k=$((v * 1000 + p))
served='' series=''
while read -r b first last; do
	case "$b" in '#'* | '') continue ;; esac
	if [ "$first" = "$last" ]; then r=$first; else r="$first to $last"; fi
	served="${served:+$served, }$r"
	if [ $((${first%.*} * 1000 + ${first#*.})) -le "$k" ] && [ "$k" -le $((${last%.*} * 1000 + ${last#*.})) ]; then
		series=$b
	fi
done <"$dir/ranges"
if [ -z "$series" ]; then
	echo "lwnfs: Linux $v.$p.${s:-0} is outside the versions lwnfs serves ($served); no $what for it" >&2
	exit 1
fi
[ -d "$dir/$series" ] || {
	echo "lwnfs: $dir/ranges names $series for Linux $v.$p, but $dir/$series is missing: in the lwnfs checkout, run: make patches; then in Buildroot: make $pkg-dirclean" >&2
	exit 1
}
echo "$dir/$series"
