#!/usr/bin/env bash
# Run the base's own Coccinelle checks, `make coccicheck MODE=report
# M=fs/lwnfs`, on the applied tree, and fail on any report. A run that
# checked nothing fails too: spatch or OCaml missing, a semantic patch
# that coccicheck skips because spatch is older than it requires, a spatch
# error, no semantic patch run on fs/lwnfs, or lwnfs code that spatch
# cannot parse (no rule can match there).
#
# The make runs in a scratch directory (O= for the kernel's objects, MO=
# for the module's since 6.13): coccicheck writes nothing into the tree,
# and the tree's status is compared before and after to prove it.
#
# usage: scripts/check-cocci.sh BASE
# SPATCH names another spatch, as for the kernel's coccicheck.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_applied "$base"
spatch=$(command -v "${SPATCH:-spatch}") || die "'${SPATCH:-spatch}' not found; run: make deps (or: apt-get install coccinelle)"
# make runs with -C: a relative SPATCH must not stay relative
spatch=$(realpath "$spatch")
# the semantic patches with OCaml scripts compile them with ocamlopt
need_cmd ocamlopt ocaml
tree=$(tree_dir "$base")
# v5.10's coccicheck passes M= to spatch as given, v6.13's its realpath
dir=$(realpath "$tree/fs/lwnfs")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log
mkdir -p "$scratch/o" "$scratch/mo"
ver=$("$spatch" --version | sed -n '1s/^spatch version \([^ ]*\).*/\1/p')

before=$(git -C "$tree" status --porcelain --ignored)
# spatch must parse all of fs/lwnfs, its header too: most semantic patches
# run with --include-headers
"$spatch" --parse-ch "$dir" >"$scratch/parse" 2>&1 || { cat "$scratch/parse"; die "$base: spatch --parse-ch failed on fs/lwnfs"; }
if ! grep -qE '^NB total files = ([1-9][0-9]*); perfect = \1; pbs = 0; timeout = 0;' "$scratch/parse" ||
	! grep -qE '^nb good = [0-9]+, +nb bad = 0 ' "$scratch/parse"; then
	grep -E '^(PARSING|BAD|bad|NB total|nb good)' "$scratch/parse" || true
	die "$base: spatch $ver cannot parse all of fs/lwnfs (above), so coccicheck would not look there"
fi

rc=0
# nothing of an outer make or of a debugging session may reach coccicheck:
# an inherited jobserver warning, V=, C=, or a COCCI= that runs one patch
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u COCCI -u SPFLAGS -u DEBUG_FILE -u V -u C \
	make -C "$tree" O="$scratch/o" MO="$scratch/mo" M="$dir" SPATCH="$spatch" MODE=report J="$JOBS" coccicheck >"$log" 2>&1 || rc=$?
[ "$(git -C "$tree" status --porcelain --ignored)" = "$before" ] ||
	die "$base: coccicheck changed the source tree: $(git -C "$tree" status --porcelain --ignored | head -n 5 | tr '\n' ' ')"
[ "$rc" -eq 0 ] || { cat "$log"; die "$base: make coccicheck failed (exit status $rc)"; }
if grep -q '^Skipping coccinelle SmPL patch' "$log"; then
	grep -A 2 '^Skipping coccinelle SmPL patch' "$log"
	die "$base: spatch $ver is older than some of $base's semantic patches require (above)"
fi

# Each semantic patch's spatch command line (coccicheck echoes it): there
# must be some, and each must have looked at fs/lwnfs.
run=$(grep -cE '^[^ ]*spatch -D report ' "$log" || true)
[ "$run" -gt 0 ] || { cat "$log"; die "$base: coccicheck ran no semantic patch"; }
dirs=$(grep -E '^[^ ]*spatch -D report ' "$log" | { grep -oE -- '--dir [^ ]+' || true; } | sort -u)
[ "$dirs" = "--dir $dir" ] ||
	die "$base: coccicheck's spatch looked at '${dirs//$'\n'/, }', not at --dir $dir"

# Everything else coccicheck prints is a report: its own banners, the
# command lines, the semantic patches that have no report mode and
# spatch's remarks on a semantic patch's own text are not.
noise='^$|^make(\[[0-9]+\])?: (Entering|Leaving) directory |^[^ ]*spatch -D report |^Please check for false positives|^When using "patch" mode|^You have not explicitly specified the debug file|^Using default "/dev/null" as debug file|^Debug logs will be printed to stdout|^You can specify the debug file with|^warning: Skipping .* as it does not match mode|^warning: line [0-9]+: should [A-Za-z0-9_]+ be a metavariable\?$'
reports=$(grep -vE "$noise" "$log" | sed "s|^$dir/|fs/lwnfs/|" || true)
if [ -n "$reports" ]; then
	echo "$reports"
	die "$base: coccicheck reported on fs/lwnfs (above: one line per report)"
fi
info "$base: coccicheck MODE=report on fs/lwnfs/: $run semantic patches, 0 reports (spatch $ver)"
