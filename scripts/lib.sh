# shellcheck shell=bash
# Common settings and helpers for the lwnfs scripts. Source it, don't run it.

# Debian's own tools first: the kernel's helper scripts (checkpatch's
# spdxcheck.py, the docs build) need the python3 modules installed from
# Debian packages, not whatever python3 a user's PATH finds first.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PATH
export LC_ALL=C

# The output must not depend on the user's git or quilt settings
# (merge.conflictStyle, format.signOff, commit.gpgSign, diff.noprefix ...,
# or GIT_* variables in the environment): read neither, only the settings
# of each repository the scripts make themselves.
while IFS= read -r v; do
	unset "$v"
done < <(compgen -e | grep '^GIT_' || true)
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null QUILTRC=/dev/null
# nor the user's git attributes (a "*.c -diff" would turn patches binary)
export GIT_ATTR_NOSYSTEM=1 GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.attributesFile GIT_CONFIG_VALUE_0=/dev/null

LWNFS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LWNFS_CACHE=${LWNFS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lwnfs}
BASES_CONF=$LWNFS_TOP/bases.conf
CONFIGS=$LWNFS_TOP/configs
TREES_CONF=$CONFIGS/trees.conf
JOBS=${JOBS:-$(nproc)}
# The one config fragment: lwnfs built in and what its tests need. It is
# the kselftest's config in the series and the base of every guest build
# (users get contrib/fragments/, which hold CONFIG_LWNFS alone).
# shellcheck disable=SC2034 # read by the scripts that source this
LWNFS_FRAGMENT=$LWNFS_TOP/selftests-lwnfs/config
# meta-lwnfs's kernel features, which scripts/gen-yocto.sh writes
# shellcheck disable=SC2034 # read by the scripts that source this
KMETA=contrib/meta-lwnfs/recipes-kernel/linux/lwnfs/lwnfs-kmeta
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

# generated_section FILE NAME: the generated section NAME of a doc, from
# its line "<!-- NAME: begin (...) -->" to its line "<!-- NAME: end -->";
# fails unless the doc has one of each, in that order.
generated_section() {
	awk -v n="$2" '
		index($0, "<!-- " n ": begin") == 1 { b++; on = 1 }
		on { print }
		$0 == "<!-- " n ": end -->" { e++; if (!on) bad = 1; on = 0 }
		END { if (b != 1 || e != 1 || bad || on) exit 1 }' "$1" ||
		die "${1#"$LWNFS_TOP"/} needs one line '<!-- $2: begin ... -->' and one '<!-- $2: end -->' after it"
}

# replace_section FILE NAME NEW: put the file NEW (its begin and end lines
# included) in place of FILE's generated section NAME.
replace_section() {
	local out
	generated_section "$1" "$2" >/dev/null
	[ -r "$3" ] || die "${1#"$LWNFS_TOP"/}: no new $2 section to write ($3)"
	out=$(mktemp "$(dirname "$1")/.$(basename "$1").XXXXXX")
	awk -v n="$2" -v f="$3" '
		index($0, "<!-- " n ": begin") == 1 { while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == "<!-- " n ": end -->" { skip = 0; next }
		!skip' "$1" >"$out" || { rm -f "$out" && die "${1#"$LWNFS_TOP"/}: its $2 section could not be written"; }
	# the file keeps its mode; the rename is atomic
	{ chmod --reference="$1" "$out" && mv -f "$out" "$1"; } ||
		{ rm -f "$out" && die "${1#"$LWNFS_TOP"/}: could not be replaced"; }
}

# conf_rows FILE: the rows of a table file, comments and blank lines out.
conf_rows() {
	awk '!/^[[:space:]]*#/ && NF' "$1"
}

# The rows of bases.conf are read with bash alone: the scripts ask for a
# base's fields thousands of times, and a run of awk for each costs
# seconds.

# Print the bases, newest first.
all_bases() {
	local line row_words
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		read -ra row_words <<<"$line"
		echo "${row_words[0]}"
	done <"$BASES_CONF"
}

# base_row NAME: NAME's row as words in BASE_WORDS: a base's row of
# bases.conf or, for a tree of configs/trees.conf (is_tree),
# "NAME git:REPO COMMIT VERSION SERIES"; fails when there is none.
base_row() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		read -ra BASE_WORDS <<<"$line"
		[ "${BASE_WORDS[0]}" != "$1" ] || return 0
	done <"$BASES_CONF"
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		read -ra BASE_WORDS <<<"$line"
		[ "${BASE_WORDS[0]}" = "$1" ] || continue
		BASE_WORDS=("$1" "git:${BASE_WORDS[1]:-}" "${BASE_WORDS[2]:-}" "${BASE_WORDS[3]:-}" "${BASE_WORDS[4]:-}")
		return 0
	done <"$TREES_CONF"
	return 1
}

