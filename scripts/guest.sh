#!/usr/bin/env bash
# Boot a base's kernel, built by scripts/build.sh BASE VARIANT (y or m), in
# a QEMU guest with a busybox initramfs, and run lwnfs in it.
#
# usage: scripts/guest.sh BASE VARIANT test|soak|demo|shell
#   test   the kselftest suite, plus the module lifecycle when lwnfs is =m;
#          fails on any "not ok", any SKIP, a missing end marker, or a kernel
#          log line with WARNING:, BUG:, Oops or a sanitizer report
#   soak   (VARIANT kasan or kcsan: the debug guests) KUnit at insmod, the
#          kselftest, soak/lwnfs_soak's stress and race for SOAK_STRESS
#          seconds each (default 60) and, with fault injection in the
#          kernel, its fault sweep; trinity for SOAK_TRINITY seconds
#          (default 0: none); the module cycles; kmemleak. Fails as test
#          does, on a kmemleak report with an lwnfs frame, and on a KCSAN
#          report that names lwnfs (the others are listed)
#   bench  (VARIANT bench, from scripts/bench.sh) bench/lwnfs_bench's read,
#          scale and entries benchmarks, BENCH_RUNS runs each, in a -smp 4
#          guest; fails on a kernel report or a benchmark that failed
#   demo   the article's session, as a person would type it
#   shell  an interactive shell with lwnfs on /lwnfs (Ctrl-A X quits)
#
# The build and the kselftest binary must come from the series that is in
# patches/BASE now; a stale one is refused. A guest that has not finished
# after GUEST_TIMEOUT seconds (default 120 for test and demo, more for soak
# and bench) is stopped and the tail of its console is shown. Every guest
# must bring up the CPUs -smp gives it. LWNFS_ARCH picks the architecture
# (configs/arch.conf).
#
# TCG only: /dev/kvm exists on the build machines but KVM guests hang there.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage="usage: $0 BASE y|m|kasan|kcsan|bench test|soak|bench|demo|shell"
base=${1:?$usage}
variant=${2:?$usage}
mode=${3:?$usage}
case "$variant" in y | m | kasan | kcsan | bench) ;; *) die "unknown variant '$variant' (y, m, kasan, kcsan, bench)" ;; esac
case "$mode" in test | soak | bench | demo | shell) ;; *) die "unknown mode '$mode' (test, soak, bench, demo, shell)" ;; esac
case "$variant,$mode" in
kasan,soak | kcsan,soak | bench,bench | [ym],test | [ym],demo | [ym],shell | kasan,shell | kcsan,shell | bench,shell) ;;
*) die "mode $mode does not go with variant $variant (soak: kasan or kcsan; bench: bench)" ;;
esac
arch=${LWNFS_ARCH:-x86_64}
check_arch "$arch"
qemu_bin=$(arch_field "$arch" qemu)
[ -n "$qemu_bin" ] || die "$arch is built, not booted (configs/arch.conf names no QEMU for it)"
need_cmd "$qemu_bin" "$(arch_field "$arch" qemu_pkg)"
need_cmd cpio cpio
need_applied "$base"
busybox=$("$LWNFS_TOP/scripts/fetch-busybox.sh" "$arch" | tail -n 1)

bd=$(build_dir "$base" "$arch-$variant")
kernel=$bd/$(arch_field "$arch" image)
arch_arg=
[ "$arch" = x86_64 ] || arch_arg=" LWNFS_ARCH=$arch"
rebuild="run: make build BASE=$base VARIANT=$variant$arch_arg"
if [ ! -f "$kernel" ] || [ ! -f "$bd/.lwnfs-build" ]; then
	die "no $arch-$variant kernel for $base; $rebuild"
fi
if [ "$(stamp_get "$bd/.lwnfs-build" series)" != "$(series_hash "$base")" ] ||
	[ "$(stamp_get "$bd/.lwnfs-build" head)" != "$(git -C "$(tree_dir "$base")" rev-parse HEAD)" ]; then
	die "the $arch-$variant kernel of $base was built from another series than patches/$base; $rebuild"
fi
[ "$(stamp_get "$bd/.lwnfs-build" config)" = "$(stamp_get "$bd/.lwnfs-config" key)" ] ||
	die "the $arch-$variant kernel of $base was built with another configuration; $rebuild"
