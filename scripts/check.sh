#!/usr/bin/env bash
# Run the project's checks as a list of stages, each timed, and end with the
# line "N passed, N failed". A failing stage does not stop the run; its log
# tail is shown and the exit status is 1. The drift stages of make check
# may exit with status 3: they pass with a WARN line and their log tail.
#
# usage: scripts/check.sh [--all | --soak SECONDS] [BASE...]
#   (none)  make check: every kind of check at least once, all of them on
#           the newest base and the series' own on the others (below)
#   --all   the full matrix (make check-all)
#   --soak  the debug guests only, on every base (make soak): the KASAN
#           guest with SECONDS of stress and of trinity, and the KCSAN guest
#           on the newest base
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=check
soak_time=
if [ "${1:-}" = "--all" ]; then
	mode=all
	shift
elif [ "${1:-}" = "--soak" ]; then
	mode=soak
	soak_time=${2:-}
	[[ "$soak_time" =~ ^[1-9][0-9]*$ ]] || die "--soak needs a number of seconds (make soak DURATION=600)"
	shift 2
fi
if [ $# -gt 0 ]; then
	bases=("$@")
else
	mapfile -t bases < <(all_bases)
fi
newest=$(newest_base)
S=$LWNFS_TOP/scripts
logs=$LWNFS_CACHE/logs
mkdir -p "$logs"

passed=0 failed=0 failures=() warnings=()
run_start=$SECONDS

# stage [--may-warn] NAME COMMAND...: run one stage with its output in a
# log. Only a --may-warn stage (the drift check) may end with status 3.
stage() {
	local may_warn=0 name log start rc
	if [ "$1" = --may-warn ]; then
		may_warn=1
		shift
	fi
	name=$1
	shift
	log=$logs/$(echo "$name" | tr -c 'A-Za-z0-9.=_-' '_').log
	start=$SECONDS
	printf '%-44s ' "$name"
	"$@" >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		printf 'PASS %5ss\n' $((SECONDS - start))
	elif [ $rc -eq 3 ] && [ $may_warn = 1 ]; then
		passed=$((passed + 1))
		warnings+=("$name")
		printf 'WARN %5ss  (log: %s)\n' $((SECONDS - start)) "$log"
		tail -n 5 "$log" | sed 's/^/    | /'
		rc=0
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf 'FAIL %5ss  (log: %s)\n' $((SECONDS - start)) "$log"
		tail -n 25 "$log" | sed 's/^/    | /'
	fi
	return $rc
}

# soak_stages BASE STRESS TRINITY: the KASAN + UBSAN + lockdep + kmemleak guest,
# with the fault-injection sweep and STRESS and TRINITY seconds of each.
soak_stages() {
	stage "$1: debug build (KASAN, UBSAN, lockdep, kmemleak)" "$S/build.sh" "$1" kasan &&
		stage "$1: kselftest build (KASAN)" "$S/selftest.sh" "$1" kasan &&
		stage "$1: KASAN guest: soak, faults, trinity $3s" \
			env SOAK_STRESS="$2" SOAK_TRINITY="$3" "$S/guest.sh" "$1" kasan soak
}

# kcsan_stages BASE STRESS: the KCSAN guest, for the concurrency part.
kcsan_stages() {
	stage "$1: debug build (KCSAN, lockdep)" "$S/build.sh" "$1" kcsan &&
		stage "$1: kselftest build (KCSAN)" "$S/selftest.sh" "$1" kcsan &&
		stage "$1: KCSAN guest: KUnit, kselftest, stress, race" \
			env SOAK_STRESS="$2" SOAK_TRINITY=0 "$S/guest.sh" "$1" kcsan soak
}

finish() {
	echo "total time: $((SECONDS - run_start))s"
	for f in "${warnings[@]}"; do
		echo "warning: $f"
	done
	for f in "${failures[@]}"; do
		echo "failed: $f"
	done
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

stage "deps: Debian packages" "$S/deps.sh"
stage "lint: shellcheck scripts" "$S/lint.sh"
for b in "${bases[@]}"; do
	stage "fetch $b ($(base_field "$b" version))" "$S/fetch-base.sh" "$b"
done
if [ "$mode" = soak ]; then
	for b in "${bases[@]}"; do
		stage "$b: git am" "$S/apply.sh" "$b" || continue
		soak_stages "$b" "$soak_time" "$soak_time"
		[ "$b" != "$newest" ] || kcsan_stages "$b" "$soak_time"
	done
	finish
fi
stage "fetch sparse ($(tool_field sparse version))" "$S/fetch-sparse.sh"
stage "sync: patches/ match the sources" "$S/check-sync.sh" "${bases[@]}"
# Whether the newest Debian revision of each base still takes its series:
# a warning in make check, so unrelated work still lands; a failure in
# make check-all.
for b in "${bases[@]}"; do
	if [ "$mode" = all ]; then
		stage "drift $b: newest Debian revision takes the series" "$S/check-drift.sh" "$b" --strict
	else
		stage --may-warn "drift $b: newest Debian revision takes the series" "$S/check-drift.sh" "$b"
	fi
done

# make check runs every kind of check at least once: all of them on the
# newest base; on the others the series' own checks (it applies, its
# style, each patch builds, lwnfs =y boots and passes KUnit and the
# kselftest, sparse, coccicheck, the docs), with clang on the newest base
# that bases.conf says clang can build. make check-all runs all on every
# base.
clang_base=
for b in "${bases[@]}"; do
	[ -n "$clang_base" ] || [ "$(base_field "$b" clang)" = no ] || clang_base=$b
done
for b in "${bases[@]}"; do
	full=0
	{ [ "$b" = "$newest" ] || [ "$mode" = all ]; } && full=1
	stage "$b: git am" "$S/apply.sh" "$b" || continue
	stage "$b: patch -F0 and quilt" "$S/check-apply.sh" "$b"
	stage "$b: git am -3 on a locally changed tree" "$S/check-am3.sh" "$b"
	stage "$b: Buildroot's patch rules" "$S/check-buildroot.sh" "$b"
	stage "$b: Yocto's .scc and git am" "$S/check-yocto.sh" "$b"
	stage "$b: checkpatch --strict" "$S/checkpatch.sh" "$b"
	# the y build first: the other variants' build directories start as
	# copies of it (scripts/build.sh)
	if stage "$b: build CONFIG_LWNFS=y" "$S/build.sh" "$b" y &&
		stage "$b: kselftest build =y (static)" "$S/selftest.sh" "$b" y; then
		stage "$b: guest =y: KUnit, kselftest" "$S/guest.sh" "$b" y test
	fi
	stage "$b: bisect: each patch builds (W=1)" "$S/check-bisect.sh" "$b"
	stage "$b: sparse C=2 W=1 fs/lwnfs/" "$S/check-warnings.sh" "$b" sparse
	stage "$b: htmldocs filesystems" "$S/check-docs.sh" "$b"
	stage "$b: coccicheck fs/lwnfs/" "$S/check-cocci.sh" "$b"
	if [ $full = 1 ]; then
		if stage "$b: build CONFIG_LWNFS=m" "$S/build.sh" "$b" m &&
			stage "$b: kselftest build =m (static)" "$S/selftest.sh" "$b" m; then
			stage "$b: guest =m: kselftest, module cycles" "$S/guest.sh" "$b" m test
		fi
		stage "$b: build CONFIG_LWNFS=n" "$S/build.sh" "$b" n
		stage "$b: build LWNFS=y, KUNIT=m, tests =m (links)" "$S/build.sh" "$b" kunitm
	fi
	# bases.conf says which bases Debian 12's newest clang can build
	if [ "$(base_field "$b" clang)" = no ]; then
		echo "$b: clang: not run (bases.conf: Debian 12's LLVM is older than $b needs)"
	elif [ "$b" = "$clang_base" ] || [ "$mode" = all ]; then
		stage "$b: clang W=1 fs/lwnfs/" "$S/check-warnings.sh" "$b" clang
	fi
	if [ "$b" = "$newest" ] || [ "$mode" = all ]; then
		stage "$b: allmodconfig W=1 fs/lwnfs/" "$S/check-warnings.sh" "$b" allmod
	fi
	# UML KUnit takes about 4 minutes cold per base; the guests above
	# already run the same suite at boot on every base.
	if [ "$mode" = all ]; then
		stage "$b: KUnit on UML (kunit.py run)" "$S/kunit-uml.sh" "$b"
	fi
done

# Other architectures (configs/arch.conf). The arm64 guest runs the same
# KUnit and kselftest suites on the newest base, and in make check-all on
# the oldest too; arm and riscv64 are built, not booted, in make check-all.
oldest=$(oldest_base)
for b in "${bases[@]}"; do
	if [ "$b" = "$newest" ] || { [ "$mode" = all ] && [ "$b" = "$oldest" ]; }; then
		if stage "$b: arm64 build CONFIG_LWNFS=y" env LWNFS_ARCH=arm64 "$S/build.sh" "$b" y &&
			stage "$b: arm64 kselftest build =y (static)" env LWNFS_ARCH=arm64 "$S/selftest.sh" "$b" y; then
			stage "$b: arm64 guest =y: KUnit, kselftest" env LWNFS_ARCH=arm64 "$S/guest.sh" "$b" y test
		fi
	fi
	if [ "$b" = "$newest" ] && [ "$mode" = all ]; then
		for a in arm riscv64; do
			stage "$b: $a build =y, =m, W=1, kselftest" "$S/check-cross.sh" "$a" "$b"
		done
	fi
done

# The debug guests: KASAN, lockdep and kmemleak with fault injection and
# 2 minutes of trinity on the newest base; make check-all adds the oldest
# base (the older dentry pinning), 10 minutes of trinity on the newest and
# the KCSAN guest.
for b in "${bases[@]}"; do
	if [ "$b" = "$newest" ]; then
		if [ "$mode" = all ]; then
			soak_stages "$b" 60 600
			kcsan_stages "$b" 60
		else
			soak_stages "$b" 60 120
		fi
	elif [ "$mode" = all ] && [ "$b" = "$oldest" ]; then
		soak_stages "$b" 60 120
	fi
done

finish
