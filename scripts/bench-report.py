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
    ("zero", "/dev/zero (the floor; it has a ->read)"),
    ("full", "/dev/full (the same zeroes, by its ->read_iter alone)"),
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
            if w[0] in ("BENCH-BASE", "BENCH-DATE", "BENCH-CPU", "BENCH-CPUS",
                        "BENCH-HOST", "BENCH-LOAD", "BENCH-RUNS", "BENCH-NOTE"):
                head[w[0]] = " ".join(w[1:])
            elif w[0] == "BENCH" and len(w) == 6:
                data[(w[1], w[2], w[3])][int(w[4])] = float(w[5])
    return data, head


def expected_keys():
    """every figure a complete bench run gives, with how many runs it has"""
    keys = []
    for key, _ in TARGETS:
        if key in ("zero", "full", "lwnfs", "sysfs", "procfs"):
            keys.append(("read", "pread", key))
        if key in ("zero", "lwnfs", "debugfs", "sysfs", "procfs"):
            keys.append(("read", "cat", key))
        if key in ("lwnfs", "debugfs", "null"):
            keys.append(("read", "pwrite", key))
    for p in ("1", "2", "4"):
        keys += [("scale", "same", p), ("scale", "separate", p)]
    for n in NS:
        keys += [("entries", op, str(n)) for op in OPS + ("bytes",)]
    return keys


def check_complete(base, data, runs):
    """exit with the missing figures unless each has exactly RUNS runs"""
    bad = [" ".join(k) + f" ({len(data.get(k, {}))} runs)" for k in expected_keys()
           if len(data.get(k, {})) != runs]
    if bad:
        sys.exit(f"bench-report: {base}: expected {runs} runs of every figure; not so for: "
                 + ", ".join(bad))


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
    out = ["| file | pread 64 B, ns | x floor | x /dev/full | pwrite \"12345\\n\", ns "
           "| open+read+close, ns |",
           "|---|---|---|---|---|---|"]
    for key, name in TARGETS:
        pread = list(data.get(("read", "pread", key), {}).values())
        x = ratios(data, ("read", "pread", key), ("read", "pread", "zero"))
        xf = ratios(data, ("read", "pread", key), ("read", "pread", "full"))
        pwrite = list(data.get(("read", "pwrite", key), {}).values())
        cat = list(data.get(("read", "cat", key), {}).values())
        out.append(f"| {name} | {fmt(pread)} | {fmt(x, 2) if pread else '-'} | "
                   f"{fmt(xf, 2) if pread else '-'} | {fmt(pwrite)} | {fmt(cat)} |")
    return out


