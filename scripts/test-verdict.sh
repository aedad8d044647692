#!/usr/bin/env bash
# The harness's own tests: scripts/verdict.sh on saved guest logs
# (tests/verdict/: a passing test guest and a passing KASAN soak guest of
# the newest base, and a passing guest of Debian's bookworm kernel,
# scripts/distro-guest.sh) and on copies of them with one thing broken. Each case
# must get the exit status it should (0 pass, 1 fail, 3 warn) and, when it
# fails, the reason it should.
#
# usage: scripts/test-verdict.sh   (needs the newest base's tree, for kunit.py)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

fixtures=$LWNFS_TOP/tests/verdict
newest=$(newest_base)
need_tree "$newest"
kunit_py=$(tree_dir "$newest")/tools/testing/kunit/kunit.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# what the fixtures are: v7.3, 2 CPUs, 57 kselftests, 73 KUnit tests; the
# soak with kmemleak, fault injection, 60 s of stress, 120 s of trinity
test_opts=(--mode test --smp 2 --kselftests 57 --kunit 73 --kunit-py "$kunit_py")
soak_opts=(--mode soak --smp 2 --kselftests 57 --kunit 73 --kunit-py "$kunit_py"
	--kmemleak --faults --stress 60 --trinity 120)

# the distro fixture: Debian's 6.1.192-3, with its memcg phase's OOM reports
distro_opts=(--mode distro --smp 2 --kselftests 57 --debian-version 6.1.192-3 --taint 12288 --stress 0)

