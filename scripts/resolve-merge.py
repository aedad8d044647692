#!/usr/bin/env python3
"""Resolve the conflicts of a `git merge-file --diff3 --marker-size 32`
result, from stdin to stdout, byte for byte.

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


def main():
    out, block, part = [], None, None
    for line in sys.stdin.buffer.read().splitlines(keepends=True):
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
                return 1
            out += merged
            block = part = None
        elif block is not None:
            block[part].append(line)
        else:
            out.append(line)
    if block is not None:
        sys.stderr.write('resolve-merge: a conflict block does not end\n')
        return 1
    sys.stdout.buffer.write(b''.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