# is_tree NAME: whether NAME is a tree of configs/trees.conf, not a base.
is_tree() {
	[[ $1 == linux-* ]] && base_row "$1"
}

# check_tree_row NAME: a tree's row is well formed: its name linux-X.Y or
# linux-X.Y-WORD, a full commit, a version X.Y.Z of the name's X.Y, and a
# series that is a base or "range"
check_tree_row() {
	local v xy
	base_row "$1" || die "no tree '$1' in configs/trees.conf"
	v=${BASE_WORDS[3]}
	[[ $1 =~ ^linux-([0-9]+\.[0-9]+)(-[A-Za-z0-9_]+)?$ ]] ||
		die "configs/trees.conf: '$1' is not a tree's name (linux-X.Y or linux-X.Y-WORD)"
	xy=${BASH_REMATCH[1]}
	[[ ${BASE_WORDS[2]} =~ ^[0-9a-f]{40}$ && $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ && ${v%.*} = "$xy" ]] ||
		die "configs/trees.conf: $1's row needs a full commit (40 lowercase hex digits) and a version $xy.N, not '${BASE_WORDS[2]}' and '$v'"
	case "${BASE_WORDS[4]}" in
	range) ;;
	v*) grep -qxF -- "${BASE_WORDS[4]}" <(all_bases) ||
		die "configs/trees.conf: $1's series '${BASE_WORDS[4]}' is no base of bases.conf" ;;
	*) die "configs/trees.conf: $1's series must be a base (v6.12) or 'range', not '${BASE_WORDS[4]}'" ;;
	esac
}

# series_of NAME: the base whose series a base or tree takes: a base its
# own; a tree the one its row names, or with "range" the one whose range
# holds its version.
series_of() {
	local v
	if is_tree "$1"; then
		check_tree_row "$1"
		[ "${BASE_WORDS[4]}" = range ] || { echo "${BASE_WORDS[4]}" && return; }
		v=${BASE_WORDS[3]}
		"$LWNFS_TOP/scripts/ranges.sh" series "${v%.*}" ||
			die "no range of bases.conf holds Linux ${v%.*}, the version of the tree $1; name the series to try in its row of configs/trees.conf"
	else
		echo "$1"
	fi
}

# makefile_version: the VERSION.PATCHLEVEL.SUBLEVEL of the kernel Makefile
# on standard input.
makefile_version() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 } $1 == "SUBLEVEL" { s = $2 }
		END { print v "." p "." s }'
}

# row_file NAME: where NAME's row is, for messages.
row_file() {
	if is_tree "$1"; then echo configs/trees.conf; else echo bases.conf; fi
}

# newest_base, oldest_base: the first and last rows. Both are Debian rows,
# so that a base whose tree a machine may not have (a git snapshot) never
# takes their roles: the default base, the sources' own base, the ends of
# the check tier's coccicheck and docs stages, and the debug guests.
newest_base() {
	role_end 1p
}

oldest_base() {
	role_end "\$p"
}

role_end() {
	local b
	b=$(all_bases | sed -n "$1")
	[ "$(base_source "$b")" = debian ] ||
		die "bases.conf: the first and the last row must be Debian bases, not the git snapshot $b"
	echo "$b"
}

# debian_bases: the Debian bases, newest first.
debian_bases() {
	conf_rows "$BASES_CONF" | awk '$2 !~ /^git:/ { print $1 }'
}

# base_source BASE: where its tree comes from: debian (a linux-source
# package) or git (a public snapshot, imported from a clone the user names).
base_source() {
	base_row "$1" || return 0
	case "${BASE_WORDS[1]}" in git:*) echo git ;; *) echo debian ;; esac
}

# base_field BASE NAME: one column of bases.conf, named as in its header
# line: package and suite for a Debian row, repo and commit for a git row
# (asking a row for the other kind's column is a mistake in a script, and
# dies), version, clang, kunit, first and last for both. A tree has repo,
# commit and version; its clang, kunit, first and last are its series'.
base_field() {
	local col src v
	src=$(base_source "$1")
	[ -n "$src" ] || return 0
	case "$2:$src" in
	package:debian | repo:git) col=2 ;;
	suite:debian | commit:git) col=3 ;;
	version:*) col=4 ;; clang:*) col=5 ;; kunit:*) col=6 ;; first:*) col=7 ;; last:*) col=8 ;;
	package:git | suite:git) die "base $1 is a git snapshot: it has no Debian $2" ;;
	repo:debian | commit:debian) die "base $1 is a Debian base: it has no git $2" ;;
	*) die "bases.conf has no column '$2'" ;;
	esac
	if [ "$col" -ge 5 ] && is_tree "$1"; then
		v=$(series_of "$1") || exit 1
		base_field "$v" "$2"
		return
	fi
	base_row "$1"
	v=${BASE_WORDS[col - 1]:-}
	echo "${v#git:}"
}

