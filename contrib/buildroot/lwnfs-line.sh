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
field() {
	sed -n "s/^$1 = *//p" "$kdir/Makefile" | head -n 1
}
v=$(field VERSION) p=$(field PATCHLEVEL) s=$(field SUBLEVEL)
case "$v.$p" in
*[!0-9.]* | .* | *.)
	echo "lwnfs: $kdir/Makefile names no VERSION and PATCHLEVEL: not a kernel source" >&2
	exit 1
	;;
esac
[ -f "$dir/ranges" ] || {
	echo "lwnfs: $dir has no ranges file; in the lwnfs checkout, run: make patches" >&2
	exit 1
}
# key X.Y: a number that orders versions
key() {
	echo $((${1%.*} * 1000 + ${1#*.}))
}
k=$(key "$v.$p")
served='' series=''
while read -r b first last; do
	case "$b" in '#'* | '') continue ;; esac
	if [ "$first" = "$last" ]; then r=$first; else r="$first to $last"; fi
	served="${served:+$served, }$r"
	if [ "$(key "$first")" -le "$k" ] && [ "$k" -le "$(key "$last")" ]; then
		series=$b
	fi
done <"$dir/ranges"
if [ -z "$series" ]; then
	echo "lwnfs: Linux $v.$p.${s:-0} is outside the versions lwnfs serves ($served); no $what for it" >&2
	exit 1
fi
[ -d "$dir/$series" ] || {
	echo "lwnfs: $dir/ranges names $series for Linux $v.$p, but $dir/$series is missing; in the lwnfs checkout, run: make patches" >&2
	exit 1
}
echo "$dir/$series"
