#!/usr/bin/env bash
# Fetch one kernel base, the exact Debian version bases.conf pins, from
# Debian's linux-source package and cache it as a git repository whose tag
# lwnfs-base is the pristine tree. A git base (a public snapshot of a
# stable line) is imported instead from a clone the user names in
# LWNFS_TREE_<base> (LWNFS_TREE_v6_18=/path), at the commit bases.conf
# pins; without one it exits with status 4 and says so on one line. A tree
# of configs/trees.conf is imported as a git base is.
#
# usage: scripts/fetch-base.sh BASE|TREE
#
# The mirror comes from this machine's apt configuration (scripts/lib.sh
# mirror_for), and a private apt state under the cache is used, so the
# system's apt setup is not touched and no host name is written anywhere in
# the project. A downloaded package is kept until its tree is committed, so
# an interrupted fetch does not download it again.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib-edit.sh
. "$LWNFS_TOP/scripts/lib-edit.sh"

base=${1:?usage: $0 BASE}
check_target "$base"
pin=$(base_pin "$base")
tree=$(tree_dir "$base")

if git -C "$tree" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1; then
	have=$(tree_pin "$base")
	if [ "$have" = "$pin" ]; then
		info "$base: cached at $tree ($(git -C "$tree" log -1 --format=%s "$BASE_TAG"))"
		exit 0
	fi
	info "$base: the cached tree is ${have:-?}, $(row_file "$base") pins $pin: fetching again"
	# an open edit's commits live in the tree's repository
	[ ! -d "$(edit_dir "$base")" ] ||
		die "an edit of $base is open in $(edit_dir "$base"), and its commits live in the tree this
  would replace; keep them (git -C $(edit_dir "$base") format-patch $BASE_TAG), then: make edit-drop BASE=$base"
fi

# commit_tree SRC SUBJECT BODY: commit the unpacked tree SRC as the
# pristine base, tag it and put it in the cache's place.
commit_tree() {
	local src=$1
	info "$base: committing the pristine tree (about 40 s)"
	git -C "$src" init -q -b base
	# no automatic gc: it would run in the background, holding the cache lock
	git -C "$src" config gc.auto 0
	git -C "$src" add -Af
	git_fixed -C "$src" commit -q -m "$2" -m "$3"
	git -C "$src" tag "$BASE_TAG"
	git -C "$src" checkout -q -b lwnfs
	# Only a complete tree takes the cache's place. Its builds go with the
	# old tree: the new files keep their commit's dates, older than the
	# objects, which make would take as current.
	rm -rf "$tree" "$LWNFS_CACHE/build/$base"
	mv "$src" "$tree"
	rm -rf "$tree.tmp"
	info "$base: ready at $tree ($(git -C "$tree" rev-parse --short HEAD))"
	# (what make patches keeps of the tree: scripts/gen-patches.sh)
	is_tree "$base" || [ "$(capture_pin "$base")" = "$pin" ] ||
		info "$base: split/hooks/$base.hooks is not of this tree's pin; make patches captures it from the tree"
}

if [ "$(base_source "$base")" = git ]; then
	repo=$(base_field "$base" repo)
	version=$(base_field "$base" version)
	env=$(tree_env "$base")
	clone=${!env:-}
	[[ "$pin" =~ ^[0-9a-f]{40}$ && "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
		die "$(row_file "$base"): $base's row needs a full commit (40 lowercase hex digits) and a version N.N.N, not '$pin' and '$version'"
	if [ -z "$clone" ]; then
		echo "$base: no tree here (the git snapshot $repo at ${pin:0:12}); clone it and set $env=/path" >&2
		exit 4
	fi
	git -C "$clone" rev-parse --git-dir >/dev/null ||
		die "$env=$clone is not a git repository (git's message above); name a clone of $repo"
	git -C "$clone" rev-parse -q --verify "$pin^{commit}" >/dev/null 2>&1 ||
		die "$env=$clone has no commit $pin; run: git -C $clone fetch $repo $pin"
	info "$base: importing $repo at ${pin:0:12} from $clone"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp/src"
	git -C "$clone" archive --format=tar "$pin" -- . "$SNAPSHOT_EXCLUDE" | tar -x -C "$tree.tmp/src"
	have=$(makefile_version <"$tree.tmp/src/Makefile")
	[ "$have" = "$version" ] ||
		die "$repo at $pin is Linux $have, but $(row_file "$base") says $version for $base"
	commit_tree "$tree.tmp/src" "Linux $version (git $repo)" \
		"Imported from $repo at $pin by lwnfs scripts/fetch-base.sh, without ${SNAPSHOT_EXCLUDE#:(exclude)}."
	exit 0
fi

pkg=$(base_field "$base" package)
suite=$(base_field "$base" suite)
version=$pin

need_cmd apt-get apt
need_cmd dpkg-deb dpkg
need_cmd xz xz-utils

apt_dir=$LWNFS_CACHE/apt/$base
base_apt "$base"

# the_deb: the complete package of the pinned version, if it is here.
the_deb() {
	local d
	for d in "$apt_dir/${pkg}_"*.deb; do
		[ -f "$d" ] && [ "$(dpkg-deb -f "$d" Version 2>/dev/null)" = "$version" ] && echo "$d" && return 0
	done
	return 0
}

deb=$(the_deb)
if [ -n "$deb" ]; then
	info "$base: $pkg $version already downloaded"
else
	info "$base: apt-get update ($suite)"
	apt-get "${apt_opts[@]}" -qq update ||
		die "apt-get update for suite $suite failed; check the mirror in /etc/apt/sources.list.d (or LWNFS_MIRROR) and the network"
	info "$base: apt-get download $pkg=$version"
	rm -f "$apt_dir/${pkg}_"*.deb
	if ! (cd "$apt_dir" && apt-get "${apt_opts[@]}" -qq download "$pkg=$version"); then
		offered=$(offered_versions "$base" | tr '\n' ' ')
		die "Debian's $suite no longer offers $pkg $version, which bases.conf pins for $base.
  It offers: ${offered:-nothing}
  Move the pin to the newest version and regenerate the series: make bump"
	fi
	deb=$(the_deb)
	[ -n "$deb" ] || die "apt-get download gave no $pkg $version in $apt_dir"
fi

info "$base: unpacking $pkg $version"
rm -rf "$tree.tmp"
mkdir -p "$tree.tmp"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tree.tmp" --wildcards '*.tar.xz'
tarball=$(ls "$tree.tmp"/usr/src/linux-source-*.tar.xz)
tar -xJf "$tarball" -C "$tree.tmp"
src=$(find "$tree.tmp" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*')

# Debian appends a block that ignores the whole top level; drop it so that
# new files (fs/lwnfs) are seen. Add with -f: every file in the tarball is
# source, including the dot-files (.kunitconfig, .clang-format).
sed -i '/^# Debian packaging/,$d' "$src/.gitignore"

commit_tree "$src" "Linux $version (Debian $pkg)" \
	"Imported from Debian's $pkg $version ($suite) by lwnfs scripts/fetch-base.sh."
rm -f "$deb"
