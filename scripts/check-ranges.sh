#!/usr/bin/env bash
# Check that every consumer picks a kernel's series by bases.conf's ranges,
# and serves exactly the versions the ranges hold. For every version X.Y
# from 4.19 to past the newest range, in the forms distributions give a
# kernel release (6.8.0-45-generic, 6.12.118+deb13-amd64,
# 7.1.5-200.fc43.x86_64, 7.1.0-rc1, 6.6+) and one no range may take
# (6.6_custom), and as a Yocto LINUX_VERSION also bare (6.6) and 6.6+git:
#  - lwnfs-dkms, as make deb built it: the BUILD_EXCLUSIVE_KERNEL of its
#    dkms.conf (sourced, and tested with bash's =~, as DKMS does), the
#    postinst's test (grep -E), and the series lwnfs-dkms-make picks;
#  - the Buildroot extension's lwnfs-line.sh, on patches/ and on module/;
#  - meta-lwnfs: lwnfs_series() of classes/lwnfs-ranges.bbclass, reached
#    through the expressions of lwnfs-kernel.inc (LWNFS_RANGES,
#    LWNFS_SERIES) and of lwnfs-module.bb's do_configure, evaluated by
#    python3 with a datastore that holds LWNFS_TOP, S, LINUX_VERSION and
#    KERNEL_VERSION (BitBake itself runs in working sessions, not here);
#  - scripts/ranges.sh, which make try uses.
# The expected series is read from bases.conf with awk. A second pass runs
# the same consumers on made-up wide ranges that cross from 4.20 to 5.0
# and from 5.19 to 6.0, built by ranges.sh --bases, with directories
# standing in for the series: with ranges of one version each (as they may
# be), a consumer that matched only a range's first version would pass.
#
# usage: scripts/check-ranges.sh [DEB]   (default: make deb's package)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

version=$(cat "$LWNFS_TOP/VERSION")
deb=${1:-$LWNFS_CACHE/deb/lwnfs-dkms_${version}_all.deb}
[ -f "$deb" ] || die "no package $deb; run: make deb"
need_cmd dpkg-deb dpkg
R=$LWNFS_TOP/scripts/ranges.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/root"
dpkg-deb -e "$deb" "$work/control"
pkg=$work/root/usr/src/lwnfs-$version
{ [ -f "$pkg/dkms.conf" ] && [ -f "$pkg/ranges" ]; } || die "$deb has no usr/src/lwnfs-$version/dkms.conf and ranges"
cmp -s "$pkg/ranges" "$LWNFS_TOP/module/ranges" || die "the package's ranges are not module/ranges; run: make deb"
pkg_re=$(kernelver=KVER kernel_source_dir=KDIR bash -c '. "$1" && echo "$BUILD_EXCLUSIVE_KERNEL"' - "$pkg/dkms.conf")
[ -n "$pkg_re" ] || die "the package's dkms.conf sets no BUILD_EXCLUSIVE_KERNEL"
post_re=$(sed -n "s/.*grep -Eq '\(.*\)'.*/\1/p" "$work/control/postinst")
[ -n "$post_re" ] || die "the package's postinst has no grep -Eq test of the kernel release"

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# forms X.Y: kernel releases of X.Y, and "-" before the one no range takes
forms() {
	echo "$1.0-45-generic $1.118+deb13-amd64 $1.5-200.fc43.x86_64 $1.0-rc1 $1+ -$1_custom"
}

