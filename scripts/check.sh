#!/usr/bin/env bash
# Run a tier of the project's checks: the stages configs/stages.conf gives
# it, each timed, ending with the line "N passed, N failed". A failing
# stage does not stop the run (only the stages after it in its chain are
# skipped); its log tail is shown and the exit status is 1. A stage flagged
# "warn" may exit with status 3: it passes with a WARN line and its log
# tail. A whole run (every base) that passed writes its stage times to
# docs/timings/TIER.txt, or TIER-cold.txt when it started from an empty
# cache, so that the cold and the warm figures are both kept.
#
# usage: scripts/check.sh [--tier quick|check|all | --soak SECONDS] [BASE...]
#        scripts/check.sh --list TIER      the plan, without running it
#        scripts/check.sh --plan TIER      the plan as if every base's tree
#                                          were here (scripts/gen-docs.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tier=check duration='' list=0
case "${1:-}" in
--tier) tier=${2:-} && shift 2 ;;
--soak)
	tier=soak duration=${2:-}
	[[ "$duration" =~ ^[1-9][0-9]*$ ]] || die "--soak needs a number of seconds (make soak DURATION=600)"
	shift 2 ;;
--list) tier=${2:-} list=1 duration=DURATION && shift 2 ;;
--plan) tier=${2:-} list=1 duration=DURATION every_tree=1 && shift 2 ;;
esac
case "$tier" in quick | check | all | soak) ;; *) die "unknown tier '$tier' (quick, check, all, soak)" ;; esac
mapfile -t known < <(all_bases)
# the bases whose tree this machine has or can fetch: every Debian base; a
# git base imported, or whose clone LWNFS_TREE_<base> names
declare -A avail=()
for b in "${known[@]}"; do
	[ -z "${every_tree:-}" ] && ! has_tree "$b" || avail[$b]=1
done
if [ $# -gt 0 ]; then
	for b in "$@"; do check_base "$b"; done
	bases=("$@")
else
	bases=("${known[@]}")
fi
whole=0
[ $# -gt 0 ] || whole=1
# the roles (and the ends of a whole run) are Debian bases'
newest=$(newest_base) && oldest=$(oldest_base) || exit 1
S=$LWNFS_TOP/scripts
logs=$LWNFS_CACHE/logs
TABLE=$CONFIGS/stages.conf
mkdir -p "$logs"

# covers A B: whether selector A names every base that selector B does.
covers() {
	case "$1" in
	"$2") ;;
	every) [ "$2" != once ] ;;
	newest+oldest) [ "$2" = newest ] || [ "$2" = oldest ] ;;
	debian) [ "$2" = newest ] || [ "$2" = oldest ] || [ "$2" = newest+oldest ] ;;
	ends) [ "$2" = newest ] || [ "$2" = oldest ] || [ "$2" = newest+oldest ] || [ "$2" = head ] ;;
	head) [ "$2" = newest ] ;;
	clang) [ "$2" = clang1 ] ;;
	*) false ;;
	esac
}

# check_table: configs/stages.conf's rows are well formed: 7 columns, a
# known phase, flag, tier and selector, a unique id, an "after" that names
# an earlier stage of the same phase (or a setup stage) which, in each tier
# that runs both, runs on every base the stage runs on, and a command that
# is a script of scripts/. (A mistake there would otherwise drop stages
# from a run, or run one without what it needs, without a word.)
check_table() {
	local id phase after flags tiers name cmd t w seen=' ' bad=0
	local -A sel=() ph=()
	conf_rows "$TABLE" | awk -F'\t+' 'NF != 7 { print "configs/stages.conf: a row needs 7 tab-separated columns: " $0; bad = 1 } END { exit bad }' ||
		die "configs/stages.conf is malformed (above)"
	while IFS=$'\t' read -r id phase after flags tiers name cmd; do
		case "$phase" in setup | base) ;; *) echo "$id: unknown phase '$phase'" && bad=1 ;; esac
		case "$flags" in - | warn) ;; *) echo "$id: unknown flag '$flags'" && bad=1 ;; esac
		[[ "$seen" != *" $id "* ]] || { echo "$id: a second row with this id" && bad=1; }
		if [ "$after" != - ]; then
			[[ "$seen" == *" $after "* ]] || { echo "$id: after '$after', which is not an earlier stage" && bad=1; }
			[ "${ph[$after]:-}" != base ] || [ "$phase" = base ] ||
				{ echo "$id: a setup stage after the base stage '$after'" && bad=1; }
		fi
		for t in $tiers; do
			case "${t%%=*}" in quick | check | all | soak) ;; *) echo "$id: unknown tier in '$t'" && bad=1 ;; esac
			case "${t#*=}" in once | newest | oldest | every | debian | newest+oldest | ends | head | clang | clang1) ;;
			*) echo "$id: unknown bases in '$t'" && bad=1 ;;
			esac
			[ -z "${sel[$id@${t%%=*}]:-}" ] || { echo "$id: tier ${t%%=*} named twice" && bad=1; }
			sel[$id@${t%%=*}]=${t#*=}
			if [ "$after" != - ] && [ -n "${sel[$after@${t%%=*}]:-}" ] &&
				! covers "${sel[$after@${t%%=*}]}" "${t#*=}"; then
				echo "$id: in tier ${t%%=*} it runs on '${t#*=}', but '$after' only on '${sel[$after@${t%%=*}]}'"
				bad=1
			fi
		done
		ph[$id]=$phase
		for w in $cmd; do
			[ "$w" = env ] || [[ "$w" == *=* ]] && continue
			[ -x "$S/$w" ] || { echo "$id: no script scripts/$w" && bad=1; }
			break
		done
		seen="$seen$id "
	done < <(conf_rows "$TABLE" | awk -F'\t+' -v OFS='\t' '{ $1 = $1; print }')
	[ $bad = 0 ] || die "configs/stages.conf has mistakes (above)"
}

