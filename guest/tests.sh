# shellcheck shell=sh
# shellcheck disable=SC2034 # rc is read by guest/init
# What the lwnfs guest runs, sourced by guest/init: the kselftest suite, the
# module lifecycle checks (when /lib/lwnfs.ko is there), the demo and the
# interactive shell. Output is TAP on the serial console.

rc=0
n=0

tap() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		rc=1
	fi
}

# Module lifecycle: rmmod is refused while mounted, and $1 load/unload
# cycles and ten times as many mount/umount cycles work (the harness fails
# the run on any kernel warning they cause).
module_tests() {
	cycles=$1
	case "$cycles" in
	'' | 0* | *[!0-9]*)
		tap 1 "module: the cycle count '$cycles' is not a number of at least 1"
		return
		;;
	esac
	echo "# module lifecycle"
	mount -t lwnfs lwnfs /lwnfs
	rmmod lwnfs 2>/dev/null
	grep -q '^lwnfs ' /proc/modules
	tap $? "module: rmmod refused while mounted"
	umount /lwnfs
	rmmod lwnfs
	tap $? "module: rmmod after umount"
	! grep -q lwnfs /proc/filesystems
	tap $? "module: lwnfs unregistered after rmmod"

	i=0 fail=0
	while [ $i -lt "$cycles" ]; do
		insmod /lib/lwnfs.ko && rmmod lwnfs || fail=$((fail + 1))
		i=$((i + 1))
	done
	tap $fail "module: $cycles load/unload cycles"

	insmod /lib/lwnfs.ko
	i=0 fail=0
	while [ $i -lt $((cycles * 10)) ]; do
		mount -t lwnfs lwnfs /lwnfs && umount /lwnfs || fail=$((fail + 1))
		i=$((i + 1))
	done
	tap $fail "module: $((cycles * 10)) mount/umount cycles"
	rmmod lwnfs
	tap $? "module: rmmod after the cycles"
}

# The test guests: the kselftest, and with a module $1 module cycles
# (guest/init's default; the test mode is never given another).
run_tests() {
	echo "LWNFS-GUEST-START"
	if [ -f /lib/lwnfs.ko ]; then
		insmod /lib/lwnfs.ko
		tap $? "module: insmod lwnfs.ko"
	fi
	/bin/lwnfs_test
	tap $? "kselftest filesystems/lwnfs"
	if [ -f /lib/lwnfs.ko ]; then
		module_tests "$1"
	fi
	echo "1..$n"
}

# Trinity, as an unprivileged user, on an lwnfs instance that user owns:
# VFS system calls only, for SECONDS. It must still be running when the
# time is up (it stops early on a tainted kernel or an error of its own),
# and all of it must then stop (lwnfs_soak fuzz). The descriptors it sets
# up for its system calls are only files it opens under /lwnfs
# (--enable-fds=pseudo; its calls still make pipes and the like): with all
# its kinds, trinity in a debug guest was still opening sockets of every
# protocol after 60 s, and in 120 s it never reached lwnfs.
run_trinity() {
	echo "# trinity for $1 s"
	mount -t lwnfs -o uid=1000,gid=1000 lwnfs /lwnfs &&
		echo 0 >/lwnfs/counter && echo 0 >/lwnfs/subdir/subcounter
	tap $? "trinity: its instance mounted, both counters set to 0"
	before=$(ls -lAR --full-time /lwnfs)
	mkdir -p /tmp/trinity
	chown 1000:1000 /tmp/trinity
	(cd /tmp/trinity && lwnfs_soak fuzz "$1" 1000 1000 \
		trinity -q -l off -g vfs -V /lwnfs --enable-fds=pseudo -C 2 >/tmp/trinity.log 2>&1)
	r=$?
	grep -E '^soak: |[Ss]yscalls|fd provider|taint|[Ee]rror' /tmp/trinity.log | tail -n 12 | sed 's/^/# trinity: /'
	tap $r "trinity: ran for the full $1 s and stopped"
	# A trinity that never got past its own start would pass the above,
	# and its start alone may change the listing (it opens the files it
	# found with O_TRUNC at times). So it must have counted the system
	# calls it made (it does when it stops on SIGINT), and lwnfs must show
	# them: its reads move the counters, its writes, creates and renames
	# the listing.
	calls=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' /tmp/trinity.log | tail -n 1)
	after=$(ls -lAR --full-time /lwnfs)
	values=$(cat /lwnfs/counter /lwnfs/subdir/subcounter 2>/dev/null)
	echo "# trinity: the counters read $(echo "$values" | tr '\n' ' ')"
	echo "$before" >/tmp/trinity.before
	# the changed lines, without diff's two header lines
	echo "$after" | diff /tmp/trinity.before - | sed '1,2d' | grep '^[-+]' |
		head -n 12 | sed 's/^/# trinity: listing /'
	what="${calls:-no count of} system calls"
	[ "${calls:-0}" -gt 0 ] &&
		{ [ -n "$(echo "$values" | tr -d '0\n')" ] || [ "$before" != "$after" ]; }
	tap $? "trinity: it reached lwnfs ($what)"
	umount /lwnfs
	tap $? "trinity: its instance unmounts"
}

