# shellcheck shell=bash
# Common settings and helpers for the lwnfs scripts. Source it, don't run it.

# Debian's own tools first: the kernel's helper scripts (checkpatch's
# spdxcheck.py, the docs build) need the python3 modules installed from
# Debian packages, not whatever python3 a user's PATH finds first.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PATH

LWNFS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LWNFS_CACHE=${LWNFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lwnfs}
BASES_CONF=$LWNFS_TOP/bases.conf
JOBS=${JOBS:-$(nproc)}
export LWNFS_TOP LWNFS_CACHE

# Fixed identity and dates keep generated commits and patches reproducible.
LWNFS_IDENT_NAME=${LWNFS_IDENT_NAME:-"lwnfs maintainers"}
LWNFS_IDENT_EMAIL=${LWNFS_IDENT_EMAIL:-"lwnfs@example.org"}
LWNFS_DATE="2026-01-01T00:00:00+0000"

die() {
	echo "error: $*" >&2
	exit 1
}

info() {
	echo ">> $*"
}

# Print the bases, newest first.
all_bases() {
	awk '!/^#/ && NF { print $1 }' "$BASES_CONF"
}

newest_base() {
	all_bases | head -n 1
}

# base_field BASE COLUMN: a column (2 = package, 3 = suite) of bases.conf.
base_field() {
	awk -v b="$1" -v c="$2" '!/^#/ && $1 == b { print $c }' "$BASES_CONF"
}

check_base() {
	[ -n "$(base_field "$1" 2)" ] ||
		die "unknown base '$1'; known bases: $(all_bases | tr '\n' ' ')(see bases.conf)"
}

tree_dir() {
	echo "$LWNFS_CACHE/trees/$1"
}

build_dir() {
	echo "$LWNFS_CACHE/build/$1/$2"
}

# The tag that marks the pristine Debian tree in each cached repository.
BASE_TAG=lwnfs-base

# Run git with the fixed identity and dates.
git_fixed() {
	GIT_AUTHOR_NAME=$LWNFS_IDENT_NAME GIT_AUTHOR_EMAIL=$LWNFS_IDENT_EMAIL \
	GIT_COMMITTER_NAME=$LWNFS_IDENT_NAME GIT_COMMITTER_EMAIL=$LWNFS_IDENT_EMAIL \
	GIT_AUTHOR_DATE=$LWNFS_DATE GIT_COMMITTER_DATE=$LWNFS_DATE \
		git "$@"
}

# need_tree BASE: fail with the command to run when a base is not fetched.
need_tree() {
	check_base "$1"
	git -C "$(tree_dir "$1")" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1 ||
		die "base $1 is not fetched; run: make fetch BASE=$1"
}

# need_cmd CMD PACKAGE: fail with the apt-get line when a tool is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; run: make deps (or: apt-get install $2)"
}

# diff_tree FROM TO OUT: the unified diff, kernel-relative a/ b/ paths, of
# every file of FROM that TO also has; OUT is removed when there is none.
diff_tree() {
	local from=$1 to=$2 out=$3 f
	: >"$out.new"
	while IFS= read -r f; do
		[ -f "$to/$f" ] || continue
		diff -u --label "a/$f" --label "b/$f" "$from/$f" "$to/$f" >>"$out.new" || true
	done < <(cd "$from" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
	if [ -s "$out.new" ]; then
		mv "$out.new" "$out"
	else
		rm -f "$out.new" "$out"
	fi
}

# import_sources DIR: make the hand-edited sources what DIR (kernel-relative
# paths) holds.
import_sources() {
	rsync -a --delete "$1/fs/lwnfs/" "$LWNFS_TOP/fs-lwnfs/"
	rsync -a --delete "$1/tools/testing/selftests/filesystems/lwnfs/" "$LWNFS_TOP/selftests-lwnfs/"
	cp "$1/Documentation/filesystems/lwnfs.rst" "$LWNFS_TOP/Documentation/filesystems/lwnfs.rst"
}
