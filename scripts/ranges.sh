#!/usr/bin/env bash
# The kernel versions each series serves: bases.conf's first and last
# columns, checked, and written as the ranges file that the Buildroot
# extension, meta-lwnfs, lwnfs-dkms and make try read (patches/ranges,
# module/ranges). A version is X.Y, a kernel Makefile's VERSION and
# PATCHLEVEL.
#
# usage: scripts/ranges.sh write FILE...   write the ranges file to each FILE
#        scripts/ranges.sh series X.Y      the series serving X.Y (none: exit 1)
#        scripts/ranges.sh pick X.Y...     "X.Y series" for each, "-" for none
#        scripts/ranges.sh versions        every X.Y the ranges hold, newest first
#        scripts/ranges.sh regex           lwnfs-dkms's BUILD_EXCLUSIVE_KERNEL
#        scripts/ranges.sh text            the ranges as a message names them
set -euo pipefail
LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# The last PATCHLEVEL of each finished major version: the version after
# 5.19 is 6.0. A range that crosses into a new major needs its old one here.
declare -A last_minor=([2]=39 [3]=19 [4]=20 [5]=19 [6]=19)

key() {
	[[ $1 =~ ^([0-9]+)\.([0-9]+)$ ]] || die "bases.conf: '$1' is not a version X.Y"
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

# rows: "base first last", newest first, each checked against the others
rows() {
	local b first last own prev_first='' prev_base=''
	for b in $(all_bases); do
		first=$(base_field "$b" first) last=$(base_field "$b" last)
		{ [ -n "$first" ] && [ -n "$last" ]; } || die "bases.conf: $b's row has no first and last version"
		own=${b#v}
		{ [ "$(key "$first")" -le "$(key "$own")" ] && [ "$(key "$own")" -le "$(key "$last")" ]; } ||
			die "bases.conf: $b serves $first to $last, which does not hold its own version $own"
		if [ -n "$prev_first" ] && [ "$(key "$last")" -ge "$(key "$prev_first")" ]; then
			die "bases.conf: $b's range $first to $last reaches into $prev_base's, which starts at $prev_first"
		fi
		echo "$b $first $last"
		prev_first=$first prev_base=$b
	done
}

# span FIRST LAST: every version from FIRST to LAST, oldest first
span() {
	local v=$1 end
	end=$(key "$2")
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
		echo "# PATCHLEVEL of its Makefile): the one with first <= X.Y <= last. A"
		echo "# version that no row holds has no series. Made by make patches from"
		echo "# bases.conf; do not edit."
		printf '# series\tfirst\tlast\n'
		rows | while read -r b first last; do
			printf '%s\t%s\t%s\n' "$b" "$first" "$last"
		done
	} >"$tmp"
	for f in "$@"; do
		mkdir -p "$(dirname "$f")"
		cp "$tmp" "$f"
	done
	rm -f "$tmp"
}

# pick X.Y...: "X.Y series" for each version, "X.Y -" when none serves it
pick() {
	local v k b first last found
	local -a table
	mapfile -t table < <(rows | while read -r b first last; do echo "$b $(key "$first") $(key "$last")"; done)
	for v in "$@"; do
		k=$(key "$v") found=-
		for b in "${table[@]}"; do
			read -r b first last <<<"$b"
			if [ "$first" -le "$k" ] && [ "$k" -le "$last" ]; then
				found=$b
				break
			fi
		done
		echo "$v $found"
	done
}

series() {
	local s
	s=$(pick "$1")
	s=${s#* }
	[ "$s" != - ] || return 1
	echo "$s"
}

versions() {
	local b first last
	rows | while read -r b first last; do
		span "$first" "$last" | tac
	done
}

regex() {
	echo "^($(versions | sed 's/\./\\./g' | paste -sd'|'))[.+-]"
}

text() {
	local b first last out=()
	while read -r b first last; do
		if [ "$first" = "$last" ]; then out+=("$first"); else out+=("$first to $last"); fi
	done < <(rows)
	list_text "${out[@]}"
}

# list_text ITEM...: "a, b and c"
list_text() {
	local n=$#
	if [ "$n" -le 1 ]; then
		echo "${1:-}"
		return
	fi
	local IFS=,
	local head="${*:1:n-1}"
	echo "${head//,/, } and ${!n}"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
write) [ $# -gt 0 ] || die "usage: $0 write FILE..."; write "$@" ;;
series) [ $# -eq 1 ] || die "usage: $0 series X.Y"; series "$1" ;;
pick) pick "$@" ;;
versions | regex | text) "$cmd" ;;
*) die "usage: $0 write FILE... | series X.Y | pick X.Y... | versions | regex | text" ;;
esac
