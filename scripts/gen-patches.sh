#!/usr/bin/env bash
# Generate patches/<base>/ for each base (default: all) from the one source:
# fs-lwnfs/, selftests-lwnfs/, Documentation/, Kconfig.snippet, deltas/ and
# the series definition in split/. Output is deterministic: fixed identity
# and dates, zeroed From lines, no git version signature, no base-commit
# (it would name a local commit of an unpacked tarball), and none of the
# user's git settings (scripts/lib.sh). File modes come from the sources.
#
# usage: scripts/gen-patches.sh [-o OUTDIR] [BASE...]
#        scripts/gen-patches.sh --post -o OUTDIR BASE
#        scripts/gen-patches.sh --states DIR [BASE]
#        scripts/gen-patches.sh --finals DIR
#        scripts/gen-patches.sh --final BASE DIR
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
#  4. each state is committed on the pristine base, with the tree hooks of
#     the patches so far, and git format-patch writes the series.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out=$LWNFS_TOP/patches
states_only='' finals_only='' final_one='' post=''
if [ "${1:-}" = "--post" ]; then
	post=1
	shift
	if [ "${1:-}" != -o ] || [ -z "${2:-}" ] || [ $# -ne 3 ]; then
		die "usage: $0 --post -o OUTDIR BASE"
	fi
fi
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
	# by default, the Debian bases and the git bases imported here (a git
	# base without its tree is named and left as it is)
	targets=()
	for b in $(all_bases); do
		if generable "$b"; then
			targets+=("$b")
		elif [ -z "$states_only$finals_only$final_one" ]; then
			echo "patches/$b: not regenerated (no tree: $(base_tree_text "$b"); import it: $(tree_env "$b")=/path/to/a/clone make fetch BASE=$b)" >&2
		fi
	done
else
	targets=("$@")
fi

SPLIT=$LWNFS_TOP/split
SELFTESTS=tools/testing/selftests/filesystems/lwnfs
CONF=$SPLIT/patches.conf
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
	git_fixed -C "$tree" -c core.abbrev=12 -c diff.noprefix=false \
		format-patch -q --cover-letter --zero-commit --no-signature --no-base --no-thread \
		-o "$work/cl" "$BASE_TAG..$tip"
	SUBJECT=$(head -n 1 "$tmpl") BLURB=$(tail -n +3 "$tmpl") awk '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, ENVIRON["SUBJECT"]); s++ }
		/^\*\*\* BLURB HERE \*\*\*$/ { print ENVIRON["BLURB"]; b++; next }
		{ print }
		END { if (s != 1 || b != 1) exit 1 }' "$work/cl/0000-cover-letter.patch" >"$work/cover" ||
		die "git's cover letter has no SUBJECT or BLURB placeholder to fill"
}

gen_base() {
	local base=$1 tree n k p f blob parent state hooks=() msg
	need_tree "$base"
	tree=$(tree_dir "$base")
	n=${#PATCHES[@]}

	rm -rf "$work/state" "$work/final"
	check_claimed
	make_states "$work/state" "$(newest_base)"
	if [ "$base" != "$(newest_base)" ]; then
		stage_final "$work/final" "$base"
		merge_states "$work/state" "$work/final"
	fi

	export GIT_INDEX_FILE=$work/index
	parent=$(git -C "$tree" rev-parse "$BASE_TAG^{commit}")
	for ((k = 1; k <= n; k++)); do
		p=${PATCHES[k - 1]}
		state=$work/state/$k
		git -C "$tree" read-tree "$BASE_TAG"
		while IFS= read -r f; do
			blob=$(git -C "$tree" hash-object -w --path="$f" "$state/$f")
			git -C "$tree" update-index --add --cacheinfo "$(file_mode "$state/$f"),$blob,$f"
		done < <(cd "$state" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
		for f in $(patch_adds "$p"); do
			case "$f" in hook:*) hooks+=("${f#hook:}") ;; esac
		done
		for f in "${hooks[@]}"; do
			git -C "$tree" show "$BASE_TAG:$(hook_path "$f")" | apply_hook "$f" "$state" "$base" >"$work/hooked" ||
				die "hook $f does not fit $base's $(hook_path "$f")"
			blob=$(git -C "$tree" hash-object -w "$work/hooked")
			git -C "$tree" update-index --cacheinfo "100644,$blob,$(hook_path "$f")"
		done
		msg=$work/msg
		{ cat "$SPLIT/$p.msg"; echo; echo "Signed-off-by: $LWNFS_IDENT_NAME <$LWNFS_IDENT_EMAIL>"; } >"$msg"
		parent=$(git_fixed -C "$tree" commit-tree "$(git -C "$tree" write-tree)" -p "$parent" -F "$msg")
	done
	unset GIT_INDEX_FILE
	git -C "$tree" update-ref refs/lwnfs/series "$parent"

	rm -rf "${out:?}/$base"
	mkdir -p "$out/$base"
	git -C "$tree" -c core.abbrev=12 -c diff.noprefix=false -c format.coverLetter=false \
		format-patch -q --zero-commit --no-signature --no-base --no-thread \
		-o "$out/$base" "$BASE_TAG..$parent"
	(cd "$out/$base" && ls -- *.patch) >"$out/$base/series"
	cover_letter "$base" "$tree" "$parent"
	if [ -n "$post" ]; then
		cp "$work/cover" "$out/$base/0000-cover-letter.patch"
	else
		cp "$work/cover" "$out/$base/cover-letter.txt"
	fi
	info "$base: $(wc -l <"$out/$base/series") patches in ${out#"$LWNFS_TOP"/}/$base"
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

for base in "${targets[@]}"; do
	gen_base "$base"
done

# The top-level quilt series is the newest base's.
if [ "$out" = "$LWNFS_TOP/patches" ]; then
	newest=$(newest_base)
	sed "s|^|patches/$newest/|" "$out/$newest/series" >"$LWNFS_TOP/series"
fi