# selected SELECTOR [all]: the run's bases that a tier's selector names, in
# order ("once" gives the one empty name): only those with a tree, unless
# "all" asks what the selector would name if every base had one.
selected() {
	local b first_clang=''
	[ "$1" != once ] || { echo "" && return; }
	for b in "${bases[@]}"; do
		[ -n "${avail[$b]:-}" ] || [ "${2:-}" = all ] || continue
		case "$1" in
		every) true ;;
		debian) [ "$(base_source "$b")" = debian ] ;;
		newest) [ "$b" = "$newest" ] ;;
		oldest) [ "$b" = "$oldest" ] ;;
		newest+oldest) [ "$b" = "$newest" ] || [ "$b" = "$oldest" ] ;;
		ends) [ "$whole" = 0 ] || [ "$b" = "$newest" ] || [ "$b" = "$oldest" ] ;;
		head) [ "$whole" = 0 ] || [ "$b" = "$newest" ] ;;
		clang) [ "$(base_field "$b" clang)" != no ] ;;
		# (the clang base of a whole run is a Debian one, as the roles are)
		clang1) [ -z "$first_clang" ] && [ "$(base_field "$b" clang)" != no ] &&
			{ [ "$whole" = 0 ] || [ "$(base_source "$b")" = debian ]; } && first_clang=$b ;;
		esac && echo "$b"
	done
}

# rows PHASE: the table's rows of PHASE that the tier runs, as
# "id<TAB>after<TAB>flags<TAB>selector<TAB>name<TAB>command".
rows() {
	conf_rows "$TABLE" | awk -F'\t+' -v phase="$1" -v tier="$tier" '
		$2 == phase {
			n = split($5, t, " ")
			for (i = 1; i <= n; i++)
				if (index(t[i], tier "=") == 1)
					printf "%s\t%s\t%s\t%s\t%s\t%s\n", $1, $3, $4, substr(t[i], length(tier) + 2), $6, $7
		}'
}