check_base() {
	{ base_row "$1" && ! is_tree "$1"; } ||
		die "unknown base '$1'; known bases: $(all_bases | tr '\n' ' ')(see bases.conf)"
}

# check_target NAME: a base, or a tree of configs/trees.conf: what the
# steps that fetch, apply, build and boot take (scripts/verify-tree.sh)
check_target() {
	if is_tree "$1"; then
		check_tree_row "$1"
	else
		check_base "$1"
	fi
}

# arch_field ARCH NAME: one column of configs/arch.conf.
arch_field() {
	local col
	case "$2" in
	karch) col=2 ;; cross) col=3 ;; qemu) col=4 ;; machine) col=5 ;; cpu) col=6 ;;
	image) col=7 ;; console) col=8 ;; debarch) col=9 ;; qemu_pkg) col=10 ;;
	*) die "configs/arch.conf has no column '$2'" ;;
	esac
	conf_rows "$CONFIGS/arch.conf" | awk -v a="$1" -v c="$col" '$1 == a { v = $c } END { if (v == "-") v = ""; print v }'
}

check_arch() {
	conf_rows "$CONFIGS/arch.conf" | awk -v a="$1" '$1 == a { ok = 1 } END { exit !ok }' ||
		die "unknown architecture '$1'; known: $(conf_rows "$CONFIGS/arch.conf" | awk '{ printf "%s ", $1 }')(see configs/arch.conf)"
}

tree_dir() {
	echo "$LWNFS_CACHE/trees/$1"
}

# build_dir BASE NAME: one build directory per base and configuration
# (ARCH-VARIANT for the kernels, or docs, uml), so that no stage rewrites
# another's .config.
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

# The files of a git snapshot that an import leaves out: some public
# snapshots lack their blobs, and lwnfs needs none of them. One constant for
# every git row, so a tree is the same whether a clone has them or not.
# shellcheck disable=SC2034 # read by the scripts that source this
SNAPSHOT_EXCLUDE=':(exclude)drivers/gpu/drm/amd/include/asic_reg/**'

