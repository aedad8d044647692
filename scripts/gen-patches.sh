#!/usr/bin/env bash
# Generate patches/<base>/ for each base (default: all) from the one source:
# fs-lwnfs/, selftests-lwnfs/, Documentation/, Kconfig.snippet, deltas/ and
# the series definition in split/. Output is deterministic: fixed identity
# and dates, zeroed From lines, no git version signature, no base-commit
# (it would name a local commit of an unpacked tarball), and none of the
# user's git settings (scripts/lib.sh). File modes come from the sources.
#
# usage: scripts/gen-patches.sh [--tree|--capture|--no-capture|--absorb] [-o OUTDIR] [BASE...]
#        scripts/gen-patches.sh --post -o OUTDIR BASE
#        scripts/gen-patches.sh --states DIR [BASE]
#        scripts/gen-patches.sh --finals DIR
#        scripts/gen-patches.sh --final BASE DIR
#   Without a kernel tree, from the hooks' sections kept in
#   split/hooks/<base>.hooks; when those are stale (another pin in
#   bases.conf, or other hook text) and the tree is here, they are captured
#   again first (--capture: always; --no-capture: never, it fails instead,
#   for the checks). --tree commits the series on the base's tree instead
#   (scripts/check-sync.sh holds the two side by side).
#   With --absorb (make patches), an edit of the final sources that
#   split/*.diff no longer fits is first placed in the patches that wrote
#   its lines (absorb_edit in scripts/gen-states.sh).
#   --states writes the newest base's sources after each patch to DIR/1..N
#   (kernel-relative paths), to edit them and take them back with
#   scripts/split-import.sh DIR; with BASE, that base's, and its cover
#   letter's text in DIR/cover.msg (for scripts/check-series.sh, which
#   needs no kernel tree).
#   --finals writes each base's final sources to DIR/<base>, to edit them and
#   take them back with scripts/delta-import.sh DIR.
#   --final writes one base's final sources to DIR (for scripts/import.sh).
#   Both record what they were made from in DIR/.lwnfs-export, and the
#   imports refuse an export made from other sources than the current ones.
#   --post writes the series for posting under LWNFS_IDENT_NAME and
#   LWNFS_IDENT_EMAIL (scripts/post.sh sets them): that identity is the
#   author, the Signed-off-by and the MAINTAINERS entry's M: line, whose T:
#   line is LWNFS_POST_TREE or is left out, and the cover letter is
#   0000-cover-letter.patch. Without it, each patches/<base>/ gets its
#   cover letter as cover-letter.txt, outside series and *.patch, so that
#   git am, quilt and Buildroot do not take it for a patch.
#
# How a base's series is built:
#  1. the final sources are staged with kernel-relative paths;
#  2. for an older base, the deltas (deltas/<base>.diff) are applied in
#     turn from the newest base down to the target, so a delta only says how
#     its base differs from the next newer one;
#  3. walking the series backwards from the newest base's final sources,
#     each patch's files are removed and its split/<patch>.diff is
#     reverse-applied, which gives the sources before that patch; for an
#     older base these states are three-way merged with its final sources;
#     A delta's added lines land in every state where their context fits,
#     so a delta adds lines only inside code its patch owns (a variable is
#     declared in its case block, not at the top of the function); the
#     bisect check (scripts/check-bisect.sh) catches a misplaced one;
#  4. each state is committed in a scratch repository holding lwnfs's
#     files and a stand-in for each tree hook's file that gains as many
#     lines in a patch as the hook adds there (so git's diffstat is the
#     tree's), git format-patch writes the series, and each hook file's
#     section is replaced by the one git wrote on the base's tree, kept in
#     split/hooks/<base>.hooks (scripts/hook-sections.py); a hook file's
#     section is written with HOOK_CONTEXT lines of context
#     (scripts/gen-hooks.sh), lwnfs's own files with three. With --tree
#     (and --capture, --post), each state is committed on the pristine base
#     tree itself, with the tree hooks of the patches so far.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=$LWNFS_TOP/patches
states_only='' finals_only='' final_one='' post='' use_tree='' recapture=''
if [ "${1:-}" = "--post" ]; then
	post=1
	shift
	if [ "${1:-}" != -o ] || [ -z "${2:-}" ] || [ $# -ne 3 ]; then
		die "usage: $0 --post -o OUTDIR BASE"
	fi
fi
no_capture='' absorb=''
case "${1:-}" in
--tree) use_tree=1 && shift ;;
--capture) recapture=1 && shift ;;
--no-capture) no_capture=1 && shift ;;
--absorb) absorb=1 && shift ;;
esac
if [ "${1:-}" = "--states" ]; then
	states_only=${2:?usage: $0 --states DIR [BASE]}
	shift 2
	[ $# -le 1 ] || die "usage: $0 --states DIR [BASE]"
elif [ "${1:-}" = "--finals" ]; then
	finals_only=${2:?usage: $0 --finals DIR}
	shift 2
elif [ "${1:-}" = "--final" ]; then
	final_one=${3:?usage: $0 --final BASE DIR}
	check_base "$2"
	set -- "$2"
	[ ! -e "$final_one" ] || die "$final_one exists; give a new directory"
elif [ "${1:-}" = "-o" ]; then
	out=$2
	shift 2
fi
if [ $# -eq 0 ]; then
	mapfile -t targets < <(all_bases)
else
	for b in "$@"; do
		check_base "$b"
	done
	targets=("$@")
fi

SPLIT=$LWNFS_TOP/split
SELFTESTS=tools/testing/selftests/filesystems/lwnfs
CONF=$SPLIT/patches.conf
SECTIONS=$LWNFS_TOP/scripts/hook-sections.py
mapfile -t PATCHES < <(awk '!/^#/ && NF { print $1 }' "$CONF")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# patch_adds NAME: the second and later fields of NAME's line.
patch_adds() {
	awk -v p="$1" '!/^#/ && $1 == p { for (i = 2; i <= NF; i++) if ($i != "-") print $i }' "$CONF"
}

# shellcheck source=scripts/gen-hooks.sh
. "$LWNFS_TOP/scripts/gen-hooks.sh"
# shellcheck source=scripts/gen-states.sh
. "$LWNFS_TOP/scripts/gen-states.sh"

# HOOKS_BY[K]: the hooks that patches 1 .. K add, in order (a leading space
# before each)
declare -A HOOKS_BY=()
hooks_so_far=''
for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
	for f in $(patch_adds "${PATCHES[k - 1]}"); do
		case "$f" in hook:*) hooks_so_far+=" ${f#hook:}" ;; esac
	done
	HOOKS_BY[$k]=$hooks_so_far
done

# fill_cover BASE STATE: split/cover-letter.msg with the base's facts
# filled in (its subject line, a blank line and its text), for the base
# whose final sources are STATE.
fill_cover() {
	local base=$1 kselftests src fill
	kselftests=$(grep -c '^TEST\(_F\)\?\(_TIMEOUT\)\?(' "$2/$SELFTESTS/lwnfs_test.c")
	# a line marked [debian] or [git] is for that kind of base only
	src=$(base_source "$base")
	if [ "$src" = git ]; then
		fill=(-e "s|@REPO@|$(base_field "$base" repo)|g" -e "s|@COMMIT@|$(base_field "$base" commit)|g")
	else
		fill=(-e "s|@PACKAGE@|$(base_field "$base" package)|g")
	fi
	sed -e "/^\[$src\]/s/^\[$src\]//" -e '/^\[[a-z]*\]/d' "${fill[@]}" -e "s|@BASE@|$base|g" \
		-e "s|@VERSION@|$(base_field "$base" version)|g" \
		-e "s|@KUNIT@|$(base_field "$base" kunit)|g" -e "s|@KSELFTEST@|$kselftests|g" \
		-e "s|@LWNFS_VERSION@|$(cat "$LWNFS_TOP/VERSION")|g" \
		"$SPLIT/cover-letter.msg" >"$work/cover.fill"
	! grep -n '@[A-Z]*@' "$work/cover.fill" >&2 || die "split/cover-letter.msg: a placeholder above has no value"
	cat "$work/cover.fill"
}

# cover_letter BASE TREE TIP: write the series' cover letter to $work/cover:
# the filled template after git's own cover letter headers, and followed by
# its shortlog and diffstat.
cover_letter() {
	local base=$1 tree=$2 tip=$3 tmpl
	tmpl=$work/cover.msg
	fill_cover "$base" "$work/state/${#PATCHES[@]}" >"$tmpl"
	rm -rf "$work/cl"
	format_patch "$tree" --cover-letter -o "$work/cl" "$BASE_TAG..$tip"
	SUBJECT=$(head -n 1 "$tmpl") BLURB=$(tail -n +3 "$tmpl") awk '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, ENVIRON["SUBJECT"]); s++ }
		/^\*\*\* BLURB HERE \*\*\*$/ { print ENVIRON["BLURB"]; b++; next }
		{ print }
		END { if (s != 1 || b != 1) exit 1 }' "$work/cl/0000-cover-letter.patch" >"$work/cover" ||
		die "git's cover letter has no SUBJECT or BLURB placeholder to fill"
}

# commit_series REPO: commit $work/state/1 .. N in turn on REPO's
# BASE_TAG, each with the tree hooks' files in $work/hooks/K (each named by
# its path with % for /), by scripts/commit-states.py; the last commit is
# $tip, and REPO's refs/lwnfs/series.
commit_series() {
	local repo=$1 k
	mkdir -p "$work/msg"
	for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
		{ cat "$SPLIT/${PATCHES[k - 1]}.msg"; echo; echo "Signed-off-by: $LWNFS_IDENT_NAME <$LWNFS_IDENT_EMAIL>"; } >"$work/msg/$k"
	done
	tip=$(python3 "$LWNFS_TOP/scripts/commit-states.py" "$(git -C "$repo" rev-parse --absolute-git-dir)" \
		"$(git -C "$repo" rev-parse "$BASE_TAG^{commit}")" "$work" "${#PATCHES[@]}" \
		"$LWNFS_IDENT_NAME" "$LWNFS_IDENT_EMAIL" "$(date -d "$LWNFS_DATE" +%s)")
	git -C "$repo" update-ref refs/lwnfs/series "$tip"
}

# hooks_tree: $work/hooks/K for the base's tree: the file of each hook
# added by patch K or before, as the hook changes the tree's.
hooks_tree() {
	local k f path
	rm -rf "$work/hooks"
	for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
		mkdir -p "$work/hooks/$k"
		for f in ${HOOKS_BY[$k]}; do
			path=$(hook_path "$f")
			git -C "$tree" show "$BASE_TAG:$path" | apply_hook "$f" "$work/state/$k" "$base" >"$work/hooks/$k/${path//\//%}" ||
				die "hook $f does not fit $base's $path"
		done
	done
}

# hooks_standin: $work/hooks/K for the scratch repository (and 0, its
# base): a stand-in for each hook's file, a line and one more for each
# line the hook's kept sections of patches 1 .. K add.
hooks_standin() {
	rm -rf "$work/hooks"
	seq 0 "${#PATCHES[@]}" | sed "s|^|$work/hooks/|" | xargs mkdir -p
	python3 "$SECTIONS" counts "$(hooks_file "$base")" |
		awk -F'\t' -v dir="$work/hooks" -v n="${#PATCHES[@]}" -v paths="$(printf '%s\n' "${HOOK_PATH[@]}")" '
			{ for (k = $1; k <= n; k++) for (i = 1; i <= $3; i++) add[k, $2] = add[k, $2] sprintf("patch %d, line %d\n", $1, i) }
			END {
				np = split(paths, p, "\n")
				for (k = 0; k <= n; k++)
					for (i = 1; i <= np; i++) {
						f = p[i]
						gsub("/", "%", f)
						printf "stand-in for %s\n%s", p[i], add[k, p[i]] > (dir "/" k "/" f)
						close(dir "/" k "/" f)
					}
			}'
}

# format_patch REPO ARGS...: git format-patch in REPO with the settings
# every patch of a series is written with
format_patch() {
	local repo=$1
	shift
	git_fixed -C "$repo" -c core.abbrev=12 -c diff.noprefix=false -c format.coverLetter=false \
		format-patch -q --zero-commit --no-signature --no-base --no-thread "$@"
}

# LWNFS_CONTEXT: the context lines of lwnfs's own files' sections, git's
# default
LWNFS_CONTEXT=3

# format_series REPO DIR: the series that ends at $tip in REPO, its
# series file and its cover letter in DIR.
format_series() {
	local repo=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	format_patch "$repo" -U"$LWNFS_CONTEXT" -o "$dir" "$BASE_TAG..$tip"
	# the hook files' sections, with HOOK_CONTEXT lines of context (a
	# second run only when that differs from lwnfs's own files')
	if [ "$HOOK_CONTEXT" != "$LWNFS_CONTEXT" ]; then
		rm -rf "$work/hook-context"
		format_patch "$repo" -U"$HOOK_CONTEXT" -o "$work/hook-context" "$BASE_TAG..$tip"
		python3 "$SECTIONS" graft "$work/hook-context" "$dir" "${HOOK_PATH[@]}"
	fi
	(cd "$dir" && ls -- *.patch) >"$dir/series"
	cover_letter "$base" "$repo" "$tip"
	if [ -n "$post" ]; then
		cp "$work/cover" "$dir/0000-cover-letter.patch"
	else
		cp "$work/cover" "$dir/cover-letter.txt"
	fi
}

# base_states BASE: $work/state/1 .. N, the sources after each patch on BASE.
base_states() {
	rm -rf "$work/state" "$work/final"
	# (the newest base's states, made once a run)
	[ -d "$work/newest-states" ] || make_states "$work/newest-states" "$(newest_base)"
	cp -a "$work/newest-states" "$work/state"
	if [ "$1" != "$(newest_base)" ]; then
		stage_final "$work/final" "$1"
		merge_states "$work/state" "$work/final"
	fi
}

# attr_pattern PATH: the gitattributes pattern the kernel's rules give a
# file by: its extension, or its name when it has none.
attr_pattern() {
	local name=${1##*/}
	case "$name" in
	?*.*) echo "*.${name##*.}" ;;
	*) echo "$name" ;;
	esac
}

