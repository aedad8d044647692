#!/usr/bin/env bash
# Fetch one kernel base from Debian's linux-source package and cache it as a
# git repository whose tag lwnfs-base is the pristine tree.
#
# usage: scripts/fetch-base.sh BASE
#
# The Debian mirror is taken from this machine's own apt configuration, and a
# private apt state under the cache is used, so the system's apt setup is not
# touched and no host name is written anywhere in the project.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
check_base "$base"
pkg=$(base_field "$base" 2)
suite=$(base_field "$base" 3)
tree=$(tree_dir "$base")

if git -C "$tree" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1; then
	info "$base: cached at $tree ($(git -C "$tree" log -1 --format=%s "$BASE_TAG"))"
	exit 0
fi

need_cmd apt-get apt
need_cmd dpkg-deb dpkg
need_cmd xz xz-utils

# The first deb822 or one-line "deb" URI of the system's sources that is not
# the security archive.
system_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }' "$f"
	done
}
mirror=$(system_mirror | grep -v -- '-security' | head -n 1 || true)
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d}; add one and retry"
mirror=${mirror%/}
case "$suite" in
*-security) uri=$mirror-security ;;
*) uri=$mirror ;;
esac

apt_dir=$LWNFS_CACHE/apt/$base
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" \
	>"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache::Archives=$apt_dir/archives"
	-o "Dir::State::Status=/dev/null"
	-o "APT::Get::List-Cleanup=0"
	-o "APT::Sandbox::User=root")

info "$base: apt-get update ($suite)"
apt-get "${apt_opts[@]}" -qq update ||
	die "apt-get update for suite $suite failed; check the mirror in /etc/apt/sources.list.d and the network"
info "$base: apt-get download $pkg"
rm -f "$apt_dir"/*.deb
if ! (cd "$apt_dir" && apt-get "${apt_opts[@]}" -qq download "$pkg"); then
	die "package $pkg is not in $suite any more. Debian has moved on: find the current one with
  apt-cache search linux-source
and name it in bases.conf (base, package, suite)"
fi
deb=$(ls "$apt_dir"/"$pkg"_*.deb)
version=$(dpkg-deb -f "$deb" Version)

info "$base: unpacking $pkg $version"
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tree.tmp" --wildcards '*.tar.xz'
tarball=$(ls "$tree.tmp"/usr/src/linux-source-*.tar.xz)
tar -xJf "$tarball" -C "$tree.tmp"
src=$(find "$tree.tmp" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*')
mv "$src" "$tree"
rm -rf "$tree.tmp" "$deb"

# Debian appends a block that ignores the whole top level; drop it so that
# new files (fs/lwnfs) are seen. Add with -f: every file in the tarball is
# source, including the dot-files (.kunitconfig, .clang-format).
sed -i '/^# Debian packaging/,$d' "$tree/.gitignore"

info "$base: committing the pristine tree (about 40 s)"
cd "$tree"
git init -q -b base
git add -Af
git_fixed commit -q -m "Linux $version (Debian $pkg)" \
	-m "Imported from Debian's $pkg $version ($suite) by lwnfs scripts/fetch-base.sh."
git tag "$BASE_TAG"
git checkout -q -b lwnfs
info "$base: ready at $tree ($(git rev-parse --short HEAD))"