# phase NAME COMMAND...: run COMMAND, and report it with its time as TAP.
phase() {
	name=$1
	shift
	t0=$(date +%s)
	"$@"
	tap $? "$name ($(($(date +%s) - t0)) s)"
	kcsan_races
}

# KCSAN counts in data_races races it does not print: one in which a write
# stored the value already there (CONFIG_KCSAN_REPORT_VALUE_CHANGE_ONLY),
# a repeat of one printed in the last 3 s, and others. Printing the count
# after each phase says which phase made them; it is not a verdict.
kcsan_races() {
	k=/sys/kernel/debug/kcsan
	[ ! -e $k ] || echo "# kcsan: $(grep '^data_races:' $k) after $name"
}

# kmemleak: two scans (an object is reported once it has stayed
# unreferenced through a scan), then its report for the harness to judge.
kmemleak_report() {
	k=/sys/kernel/debug/kmemleak
	[ -e $k ] || return 0
	echo scan >$k
	sleep 6
	echo scan >$k
	echo "LWNFS-KMEMLEAK-START"
	cat $k
	echo "LWNFS-KMEMLEAK-END"
}

# race SECONDS: readers on one counter (lwnfs_soak race). KCSAN sets a
# watchpoint on one memory access in skip_watch (4000 by default); for
# this phase it watches one in $KCSAN_SKIP, so that the counter's few
# accesses among the thousands of a read are watched often enough for a
# race on them to be seen within the phase.
KCSAN_SKIP=100
race() {
	w=/sys/module/kcsan/parameters/skip_watch
	if [ -w $w ]; then
		skip=$(cat $w)
		echo $KCSAN_SKIP >$w
		echo "# kcsan: skip_watch $skip -> $KCSAN_SKIP for the race"
	fi
	phase "soak: race on one counter for $1 s" lwnfs_soak race "$1" /lwnfs
	[ ! -w $w ] || echo "$skip" >$w
}

# The debug guests: KUnit (at insmod), the kselftest, the stress phase and
# the race for $1 s each (0: neither), the fault-injection sweep (where the kernel has
# it), trinity for $2 s (0: none), $3 module cycles and kmemleak's verdict.
run_soak() {
	echo "LWNFS-GUEST-START"
	mount -t debugfs debugfs /sys/kernel/debug
	name=boot
	kcsan_races
	insmod /lib/lwnfs.ko
	tap $? "module: insmod lwnfs.ko"
	phase "KUnit: insmod lwnfs_kunit.ko runs the suite" insmod /lib/lwnfs_kunit.ko
	rmmod lwnfs_kunit
	tap $? "KUnit: rmmod lwnfs_kunit"
	phase "kselftest filesystems/lwnfs" /bin/lwnfs_test
	# 0 s: neither (make check; their verdicts depend on timing)
	if [ "$1" -gt 0 ]; then
		phase "soak: stress for $1 s" lwnfs_soak stress "$1" /lwnfs
		race "$1"
	fi
	if [ -e /proc/thread-self/fail-nth ]; then
		phase "soak: fault injection" lwnfs_soak faults /tmp
	fi
	if [ "$2" -gt 0 ]; then
		run_trinity "$2"
	fi
	t0=$(date +%s)
	module_tests "$3"
	echo "# module lifecycle: $(($(date +%s) - t0)) s"
	# loaded again, so that kmemleak's backtraces name lwnfs's functions
	insmod /lib/lwnfs.ko
	tap $? "module: insmod lwnfs.ko for kmemleak's report"
	kmemleak_report
	sanitizers_on
	echo "1..$n"
}

