#!/usr/bin/env bash
# Does the newest Debian revision of a base still take its series? Look up
# the newest version of the base's package in its suite; when it is newer
# than the pinned one, fetch it and git am the series onto the files the
# series changes, taken from that tree.
#
# usage: scripts/check-drift.sh BASE [--strict]
# Exit status: 0 when the pin is the newest version or the newest takes the
# series; 3 (a warning, for make check) when it does not or cannot be
# looked up; with --strict (make check-all), 1 instead of 3.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE [--strict]}
check_base "$base"
[ "$(base_source "$base")" = debian ] ||
	die "$base is a git snapshot pinned at a commit: it has no Debian revision to drift to"
bad=3
[ "${2:-}" != --strict ] || bad=1
pkg=$(base_field "$base" package)
suite=$(base_field "$base" suite)
pinned=$(base_field "$base" version)
series=$LWNFS_TOP/patches/$base
[ -s "$series/series" ] || die "no series for $base; run: make patches"

warn() {
	echo "WARNING: $*"
	exit "$bad"
}

base_apt "$base"
apt-get "${apt_opts[@]}" -qq update || warn "apt-get update for $suite failed: the drift of $base is unknown"
offered=$(offered_versions "$base")
newest=$(sed -n 1p <<<"$offered")
[ -n "$newest" ] || warn "$suite offers no $pkg: the drift of $base is unknown"
grep -qxF -- "$pinned" <<<"$offered" ||
	warn "$suite no longer offers the pinned $pkg $pinned (a new cache cannot fetch it); run: make bump BASE=$base"
if [ "$newest" = "$pinned" ]; then
	info "$base: the pinned $pkg $pinned is the newest in $suite"
	exit 0
fi
dpkg --compare-versions "$newest" gt "$pinned" ||
	warn "$suite's newest $pkg is $newest, older than the pinned $pinned"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=$LWNFS_CACHE/drift/$base
mkdir -p "$dir"
deb=$dir/${pkg}_${newest}.deb
if [ ! -f "$deb" ]; then
	rm -f "$dir"/*.deb
	(cd "$work" && apt-get "${apt_opts[@]}" -qq download "$pkg=$newest") ||
		warn "could not download $pkg $newest: the drift of $base is unknown"
	mv "$work"/*.deb "$deb"
fi

# The files the series changes (not those it creates), from the new tree.
mapfile -t touched < <(series_files "$series")
prefix=$(dpkg-deb --fsys-tarfile "$deb" | tar -t --wildcards '*.tar.xz' | sed -n 1p)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" "$prefix"
top=$(basename "$prefix" .tar.xz)
members=()
for f in "${touched[@]}"; do
	members+=("$top/$f")
done
xz -dc "$work/$prefix" | tar -x -C "$work" --ignore-failed-read "${members[@]}" 2>/dev/null || true
git -C "$work/$top" init -q
git -C "$work/$top" add -Af
git_fixed -C "$work/$top" commit -q -m "$pkg $newest (the files the series changes)"
mapfile -t files < <(sed "s|^|$series/|" "$series/series")
if ! out=$(git_fixed -C "$work/$top" am "${files[@]}" 2>&1); then
	echo "$out" | grep -E '^(Applying|error|Patch failed)' || true
	warn "$suite's newest $pkg, $newest, does not take patches/$base (pinned: $pinned); run: make bump BASE=$base"
fi
info "$base: $suite's newest $pkg, $newest, takes patches/$base with git am (pinned: $pinned; make bump moves the pin)"