# hook_key BASE: a hash of what the hooks add in each patch of BASE's
# series ($work/state), where, and which attribute patterns its files
# need: a kept capture is good for as long as it stays the same.
hook_key() {
	local k h
	for h in $(all_hooks); do
		echo "hook $h: $(hook_path "$h")"
		[ "$h" = maintainers ] || { hook_text "$h" && hook_anchor "$h" "$1"; }
	done
	for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
		echo "patch $k:${HOOKS_BY[$k]}"
		case "${HOOKS_BY[$k]} " in *" maintainers "*) maintainers_entry "$work/state/$k" ;; esac
	done
	(cd "$work/state/${#PATCHES[@]}" && find . -type f) | while IFS= read -r f; do attr_pattern "$f"; done | LC_ALL=C sort -u
	# and the code that applies the hooks
	cat "$LWNFS_TOP/scripts/gen-hooks.sh"
}

# key_of BASE: hook_key's hash.
key_of() {
	hook_key "$1" >"$work/key"
	sha256sum "$work/key" | cut -c1-16
}

# capture_stale BASE: why BASE's capture does not fit ($work/state), or
# nothing when it does.
capture_stale() {
	local f
	f=$(hooks_file "$1")
	if [ ! -f "$f" ]; then
		echo "there is no ${f#"$LWNFS_TOP"/}"
	elif [ "$(capture_pin "$1")" != "$(base_pin "$1")" ]; then
		echo "${f#"$LWNFS_TOP"/} was captured from $(capture_pin "$1"), bases.conf pins $(base_pin "$1")"
	elif [ "$(sed -n 's/^key\t//p' "$f")" != "$(key_of "$1")" ]; then
		echo "the hooks' text changed (configs/hooks.conf, split/MAINTAINERS.entry, Kconfig.snippet, scripts/gen-hooks.sh, or which patch adds which file) since ${f#"$LWNFS_TOP"/} was captured"
	fi
}