# tree_env BASE: the variable that names a clone of a git base's snapshot
# (LWNFS_TREE_v6_18 for v6.18).
tree_env() {
	local v=${1//./_}
	echo "LWNFS_TREE_${v//-/_}"
}

# base_pin BASE: what a cached tree must have been made from: the Debian
# version, or the git commit.
base_pin() {
	if [ "$(base_source "$1")" = git ]; then base_field "$1" commit; else base_field "$1" version; fi
}

# tree_pin BASE: what the cached tree was made from (its tag's subject
# names the Debian version; a git import's body names the commit).
tree_pin() {
	local dir
	dir=$(tree_dir "$1")
	if [ "$(base_source "$1")" = git ]; then
		git -C "$dir" log -1 --format=%b "$BASE_TAG" 2>/dev/null |
			sed -n 's/^Imported from [^ ]* at \([0-9a-f]*\) .*/\1/p'
	else
		git -C "$dir" log -1 --format=%s "$BASE_TAG" 2>/dev/null |
			sed -n 's/^Linux \([^ ]*\) (Debian .*/\1/p'
	fi
}

# tree_ready BASE: whether the cache holds BASE's tree at its pin.
tree_ready() {
	[ "$(tree_pin "$1")" = "$(base_pin "$1")" ]
}


# has_tree BASE: whether this machine can have BASE's tree: a Debian base
# (fetched from the archive), a git base already imported at its pin, or
# one whose clone the user names in $(tree_env BASE).
has_tree() {
	local env
	[ "$(base_source "$1")" = git ] || return 0
	tree_ready "$1" && return 0
	env=$(tree_env "$1")
	[ -n "${!env:-}" ]
}

# base_tree_text BASE: the tree a series was made for, in words, for its
# cover letter and the not-run lines.
base_tree_text() {
	if [ "$(base_source "$1")" = git ]; then
		echo "Linux $(base_field "$1" version) from the git snapshot $(base_field "$1" repo) at commit $(base_field "$1" commit)"
	else
		echo "Linux as Debian's $(base_field "$1" package) $(base_field "$1" version) ships it"
	fi
}

# fetch_command BASE: what brings BASE's tree into the cache.
fetch_command() {
	if [ "$(base_source "$1")" = debian ]; then
		echo "make fetch BASE=$1"
	else
		echo "$(tree_env "$1")=/path/to/a/clone make fetch BASE=$1 (a clone of $(base_field "$1" repo))"
	fi
}

# need_tree BASE: fail with the command to run when a base is not fetched,
# or when the cached tree is not the one bases.conf pins.
need_tree() {
	local have want how
	check_target "$1"
	how=$(fetch_command "$1")
	git -C "$(tree_dir "$1")" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1 ||
		die "base $1 is not fetched; run: $how"
	have=$(tree_pin "$1")
	want=$(base_pin "$1")
	[ "$have" = "$want" ] ||
		die "the cached $1 tree is ${have:-?}, $(row_file "$1") pins $want; run: $how"
}

# hooks_file BASE: where the tree hooks' sections of BASE's series are kept
# (scripts/gen-patches.sh captures them from its tree); capture_pin BASE:
# the pin they were captured at.
hooks_file() {
	echo "$LWNFS_TOP/split/hooks/$1.hooks"
}
capture_pin() {
	sed -n 's/^pin\t//p' "$(hooks_file "$1")" 2>/dev/null
}

# file_mode FILE: the git mode of a source file: executable or not.
file_mode() {
	if [ -x "$1" ]; then echo 100755; else echo 100644; fi
}

# series_hash BASE: a hash of patches/BASE/ (its series file and the
# patches it names), recorded in trees and builds made from it.
series_hash() {
	local dir files
	dir=$(series_dir "$1") || exit 1
	mapfile -t files <"$dir/series"
	(cd "$dir" && sha256sum series "${files[@]}") | sha256sum | cut -c1-16
}

# series_dir NAME: patches/BASE of the base whose series NAME takes (a
# base its own), which must hold a series.
series_dir() {
	local s
	s=$(series_of "$1") || exit 1
	[ -s "$LWNFS_TOP/patches/$s/series" ] || die "no series for $s in patches/$s; run: make patches"
	echo "$LWNFS_TOP/patches/$s"
}

# applied_file BASE: where scripts/apply.sh records what the tree holds.
applied_file() {
	echo "$(tree_dir "$1")/.git/lwnfs-applied"
}

# stamp_get FILE KEY: the value of KEY=... in a stamp file.
stamp_get() {
	sed -n "s/^$2=//p" "$1" 2>/dev/null | tail -n 1
}

# need_applied BASE [any]: fail unless the tree holds the series that
# patches/BASE/ has now, applied by scripts/apply.sh, at its last patch
# (or, with "any", at any patch of it, for the bisect check), with no
# change to a tracked file.
need_applied() {
	local base=$1 tree f head
	need_tree "$base"
	tree=$(tree_dir "$base")
	f=$(applied_file "$base")
	[ -f "$f" ] || die "$base's tree has no series applied; run: make apply BASE=$base"
	[ "$(stamp_get "$f" series)" = "$(series_hash "$base")" ] ||
		die "$base's tree holds an older series than $(series_dir "$base" | sed "s|^$LWNFS_TOP/||"); run: make apply BASE=$base"
	head=$(git -C "$tree" rev-parse HEAD)
	if [ "${2:-}" = any ]; then
		git -C "$tree" merge-base --is-ancestor "$head" "$(stamp_get "$f" head)" ||
			die "$base's tree is at $head, not a commit of the applied series; run: make apply BASE=$base"
	else
		[ "$head" = "$(stamp_get "$f" head)" ] ||
			die "$base's tree is at $head, not at the end of the applied series (an interrupted bisect?); run: make apply BASE=$base"
	fi
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$base's tree has local changes; run: make apply BASE=$base"
}

# kconfig_diff BASE COMMIT: what the series changes in the Kconfig files of
# BASE's tree up to COMMIT: the configuration depends on nothing else of it.
kconfig_diff() {
	git -C "$(tree_dir "$1")" diff "$BASE_TAG" "$2" -- ':(glob)**/Kconfig*'
}

# hook_anchor HOOK BASE: the anchor of a tree hook on a base, from
# configs/hooks.conf (the base's own row, else the "*" row).
hook_anchor() {
	conf_rows "$CONFIGS/hooks.conf" | awk -F'\t+' -v h="$1" -v b="$2" '
		$1 == "anchor" && $2 == h && $3 == b { own = $4 }
		$1 == "anchor" && $2 == h && $3 == "*" { any = $4 }
		END { if (own != "") print own; else if (any != "") print any; else exit 1 }' ||
		die "hook $1 has no anchor for $2 in configs/hooks.conf"
}

# hook_field HOOK file|text: a hook's file, or its text, from
# configs/hooks.conf.
hook_field() {
	local col
	case "$2" in file) col=3 ;; text) col=4 ;; *) die "configs/hooks.conf has no hook column '$2'" ;; esac
	conf_rows "$CONFIGS/hooks.conf" | awk -F'\t+' -v h="$1" -v c="$col" '
		$1 == "hook" && $2 == h { print $c; ok = 1 } END { exit !ok }' ||
		die "no hook '$1' in configs/hooks.conf"
}