def targets(data):
    """the issue's three read-path targets, each with its measured ratio"""
    def med(xs):
        return statistics.median(xs) if xs else float("nan")
    floor = med(ratios(data, ("read", "pread", "lwnfs"), ("read", "pread", "zero")))
    full = med(ratios(data, ("read", "pread", "full"), ("read", "pread", "zero")))
    iter_floor = med(ratios(data, ("read", "pread", "lwnfs"), ("read", "pread", "full")))
    # the attribute cannot seek: a fresh value costs it an open+read+close
    dbg_pread = med(ratios(data, ("read", "cat", "debugfs"), ("read", "pread", "lwnfs")))
    dbg_cat = med(ratios(data, ("read", "cat", "debugfs"), ("read", "cat", "lwnfs")))
    sysfs = med(ratios(data, ("read", "pread", "sysfs"), ("read", "pread", "lwnfs")))
    if any(x != x for x in (floor, full, iter_floor, dbg_pread, dbg_cat, sysfs)):  # NaN
        return ["- the read-path targets: not all figures were measured"]
    return [
        f"- read at most 1.3x the floor: {floor:.2f}x, "
        f"{'met' if floor <= 1.3 else 'NOT met'}; /dev/full, the same zeroes through "
        f"->read_iter alone (a file with both ->read and ->read_iter cannot be read with "
        f"kernel_read()), takes {full:.2f}x, and lwnfs takes {iter_floor:.2f}x /dev/full",
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
    out = ["| objects | size's text | .text | .rodata | .data, .bss | .init, .exit |",
           "|---|---|---|---|---|---|"]
    for who, name in (("lwnfs", "lwnfs, built in (super.o + counter.o)"),
                      ("ramfs", "ramfs, same build (inode.o + file-mmu.o)"),
                      ("ko", "lwnfs.ko")):
        out.append(f"| {name} | {one('sizetext', who)} | {one('text', who)} | {one('rodata', who)} | "
                   f"{one('data', who)} | {one('init', who)} |")
    out += ["", f"lwnfs.ko is {one('ko', 'lwnfs')} bytes on disk; "
            f"bloat-o-meter counts {one('vmlinux', 'lwnfs')} bytes more in the =y vmlinux "
            f"than in the =m one (lwnfs as a module, so not in vmlinux)."]
    return out


def verdicts(data):
    """the issue's other targets: text, bytes per counter, flat costs"""
    out = []
    text = data.get(("foot", "sizetext", "lwnfs"), {}).get(1)
    if text is not None:
        out.append(f"- lwnfs at most 4 KiB of text as size(1) counts it (its text column: "
                   f".text, .rodata, .init and .exit text and the other read-only sections): "
                   f"{int(text)} bytes, {'met' if text <= 4096 else 'NOT met'}")
    else:
        out.append("- lwnfs at most 4 KiB of text as size(1) counts it: not measured by this run")
    mem = list(data.get(("entries", "bytes", str(NS[-1])), {}).values())
    if mem:
        m = statistics.median(mem)
        out.append(f"- 1 KiB or less of slab per counter (at N = {NS[-1]}): {m:.0f} bytes, "
                   f"{'met' if m <= 1024 else 'NOT met'}")
    worst = 0
    for op in OPS:
        a = list(data.get(("entries", op, str(NS[0])), {}).values())
        b = list(data.get(("entries", op, str(NS[-1])), {}).values())
        if a and b:
            worst = max(worst, statistics.median(b) / statistics.median(a))
    if worst:
        out.append(f"- flat time per operation (at most 1.5x from N = {NS[0]} to {NS[-1]}): "
                   f"worst {worst:.2f}x, {'met' if worst <= 1.5 else 'NOT met'}")
    return out


def med_min_max(data, key):
    """the median, min and max of one figure, as gnuplot columns"""
    v = sorted(data.get(key, {}).values()) or [float("nan")]
    return [str(statistics.median(v)), str(v[0]), str(v[-1])]


def gnuplot(outdir, name, rows, settings, plot_cmd):
    """write ROWS to a data file and plot them into OUTDIR/NAME"""
    dat = os.path.join(outdir, f".{name}.dat")
    with open(dat, "w") as f:
        f.write("".join(" ".join(r) + "\n" for r in rows))
    script = (f"set terminal pngcairo size 640,400\nset output '{os.path.join(outdir, name)}'\n"
              f"{settings}\nset yrange [0:*]\nplot {plot_cmd.format(dat=dat)}\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.unlink(dat)
    return name


def plot(outdir, base, data):
    """two PNGs: reads/s against readers, and us per op against N"""
    scaling = gnuplot(
        outdir, f"scaling-{base}.png",
        [[p] + med_min_max(data, ("scale", "same", p)) + med_min_max(data, ("scale", "separate", p))
         for p in ("1", "2", "4")],
        f"set title 'lwnfs {base}: pread throughput against readers (median, min-max)'\n"
        "set xlabel 'reader processes'\nset ylabel 'reads per second'\n"
        "set xtics (1, 2, 4)\nset xrange [0.5:4.5]\nset key left top",
        "'{dat}' using 1:2:3:4 with yerrorlines title 'one counter', "
        "'' using 1:5:6:7 with yerrorlines title 'one counter each'")
    entries = gnuplot(
        outdir, f"entries-{base}.png",
        [[str(n)] + sum((med_min_max(data, ("entries", op, str(n))) for op in OPS), [])
         for n in NS],
        f"set title 'lwnfs {base}: time per operation against N counters (median, min-max)'\n"
        "set xlabel 'counters in one directory (N)'\nset ylabel 'microseconds per operation'\n"
        "set logscale x\nset xrange [500:200000]\nset key left bottom",
        "for [i=0:3] '{dat}' using 1:(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) "
        "with yerrorlines title word('create stat read unlink', i+1)")
    return [scaling, entries]


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
          "given. The guests run under QEMU's TCG (no KVM): absolute times mean "
          "little, and even the ratios carry TCG's costs (a locked instruction or "
          "an indirect call costs more than on hardware). The kernel is the "
          "tinyconfig of the guests, built with -Os. The scaling figures cannot "
          "exceed what the host's cores give the guest's 4 CPUs. A pread of "
          "/dev/zero or /dev/full copies all 64 bytes to user space, one of an "
          "lwnfs counter only its text (2 to 21 bytes). Compare ratios within a "
          "base, not across bases: the floors' own code differs (v5.10's "
          "read_iter_zero() calls cond_resched() for every chunk, later bases "
          "only when a reschedule is due).", ""]
    for base in bases:
        data, head = load(os.path.join(cache, "bench", f"{base}.txt"))
        runs = int(head.get("BENCH-RUNS", "0"))
        check_complete(base, data, runs)
        sect = [f"## {base}", "",
                f"Debian {head.get('BENCH-BASE', base).split(' ', 1)[-1]}, "
                f"measured {head.get('BENCH-DATE', '?')}, {runs} runs. "
                f"Guest: {head.get('BENCH-CPUS', '?')} x {head.get('BENCH-CPU', '?')}. "
                f"Host: {head.get('BENCH-HOST', '?')}; load average "
                f"{head.get('BENCH-LOAD', '?')}.", ""]
        if "BENCH-NOTE" in head:
            sect += [f"Note: {head['BENCH-NOTE']}", ""]
        read = read_table(data) + [""] + targets(data)
        sect += [
                "### Read path", ""] + read + [
                "", "### Scaling: pread at offset 0", ""] + scale_table(data) + [
                "", "### Counters users create (max_entries=0)", ""] + entries_table(data) + [
                "", "### Footprint (tinyconfig, -Os)", ""] + foot_table(data) + [
                "", "### The other targets", ""] + verdicts(data) + [""]
        print("\n".join(sect))
        pngs = plot(outdir, base, data)
        for p in pngs:
            sect.append(f"![{p}]({p})")
        md += sect + [""]
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(md).rstrip() + "\n")


if __name__ == "__main__":
    main()
