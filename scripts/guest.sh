#!/usr/bin/env bash
# Boot the kernel last built for a base (scripts/build.sh BASE y or m) in a
# QEMU guest with a busybox initramfs, and run lwnfs in it.
#
# usage: scripts/guest.sh BASE test|demo|shell
#   test   the kselftest suite, plus the module lifecycle when lwnfs is =m;
#          fails on any "not ok", any SKIP, a missing end marker, or a kernel
#          log line with WARNING:, BUG:, Oops or a sanitizer report
#   demo   the article's session, as a person would type it
#   shell  an interactive shell with lwnfs on /lwnfs (Ctrl-A X quits)
#
# TCG only: /dev/kvm exists on the build machines but KVM guests hang there.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE test|demo|shell}
mode=${2:?usage: $0 BASE test|demo|shell}
case "$mode" in test | demo | shell) ;; *) die "unknown mode '$mode' (test, demo, shell)" ;; esac
need_cmd qemu-system-x86_64 qemu-system-x86
need_cmd cpio cpio
busybox=/bin/busybox
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	die "no static $busybox; run: make deps (or: apt-get install busybox-static)"

bd=$(build_dir "$base" tiny)
kernel=$bd/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel for $base; run: scripts/build.sh $base y"
lwnfs_cfg=$(sed -n 's/^CONFIG_LWNFS=//p' "$bd/.config")
case "$lwnfs_cfg" in
y | m) ;;
*) die "$base's last build has CONFIG_LWNFS=${lwnfs_cfg:-n}; run: scripts/build.sh $base y (or m)" ;;
esac
selftest=$bd/kselftest/filesystems/lwnfs/lwnfs_test
if [ "$mode" = test ] && [ ! -x "$selftest" ]; then
	die "no kselftest binary for $base; run: scripts/selftest.sh $base"
fi

# The initramfs: static busybox, /init, the test script, the test program
# and, for =m, the module.
root=$LWNFS_CACHE/guest/$base-$lwnfs_cfg
rm -rf "$root"
mkdir -p "$root"/{bin,lib,etc/lwnfs,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$LWNFS_TOP/guest/init" "$root/init"
cp "$LWNFS_TOP/guest/tests.sh" "$root/etc/lwnfs/tests.sh"
[ -x "$selftest" ] && cp "$selftest" "$root/bin/lwnfs_test"
[ "$lwnfs_cfg" = m ] && cp "$bd/fs/lwnfs/lwnfs.ko" "$root/lib/lwnfs.ko"
initrd=$root.cpio.gz
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$initrd"

qemu=(qemu-system-x86_64 -m 512 -smp 2 -nographic -no-reboot
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 oops=panic lwnfs_guest=$mode")

if [ "$mode" = shell ]; then
	echo "Booting $base (CONFIG_LWNFS=$lwnfs_cfg). Ctrl-A X quits QEMU."
	# quiet: a person at the shell does not need the boot log
	qemu[${#qemu[@]} - 1]="${qemu[-1]} quiet"
	exec "${qemu[@]}"
fi

log=$LWNFS_CACHE/logs/guest-$base-$lwnfs_cfg-$mode.log
mkdir -p "$(dirname "$log")"
start=$SECONDS
timeout "${GUEST_TIMEOUT:-900}" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' >"$log" || true

if [ "$mode" = demo ]; then
	sed -n '/^LWNFS-DEMO-START/,/^LWNFS-DEMO-END/p' "$log" | sed '1d;$d'
	grep -q '^LWNFS-DEMO-END' "$log" || die "the demo did not finish (log: $log)"
	info "$base: guest booted and ran the demo in $((SECONDS - start))s"
	exit 0
fi

# Verdict for test mode. With CONFIG_LWNFS_KUNIT_TEST=y the KUnit suite ran
# at boot; the kernel's own kunit.py parses its KTAP, and it must have run
# at least the number of tests in configs/kunit-expected.
kunit_fail=0 kunit_summary=
if grep -q '^CONFIG_LWNFS_KUNIT_TEST=y' "$bd/.config"; then
	tree=$(tree_dir "$base")
	expected=$(cat "$LWNFS_TOP/configs/kunit-expected")
	parsed=$(python3 "$tree/tools/testing/kunit/kunit.py" parse "$log" 2>&1) || kunit_fail=1
	ran=$(sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p' <<<"$parsed" | tail -n 1)
	kunit_summary=$(grep -E 'Ran [0-9]+ tests' <<<"$parsed" | sed 's/\x1b\[[0-9;]*m//g; s/^\[[0-9:]*\] //' | tail -n 1)
	if [ -z "$ran" ] || [ "$ran" -lt "$expected" ]; then
		kunit_fail=1
		kunit_summary="KUnit ran ${ran:-no} tests, expected at least $expected"
	fi
fi

problems=$(grep -E 'WARNING:|BUG:|Oops|Kernel panic|KASAN:|UBSAN:|KCSAN:|kmemleak:|possible (circular|recursive) locking|general protection fault' "$log" || true)
notok=$(grep -E '^[[:space:]]*(# )?not ok ' "$log" || true)
skips=$(grep -E '^[[:space:]]*(# )?ok .*# SKIP' "$log" || true)
# kselftest's totals (KUnit's have no xfail)
totals=$(grep -E '^# Totals: .*xfail' "$log" | tail -n 1 || true)
fail=0
[ -z "$problems" ] || { echo "kernel problems:"; echo "$problems"; fail=1; }
[ -z "$notok" ] || { echo "failed tests:"; echo "$notok"; fail=1; }
[ -z "$skips" ] || { echo "skipped tests (the guest is root with lwnfs, nothing may skip):"; echo "$skips"; fail=1; }
grep -q '^LWNFS-GUEST-END rc=0' "$log" || { echo "the guest did not finish cleanly"; fail=1; }
[ -n "$totals" ] || { echo "the kselftest printed no totals"; fail=1; }
[ $kunit_fail -eq 0 ] || { echo "KUnit failed: $kunit_summary"; echo "$parsed" | tail -n 30; fail=1; }
if [ $fail -ne 0 ]; then
	echo "--- end of the guest log ($log):"
	tail -n 40 "$log"
	die "$base (CONFIG_LWNFS=$lwnfs_cfg): guest tests failed"
fi
outer=$(grep -cE '^ok ' "$log")
info "$base (CONFIG_LWNFS=$lwnfs_cfg): kselftest ${totals#\# }; $outer guest checks ok; $((SECONDS - start))s"
[ -z "$kunit_summary" ] || info "$base: KUnit at boot: $kunit_summary"