# fill TEXT BASE: the placeholders of a name or command filled in, in
# $filled (not printed: the plan calls it thousands of times).
fill() {
	local t=$1
	t=${t//@BASE@/$2}
	[ -z "$2" ] || [[ "$t" != *@VERSION@* ]] || t=${t//@VERSION@/$(base_field "$2" version)}
	t=${t//@BASES@/${bases[*]}}
	t=${t//@DURATION@/$duration}
	[[ "$t" != *@SPARSE@* ]] || t=${t//@SPARSE@/$(tool_field sparse version)}
	filled=$t
}

passed=0 failed=0 failures=() warnings=() times=()
declare -A status=()
run_start=$SECONDS
# the commit the run checks, before any stage writes a file
run_commit=$(git -C "$LWNFS_TOP" describe --always --dirty 2>/dev/null || echo unknown)

# stage ID AFTER FLAGS BASE NAME COMMAND: run one stage with its output in
# a log, unless the stage it comes after did not pass.
stage() {
	local id=$1 after=$2 flags=$3 base=$4 name cmd log start rc
	fill "$5" "$base"
	name=$filled
	fill "$6" "$base"
	cmd=$filled
	if [ $list = 1 ]; then
		printf '%-60s %s\n' "$name" "$cmd"
		return
	fi
	# (a stage that this tier does not run on the base is no obstacle)
	if [ "$after" != - ] && [ -n "${status[$after@$base]:-}" ] && [ "${status[$after@$base]}" != pass ]; then
		status[$id@$base]=skip
		printf '%-44s SKIP  (after %s: %s)\n' "$name" "$after" "${status[$after@$base]}"
		return
	fi
	log=$logs/$(echo "$name" | tr -c 'A-Za-z0-9.=_-' '_').log
	start=$SECONDS
	printf '%-44s ' "$name"
	# the command's words: a leading env and its assignments, then a script
	# shellcheck disable=SC2086 # the table's command is a list of words
	set -- $cmd
	local envs=()
	if [ "$1" = env ]; then
		shift
		while [[ "$1" == *=* ]]; do envs+=("$1") && shift; done
	fi
	local script=$S/$1
	shift
	env "${envs[@]}" "$script" "$@" </dev/null >"$log" 2>&1
	rc=$?
	times+=("$(printf '%6ss  %s' $((SECONDS - start)) "$name")")
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1)) status[$id@$base]=pass
		printf 'PASS %5ss\n' $((SECONDS - start))
	elif [ $rc -eq 3 ] && [ "$flags" = warn ]; then
		passed=$((passed + 1)) status[$id@$base]=pass
		warnings+=("$name")
		printf 'WARN %5ss  (log: %s)\n' $((SECONDS - start)) "$log"
		tail -n 8 "$log" | sed 's/^/    | /'
	else
		failed=$((failed + 1)) status[$id@$base]=failed
		failures+=("$name")
		printf 'FAIL %5ss  (log: %s)\n' $((SECONDS - start)) "$log"
		tail -n 25 "$log" | sed 's/^/    | /'
	fi
}

# run_phase PHASE [BASE]: the phase's stages; setup: each stage on each of
# its bases; base: BASE's stages.
run_phase() {
	local id after flags sel name cmd b
	while IFS=$'\t' read -r id after flags sel name cmd; do
		while IFS= read -r b; do
			[ "$1" = setup ] || [ "$b" = "$2" ] || continue
			stage "$id" "$after" "$flags" "$b" "$name" "$cmd"
		done < <(selected "$sel")
	done < <(rows "$1")
}

# the bases whose clang stage the tier leaves out because clang cannot
# build them, named once
clang_notes() {
	local b
	rows base | grep -q '^clang	' || return 0
	for b in "${bases[@]}"; do
		[ "$(base_field "$b" clang)" != no ] ||
			echo "$b: clang: not run (bases.conf: Debian 12's LLVM is older than $b needs)"
	done
}

# not_run: for each base of the run without a tree, the one line that
# names the stages the tier would have run on it, and why it did not
not_run() {
	local b id after flags sel name cmd ids
	for b in "${bases[@]}"; do
		[ -z "${avail[$b]:-}" ] || continue
		ids=()
		while IFS=$'\t' read -r id after flags sel name cmd; do
			selected "$sel" all | grep -qxF -- "$b" && ids+=("$id")
		done < <(rows setup; rows base)
		[ ${#ids[@]} -eq 0 ] ||
			echo "$b: not run: ${ids[*]} (no tree: $(base_tree_text "$b"); $(tree_env "$b")=/path to a clone runs them)"
	done
}

# write_times: the stage times of a whole run that passed, for the docs.
write_times() {
	local f=$LWNFS_TOP/docs/timings/$tier$cold.txt commit=$run_commit
	mkdir -p "${f%/*}"
	{
		timings_head "make $([ "$tier" = all ] && echo check-all || echo "$tier"): stage times of the last whole run that passed" \
			"$commit" "$cache_state"
		echo "total: $((SECONDS - run_start))s"
		not_run | sed 's/^/without a tree: /'
		printf '%s\n' "${times[@]}"
	} >"$f"
	echo "stage times: ${f#"$LWNFS_TOP"/}"
}

check_table
if [ $list = 1 ]; then
	echo "make $tier: the stages, in order (configs/stages.conf)"
	run_phase setup
	for b in "${bases[@]}"; do run_phase base "$b"; done
	not_run
	exit 0
fi
cold=$(cache_cold) cache_state="warm"
[ -z "$cold" ] || cache_state="empty (no trees, builds or ccache)"
run_phase setup
clang_notes
not_run
for b in "${bases[@]}"; do run_phase base "$b"; done
echo "total time: $((SECONDS - run_start))s"
for f in "${warnings[@]}"; do echo "warning: $f"; done
for f in "${failures[@]}"; do echo "failed: $f"; done
[ "$whole" = 0 ] || [ "$failed" -ne 0 ] || write_times
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
