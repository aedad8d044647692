#!/usr/bin/env bash
# The verdict on a test or soak guest's console log (scripts/guest.sh boots
# the guest; scripts/test-verdict.sh runs this on saved logs).
#
# usage: scripts/verdict.sh [OPTIONS] LOG
#   --mode test|soak|distro|bench  what the guest ran (default test)
#   --smp N           the CPUs the guest was given; it must bring all up
#   --kselftests N    the TEST()s of the kselftest; all must pass
#   --kunit N         KUnit ran and must have run N tests (omit: no KUnit)
#   --kunit-py FILE   the kernel's kunit.py, which parses KUnit's KTAP
#   --kmemleak        the kernel has kmemleak: its report must be there
#                     and name no lwnfs frame
#   --faults          the kernel has fault injection: the sweep must pass
#   --stress S        soak: the stress and race phases ran for S s (0: not)
#   --trinity S       soak: trinity ran for S s (0: not)
#   --debian-version V  distro: the kernel must say it is Debian's V
#   --taint N         distro: /proc/sys/kernel/tainted after insmod must be
#                     N, and lwnfs's own taint flags OE (out of tree, and
#                     unsigned or signed by a key the kernel does not trust)
#
# A guest fails on: a kernel report (WARNING, BUG, Oops, a sanitizer's,
# lockdep's, a hung task ...), a "not ok", a SKIP, a missing phase or end
# marker, missing kselftest totals, a KUnit count other than N. In a soak,
# a "not ok" of a phase whose outcome depends on timing (stress, race,
# trinity's full run and its reach) is a warning instead: exit status 3;
# in a distro guest (a real-time kernel's few seconds) it fails.
# In a soak, a KCSAN report that names no lwnfs frame is listed apart and
# not judged, and kmemleak's report is judged on its lwnfs frames. In a
# distro guest, OOM reports are allowed when they are the memcg phase's
# test groups' own (a memcg OOM, not the machine's). The distro guest
# dumps the kernel's log at its end; the kernel's console lines stop once
# it starts.
# Exit status: 0 passed, 1 failed, 3 passed with warnings.
set -euo pipefail
LWNFS_LOCK=no
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# status 1 is the guest's failure: this script's own errors are 2
die() {
	echo "error: $*" >&2
	exit 2
}
trap 'exit 2' ERR

mode=test smp=1 kselftests='' kunit='' kunit_py='' kmemleak=0 faults=0 stress=0 trinity=0 debian='' taint=
while [ $# -gt 1 ]; do
	case "$1" in
	--mode) mode=$2 ;;
	--smp) smp=$2 ;;
	--kselftests) kselftests=$2 ;;
	--kunit) kunit=$2 ;;
	--kunit-py) kunit_py=$2 ;;
	--kmemleak) kmemleak=1 && shift && continue ;;
	--faults) faults=1 && shift && continue ;;
	--stress) stress=$2 ;;
	--trinity) trinity=$2 ;;
	--debian-version) debian=$2 ;;
	--taint) taint=$2 ;;
	*) die "unknown option '$1'" ;;
	esac
	shift 2
done
log=${1:?usage: $0 [OPTIONS] LOG}
[ -f "$log" ] || die "no log $log"
[ -n "$kselftests" ] || [ "$mode" = bench ] || die "--kselftests N is needed"
[ -z "$kunit" ] || [ -f "$kunit_py" ] || die "--kunit needs --kunit-py FILE (the tree's kunit.py)"
[ "$mode" != distro ] || { [ -n "$debian" ] && [ -n "$taint" ]; } || die "--mode distro needs --debian-version V and --taint N"

# what the kernel prints when something went wrong: kernel_problem_re
# (scripts/lib.sh)
problem_re=$kernel_problem_re
# a stack frame in lwnfs: one of its functions, or its modules
lwnfs_frame='\[lwnfs(_kunit)?\]|lwnfs_[a-z0-9_]+\+0x'
# the soak phases whose outcome depends on timing: the stress and the
# race, and whether trinity ran its full time and reached lwnfs
timing_re='^not ok [0-9]+ (soak: stress|soak: race|trinity: ran for the full|trinity: it reached lwnfs)'

reasons=() warnings=() summary=()
reason() {
	printf '%s\n' "$@"
	reasons+=("$@")
}

