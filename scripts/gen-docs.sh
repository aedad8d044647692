#!/usr/bin/env bash
# The docs' generated tables, each between its "NAME: begin" and
# "NAME: end" markers (lines and tiers in README.md, verified in
# docs/versions.md):
#   lines  the supported lines: what each is pinned to, which
#          architectures boot or build it in which tier, which Debian
#          kernels make distro boots (bases.conf, configs/distro.conf, and
#          the tiers' plans: configs/stages.conf through check.sh --plan,
#          as if every git base's clone were here), and the versions of
#          each line's trees that count as served (docs/verified.txt)
#   tiers  what each tier runs, with every line's tree: its stages, the
#          kernels it builds (build.sh, and check-cross.sh's =y and =m, and
#          kunit-uml.sh), the guests it boots (guest.sh, and the Debian
#          kernels of distro.sh). The times of the last whole runs are not
#          here but in docs/timings/, which check.sh writes.
#   verified  the trees each series was verified on (docs/verified.txt),
#          current, stale or outside the ranges (lib-verified.sh), and the
#          versions of the ranges that do not count as served: no current
#          row that passed, or a current row that failed
#
# usage: scripts/gen-docs.sh [--check] [TABLE...]   (--check: fail if the
#        tables are not what this makes; default: every table)
set -euo pipefail
shopt -s inherit_errexit
# (it reads the tables only; check.sh --plan too)
export LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

check=0
[ "${1:-}" != --check ] || { check=1 && shift; }
tables=("$@")
[ $# -gt 0 ] || tables=(lines tiers verified)
# doc TABLE: the file that holds it
doc() {
	case $1 in
	verified) echo "$LWNFS_TOP/docs/versions.md" ;;
	*) echo "$LWNFS_TOP/README.md" ;;
	esac
}

# each tier's plan, made once and side by side (check.sh --plan takes
# seconds), for the tables that need them
declare -A plans=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need_plans=0
for t in "${tables[@]}"; do
	case $t in
	lines | tiers) need_plans=1 ;;
	verified) ;;
	*) die "unknown table '$t' (lines, tiers, verified)" ;;
	esac
done
if [ $need_plans = 1 ]; then
	for t in quick check all soak; do
		"$LWNFS_TOP/scripts/check.sh" --plan "$t" >"$tmp/$t" &
	done
	for t in quick check all soak; do
		wait -n || die "check.sh --plan failed"
	done
	for t in quick check all soak; do
		plans[$t]=$(cat "$tmp/$t")
	done
fi

# the plan of a tier: "ARCH BASE VARIANT" per guest, "build ARCH BASE" per
# cross build
plan() {
	awk '
		/ guest\.sh / {
			arch = "x86_64"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^LWNFS_ARCH=/) arch = substr($i, 12)
				if ($i == "guest.sh") print arch, $(i + 1), $(i + 2)
			}
		}
		/ check-cross\.sh / {
			for (i = 1; i <= NF; i++) if ($i == "check-cross.sh") print "build", $(i + 1), $(i + 2)
		}' <<<"${plans[$1]:-}"
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
# serves BASE: the versions its series serves (bases.conf's first and last)
serves() {
	local first last
	first=$(base_field "$1" first) last=$(base_field "$1" last)
	if [ "$first" = "$last" ]; then echo "$first"; else echo "$first to $last"; fi
}
debian() {
	local n out=()
	for n in $(distro_names); do
		[ "$(distro_field "$n" base)" = "$1" ] || continue
		out+=("$(distro_field "$n" flavour) $(distro_field "$n" version)")
	done
	list_or "-" "${out[@]}"
}
# list_or NONE ITEM...: the items, comma-separated, or NONE
list_or() {
	local none=$1
	shift
	[ $# -gt 0 ] || set -- "$none"
	local IFS=,
	local joined="$*"
	echo "${joined//,/, }"
}

# verified_on BASE ROWS: the versions of the trees of BASE's series whose
# X.Y counts as served (served_versions; ROWS: verified_rows's output), or
# "not yet"
verified_on() {
	local out=()
	mapfile -t out < <(awk -F'\t' -v s="$1" -v list="$(served_versions "$2" | tr '\n' ' ')" '
		BEGIN { n = split(list, l, " "); for (i = 1; i <= n; i++) served[l[i]] = 1 }
		$3 == s && $NF == "current" { split($2, v, "."); if ((v[1] "." v[2]) in served) print $2 }' <<<"$2")
	list_or "not yet" "${out[@]}"
}
lines_table() {
	local b rows
	rows=$(verified_rows) || die "docs/verified.txt's rows cannot be judged (above)"
	echo "| line | serves Linux | verified on | pinned tree | x86_64 guests | arm64 guests | other builds | Debian kernels (\`make distro\`) |"
	echo "|---|---|---|---|---|---|---|---|"
	for b in $(all_bases); do
		echo "| $b | $(serves "$b") | $(verified_on "$b" "$rows") | $(tree "$b") | $(boots x86_64 "$b") | $(boots arm64 "$b") | $(built "$b" | sed 's/^$/-/') | $(debian "$b") |"
	done
}

# kernels TIER, guests TIER: what the tier's plan builds and boots
kernels() {
	awk '
		/ build\.sh / { n++ } / check-cross\.sh / { n += 2 } / kunit-uml\.sh / { n++ }
		END { print n + 0 }' <<<"${plans[$1]}"
}
guests() {
	local n words b
	n=$(grep -c ' guest\.sh ' <<<"${plans[$1]}" || true)
	# distro.sh --tier TIER BASE... or --base BASE: the Debian kernels of
	# those bases (of that tier)
	while read -ra words; do
		case "${words[0]}" in
		--tier) for b in "${words[@]:2}"; do n=$((n + $(debian_kernels "$b" "${words[1]}"))); done ;;
		--base) n=$((n + $(debian_kernels "${words[1]}"))) ;;
		esac
	done < <(sed -n 's/.* distro\.sh //p' <<<"${plans[$1]}")
	echo "$n"
}
# debian_kernels BASE [TIER]: how many of configs/distro.conf's kernels
# (of TIER) are of BASE's line
debian_kernels() {
	local d n=0
	for d in $(distro_names "${2:-}"); do
		[ "$(distro_field "$d" base)" != "$1" ] || n=$((n + 1))
	done
	echo "$n"
}
tiers_table() {
	echo "| command | stages | kernels built | guests booted |"
	echo "|---|---|---|---|"
	local t cmd
	for t in quick check all soak; do
		case $t in all) cmd="make check-all" ;; soak) cmd="make soak" ;; *) cmd="make $t" ;; esac
		echo "| \`$cmd\` | $(tail -n +2 <<<"${plans[$t]}" | grep -c .) | $(kernels "$t") | $(guests "$t") |"
	done
}

