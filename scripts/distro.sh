#!/usr/bin/env bash
# make distro: lwnfs on Debian's own kernels (configs/distro.conf), as a
# Debian user gets it. The package (make deb), then for each kernel: its
# base's kselftest from the uapi headers, DKMS's build in the release's
# chroot (scripts/distro-dkms.sh) and the boot (scripts/distro-guest.sh).
# Each passing kernel's figures go into the cache; docs/distro/results.md
# is written from those whose pins are current.
#
# usage: scripts/distro.sh [NAME...]        the named kernels (default: all)
#        scripts/distro.sh --base BASE      the kernels of BASE's line
#        scripts/distro.sh --tier TIER [BASE...]
#                                           the kernels configs/distro.conf
#                                           gives that check tier (of the
#                                           BASEs' lines only, if named)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

names=()
if [ "${1:-}" = --base ]; then
	base=${2:?usage: $0 --base BASE}
	check_base "$base"
	mapfile -t names < <(for n in $(distro_names ''); do
		[ "$(distro_field "$n" base)" != "$base" ] || echo "$n"
	done)
	[ ${#names[@]} -gt 0 ] || { info "$base: no Debian kernel of its line in configs/distro.conf"; exit 0; }
elif [ "${1:-}" = --tier ]; then
	tier=${2:?usage: $0 --tier TIER [BASE...]}
	shift 2
	mapfile -t names < <(for n in $(distro_names "$tier"); do
		[ $# -eq 0 ] || [[ " $* " == *" $(distro_field "$n" base) "* ]] && echo "$n"
	done)
	[ ${#names[@]} -gt 0 ] || { info "no kernel of configs/distro.conf in tier $tier${1:+ for $*}"; exit 0; }
elif [ $# -gt 0 ]; then
	names=("$@")
else
	mapfile -t names < <(distro_names '')
fi
for n in "${names[@]}"; do check_distro "$n"; done

deb=$("$LWNFS_TOP/scripts/deb.sh" | tail -n 1)
results=$LWNFS_CACHE/distro/results
mkdir -p "$results"
for n in "${names[@]}"; do
	base=$(distro_field "$n" base)
	if ! (need_applied "$base") 2>/dev/null; then
		"$LWNFS_TOP/scripts/fetch-base.sh" "$base"
		"$LWNFS_TOP/scripts/apply.sh" "$base"
	fi
	sel=$(build_dir "$base" x86_64-hdr)/kselftest/filesystems/lwnfs/.lwnfs-selftest
	[ "$(stamp_get "$sel" series 2>/dev/null)" = "$(series_hash "$base")" ] ||
		"$LWNFS_TOP/scripts/selftest.sh" "$base" hdr
	start=$SECONDS
	rm -f "$results/$n"
	"$LWNFS_TOP/scripts/distro-dkms.sh" "$n" "$deb"
	"$LWNFS_TOP/scripts/distro-guest.sh" "$n"
	log=$LWNFS_CACHE/logs/distro-$n.log
	{
		cat "$(distro_out "$n")/dkms.txt"
		echo "code=$(distro_code "$n")"
		echo "seconds=$((SECONDS - start))"
		sed -n 's/^DISTRO-UNAME /uname=/p; s/^DISTRO-LSM /lsm=/p; s/^DISTRO-TAINT-AFTER /taint=/p' "$log"
		grep -E '^# Totals: ' "$log" | tail -n 1 | sed 's/^# Totals: /kselftest=/'
		sed -n 's/^LWNFS-MEMCG \(measure\|limit\|kill\): /memcg_\1=/p' "$log"
		grep -E '^soak: (stress|race)' "$log" | sed 's/^/soak=/' || true
	} >"$results/$n"
done
"$LWNFS_TOP/scripts/distro-report.sh"
