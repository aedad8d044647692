#!/usr/bin/env bash
# Print the path of a sparse that the newest base accepts, building it once.
#
# Debian 12's sparse (0.6.4) lacks __typeof_unqual__, which v7.3's
# scripts/checker-valid.sh requires; make C=2 then skips checking with only
# a warning. Debian's newer sparse source package builds here in seconds, so
# fetch it (through a private apt configuration with a deb-src line for the
# suite below) and build it under the cache.
#
# usage: scripts/sparse.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

SPARSE_SUITE=${SPARSE_SUITE:-sid}
dir=$LWNFS_CACHE/sparse
if [ -x "$dir/bin/sparse" ]; then
	echo "$dir/bin/sparse"
	exit 0
fi
need_cmd dpkg-source dpkg-dev

mirror=$(awk 'tolower($1) == "uris:" { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || die "no Debian mirror in the apt configuration"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/} $SPARSE_SUITE main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$work/lists" -o "Dir::State::Status=/dev/null"
	-o "APT::Sandbox::User=root")
{
	apt-get "${apt_opts[@]}" -qq update
	(cd "$work" && apt-get "${apt_opts[@]}" -qq source --download-only sparse)
	(cd "$work" && dpkg-source -x --no-check ./sparse_*.dsc src)
} >&2 || die "could not fetch Debian's sparse source from $SPARSE_SUITE"
make -s -C "$work/src" -j"$JOBS" CC=gcc HAVE_LLVM=no HAVE_GTK=no HAVE_SQLITE=no HAVE_LIBXML=no sparse >&2 ||
	die "building sparse failed"
mkdir -p "$dir/bin"
cp "$work/src/sparse" "$dir/bin/sparse"
echo "$dir/bin/sparse"
