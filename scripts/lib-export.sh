# shellcheck shell=bash
# lwnfs scripts: the sources exported as directories, and taken back.
# scripts/lib.sh sources it; nothing else should.

# diff_tree FROM TO OUT: the unified diff, kernel-relative a/ b/ paths, of
# every file of FROM that TO also has; OUT is removed when there is none.
diff_tree() {
	local from=$1 to=$2 out=$3 f
	: >"$out.new"
	while IFS= read -r f; do
		[ -f "$to/$f" ] || continue
		diff -u --label "a/$f" --label "b/$f" "$from/$f" "$to/$f" >>"$out.new" || true
	done < <(cd "$from" && find . -type f ! -name .lwnfs-export | sed 's|^\./||' | sort)
	if [ -s "$out.new" ]; then
		mv "$out.new" "$out"
	else
		rm -f "$out.new" "$out"
	fi
}

# sources_hash: a hash of every hand-edited input of the generator, written
# into an export (gen-patches.sh --states/--finals) so that its import can
# refuse an export made from other sources.
sources_hash() {
	(cd "$LWNFS_TOP" && find fs-lwnfs selftests-lwnfs Documentation split deltas Kconfig.snippet bases.conf configs/hooks.conf \
		-type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# check_export DIR KIND: refuse an export (gen-patches.sh --states or
# --finals) that is not of KIND, or was made from other sources than the
# current ones: importing it would silently undo whatever changed since.
check_export() {
	local f=$1/.lwnfs-export
	[ -f "$f" ] || die "$1 is not an export; make one with: scripts/gen-patches.sh --$2 NEWDIR"
	[ "$(stamp_get "$f" kind)" = "$2" ] ||
		die "$1 is a --$(stamp_get "$f" kind) export; this import takes a --$2 one"
	[ "$(stamp_get "$f" sources)" = "$(sources_hash)" ] ||
		die "$1 was exported from other sources than the current ones (they changed since);
  export again (scripts/gen-patches.sh --$2 NEWDIR) and make the edit there"
}

# carry_edits OLD NEW NEXT FROM TO: the edits that turned directory OLD into
# NEW (an exported state or final, and the user's version of it) must also
# be in NEXT (the next state, or the next older base), or they would be
# undone there. Each edit NEXT lacks is carried into it when it applies
# cleanly, and named; one that does not apply fails, unless
# LWNFS_ACCEPT=1 says the difference is meant.
carry_edits() {
	local old=$1 new=$2 next=$3 from=$4 to=$5 f edit bad=0
	edit=$(mktemp)
	while IFS= read -r f; do
		if [ ! -f "$old/$f" ]; then
			# a file new in FROM
			if [ ! -f "$next/$f" ]; then
				mkdir -p "$(dirname "$next/$f")"
				cp -p "$new/$f" "$next/$f"
				echo "carried: the new file $f in $from into $to"
			fi
			continue
		fi
		[ -f "$next/$f" ] || continue
		diff -u --label "a/$f" --label "b/$f" "$old/$f" "$new/$f" >"$edit" && continue
		if patch -s -R -p1 -F0 --dry-run -d "$next" <"$edit" >/dev/null 2>&1; then
			continue
		elif patch -s -p1 -F0 --dry-run -d "$next" <"$edit" >/dev/null 2>&1 &&
			patch -s -p1 -F0 --no-backup-if-mismatch -d "$next" <"$edit" >/dev/null 2>&1; then
			# (tried first: a failed patch leaves .rej files and half an edit)
			echo "carried: the edit of $f in $from into $to"
		elif [ "${LWNFS_ACCEPT:-0}" = 1 ]; then
			echo "accepted (LWNFS_ACCEPT=1): the edit of $f in $from is not in $to"
		else
			echo "error: the edit of $f in $from is not in $to and does not apply there; make it there too, or, if the difference is meant, import with LWNFS_ACCEPT=1" >&2
			bad=1
		fi
	done < <(cd "$new" && find . -type f ! -name .lwnfs-export | sed 's|^\./||' | sort)
	# a file deleted in FROM that TO still has
	while IFS= read -r f; do
		if [ ! -f "$new/$f" ] && [ -f "$next/$f" ]; then
			echo "error: $f was deleted in $from but $to still has it; delete it there too" >&2
			bad=1
		fi
	done < <(cd "$old" && find . -type f ! -name .lwnfs-export | sed 's|^\./||' | sort)
	rm -f "$edit"
	return $bad
}

# import_sources DIR: make the hand-edited sources what DIR (kernel-relative
# paths) holds.
import_sources() {
	rsync -a --delete "$1/fs/lwnfs/" "$LWNFS_TOP/fs-lwnfs/"
	rsync -a --delete "$1/tools/testing/selftests/filesystems/lwnfs/" "$LWNFS_TOP/selftests-lwnfs/"
	cp "$1/Documentation/filesystems/lwnfs.rst" "$LWNFS_TOP/Documentation/filesystems/lwnfs.rst"
}

# A script that does not touch the cache (lint) sets LWNFS_LOCK=no first.
