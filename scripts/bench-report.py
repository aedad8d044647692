#!/usr/bin/env python3
"""make bench's report: the figures scripts/bench.sh gathered for each base
($LWNFS_CACHE/bench/BASE.txt) as tables on stdout, and as bench/results.md
with gnuplot's PNG plots of the scaling curves.

usage: scripts/bench-report.py OUTDIR BASE...

Each figure is the median of its runs, with the min and max. A ratio is
taken within each run, between figures measured side by side in the same
guest, and its median is reported.
"""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

TARGETS = [
    ("zero", "/dev/zero (the floor)"),
    ("lwnfs", "lwnfs counter"),
    ("debugfs", "debugfs attribute (DEFINE_DEBUGFS_ATTRIBUTE; cannot seek: write())"),
    ("sysfs", "sysfs /sys/kernel/uevent_seqnum"),
    ("procfs", "procfs /proc/loadavg"),
    ("null", "/dev/null (the write floor)"),
]
NS = (1000, 10000, 100000)
OPS = ("create", "stat", "read", "unlink")


def load(path):
    """BENCH lines into {(group, what, param): {run: value}} and the header."""
    data = defaultdict(dict)
    head = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] in ("BENCH-BASE", "BENCH-DATE", "BENCH-CPU", "BENCH-CPUS"):
                head[w[0]] = " ".join(w[1:])
            elif w[0] == "BENCH" and len(w) == 6:
                data[(w[1], w[2], w[3])][int(w[4])] = float(w[5])
    return data, head


def stat(values):
    v = sorted(values)
    return statistics.median(v), v[0], v[-1], len(v)


def fmt(values, digits=0):
    if not values:
        return "-"
    med, lo, hi, _ = stat(values)
    return f"{med:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def ratios(data, a, b):
    """per-run a/b for runs that have both"""
    ra, rb = data.get(a, {}), data.get(b, {})
    return [ra[r] / rb[r] for r in ra if r in rb and rb[r] > 0]


def read_table(data):
    out = ["| file | pread 64 B, ns | x floor | pwrite \"12345\\n\", ns | open+read+close, ns |",
           "|---|---|---|---|---|"]
    for key, name in TARGETS:
        pread = list(data.get(("read", "pread", key), {}).values())
        x = ratios(data, ("read", "pread", key), ("read", "pread", "zero"))
        pwrite = list(data.get(("read", "pwrite", key), {}).values())
        cat = list(data.get(("read", "cat", key), {}).values())
        out.append(f"| {name} | {fmt(pread)} | {fmt(x, 2) if pread else '-'} | "
                   f"{fmt(pwrite)} | {fmt(cat)} |")
    return out


def targets(data):
    """the issue's three read-path targets, each with its measured ratio"""
    def med(xs):
        return statistics.median(xs) if xs else float("nan")
    floor = med(ratios(data, ("read", "pread", "lwnfs"), ("read", "pread", "zero")))
    # the attribute cannot seek: a fresh value costs it an open+read+close
    dbg_pread = med(ratios(data, ("read", "cat", "debugfs"), ("read", "pread", "lwnfs")))
    dbg_cat = med(ratios(data, ("read", "cat", "debugfs"), ("read", "cat", "lwnfs")))
    sysfs = med(ratios(data, ("read", "pread", "sysfs"), ("read", "pread", "lwnfs")))
    if any(x != x for x in (floor, dbg_pread, dbg_cat, sysfs)):  # NaN: missing
        return ["- the read-path targets: not all figures were measured"]
    return [
        f"- read at most 1.3x the floor: {floor:.2f}x, "
        f"{'met' if floor <= 1.3 else 'NOT met'}",
        f"- faster than the debugfs attribute: a fresh value from it (open+read+close; "
        f"it cannot pread) takes {dbg_pread:.2f}x an lwnfs pread, and {dbg_cat:.2f}x "
        f"an lwnfs open+read+close, "
        f"{'met' if dbg_pread > 1 and dbg_cat > 1 else 'NOT met'}",
        f"- at least 3x faster than sysfs: a sysfs pread takes {sysfs:.2f}x an lwnfs pread, "
        f"{'met' if sysfs >= 3 else 'NOT met'}",
    ]


def scale_table(data):
    out = ["| readers | one counter, reads/s | one counter each, reads/s |",
           "|---|---|---|"]
    for p in ("1", "2", "4"):
        same = list(data.get(("scale", "same", p), {}).values())
        sep = list(data.get(("scale", "separate", p), {}).values())
        out.append(f"| {p} | {fmt(same)} | {fmt(sep)} |")
    return out


