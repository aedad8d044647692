#!/usr/bin/env bash
# make edit: a git work tree in which a base's series is a branch of
# commits, one a patch, on the base's pristine tree. Change it there with
# git (commit, commit --fixup, rebase -i --autosquash, reword, a new
# patch between two others), then take it back with make import
# (scripts/import.sh). The last line of the output is the work tree's path.
#
# usage: scripts/edit.sh BASE           open an edit of BASE
#        scripts/edit.sh --drop BASE    throw an open edit away
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib-edit.sh
. "$LWNFS_TOP/scripts/lib-edit.sh"

drop=0
if [ "${1:-}" = --drop ]; then
	drop=1
	shift
fi
base=${1:?usage: $0 [--drop] BASE}
check_base "$base"
tree=$(tree_dir "$base")
dir=$(edit_dir "$base")
branch=$(edit_branch "$base")

if [ $drop = 1 ]; then
	[ -d "$dir" ] || die "no edit of $base is open (no $dir)"
	git -C "$tree" worktree remove --force "$dir"
	git -C "$tree" branch -q -D "$branch"
	info "dropped the edit of $base"
	exit 0
fi
need_tree "$base"
[ ! -e "$dir" ] || die "an edit of $base is open in $dir; take it back with: make import BASE=$base
  or throw it away with: make edit-drop BASE=$base"
series=$(series_dir "$base")

# The edit must start from the series the sources generate now, or the
# import would take back a stale series as the change. Where the base's
# delta no longer applies to the sources (after an import into a newer
# base), it starts from the series as committed, and the newer base's
# change is what is to be brought into it.
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
if "$LWNFS_TOP/scripts/gen-patches.sh" -o "$fresh" "$base" >"$fresh/log" 2>&1; then
	diff -rq "$fresh/$base" "$series" >/dev/null ||
		die "patches/$base is not what the sources generate; run: make patches (and commit), then make edit"
elif [ "$base" = "$(newest_base)" ] || ! grep -q "^error: deltas/$base\.diff does not apply" "$fresh/log"; then
	sed 's/^/  | /' "$fresh/log"
	die "the sources do not generate $base's series (above); fix that first"
else
	sed 's/^/  | /' "$fresh/log"
	echo ">> deltas/$base.diff does not apply to the sources now: the edit starts from patches/$base as"
	echo ">> committed; bring the newer base's change into it (the failure above), then make import"
fi

git -C "$tree" worktree prune
! git -C "$tree" rev-parse -q --verify "refs/heads/$branch" >/dev/null ||
	die "$tree still has the branch $branch of an earlier edit, with no work tree; look at it
  (git -C $tree log $BASE_TAG..$branch) and delete it (git -C $tree branch -D $branch), then make edit"
git -C "$tree" worktree add -q -b "$branch" "$dir" "$BASE_TAG"
mapfile -t files < <(sed "s|^|$series/|" "$series/series")
if ! git_fixed -C "$dir" am -q "${files[@]}"; then
	git -C "$tree" worktree remove --force "$dir"
	git -C "$tree" branch -q -D "$branch"
	die "git am of patches/$base failed in the edit's work tree; run: make apply BASE=$base to see why"
fi
printf 'base=%s\nsources=%s\nstart=%s\n' "$base" "$(sources_hash)" "$(git -C "$dir" rev-parse HEAD)" \
	>"$(edit_stamp "$base")"
info "the series of $base is the branch $branch, $(git -C "$dir" rev-list --count "$BASE_TAG..HEAD") commits on $BASE_TAG."
info "Change it with git there (commit --fixup, rebase -i --autosquash, reword ...), then: make import BASE=$base"
echo "$dir"
