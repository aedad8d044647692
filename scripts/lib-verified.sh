# shellcheck shell=bash
# lwnfs scripts: docs/verified.txt, the trees each series was verified on
# (scripts/verify-tree.sh writes it). scripts/lib.sh sources it.

VERIFIED=$LWNFS_TOP/docs/verified.txt

# lwnfs_sources_hash SERIES: what a tree is verified with: the series
# (patches/SERIES) and the out-of-tree module's source (module/SERIES).
lwnfs_sources_hash() {
	local s m
	s=$(series_hash "$1") || return 1
	[ -f "$LWNFS_TOP/module/$1/Kbuild" ] || { echo "error: no module/$1; run: make patches" >&2 && return 1; }
	m=$(module_hash "$LWNFS_TOP/module/$1") || return 1
	printf '%s %s\n' "$s" "$m" | sha256sum | cut -c1-12
}

# provenance NAME: where a base's or tree's tree comes from, in a word or
# two: a git repository, or Debian's package and suite.
provenance() {
	if [ "$(base_source "$1")" = git ]; then
		base_field "$1" repo
	else
		echo "Debian $(base_field "$1" package) ($(base_field "$1" suite))"
	fi
}

# record_verified NAME ROW: make ROW (tab-separated, as verified_header
# names the columns) NAME's row of docs/verified.txt, newest version first.
# The rows of trees that are no longer a base or in configs/trees.conf go.
record_verified() {
	local tmp name line
	tmp=$(mktemp "$VERIFIED.XXXXXX")
	{
		verified_header
		{
			if [ -f "$VERIFIED" ]; then
				while IFS= read -r line; do
					name=${line%%$'\t'*}
					[ "$name" != "$1" ] && base_row "$name" && echo "$line"
				done < <(conf_rows "$VERIFIED")
			fi
			printf '%s\n' "$2"
		} | LC_ALL=C sort -t$'\t' -k2,2Vr -k1,1
	} >"$tmp" || { rm -f "$tmp" && return 1; }
	chmod 644 "$tmp"
	mv "$tmp" "$VERIFIED"
}

verified_header() {
	echo "# The trees each series was verified on, one row a tree: written by"
	echo "# scripts/verify-tree.sh (make verify, make check-all); do not edit. A"
	echo "# row is current while its tree's pin is the one bases.conf or"
	echo "# configs/trees.conf names, its sources hash is that of its series and"
	echo "# module source now, and the series is the one its version's range gives."
	printf '# %s\n' "$(printf '%s\t' tree version series tree-from pin sources am y m w1 kselftest module | sed 's/\t$//')	date"
}

# verified_rows: docs/verified.txt's rows, each with a last column:
#   current   the tree is at the pin its row names, the sources hash is
#             that of its series now, and its version's range gives that
#             series
#   outside   the same, but no range holds its version (a tree verified
#             before its range is widened)
#   stale     the sources or the pin changed since, or the range gives
#             another series
verified_rows() {
	local name version series from pin sources rest state picked
	local -A hash=()
	[ -f "$VERIFIED" ] || return 0
	picked=$(conf_rows "$VERIFIED" | awk -F'\t' '{ split($2, v, "."); print v[1] "." v[2] }' |
		xargs -r "$LWNFS_TOP/scripts/ranges.sh" pick) || return 1
	while IFS=$'\t' read -r name version series from pin sources rest; do
		state=stale
		[ -n "${hash[$series]:-}" ] || hash[$series]=$(lwnfs_sources_hash "$series" 2>/dev/null || echo none)
		if base_row "$name" && [ "$(base_pin "$name")" = "$pin" ] && [ "${hash[$series]}" = "$sources" ]; then
			case "$(awk -v v="${version%.*}" '$1 == v { print $2; exit }' <<<"$picked")" in
			"$series") state=current ;;
			-) state=outside ;;
			esac
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$version" "$series" "$from" "$pin" "$sources" "$rest" "$state"
	done < <(conf_rows "$VERIFIED")
}

# served_versions ROWS: the versions X.Y that count as served: a current
# row of a tree of X.Y passed every step, and no current row of X.Y failed
# one. ROWS: verified_rows's output.
served_versions() {
	awk -F'\t' '
		$NF == "current" {
			split($2, v, "."); xy = v[1] "." v[2]
			if ($7 $8 $9 $10 $11 $12 == "passpasspasspasspasspass") ok[xy] = 1; else bad[xy] = 1
		}
		END { for (xy in ok) if (!(xy in bad)) print xy }' <<<"$1"
}

# version_served X.Y: whether X.Y counts as served (served_versions)
version_served() {
	local rows
	rows=$(verified_rows) || return 1
	served_versions "$rows" | grep -qxF -- "$1"
}
