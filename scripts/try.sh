#!/usr/bin/env bash
# Try lwnfs on a kernel tree of your own (a vendor or custom kernel; a git
# tree or an unpacked tarball) without changing it. Pick the series whose
# range (bases.conf) holds the tree's version or, for a version outside the
# ranges, the nearest older and newer series. Apply each to scratch copies
# of the files it touches, the ways users apply patches, and say how each
# applied. Then patch a linked copy of the tree, build fs/lwnfs against the
# tree's configuration (CONFIG, else the tree's .config, else the
# architecture's defconfig) with CONFIG_LWNFS=y and W=1, and print a
# verdict line.
#
# usage: scripts/try.sh [--apply-only] TREE [CONFIG]
#   --apply-only   stop after the applying: no copy of the tree, no build
# Exit status: 0 when a series applied and fs/lwnfs built without warnings
# (with --apply-only: when a series applied with patch -p1).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage="usage: make try TREE=/path/to/linux [CONFIG=/path/to/.config] [APPLY_ONLY=1]"
apply_only=''
[ "${1:-}" != --apply-only ] || { apply_only=1 && shift; }
[ -n "${1:-}" ] || die "$usage"
[ -d "$1" ] || die "$1 is not a directory; $usage"
tree=$(cd "$1" && pwd)
config=${2:-}
[ -z "$config" ] || [ -f "$config" ] || die "no configuration file $config"
[ -z "$config" ] || config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
{ [ -f "$tree/Makefile" ] && [ -f "$tree/Kconfig" ]; } ||
	die "$tree is not a kernel source tree (it has no top Makefile and Kconfig)"
field() {
	sed -n "s/^$1 = *//p" "$tree/Makefile" | head -n 1
}
v=$(field VERSION) p=$(field PATCHLEVEL) s=$(field SUBLEVEL)
[[ $v =~ ^[0-9]+$ && $p =~ ^[0-9]+$ ]] || die "$tree/Makefile names no VERSION and PATCHLEVEL"
version=$v.$p.${s:-0}