lwnfs_cfg=$(sed -n 's/^CONFIG_LWNFS=//p' "$bd/.config")
want_cfg=$variant
[ "$mode" != soak ] || want_cfg=m
[ "$variant" != bench ] || want_cfg=y
[ "$lwnfs_cfg" = "$want_cfg" ] || die "the $arch-$variant build of $base has CONFIG_LWNFS=${lwnfs_cfg:-n}; $rebuild"
selftest=$bd/kselftest/filesystems/lwnfs/lwnfs_test
if [ "$mode" = test ] || [ "$mode" = soak ]; then
	[ -x "$selftest" ] || die "no kselftest binary for $base; run: make selftest BASE=$base VARIANT=$variant$arch_arg"
	[ "$(stamp_get "$(dirname "$selftest")/.lwnfs-selftest" series)" = "$(series_hash "$base")" ] ||
		die "the kselftest binary of $base was built from another series; run: make selftest BASE=$base VARIANT=$variant$arch_arg"
fi

# The initramfs: static busybox, /init, the test script, the test program
# and, for =m, the module.
root=$LWNFS_CACHE/guest/$base-$arch-$variant
rm -rf "$root"
mkdir -p "$root"/{bin,lib,etc/lwnfs,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$LWNFS_TOP/guest/init" "$root/init"
cp "$LWNFS_TOP/guest/tests.sh" "$root/etc/lwnfs/tests.sh"
[ -x "$selftest" ] && cp "$selftest" "$root/bin/lwnfs_test"
[ "$lwnfs_cfg" = m ] && cp "$bd/fs/lwnfs/lwnfs.ko" "$root/lib/lwnfs.ko"
stress=${SOAK_STRESS:-60} trinity=${SOAK_TRINITY:-0} bench_runs=${BENCH_RUNS:-5}
for v in "SOAK_STRESS=$stress" "BENCH_RUNS=$bench_runs" "SOAK_TRINITY=$trinity"; do
	[[ "${v#*=}" =~ ^[0-9]+$ ]] || die "${v%%=*} must be a number, not '${v#*=}'"
done
{ [ "$stress" -gt 0 ] && [ "$bench_runs" -gt 0 ]; } || die "SOAK_STRESS and BENCH_RUNS must be at least 1"
if [ "$mode" = bench ]; then
	bench_mod=$bd/bench-debugfs/lwnfs_bench_debugfs.ko
	[ -f "$bench_mod" ] || die "no bench module in $bd; run: make bench BASE=$base"
	cp "$bench_mod" "$root/lib/"
	gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/lwnfs_bench" "$LWNFS_TOP/bench/lwnfs_bench.c"
fi
if [ "$mode" = soak ]; then
	cp "$bd/fs/lwnfs/lwnfs_kunit.ko" "$root/lib/lwnfs_kunit.ko"
	# the soak's own program, static like the kselftest
	gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/lwnfs_soak" "$LWNFS_TOP/soak/lwnfs_soak.c"
	if [ "$trinity" -gt 0 ]; then
		need_cmd trinity trinity
		# Debian's trinity with the libraries it is linked against
		cp "$(command -v trinity)" "$root/bin/trinity"
		for lib in $(ldd "$(command -v trinity)" | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
fi
initrd=$root.cpio.gz
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$initrd"

machine=()
[ -z "$(arch_field "$arch" machine)" ] || machine+=(-M "$(arch_field "$arch" machine)")
[ -z "$(arch_field "$arch" cpu)" ] || machine+=(-cpu "$(arch_field "$arch" cpu)")
# the debug kernels need more memory (KASAN's shadow, kmemleak's pool)
mem=512 extra='' smp=2
[ "$mode" != soak ] || mem=2048 extra=" lwnfs_stress=$stress lwnfs_trinity=$trinity"
# the bench's scaling part runs up to 4 readers, and makes 100000 counters
[ "$mode" != bench ] || mem=1024 smp=4 extra=" lwnfs_bench_runs=$bench_runs"
qemu=("$qemu_bin" "${machine[@]}" -m "$mem" -smp "$smp" -nographic -no-reboot
	-kernel "$kernel" -initrd "$initrd"
	-append "console=$(arch_field "$arch" console) panic=-1 oops=panic lwnfs_guest=$mode$extra")

if [ "$mode" = shell ]; then
	echo "Booting $base (CONFIG_LWNFS=$lwnfs_cfg). Ctrl-A X quits QEMU."
	# quiet: a person at the shell does not need the boot log
	qemu[${#qemu[@]} - 1]="${qemu[-1]} quiet"
	exec "${qemu[@]}"
fi

log=$LWNFS_CACHE/logs/guest-$base-$arch-$variant-$mode.log
mkdir -p "$(dirname "$log")"
start=$SECONDS
limit=${GUEST_TIMEOUT:-120}
# the debug kernels run the suites many times slower
[ "$mode" != soak ] || limit=${GUEST_TIMEOUT:-$((1500 + 2 * stress + trinity))}
[ "$mode" != bench ] || limit=${GUEST_TIMEOUT:-$((600 * bench_runs))}
rc=0
timeout "$limit" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' >"$log" || rc=${PIPESTATUS[0]}
if [ "$rc" -eq 124 ]; then
	echo "--- the last lines of the console ($log):"
	tail -n 30 "$log"
	die "$base ($arch, CONFIG_LWNFS=$variant): the guest did not finish in ${limit}s (GUEST_TIMEOUT); stopped"
fi

# the guest must have had the CPUs it was given: for a long time -smp 2
# gave the x86_64 guests one, and nothing noticed
grep -qE "^smp: Brought up [0-9]+ nodes?, $smp CPUs" "$log" ||
	die "the guest did not bring up $smp CPUs: $(grep -m 1 'smp: Brought up' "$log" || echo 'no smp line') (log: $log)"

# what the kernel prints when something went wrong in it (or when lockdep
# turned itself off, or console lines were lost)
problem_re='WARNING:|BUG:|Oops|Kernel panic|KASAN:|UBSAN:|KCSAN:|kmemleak:|possible (circular|recursive) locking|general protection fault|blocked for more than|soft lockup|ODEBUG:|Busy inodes after unmount|trying to register non-static key|detected stalls|invoked oom-killer|messages dropped'
# a stack frame in lwnfs: one of its functions, or its modules
lwnfs_frame='\[lwnfs(_kunit)?\]|lwnfs_[a-z0-9_]+\+0x'

if [ "$mode" = bench ]; then
	bad=$(grep -E "$problem_re|^bench: FAIL|^not ok " "$log" || true)
	[ -z "$bad" ] || { echo "$bad"; die "$base: the bench guest failed (log: $log)"; }
	grep -q '^LWNFS-GUEST-END rc=0' "$log" || die "the bench guest did not finish cleanly (log: $log)"
	info "$base: the bench guest ran in $((SECONDS - start))s (log: $log)"
	exit 0
fi

if [ "$mode" = demo ]; then
	sed -n '/^LWNFS-DEMO-START/,/^LWNFS-DEMO-END/p' "$log" | sed '1d;$d'
	grep -q '^LWNFS-DEMO-END' "$log" || die "the demo did not finish (log: $log)"
	info "$base: guest booted and ran the demo in $((SECONDS - start))s"
	exit 0
fi

# kunit_output LOG MODE: the KUnit output for kunit.py parse. In soak mode
# the suite runs at insmod, after the empty one of boot. From v6.x the
# module prints its own TAP header; v5.10's prints only the suite, so
# that is given the header and plan that boot would have printed.
kunit_output() {
	if [ "$2" != soak ]; then
		cat "$1"
	elif sed -n '/^LWNFS-GUEST-START/,/# Subtest: lwnfs/p' "$1" | grep -qE '^K?TAP version'; then
		sed -n '/^LWNFS-GUEST-START/,$p' "$1"
	else
		printf 'TAP version 14\n1..1\n'
		sed -n '/^LWNFS-GUEST-START/,$p' "$1" |
			sed -n '/^[[:space:]]*# Subtest: lwnfs/,/^\(not \)\{0,1\}ok [0-9]* - lwnfs$/p'
	fi
}

# Verdict for test and soak mode. With CONFIG_LWNFS_KUNIT_TEST=y the KUnit
# suite ran at boot, in soak mode at insmod; the kernel's own kunit.py
# parses its KTAP, and it must have run exactly the number of tests
# bases.conf gives for the base: a lost case fails too.
kunit_fail=0 kunit_summary=
if grep -q '^CONFIG_LWNFS_KUNIT_TEST=y' "$bd/.config" || [ "$mode" = soak ]; then
	tree=$(tree_dir "$base")
	expected=$(base_field "$base" kunit)
	parsed=$(kunit_output "$log" "$mode" |
		python3 "$tree/tools/testing/kunit/kunit.py" parse 2>&1) || kunit_fail=1
	ran=$(kunit_ran <<<"$parsed")
	kunit_summary=$(sed 's/\x1b\[[0-9;]*m//g; s/^\[[0-9:]*\] //' <<<"$parsed" | grep -E 'Ran [0-9]+ tests|tests run' | tail -n 1 || true)
	if [ -z "$ran" ] || [ "$ran" -ne "$expected" ]; then
		kunit_fail=1
		kunit_summary="KUnit ran ${ran:-no} tests, expected $expected (bases.conf)"
	fi
fi

judged=$log
soak_summary=

# reason LINE...: why the guest failed, printed now and again at the end;
# the guest failed if there is any
reasons=()
reason() {
	printf '%s\n' "$@"
	reasons+=("$@")
}
if [ "$mode" = soak ]; then
	# A KCSAN report (between two lines of "=") that names no lwnfs
	# function or module is listed in a file of its own and its BUG line
	# is not judged: the rest of the kernel has its own known data races.
	# The rest of such a block is judged all the same, since another CPU
	# may have printed into it. kmemleak's report is judged on its own
	# below; kernel lines printed while it was read are judged here.
	judged=$log.judged
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
		END { if (inblk) flush() }' "$log" >"$judged"
	: >>"$log.kcsan-other"
	races=$(grep -c 'BUG: KCSAN:' "$log.kcsan-other" || true)
	[ "$races" -eq 0 ] || soak_summary="$races KCSAN reports outside lwnfs (listed in $log.kcsan-other)"
	if grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$bd/.config"; then
		if ! grep -q '^LWNFS-KMEMLEAK-END' "$log"; then
			reason "kmemleak: no report"
		fi
		# a frame of lwnfs, or one that no symbol names any more: the
		# code of a module since unloaded (lwnfs or its KUnit tests)
		leaks=$(sed -n '/^LWNFS-KMEMLEAK-START/,/^LWNFS-KMEMLEAK-END/p' "$log" |
			LWNFS_FRAME=$lwnfs_frame awk '
				/unreferenced object/ { n++ }
				n { r[n] = r[n] $0 "\n" }
				n && ($0 ~ ENVIRON["LWNFS_FRAME"] || /^ +(\[<[^>]*>\] )?0x[0-9a-f]+$/) { hit[n] = 1 }
				END { for (i = 1; i <= n; i++) if (hit[i]) printf "%s", r[i] }')
		others=$(sed -n '/^LWNFS-KMEMLEAK-START/,/^LWNFS-KMEMLEAK-END/p' "$log" | grep -c 'unreferenced object' || true)
		if [ -n "$leaks" ]; then
			reason "kmemleak: leaks with an lwnfs frame:" "$leaks"
		fi
		soak_summary="kmemleak: $others reports, none in lwnfs${soak_summary:+; $soak_summary}"
	fi
	# the phases that must have run, so that none passes by being skipped
	want_ok=("soak: stress" "soak: race on one counter")
	grep -q '^CONFIG_FAULT_INJECTION=y' "$bd/.config" && want_ok+=("soak: fault injection")
	[ "$trinity" -eq 0 ] || want_ok+=("trinity: ran for the full $trinity s and stopped" "trinity: it reached lwnfs")
	for w in "${want_ok[@]}"; do
		grep -qE "^ok [0-9]+ $w" "$log" || reason "the guest did not pass '$w'"
	done
fi

problems=$(grep -E "$problem_re" "$judged" || true)
notok=$(grep -E '^[[:space:]]*(# )?not ok ' "$log" || true)
skips=$(grep -E '^[[:space:]]*(# )?ok .*# SKIP' "$log" || true)
# kselftest's totals (KUnit's have no xfail)
totals=$(grep -E '^# Totals: .*xfail' "$log" | tail -n 1 || true)
[ -z "$problems" ] || reason "kernel problems:" "$problems"
[ -z "$notok" ] || reason "failed tests:" "$notok"
[ -z "$skips" ] || reason "skipped tests (the guest is root with lwnfs, nothing may skip):" "$skips"
grep -q '^LWNFS-GUEST-END rc=0' "$log" || reason "the guest did not finish cleanly"
[ -n "$totals" ] || reason "the kselftest printed no totals"
# every TEST() and TEST_F() of the tree's kselftest must have passed
want=$(grep -c '^TEST\(_F\)\?\(_TIMEOUT\)\?(' "$(tree_dir "$base")/tools/testing/selftests/filesystems/lwnfs/lwnfs_test.c")
grep -qE "pass:$want " <<<"$totals" || reason "the kselftest has $want tests, but: $totals"
[ $kunit_fail -eq 0 ] || { echo "$parsed" | tail -n 30; reason "KUnit failed: $kunit_summary"; }
if [ ${#reasons[@]} -gt 0 ]; then
	echo "--- end of the guest log ($log):"
	tail -n 40 "$log"
	# and why, last, where a log's tail (CI's) shows it
	echo "--- why the guest failed:"
	printf '%s\n' "${reasons[@]}" |
		awk 'NR <= 60; END { if (NR > 60) print "... and " NR - 60 " more lines, printed above" }'
	die "$base ($arch, CONFIG_LWNFS=$lwnfs_cfg): guest tests failed"
fi
outer=$(grep -cE '^ok ' "$log" || true)
info "$base ($arch, CONFIG_LWNFS=$lwnfs_cfg): kselftest ${totals#\# }; $outer guest checks ok; $((SECONDS - start))s"
[ -z "$kunit_summary" ] || info "$base: KUnit: $kunit_summary"
if [ "$mode" = soak ]; then
	grep -E '^soak: (faults|stress|race)|^# (trinity|kcsan)' "$log" | sed 's/^/  /'
	[ -z "$soak_summary" ] || info "$base ($variant): $soak_summary"
fi
