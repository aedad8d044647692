#!/usr/bin/env bash
# Check that every consumer picks a kernel's series by bases.conf's ranges,
# and serves exactly the versions the ranges hold: for every version X.Y
# from 4.19 to 7.5, each as Ubuntu, Debian and Fedora write a kernel
# release (6.8.0-45-generic, 6.12.118+deb13-amd64, 7.1.5-200.fc43.x86_64):
#  - lwnfs-dkms, as make deb built it: DKMS's BUILD_EXCLUSIVE_KERNEL test
#    (bash's =~, as DKMS runs it), the postinst's test, and the series
#    lwnfs-dkms-make picks;
#  - the Buildroot extension's lwnfs-line.sh, on patches/ and on module/;
#  - meta-lwnfs's lwnfs_series() (classes/lwnfs-ranges.bbclass), on
#    patches/ranges and module/ranges;
#  - scripts/ranges.sh, which make try and the docs use.
# The expected series is read from bases.conf here, with awk.
#
# usage: scripts/check-ranges.sh [DEB]   (default: make deb's package)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

version=$(cat "$LWNFS_TOP/VERSION")
deb=${1:-$LWNFS_CACHE/deb/lwnfs-dkms_${version}_all.deb}
[ -f "$deb" ] || die "no package $deb; run: make deb"
need_cmd dpkg-deb dpkg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/root"
dpkg-deb -e "$deb" "$work/control"
src=$work/root/usr/src/lwnfs-$version
{ [ -f "$src/dkms.conf" ] && [ -f "$src/ranges" ]; } || die "$deb has no usr/src/lwnfs-$version/dkms.conf and ranges"
re=$(kernelver=KVER kernel_source_dir=KDIR bash -c '. "$1" && echo "$BUILD_EXCLUSIVE_KERNEL"' - "$src/dkms.conf")
[ -n "$re" ] || die "the package's dkms.conf sets no BUILD_EXCLUSIVE_KERNEL"
post_re=$(sed -n "s/.*grep -Eq '\(.*\)'.*/\1/p" "$work/control/postinst")
[ -n "$post_re" ] || die "the package's postinst has no grep -Eq test of the kernel release"


versions=(4.19 4.20)
for m in 5 6; do
	for n in $(seq 0 19); do versions+=("$m.$n"); done
done
for n in $(seq 0 5); do versions+=("7.$n"); done

kmf=$work/kernel/Makefile
mkdir -p "$work/kernel"
fails=0 n=0 served=0
# the Yocto function's answers, one python run: "release series"
declare -A yocto=()
rels=()
for xy in "${versions[@]}"; do
	rels+=("$xy.0-45-generic" "$xy.118+deb13-amd64" "$xy.5-200.fc43.x86_64")
done
while read -r rel p m; do
	yocto[$rel]="$p $m"
done < <(python3 -c '
import sys
exec(open(sys.argv[1]).read())
for rel in sys.argv[4:]:
    print(rel, lwnfs_series(sys.argv[2], rel) or "-", lwnfs_series(sys.argv[3], rel) or "-")' \
	"$LWNFS_TOP/contrib/meta-lwnfs/classes/lwnfs-ranges.bbclass" \
	"$LWNFS_TOP/patches/ranges" "$LWNFS_TOP/module/ranges" "${rels[@]}")

# the series bases.conf gives each version ("-": none), read with awk
declare -A expect=()
while read -r xy p; do
	expect[$xy]=$p
done < <(conf_rows "$BASES_CONF" | awk -v vs="${versions[*]}" '
	function k(s, a) { split(s, a, "."); return a[1] * 1000 + a[2] }
	{ first[NR] = k($7); last[NR] = k($8); base[NR] = $1 }
	END {
		n = split(vs, v, " ")
		for (i = 1; i <= n; i++) {
			s = "-"
			for (r in base) if (first[r] <= k(v[i]) && k(v[i]) <= last[r]) s = base[r]
			print v[i], s
		}
	}')
# scripts/ranges.sh's answers, one run
declare -A picked=()
while read -r xy p; do
	picked[$xy]=$p
done < <("$LWNFS_TOP/scripts/ranges.sh" pick "${versions[@]}")

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
for xy in "${versions[@]}"; do
	want=${expect[$xy]}
	if [ "$want" = - ]; then yes=no; else yes=yes && served=$((served + 1)); fi
	[ "${picked[$xy]:-}" = "$want" ] || fail "$xy: scripts/ranges.sh gives ${picked[$xy]:-nothing}, bases.conf $want"
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 7\n' "${xy%.*}" "${xy#*.}" >"$kmf"
	for d in patches module; do
		got=$(sh "$LWNFS_TOP/contrib/buildroot/lwnfs-line.sh" "$work/kernel" "$LWNFS_TOP/$d" 2>/dev/null || echo -)
		[ "${got##*/}" = "$want" ] || fail "$xy: Buildroot's lwnfs-line.sh on $d/ gives ${got##*/}, bases.conf $want"
	done
	for rel in "$xy.0-45-generic" "$xy.118+deb13-amd64" "$xy.5-200.fc43.x86_64"; do
		n=$((n + 1))
		if [[ $rel =~ $re ]]; then got=yes; else got=no; fi
		[ "$got" = "$yes" ] ||
			fail "$rel: DKMS's BUILD_EXCLUSIVE_KERNEL says $got, bases.conf's series: $want"
		if echo "$rel" | grep -Eq "$post_re"; then got=yes; else got=no; fi
		[ "$got" = "$yes" ] ||
			fail "$rel: the postinst's test says $got, bases.conf's series: $want"
		got=$(cd "$src" && sh ./lwnfs-dkms-make --series "$rel" 2>/dev/null || echo -)
		[ "$got" = "$want" ] || fail "$rel: lwnfs-dkms-make picks $got, bases.conf $want"
		[ "${yocto[$rel]:-}" = "$want $want" ] ||
			fail "$rel: meta-lwnfs's lwnfs_series() gives ${yocto[$rel]:-nothing} (patches/, module/), bases.conf $want"
	done
done
[ "$fails" -eq 0 ] || die "$fails disagreements with bases.conf's ranges (above)"
info "${#versions[@]} versions from ${versions[0]} to ${versions[-1]}, $n kernel releases: lwnfs-dkms, Buildroot, meta-lwnfs and ranges.sh serve exactly the $served versions bases.conf's ranges hold ($("$LWNFS_TOP/scripts/ranges.sh" text)), each with its series"