# The series to try: the one whose range (bases.conf's first and last)
# holds the tree's version; for a version outside the ranges, the series
# of the nearest ranges below and above it.
range_note=''
own=$("$LWNFS_TOP/scripts/ranges.sh" pick "$v.$p") || die "the ranges of bases.conf cannot be read (above)"
own=${own#* }
if [ "$own" != - ]; then
	cands=("$own")
	if version_served "$v.$p"; then
		range_note=" (Linux $v.$p: served, docs/verified.txt)"
	else
		range_note=" (Linux $v.$p: not verified; docs/verified.txt has no current row of it that passed, or one that failed)"
	fi
	info "Linux $version at $tree: Linux $v.$p is in the range of the $own series"
else
	read -r older newer < <("$LWNFS_TOP/scripts/ranges.sh" near "$v.$p")
	cands=()
	[ "$older" = - ] || cands+=("$older")
	[ "$newer" = - ] || cands+=("$newer")
	range_note=" (Linux $v.$p is outside the versions lwnfs serves: $("$LWNFS_TOP/scripts/ranges.sh" text))"
	info "Linux $version at $tree: no series serves Linux $v.$p; trying ${cands[*]}"
fi

mkdir -p "$LWNFS_CACHE/try"
work=$(mktemp -d "$LWNFS_CACHE/try/run.XXXXXX")
trap 'rm -rf "$work"' EXIT

# user_files SERIES DIR: this tree's version of each file the series changes.
user_files() {
	local f
	mkdir -p "$2"
	series_files "$1" | while IFS= read -r f; do
		[ -f "$tree/$f" ] || continue
		mkdir -p "$2/$(dirname "$f")"
		cp "$tree/$f" "$2/$f"
	done
}

# user_repo BASE DIR: user_files as a git repository, with the pristine
# base's blobs of those files when its tree is in the cache, which git am
# -3 needs to merge.
user_repo() {
	local dir=$2 base_tree f
	user_files "$(series_dir "$1")" "$dir"
	git -C "$dir" init -q && git -C "$dir" add -A && git_fixed -C "$dir" commit -q --allow-empty -m "$tree"
	base_tree=$(tree_dir "$1")
	git -C "$base_tree" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1 || return 0
	series_files "$(series_dir "$1")" | while IFS= read -r f; do
		if git -C "$base_tree" cat-file -e "$BASE_TAG:$f" 2>/dev/null; then
			git -C "$base_tree" show "$BASE_TAG:$f" | git -C "$dir" hash-object -w --stdin >/dev/null
		fi
	done
}

# first_reject DIR: the first rejected hunk that patch left in DIR.
first_reject() {
	local rej
	rej=$(find "$1" -name '*.rej' | LC_ALL=C sort | head -n 1)
	[ -n "$rej" ] || return 0
	echo "      the hunk that fails (${rej#"$1"/}):"
	awk 'NR > 2 && /^@@/ { n++ } n < 2' "$rej" | head -n 20 | sed 's/^/      | /'
}

# try_series BASE: apply BASE's series each way; 0 when patch -p1 took it.
try_series() {
	local base=$1 dir pdir pat out how=clean fuzz=0 offset=0 r=0 status=0
	dir=$(series_dir "$base")
	echo "== the $base series"
	# git am, then git am -3
	user_repo "$base" "$work/am"
	if git_fixed -C "$work/am" am -q "$dir"/*.patch >"$work/am.log" 2>&1; then
		echo "   git am:                 clean"
	else
		echo "   git am:                 fails at $(sed -n 's/^Patch failed at [0-9]* //p' "$work/am.log" | head -n 1)"
		git_fixed -C "$work/am" am --abort
		if git_fixed -C "$work/am" am -q -3 "$dir"/*.patch >"$work/am3.log" 2>&1; then
			echo "   git am -3:              applies, with a three-way merge"
		else
			echo "   git am -3:              conflict at $(sed -n 's/^Patch failed at [0-9]* //p' "$work/am3.log" | head -n 1):"
			grep -E '^(CONFLICT|error)' "$work/am3.log" | head -n 3 | sed 's/^/      | /'
			git_fixed -C "$work/am" am --abort
		fi
	fi
	rm -rf "$work/am"
	# kgit-s2q (Yocto): git am, then git am -C1, then git apply --index -C1
	user_repo "$base" "$work/s2q"
	for pat in "$dir"/*.patch; do
		if ! out=$(s2q_apply "$work/s2q" "$pat"); then
			how="conflict at $(basename "$pat")" && break
		fi
		[ -z "$out" ] || [ "$how" != clean ] || how="only through $out ($(basename "$pat") first)"
	done
	echo "   Yocto (kgit-s2q):       $how"
	rm -rf "$work/s2q"
	# patch -p1, as Buildroot, quilt and most build systems apply
	pdir=$work/patch-$base
	user_files "$dir" "$pdir"
	for pat in "$dir"/*.patch; do
		out=$(patch -p1 -N -t --no-backup-if-mismatch -d "$pdir" <"$pat" 2>&1) || r=1
		fuzz=$((fuzz + $(grep -c 'with fuzz' <<<"$out" || true)))
		offset=$((offset + $(grep -c '(offset' <<<"$out" || true)))
		[ "$r" -eq 0 ] || { echo "   patch -p1 (Buildroot):  conflict at $(basename "$pat")"; first_reject "$pdir"; status=1 && break; }
	done
	if [ "$status" -eq 0 ]; then
		how=clean
		[ "$offset" -eq 0 ] || how="with offsets ($offset hunk(s))"
		[ "$fuzz" -eq 0 ] || how="with fuzz ($fuzz hunk(s); Buildroot takes it, make check's rules do not)"
		echo "   patch -p1 (Buildroot):  $how"
	fi
	rm -rf "$pdir"
	return "$status"
}

chosen=''
for b in "${cands[@]}"; do
	# in the background, where errexit holds (a function called in a test
	# runs without it): a step that fails there is an error, not a verdict
	# on the series (status 1 is patch's conflict)
	rc=0
	try_series "$b" &
	wait $! || rc=$?
	case $rc in
	0) [ -n "$chosen" ] || chosen=$b ;;
	1) ;;
	*) die "trying the $b series failed (above)" ;;
	esac
done
[ -n "$chosen" ] || die "verdict: Linux $version: no series of lwnfs applies to $tree (${cands[*]} tried; above)"
if [ -n "$apply_only" ]; then
	echo "verdict: Linux $version: the $chosen series applies with patch -p1 (not built: --apply-only)$range_note"
	exit 0
fi

# The build: a copy of the tree, linked where the filesystem allows (patch
# writes a new file, never into a linked one), patched with patch -p1.
copy=$work/linux
mkdir -p "$copy"
for e in "$tree"/* "$tree"/.[!.]*; do
	{ [ -e "$e" ] && [ "$(basename "$e")" != .git ]; } || continue
	cp -al "$e" "$copy/" 2>/dev/null || { rm -rf "${copy:?}/${e##*/}" && cp -a "$e" "$copy/"; }
done
while IFS= read -r pat; do
	patch -s -p1 -N -t --no-backup-if-mismatch -d "$copy" <"$(series_dir "$chosen")/$pat" >/dev/null
done <"$(series_dir "$chosen")/series"
[ -n "$config" ] || [ ! -f "$tree/.config" ] || config=$tree/.config
arch=x86_64
if [ -n "$config" ]; then
	arch=''
	for a in arm64:CONFIG_ARM64 arm:CONFIG_ARM riscv64:CONFIG_RISCV x86_64:CONFIG_X86_64; do
		! grep -qx "${a#*:}=y" "$config" || { arch=${a%%:*} && break; }
	done
	[ -n "$arch" ] || die "$config is for an architecture lwnfs does not build for ($(conf_rows "$CONFIGS/arch.conf" | awk '{ printf "%s ", $1 }')in configs/arch.conf)"
fi
cross=$(arch_field "$arch" cross)
[ -z "$cross" ] || need_cmd "${cross}gcc" "gcc-${cross%-}"
out=$work/build
# the copy must be clean for an O= build: a tree's own build output goes
(cd "$copy" && make -s mrproper >/dev/null 2>&1) || true
kmake() {
	CCACHE_DIR=${CCACHE_DIR:-$LWNFS_CACHE/ccache} make -s -C "$copy" O="$out" -j"$JOBS" \
		ARCH="$(arch_field "$arch" karch)" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" "$@"
}
log=$LWNFS_CACHE/try/build.log
configured=1
if [ -n "$config" ]; then
	mkdir -p "$out" && cp "$config" "$out/.config"
	kmake olddefconfig >"$log" 2>&1 || configured=''
else
	kmake defconfig >"$log" 2>&1 || configured=''
fi
if [ -z "$configured" ] || ! "$copy/scripts/config" --file "$out/.config" --enable LWNFS ||
	! kmake olddefconfig >>"$log" 2>&1; then
	die "verdict: Linux $version: the configuration could not be made (log: $log)"
fi
grep -qx 'CONFIG_LWNFS=y' "$out/.config" || die "verdict: CONFIG_LWNFS=y does not stick in the configuration (log: $log)"
info "building fs/lwnfs ($arch, the $chosen series, ${config:-the defconfig of $arch}); log: $log"
if ! kmake prepare >>"$log" 2>&1 || ! kmake W=1 fs/lwnfs/ >>"$log" 2>&1; then
	grep -iE 'error' "$log" | head -n 10 || true
	die "verdict: Linux $version: the $chosen series applies, but fs/lwnfs does not build (log: $log)"
fi
warnings=$(grep -c 'fs/lwnfs/.*warning:' "$log" || true)
[ "$warnings" -eq 0 ] || grep 'fs/lwnfs/.*warning:' "$log"
echo "verdict: Linux $version: the $chosen series applies with patch -p1 and fs/lwnfs builds ($arch, W=1): $warnings warnings$range_note"
[ "$warnings" -eq 0 ]