# kunit_output: the KUnit output of the log for kunit.py parse, and no
# other TAP: v6.6's kunit.py loops for ever on the kselftest's TAP after
# it. At boot the suite runs before the guest's tests start. In a soak it
# runs at insmod, after the empty one of boot, and ends with the suite's
# own result line ("ok 1 lwnfs", or "ok 1 - lwnfs" on v5.10), and a line
# after it (v6.6's kunit.py fails on input that ends there). A module
# that prints only the suite, with no TAP header of its own (v6.1's and
# v5.10's do), is given the header and plan that boot would have printed.
kunit_output() {
	local end='/^\(not \)\{0,1\}ok [0-9]* \(- \)\{0,1\}lwnfs$/'
	if [ "$mode" != soak ]; then
		sed '/^LWNFS-GUEST-START/,$d' "$log"
		return
	fi
	if sed -n '/^LWNFS-GUEST-START/,/# Subtest: lwnfs/p' "$log" | grep -qE '^K?TAP version'; then
		sed -n '/^LWNFS-GUEST-START/,$p' "$log" | sed -n "1,${end}p"
	else
		printf 'TAP version 14\n1..1\n'
		sed -n '/^LWNFS-GUEST-START/,$p' "$log" | sed -n "/^[[:space:]]*# Subtest: lwnfs/,${end}p"
	fi
	echo
}

# judged_lines: the log without what is judged apart: KCSAN reports that
# name no lwnfs frame (listed in LOG.kcsan-other; the rest of such a block
# is judged, since another CPU may have printed into it) and kmemleak's
# report (judged below; kernel lines printed while it was read are kept).
judged_lines() {
	LWNFS_FRAME=$lwnfs_frame awk -v other="$log.kcsan-other" '
		function flush(   i, kcsan, ours) {
			for (i = 1; i <= nb; i++) {
				if (b[i] ~ /BUG: KCSAN:/) kcsan = 1
				if (b[i] ~ ENVIRON["LWNFS_FRAME"]) ours = 1
			}
			for (i = 1; i <= nb; i++) {
				if (kcsan && !ours) {
					print b[i] >other
					if (b[i] ~ /BUG: KCSAN:/) continue
				}
				print b[i]
			}
			nb = 0
		}
		/^LWNFS-KMEMLEAK-START/ { km = 1; next }
		km && /^LWNFS-KMEMLEAK-END/ { km = 0; next }
		km && (/^unreferenced object/ || /^[ \t]/) { next }
		/kmemleak: ([0-9]+ new suspected memory leaks|Kernel memory leak detector initialized)/ { next }
		length($0) >= 40 && /^(\[[^]]*\] )?=+$/ {
			b[++nb] = $0
			if (inblk) flush()
			inblk = !inblk
			next
		}
		inblk { b[++nb] = $0; next }
		{ print }
		END { if (inblk) flush() }' "$log"
}

# the guest must have had the CPUs it was given: for a long time -smp 2
# gave the x86_64 guests one, and nothing noticed
grep -qE "^(\[[ 0-9.]*\] )?smp: Brought up [0-9]+ nodes?, $smp CPUs?" "$log" ||
	reason "the guest did not bring up $smp CPUs: $(grep -m 1 'smp: Brought up' "$log" || echo 'no smp line')"

if [ -n "$kunit" ]; then
	# (a parser that loops fails the verdict rather than hanging the run,
	# and its output is cut short)
	parsed=$(set -o pipefail; kunit_output | timeout 300 python3 "$kunit_py" parse 2>&1 | head -c 1000000) &&
		kunit_fail=0 || kunit_fail=1
	ran=$(kunit_ran <<<"$parsed")
	kunit_summary=$(sed 's/\x1b\[[0-9;]*m//g; s/^\[[0-9:]*\] //' <<<"$parsed" | grep -E 'Ran [0-9]+ tests|tests run' | tail -n 1 || true)
	if [ -z "$ran" ] || [ "$ran" -ne "$kunit" ]; then
		kunit_fail=1
		kunit_summary="KUnit ran ${ran:-no} tests, expected $kunit"
	fi
	# kunit.py exits 0 on a suite without its result line (its summary
	# says "errors: 1"); v5.10's counts crashes apart ("0 crashed")
	if grep -qE '(errors|crashed): [1-9]|[1-9][0-9]* crashed' <<<"$kunit_summary"; then
		kunit_fail=1
		kunit_summary="KUnit: a test or suite crashed: $kunit_summary"
	fi
	if [ "$kunit_fail" = 1 ]; then
		tail -n 30 <<<"$parsed"
		reason "KUnit failed: $kunit_summary"
	else
		summary+=("KUnit: $kunit_summary")
	fi
