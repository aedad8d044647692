#!/usr/bin/env bash
# Boot a base's kernel, built by scripts/build.sh BASE VARIANT (y or m), in
# a QEMU guest with a busybox initramfs, and run lwnfs in it. VARIANT oot is
# the CONFIG_LWNFS=n kernel with the out-of-tree module of module/BASE
# (scripts/module.sh).
#
# usage: scripts/guest.sh BASE VARIANT test|soak|demo|shell
#   test   the kselftest suite, plus the module lifecycle when lwnfs is a
#          module (=m, oot);
#          fails on any "not ok", any SKIP, a missing end marker, or a kernel
#          log line with WARNING:, BUG:, Oops or a sanitizer report
#   soak   (VARIANT kasan or kcsan: the debug guests) KUnit at insmod, the
#          kselftest, soak/lwnfs_soak's stress and race for SOAK_STRESS
#          seconds each (default 60; 0: neither) and, with fault injection in the
#          kernel, its fault sweep; trinity for SOAK_TRINITY seconds
#          (default 0: none); the module cycles (SOAK_CYCLES load/unload
#          cycles, default 100, and ten times as many mount/umount cycles;
#          the test mode always runs 100); kmemleak. Fails as test
#          does, on a kmemleak report with an lwnfs frame, and on a KCSAN
#          report that names lwnfs (the others are listed)
#   bench  (VARIANT bench, from scripts/bench.sh) bench/lwnfs_bench's read,
#          scale and entries benchmarks, BENCH_RUNS runs each, in a -smp 4
#          guest; fails on a kernel report or a benchmark that failed
#   demo   the article's session, as a person would type it
#   shell  a shell with lwnfs on /lwnfs. On a terminal it is interactive
#          (Ctrl-A X quits); on x86_64 the kernel's console goes to the
#          log and the shell has the second serial port, so that nothing
#          from the boot reaches the terminal. With standard input not a
#          terminal, that input (at most 1 MiB) is the script the guest's
#          shell runs in /lwnfs; its output is shown and its status is
#          this script's.
#   Neither shell nor demo runs KUnit (kunit.enable=0, v6.1 and later);
#   after either, the console is scanned for kernel reports (WARNING,
#   BUG, ...), which are shown and make this script fail.
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

usage="usage: $0 BASE y|m|oot|kasan|kcsan|bench test|soak|bench|demo|shell"
base=${1:?$usage}
variant=${2:?$usage}
mode=${3:?$usage}
case "$variant" in y | m | oot | kasan | kcsan | bench) ;; *) die "unknown variant '$variant' (y, m, oot, kasan, kcsan, bench)" ;; esac
case "$mode" in test | soak | bench | demo | shell) ;; *) die "unknown mode '$mode' (test, soak, bench, demo, shell)" ;; esac
case "$variant,$mode" in
kasan,soak | kcsan,soak | bench,bench | [ym],test | [ym],demo | [ym],shell | oot,test | oot,demo | oot,shell | kasan,shell | kcsan,shell | bench,shell) ;;
*) die "mode $mode does not go with variant $variant (soak: kasan or kcsan; bench: bench)" ;;
esac
arch=${LWNFS_ARCH:-x86_64}
check_arch "$arch"
qemu_bin=$(arch_field "$arch" qemu)
[ -n "$qemu_bin" ] || die "$arch is built, not booted (configs/arch.conf names no QEMU for it)"
need_cmd "$qemu_bin" "$(arch_field "$arch" qemu_pkg)"
need_cmd cpio cpio
need_applied "$base"
# make shell with standard input not a terminal: that input is the
# script; it is read before any step that could read it (apt-get)
guest_mode=$mode script_in=''
if [ "$mode" = shell ] && [ ! -t 0 ]; then
	guest_mode=script
	script_in=$(mktemp)
	trap 'rm -f "$script_in"' EXIT
	head -c $((1024 * 1024 + 1)) >"$script_in"
	[ "$(stat -c %s "$script_in")" -le $((1024 * 1024)) ] ||
		die "the script on standard input is larger than 1 MiB"