# The debugging that found nothing must still have been on at the end:
# lockdep turns itself off after its first report, and KCSAN must have
# set watchpoints.
sanitizers_on() {
	if [ -e /proc/lockdep_stats ]; then
		grep -qE '^ *debug_locks: +1$' /proc/lockdep_stats
		tap $? "lockdep: still on at the end"
	fi
	k=/sys/kernel/debug/kcsan
	if [ -e $k ]; then
		grep -E '^(enabled|setup_watchpoints|data_races):' $k | sed 's/^/# kcsan: /'
		grep -qx 'enabled: 1' $k && ! grep -qx 'setup_watchpoints: 0' $k
		tap $? "kcsan: on, and it set watchpoints"
	fi
}

# Debian's own kernel (make distro), booted as Debian boots it, with the
# module DKMS built for it: what kernel this is and which LSMs are active,
# the taint lwnfs adds, the kselftest, the memory cgroup charging of
# counters users create, on a real-time kernel a stress and a race of $1 s
# each (0: neither), and the module cycles.
#
# A distribution's kernel prints to the console at times of its own, and
# its lines land inside the guest's: while the guest runs, the console
# gets only the kernel's emergencies (and what follows an oops), and the
# whole kernel log is dumped at the end, for the harness to judge; then
# the console gets everything again.
run_distro() {
	quiet_console
	echo "LWNFS-GUEST-START"
	echo "DISTRO-UNAME $(uname -r) $(uname -v)"
	echo "DISTRO-VERSION $(cat /proc/version)"
	mount -t securityfs securityfs /sys/kernel/security
	echo "DISTRO-LSM $(cat /sys/kernel/security/lsm)"
	grep -q '^Y' /sys/module/apparmor/parameters/enabled &&
		grep -q apparmor /sys/kernel/security/lsm && [ -d /sys/kernel/security/apparmor ]
	tap $? "apparmor: active"
	taint=$(cat /proc/sys/kernel/tainted)
	echo "DISTRO-TAINT-BEFORE $taint"
	[ "$taint" -eq 0 ]
	tap $? "kernel: not tainted before lwnfs"
	insmod /lib/lwnfs.ko
	tap $? "module: insmod lwnfs.ko"
	echo "DISTRO-TAINT-AFTER $(cat /proc/sys/kernel/tainted) $(cat /sys/module/lwnfs/taint)"
	phase "kselftest filesystems/lwnfs" /bin/lwnfs_test
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	echo "LWNFS-MEMCG-START"
	phase "memcg: counters are charged, and bounded by memory.max" lwnfs_soak memcg /lwnfs /sys/fs/cgroup 10000
	echo "LWNFS-MEMCG-END"
	if [ "$1" -gt 0 ]; then
		phase "soak: stress for $1 s" lwnfs_soak stress "$1" /lwnfs
		phase "soak: race on one counter for $1 s" lwnfs_soak race "$1" /lwnfs
	fi
	module_tests 100
	echo "1..$n"
	dump_kernel_log
}

# quiet_console: only the kernel's emergencies reach the console from now
# on, so that its lines do not land inside the guest's output;
# dump_kernel_log: the whole kernel log, for the harness to judge, and the
# console gets everything again
quiet_console() {
	dmesg -n 1
}
dump_kernel_log() {
	echo "LWNFS-DMESG-START"
	dmesg
	echo "LWNFS-DMESG-END"
	dmesg -n 7
}

