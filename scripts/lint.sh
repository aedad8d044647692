#!/usr/bin/env bash
# shellcheck every script of the project.
#
# usage: scripts/lint.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_cmd shellcheck shellcheck
cd "$LWNFS_TOP"
shellcheck -x scripts/*.sh .ci/run
info "shellcheck: $(ls scripts/*.sh .ci/run | wc -l) scripts clean"
