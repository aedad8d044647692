#!/usr/bin/env bash
# Write a base's series, with its cover letter, for posting under your own
# name: you are the author, the Signed-off-by and the MAINTAINERS entry's
# M: line. The T: line names your tree, or is left out. The committed
# patches/ keep the project's fixed identity.
#
# usage: scripts/post.sh --name NAME --email EMAIL [--tree URL] BASE OUTDIR
# Then: git send-email OUTDIR/*.patch (0000-cover-letter.patch first)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage="usage: $0 --name NAME --email EMAIL [--tree URL] BASE OUTDIR"
name='' email='' tree=''
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=${2:?$usage} && shift 2 ;;
	--email) email=${2:?$usage} && shift 2 ;;
	--tree) tree=${2:?$usage} && shift 2 ;;
	-*) die "$usage" ;;
	*) break ;;
	esac
done
if [ -z "$name" ] || [ -z "$email" ] || [ $# -ne 2 ]; then
	die "$usage"
fi
base=$1 outdir=$2
check_base "$base"
case "$email" in *@*.*) ;; *) die "'$email' does not look like an email address" ;; esac
case "$name$email" in *'<'* | *'>'* | *$'\n'*) die "the name and email must not contain <, > or a newline" ;; esac
[ ! -e "$outdir" ] || [ -z "$(ls -A "$outdir")" ] || die "$outdir is not empty; give a new or empty directory"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
LWNFS_IDENT_NAME=$name LWNFS_IDENT_EMAIL=$email LWNFS_POST_TREE=$tree \
	"$LWNFS_TOP/scripts/gen-patches.sh" --post -o "$work" "$base"
mkdir -p "$outdir"
cp "$work/$base"/*.patch "$outdir/"
info "$base: $(find "$outdir" -name '*.patch' | wc -l) patches in $outdir, from $name <$email>"
