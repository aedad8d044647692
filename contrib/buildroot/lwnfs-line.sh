#!/bin/sh
# usage: lwnfs-line.sh KERNEL_DIR DIR [WHAT]
# Print DIR/vX.Y, the directory in DIR for the line of the kernel source in
# KERNEL_DIR (its Makefile's VERSION and PATCHLEVEL); stop with one line
# naming the kernel's version and the lines DIR has when it has none. WHAT
# names what DIR holds in that line (default: series).
set -eu
kdir=$1 dir=$2 what=${3:-series}
field() {
	sed -n "s/^$1 = *//p" "$kdir/Makefile" | head -n 1
}
v=$(field VERSION) p=$(field PATCHLEVEL) s=$(field SUBLEVEL)
if [ -z "$v" ] || [ -z "$p" ]; then
	echo "lwnfs: $kdir/Makefile names no VERSION and PATCHLEVEL: not a kernel source" >&2
	exit 1
fi
if [ ! -d "$dir/v$v.$p" ]; then
	lines=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'v*.*' | sed 's|.*/v||' |
		sort -t. -k1,1nr -k2,2nr | tr '\n' ' ')
	echo "lwnfs: no $what for Linux $v.$p.${s:-0}; lwnfs has one for the lines ${lines% }" >&2
	exit 1
fi
echo "$dir/v$v.$p"