fi

# memcg_check: every OOM report must be a memory cgroup's, of one of the
# memcg phase's test groups (that the phase ran is its TAP line). The
# reports are told apart by what they print (a memcg OOM prints the
# group's stats, a machine's its Mem-Info), not by where they are in the
# log: the console interleaves the kernel's lines with the guest's.
memcg_check() {
	local invoked ours
	if grep -qE 'Mem-Info:|CONSTRAINT_NONE|System is deadlocked' "$log"; then
		reason "memcg: an OOM of the whole machine, not of a test group:" \
			"$(grep -m 5 -E 'Mem-Info:|CONSTRAINT_NONE|System is deadlocked' "$log")"
	fi
	if grep 'oom_memcg=' "$log" | grep -qv 'oom_memcg=/lwnfs-memcg-'; then
		reason "memcg: an OOM kill outside the test groups:" "$(grep 'oom_memcg=' "$log" | grep -v 'oom_memcg=/lwnfs-memcg-')"
	fi
	invoked=$(grep -c 'invoked oom-killer' "$log" || true)
	ours=$(grep -c 'Memory cgroup stats for /lwnfs-memcg-' "$log" || true)
	[ "$invoked" -eq "$ours" ] ||
		reason "memcg: $invoked OOM reports, but $ours of the test groups"
	return 0
}

rm -f "$log.kcsan-other"
judged=$(cat "$log")
if [ "$mode" = distro ]; then
	# the kernel's lines reach the console only until the guest starts:
	# its log, dumped at the end, must be there whole, from boot on
	dump=$(sed -n '/^LWNFS-DMESG-START/,/^LWNFS-DMESG-END/p' "$log")
	if ! grep -q '^LWNFS-DMESG-END' <<<"$dump" || ! grep -qE '^\[ *0\.000000\] Linux version' <<<"$dump"; then
		reason "the guest's dump of the kernel log is missing, or does not reach back to boot"
	fi
	memcg_check
	# (what else those reports print is judged as any other line)
	judged=$(grep -v 'invoked oom-killer' "$log")
	grep -qF " Debian $debian (" <<<"$(grep '^DISTRO-VERSION ' "$log")" ||
		reason "the kernel is not Debian's $debian: $(grep -m 1 '^DISTRO-VERSION ' "$log" || echo 'no DISTRO-VERSION line')"
	grep -qx "DISTRO-TAINT-AFTER $taint OE" "$log" ||
		reason "lwnfs should taint the kernel $taint (OE) and no more: $(grep -m 1 '^DISTRO-TAINT-AFTER ' "$log" || echo 'no DISTRO-TAINT-AFTER line')"
	want_ok=("apparmor: active" "kernel: not tainted before lwnfs" "module: insmod lwnfs.ko"
		"kselftest filesystems/lwnfs" "memcg: counters are charged" "module: 1000 mount/umount cycles")
	[ "$stress" -eq 0 ] || want_ok+=("soak: stress" "soak: race on one counter")
	for w in "${want_ok[@]}"; do
		grep -qE "^(not )?ok [0-9]+ $w" "$log" || reason "the guest did not run '$w'"
	done
	summary+=("$(sed -n 's/^DISTRO-UNAME //p' "$log" | head -n 1)" "LSMs: $(sed -n 's/^DISTRO-LSM //p' "$log" | head -n 1)")
	while IFS= read -r l; do summary+=("$l"); done < <(grep '^LWNFS-MEMCG ' "$log" || true)
fi
if [ "$mode" = soak ]; then
	judged=$(judged_lines)
	: >>"$log.kcsan-other"
