# shellcheck shell=bash
# shellcheck disable=SC2154 # the variables are gen-patches.sh's
# scripts/gen-patches.sh: the tree hooks of a patch (configs/hooks.conf).
# It sources this file; the functions use its $work and $post.

# insert_after ANCHOR_REGEX TEXT_FILE: copy stdin to stdout, inserting the
# text after the one line matching the anchor. Fails unless exactly one
# line matches, so a moved anchor is a loud error and not a misplaced hunk.
insert_after() {
	ANCHOR=$1 awk -v txt="$2" '
		BEGIN { re = ENVIRON["ANCHOR"] }
		{ print }
		$0 ~ re { n++; while ((getline l < txt) > 0) print l; close(txt) }
		END { if (n != 1) { print "anchor /" re "/ matched " n + 0 " lines" > "/dev/stderr"; exit 1 } }'
}

# insert_maintainers ENTRY_FILE: put the entry where it sorts among the
# MAINTAINERS sections: after the section whose title is the greatest one
# below the entry's title. (A section starts with its title line after a
# blank line, below the "Maintainers List" heading; a few titles are out of
# order, so the first greater title is not a safe place.)
insert_maintainers() {
	LC_ALL=C awk -v txt="$1" '
		BEGIN { getline title < txt; close(txt) }
		{ line[NR] = $0 }
		list && prev == "" && $0 ~ /^[0-9A-Z]/ && $0 < title && $0 > best { best = $0; at = NR }
		/^Maintainers List/ { list = 1 }
		{ prev = $0 }
		END {
			if (!at) { print "no place for the MAINTAINERS entry" > "/dev/stderr"; exit 1 }
			while (at <= NR && line[at] != "") at++
			for (i = 1; i <= NR; i++) {
				print line[i]
				if (i == at) { while ((getline l < txt) > 0) print l; close(txt); print "" }
			}
		}'
}

# HOOK_CONTEXT: the lines of context each hunk of a hook file keeps, before
# and after what it adds (git format-patch -U). Plain git am needs every
# context line to match, and the lines around a hook's anchor change from
# one kernel version to the next (a MAINTAINERS section added nearby, a
# new selftest target): the fewer a hunk keeps, the more versions its
# series applies to.
# shellcheck disable=SC2034 # (gen-patches.sh, which sources this file, uses it)
HOOK_CONTEXT=3
# (0 would need git apply --unidiff-zero, which git am does not pass)
[[ $HOOK_CONTEXT =~ ^[1-9][0-9]*$ ]] || die "HOOK_CONTEXT must be a number of lines, 1 or more"

# HOOK_PATH: the kernel file each hook changes, read once.
declare -A HOOK_PATH=()
while IFS=$'\t' read -r name path; do
	HOOK_PATH[$name]=$path
done < <(conf_rows "$CONFIGS/hooks.conf" | awk -F'\t+' -v OFS='\t' '$1 == "hook" { print $2, $3 }')

# the file of the MAINTAINERS entry
MAINTAINERS_ENTRY=$LWNFS_TOP/$(hook_field maintainers text | sed 's/^<//')

# hook_path HOOK: the kernel file a hook changes.
hook_path() {
	[ -n "${HOOK_PATH[$1]:-}" ] || die "no hook '$1' in configs/hooks.conf"
	echo "${HOOK_PATH[$1]}"
}

# hook_text HOOK: the lines a hook (other than maintainers) adds, from
# configs/hooks.conf: its text, or the file its "<" names.
hook_text() {
	local text
	text=$(hook_field "$1" text)
	case "$text" in
	"<"*) cat "$LWNFS_TOP/${text#<}" ;;
	*) printf '%b\n' "$text" ;;
	esac
}

# apply_hook HOOK STATE BASE: the base's file on stdin, the hooked file on
# stdout, with the hook's text from configs/hooks.conf.
apply_hook() {
	local txt=$work/hook.txt
	if [ "$1" = maintainers ]; then
		maintainers_entry "$2" >"$txt"
		insert_maintainers "$txt"
		return
	fi
	hook_text "$1" >"$txt"
	insert_after "$(hook_anchor "$1" "$3")" "$txt"
}

# maintainers_entry STATE: the entry (split/MAINTAINERS.entry, as
# configs/hooks.conf names it) with only the F: lines
# whose paths exist in STATE, so each patch that adds a path also adds it to
# the entry (and checkpatch sees MAINTAINERS updated with the new files).
maintainers_entry() {
	local line path
	while IFS= read -r line; do
		case "$line" in
		F:*)
			path=${line#F:}
			[ -e "$1/${path//[[:space:]]/}" ] || continue
			;;
		M:*) [ -z "$post" ] || line="M:	$LWNFS_IDENT_NAME <$LWNFS_IDENT_EMAIL>" ;;
		T:*) if [ -n "$post" ]; then
			[ -n "${LWNFS_POST_TREE:-}" ] || continue
			line="T:	git $LWNFS_POST_TREE"
		fi ;;
		esac
		printf '%s\n' "$line"
	done <"$MAINTAINERS_ENTRY"
}