# check_pass LABEL BASES VERSIONS PATCHES MODULE PKGDIR DKMS_RE POST_RE:
# every consumer, for each version, against the series BASES (a table with
# bases.conf's columns) gives it
check_pass() {
	local label=$1 bases=$2 patches=$4 module=$5 pkgdir=$6 dkms_re=$7 post_re=$8
	local -a versions
	read -ra versions <<<"$3"
	local -A expect=() picked=() yocto=()
	local xy p rel want yes got d served=0 n=0 rels=()
	while read -r xy p; do expect[$xy]=$p; done < <(conf_rows "$bases" | awk -v vs="${versions[*]}" '
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
	while read -r xy p; do picked[$xy]=$p; done < <("$R" --bases "$bases" pick "${versions[@]}")
	for xy in "${versions[@]}"; do
		for rel in $(forms "$xy") "$xy" "$xy+git"; do rels+=("${rel#-}"); done
	done
	# meta-lwnfs, one python run: "release kernel-series module-series"
	while read -r rel p d; do yocto[$rel]="$p $d"; done < <(python3 - "$LWNFS_TOP" "$patches" "$module" "${rels[@]}" <<'EOF'
import os, re, sys, tempfile
top, patches, module, rels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
layer = top + '/contrib/meta-lwnfs'
def text(p):
    return open(p).read().replace('\\\n', ' ')
def expr(src, pattern, what):
    m = re.search(pattern, src, re.M)
    if not m:
        sys.exit('no %s expression found' % what)
    return m.group(1)
inc = text(layer + '/recipes-kernel/linux/lwnfs-kernel.inc')
bb_ = text(layer + '/recipes-kernel/lwnfs-module/lwnfs-module.bb')
e_ranges = expr(inc, r'^LWNFS_RANGES = "\$\{@(.*)\}"\s*$', 'LWNFS_RANGES')
e_series = expr(inc, r'^LWNFS_SERIES = "\$\{@(.*)\}"\s*$', 'LWNFS_SERIES')
e_module = expr(bb_, r'^\s*series="\$\{@(.*)\}"\s*$', "lwnfs-module.bb's series")
class D:
    def __init__(self, v):
        self.v = v
    def getVar(self, name):
        return self.v.get(name)
class Parse:
    @staticmethod
    def mark_dependency(d, f):
        pass
class BB:
    parse = Parse
ns = {'os': os, 'bb': BB}
exec(open(layer + '/classes/lwnfs-ranges.bbclass').read(), ns)
# LWNFS_TOP for the kernel features: a directory whose patches/ is PATCHES;
# S for the module: one whose module/ is MODULE
ktop, s = tempfile.mkdtemp(), tempfile.mkdtemp()
os.symlink(patches, ktop + '/patches')
os.symlink(module, s + '/module')
for rel in rels:
    ranges = eval(e_ranges, dict(ns, d=D({'LWNFS_TOP': ktop})))
    k = eval(e_series, dict(ns, d=D({'LWNFS_RANGES': ranges, 'LINUX_VERSION': rel})))
    m = eval(e_module, dict(ns, d=D({'S': s, 'KERNEL_VERSION': rel})))
    print(rel, k or '-', m or '-')
EOF
	)
	# lwnfs-dkms-make's picks, one run: "release series"
	local -A dkms=()
	local -a forms_all=()
	for xy in "${versions[@]}"; do
		for rel in $(forms "$xy"); do forms_all+=("${rel#-}"); done
	done
	while read -r rel p; do dkms[$rel]=$p; done < <(cd "$pkgdir" && sh ./lwnfs-dkms-make --series "${forms_all[@]}")
	# the postinst's test, one run: the releases it takes
	local -A post=()
	while read -r rel; do post[$rel]=1; done < <(printf '%s\n' "${forms_all[@]}" | grep -E "$post_re" || true)
	local kmf=$work/kernel/Makefile
	mkdir -p "$work/kernel"
	for xy in "${versions[@]}"; do
		want=${expect[$xy]}
		if [ "$want" = - ]; then yes=no; else yes=yes && served=$((served + 1)); fi
		[ "${picked[$xy]:-}" = "$want" ] || fail "$label $xy: scripts/ranges.sh gives ${picked[$xy]:-nothing}, the ranges $want"
		printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = 7\n' "${xy%.*}" "${xy#*.}" >"$kmf"
		for d in "$patches" "$module"; do
			got=$(sh "$LWNFS_TOP/contrib/buildroot/lwnfs-line.sh" "$work/kernel" "$d" 2>/dev/null || echo -)
			[ "${got##*/}" = "$want" ] || fail "$label $xy: Buildroot's lwnfs-line.sh on ${d##*/}/ gives ${got##*/}, the ranges $want"
		done
		for rel in $(forms "$xy"); do
			local w=$want y=$yes
			if [ "${rel#-}" != "$rel" ]; then rel=${rel#-} w=- y=no; fi
			n=$((n + 1))
			if [[ $rel =~ $dkms_re ]]; then got=yes; else got=no; fi
			[ "$got" = "$y" ] || fail "$label $rel: DKMS's BUILD_EXCLUSIVE_KERNEL says $got, the ranges' series: $w"
			if [ -n "${post[$rel]:-}" ]; then got=yes; else got=no; fi
			[ "$got" = "$y" ] || fail "$label $rel: the postinst's test says $got, the ranges' series: $w"
			[ "${dkms[$rel]:-}" = "$w" ] || fail "$label $rel: lwnfs-dkms-make picks ${dkms[$rel]:-nothing}, the ranges $w"
			[ "${yocto[$rel]:-}" = "$w $w" ] ||
				fail "$label $rel: meta-lwnfs picks ${yocto[$rel]:-nothing} (kernel features, module), the ranges $w"
		done
		for rel in "$xy" "$xy+git"; do
			[ "${yocto[$rel]:-}" = "$want $want" ] ||
				fail "$label $rel: meta-lwnfs picks ${yocto[$rel]:-nothing} (kernel features, module), the ranges $want"
		done
	done
	info "$label: ${#versions[@]} versions from ${versions[0]} to ${versions[-1]}, $n kernel releases: lwnfs-dkms, Buildroot, meta-lwnfs and ranges.sh serve exactly the $served versions the ranges hold ($("$R" --bases "$bases" text)), each with its series"
}

# the versions: from 4.19 to two past the newest range's end, and at least
# to 7.5
newest_last=$(base_field "$(newest_base)" last)
two_past=$(awk -F. '{ print $1 "." $2 + 2 }' <<<"$newest_last")
end=$(printf '7.5\n%s\n' "$two_past" | sort -V | tail -n 1)
all_versions=$("$R" span 4.19 "$end" | paste -sd' ')

check_pass "the package and the checkout" "$BASES_CONF" "$all_versions" \
	"$LWNFS_TOP/patches" "$LWNFS_TOP/module" "$pkg" "$pkg_re" "$post_re"

# the made-up wide ranges, each series a stand-in directory
wide=$work/wide
mkdir -p "$wide/patches" "$wide/module" "$wide/pkg"
conf_rows "$BASES_CONF" | awk -v OFS='\t' '
	$1 == "v7.3" { $7 = "7.0"; $8 = "7.5" } $1 == "v6.18" { $7 = "6.15"; $8 = "6.19" }
	$1 == "v6.12" { $7 = "6.9"; $8 = "6.14" } $1 == "v6.6" { $7 = "6.3"; $8 = "6.8" }
	$1 == "v6.1" { $7 = "5.16"; $8 = "6.2" } $1 == "v5.10" { $7 = "4.20"; $8 = "5.12" }
	{ print }' >"$wide/bases.conf"
"$R" --bases "$wide/bases.conf" write "$wide/patches/ranges" "$wide/module/ranges" "$wide/pkg/ranges"
for b in $(all_bases); do mkdir -p "$wide/patches/$b" "$wide/module/$b" "$wide/pkg/$b"; done
cp "$pkg/lwnfs-dkms-make" "$wide/pkg/"
wide_re=$("$R" --bases "$wide/bases.conf" regex)
check_pass "made-up wide ranges" "$wide/bases.conf" "$all_versions" \
	"$wide/patches" "$wide/module" "$wide/pkg" "$wide_re" "$wide_re"

# the edges: the nearest ranges of a version outside them (make try), a
# Makefile whose numbers are not plain, a ranges file that cannot be read
[ "$("$R" --bases "$wide/bases.conf" near 5.14)" = "v5.10 v5.15" ] ||
	fail "ranges.sh near 5.14 on the wide ranges is not 'v5.10 v5.15'"
[ "$("$R" --bases "$wide/bases.conf" near 4.19)" = "- v5.10" ] ||
	fail "ranges.sh near 4.19 on the wide ranges is not '- v5.10'"
printf 'VERSION = 06\nPATCHLEVEL = 08\nSUBLEVEL = 1\n' >"$work/kernel/Makefile"
[ "$(sh "$LWNFS_TOP/contrib/buildroot/lwnfs-line.sh" "$work/kernel" "$wide/patches" 2>/dev/null)" = "$wide/patches/v6.6" ] ||
	fail "lwnfs-line.sh does not read VERSION = 06, PATCHLEVEL = 08 as 6.8"
printf 'VERSION = 6.1\nPATCHLEVEL = 2\n' >"$work/kernel/Makefile"
! sh "$LWNFS_TOP/contrib/buildroot/lwnfs-line.sh" "$work/kernel" "$wide/patches" >/dev/null 2>&1 ||
	fail "lwnfs-line.sh takes VERSION = 6.1"
printf 'v6.1\t6.1\tx\n' >"$work/bad-ranges"
got=$(python3 -c 'import sys; exec(open(sys.argv[1]).read()); print(lwnfs_series(sys.argv[2], "6.1.5") or "-")' \
	"$LWNFS_TOP/contrib/meta-lwnfs/classes/lwnfs-ranges.bbclass" "$work/bad-ranges")
[ "$got" = - ] || fail "lwnfs_series() picks $got from a damaged ranges file"

[ "$fails" -eq 0 ] || die "$fails disagreements with the ranges (above)"