fi
if [ "$mode" = soak ]; then
	races=$(grep -c 'BUG: KCSAN:' "$log.kcsan-other" || true)
	[ "$races" -eq 0 ] || summary+=("$races KCSAN reports outside lwnfs (listed in $log.kcsan-other)")
	if [ $kmemleak = 1 ]; then
		grep -q '^LWNFS-KMEMLEAK-END' "$log" || reason "kmemleak: no report"
		# a frame of lwnfs, or one that no symbol names any more: the
		# code of a module since unloaded (lwnfs or its KUnit tests)
		report=$(sed -n '/^LWNFS-KMEMLEAK-START/,/^LWNFS-KMEMLEAK-END/p' "$log")
		leaks=$(LWNFS_FRAME=$lwnfs_frame awk '
			/unreferenced object/ { n++ }
			n { r[n] = r[n] $0 "\n" }
			n && ($0 ~ ENVIRON["LWNFS_FRAME"] || /^ +(\[<[^>]*>\] )?0x[0-9a-f]+$/) { hit[n] = 1 }
			END { for (i = 1; i <= n; i++) if (hit[i]) printf "%s", r[i] }' <<<"$report")
		[ -z "$leaks" ] || reason "kmemleak: leaks with an lwnfs frame:" "$leaks"
		summary+=("kmemleak: $(grep -c 'unreferenced object' <<<"$report" || true) reports, $([ -z "$leaks" ] && echo none || echo some) in lwnfs")
	fi
	# the phases that must have run, so that none passes by being skipped
	want_ok=("KUnit: insmod lwnfs_kunit.ko runs the suite" "kselftest filesystems/lwnfs")
	[ "$stress" -eq 0 ] || want_ok+=("soak: stress" "soak: race on one counter")
	[ $faults = 0 ] || want_ok+=("soak: fault injection")
	[ "$trinity" -eq 0 ] || want_ok+=("trinity: ran for the full $trinity s and stopped" "trinity: it reached lwnfs")
	for w in "${want_ok[@]}"; do
		grep -qE "^(not )?ok [0-9]+ $w" "$log" || reason "the guest did not run '$w'"
	done
fi

problems=$(grep -E "$problem_re" <<<"$judged" || true)
notok=$(grep -E '^[[:space:]]*(# )?not ok ' "$log" || true)
if [ "$mode" = soak ]; then
	timing=$(grep -E "$timing_re" <<<"$notok" || true)
	[ -z "$timing" ] || warnings+=("a phase that depends on timing failed:" "$timing")
	notok=$(grep -vE "$timing_re" <<<"$notok" || true)
fi
skips=$(grep -E '^[[:space:]]*(# )?ok .*# SKIP' "$log" || true)
# kselftest's totals (KUnit's have no xfail)
totals=$(grep -E '^# Totals: .*xfail' "$log" | tail -n 1 || true)
[ -z "$problems" ] || reason "kernel problems:" "$problems"
[ -z "$notok" ] || reason "failed tests:" "$notok"
[ -z "$skips" ] || reason "skipped tests (the guest is root with lwnfs, nothing may skip):" "$skips"
grep -q '^LWNFS-GUEST-END rc=0' "$log" || reason "the guest did not finish cleanly"
if [ "$mode" = bench ]; then
	bad=$(grep -E '^bench: FAIL' "$log" || true)
	[ -z "$bad" ] || reason "failed benchmarks:" "$bad"
elif [ -z "$totals" ]; then
	reason "the kselftest printed no totals"
elif ! grep -qE "pass:$kselftests " <<<"$totals"; then
	reason "the kselftest has $kselftests tests, but: $totals"
fi

if [ ${#reasons[@]} -gt 0 ]; then
	echo "--- end of the guest log ($log):"
	tail -n 40 "$log"
	# and why, last, where a log's tail (CI's) shows it
	echo "--- why the guest failed:"
	printf '%s\n' "${reasons[@]}" "${warnings[@]}" |
		awk 'NR <= 60; END { if (NR > 60) print "... and " NR - 60 " more lines, printed above" }'
	exit 1
fi
info "kselftest ${totals#\# }; $(grep -cE '^ok ' "$log" || true) guest checks ok"
[ ${#summary[@]} -eq 0 ] || printf '%s\n' "${summary[@]}" | sed 's/^/>> /'
if [ "$mode" = soak ] || [ "$mode" = distro ]; then
	grep -E '^soak: (faults|stress|race)|^# (trinity|kcsan)' "$log" | sed 's/^/  /' || true
fi
if [ ${#warnings[@]} -gt 0 ]; then
	echo "--- why the guest passed with a warning:"
	printf '%s\n' "${warnings[@]}"
	exit 3
fi
