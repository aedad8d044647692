#!/usr/bin/env bash
# Run the lwnfs KUnit suite the way kernel developers do: kunit.py on UML,
# with fs/lwnfs/.kunitconfig. Fails unless every test passes and at least
# the number of tests bases.conf gives for the base ran. About 4 minutes cold per base here.
#
# usage: scripts/kunit-uml.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_applied "$base"
tree=$(tree_dir "$base")
[ -f "$tree/fs/lwnfs/.kunitconfig" ] || die "$base has no fs/lwnfs/.kunitconfig; run: make apply BASE=$base"
bd=$(build_dir "$base" uml)
export CCACHE_DIR=${CCACHE_DIR:-$LWNFS_CACHE/ccache}
expected=$(base_field "$base" kunit)
log=$bd.log
mkdir -p "$bd"

# v5.10's kunit.py has no --kunitconfig: it reads BUILD_DIR/.kunitconfig.
kunitconfig=(--kunitconfig=fs/lwnfs)
help=$(cd "$tree" && python3 tools/testing/kunit/kunit.py run --help)
if ! grep -q -- --kunitconfig <<<"$help"; then
	cp "$tree/fs/lwnfs/.kunitconfig" "$bd/.kunitconfig"
	kunitconfig=()
fi
rc=0
(cd "$tree" && python3 tools/testing/kunit/kunit.py run "${kunitconfig[@]}" \
	--build_dir="$bd" --jobs="$JOBS" --make_options="CC=ccache gcc") >"$log" 2>&1 || rc=$?
sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E 'Testing complete|FAILED|CRASHED' | sed 's/^\[[0-9:]*\] //' || true
ran=$(kunit_ran <"$log")
[ "$rc" -eq 0 ] || die "$base: kunit.py run failed (log: $log)"
if [ -z "$ran" ] || [ "$ran" -ne "$expected" ]; then
	die "$base: KUnit on UML ran ${ran:-no} tests, expected $expected (bases.conf; log: $log)"
fi
info "$base: KUnit on UML: $ran tests passed"