# all_hooks: the names of the hooks, as configs/hooks.conf lists them.
all_hooks() {
	conf_rows "$CONFIGS/hooks.conf" | awk -F'\t+' '$1 == "hook" { print $2 }'
}

# The cache lock: one run at a time may use LWNFS_CACHE, since runs check
# out, rebuild and delete trees in place. The first script of a run takes
# it; the scripts it starts inherit it. A second run waits up to
# LWNFS_LOCK_WAIT seconds (default 1800; 0: fail at once), naming the
# holder.
lock_cache() {
	local lock=$LWNFS_CACHE/.lock holder
	[ "${LWNFS_LOCK_HELD:-}" = "$LWNFS_CACHE" ] && return 0
	mkdir -p "$LWNFS_CACHE"
	exec 9>>"$lock"
	if ! flock -n 9; then
		holder=$(cat "$lock.owner" 2>/dev/null || echo "an unknown process")
		echo ">> the cache $LWNFS_CACHE is in use by $holder; waiting for it (LWNFS_LOCK_WAIT=${LWNFS_LOCK_WAIT:-1800}s)" >&2
		flock -w "${LWNFS_LOCK_WAIT:-1800}" 9 ||
			die "the cache $LWNFS_CACHE is still in use by $holder; wait for that run to end, or give this one its own cache with LWNFS_CACHE=DIR"
	fi
	echo "pid $$ ($(basename "$0") $*, started $(date -u '+%F %T') UTC)" >"$lock.owner"
	export LWNFS_LOCK_HELD=$LWNFS_CACHE
}

# What a kernel prints when something went wrong in it (or when lockdep
# turned itself off, or console lines were lost): verdict.sh judges guests
# by it, and guest.sh scans the shell's and the demo's consoles with it.
# shellcheck disable=SC2034
kernel_problem_re='WARNING:|BUG:|Oops|Kernel panic|KASAN:|UBSAN:|KCSAN:|kmemleak:|possible (circular|recursive) locking|general protection fault|blocked for more than|soft lockup|ODEBUG:|Busy inodes after unmount|trying to register non-static key|detected stalls|invoked oom-killer|messages dropped'

# The timing files of docs/timings/, which check.sh and demo.sh write after
# a run that passed. cache_cold: "-cold" (the file name's suffix) when the
# cache holds no trees, builds or ccache. timings_head TITLE COMMIT STATE:
# the lines each such file starts with (COMMIT taken before the file is
# written, which makes the tree dirty).
cache_cold() {
	[ -n "$(find "$LWNFS_CACHE/trees" "$LWNFS_CACHE/build" "$LWNFS_CACHE/ccache" -mindepth 1 -print -quit 2>/dev/null)" ] ||
		echo -cold
}
timings_head() {
	echo "# $1 (scripts/$(basename "$0") writes this file)"
	echo "date: $(date -u '+%F %T') UTC"
	echo "commit: $2"
	echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "cache at the start: $3"
}

# The rest of the helpers, by job.
# shellcheck source=scripts/lib-build.sh
. "$LWNFS_TOP/scripts/lib-build.sh"
# shellcheck source=scripts/lib-apt.sh
. "$LWNFS_TOP/scripts/lib-apt.sh"
# shellcheck source=scripts/lib-export.sh
. "$LWNFS_TOP/scripts/lib-export.sh"
# shellcheck source=scripts/lib-distro.sh
. "$LWNFS_TOP/scripts/lib-distro.sh"
# shellcheck source=scripts/lib-verified.sh
. "$LWNFS_TOP/scripts/lib-verified.sh"

[ "${LWNFS_LOCK:-yes}" = no ] || lock_cache "$@"
