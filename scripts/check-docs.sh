#!/usr/bin/env bash
# Build the filesystems documentation of a base (with the series applied) and
# fail on any warning or error that names lwnfs. The bases have warnings of their own,
# which are counted but not held against lwnfs. The lwnfs page and the index
# are marked changed first, so that Sphinx reads them (and warns) on every
# run, not only on the first.
#
# usage: scripts/check-docs.sh BASE
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
need_applied "$base"
need_cmd sphinx-build python3-sphinx
tree=$(tree_dir "$base")
bd=$(build_dir "$base" docs)
log=$bd.log
mkdir -p "$bd"

touch "$tree/Documentation/filesystems/lwnfs.rst" "$tree/Documentation/filesystems/index.rst"
LC_ALL=C.UTF-8 make -C "$tree" O="$bd" SPHINXDIRS=filesystems htmldocs >"$log" 2>&1 || {
	tail -n 30 "$log"
	die "$base: make htmldocs SPHINXDIRS=filesystems failed (full log: $log)"
}
html=$(find "$bd/Documentation/output" -name lwnfs.html | sed -n 1p)
[ -n "$html" ] || die "$base: htmldocs produced no lwnfs.html; is lwnfs.rst in the toctree?"
# The cache path itself contains "lwnfs": take it out before looking.
# Sphinx reports ERROR and SEVERE findings without failing the build.
warnings=$(grep -iE '(warning|error|severe|critical):' "$log" | sed "s|$tree/||g; s|$bd/||g" || true)
all=$(grep -c . <<<"$warnings" || true)
if grep -qi lwnfs <<<"$warnings"; then
	grep -i lwnfs <<<"$warnings"
	die "$base: htmldocs warnings name lwnfs (full log: $log)"
fi
info "$base: htmldocs: 0 warnings name lwnfs ($all from the base itself)"
