# shellcheck shell=bash
# lwnfs scripts: Debian's mirrors and private apt configurations.
# scripts/lib.sh sources it; nothing else should.

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
