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
[ "${LWNFS_ARCH:-x86_64}" = x86_64 ] || die "make bench runs on x86_64 guests only"
# apply the series only when the tree does not have it: applying again
# would touch files that half the kernel depends on
(need_applied "$base") 2>/dev/null || "$S/apply.sh" "$base"
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

load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$S/guest.sh" "$base" bench bench
log=$LWNFS_CACHE/logs/guest-$base-x86_64-bench-bench.log

# The sections of the given objects, summed by kind: code (.text*), read-
# only data (.rodata*), data (.data*, .bss), and what is freed after boot or
# never loaded (.init.*, .exit.*). size's own "text" column would count
# the read-only data and the init code as text.
sections() {
	local f
	for f in "$@"; do
		[ -f "$f" ] || die "no $f"
		size -A "$f"
	done | awk '
		NF == 3 && $1 ~ /^\./ {
			if ($1 ~ /^\.(init|exit)\./) init += $2
			else if ($1 ~ /^\.text/) text += $2
			else if ($1 ~ /^\.rodata/) ro += $2
			else if ($1 ~ /^\.(data|bss)/) data += $2
		}
		END { printf "%d %d %d %d\n", text, ro, data, init }'
}

# foot WHO OBJECT...: the BENCH lines of one set of objects
foot() {
	local who=$1 t r d i st
	shift
	read -r t r d i < <(sections "$@")
	[[ "$t$r$d$i" =~ ^[0-9]+$ ]] || die "size -A failed on $*"
	echo "BENCH foot text $who 1 $t"
	echo "BENCH foot rodata $who 1 $r"
	echo "BENCH foot data $who 1 $d"
	echo "BENCH foot init $who 1 $i"
	# size's own text column (code, read-only data and the rest it counts
	# as text), the figure the footprint target is stated in
	st=$(size -t "$@" | awk 'END { print $1 }')
	[[ "$st" =~ ^[0-9]+$ ]] || die "size -t failed on $*"
	echo "BENCH foot sizetext $who 1 $st"
}

{
	echo "BENCH-BASE $base $(base_field "$base" version)"
	echo "BENCH-DATE $(date -u +%Y-%m-%d)"
	echo "BENCH-RUNS ${BENCH_RUNS:-5}"
	echo "BENCH-HOST $(nproc) cores, $(grep -m 1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $("$(arch_field x86_64 qemu)" --version | head -n 1)"
	echo "BENCH-LOAD $load0 -> $(cut -d' ' -f1-3 /proc/loadavg)"
	grep -E '^BENCH' "$log"
	# the objects of lwnfs (the Makefile's lwnfs-y), and of ramfs as the
	# same tinyconfig builds it
	read -ra objs < <(sed -n 's/^lwnfs-y := //p' "$tree/fs/lwnfs/Makefile")
	foot lwnfs "${objs[@]/#/$bd/fs/lwnfs/}"
	ramfs=()
	for o in inode.o file-mmu.o file-nommu.o; do
		[ ! -f "$bd/fs/ramfs/$o" ] || ramfs+=("$bd/fs/ramfs/$o")
	done
	foot ramfs "${ramfs[@]}"
	echo "BENCH foot ko lwnfs 1 $(stat -c %s "$bdm/fs/lwnfs/lwnfs.ko")"
	foot ko "$bdm/fs/lwnfs/lwnfs.ko"
	# bloat-o-meter's last line: "Total: Before=..., After=..., chg +N%"
	total=$("$tree/scripts/bloat-o-meter" "$bdm/vmlinux" "$bd/vmlinux" | tail -n 1)
	before=$(sed -n 's/.*Before=\([0-9]*\).*/\1/p' <<<"$total")
	after=$(sed -n 's/.*After=\([0-9]*\).*/\1/p' <<<"$total")
	[[ "$before$after" =~ ^[0-9]+$ ]] || die "bloat-o-meter printed no total: $total"
	echo "BENCH foot vmlinux lwnfs 1 $((after - before))"
} >"$out/$base.txt.tmp"
mv "$out/$base.txt.tmp" "$out/$base.txt"
info "$base: bench figures in $out/$base.txt"