fi
busybox=$("$LWNFS_TOP/scripts/fetch-busybox.sh" "$arch" </dev/null | tail -n 1)

# the out-of-tree module's guest boots the kernel built without lwnfs
kvariant=$variant
[ "$variant" != oot ] || kvariant=n
bd=$(build_dir "$base" "$arch-$kvariant")
kernel=$bd/$(arch_field "$arch" image)
arch_arg=
[ "$arch" = x86_64 ] || arch_arg=" LWNFS_ARCH=$arch"
rebuild="run: make build BASE=$base VARIANT=$kvariant$arch_arg"
if [ ! -f "$kernel" ] || [ ! -f "$bd/.lwnfs-build" ]; then
	die "no $arch-$kvariant kernel for $base; $rebuild"
fi
if [ "$(stamp_get "$bd/.lwnfs-build" series)" != "$(series_hash "$base")" ] ||
	[ "$(stamp_get "$bd/.lwnfs-build" head)" != "$(git -C "$(tree_dir "$base")" rev-parse HEAD)" ]; then
	die "the $arch-$kvariant kernel of $base was built from another series than patches/$(series_of "$base"); $rebuild"
fi
[ "$(stamp_get "$bd/.lwnfs-build" config)" = "$(stamp_get "$bd/.lwnfs-config" key)" ] ||
	die "the $arch-$kvariant kernel of $base was built with another configuration; $rebuild"
lwnfs_cfg=$(sed -n 's/^CONFIG_LWNFS=//p' "$bd/.config")
want_cfg=$kvariant
[ "$mode" != soak ] || want_cfg=m
[ "$variant" != bench ] || want_cfg=y
[ "${lwnfs_cfg:-n}" = "$want_cfg" ] || die "the $arch-$kvariant build of $base has CONFIG_LWNFS=${lwnfs_cfg:-n}; $rebuild"
module='' label="CONFIG_LWNFS=${lwnfs_cfg:-n}"
[ "$lwnfs_cfg" != m ] || module=$bd/fs/lwnfs/lwnfs.ko
if [ "$variant" = oot ]; then
	oot=$(build_dir "$base" "$arch-oot")
	module=$oot/src/lwnfs.ko label="the out-of-tree module"
	[ -f "$module" ] || die "no out-of-tree module of $base; run: make module BASE=$base$arch_arg"
	[ "$(stamp_get "$oot/.lwnfs-module" series)" = "$(series_hash "$base")" ] ||
		die "the out-of-tree module of $base was built for another series; run: make module BASE=$base$arch_arg"
	[ "$(stamp_get "$oot/.lwnfs-module" source)" = "$(module_hash "$LWNFS_TOP/module/$(series_of "$base")")" ] ||
		die "the out-of-tree module of $base was built from another module/$(series_of "$base"); run: make module BASE=$base$arch_arg"
	[ "$oot/src/lwnfs.ko" -nt "$bd/.lwnfs-build" ] ||
		die "the out-of-tree module of $base is older than its kernel; run: make module BASE=$base$arch_arg"
fi
selftest=$bd/kselftest/filesystems/lwnfs/lwnfs_test
if [ "$mode" = test ] || [ "$mode" = soak ]; then
	[ -x "$selftest" ] || die "no kselftest binary for $base; run: make selftest BASE=$base VARIANT=$kvariant$arch_arg"
	[ "$(stamp_get "$(dirname "$selftest")/.lwnfs-selftest" series)" = "$(series_hash "$base")" ] ||
		die "the kselftest binary of $base was built from another series; run: make selftest BASE=$base VARIANT=$kvariant$arch_arg"
fi

