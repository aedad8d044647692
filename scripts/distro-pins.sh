#!/usr/bin/env bash
# The pins of configs/distro.conf against what Debian offers now: the
# newest version of each kernel's headers meta package (linux-headers-
# FLAVOUR) in its suites, and the ABI it depends on.
#
# usage: scripts/distro-pins.sh [--strict]   say which pins Debian has moved
#                                            past (make distro-drift)
#        scripts/distro-pins.sh --bump       move them there (make bump)
# Exit status of the check: 0 when every pin is the newest; 3 (a warning,
# for make check) when one is not or cannot be looked up; with --strict,
# 1 instead of 3.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
bad=3
case "$mode" in
check) ;;
--strict) bad=1 ;;
--bump) ;;
*) die "usage: $0 [--strict|--bump]" ;;
esac

# newest NAME: "VERSION ABI" of the newest headers meta package of the
# kernel's flavour in its suites
newest() {
	local n=$1 flavour lines=() s v abi
	flavour=$(distro_field "$n" flavour)
	for s in $(distro_field "$n" suites | tr ',' ' '); do
		lines+=("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mirror_for "$s") $s main")
	done
	apt_private "$LWNFS_CACHE/apt/distro-$n" "${lines[@]}"
	# (a mirror in the middle of its sync fails an update now and then;
	# and no "head" below: under pipefail, a writer it cuts off fails)
	local try err=$LWNFS_CACHE/apt/distro-$n.err
	for try in 1 2 3; do
		apt-get "${apt_opts[@]}" update -qq >/dev/null 2>"$err" && break
		[ "$try" -lt 3 ] || { sed 's/^/    /' "$err" >&2; return 1; }
		sleep 10
	done
	v=$(apt-cache "${apt_opts[@]}" madison "linux-headers-$flavour" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u | sort_versions | sed -n 1p)
	[ -n "$v" ] || return 1
	abi=$(apt-cache "${apt_opts[@]}" show "linux-headers-$flavour=$v" 2>/dev/null |
		sed -n "s/^Depends: .*linux-headers-\([^ ,]*\)-$flavour (= .*/\1/p" | sed -n 1p)
	[ -n "$abi" ] || return 1
	echo "$v $abi"
}

status=0
conf=$DISTRO_CONF
for n in $(distro_names ''); do
	pinned=$(distro_field "$n" version)
	if ! read -r v abi < <(newest "$n"); then
		echo "WARNING: $n: Debian's linux-headers-$(distro_field "$n" flavour) could not be looked up in $(distro_field "$n" suites)"
		status=$bad
		continue
	fi
	if [ "$v" = "$pinned" ]; then
		info "$n: $pinned is Debian's newest"
		continue
	fi
	line=$(distro_field "$n" base)
	if [ "v$(echo "$abi" | cut -d. -f1-2)" != "$line" ]; then
		echo "WARNING: $n: Debian's newest is $v, of Linux $(echo "$abi" | cut -d. -f1-2), not of $line's line; configs/distro.conf needs a new row (and base), not a bump"
		status=$bad
		continue
	fi
	if [ "$mode" = --bump ]; then
		awk -v n="$n" -v v="$v" -v a="$abi" 'BEGIN { OFS = "\t" }
			!/^[[:space:]]*#/ && $1 == n { $5 = v; $6 = a } { print }' "$conf" >"$conf.new"
		mv "$conf.new" "$conf"
		info "$n: pinned $v (ABI $abi), was $pinned; run: make distro RELEASE=$n"
	else
		echo "WARNING: $n: Debian offers $v (ABI $abi), configs/distro.conf pins $pinned; run: make bump"
		status=$bad
	fi
done
exit $status
