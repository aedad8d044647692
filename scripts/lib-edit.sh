# shellcheck shell=bash
# Helpers of make edit and make import (scripts/edit.sh, scripts/import.sh).
# Source it after scripts/lib.sh.

# The paths of the kernel tree that the hand-edited sources are, and the
# tree hooks as HOOK:FILE (configs/hooks.conf).
EDIT_SOURCES=(fs/lwnfs tools/testing/selftests/filesystems/lwnfs Documentation/filesystems/lwnfs.rst)
mapfile -t EDIT_HOOKS < <(all_hooks | while IFS= read -r h; do echo "$h:$(hook_field "$h" file)"; done)

# edit_dir BASE: where make edit puts BASE's work tree.
edit_dir() {
	echo "${LWNFS_EDIT_DIR:-$LWNFS_CACHE/edit}/$1"
}

# edit_branch BASE: the branch that holds the edited series.
edit_branch() {
	echo "lwnfs-edit/$1"
}

# edit_stamp BASE: what make edit started from (base, sources, start).
edit_stamp() {
	echo "$(git -C "$(edit_dir "$1")" rev-parse --absolute-git-dir)/lwnfs-edit"
}

# export_sources COMMIT DIR: the sources' files as COMMIT of the edit's
# repository (the current directory) has them, kernel-relative, in DIR.
export_sources() {
	local files
	mkdir -p "$2"
	mapfile -t files < <(git ls-tree -r --name-only "$1" -- "${EDIT_SOURCES[@]}")
	[ ${#files[@]} -eq 0 ] || git archive "$1" -- "${files[@]}" | tar -x -C "$2"
}

# outside_sources COMMIT: the files COMMIT changes that are neither the
# sources nor a hooked file.
outside_sources() {
	local f h s ok
	git diff-tree --no-commit-id --name-only -r "$1" | while IFS= read -r f; do
		ok=0
		for s in "${EDIT_SOURCES[@]}"; do
			[ "$f" != "$s" ] && [[ "$f" != "$s"/* ]] || ok=1
		done
		for h in "${EDIT_HOOKS[@]}"; do
			[ "$f" != "${h#*:}" ] || ok=1
		done
		[ $ok = 1 ] || echo "$f"
	done
}

# hooks_from BASE_REF COMMIT: the hooks whose file COMMIT changes from
# BASE_REF.
hooks_from() {
	local h
	for h in "${EDIT_HOOKS[@]}"; do
		git diff --quiet "$1" "$2" -- "${h#*:}" || echo "hook:${h%%:*}"
	done
}

# message_of COMMIT: its message without the generator's Signed-off-by.
message_of() {
	git log -1 --format=%B "$1" |
		grep -vxF "Signed-off-by: $LWNFS_IDENT_NAME <$LWNFS_IDENT_EMAIL>" |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# slug SUBJECT: a patch name's words from its subject.
slug() {
	sed -e 's/^lwnfs: *//' -e 's/[^A-Za-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//' <<<"$1" |
		tr '[:upper:]' '[:lower:]' | cut -d- -f1-3 | sed 's/^/lwnfs-/'
}
