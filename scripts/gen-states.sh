# shellcheck shell=bash
# shellcheck disable=SC2154 # the variables are gen-patches.sh's
# scripts/gen-patches.sh: the sources after each patch, for each base.
# It sources this file; the functions use its $work, $SPLIT, $CONF,
# $SELFTESTS and PATCHES.

# check_claimed: every source file is added by some patch of the series,
# so that a new file does not land unnoticed in patch 1.
check_claimed() {
	local f unclaimed=()
	stage_final "$work/claimed" "$(newest_base)"
	while IFS= read -r f; do
		awk -v f="$f" '!/^#/ && NF { for (i = 2; i <= NF; i++) if ($i == f) ok = 1 } END { exit !ok }' "$CONF" ||
			unclaimed+=("$f")
	done < <(cd "$work/claimed" && find . -type f | sed 's|^\./||' | sort)
	rm -rf "$work/claimed"
	[ ${#unclaimed[@]} -eq 0 ] ||
		die "no patch in split/patches.conf adds: ${unclaimed[*]}; name each on the line of the patch that adds it"
}

# write_export DIR KIND: record what an export was made from.
write_export() {
	printf 'kind=%s\nsources=%s\n' "$2" "$(sources_hash)" >"$1/.lwnfs-export"
}

# stage_final DIR BASE: the sources as they are for BASE, kernel-relative.
stage_final() {
	local dir=$1 target=$2 b
	mkdir -p "$dir/fs/lwnfs" "$dir/Documentation/filesystems" "$dir/$SELFTESTS"
	cp -a "$LWNFS_TOP/fs-lwnfs/." "$dir/fs/lwnfs/"
	cp -a "$LWNFS_TOP/Documentation/filesystems/." "$dir/Documentation/filesystems/"
	cp -a "$LWNFS_TOP/selftests-lwnfs/." "$dir/$SELFTESTS/"
	for b in $(all_bases); do
		if [ -f "$LWNFS_TOP/deltas/$b.diff" ]; then
			patch -s -d "$dir" -p1 -F0 --no-backup-if-mismatch <"$LWNFS_TOP/deltas/$b.diff" ||
				die "deltas/$b.diff does not apply to the sources; update it for the change in fs-lwnfs/"
		fi
		[ "$b" = "$target" ] && return 0
	done
	die "base $target not in bases.conf"
}

# make_states DIR BASE: DIR/1 .. DIR/N, the sources after each patch, for
# BASE. DIR/N is the final state; each earlier one drops the files its
# successor adds and reverse-applies that patch's split diff.
make_states() {
	local dir=$1 n=${#PATCHES[@]} k p f
	stage_final "$dir/$n" "$2"
	for ((k = n; k > 1; k--)); do
		p=${PATCHES[k - 1]}
		cp -a "$dir/$k" "$dir/$((k - 1))"
		for f in $(patch_adds "$p"); do
			case "$f" in hook:*) ;; *) rm -f "$dir/$((k - 1))/$f" ;; esac
		done
		find "$dir/$((k - 1))" -type d -empty -delete
		if [ -f "$SPLIT/$p.diff" ]; then
			patch -s -R -d "$dir/$((k - 1))" -p1 -F0 --no-backup-if-mismatch <"$SPLIT/$p.diff" ||
				die "split/$p.diff does not reverse-apply; update it for the change in fs-lwnfs/"
		fi
	done
}

# resolve_removed: a merge result on stdin, resolved on stdout: a conflict
# where the state's side is empty (a base delta changing lines that a later
# patch adds) or where the two sides change lines next to each other
# (scripts/resolve-merge.py says how). Any other conflict fails.
# The merge is asked for diff3 output (with the base's side): without it,
# git trims lines common to both sides off a conflict, and a state's empty
# side can come out holding a line or two that the merge moved there.
resolve_removed() {
	python3 "$LWNFS_TOP/scripts/resolve-merge.py"
}

# merge_states DIR FINAL: turn the newest base's states in DIR into an older
# base's, whose final sources are FINAL, by a three-way merge of each file:
# the split (newest final -> state) and the base delta (newest final ->
# FINAL) touch different lines, so they combine without either knowing of
# the other.
merge_states() {
	local dir=$1 final=$2 n=${#PATCHES[@]} k f rc
	for ((k = 1; k <= n; k++)); do
		while IFS= read -r f; do
			[ -f "$final/$f" ] || continue
			# its status is the number of conflicts, or above 127 for an error
			rc=0
			git merge-file -q -p --diff3 --marker-size 32 "$dir/$k/$f" "$dir/$n/$f" "$final/$f" >"$work/merged" || rc=$?
			[ "$rc" -lt 128 ] || die "git merge-file failed on $f (state $k)"
			resolve_removed <"$work/merged" >"$dir/$k/$f" ||
				die "the base delta and split/ both change the lines of $f above (state $k); move one of them"
		done < <(cd "$dir/$k" && find . -type f | sed 's|^\./||')
	done
	# the last state is the older base's final sources themselves
	rm -rf "${dir:?}/$n"
	cp -a "$final" "$dir/$n"
}
