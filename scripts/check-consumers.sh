#!/usr/bin/env bash
# Apply a base's series every way its users do, each on its own copy of the
# base's files: patch -F0 and quilt, git am -3 on a locally changed tree,
# Buildroot's patch rules, and Yocto's .scc with git am. All of them run;
# the stage fails if any does.
#
# usage: scripts/check-consumers.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
check_base "$base"
bad=()
for c in check-apply check-am3 check-buildroot check-yocto; do
	echo "=== $c"
	"$LWNFS_TOP/scripts/$c.sh" "$base" || bad+=("scripts/$c.sh")
done
[ ${#bad[@]} -eq 0 ] || die "$base: ${bad[*]} failed (above)"
info "$base: the series applies the ways its users apply it"
