#!/usr/bin/env python3
"""Resolve the conflicts of a `git merge-file --diff3` result (stdin to stdout).

scripts/gen-states.sh merges a state of the series (ours), the newest base's
final sources (base) and an older base's final sources (theirs). Two kinds
of conflict have a sure answer:

- ours is empty: the base delta changes lines the state does not have yet,
  because a later patch adds them; the state's empty side wins;
- ours and theirs change or delete different lines of the block, next to
  each other: git calls changes that touch adjacent lines a conflict, but
  each side's edits (of base) apply where the other's left the lines alone.

Any other conflict (both sides change the same base line, one side inserts
lines next to the other's edit, or both add the same line) exits 1. The first rule drops what
theirs adds there too: a delta's lines in code that a later patch adds
come with that patch.
"""
import difflib
import sys


def edits(base, side):
    """The side's changes of base: (start, end, new lines), start/end in base."""
    sm = difflib.SequenceMatcher(None, base, side, autojunk=False)
    return [(i1, i2, side[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes()
            if tag != 'equal']


def overlap(a, b):
    """Whether two edits cannot both be applied for sure: they share a base
    line, or one inserts lines inside the other's range or at either end of
    it (two sides adding the same line next to each other would keep it
    twice)."""
    (a1, a2, _), (b1, b2, _) = a, b
    if a1 == a2:
        return b1 <= a1 <= b2
    if b1 == b2:
        return a1 <= b1 <= a2
    return a1 < b2 and b1 < a2


def combine(ours, base, theirs):
    """The block with both sides' edits, or None if they overlap."""
    if not ours:
        return []
    mine, other = edits(base, ours), edits(base, theirs)
    if any(overlap(a, b) for a in mine for b in other):
        return None
    # the same line added by both sides would be there twice
    if {l for e in mine for l in e[2] if l.strip()} & {l for e in other for l in e[2] if l.strip()}:
        return None
    out, pos = [], 0
    for i1, i2, new in sorted(mine + other, key=lambda e: (e[0], e[1])):
        out += base[pos:i1] + new
        pos = i2
    return out + base[pos:]


def main():
    out, block, part = [], None, None
    for line in sys.stdin.read().splitlines(keepends=True):
        if line.startswith('<<<<<<< ') and block is None:
            block, part = {'ours': [], 'base': [], 'theirs': []}, 'ours'
        elif line.startswith('||||||| ') and part == 'ours':
            part = 'base'
        elif line == '=======\n' and part == 'base':
            part = 'theirs'
        elif line.startswith('>>>>>>> ') and part == 'theirs':
            merged = combine(block['ours'], block['base'], block['theirs'])
            if merged is None:
                return 1
            out += merged
            block = part = None
        elif block is not None:
            block[part].append(line)
        else:
            out.append(line)
    if block is not None:
        return 1
    sys.stdout.write(''.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