# make bench: lwnfs_bench's three benchmarks, RUNS runs each, with the
# debugfs attribute module loaded; the host reads the BENCH lines.
run_bench() {
	echo "LWNFS-BENCH-START"
	echo "BENCH-CPU $(grep -m 1 '^model name' /proc/cpuinfo | sed 's/.*: //')"
	echo "BENCH-CPUS $(grep -c '^processor' /proc/cpuinfo)"
	mount -t debugfs debugfs /sys/kernel/debug
	insmod /lib/lwnfs_bench_debugfs.ko
	tap $? "bench: insmod lwnfs_bench_debugfs.ko"
	# The kernel's informational lines must not land inside a BENCH line
	# on the console they share (each write to drop_caches makes one):
	# print only warnings and worse, which still fail the run.
	dmesg -n 5
	tap $? "bench: console log level 5"
	phase "bench: read path" lwnfs_bench read "$1" 200000 /lwnfs
	phase "bench: scaling" lwnfs_bench scale "$1" 100000 /lwnfs
	phase "bench: counters users create" lwnfs_bench entries "$1" /lwnfs
	echo "1..$n"
}

# Show a command as a person would type it, then run it; one that fails
# fails the demo. say_fails: the same for a command that must fail.
say() {
	echo "# $*"
	sh -c "$*" || {
		echo "(the demo expected this to work: status $?)"
		demo_rc=1
	}
}
say_fails() {
	echo "# $*"
	if sh -c "$*"; then
		echo "(the demo expected this to fail)"
		demo_rc=1
	fi
}

run_demo() {
	quiet_console
	demo_rc=0
	echo "LWNFS-DEMO-START"
	say mount -t lwnfs lwnfs /lwnfs
	say cat /lwnfs/counter
	say cat /lwnfs/counter
	say "echo 1000 > /lwnfs/counter"
	say cat /lwnfs/counter
	say ls -l /lwnfs /lwnfs/subdir
	say cat /lwnfs/subdir/subcounter
	say cat /lwnfs/subdir/subcounter
	say_fails "echo -1 > /lwnfs/counter"
	say cat /lwnfs/counter
	say mkdir /simple
	say mount -t lwnfs -o layout=simple lwnfs /simple
	say ls /simple
	say "cat /simple/counter0 /simple/counter0 /simple/counter3"
	say "grep lwnfs /proc/mounts"
	say touch /lwnfs/jobs
	say cat /lwnfs/jobs
	say cat /lwnfs/jobs
	say ls -l /lwnfs/jobs
	say df -i /lwnfs
	say rm /lwnfs/jobs
	say umount /simple
	say umount /lwnfs
	echo "LWNFS-DEMO-END rc=$demo_rc"
	dump_kernel_log
	rc=0
}

# run_shell [TTY]: an interactive shell in /lwnfs, on TTY (a second
# serial port, so that the console's lines stay off it) or the console
run_shell() {
	intro="
lwnfs is mounted at /lwnfs. Try: cat counter; touch mine; cat mine mine
Leave with 'exit' (the guest stops), or Ctrl-A X to quit QEMU.
"
	mount -t lwnfs lwnfs /lwnfs
	echo "LWNFS-SHELL-START"
	if [ -n "$1" ]; then
		# the session leader's first open of the tty makes it the
		# shell's controlling terminal (job control, Ctrl-C)
		# shellcheck disable=SC2016
		setsid sh -c 'exec <>"/dev/$1" >&0 2>&0; echo "$2"; cd /lwnfs && exec sh -i' \
			sh "$1" "$intro"
	else
		echo "$intro"
		cd /lwnfs || true
		setsid cttyhack sh
	fi
	rc=0
}
# run_script: run /etc/lwnfs/stdin (make shell's standard input, when it
# is not a terminal) in /lwnfs, without a prompt
run_script() {
	quiet_console
	mount -t lwnfs lwnfs /lwnfs
	echo "LWNFS-SHELL-START"
	rc=0
	(cd /lwnfs && sh /etc/lwnfs/stdin </dev/null) || rc=$?
	echo "LWNFS-SHELL-END rc=$rc"
	dump_kernel_log
	rc=0
}
