# Which lwnfs series serves a kernel: the ranges file that lwnfs's
# make patches writes (patches/ranges, module/ranges) gives each series
# the kernel versions X.Y it serves, first and last. A version is read from
# the start of LINUX_VERSION or KERNEL_VERSION: X.Y followed by ".", "+",
# "-" or nothing. Nothing here raises: a missing, unreadable or damaged
# ranges file gives no series, and lwnfs_served() says what is wrong.

# lwnfs_ranges(path): the rows of the ranges file at path, as
# (series, first, last) with the versions as (X, Y), and the lines that
# could not be read; no rows when the file is missing
def lwnfs_ranges(path):
    import os
    rows, bad = [], []
    if not path or not os.path.isfile(path):
        return rows, bad
    try:
        with open(path) as f:
            lines = f.readlines()
    except (OSError, UnicodeDecodeError) as e:
        return [], [str(e)]
    for line in lines:
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        try:
            first, last = (tuple(int(n) for n in v.split('.')) for v in w[1:3])
            if len(w) != 3 or len(first) != 2 or len(last) != 2:
                raise ValueError
        except ValueError:
            bad.append(line.strip())
            continue
        rows.append((w[0], first, last))
    return rows, bad

# lwnfs_series(path, version): the series ("vX.Y") that serves a kernel of
# version ("6.12.118", "6.18+git"), or "" when none does
def lwnfs_series(path, version):
    import re
    m = re.match(r'(\d+)\.(\d+)(?:[.+-]|$)', version or '')
    if not m:
        return ''
    v = (int(m.group(1)), int(m.group(2)))
    rows, bad = lwnfs_ranges(path)
    if bad:
        return ''
    for series, first, last in rows:
        if first <= v <= last:
            return series
    return ''

# lwnfs_served(path): the versions the ranges hold, for a message; or
# what is wrong with the ranges file
def lwnfs_served(path):
    import os
    rows, bad = lwnfs_ranges(path)
    if not os.path.isfile(path or ''):
        return 'none: %s is missing; in the lwnfs checkout, run: make patches' % path
    if bad or not rows:
        return 'none: %s cannot be read (%s); in the lwnfs checkout, run: make patches' % (path, '; '.join(bad) or 'no rows')
    text = []
    for series, first, last in rows:
        f, l = '%d.%d' % first, '%d.%d' % last
        text.append(f if f == l else '%s to %s' % (f, l))
    return ', '.join(text)
