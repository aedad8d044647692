#!/usr/bin/env bash
# The README's table of the supported lines, from bases.conf,
# configs/distro.conf and the tiers' plans (configs/stages.conf, through
# check.sh --list): what each line is pinned to, which architectures boot
# or build it in which tier, and which Debian kernels make distro boots.
# It goes between the README's "lines: begin" and "lines: end" markers.
#
# usage: scripts/gen-docs.sh [--check]   (--check: fail if the README's
#                                         table is not what this makes)
set -euo pipefail
shopt -s inherit_errexit
LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

check=0
[ "${1:-}" != --check ] || check=1
readme=$LWNFS_TOP/README.md
begin='<!-- lines: begin (scripts/gen-docs.sh writes this table) -->'
end='<!-- lines: end -->'

# the plan of a tier: "ARCH BASE VARIANT" per guest, "build ARCH BASE" per
# cross build
plan() {
	"$LWNFS_TOP/scripts/check.sh" --list "$1" | awk '
		/ guest\.sh / {
			arch = "x86_64"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^LWNFS_ARCH=/) arch = substr($i, 12)
				if ($i == "guest.sh") print arch, $(i + 1), $(i + 2)
			}
		}
		/ check-cross\.sh / {
			for (i = 1; i <= NF; i++) if ($i == "check-cross.sh") print "build", $(i + 1), $(i + 2)
		}'
}
check_plan=$(plan check)
all_plan=$(plan all)

# variants ARCH BASE PLAN: the variants a tier boots, as the table says them
variants() {
	awk -v a="$1" -v b="$2" '$1 == a && $2 == b { print $3 }' <<<"$3" | while read -r v; do
		case $v in
		y) echo "=y" ;; m) echo "=m" ;; oot) echo "module" ;; kasan) echo "KASAN" ;; kcsan) echo "KCSAN" ;;
		esac
	done | paste -sd, - | sed 's/,/, /g'
}
# boots ARCH BASE: "check: ...; all adds ..."
boots() {
	local c a extra
	c=$(variants "$1" "$2" "$check_plan")
	a=$(variants "$1" "$2" "$all_plan")
	extra=$(comm -13 <(tr ',' '\n' <<<"$c" | tr -d ' ' | sort) <(tr ',' '\n' <<<"$a" | tr -d ' ' | sort) | paste -sd, - | sed 's/,/, /g')
	if [ -n "$c" ]; then
		echo "$c${extra:+; check-all: $extra}"
	elif [ -n "$a" ]; then
		echo "check-all: $a"
	else
		echo "-"
	fi
}
built() {
	local archs
	archs=$(awk -v b="$1" '$1 == "build" && $3 == b { print $2 }' <<<"$all_plan" | paste -sd, - | sed 's/,/, /g')
	echo "${archs:+$archs (check-all)}"
}
tree() {
	if [ "$(base_source "$1")" = git ]; then
		echo "Linux $(base_field "$1" version), a public git snapshot at a pinned commit"
	else
		echo "Debian \`$(base_field "$1" package)\` $(base_field "$1" version) ($(base_field "$1" suite))"
	fi
}
debian() {
	local n out=()
	for n in $(distro_names); do
		[ "$(distro_field "$n" base)" = "$1" ] || continue
		out+=("$(distro_field "$n" flavour) $(distro_field "$n" version)")
	done
	[ ${#out[@]} -gt 0 ] || out=("-")
	local IFS=,
	local joined="${out[*]}"
	echo "${joined//,/, }"
}

table() {
	echo "$begin"
	echo "| line | pinned tree | x86_64 guests | arm64 guests | other builds | Debian kernels (\`make distro\`) |"
	echo "|---|---|---|---|---|---|"
	local b
	for b in $(all_bases); do
		echo "| $b | $(tree "$b") | $(boots x86_64 "$b") | $(boots arm64 "$b") | $(built "$b" | sed 's/^$/-/') | $(debian "$b") |"
	done
	echo "$end"
}

new=$(table)
if [ "$(grep -cxF "$begin" "$readme")" != 1 ] || [ "$(grep -cxF "$end" "$readme")" != 1 ]; then
	die "README.md needs one line '$begin' and one '$end' after it"
fi
current=$(sed -n "\\|^$begin\$|,\\|^$end\$|p" "$readme")
if [ $check = 1 ]; then
	[ "$current" = "$new" ] || {
		diff <(echo "$current") <(echo "$new") >&2 || true
		die "README.md's table of the lines is not what scripts/gen-docs.sh makes; run: make patches"
	}
	exit 0
fi
[ "$current" = "$new" ] && exit 0
tmp=$(mktemp)
awk -v b="$begin" -v e="$end" -v f=<(echo "$new") '
	$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
	$0 == e { skip = 0; next }
	!skip' "$readme" >"$tmp"
cat "$tmp" >"$readme"
rm -f "$tmp"
info "README.md: the table of the lines rewritten"
