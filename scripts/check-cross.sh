#!/usr/bin/env bash
# Build a base for an architecture that is built but not booted (arm,
# riscv64 in configs/arch.conf): the whole small kernel with lwnfs =y (and
# its KUnit tests) and =m, so that what only the link shows (a 64-bit
# division that needs a libgcc helper, an undefined symbol in the module)
# fails here; then fs/lwnfs/ again with W=1, and the kselftest, statically
# linked for that architecture. Any warning fails.
#
# usage: scripts/check-cross.sh ARCH BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: $0 ARCH BASE}
base=${2:?usage: $0 ARCH BASE}
check_arch "$arch"
export LWNFS_ARCH=$arch
S=$LWNFS_TOP/scripts
log=$(mktemp)
trap 'rm -f "$log" "$log.warn"' EXIT

# run NAME COMMAND...: run a step with its output in the log, which is
# shown whole when the step fails.
run() {
	local name=$1
	shift
	"$@" >"$log" 2>&1 || {
		cat "$log"
		die "$base/$arch: $name failed"
	}
}

tree=$(tree_dir "$base")
for variant in y m; do
	# lwnfs is compiled, linked and checked by modpost again on every run,
	# so that a rerun gives the same verdict
	rm -rf "$(build_dir "$base" "$arch-$variant")/fs/lwnfs"
	run "the =$variant build" "$S/build.sh" "$base" "$variant"
	# the link and modpost steps, which the W=1 pass below does not run;
	# the paths of the tree and the cache are taken out first, since both
	# have "lwnfs" in them
	sed "s|$tree/||g; s|$LWNFS_CACHE/||g" "$log" | grep -iE 'warning' >"$log.warn" || true
	if grep -E 'fs/lwnfs/|lwnfs\.(o|ko)|lwnfs_' "$log.warn"; then
		die "$base/$arch: the =$variant build warns about lwnfs (above)"
	fi
	if [ "$variant" = m ]; then
		ko=$(build_dir "$base" "$arch-m")/fs/lwnfs/lwnfs.ko
		[ -f "$ko" ] || die "$base/$arch: the =m build made no $ko"
		ko_size=$(stat -c %s "$ko")
	fi
	run "W=1 on fs/lwnfs (=$variant)" "$S/check-warnings.sh" "$base" w1 "$variant"
	tail -n 1 "$log"
done
run "the kselftest build" "$S/selftest.sh" "$base" y
tail -n 1 "$log"
info "$base/$arch: =y and =m build, 0 warnings; lwnfs.ko $ko_size bytes"