# capture BASE: commit BASE's series ($work/state) on its tree, and keep
# the hook files' sections of it in split/hooks/BASE.hooks.
capture() {
	local base=$1 tree f
	need_tree "$base"
	tree=$(tree_dir "$base")
	hooks_tree
	commit_series "$tree"
	format_series "$tree" "$work/tree-series"
	(cd "$work/state/${#PATCHES[@]}" && find . -type f | sed 's|^\./||') | while IFS= read -r f; do
		printf '%s\t%s\n' "$(attr_pattern "$f")" \
			"$(git -C "$tree" check-attr -a -- "$f" | sed 's/^[^:]*: \([^:]*\): /\1=/; s/=set$//; s/^\(.*\)=unset$/-\1/' | tr '\n' ' ' | sed 's/ $//')"
	done | LC_ALL=C sort -u >"$work/attrs"
	# one set of attributes a name pattern, and none that would filter
	! cut -f1 "$work/attrs" | uniq -d | grep . >&2 ||
		die "$base's tree gives files of the name pattern above other attributes; scripts/gen-patches.sh keeps one set a pattern"
	! cut -f2 "$work/attrs" | tr ' ' '\n' | grep -v '^$\|^diff=' >&2 ||
		die "$base's tree gives lwnfs's files the attributes above; only diff= is kept"
	mkdir -p "$SPLIT/hooks"
	rm -f "$work/hooks.old"
	[ ! -f "$(hooks_file "$base")" ] || cp -p "$(hooks_file "$base")" "$work/hooks.old"
	python3 "$SECTIONS" capture "$(hooks_file "$base")" "$(base_pin "$base")" \
		"$(key_of "$base")" "$work/attrs" "$work/tree-series" "${HOOK_PATH[@]}"
	# what the capture makes must be what the tree made
	standin_series "$work/check-series"
	if ! diff -r "$work/tree-series" "$work/check-series" >&2; then
		if [ -f "$work/hooks.old" ]; then cp -p "$work/hooks.old" "$(hooks_file "$base")"; else rm -f "$(hooks_file "$base")"; fi
		die "$base: the series made from the capture (+) differs from the one made on the tree (-); split/hooks/$base.hooks is as it was"
	fi
	info "$base: its hooks' sections captured from its tree in split/hooks/$base.hooks"
}

