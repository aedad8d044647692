#!/usr/bin/env bash
# make import: take back a series edited with git in make edit's work tree
# (scripts/edit.sh). For the newest base, its commits become fs-lwnfs/,
# selftests-lwnfs/, Documentation/, Kconfig.snippet and split/ (the patch
# list, each patch's cut and message); for an older base, its last commit
# becomes deltas/BASE.diff. The change is then carried into each older
# base's delta; patches/ is generated again for every base, and a base
# whose delta the change does not fit is named, with the hunk, and how to
# fix it there. The edit is closed when its base's series comes out again
# exactly as the branch holds it; otherwise nothing is changed.
#
# It refuses, and changes nothing, when the sources changed since make
# edit, or the work tree has uncommitted changes or is mid-rebase.
#
# usage: scripts/import.sh [BASE]      (default: the one open edit)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib-edit.sh
. "$LWNFS_TOP/scripts/lib-edit.sh"

base=${1:-}
if [ -z "$base" ]; then
	mapfile -t open < <(find "$(dirname "$(edit_dir x)")" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort)
	[ ${#open[@]} -gt 0 ] || die "no edit is open; start one with: make edit [BASE=...]"
	[ ${#open[@]} -eq 1 ] || die "edits of ${open[*]} are open; name one: make import BASE=..."
	base=${open[0]}
fi
check_base "$base"
dir=$(edit_dir "$base")
branch=$(edit_branch "$base")
[ -d "$dir" ] || die "no edit of $base is open; start one with: make edit BASE=$base"
stamp=$(edit_stamp "$base")
[ "$(stamp_get "$stamp" sources)" = "$(sources_hash)" ] ||
	die "the sources changed since make edit BASE=$base; importing would undo that change.
  Keep your commits (git -C $dir format-patch $BASE_TAG), then: make edit-drop BASE=$base; make edit BASE=$base"
cd "$dir"
gitdir=$(git rev-parse --absolute-git-dir)
for f in rebase-merge rebase-apply MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD BISECT_LOG; do
	[ ! -e "$gitdir/$f" ] || die "$dir is in the middle of a git operation ($f); finish or abort it first"
done
[ -z "$(git status --porcelain)" ] ||
	die "$dir has uncommitted changes (git status); commit them, or git stash them, first"
[ "$(git symbolic-ref -q HEAD)" = "refs/heads/$branch" ] || die "$dir is not on the branch $branch"
git merge-base --is-ancestor "$BASE_TAG" HEAD || die "$branch does not start from $BASE_TAG"
[ -z "$(git rev-list --min-parents=2 "$BASE_TAG..HEAD")" ] || die "$branch has merge commits; a series is a line of commits"
mapfile -t commits < <(git rev-list --reverse "$BASE_TAG..HEAD")
n=${#commits[@]}
[ "$n" -gt 0 ] || die "$branch has no commits"
for c in "${commits[@]}"; do
	out=$(outside_sources "$c")
	[ -z "$out" ] || die "$(git log -1 --format='%h ("%s")' "$c") changes files that are not lwnfs's sources nor its tree hooks: $out"
done
newest=$(newest_base)
mapfile -t bases < <(all_bases)
mapfile -t old_patches < <(conf_rows "$LWNFS_TOP/split/patches.conf" | awk '{ print $1 }')

work=$(mktemp -d)
(cd "$LWNFS_TOP" && tar -cf "$work/backup.tar" fs-lwnfs selftests-lwnfs Documentation split deltas Kconfig.snippet patches series module "$KMETA")
# Until the import is done, any way out of this script puts the sources
# back as they were.
done=0
put_back() {
	(cd "$LWNFS_TOP" && rm -rf fs-lwnfs selftests-lwnfs Documentation split deltas patches module "$KMETA" && tar -xf "$work/backup.tar")
}
trap '[ $done = 1 ] || { put_back; echo "error: the import stopped; the sources are as they were" >&2; }; rm -rf "$work"' EXIT
restore() {
	put_back
	done=1
	die "$@"
}
export_sources "$(stamp_get "$stamp" start)" "$work/old"
export_sources HEAD "$work/new"

# import_newest: the branch's commits become the sources and split/.
import_newest() {
	local k c subject name names=() adds line conf=$LWNFS_TOP/split/patches.conf f
	for ((k = 1; k <= n; k++)); do
		c=${commits[k - 1]}
		export_sources "$c" "$work/states/$k"
		subject=$(git log -1 --format=%s "$c")
		# the name of the old patch with this subject; if none, and the
		# series has as many patches as before, the name of the one in
		# this place (a reworded patch), unless another commit has the
		# subject that patch had; else one made from the subject
		name=''
		for f in "${old_patches[@]}"; do
			[ "$(head -n 1 "$LWNFS_TOP/split/$f.msg")" != "$subject" ] || name=$f
		done
		if [ -z "$name" ] && [ "$n" -eq ${#old_patches[@]} ]; then
			f=${old_patches[k - 1]}
			git log --format=%s "$BASE_TAG..HEAD" | grep -qxF -- "$(head -n 1 "$LWNFS_TOP/split/$f.msg")" || name=$f
		fi
		name=${name#[0-9][0-9][0-9][0-9]-}
		names+=("$(printf '%04d-%s' "$k" "${name:-$(slug "$subject")}")")
	done
	for f in "${old_patches[@]}"; do
		rm -f "$LWNFS_TOP/split/$f.msg" "$LWNFS_TOP/split/$f.diff"
	done
	awk '/^#/ { print; next } { exit }' "$conf" >"$work/conf"
	for ((k = 1; k <= n; k++)); do
		c=${commits[k - 1]}
		message_of "$c" >"$LWNFS_TOP/split/${names[k - 1]}.msg"
		[ "$k" -eq 1 ] || diff_tree "$work/states/$((k - 1))" "$work/states/$k" "$LWNFS_TOP/split/${names[k - 1]}.diff"
		adds=$( (cd "$work/states/$k" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | while IFS= read -r f; do
			[ "$k" -gt 1 ] && [ -f "$work/states/$((k - 1))/$f" ] || echo "$f"
		done | tr '\n' ' ')
		# the hooks whose file this commit is the first to change
		adds="$adds$(comm -13 <(hooks_from "$BASE_TAG" "$([ "$k" -eq 1 ] && echo "$BASE_TAG" || echo "${commits[k - 2]}")" | sort) \
			<(hooks_from "$BASE_TAG" "$c" | sort) | tr '\n' ' ')"
		adds=${adds% }
		# a patch that adds what it added keeps its line as it was
		line=$(awk -v p="${names[k - 1]}" '!/^#/ && $1 == p' "$conf")
		if [ -n "$line" ] && [ "$(echo "$line" | tr -s ' \t' '\n' | sed 1d | sort)" = "$(echo "${adds:--}" | tr ' ' '\n' | sort)" ]; then
			echo "$line" >>"$work/conf"
		else
			printf '%s\t\t%s\n' "${names[k - 1]}" "${adds:--}" >>"$work/conf"
		fi
	done
	cp "$work/conf" "$conf"
	git diff -U0 "$BASE_TAG" HEAD -- fs/Kconfig | sed -n '/^+++/d; s/^+//p' >"$LWNFS_TOP/Kconfig.snippet"
	import_sources "$work/new"
}

# import_older: the branch's last commit becomes deltas/BASE.diff.
import_older() {
	local k want
	want=$(wc -l <"$(series_dir "$base")/series")
	[ "$n" -eq "$want" ] || die "$branch has $n commits, the series $want: an older base cannot add or drop a patch (its patches are the newest base's); do that in make edit BASE=$newest"
	for ((k = 1; k <= n; k++)); do
		[ "$(message_of "${commits[k - 1]}")" = "$(cat "$LWNFS_TOP/split/${old_patches[k - 1]}.msg")" ] ||
			die "patch $k's message differs from split/${old_patches[k - 1]}.msg: the bases share their messages; reword in make edit BASE=$newest"
	done
	"$LWNFS_TOP/scripts/gen-patches.sh" --final "${bases[$(base_index "$base") - 1]}" "$work/newer" >/dev/null
	diff_tree "$work/newer" "$work/new" "$LWNFS_TOP/deltas/$base.diff"
}

# base_index BASE: its place in bases.conf, from 0.
base_index() {
	local i
	for i in "${!bases[@]}"; do [ "${bases[i]}" != "$1" ] || echo "$i"; done
}

# carry_down: the change (old -> new) into each older base's delta, as
# long as it fits; prints the bases it does not fit.
carry_down() {
	local i c prev_old=$work/old prev_new=$work/new prev=$base e f
	for ((i = $(base_index "$base") + 1; i < ${#bases[@]}; i++)); do
		c=${bases[i]}
		mkdir -p "$work/o-$c"
		cp -a "$prev_old/." "$work/o-$c/"
		if [ -f "$LWNFS_TOP/deltas/$c.diff" ] &&
			! patch -s -d "$work/o-$c" -p1 -F0 --no-backup-if-mismatch <"$LWNFS_TOP/deltas/$c.diff" >&2; then
			echo "$c"
			return
		fi
		cp -a "$work/o-$c" "$work/n-$c"
		if ! carry_edits "$prev_old" "$prev_new" "$work/n-$c" "$prev" "$c" >&2; then
			while IFS= read -r f; do
				e=$(diff -u --label "a/$f" --label "b/$f" "$prev_old/$f" "$prev_new/$f" || true)
				[ -n "$e" ] || continue
				! patch -s -p1 -F0 --dry-run -d "$work/o-$c" <<<"$e" >/dev/null 2>&1 || continue
				echo ">> $c: the change to $f does not fit deltas/$c.diff; its hunks, and where they fail:" >&2
				patch -p1 -F0 --dry-run -d "$work/o-$c" <<<"$e" | grep -i 'hunk\|fail' | sed 's/^/   /' >&2 || true
				printf '%s\n' "$e" | sed 's/^/   | /' >&2
			done < <(cd "$prev_new" && find . -type f | sed 's|^\./||' | sort)
			echo "$c"
			return
		fi
		diff_tree "$prev_new" "$work/n-$c" "$LWNFS_TOP/deltas/$c.diff"
		prev_old=$work/o-$c prev_new=$work/n-$c prev=$c
	done
}

if [ "$base" = "$newest" ]; then
	import_newest
else
	import_older
fi
unfit=$(carry_down)

# patches/ for every base, without the trees (split/hooks/); the edited
# base's must come out as the branch.
failed=()
for b in "${bases[@]}"; do
	if ! "$LWNFS_TOP/scripts/gen-patches.sh" "$b" >"$work/gen-$b.log" 2>&1 ||
		! "$LWNFS_TOP/scripts/gen-module.sh" "$b" >>"$work/gen-$b.log" 2>&1; then
		[ "$b" != "$base" ] || { cat "$work/gen-$b.log"; restore "the edited series does not generate; nothing imported"; }
		failed+=("$b")
	fi
done
# and once more on the edited base's tree, to hold it beside the branch
"$LWNFS_TOP/scripts/gen-patches.sh" --tree -o "$work/on-tree" "$base" >>"$work/gen-$base.log" 2>&1 ||
	{ cat "$work/gen-$base.log"; restore "the edited series does not generate on $base's tree; nothing imported"; }
diff -r "$work/on-tree/$base" "$LWNFS_TOP/patches/$base" >&2 ||
	restore "$base's series made on its tree (-) differs from the one made from split/hooks/$base.hooks (+); capture it again first: make capture BASE=$base"
"$LWNFS_TOP/scripts/gen-yocto.sh" >/dev/null
tip=$(git rev-parse HEAD)
got=$(git -C "$(tree_dir "$base")" rev-parse refs/lwnfs/series)
for ((k = 0; k < n; k++)); do
	paths=("${EDIT_SOURCES[@]}")
	for f in "${EDIT_HOOKS[@]}"; do paths+=("${f#*:}"); done
	git diff --quiet "$got~$k" "$tip~$k" -- "${paths[@]}" 2>/dev/null && continue
	git diff "$got~$k" "$tip~$k" -- "${paths[@]}" | head -n 40 || true
	if [ "$base" != "$newest" ] && [ "$k" -gt 0 ] && [ "${LWNFS_ACCEPT_CUT:-0}" = 1 ]; then
		echo ">> accepted (LWNFS_ACCEPT_CUT=1): patch $((n - k)) of $base comes out as above (generated -> branch)"
	elif [ "$base" != "$newest" ] && [ "$k" -gt 0 ]; then
		# an older base's series is its final sources cut as the newest's
		restore "patch $((n - k)) of $base does not come out as the branch has it (above: generated -> branch):
  an older base's patches are its final sources cut as the newest base's are, so a change that only one
  patch of it has in another place is lost; nothing imported. If that is meant, import with LWNFS_ACCEPT_CUT=1"
	else
		restore "patch $((n - k)) does not come out of the import as the branch has it (above: generated -> branch);
  a tree hook's text lives in configs/hooks.conf (and the files it names), not in the tree; nothing imported"
	fi
done
done=1
# the branch is kept as a ref until the next import of the base
git -C "$(tree_dir "$base")" update-ref "refs/lwnfs/imported/$base" "$tip"
git -C "$(tree_dir "$base")" worktree remove --force "$dir"
git -C "$(tree_dir "$base")" branch -q -D "$branch"
info "imported the edit of $base (its branch is kept as refs/lwnfs/imported/$base); patches/ regenerated"
# a delta applies on top of the newer bases' ones: the first base that
# fails stops the older ones
if [ ${#failed[@]} -gt 0 ]; then
	b=${failed[0]}
	sed 's/^/  | /' "$work/gen-$b.log"
	hunks=''
	[ -z "$unfit" ] || hunks="; the change's hunks further up"
	if grep -q "deltas/$b.diff does not apply" "$work/gen-$b.log"; then
		echo "$b: deltas/$b.diff does not fit the change (above$hunks); fix it there: make edit BASE=$b"
	else
		echo "$b: its series was not generated (above)"
	fi
	[ ${#failed[@]} -eq 1 ] || echo "${failed[*]:1}: not generated until $b's delta is fixed"
	exit 1
fi