def entries_table(data):
    out = ["| N | create (mknod), us | lookup (stat), us | read (open+read+close), us "
           "| unlink, us | slab bytes per counter |",
           "|---|---|---|---|---|---|"]
    for n in NS:
        cells = [fmt(list(data.get(("entries", op, str(n)), {}).values()), 2) for op in OPS]
        mem = fmt(list(data.get(("entries", "bytes", str(n)), {}).values()))
        out.append(f"| {n} | " + " | ".join(cells) + f" | {mem} |")
    return out


def foot_table(data):
    def one(what, who):
        v = data.get(("foot", what, who), {}).get(1)
        return "-" if v is None else f"{int(v)}"
    return ["| | bytes |", "|---|---|",
            f"| lwnfs text (super.o + counter.o, -Os) | {one('text', 'lwnfs')} |",
            f"| lwnfs data | {one('data', 'lwnfs')} |",
            f"| ramfs text (inode.o + file-mmu.o), same build | {one('text', 'ramfs')} |",
            f"| ramfs data | {one('data', 'ramfs')} |",
            f"| lwnfs.ko, file size | {one('ko', 'lwnfs')} |",
            f"| lwnfs.ko, text | {one('kotext', 'lwnfs')} |",
            f"| vmlinux growth for =y (bloat-o-meter, =m vs =y) | {one('vmlinux', 'lwnfs')} |"]


def plot(outdir, base, data):
    """two PNGs: reads/s against readers, and us per op against N"""
    png = []
    dat = os.path.join(outdir, f".{base}.dat")
    name = f"scaling-{base}.png"
    with open(dat, "w") as f:
        for p in ("1", "2", "4"):
            same = data.get(("scale", "same", p), {}).values()
            sep = data.get(("scale", "separate", p), {}).values()
            if same and sep:
                f.write(f"{p} {statistics.median(same)} {statistics.median(sep)}\n")
    script = f"""set terminal pngcairo size 640,400
set output '{os.path.join(outdir, name)}'
set title 'lwnfs {base}: pread throughput against readers (median of runs)'
set xlabel 'reader processes'
set ylabel 'reads per second'
set xtics (1, 2, 4)
set yrange [0:*]
set key left top
plot '{dat}' using 1:2 with linespoints title 'one counter', \\
     '' using 1:3 with linespoints title 'one counter each'
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    png.append(name)
    name = f"entries-{base}.png"
    with open(dat, "w") as f:
        for n in NS:
            row = [str(n)]
            for op in OPS:
                v = data.get(("entries", op, str(n)), {}).values()
                row.append(str(statistics.median(v)) if v else "NaN")
            f.write(" ".join(row) + "\n")
    script = f"""set terminal pngcairo size 640,400
set output '{os.path.join(outdir, name)}'
set title 'lwnfs {base}: time per operation against N counters (median of runs)'
set xlabel 'counters in one directory (N)'
set ylabel 'microseconds per operation'
set logscale x
set yrange [0:*]
set key left top
plot for [i=2:5] '{dat}' using 1:i with linespoints title word('create stat read unlink', i-1)
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    png.append(name)
    os.unlink(dat)
    return png


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bench-report.py OUTDIR BASE...")
    outdir, bases = sys.argv[1], sys.argv[2:]
    cache = os.environ.get("LWNFS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lwnfs")
    md = ["# lwnfs benchmarks", "",
          "Written by `make bench` (scripts/bench.sh, scripts/bench-report.py); "
          "the program is bench/lwnfs_bench.c. Each figure is the median of its "
          "runs with (min-max); a ratio is taken within each run and its median "
          "given. The guests run under QEMU's TCG (no KVM), so only the ratios "
          "between figures of one guest carry meaning.", ""]
    for base in bases:
        data, head = load(os.path.join(cache, "bench", f"{base}.txt"))
        runs = max((len(v) for k, v in data.items() if k[0] == "read"), default=0)
        sect = [f"## {base}", "",
                f"Debian {head.get('BENCH-BASE', base).split(' ', 1)[-1]}, "
                f"measured {head.get('BENCH-DATE', '?')}, "
                f"{runs} runs, guest CPU: {head.get('BENCH-CPU', '?')} "
                f"x {head.get('BENCH-CPUS', '?')}", "",
                "### Read path", ""] + read_table(data) + [""] + targets(data) + [
                "", "### Scaling: pread at offset 0", ""] + scale_table(data) + [
                "", "### Counters users create (max_entries=0)", ""] + entries_table(data) + [
                "", "### Footprint (tinyconfig, -Os)", ""] + foot_table(data) + [""]
        print("\n".join(sect))
        for p in plot(outdir, base, data):
            sect.append(f"![{p}]({p})")
        md += sect + [""]
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(md).rstrip() + "\n")


if __name__ == "__main__":
    main()
