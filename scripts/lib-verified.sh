# shellcheck shell=bash
# lwnfs scripts: docs/verified.txt, the trees each series was verified on
# (scripts/verify-tree.sh writes it). scripts/lib.sh sources it.

VERIFIED=$LWNFS_TOP/docs/verified.txt

# lwnfs_sources_hash SERIES: what a tree is verified with: the series
# (patches/SERIES) and the out-of-tree module's source (module/SERIES).
lwnfs_sources_hash() {
	printf '%s %s\n' "$(series_hash "$1")" "$(module_hash "$LWNFS_TOP/module/$1")" | sha256sum | cut -c1-12
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
record_verified() {
	local tmp
	tmp=$(mktemp)
	{
		verified_header
		{
			[ ! -f "$VERIFIED" ] || conf_rows "$VERIFIED" | awk -F'\t' -v n="$1" '$1 != n'
			printf '%s\n' "$2"
		} | LC_ALL=C sort -t$'\t' -k2,2Vr -k1,1
	} >"$tmp"
	mv "$tmp" "$VERIFIED"
}

verified_header() {
	echo "# The trees each series was verified on, one row a tree: written by"
	echo "# scripts/verify-tree.sh (make verify, make check-all); do not edit. A"
	echo "# row is current while its sources hash is that of its series and module"
	echo "# source now, and the series is the one its version's range gives."
	printf '# %s\n' "$(printf '%s\t' tree version series tree-from pin sources am y m w1 kselftest module | sed 's/\t$//')	date"
}

# verified_rows: docs/verified.txt's rows, each with a last column: current,
# or stale (the sources changed since, the range now gives another series,
# or the tree's row in configs/trees.conf names another commit).
verified_rows() {
	local name version series from pin sources rest state now
	[ -f "$VERIFIED" ] || return 0
	while IFS=$'\t' read -r name version series from pin sources rest; do
		state=stale
		if base_row "$name" && [ "$(base_pin "$name")" = "$pin" ] &&
			now=$("$LWNFS_TOP/scripts/ranges.sh" series "${version%.*}" 2>/dev/null) &&
			[ "$now" = "$series" ] && [ "$(lwnfs_sources_hash "$series")" = "$sources" ]; then
			state=current
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$version" "$series" "$from" "$pin" "$sources" "$rest" "$state"
	done < <(conf_rows "$VERIFIED")
}

# version_served X.Y: whether a current row of a tree of version X.Y
# passed every step.
version_served() {
	verified_rows | awk -F'\t' -v v="$1" '
		index($2, v ".") == 1 && $NF == "current" && $7 $8 $9 $10 $11 $12 == "passpasspasspasspasspass" { ok = 1 }
		END { exit !ok }'
}
