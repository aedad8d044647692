#!/usr/bin/env bash
# make bench, one base: build the bench kernels, run bench/lwnfs_bench in a
# -smp 4 guest, measure the footprint, and write every figure to
# $LWNFS_CACHE/bench/BASE.txt for scripts/bench-report.py.
#
# usage: scripts/bench.sh BASE
#
# The builds are the y variant's tinyconfig (-Os) with configs/bench.config:
#   bench    lwnfs built in, no KUnit tests, debugfs; the guest boots it
#   benchm   the same with lwnfs as a module: the .ko, and the vmlinux
#            without lwnfs that bloat-o-meter compares with
# The debugfs attribute module (bench/debugfs/) is built against bench.
# BENCH_RUNS (default 5) is the number of runs of each benchmark.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=${1:?usage: $0 BASE}
S=$LWNFS_TOP/scripts
need_applied "$base"
need_cmd size binutils
tree=$(tree_dir "$base")
out=$LWNFS_CACHE/bench
mkdir -p "$out"

"$S/build.sh" "$base" bench
"$S/build.sh" "$base" benchm
bd=$(build_dir "$base" x86_64-bench)
bdm=$(build_dir "$base" x86_64-benchm)

# The attribute module is built out of the repository, in the build
# directory, from a copy of its source.
mod=$bd/bench-debugfs
rm -rf "$mod"
mkdir -p "$mod"
cp "$LWNFS_TOP"/bench/debugfs/* "$mod/"
make -s -C "$tree" O="$bd" -j"$JOBS" CC="ccache gcc" M="$mod" modules
[ -f "$mod/lwnfs_bench_debugfs.ko" ] || die "the bench module did not build in $mod"

"$S/guest.sh" "$base" bench bench
log=$LWNFS_CACHE/logs/guest-$base-x86_64-bench-bench.log

# size's text and data columns of the given objects, summed
text_data() {
	size "$@" | awk 'NR > 1 { t += $1; d += $2 } END { print t, d }'
}

{
	echo "BENCH-BASE $base $(base_field "$base" version)"
	echo "BENCH-DATE $(date -u +%Y-%m-%d)"
	grep -E '^BENCH' "$log"
	# the objects of lwnfs (the Makefile's lwnfs-y), and of ramfs as the
	# same tinyconfig builds it
	read -ra objs < <(sed -n 's/^lwnfs-y := //p' "$tree/fs/lwnfs/Makefile")
	objs=("${objs[@]/#/$bd/fs/lwnfs/}")
	read -r t d < <(text_data "${objs[@]}")
	echo "BENCH foot text lwnfs 1 $t"
	echo "BENCH foot data lwnfs 1 $d"
	ramfs=()
	for o in inode.o file-mmu.o file-nommu.o; do
		[ ! -f "$bd/fs/ramfs/$o" ] || ramfs+=("$bd/fs/ramfs/$o")
	done
	read -r t d < <(text_data "${ramfs[@]}")
	echo "BENCH foot text ramfs 1 $t"
	echo "BENCH foot data ramfs 1 $d"
	echo "BENCH foot ko lwnfs 1 $(stat -c %s "$bdm/fs/lwnfs/lwnfs.ko")"
	read -r t d < <(text_data "$bdm/fs/lwnfs/lwnfs.ko")
	echo "BENCH foot kotext lwnfs 1 $t"
	# bloat-o-meter's last line: "Total: Before=..., After=..., chg +N%"
	total=$("$tree/scripts/bloat-o-meter" "$bdm/vmlinux" "$bd/vmlinux" | tail -n 1)
	before=$(sed -n 's/.*Before=\([0-9]*\).*/\1/p' <<<"$total")
	after=$(sed -n 's/.*After=\([0-9]*\).*/\1/p' <<<"$total")
	echo "BENCH foot vmlinux lwnfs 1 $((after - before))"
} >"$out/$base.txt.tmp"
mv "$out/$base.txt.tmp" "$out/$base.txt"
info "$base: bench figures in $out/$base.txt"
