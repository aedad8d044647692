# shellcheck shell=bash
# lwnfs scripts: builds, their tools and their verdicts.
# scripts/lib.sh sources it; nothing else should.

# series_files SERIES_DIR: the files the patches in SERIES_DIR change.
series_files() {
	sed -n 's|^--- a/||p' "$1"/*.patch | sort -u
}

# s2q_apply REPO PATCH: apply PATCH in REPO as Yocto's kgit-s2q does: git am,
# else git am -C1, else git apply --index -C1 and a commit. Prints how when
# it needed a fallback ("git am -C1", "git apply -C1"); fails when none
# takes it.
s2q_apply() {
	git_fixed -C "$1" am -q "$2" >/dev/null 2>&1 && return 0
	git_fixed -C "$1" am --abort
	if git_fixed -C "$1" am -q -C1 "$2" >/dev/null 2>&1; then
		echo "git am -C1"
		return 0
	fi
	git_fixed -C "$1" am --abort
	git_fixed -C "$1" apply --index -C1 "$2" 2>/dev/null || return 1
	git_fixed -C "$1" commit -q -m "$(basename "$2")"
	echo "git apply -C1"
}

# scratch_tree BASE SERIES_DIR DIR: the pristine base's version of every
# file that the patches in SERIES_DIR change, in DIR: enough to apply the
# series the ways users do without touching the cached tree.
scratch_tree() {
	local tree p
	tree=$(tree_dir "$1")
	mkdir -p "$3"
	series_files "$2" | while IFS= read -r p; do
		# files that earlier patches of the series create are not in the base
		git -C "$tree" cat-file -e "$BASE_TAG:$p" 2>/dev/null || continue
		mkdir -p "$3/$(dirname "$p")"
		git -C "$tree" show "$BASE_TAG:$p" >"$3/$p"
	done
}

# scratch_repo BASE SERIES_DIR DIR: scratch_tree as a git repository with
# one commit. Its blobs are the base's, so the index lines of the patches
# name them, as git am -3 needs.
scratch_repo() {
	scratch_tree "$@"
	git -C "$3" init -q
	git -C "$3" add -A
	git_fixed -C "$3" commit -q -m "$1 (the files the series changes)"
}

# tool_field TOOL NAME: one column (suite, version) of configs/tools.conf.
tool_field() {
	local col
	case "$2" in suite) col=2 ;; version) col=3 ;; *) die "configs/tools.conf has no column '$2'" ;; esac
	conf_rows "$CONFIGS/tools.conf" | awk -v t="$1" -v c="$col" '$1 == t { print $c }'
}

# sparse_path: the pinned sparse, which scripts/fetch-sparse.sh builds.
sparse_path() {
	local bin
	bin=$LWNFS_CACHE/sparse/$(tool_field sparse version)/bin/sparse
	[ -x "$bin" ] || die "sparse $(tool_field sparse version) is not built; run: make fetch-tools"
	echo "$bin"
}

# kunit_ran: how many tests kunit.py's output on stdin says ran ("Ran N
# tests" since v5.12 or so, "N tests run" in v5.10's), or nothing.
kunit_ran() {
	sed 's/\x1b\[[0-9;]*m//g' | sed -n -E 's/.*(Ran ([0-9]+) tests|Testing complete\. ([0-9]+) tests run).*/\2\3/p' | tail -n 1
}

# judge_build LOG BASE KIND: the diagnostics in a build log of fs/lwnfs
# ("warning:" and "error:" lines, and kbuild's "C=2 specified, but ... not
# up to date"), except the base's own ones that configs/warnings.allow
# lists for BASE and KIND (gcc or clang), which are printed. Prints the
# counted ones and returns 1 when there is any.
judge_build() {
	local log=$1 base=$2 kind=$3 line re ok n=0 allowed_n=0 patterns
	# (a tree has its series' allowances)
	patterns=$(awk -F'\t+' -v b="$(series_of "$base")" -v k="$kind" \
		'!/^#/ && NF && ($1 == b || $1 == "*") && ($2 == k || $2 == "*") { print $3 }' "$CONFIGS/warnings.allow")
	while IFS= read -r line; do
		ok=0
		while IFS= read -r re; do
			[ -n "$re" ] && grep -qE -- "$re" <<<"$line" && ok=1
		done <<<"$patterns"
		if [ $ok = 1 ]; then
			allowed_n=$((allowed_n + 1))
			echo "allowed (configs/warnings.allow): $line"
		else
			n=$((n + 1))
			echo "$line"
		fi
	done < <(sed "s|$(tree_dir "$base")/||g" "$log" | grep -E '(warning|error): |C=2 specified' || true)
	echo "$n diagnostics, $allowed_n allowed"
	[ "$n" -eq 0 ]
}

# need_applied_variant BASE VARIANT: need_applied, where a bisect build may
# be at any patch of the series.
need_applied_variant() {
	if [ "$2" = bisect ]; then
		need_applied "$1" any
	else
		need_applied "$1"
	fi
}

# need_cmd CMD PACKAGE: fail with the apt-get line when a tool is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; run: make deps (or: apt-get install $2)"
}

# module_files DIR: the files of an out-of-tree module source (what
# scripts/gen-module.sh writes), without what building it in place leaves.
module_files() {
	(cd "$1" && find . -maxdepth 1 -type f \( -name Kbuild -o -name Makefile -o -name VERSION \
		-o -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' | sed 's|^\./||' | LC_ALL=C sort)
}

# module_hash DIR: a hash of those files.
module_hash() {
	local f
	module_files "$1" | while IFS= read -r f; do
		printf '%s %s\n' "$f" "$(sha256sum <"$1/$f" | cut -c1-64)"
	done | sha256sum | cut -c1-16
}
