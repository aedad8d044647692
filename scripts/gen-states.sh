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

# make_states DIR BASE [FINAL]: DIR/1 .. DIR/N, the sources after each
# patch, for BASE (or from the final sources in FINAL). DIR/N is the final
# state; each earlier one drops the files its successor adds and
# reverse-applies that patch's split diff.
make_states() {
	local dir=$1 n=${#PATCHES[@]} k p f
	if [ -n "${3:-}" ]; then
		mkdir -p "$dir"
		cp -a "$3" "$dir/$n"
	else
		stage_final "$dir/$n" "$2"
	fi
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

# merge_states DIR FINAL: turn the newest base's states in DIR into an older
# base's, whose final sources are FINAL, by a three-way merge of each file:
# the split (newest final -> state) and the base delta (newest final ->
# FINAL) touch different lines, so they combine without either knowing of
# the other. scripts/resolve-merge.py --states makes the merges, and
# resolves a conflict where the state's side is empty (a base delta changing
# lines that a later patch adds) or where the two sides change lines next to
# each other; any other conflict fails. The merge is asked for diff3 output
# (with the base's side): without it, git trims lines common to both sides
# off a conflict, and a state's empty side can come out holding a line or
# two that the merge moved there.
merge_states() {
	local dir=$1 final=$2 n=${#PATCHES[@]}
	python3 "$LWNFS_TOP/scripts/resolve-merge.py" --states "$dir" "$final" "$n" || exit 1
	# the last state is the older base's final sources themselves
	rm -rf "${dir:?}/$n"
	cp -a "$final" "$dir/$n"
}

# series_final DIR: the final sources as the newest base's series in
# patches/ has them: its patches applied to an empty directory, less the
# tree hooks' files.
series_final() {
	local dir=$1 newest f excl=()
	newest=$(newest_base)
	[ -s "$LWNFS_TOP/patches/$newest/series" ] ||
		die "split/*.diff does not fit the sources, and there is no patches/$newest/ to tell which patch wrote the lines that changed"
	for f in $(all_hooks); do
		excl+=("--exclude=$(hook_path "$f")")
	done
	mkdir -p "$dir"
	while IFS= read -r f; do
		(cd "$dir" && git apply "${excl[@]}" "$LWNFS_TOP/patches/$newest/$f") ||
			die "patches/$newest/$f does not apply on the ones before it"
	done <"$LWNFS_TOP/patches/$newest/series"
}

# states_by SPLITDIR DIR BASE: make_states DIR BASE with the split diffs
# of SPLITDIR.
states_by() {
	local SPLIT=$1
	make_states "$2" "$3"
}

# absorb_edit: when the split diffs do not fit the final sources (an edit
# of lines that a later patch wrote), place the edit in the patches that
# wrote those lines (scripts/absorb.py): from the states of the series
# that patches/ holds for the newest base to those of the edited sources,
# and write their split diffs again.
absorb_edit() {
	local newest n=${#PATCHES[@]} k p f a=$work/absorb diffs=()
	newest=$(newest_base)
	if (make_states "$a/try" "$newest") >/dev/null 2>&1; then
		rm -rf "$a"
		return 0
	fi
	info "split/*.diff does not fit the sources: placing the edit in the patches that wrote its lines"
	series_final "$a/final"
	(make_states "$a/old" "$newest" "$a/final") ||
		die "split/ changed since patches/$newest was made, and so did the sources; make one change at a time, or: make edit"
	stage_final "$a/new" "$newest"
	for ((k = 1; k <= n; k++)); do
		p=${PATCHES[k - 1]}
		for f in $(patch_adds "$p"); do
			case "$f" in hook:*) ;; *) printf '%s\t%s\n' "$f" "$k" ;; esac
		done
		if [ -f "$SPLIT/$p.diff" ]; then diffs+=("$SPLIT/$p.diff"); else diffs+=(-); fi
	done >"$a/adds"
	python3 "$LWNFS_TOP/scripts/absorb.py" "$a/old" "$a/new" "$a/placed" "$a/adds" "${diffs[@]}" |
		while IFS= read -r f; do
			k=${f##* }
			echo ">> ${f% -> patch *} -> ${PATCHES[k - 1]}"
		done
	# the new split diffs, checked in a copy of split/ before they go in
	cp -a "$SPLIT" "$a/split"
	for ((k = 2; k <= n; k++)); do
		diff_tree "$a/placed/$((k - 1))" "$a/placed/$k" "$a/split/${PATCHES[k - 1]}.diff"
	done
	states_by "$a/split" "$a/check" "$newest"
	for ((k = 1; k <= n; k++)); do
		diff -r "$a/placed/$k" "$a/check/$k" >/dev/null ||
			die "the placed edit does not give state $k again (scripts/absorb.py); split/ is as it was"
	done
	for ((k = 2; k <= n; k++)); do
		p=${PATCHES[k - 1]}
		if [ -f "$a/split/$p.diff" ]; then cp "$a/split/$p.diff" "$SPLIT/$p.diff"; else rm -f "$SPLIT/$p.diff"; fi
	done
	rm -rf "$a"
}
