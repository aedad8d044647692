# Which lwnfs series serves a kernel: the ranges file that lwnfs's
# make patches writes (patches/ranges, module/ranges) gives each series
# the kernel versions X.Y it serves, first and last.

# lwnfs_ranges(path): the rows of the ranges file at path, as
# (series, first, last) with the versions as (X, Y); none when it is missing
def lwnfs_ranges(path):
    import os
    rows = []
    if not path or not os.path.isfile(path):
        return rows
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) != 3 or w[0].startswith('#'):
                continue
            first, last = (tuple(int(n) for n in v.split('.')) for v in w[1:])
            rows.append((w[0], first, last))
    return rows

# lwnfs_series(path, version): the series ("vX.Y") that serves a kernel of
# version ("6.12.118", "6.18+git"), or "" when none does
def lwnfs_series(path, version):
    import re
    m = re.match(r'(\d+)\.(\d+)', version or '')
    if not m:
        return ''
    v = (int(m.group(1)), int(m.group(2)))
    for series, first, last in lwnfs_ranges(path):
        if first <= v <= last:
            return series
    return ''

# lwnfs_served(path): the versions the ranges hold, for a message
def lwnfs_served(path):
    text = []
    for series, first, last in lwnfs_ranges(path):
        f, l = '%d.%d' % first, '%d.%d' % last
        text.append(f if f == l else '%s to %s' % (f, l))
    return ', '.join(text)
