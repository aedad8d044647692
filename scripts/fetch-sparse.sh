#!/usr/bin/env bash
# Fetch the sparse source package that configs/tools.conf pins, through a
# private apt configuration with a deb-src line for its suite, and build it
# under LWNFS_CACHE/sparse/<version>/ (see configs/tools.conf for why not
# Debian 12's own sparse). Nothing is done when that version is built.
#
# usage: scripts/fetch-sparse.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

suite=$(tool_field sparse suite)
version=$(tool_field sparse version)
dir=$LWNFS_CACHE/sparse/$version
if [ -x "$dir/bin/sparse" ]; then
	info "sparse $version: cached at $dir/bin/sparse ($("$dir/bin/sparse" --version))"
	exit 0
fi
need_cmd dpkg-source dpkg-dev

apt_dir=$LWNFS_CACHE/apt/sparse
apt_private "$apt_dir" "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mirror_for "$suite") $suite main"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

info "sparse $version: apt-get source ($suite)"
apt-get "${apt_opts[@]}" -qq update ||
	die "apt-get update for suite $suite failed; check the mirror in /etc/apt/sources.list.d (or LWNFS_MIRROR)"
if ! (cd "$work" && apt-get "${apt_opts[@]}" -qq source --download-only "sparse=$version"); then
	offered=$(apt-cache "${apt_opts[@]}" showsrc sparse 2>/dev/null | sed -n 's/^Version: //p' | tr '\n' ' ')
	die "Debian's $suite no longer offers the sparse source $version, which configs/tools.conf pins.
  It offers: ${offered:-nothing}
  Pin one of those in configs/tools.conf, and check that the $(newest_base) base accepts it (make check)"
fi
(cd "$work" && dpkg-source -x --no-check ./sparse_*.dsc src) >/dev/null
info "sparse $version: building"
make -s -C "$work/src" -j"$JOBS" CC=gcc HAVE_LLVM=no HAVE_GTK=no HAVE_SQLITE=no HAVE_LIBXML=no sparse ||
	die "building sparse $version failed"
mkdir -p "$dir/bin"
cp "$work/src/sparse" "$dir/bin/sparse.tmp"
mv "$dir/bin/sparse.tmp" "$dir/bin/sparse"
info "sparse $version: built $dir/bin/sparse ($("$dir/bin/sparse" --version))"