# standin_repo BASE: $repo, a scratch repository whose BASE_TAG holds a
# stand-in for each hook file, with the captured attributes.
standin_repo() {
	repo=$work/repo-$1
	rm -rf "$repo"
	git init -q "$repo"
	mkdir -p "$repo/.git/info"
	python3 "$SECTIONS" attrs "$(hooks_file "$1")" >"$repo/.git/info/attributes"
	export GIT_INDEX_FILE=$work/index
	rm -f "$GIT_INDEX_FILE"
	(cd "$work/hooks/0" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$work/hook-files"
	(cd "$work/hooks/0" && git --git-dir="$repo/.git" hash-object -w --no-filters --stdin-paths <"$work/hook-files") |
		paste -d ' ' - "$work/hook-files" | sed 's/^/100644 /; s/%/\//g; s/ \([^ ]*\)$/\t\1/' |
		git -C "$repo" update-index --add --index-info
	git -C "$repo" tag "$BASE_TAG" "$(git_fixed -C "$repo" commit-tree "$(git -C "$repo" write-tree)" -m base)"
	unset GIT_INDEX_FILE
}

# standin_series DIR: $base's series in DIR, made in a scratch repository
# with its kept capture.
standin_series() {
	local repo
	hooks_standin
	standin_repo "$base"
	commit_series "$repo"
	format_series "$repo" "$1"
	python3 "$SECTIONS" splice "$(hooks_file "$base")" "$1"
	! grep -l '^.stand-in for ' "$1"/*.patch >&2 ||
		die "a stand-in's line is left in the series above: split/hooks/$base.hooks lacks a section"
}

# gen_base BASE: BASE's series in $out/BASE. Without --tree, from the
# kept capture (taken again first when it is stale and the tree is here);
# with it, on the base's tree.
gen_base() {
	local base=$1 tree why repo tip
	base_states "$base"
	if [ -n "$use_tree$post" ]; then
		need_tree "$base"
		tree=$(tree_dir "$base")
		hooks_tree
		commit_series "$tree"
		format_series "$tree" "$out/$base"
	else
		why=$(capture_stale "$base")
		if [ -n "$why" ] || [ -n "$recapture" ]; then
			if [ -n "$no_capture" ]; then
				stale+=("$base: $why; capture its hooks again from its tree: make capture BASE=$base")
				return 0
			elif [ -z "$recapture" ] && ! tree_ready "$base"; then
				stale+=("$base: $why, and its hooks must be captured again from its tree: $(fetch_command "$base"), then make patches")
				return 0
			fi
			[ -n "$recapture" ] || info "$base: $why: capturing again from its tree"
			capture "$base"
		fi
		standin_series "$out/$base"
	fi
	info "$base: $(wc -l <"$out/$base/series") patches"
}

if [ -n "$final_one" ]; then
	stage_final "$final_one" "${targets[0]}"
	exit 0
fi
if [ -n "$finals_only" ]; then
	[ ! -e "$finals_only" ] || die "$finals_only exists; give a new directory"
	for b in $(all_bases); do
		stage_final "$finals_only/$b" "$b"
	done
	write_export "$finals_only" finals
	info "final sources of each base: $finals_only/<base>"
	exit 0
fi
if [ -n "$states_only" ]; then
	[ ! -e "$states_only" ] || die "$states_only exists; give a new directory"
	[ $# -eq 0 ] || check_base "$1"
	check_claimed
	make_states "$states_only" "$(newest_base)"
	if [ $# -eq 1 ] && [ "$1" != "$(newest_base)" ]; then
		stage_final "$work/final" "$1"
		merge_states "$states_only" "$work/final"
	fi
	[ $# -eq 0 ] || fill_cover "$1" "$states_only/${#PATCHES[@]}" >"$states_only/cover.msg"
	write_export "$states_only" states
	info "states after each patch of the series${1:+ on $1}: $states_only/1 .. $states_only/${#PATCHES[@]}"
	exit 0
fi

# Every series is made in $work first: a failure writes none of them.
final_out=$out
out=$work/out
check_claimed
# (only make patches itself rewrites split/)
[ -z "$absorb" ] || absorb_edit
stale=()
for base in "${targets[@]}"; do
	gen_base "$base"
done
if [ ${#stale[@]} -gt 0 ]; then
	printf 'error: %s\n' "${stale[@]}" >&2
	die "no series generated, and nothing written to ${final_out#"$LWNFS_TOP"/}/"
fi
# each base's directory swapped in whole, from a copy beside it
mkdir -p "$final_out"
for base in "${targets[@]}"; do
	rm -rf "$final_out/.$base.new" "$final_out/.$base.old"
	cp -a "$out/$base" "$final_out/.$base.new"
	[ ! -e "$final_out/$base" ] || mv -T "$final_out/$base" "$final_out/.$base.old"
	mv -T "$final_out/.$base.new" "$final_out/$base"
	rm -rf "$final_out/.$base.old"
done
info "${#targets[@]} series in ${final_out#"$LWNFS_TOP"/}/: ${targets[*]}"

# The top-level quilt series is the newest base's.
if [ "$final_out" = "$LWNFS_TOP/patches" ] && [ -d "$final_out/$(newest_base)" ]; then
	newest=$(newest_base)
	sed "s|^|patches/$newest/|" "$final_out/$newest/series" >"$work/series"
	mv "$work/series" "$LWNFS_TOP/series"
fi