passed=0 failed=0
# case NAME STATUS REASON FIXTURE EDIT [OPTION...]: the fixture after the
# sed script EDIT (which must change it, unless it is empty) must get exit
# status STATUS and, unless REASON is -, a line matching REASON among the
# reasons verdict.sh gives last (not in the log's tail it shows first).
case_() {
	local name=$1 want=$2 why=$3 fixture=$4 edit=$5 log out rc=0
	shift 5
	log=$work/$name.log
	sed -e "$edit" "$fixtures/$fixture" >"$log"
	if [ -n "$edit" ] && cmp -s "$log" "$fixtures/$fixture"; then
		failed=$((failed + 1))
		printf 'FAIL %-42s its edit changed nothing in %s\n' "$name" "$fixture"
		return
	fi
	out=$("$LWNFS_TOP/scripts/verdict.sh" "$@" "$log" 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && { [ "$why" = - ] ||
		sed -n '/^--- why the guest /,$p' <<<"$out" | grep -qE -- "$why"; }; then
		passed=$((passed + 1))
		printf 'ok %-44s status %s\n' "$name" "$rc"
	else
		failed=$((failed + 1))
		printf 'FAIL %-42s status %s, expected %s%s\n' "$name" "$rc" "$want" \
			"$([ "$why" = - ] || echo " with /$why/")"
		tail -n 15 <<<"$out" | sed 's/^/    | /'
	fi
}

T=test-pass.log S=soak-pass.log
end='/^LWNFS-GUEST-END/'
case_ test-passes 0 - $T '' "${test_opts[@]}"
case_ test-kasan-report 1 'kernel problems' $T \
	"${end}i BUG: KASAN: slab-use-after-free in lwnfs_counter_read+0x1c/0x90" "${test_opts[@]}"
case_ test-ubsan-report 1 'kernel problems' $T \
	"${end}i UBSAN: array-index-out-of-bounds in fs/lwnfs/counter.c:60:3" "${test_opts[@]}"
case_ test-lockdep-splat 1 'kernel problems' $T \
	"${end}i WARNING: possible circular locking dependency detected" "${test_opts[@]}"
case_ test-hung-task 1 'kernel problems' $T \
	"${end}i INFO: task lwnfs_test:91 blocked for more than 30 seconds." "${test_opts[@]}"
case_ test-not-ok 1 'failed tests' $T 's/^ok 5 lwnfs.default_layout/not ok 5 lwnfs.default_layout/' "${test_opts[@]}"
case_ test-skip 1 'skipped tests' $T 's/^ok 5 lwnfs.default_layout$/ok 5 lwnfs.default_layout # SKIP no lwnfs/' "${test_opts[@]}"
case_ test-truncated 1 'did not finish cleanly' $T "/^ok 20 /,\$d" "${test_opts[@]}"
case_ test-kselftest-lost 1 'the kselftest has 58 tests' $T '' \
	--mode test --smp 2 --kselftests 58 --kunit 73 --kunit-py "$kunit_py"
case_ test-kunit-lost 1 'KUnit ran 73 tests, expected 74' $T '' \
	--mode test --smp 2 --kselftests 57 --kunit 74 --kunit-py "$kunit_py"
case_ test-kunit-failed 1 'KUnit failed' $T '0,/^        ok 1 /s//        not ok 1 /' "${test_opts[@]}"
case_ test-one-cpu 1 'did not bring up 2 CPUs' $T 's/Brought up 1 node, 2 CPUs/Brought up 1 node, 1 CPU/' "${test_opts[@]}"

case_ soak-passes 0 - $S '' "${soak_opts[@]}"
case_ soak-no-fault-phase 1 "did not run 'soak: fault injection'" $S '/^ok [0-9]* soak: fault injection/d' "${soak_opts[@]}"
case_ soak-no-kmemleak-report 1 'kmemleak: no report' $S '/^LWNFS-KMEMLEAK-/d' "${soak_opts[@]}"
case_ soak-lwnfs-leak 1 'leaks with an lwnfs frame' $S \
	'/^LWNFS-KMEMLEAK-START/a unreferenced object 0xffff888012345678 (size 8):\n  backtrace:\n    lwnfs_new_counter+0x2a/0x90 [lwnfs]' "${soak_opts[@]}"
case_ soak-other-leak 0 - $S \
	'/^LWNFS-KMEMLEAK-START/a unreferenced object 0xffff888012345678 (size 8):\n  backtrace:\n    acpi_os_alloc+0x2a/0x90' "${soak_opts[@]}"
kcsan='=================================================================='
case_ soak-kcsan-elsewhere 0 - $S \
	"${end}i $kcsan\\nBUG: KCSAN: data-race in tick_sched_timer / tick_nohz_next_event\\n$kcsan" "${soak_opts[@]}"
case_ soak-kcsan-in-lwnfs 1 'kernel problems' $S \
	"${end}i $kcsan\\nBUG: KCSAN: data-race in lwnfs_write+0x10/0x80 / lwnfs_read_iter+0x20/0x90\\n$kcsan" "${soak_opts[@]}"
case_ soak-no-stress-asked 0 - $S '/^ok [0-9]* soak: \(stress\|race\)/d' \
	--mode soak --smp 2 --kselftests 57 --kunit 73 --kunit-py "$kunit_py" --kmemleak --faults --stress 0 --trinity 120
case_ soak-make-check 0 - $S '/^ok [0-9]* soak: \(stress\|race\)/d; /^ok [0-9]* trinity: /d' \
	--mode soak --smp 2 --kselftests 57 --kunit 73 --kunit-py "$kunit_py" --kmemleak --faults --stress 0 --trinity 0
case_ soak-make-check-no-faults 1 "did not run 'soak: fault injection'" $S \
	'/^ok [0-9]* soak: \(stress\|race\|fault injection\)/d; /^ok [0-9]* trinity: /d' \
	--mode soak --smp 2 --kselftests 57 --kunit 73 --kunit-py "$kunit_py" --kmemleak --faults --stress 0 --trinity 0
case_ soak-no-stress-run 1 "did not run 'soak: stress'" $S '/^ok [0-9]* soak: \(stress\|race\)/d' "${soak_opts[@]}"
case_ soak-trinity-unmount 1 'failed tests' $S 's/^ok \([0-9]*\) trinity: its instance unmounts/not ok \1 trinity: its instance unmounts/' "${soak_opts[@]}"
case_ soak-trinity-reach 3 'depends on timing' $S 's/^ok \([0-9]*\) trinity: it reached lwnfs/not ok \1 trinity: it reached lwnfs/' "${soak_opts[@]}"
case_ test-kmemleak-line 1 'kernel problems' $T "${end}i kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" "${test_opts[@]}"
case_ soak-stress-timing 3 'depends on timing' $S 's/^ok \([0-9]*\) soak: stress/not ok \1 soak: stress/' "${soak_opts[@]}"
case_ soak-stress-timing-and-kasan 1 'kernel problems' $S \
	"s/^ok \\([0-9]*\\) soak: stress/not ok \\1 soak: stress/;${end}i BUG: KASAN: use-after-free in lwnfs_evict_inode+0x1/0x2" "${soak_opts[@]}"
case_ soak-kselftest-not-ok 1 'failed tests' $S 's/^ok \([0-9]*\) kselftest filesystems/not ok \1 kselftest filesystems/' "${soak_opts[@]}"
case_ soak-truncated 1 'did not finish cleanly' $S "/soak: fault injection/,\$d" "${soak_opts[@]}"

D=distro-pass.log
mend='/^LWNFS-MEMCG-END/'
case_ distro-passes 0 - $D '' "${distro_opts[@]}"
case_ distro-other-debian 1 "not Debian's 6.1.176-1" $D '' \
	--mode distro --smp 2 --kselftests 57 --debian-version 6.1.176-1 --taint 12288 --stress 0
case_ distro-more-taint 1 'taint the kernel 12288' $D 's/^DISTRO-TAINT-AFTER 12288 OE$/DISTRO-TAINT-AFTER 12289 POE/' "${distro_opts[@]}"
case_ distro-apparmor-off 1 'failed tests' $D 's/^ok \([0-9]*\) apparmor: active/not ok \1 apparmor: active/' "${distro_opts[@]}"
case_ distro-apparmor-unchecked 1 "did not run 'apparmor: active'" $D '/^ok [0-9]* apparmor: active/d' "${distro_opts[@]}"
case_ distro-no-memcg-phase 1 "did not run 'memcg: counters are charged'" $D '/^ok [0-9]* memcg: /d' "${distro_opts[@]}"
case_ distro-memcg-failed 1 'failed tests' $D 's/^ok \([0-9]*\) memcg: /not ok \1 memcg: /' "${distro_opts[@]}"
case_ distro-machine-oom 1 'OOM of the whole machine' $D "${mend}i [   12.0] Mem-Info:" "${distro_opts[@]}"
case_ distro-kill-elsewhere 1 'OOM kill outside the test groups' $D 's|oom_memcg=/lwnfs-memcg-kill|oom_memcg=/system.slice|' "${distro_opts[@]}"
case_ distro-oom-elsewhere 1 '3 OOM reports, but 2 of the test groups' $D \
	"${end}i [   30.0] sh invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0" "${distro_opts[@]}"
case_ distro-memcg-markers-mangled 0 - $D 's/^LWNFS-MEMCG-START/[  12.5] xLWNFS-MEMCG-START/; s/^LWNFS-MEMCG-END/[  12.5] xLWNFS-MEMCG-END/' "${distro_opts[@]}"
case_ distro-warning 1 'kernel problems' $D "${end}i [   20.0] WARNING: CPU: 1 PID: 90 at fs/lwnfs/super.c:10 lwnfs_fill_super+0x1/0x2 [lwnfs]" "${distro_opts[@]}"
case_ distro-rt-stress-missing 1 "did not run 'soak: stress'" $D '' \
	--mode distro --smp 2 --kselftests 57 --debian-version 6.1.192-3 --taint 12288 --stress 5
case_ distro-no-dmesg 1 'dump of the kernel log is missing' $D '/^LWNFS-DMESG-START/,/^LWNFS-DMESG-END/d' "${distro_opts[@]}"
case_ distro-dmesg-wrapped 1 'does not reach back to boot' $D '/^LWNFS-DMESG-START/,/^LWNFS-DMESG-END/{/ Linux version /d}' "${distro_opts[@]}"
case_ distro-one-cpu 1 'did not bring up 2 CPUs' $D 's/Brought up 1 node, 2 CPUs/Brought up 1 node, 1 CPU/' "${distro_opts[@]}"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
