#!/usr/bin/env bash
# Fetch the static busybox of an architecture's guests. For the machine's
# own architecture it is the installed busybox-static; for another, the same
# package of the machine's Debian release for that architecture, fetched
# with apt-get download through a private apt configuration (no multiarch
# setup, nothing installed) and unpacked into the cache. Nothing is done
# when it is cached.
#
# usage: scripts/fetch-busybox.sh ARCH
# Output: the path of the busybox binary, on the last line.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: $0 ARCH}
check_arch "$arch"
debarch=$(arch_field "$arch" debarch)

if [ "$debarch" = "$(dpkg --print-architecture)" ]; then
	bin=/bin/busybox
	grep -q 'statically linked' <<<"$(file -L "$bin" 2>/dev/null)" ||
		die "no static $bin; run: make deps (or: apt-get install busybox-static)"
	echo "$bin"
	exit 0
fi

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || die "/etc/os-release names no VERSION_CODENAME; this needs a Debian machine"
dir=$LWNFS_CACHE/busybox/$suite-$debarch
bin=$dir/busybox
if [ -x "$bin" ] && [ -s "$dir/version" ]; then
	info "busybox-static:$debarch $(cat "$dir/version") ($suite): cached" >&2
	echo "$bin"
	exit 0
fi
need_cmd dpkg-deb dpkg
need_cmd file file
apt_private "$LWNFS_CACHE/apt/busybox-$debarch" \
	"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mirror_for "$suite") $suite main"
apt_opts+=(-o "APT::Architecture=$debarch" -o "APT::Architectures=$debarch")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apt-get "${apt_opts[@]}" -qq update ||
	die "apt-get update of $suite for $debarch failed; check the mirror in /etc/apt/sources.list.d (or LWNFS_MIRROR)"
(cd "$work" && apt-get "${apt_opts[@]}" -qq download "busybox-static:$debarch") ||
	die "apt-get download busybox-static:$debarch from $suite failed"
deb=$(find "$work" -name 'busybox-static_*.deb' | sed -n 1p)
[ -n "$deb" ] || die "apt-get download left no busybox-static .deb"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$debarch" ] || die "$deb is not for $debarch"
dpkg-deb -x "$deb" "$work/root"
# bin/ until Debian 12, usr/bin/ after the /usr merge
found=$(find "$work/root" -path '*bin/busybox' -type f | sed -n 1p)
if [ -z "$found" ] || ! grep -q 'statically linked' <<<"$(file "$found")"; then
	die "$deb holds no static busybox"
fi
mkdir -p "$dir"
cp "$found" "$bin.tmp"
mv "$bin.tmp" "$bin"
dpkg-deb -f "$deb" Version >"$dir/version"
info "busybox-static:$debarch $(cat "$dir/version") from $suite: $bin" >&2
echo "$bin"