# The initramfs: static busybox, /init, the test script, the test program
# and the module, when lwnfs is one.
root=$LWNFS_CACHE/guest/$base-$arch-$variant
rm -rf "$root"
mkdir -p "$root"/{bin,lib,etc/lwnfs,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$LWNFS_TOP/guest/init" "$root/init"
cp "$LWNFS_TOP/guest/tests.sh" "$root/etc/lwnfs/tests.sh"
[ -x "$selftest" ] && cp "$selftest" "$root/bin/lwnfs_test"
[ -z "$module" ] || cp "$module" "$root/lib/lwnfs.ko"
[ -z "$script_in" ] || cp "$script_in" "$root/etc/lwnfs/stdin"
stress=${SOAK_STRESS:-60} trinity=${SOAK_TRINITY:-0} cycles=${SOAK_CYCLES:-100} bench_runs=${BENCH_RUNS:-5}
for v in "SOAK_STRESS=$stress" "BENCH_RUNS=$bench_runs" "SOAK_TRINITY=$trinity"; do
	[[ "${v#*=}" =~ ^[0-9]+$ ]] || die "${v%%=*} must be a number, not '${v#*=}'"
done
# (no leading zero: the guest's shell would read it as octal)
[[ "$cycles" =~ ^[1-9][0-9]*$ ]] || die "SOAK_CYCLES must be a number of at least 1, not '$cycles'"
[ "$bench_runs" -gt 0 ] || die "BENCH_RUNS must be at least 1"
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
[ "$mode" != soak ] || mem=2048 extra=" lwnfs_stress=$stress lwnfs_trinity=$trinity lwnfs_cycles=$cycles"
# the bench's scaling part runs up to 4 readers, and makes 100000 counters
[ "$mode" != bench ] || mem=1024 smp=4 extra=" lwnfs_bench_runs=$bench_runs"
qemu=("$qemu_bin" "${machine[@]}" -m "$mem" -smp "$smp" -no-reboot -kernel "$kernel" -initrd "$initrd")
cmdline="console=$(arch_field "$arch" console) panic=-1 oops=panic lwnfs_guest=$guest_mode$extra"
if [ "$mode" = shell ] || [ "$mode" = demo ]; then
	# KUnit runs in the test guests; here its expected errors ("Bad value
	# for 'uid'") would read as failures. Before v6.1 the kernel has no
	# kunit.enable, and what KUnit prints stays in the log.
	cmdline+=" kunit.enable=0"
fi
log=$LWNFS_CACHE/logs/guest-$base-$arch-$variant-$mode.log
mkdir -p "$(dirname "$log")"

# kernel_reports [MARK]: show what the kernel reported in the log (a
# WARNING, BUG, ...), and fail if it reported anything. With MARK (DEMO,
# SHELL), the guest's own output between LWNFS-MARK-START and -END is not
# read: what a user's script prints is not the kernel's (the kernel's
# lines of that time are in the log dumped after it). Without the END
# marker (a crash) all of it is read.
kernel_reports() {
	local found m=${1:-}
	grep -q "^LWNFS-$m-END" "$log" || m=''
	found=$(tr -d '\r' <"$log" | awk -v m="$m" '
		m != "" && $0 ~ "^LWNFS-" m "-START" { skip = 1 }
		!skip
		m != "" && $0 ~ "^LWNFS-" m "-END" { skip = 0 }' | grep -E "$kernel_problem_re" || true)
	[ -n "$found" ] || return 0
	echo "--- the kernel reported problems ($log):"
	printf '%s\n' "$found"
	die "$base ($arch, $label): the kernel reported problems"
}

# between MARK: the guest's output between its LWNFS-MARK-START and -END
# lines (to the log's end when it has no END)
between() {
	awk -v m="$1" '$0 ~ "^LWNFS-" m "-END" { exit } on { print } $0 ~ "^LWNFS-" m "-START" { on = 1 }' "$log"
}

if [ "$guest_mode" = shell ]; then
	echo "Booting $base ($label). Ctrl-A X quits QEMU."
	if [ "$(arch_field "$arch" console)" = ttyS0 ]; then
		# The PC's first serial port takes the firmware's and the
		# kernel's console, into the log; the shell has the second, on
		# the terminal, with QEMU's monitor (Ctrl-A).
		"${qemu[@]}" -display none -serial "file:$log" -serial mon:stdio \
			-append "$cmdline lwnfs_tty=ttyS1" || die "QEMU failed (the console: $log)"
		grep -q '^LWNFS-SHELL-START' "$log" || {
			echo "--- the last lines of the console ($log):"
			tail -n 30 "$log" | tr -d '\r'
			die "$base ($arch, $label): the guest did not reach the shell"
		}
	else
		# one serial port: the console is the shell's terminal, and quiet
		"${qemu[@]}" -nographic -append "$cmdline quiet" || die "QEMU failed"
		exit 0
	fi
	kernel_reports
	exit 0
fi
qemu+=(-nographic -append "$cmdline")

start=$SECONDS
limit=${GUEST_TIMEOUT:-120}
# the debug kernels run the suites many times slower
[ "$mode" != soak ] || limit=${GUEST_TIMEOUT:-$((1500 + 2 * stress + trinity + 2 * cycles))}
[ "$mode" != bench ] || limit=${GUEST_TIMEOUT:-$((600 * bench_runs))}
rc=0
timeout "$limit" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' >"$log" || rc=${PIPESTATUS[0]}
if [ "$rc" -eq 124 ]; then
	echo "--- the last lines of the console ($log):"
	tail -n 30 "$log"
	die "$base ($arch, $label): the guest did not finish in ${limit}s (GUEST_TIMEOUT); stopped"
fi

if [ "$mode" = bench ]; then
	"$LWNFS_TOP/scripts/verdict.sh" --mode bench --smp "$smp" "$log" || die "$base: the bench guest failed (log: $log)"
	info "$base: the bench guest ran in $((SECONDS - start))s (log: $log)"
	exit 0
fi

if [ "$mode" = demo ]; then
	between DEMO
	kernel_reports DEMO
	grep -q '^LWNFS-DEMO-END' "$log" || die "the demo did not finish (log: $log)"
	grep -q '^LWNFS-DEMO-END rc=0$' "$log" || die "a command of the demo failed (above; log: $log)"
	info "$base: guest booted and ran the demo in $((SECONDS - start))s"
	exit 0
fi

if [ "$guest_mode" = script ]; then
	between SHELL
	status=$(sed -n 's/^LWNFS-SHELL-END rc=\([0-9]*\)$/\1/p' "$log")
	kernel_reports SHELL
	[ -n "$status" ] || die "the guest did not finish the script (log: $log)"
	exit "$status"
fi

# The verdict (scripts/verdict.sh): what must be in the log, from the
# build's configuration and the tree's kselftest.
verdict=(--mode "$mode" --smp "$smp"
	--kselftests "$(grep -c '^TEST\(_F\)\?\(_TIMEOUT\)\?(' "$(tree_dir "$base")/tools/testing/selftests/filesystems/lwnfs/lwnfs_test.c")")
if grep -q '^CONFIG_LWNFS_KUNIT_TEST=y' "$bd/.config" || [ "$mode" = soak ]; then
	verdict+=(--kunit "$(base_field "$base" kunit)" --kunit-py "$(tree_dir "$base")/tools/testing/kunit/kunit.py")
fi
if [ "$mode" = soak ]; then
	verdict+=(--stress "$stress" --trinity "$trinity")
	grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$bd/.config" && verdict+=(--kmemleak)
	grep -q '^CONFIG_FAULT_INJECTION=y' "$bd/.config" && verdict+=(--faults)
fi
rc=0
"$LWNFS_TOP/scripts/verdict.sh" "${verdict[@]}" "$log" || rc=$?
case $rc in
0 | 3) ;;
1) die "$base ($arch, $label): guest tests failed" ;;
*) die "scripts/verdict.sh ended with status $rc, not a verdict" ;;
esac
info "$base ($arch, $label): the guest passed$([ $rc -eq 0 ] || echo ', with warnings') in $((SECONDS - start))s"
exit $rc
