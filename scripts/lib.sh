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
JOBS=${JOBS:-$(nproc)}
# The one config fragment: lwnfs built in and what its tests need. It is
# the kselftest's config in the series, the base of every guest build, and
# what contrib/buildroot/lwnfs.config and contrib/yocto/lwnfs.cfg link to.
# shellcheck disable=SC2034 # read by the scripts that source this
LWNFS_FRAGMENT=$LWNFS_TOP/selftests-lwnfs/config
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

# conf_rows FILE: the rows of a table file, comments and blank lines out.
conf_rows() {
	awk '!/^[[:space:]]*#/ && NF' "$1"
}

# Print the bases, newest first.
all_bases() {
	conf_rows "$BASES_CONF" | awk '{ print $1 }'
}

newest_base() {
	all_bases | sed -n 1p
}

oldest_base() {
	all_bases | tail -n 1
}

# base_field BASE NAME: one column of bases.conf (package, suite, version,
# clang, kunit), named as in its header line.
base_field() {
	local col
	case "$2" in
	package) col=2 ;; suite) col=3 ;; version) col=4 ;; clang) col=5 ;; kunit) col=6 ;;
	*) die "bases.conf has no column '$2'" ;;
	esac
	conf_rows "$BASES_CONF" | awk -v b="$1" -v c="$col" '$1 == b { print $c }'
}

check_base() {
	[ -n "$(base_field "$1" package)" ] ||
		die "unknown base '$1'; known bases: $(all_bases | tr '\n' ' ')(see bases.conf)"
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

# tree_version BASE: the Debian version the cached tree was made from.
tree_version() {
	git -C "$(tree_dir "$1")" log -1 --format=%s "$BASE_TAG" 2>/dev/null |
		sed -n 's/^Linux \([^ ]*\) (Debian .*/\1/p'
}

# need_tree BASE: fail with the command to run when a base is not fetched,
# or when the cached tree is not the version bases.conf pins.
need_tree() {
	local have want
	check_base "$1"
	git -C "$(tree_dir "$1")" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1 ||
		die "base $1 is not fetched; run: make fetch BASE=$1"
	have=$(tree_version "$1")
	want=$(base_field "$1" version)
	[ "$have" = "$want" ] ||
		die "the cached $1 tree is Debian ${have:-?}, bases.conf pins $want; run: make fetch BASE=$1"
}

# series_hash BASE: a hash of patches/BASE/ (its series file and the
# patches it names), recorded in trees and builds made from it.
series_hash() {
	local dir files
	dir=$(series_dir "$1") || exit 1
	mapfile -t files <"$dir/series"
	(cd "$dir" && sha256sum series "${files[@]}") | sha256sum | cut -c1-16
}

# series_dir BASE: patches/BASE, which must hold a series.
series_dir() {
	[ -s "$LWNFS_TOP/patches/$1/series" ] || die "no series for $1 in patches/$1; run: make patches"
	echo "$LWNFS_TOP/patches/$1"
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
		die "$base's tree holds an older series than patches/$base; run: make apply BASE=$base"
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

# need_fragment_link PATH: fail unless PATH (relative to the top) is a
# symbolic link to the shared fragment, not a copy of it.
need_fragment_link() {
	if [ ! -L "$LWNFS_TOP/$1" ] ||
		[ "$(readlink -f "$LWNFS_TOP/$1")" != "$(readlink -f "$LWNFS_FRAGMENT")" ]; then
		die "$1 must be a link to the shared fragment ${LWNFS_FRAGMENT#"$LWNFS_TOP"/}"
	fi
}

# scratch_tree BASE SERIES_DIR DIR: the pristine base's version of every
# file that the patches in SERIES_DIR change, in DIR: enough to apply the
# series the ways users do without touching the cached tree.
scratch_tree() {
	local tree p
	tree=$(tree_dir "$1")
	mkdir -p "$3"
	sed -n 's|^--- a/||p' "$2"/*.patch | sort -u | while IFS= read -r p; do
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
	patterns=$(awk -F'\t+' -v b="$base" -v k="$kind" \
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

# Mirrors. The URI of Debian's main archive comes from this machine's apt
# sources (or LWNFS_MIRROR); configs/suites.conf says which archive each
# suite is in. The security archive is the sources' own "-security" URI,
# else LWNFS_SECURITY_MIRROR, else the main URI with "-security" appended,
# which is how Debian's mirrors lay it out.
system_uris() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk '$1 ~ /^deb(-src)?$/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }' "$f"
	done
	return 0
}

# mirror_for SUITE: the archive URI to fetch SUITE from.
mirror_for() {
	local archive main sec
	archive=$(conf_rows "$CONFIGS/suites.conf" | awk -v s="$1" '$1 == s { print $2 }')
	[ -n "$archive" ] || die "suite '$1' is not in configs/suites.conf; add it with its archive (debian or debian-security)"
	main=${LWNFS_MIRROR:-$(system_uris | grep -v -- '-security' | sed -n 1p)}
	[ -n "$main" ] || die "no Debian mirror in /etc/apt/sources.list{,.d}; add one or set LWNFS_MIRROR"
	main=${main%/}
	case "$archive" in
	debian) echo "$main" ;;
	debian-security)
		sec=${LWNFS_SECURITY_MIRROR:-}
		[ -n "$sec" ] || [ -n "${LWNFS_MIRROR:-}" ] || sec=$(system_uris | grep -- '-security' | sed -n 1p)
		sec=${sec:-$main-security}
		echo "${sec%/}" ;;
	*) die "configs/suites.conf: unknown archive '$archive' for $1" ;;
	esac
}

# apt_private DIR LINE...: a private apt configuration in DIR whose sources
# are the given lines; sets the array apt_opts for the caller. Its lists and package cache
# are its own, and the system's apt setup is only read.
apt_private() {
	local dir=$1
	shift
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/cache"
	printf '%s\n' "$@" >"$dir/sources.list"
	# shellcheck disable=SC2034 # read by the caller
	apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list"
		-o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir/cache"
		-o "Dir::Cache::Archives=$dir/archives"
		-o "Dir::State::Status=/dev/null"
		-o "APT::Get::List-Cleanup=0"
		-o "APT::Sandbox::User=root")
}

# base_apt BASE: set apt_opts to BASE's private apt configuration, which
# lists the suite bases.conf names for it.
base_apt() {
	local suite
	suite=$(base_field "$1" suite)
	apt_private "$LWNFS_CACHE/apt/$1" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mirror_for "$suite") $suite main"
}

# offered_versions BASE: the versions of BASE's package that its suite
# offers now, newest first (after an apt-get update of base_apt).
offered_versions() {
	local pkg
	pkg=$(base_field "$1" package)
	apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null |
		awk -F'|' -v p="$pkg" '{ gsub(/ /, "", $1); gsub(/ /, "", $2) } $1 == p { print $2 }' |
		sort -u | sort_versions
}

# sort_versions: version lines on stdin, newest first, by Debian's rules.
sort_versions() {
	local v i sorted=()
	while IFS= read -r v; do
		i=0
		while [ $i -lt ${#sorted[@]} ] && dpkg --compare-versions "${sorted[i]}" gt "$v"; do
			i=$((i + 1))
		done
		sorted=("${sorted[@]:0:i}" "$v" "${sorted[@]:i}")
	done
	[ ${#sorted[@]} -eq 0 ] || printf '%s\n' "${sorted[@]}"
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
	(cd "$LWNFS_TOP" && find fs-lwnfs selftests-lwnfs Documentation split deltas Kconfig.snippet bases.conf \
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
[ "${LWNFS_LOCK:-yes}" = no ] || lock_cache "$@"