# the verified table: one row a tree of docs/verified.txt, and the
# versions of the ranges that do not count as served (served_versions)
verified_table() {
	local rows vs served name version series from pin sources am y m w1 ks mod date state failed c v missing=()
	rows=$(verified_rows) || die "docs/verified.txt's rows cannot be judged (above)"
	vs=$("$LWNFS_TOP/scripts/ranges.sh" versions) || die "bases.conf's ranges cannot be read (above)"
	served=$(served_versions "$rows")
	echo "| Linux | tree | series | result | verified |"
	echo "|---|---|---|---|---|"
	while IFS=$'\t' read -r name version series from pin sources am y m w1 ks mod date state; do
		[ -n "$name" ] || continue
		failed=()
		for c in "am:$am" "=y:$y" "=m:$m" "W=1:$w1" "kselftest:$ks" "module:$mod"; do
			[ "${c#*:}" = pass ] || failed+=("${c%%:*} ${c#*:}")
		done
		if [ ${#failed[@]} -eq 0 ]; then
			c="git am, =y, =m, W=1, kselftest, module: pass"
		else
			c=$(list_or "" "${failed[@]}")
		fi
		[[ ! $pin =~ ^[0-9a-f]{40}$ ]] || pin=${pin:0:12}
		[ "$state" != outside ] || state="outside the ranges"
		echo "| $version | $name: $from at $pin | $series | $c | $date, $state |"
	done <<<"$rows"
	for v in $vs; do
		grep -qxF -- "$v" <<<"$served" || missing+=("$v")
	done
	echo
	if [ ${#missing[@]} -eq 0 ]; then
		echo "Every version of the ranges counts as served."
	else
		echo "Not verified (no current row that passed, or a current row that failed): $(list_or "" "${missing[@]}")."
	fi
}

status=0
for name in "${tables[@]}"; do
	file=$(doc "$name")
	rel=${file#"$LWNFS_TOP"/}
	begin="<!-- $name: begin (scripts/gen-docs.sh writes this table) -->"
	end="<!-- $name: end -->"
	case $name in
	lines) new=$(echo "$begin" && lines_table && echo "$end") ;;
	tiers) new=$(echo "$begin" && tiers_table && echo "$end") ;;
	verified) new=$(echo "$begin" && verified_table && echo "$end") ;;
	esac
	current=$(generated_section "$file" "$name")
	[ "$current" != "$new" ] || continue
	if [ $check = 1 ]; then
		diff <(echo "$current") <(echo "$new") >&2 || true
		echo "error: $rel's $name table is not what scripts/gen-docs.sh makes; run: scripts/gen-docs.sh" >&2
		status=1
		continue
	fi
	echo "$new" >"$tmp/new.md"
	replace_section "$file" "$name" "$tmp/new.md"
	info "$rel: the $name table rewritten"
done
exit $status
