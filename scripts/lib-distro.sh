# shellcheck shell=bash
# lwnfs scripts: Debian's own kernels (configs/distro.conf), their chroots
# and their guests. scripts/lib.sh sources it; nothing else should.

DISTRO_CONF=$CONFIGS/distro.conf

# The options of Debian's kernel configurations that make distro reports:
# preemption, memory cgroups, module signing and hardening.
# shellcheck disable=SC2034 # read by scripts/distro-dkms.sh
DISTRO_OPTIONS='PREEMPT_VOLUNTARY|PREEMPT|PREEMPT_DYNAMIC|PREEMPT_LAZY|PREEMPT_RT|MEMCG|AUDIT|MODULE_SIG|'\
'HARDENED_USERCOPY|INIT_ON_ALLOC_DEFAULT_ON|INIT_STACK_ALL_ZERO|SLAB_FREELIST_HARDENED|FORTIFY_SOURCE|'\
'STACKPROTECTOR_STRONG|RANDOMIZE_BASE|BUG_ON_DATA_CORRUPTION|LIST_HARDENED|UBSAN_BOUNDS|X86_KERNEL_IBT'

# distro_names [TIER]: the kernels of distro.conf (of TIER only), in order.
distro_names() {
	conf_rows "$DISTRO_CONF" | awk -v t="${1:-}" 't == "" || ("," $8 ",") ~ ("," t ",") { print $1 }'
}

# distro_field NAME FIELD: one field of a kernel's row.
distro_field() {
	local col
	case "$2" in
	chroot) col=2 ;; suites) col=3 ;; flavour) col=4 ;; version) col=5 ;;
	abi) col=6 ;; base) col=7 ;; tiers) col=8 ;;
	*) die "distro_field: unknown field '$2'" ;;
	esac
	conf_rows "$DISTRO_CONF" | awk -v n="$1" -v c="$col" '$1 == n { print $c; exit }'
}

check_distro() {
	[ -n "$(distro_field "$1" chroot)" ] ||
		die "no kernel '$1' in configs/distro.conf (kernels: $(distro_names '' | paste -sd' '))"
}

# distro_code NAME: a hash of what a kernel's result depends on: its
# module source, the package, the guest and its programs, the harness
distro_code() {
	local f
	{
		module_hash "$LWNFS_TOP/module/$(distro_field "$1" base)"
		for f in contrib/dkms/* contrib/dkms/debian/* guest/* soak/lwnfs_soak.c \
			scripts/distro*.sh scripts/lib-distro.sh scripts/verdict.sh; do
			[ ! -f "$LWNFS_TOP/$f" ] || sha256sum <"$LWNFS_TOP/$f"
		done
	} | sha256sum | cut -c1-16
}

# kernel_release NAME: the kernel's release, as uname -r prints it
kernel_release() {
	echo "$(distro_field "$1" abi)-$(distro_field "$1" flavour)"
}

# distro_root CHROOT: the cached chroot of a Debian release
distro_root() {
	echo "$LWNFS_CACHE/distro/root/$1"
}

# distro_out NAME: what scripts/distro-dkms.sh leaves for the guest
distro_out() {
	echo "$LWNFS_CACHE/distro/out/$1"
}

# chroot_suites CHROOT: the suites of all kernels built in that chroot
chroot_suites() {
	conf_rows "$DISTRO_CONF" | awk -v c="$1" '$2 == c { print $3 }' | tr ',' '\n' | awk '!seen[$0]++'
}

# in_root CHROOT COMMAND...: run COMMAND in the chroot as root, with /proc,
# /sys and /dev, in a mount namespace of its own: nothing stays mounted
# on the host, whatever becomes of the command.
in_root() {
	local root
	root=$(distro_root "$1")
	shift
	# shellcheck disable=SC2016 # the inner shell expands its own arguments
	unshare --mount --propagation private -- /bin/sh -ec '
		root=$1
		shift
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C DEBIAN_FRONTEND=noninteractive INITRD=No "$@"' sh "$root" "$@"
}
