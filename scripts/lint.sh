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
sh_files=(guest/init guest/tests.sh contrib/buildroot/lwnfs-line.sh contrib/dkms/lwnfs-dkms-make contrib/dkms/debian/lwnfs-dkms.postinst)
shellcheck -s sh "${sh_files[@]}"
info "shellcheck: $((${#files[@]} + ${#sh_files[@]})) scripts clean"
