#!/usr/bin/env bash
# The newcomer's command: install what is needed, fetch a base, apply the
# series with git am, build CONFIG_LWNFS=y, and boot a guest that shows the
# article's session. Each step prints its time; a demo that passed writes
# them to docs/timings/demo.txt (demo-cold.txt when the cache was empty).
#
# usage: scripts/demo.sh [BASE]      (default: the newest base)
#        scripts/demo.sh --shell [BASE]  the same kernel, an interactive shell
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=demo
if [ "${1:-}" = "--shell" ]; then
	mode=shell
	shift
fi
base=${1:-$(newest_base)}
check_base "$base"
S=$LWNFS_TOP/scripts
t0=$SECONDS
times=()
cold=$(cache_cold) cache_state="warm"
[ -z "$cold" ] || cache_state="empty (no trees, builds or ccache)"

# step WHAT COMMAND...: run one step, printing its elapsed time every 15 s
# while it runs (a cold kernel build is minutes of silence otherwise).
step() {
	local what=$1 start=$SECONDS ticker
	shift
	echo "==> $what"
	# (without the cache's lock, fd 9: its sleep would hold it after us)
	(exec 9>&-; while sleep 15; do echo "    ... $((SECONDS - start))s"; done) &
	ticker=$!
	# (the steps read nothing: make shell's standard input is the guest's)
	if ! "$@" </dev/null; then
		kill "$ticker" 2>/dev/null
		die "step failed: $what"
	fi
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null || true
	echo "    done in $((SECONDS - start))s"
	times+=("$(printf '%6ss  %s' $((SECONDS - start)) "$what")")
}

# write_times: the steps' times of a demo that passed, for the docs
write_times() {
	local f=$LWNFS_TOP/docs/timings/demo$cold.txt commit
	commit=$(git -C "$LWNFS_TOP" describe --always --dirty 2>/dev/null || echo unknown)
	mkdir -p "${f%/*}" || return 1
	{
		timings_head "make demo: step times of the last demo that passed" "$commit" "$cache_state"
		echo "packages installed by the first step: $installed"
		echo "total: $((SECONDS - t0))s"
		printf '%s\n' "${times[@]}"
	} >"$f" || return 1
	echo "==> step times: ${f#"$LWNFS_TOP"/}"
}

before=$(dpkg-query -W -f='${Status}\n' 2>/dev/null | grep -c 'ok installed' || true)
step "install the Debian packages the demo needs" "$S/deps.sh" demo
installed=$(($(dpkg-query -W -f='${Status}\n' 2>/dev/null | grep -c 'ok installed' || true) - before))
step "fetch $base from Debian (cached after the first time)" "$S/fetch-base.sh" "$base"
step "apply patches/$base with git am" "$S/apply.sh" "$base"
step "build $base with CONFIG_LWNFS=y (minutes the first time)" "$S/build.sh" "$base" y
if [ "$mode" = shell ]; then
	exec "$S/guest.sh" "$base" y shell
fi
echo "==> boot the guest (QEMU, software emulation) and run the session"
start=$SECONDS
"$S/guest.sh" "$base" y demo
times+=("$(printf '%6ss  %s' $((SECONDS - start)) "boot the guest and run the session")")
echo "==> total $((SECONDS - t0))s"
# (a checkout that cannot be written to does not fail a demo that passed)
write_times || echo "==> (the step times could not be written to docs/timings/)"
