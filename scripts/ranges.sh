#!/usr/bin/env bash
# The kernel versions each series serves: bases.conf's first and last
# columns, checked, and written as the ranges file that the Buildroot
# extension, meta-lwnfs and lwnfs-dkms read (patches/ranges,
# module/ranges). A version is X.Y, a kernel Makefile's VERSION and
# PATCHLEVEL; a kernel release (uname -r) begins with it, followed by ".",
# "+" or "-" (6.12.118+deb13-amd64, 7.1.0-rc1), and so does a Yocto
# LINUX_VERSION, which alone may also end after X.Y (6.18+git, 6.6).
#
# usage: scripts/ranges.sh [--bases FILE] COMMAND
#        write FILE...   write the ranges file to each FILE
#        series X.Y      the series serving X.Y (none: exit 1)
#        pick X.Y...     "X.Y series" for each, "X.Y -" for none
#        near X.Y        the series of the nearest ranges below and above
#                        X.Y (a version no range holds), "-" for none
#        versions        every X.Y the ranges hold, newest first
#        span X.Y X.Y    every version from the first to the second
#        regex           lwnfs-dkms's BUILD_EXCLUSIVE_KERNEL
#        text            the ranges as messages name them
# --bases FILE reads the ranges from FILE, a table with bases.conf's
# columns, instead of bases.conf (scripts/check-ranges.sh's wide ranges).
set -euo pipefail
LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" = --bases ]; then
	BASES_CONF=${2:?usage: $0 --bases FILE COMMAND}
	shift 2
fi

# The last PATCHLEVEL of each finished major version: the version after
# 5.19 is 6.0. A range that crosses into a new major needs its old one here.
declare -A last_minor=([2]=39 [3]=19 [4]=20 [5]=19 [6]=19)

# key X.Y: a number that orders versions
key() {
	[[ $1 =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] || die "'$1' is not a kernel version X.Y"
	echo $((BASH_REMATCH[1] * 1000 + BASH_REMATCH[2]))
}

# next X.Y: the version after X.Y
next() {
	local major=${1%.*} minor=${1#*.}
	if [ "$minor" = "${last_minor[$major]:-}" ]; then
		echo "$((major + 1)).0"
	else
		echo "$major.$((minor + 1))"
	fi
}

# rows: "base first last firstkey lastkey", newest first, each checked
# against its base and the range before it. Callers take it whole
# (RANGES=$(rows) || exit 1), so that its die stops them.
rows() {
	local b first last own prev_first='' prev_base='' kf kl bases
	[ -r "$BASES_CONF" ] || die "cannot read $BASES_CONF"
	bases=$(all_bases)
	[ -n "$bases" ] || die "${BASES_CONF##*/} names no base"
	for b in $bases; do
		first=$(base_field "$b" first) last=$(base_field "$b" last)
		{ [ -n "$first" ] && [ -n "$last" ]; } || die "${BASES_CONF##*/}: $b's row has no first and last version"
		kf=$(key "$first") kl=$(key "$last")
		own=$(key "${b#v}")
		{ [ "$kf" -le "$own" ] && [ "$own" -le "$kl" ]; } ||
			die "${BASES_CONF##*/}: $b serves $first to $last, which does not hold its own version ${b#v}"
		if [ -n "$prev_first" ] && [ "$kl" -ge "$prev_first" ]; then
			die "${BASES_CONF##*/}: $b's range $first to $last reaches into $prev_base's"
		fi
		echo "$b $first $last $kf $kl"
		prev_first=$kf prev_base=$b
	done
}

# span FIRST LAST: every version from FIRST to LAST, oldest first
span() {
	local v=$1 end
	end=$(key "$2")
	[ "$(key "$1")" -le "$end" ] || die "span: $1 comes after $2"
	while [ "$(key "$v")" -lt "$end" ]; do
		echo "$v"
		[ -n "${last_minor[${v%.*}]:-}" ] || [ "${v%.*}" = "${2%.*}" ] ||
			die "the range $1 to $2 crosses the end of Linux ${v%.*}.x, whose last version this script does not know (last_minor)"
		v=$(next "$v")
	done
	echo "$2"
}

write() {
	local f tmp b first last
	tmp=$(mktemp)
	{
		echo "# lwnfs: the series a kernel takes, by its version X.Y (the VERSION and"
		echo "# PATCHLEVEL of its Makefile; a kernel release begins with X.Y and \".\","
		echo "# \"+\" or \"-\"): the one with first <= X.Y <= last. A version that no"
		echo "# row holds has no series. Made by make patches from bases.conf; do not"
		echo "# edit."
		printf '# series\tfirst\tlast\n'
		while read -r b first last _; do
			printf '%s\t%s\t%s\n' "$b" "$first" "$last"
		done <<<"$RANGES"
	} >"$tmp"
	for f in "$@"; do
		mkdir -p "$(dirname "$f")"
		cp "$tmp" "$f"
	done
	rm -f "$tmp"
}

pick() {
	local v k b first last kf kl found
	for v in "$@"; do
		k=$(key "$v") found=-
		while read -r b first last kf kl; do
			if [ "$kf" -le "$k" ] && [ "$k" -le "$kl" ]; then
				found=$b
				break
			fi
		done <<<"$RANGES"
		echo "$v $found"
	done
}

series() {
	local s
	s=$(pick "$1") || exit 1
	s=${s#* }
	[ "$s" != - ] || return 1
	echo "$s"
}

near() {
	local k b first last kf kl older=- newer=-
	k=$(key "$1")
	while read -r b first last kf kl; do
		[ "$kl" -lt "$k" ] && [ "$older" = - ] && older=$b
		[ "$kf" -gt "$k" ] && newer=$b
	done <<<"$RANGES"
	echo "$older $newer"
}

versions() {
	local b first last v
	while read -r b first last _; do
		v=$(span "$first" "$last") || exit 1
		tac <<<"$v"
	done <<<"$RANGES"
}

regex() {
	local v
	v=$(versions) || exit 1
	v=${v//./\\.}
	echo "^(${v//$'\n'/|})[.+-]"
}

text() {
	local b first last out=()
	while read -r b first last _; do
		if [ "$first" = "$last" ]; then out+=("$first"); else out+=("$first to $last"); fi
	done <<<"$RANGES"
	local IFS=,
	local joined="${out[*]}"
	echo "${joined//,/, }"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
write | series | pick | near | versions | regex | text) RANGES=$(rows) || exit 1 ;;
span) ;;
*) die "usage: $0 [--bases FILE] write FILE... | series X.Y | pick X.Y... | near X.Y | versions | span X.Y X.Y | regex | text" ;;
esac
case "$cmd" in
write) [ $# -gt 0 ] || die "usage: $0 write FILE..."; write "$@" ;;
series) [ $# -eq 1 ] || die "usage: $0 series X.Y"; series "$1" ;;
near) [ $# -eq 1 ] || die "usage: $0 near X.Y"; near "$1" ;;
span) [ $# -eq 2 ] || die "usage: $0 span X.Y X.Y"; span "$1" "$2" ;;
pick) pick "$@" ;;
*) "$cmd" ;;
esac
