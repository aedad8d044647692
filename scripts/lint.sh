#!/usr/bin/env bash
# Run shellcheck on every script of the project.
#
# usage: scripts/lint.sh
set -euo pipefail
LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_cmd shellcheck shellcheck
cd "$LWNFS_TOP"
files=(scripts/*.sh .ci/run)
shellcheck -x "${files[@]}"
shellcheck -s sh guest/init guest/tests.sh contrib/buildroot/lwnfs-line.sh
info "shellcheck: $((${#files[@]} + 3)) scripts clean"
