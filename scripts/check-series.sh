#!/usr/bin/env bash
# Check patches/BASE/ against the sources without the base's kernel tree,
# in its own way, beside the generation that scripts/check-sync.sh compares
# (which comes from the captured hook sections). It checks that:
#  - series names exactly the directory's *.patch files, each once, in
#    order, and the directory holds nothing else but cover-letter.txt;
#  - patch k of N has the generator's From line, author and date, the
#    Subject "[PATCH k/N] <split/<patch>.msg's first line>", that message
#    and a Signed-off-by, and a diffstat whose counts and summary are its
#    files' changed lines;
#  - applied in turn to an empty repository with exact context, less the
#    tree hooks' files, each patch leaves lwnfs's files exactly as the
#    generator's state after that patch for BASE, with the index lines and
#    modes of those states; in each hook file it adds exactly the lines the
#    hook's code adds in that patch (the text, after a context line that
#    matches its anchor; the MAINTAINERS entry and its F: lines), and
#    removes none;
#  - the cover letter is split/cover-letter.msg filled for BASE (naming the
#    tree it was made for) and lists the N subjects in order;
#  - Buildroot's external tree and meta-lwnfs pick the series for a kernel
#    of the base's version.
# What it cannot check without the tree: the hooks' other context lines and
# their line numbers, the hook files' index lines (but their mode), anything
# after the last hunk that git apply ignores, and that the series applies
# to the tree.
#
# usage: scripts/check-series.sh BASE [DIR]   (DIR: another copy of patches/BASE)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE [DIR]}
check_base "$base"
dir=${2:-$LWNFS_TOP/patches/$base}
[ -d "$dir" ] || die "no directory $dir"
SPLIT=$LWNFS_TOP/split
mapfile -t PATCHES < <(conf_rows "$SPLIT/patches.conf" | awk '{ print $1 }')
n=${#PATCHES[@]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
fail() {
	echo "patches/$base: $*"
	bad=1
}

# the patch each hook is added in
declare -A hook_patch=()
for ((k = 1; k <= n; k++)); do
	for f in $(conf_rows "$SPLIT/patches.conf" | awk -v p="${PATCHES[k - 1]}" '$1 == p { for (i = 2; i <= NF; i++) print $i }'); do
		case "$f" in hook:*) hook_patch[${f#hook:}]=$k ;; esac
	done
done
# the hooks' own code gives the lines each one adds (no tree needed for
# that), and HOOK_PATH, the file of each
post=''
# shellcheck source=scripts/gen-hooks.sh
. "$LWNFS_TOP/scripts/gen-hooks.sh"

# hook_adds HOOK K: the lines hook HOOK adds in patch K, in order: its
# text in the patch that adds it; for MAINTAINERS, the entry there (and the
# blank line after it), then the F: lines of the files each later patch adds
hook_adds() {
	local h=$1 k=$2 first=${hook_patch[$1]:-0}
	[ "$k" -ge "$first" ] || return 0
	if [ "$h" = maintainers ]; then
		if [ "$k" = "$first" ]; then
			maintainers_entry "$work/states/$k" && echo
		else
			{ diff <(maintainers_entry "$work/states/$((k - 1))") <(maintainers_entry "$work/states/$k") || true; } |
				sed -n 's/^> //p'
		fi
	elif [ "$k" = "$first" ]; then
		hook_text "$h"
	fi
}

# stat_check STAT NUMSTAT: whether each line of a diffstat (STAT) gives the
# count of changed lines that NUMSTAT ("added<TAB>deleted<TAB>path" lines)
# has for the file whose path ends with its name (git shortens long paths
# to ".../<tail>"), and names each file once
stat_check() {
	awk -F'\t' 'NR == FNR { c[$3] = $1 + $2; next }
		{ name = $1; sub(/^ +/, "", name); sub(/ +\|.*/, "", name); sub(/^\.\.\.\//, "", name)
		  cnt = $1; sub(/.*\| +/, "", cnt); sub(/ .*/, "", cnt); hit = 0
		  for (f in c) if (f == name || substr(f, length(f) - length(name)) == "/" name) { hit++; got = f }
		  if (hit != 1 || c[got] != cnt || seen[got]++) bad = 1; n++ }
		END { for (f in c) m++; exit bad || n != m }' "$2" "$1"
}

# contiguous BLOCK FILE: whether FILE's lines hold BLOCK's lines as one run
contiguous() {
	awk 'NR == FNR { b[++nb] = $0; next } { l[++nl] = $0 }
		END { for (i = 1; i + nb - 1 <= nl; i++) { for (j = 1; j <= nb && l[i + j - 1] == b[j]; j++) ; if (j > nb) exit 0 } exit 1 }' "$1" "$2"
}

# section FILE PATCH: the lines of FILE's diff section in PATCH, from its
# first hunk
section() {
	awk -v f="$1" '/^diff --git / { in_f = ($3 == "a/" f); h = 0; next } in_f && /^@@ / { h = 1 } in_f && h' "$2"
}

# 1. the series file and the directory
mapfile -t listed <"$dir/series"
(cd "$dir" && ls -- *.patch 2>/dev/null) >"$work/present" || true
printf '%s\n' "${listed[@]}" | diff -u "$work/present" - >"$work/d" ||
	fail "series does not list exactly the *.patch files, in order: $(grep '^[-+][^-+]' "$work/d" | tr '\n' ' ')"
[ "${#listed[@]}" -eq "$n" ] || fail "series lists ${#listed[@]} patches, split/patches.conf has $n"
extra=$(find "$dir" -mindepth 1 -maxdepth 1 ! -name series ! -name cover-letter.txt ! -name '*.patch' -printf '%f ')
[ -z "$extra" ] || fail "files that are neither patches nor the cover letter: $extra"
[ $bad = 0 ] || exit 1

# the generator's states for this base, and its cover letter's text
"$LWNFS_TOP/scripts/gen-patches.sh" --states "$work/states" "$base" >/dev/null
mapfile -t hook_paths < <(printf '%s\n' "${HOOK_PATH[@]}" | sort -u)
excludes=()
declare -A hook_paths_set=()
for h in "${hook_paths[@]}"; do excludes+=(--exclude="$h") && hook_paths_set[$h]=1; done

git init -q "$work/r"
: >"$work/allnum"
for ((k = 1; k <= n; k++)); do
	p=$dir/${listed[k - 1]}
	msg=$SPLIT/${PATCHES[k - 1]}.msg
	# 2. the headers, the message and the diffstat
	[ "$(head -n 3 "$p")" = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: $LWNFS_IDENT_NAME <$LWNFS_IDENT_EMAIL>
Date: $(date -u -d "$LWNFS_DATE" '+%a, %-d %b %Y %T +0000')" ] ||
		fail "${listed[k - 1]}: its From line, author or date is not the generator's"
	awk 'NR > 3 && /^$/ { exit } NR > 3 && !/^Subject: / && !/^ / { bad = 1 } END { exit bad }' "$p" ||
		fail "${listed[k - 1]}: has mail headers besides From, Date and Subject"
	awk '/^---$/ { s = 1; next } /^diff --git / { exit } s && !/^$/ && !/ \| / && !/^ [0-9]+ files? changed/ && !/^ create mode / { bad = 1 }
		END { exit bad }' "$p" ||
		fail "${listed[k - 1]}: has other lines than its diffstat between --- and the first diff"
	! grep -qE '^(old mode|new mode|deleted file mode|similarity index|dissimilarity index|rename from|rename to|copy from|copy to) ' "$p" ||
		fail "${listed[k - 1]}: changes a mode, deletes, renames or copies a file, which the series never does"
	git mailinfo "$work/body" "$work/diff" <"$p" >"$work/info" || fail "${listed[k - 1]}: git mailinfo cannot parse it"
	{ grep -q "^Subject: \[PATCH $k/$n\] " "$p" && grep -qxF "Subject: $(head -n 1 "$msg")" "$work/info"; } ||
		fail "${listed[k - 1]}: its Subject is not [PATCH $k/$n] and split/${PATCHES[k - 1]}.msg's first line"
	{ tail -n +3 "$msg"; echo; echo "Signed-off-by: $LWNFS_IDENT_NAME <$LWNFS_IDENT_EMAIL>"; } >"$work/want"
	diff -u "$work/want" "$work/body" >"$work/d" ||
		fail "${listed[k - 1]}: its message is not split/${PATCHES[k - 1]}.msg with the Signed-off-by: $(grep '^[-+][^-+]' "$work/d" | head -n 3 | tr '\n' ' ')"
	sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$p" | sort >"$work/files"
	git apply --numstat "$p" >"$work/num" || fail "${listed[k - 1]}: git apply cannot parse it"
	cut -f3 "$work/num" | sort >"$work/numstat"
	diff -q "$work/files" "$work/numstat" >/dev/null || fail "${listed[k - 1]}: git apply reads other files in it than its diff --git lines name"
	# the diffstat (between the --- line and the first diff): a line per
	# changed file, with its count of changed lines, and the summary
	awk '/^---$/ { s = 1; next } /^diff --git / { exit } s && / \| / { print $3 }' "$p" >"$work/stat"
	awk '/^---$/ { s = 1; next } /^diff --git / { exit } s && / \| /' "$p" >"$work/statlines"
	cat "$work/num" >>"$work/allnum"
	stat_check "$work/statlines" "$work/num" ||
		fail "${listed[k - 1]}: its diffstat does not give each changed file its count of changed lines"
	awk '{ a += $1; d += $2; n++ } END { print n, a, d }' "$work/num" >"$work/sum"
	read -r nf na nd <"$work/sum"
	summary=" $nf file$([ "$nf" = 1 ] || echo s) changed"
	[ "$na" = 0 ] || summary="$summary, $na insertion$([ "$na" = 1 ] || echo s)(+)"
	[ "$nd" = 0 ] || summary="$summary, $nd deletion$([ "$nd" = 1 ] || echo s)(-)"
	grep -qxF "$summary" "$p" || fail "${listed[k - 1]}: its diffstat's summary is not '$summary'"
	# 3. lwnfs's files, exactly, and the hooks
	git -C "$work/r" apply "${excludes[@]}" "$p" 2>"$work/err" ||
		fail "${listed[k - 1]}: does not apply in turn (less the hooks): $(head -n 2 "$work/err" | tr '\n' ' ')"
	diff -r -x .git "$work/states/$k" "$work/r" >"$work/d" ||
		fail "${listed[k - 1]}: lwnfs's files after it differ from the sources' (make patches): $(head -n 4 "$work/d" | tr '\n' ' ')"
	for h in "${!HOOK_PATH[@]}"; do
		path=${HOOK_PATH[$h]}
		section "$path" "$p" >"$work/sec"
		hook_adds "$h" "$k" >"$work/exp"
		sed -n 's/^+//p' "$work/sec" >"$work/got"
		# (diff may put the MAINTAINERS entry's blank line before it or after,
		# but the new file must have the hook's text as one block)
		if ! diff -q <(grep -v '^$' "$work/exp") <(grep -v '^$' "$work/got") >/dev/null ||
			[ "$(grep -c '^$' "$work/exp")" != "$(grep -c '^$' "$work/got")" ]; then
			fail "${listed[k - 1]}: adds to $path other lines than the hook $h does: $(diff "$work/exp" "$work/got" | grep '^[<>]' | head -n 2 | tr '\n' ' ')"
		elif [ "$k" = "${hook_patch[$h]:-0}" ] && ! contiguous "$work/exp" <(sed -n 's/^[ +]//p' "$work/sec"); then
			fail "${listed[k - 1]}: the hook $h's text is not one block in $path"
		fi
		! grep -q "^diff --git a/$path " "$p" ||
			awk -v f="$path" '/^diff --git / { in_f = ($3 == "a/" f) } in_f && /^index / { exit ($3 != "100644") }' "$p" ||
			fail "${listed[k - 1]}: $path's index line does not keep mode 100644"
		! grep -q '^-' "$work/sec" || fail "${listed[k - 1]}: removes lines of $path, which a hook never does"
		# the text goes right after its anchor line
		if [ "$h" != maintainers ] && [ -s "$work/exp" ] &&
			! RE="$(hook_anchor "$h" "$base" | sed 's/^\^//')" awk '/^\+/ { exit !found } /^ / { found = ($0 ~ ("^ " ENVIRON["RE"])) }' "$work/sec"; then
			fail "${listed[k - 1]}: the hook $h does not come right after its anchor in $path"
		fi
	done
	# the index lines and modes of lwnfs's own files
	while IFS=$'\t' read -r f idx mode; do
		[ -z "${hook_paths_set[$f]:-}" ] || continue
		new=$(git hash-object "$work/states/$k/$f" | cut -c1-12)
		if [ -f "$work/states/$((k - 1))/$f" ] && [ "$k" -gt 1 ]; then
			old=$(git hash-object "$work/states/$((k - 1))/$f" | cut -c1-12)
		else
			old=000000000000
		fi
		want="$old..$new"
		[ "$old" = 000000000000 ] || want="$want $(file_mode "$work/states/$k/$f")"
		[ "$old" != 000000000000 ] || [ "$mode" = "$(file_mode "$work/states/$k/$f")" ] ||
			fail "${listed[k - 1]}: $f is created with mode $mode, the sources' is $(file_mode "$work/states/$k/$f")"
		[ "$idx" = "$want" ] || fail "${listed[k - 1]}: $f's index line is '$idx', the sources give '$want'"
	done < <(awk '/^diff --git / { if (f != "") print f "\t" idx "\t" mode; f = substr($3, 3); idx = ""; mode = "" }
		/^new file mode / { mode = $4 } /^index / { idx = $2 (NF > 2 ? " " $3 : "") }
		END { if (f != "") print f "\t" idx "\t" mode }' "$p")
done

# 4. the cover letter
cover=$dir/cover-letter.txt
if [ ! -f "$cover" ]; then
	fail "no cover-letter.txt"
else
	{ grep -q "^Subject: \[PATCH 0/$n\] " "$cover" && git mailinfo /dev/null /dev/null <"$cover" |
		grep -qxF "Subject: $(head -n 1 "$work/states/cover.msg")"; } ||
		fail "cover-letter.txt: its Subject is not [PATCH 0/$n] and split/cover-letter.msg's first line"
	# its text: after the headers' blank line, up to the shortlog
	awk 'NR > 1 && !body && /^$/ { body = 1; next } body && /^[^ ].* \([0-9]+\):$/ { exit } body' "$cover" >"$work/text"
	{ tail -n +3 "$work/states/cover.msg"; echo; } | diff -u - "$work/text" >"$work/d" ||
		fail "cover-letter.txt: its text is not split/cover-letter.msg filled for $base: $(grep '^[-+][^-+]' "$work/d" | head -n 3 | tr '\n' ' ')"
	if [ "$(base_source "$base")" = git ]; then
		grep -qF "$(base_field "$base" commit)" "$cover" || fail "cover-letter.txt: does not name the commit it was made on"
	fi
	# its diffstat: each file's lines, all added (the patches' net counts)
	awk -F'\t' '{ c[$3] += $1 - $2 } END { for (f in c) print c[f] "\t0\t" f }' "$work/allnum" >"$work/net"
	awk '/^[^ ].* \([0-9]+\):$/ { s = 1 } s && / \| /' "$cover" >"$work/statlines"
	stat_check "$work/statlines" "$work/net" ||
		fail "cover-letter.txt: its diffstat does not give each file the lines the series adds"
	read -r nf na < <(awk -F'\t' '{ n++; a += $1 } END { print n, a }' "$work/net")
	grep -qxF " $nf files changed, $na insertions(+)" "$cover" ||
		fail "cover-letter.txt: its diffstat's summary is not ' $nf files changed, $na insertions(+)'"
	grep -qxF "$LWNFS_IDENT_NAME ($n):" "$cover" || fail "cover-letter.txt: its shortlog does not count $n patches"
	for ((k = 1; k <= n; k++)); do
		echo "  $(head -n 1 "$SPLIT/${PATCHES[k - 1]}.msg")"
	done >"$work/short"
	awk '/^[^ ].* \([0-9]+\):$/ { s = 1; next } s && /^$/ { exit } s' "$cover" | diff -u "$work/short" - >/dev/null ||
		fail "cover-letter.txt: its shortlog is not the $n subjects in order"
fi
# 5. Buildroot's external tree and meta-lwnfs pick this series for a
# kernel of the base's version (the consumers stage runs them on the tree)
mkdir -p "$work/k"
IFS=. read -r v p s <<<"$(base_field "$base" version)"
printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n' "$v" "$p" "${s%%[!0-9]*}" >"$work/k/Makefile"
[ "$(sh "$LWNFS_TOP/contrib/buildroot/lwnfs-line.sh" "$work/k" "$LWNFS_TOP/patches")" = "$LWNFS_TOP/patches/$base" ] ||
	fail "contrib/buildroot/lwnfs-line.sh does not pick patches/$base for Linux $v.$p"
{ [ -f "$LWNFS_TOP/$KMETA/features/lwnfs/lwnfs-v$v.$p.scc" ] && [ "v$v.$p" = "$base" ]; } ||
	fail "meta-lwnfs has no features/lwnfs/lwnfs-v$v.$p.scc for Linux $v.$p"
[ $bad = 0 ] || die "patches/$base does not match the sources (above); run: make patches"
info "patches/$base: $n patches, their lwnfs files, hooks, messages and cover letter match the sources (checked without a tree)"
