#!/usr/bin/env bash
# Move each Debian base's pin (bases.conf) to the newest version of its Debian
# package in its suite, fetch that tree, regenerate its series, check that
# git am takes it, and report which patches changed. A hook whose context
# the new tree lacks is named by the generator, and bases.conf and patches/
# are left as they were.
#
# usage: scripts/bump.sh [BASE...]     (default: every Debian base)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then
	bases=("$@")
else
	mapfile -t bases < <(debian_bases)
fi
S=$LWNFS_TOP/scripts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# every base named is a Debian base, or nothing is moved
for base in "${bases[@]}"; do
	check_base "$base"
	[ "$(base_source "$base")" = debian ] ||
		die "$base is a git snapshot, not a Debian base: to move it, edit its repository, commit and version in bases.conf, then with its clone: $(tree_env "$base")=/path make fetch patches BASE=$base"
done
for base in "${bases[@]}"; do
	pkg=$(base_field "$base" package)
	suite=$(base_field "$base" suite)
	pinned=$(base_field "$base" version)
	base_apt "$base"
	apt-get "${apt_opts[@]}" -qq update || die "apt-get update for $suite failed"
	newest=$(offered_versions "$base" | sed -n 1p)
	[ -n "$newest" ] || die "$suite offers no $pkg; name another package or suite for $base in bases.conf"
	if [ "$newest" = "$pinned" ]; then
		info "$base: $pkg $pinned is the newest in $suite"
		continue
	fi
	info "$base: $pkg $pinned -> $newest"
	cp "$BASES_CONF" "$work/bases.conf"
	rm -rf "$work/old"
	cp -a "$LWNFS_TOP/patches/$base" "$work/old"
	cp -p "$LWNFS_TOP/split/hooks/$base.hooks" "$work/old.hooks"
	B=$base O=$pinned N=$newest perl -pi -e 's/^(\Q$ENV{B}\E\t.*?)\t\Q$ENV{O}\E\t/$1\t$ENV{N}\t/' "$BASES_CONF"
	[ "$(base_field "$base" version)" = "$newest" ] || {
		cp "$work/bases.conf" "$BASES_CONF"
		die "could not rewrite $base's version in bases.conf"
	}
	if ! "$S/fetch-base.sh" "$base" || ! "$S/gen-patches.sh" "$base" || ! "$S/apply.sh" "$base"; then
		cp "$work/bases.conf" "$BASES_CONF"
		rm -rf "${LWNFS_TOP:?}/patches/$base"
		cp -a "$work/old" "$LWNFS_TOP/patches/$base"
		cp -p "$work/old.hooks" "$LWNFS_TOP/split/hooks/$base.hooks"
		die "the series cannot follow $pkg $newest (the error above names what).
  bases.conf, split/hooks/$base.hooks and patches/$base are as they were; the cache may now hold the
  $newest tree: make fetch BASE=$base brings the pinned one back while the mirror has it"
	fi
	changed=()
	while IFS= read -r p; do
		cmp -s "$work/old/$p" "$LWNFS_TOP/patches/$base/$p" || changed+=("$p")
	done <"$LWNFS_TOP/patches/$base/series"
	if [ ${#changed[@]} -eq 0 ]; then
		info "$base: now $newest; no patch changed"
	else
		info "$base: now $newest; changed patches (review with git diff patches/$base):"
		printf '   %s\n' "${changed[@]}"
	fi
done
