#!/usr/bin/env bash
# The newcomer's command: install what is needed, fetch a base, apply the
# series with git am, build CONFIG_LWNFS=y, and boot a guest that shows the
# article's session. Each step prints its time.
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

# step WHAT COMMAND...: run one step, printing its elapsed time every 15 s
# while it runs (a cold kernel build is minutes of silence otherwise).
step() {
	local what=$1 start=$SECONDS ticker
	shift
	echo "==> $what"
	(while sleep 15; do echo "    ... $((SECONDS - start))s"; done) &
	ticker=$!
	if ! "$@"; then
		kill "$ticker" 2>/dev/null
		die "step failed: $what"
	fi
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null || true
	echo "    done in $((SECONDS - start))s"
}

step "install Debian packages" "$S/deps.sh"
step "fetch $base from Debian (cached after the first time)" "$S/fetch-base.sh" "$base"
step "apply patches/$base with git am" "$S/apply.sh" "$base"
step "build $base with CONFIG_LWNFS=y (4-6 min cold on 2 cores, seconds warm)" "$S/build.sh" "$base" y
if [ "$mode" = shell ]; then
	exec "$S/guest.sh" "$base" y shell
fi
echo "==> boot the guest (QEMU, software emulation) and run the session"
"$S/guest.sh" "$base" y demo
echo "==> total $((SECONDS - t0))s"
