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

# Module lifecycle: rmmod is refused while mounted, and load/unload and
# mount/umount cycles work (the harness fails the run on any kernel
# warning they cause).
module_tests() {
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
	while [ $i -lt 100 ]; do
		insmod /lib/lwnfs.ko && rmmod lwnfs || fail=$((fail + 1))
		i=$((i + 1))
	done
	tap $fail "module: 100 load/unload cycles"

	insmod /lib/lwnfs.ko
	i=0 fail=0
	while [ $i -lt 1000 ]; do
		mount -t lwnfs lwnfs /lwnfs && umount /lwnfs || fail=$((fail + 1))
		i=$((i + 1))
	done
	tap $fail "module: 1000 mount/umount cycles"
	rmmod lwnfs
	tap $? "module: rmmod after the cycles"
}

run_tests() {
	echo "LWNFS-GUEST-START"
	if [ -f /lib/lwnfs.ko ]; then
		insmod /lib/lwnfs.ko
		tap $? "module: insmod lwnfs.ko"
	fi
	/bin/lwnfs_test
	tap $? "kselftest filesystems/lwnfs"
	if [ -f /lib/lwnfs.ko ]; then
		module_tests
	fi
	echo "1..$n"
}

# Show a command as a person would type it, then run it.
say() {
	echo "# $*"
	sh -c "$*"
}

run_demo() {
	echo "LWNFS-DEMO-START"
	say mount -t lwnfs lwnfs /lwnfs
	say cat /lwnfs/counter
	say cat /lwnfs/counter
	say "echo 1000 > /lwnfs/counter"
	say cat /lwnfs/counter
	say ls -l /lwnfs /lwnfs/subdir
	say cat /lwnfs/subdir/subcounter
	say cat /lwnfs/subdir/subcounter
	say "echo -1 > /lwnfs/counter"
	say cat /lwnfs/counter
	say mkdir /simple
	say mount -t lwnfs -o layout=simple lwnfs /simple
	say ls /simple
	say "cat /simple/counter0 /simple/counter0 /simple/counter3"
	say "grep lwnfs /proc/mounts"
	say umount /simple
	say umount /lwnfs
	echo "LWNFS-DEMO-END"
	rc=0
}

run_shell() {
	mount -t lwnfs lwnfs /lwnfs
	echo
	echo "lwnfs is mounted at /lwnfs. Try: cat /lwnfs/counter"
	echo "Leave with 'exit' (the guest reboots), or Ctrl-A X to quit QEMU."
	echo
	cd /lwnfs || true
	setsid cttyhack sh
	rc=0
}
