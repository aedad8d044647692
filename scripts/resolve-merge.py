#!/usr/bin/env python3
"""Merge the states of the newest base's series into an older base's, and
resolve the conflicts of each `git merge-file --diff3 --marker-size 32`,
byte for byte.

usage: resolve-merge.py --states STATES FINAL N   (merge_states() says how)

scripts/gen-states.sh merges a state of the series (ours), the newest
base's final sources (base) and an older base's final sources (theirs).
Two kinds of conflict have a sure answer:

- ours is empty: the base delta changes lines the state does not have
  yet, because a later patch adds them; the state's empty side wins, and
  a delta's lines in that code come with the later patch;
- ours and theirs change or delete different lines of the block, next to
  each other: git calls changes that touch adjacent lines a conflict,
  but each side's edits of base apply where the other's left the lines
  alone.

Any other conflict (both sides change the same base line, one side
inserts lines next to the other's edit, or both add the same line) exits
1, with the rule and the block on stderr.
"""
import difflib
import os
import subprocess
import sys

# long markers, which no line of the sources starts with
MARK = 32
OURS, BASE, SEP, THEIRS = (c * MARK for c in (b'<', b'|', b'=', b'>'))


def edits(base, side):
    """The side's changes of base: (start, end, new lines) in base."""
    sm = difflib.SequenceMatcher(None, base, side, autojunk=False)
    return [(i1, i2, side[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes()
            if tag != 'equal']


def overlap(a, b):
    """Whether two edits cannot both be applied for sure: they share a
    base line, or one inserts lines inside the other's range or at either
    end of it."""
    (a1, a2, _), (b1, b2, _) = a, b
    if a1 == a2:
        return b1 <= a1 <= b2
    if b1 == b2:
        return a1 <= b1 <= a2
    return a1 < b2 and b1 < a2


def combine(ours, base, theirs):
    """The block with both sides' edits, or the rule it breaks (a str)."""
    if not ours:
        return []
    mine, other = edits(base, ours), edits(base, theirs)
    if any(overlap(a, b) for a in mine for b in other):
        return "both sides change these lines, or one adds lines next to " \
               "the other's edit"
    added = [{ln for e in side for ln in e[2] if ln.strip()}
             for side in (mine, other)]
    if added[0] & added[1]:
        return "both sides add the same line, which would be there twice"
    out, pos = [], 0
    # no two edits start at one base line: overlap() refuses those
    for i1, i2, new in sorted(mine + other, key=lambda e: (e[0], e[1])):
        out += base[pos:i1] + new
        pos = i2
    return out + base[pos:]


def report(rule, block):
    """Say on stderr which rule a block breaks, and the block."""
    sys.stderr.write('resolve-merge: %s:\n' % rule)
    for name in ('ours', 'base', 'theirs'):
        sys.stderr.write('  %s:\n' % name)
        sys.stderr.flush()
        sys.stderr.buffer.write(b''.join(b'    ' + ln for ln in block[name]))
        sys.stderr.buffer.flush()


def resolve(data):
    """The merge result DATA (bytes) resolved, or None (said on stderr)."""
    out, block, part = [], None, None
    for line in data.splitlines(keepends=True):
        if line.startswith(OURS + b' ') and block is None:
            block, part = {'ours': [], 'base': [], 'theirs': []}, 'ours'
        elif line.startswith(BASE + b' ') and part == 'ours':
            part = 'base'
        elif line == SEP + b'\n' and part == 'base':
            part = 'theirs'
        elif line.startswith(THEIRS + b' ') and part == 'theirs':
            merged = combine(block['ours'], block['base'], block['theirs'])
            if isinstance(merged, str):
                report(merged, block)
                return None
            out += merged
            block = part = None
        elif block is not None:
            block[part].append(line)
        else:
            out.append(line)
    if block is not None:
        sys.stderr.write('resolve-merge: a conflict block does not end\n')
        return None
    return b''.join(out)


def merge_states(states, final, n):
    """scripts/gen-states.sh's merge_states: each file of STATES/1 .. N-1
    that FINAL also has becomes the merge of the state (ours), STATES/N
    (base) and FINAL (theirs), in place. A side equal to base gives the
    other side; otherwise git merge-file merges, and resolve() resolves."""
    for k in range(1, n):
        top = os.path.join(states, str(k))
        for root, _, names in os.walk(top):
            for name in names:
                path = os.path.join(root, name)
                rel = os.path.relpath(path, top)
                theirs_path = os.path.join(final, rel)
                if not os.path.isfile(theirs_path):
                    continue
                with open(path, 'rb') as f:
                    ours = f.read()
                with open(os.path.join(states, str(n), rel), 'rb') as f:
                    base = f.read()
                with open(theirs_path, 'rb') as f:
                    theirs = f.read()
                if ours == base or base == theirs:
                    merged = theirs if ours == base else ours
                else:
                    run = subprocess.run(['git', 'merge-file', '-q', '-p', '--diff3', '--marker-size', str(MARK),
                                          path, os.path.join(states, str(n), rel), theirs_path],
                                         stdout=subprocess.PIPE, check=False)
                    if run.returncode >= 128:
                        sys.stderr.write('error: git merge-file failed on %s (state %d)\n' % (rel, k))
                        return 1
                    merged = resolve(run.stdout) if run.returncode else run.stdout
                    if merged is None:
                        sys.stderr.write('error: the base delta and split/ both change the lines of %s above (state %d); '
                                         'move one of them\n' % (rel, k))
                        return 1
                if merged != ours:
                    with open(path, 'wb') as f:
                        f.write(merged)
    return 0


def main():
    if len(sys.argv) != 5 or sys.argv[1] != '--states':
        sys.stderr.write('usage: resolve-merge.py --states STATES FINAL N\n')
        return 2
    return merge_states(sys.argv[2], sys.argv[3], int(sys.argv[4]))


if __name__ == '__main__':
    sys.exit(main())
