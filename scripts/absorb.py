#!/usr/bin/env python3
"""Place an edit of the final sources in the patches that wrote its lines.

scripts/gen-patches.sh makes the sources after each patch of the series
(its states) from the final sources and split/<patch>.diff. When a
contributor edits a line of the final sources that a later patch wrote,
that patch's diff no longer fits, and the edit belongs in that patch (as
`git absorb` would place a fixup). This script takes the states made from
the sources before the edit (OLD/1 .. OLD/N) and the edited final sources
(NEW), and writes the states with the edit placed (OUT/1 .. OUT/N):

- each line of the old final sources is known by the patch that wrote
  it, from the split diffs (PATCH-DIFFS: one path a patch, or "-" for a
  patch without one);
- each changed block of the edit (difflib's opcodes) goes to the patch
  that wrote all of its old lines; an insertion goes to the later of the
  patches that wrote the lines above and below it, next to that patch's
  line; a deletion of lines of several patches is deleted from each in
  its own patch;
- the block is then made in that patch's state and in every later one.

An edit that replaces lines two patches wrote, or whose lines a later
patch split apart, cannot be placed: it exits 1, naming the patches.
A file the edit adds goes to the patch that split/patches.conf says adds
it (ADDS: "path<TAB>patch number" lines); a deleted file is not handled.
One line a placed block is printed: "path: lines A-B -> patch K".

usage: absorb.py OLD NEW OUT ADDS PATCH-DIFF...
"""
import difflib
import os
import shutil
import sys


def die(msg):
    sys.stderr.write("error: %s\n" % msg)
    sys.exit(1)


def files(d):
    out = set()
    for root, _, names in os.walk(d):
        for n in names:
            if n != ".lwnfs-export":
                out.add(os.path.relpath(os.path.join(root, n), d))
    return out


def lines(path):
    with open(path, "rb") as f:
        return f.read().splitlines(keepends=True)


def parse_diff(path):
    """{file: [(old start, old lines, new start, new lines, body)]} of a
    unified diff with a/ b/ labels (as scripts/lib-export.sh writes)."""
    out, cur, left_old, left_new = {}, None, 0, 0
    if path == "-":
        return out
    with open(path, "rb") as f:
        for line in f:
            # a hunk's body is as long as its header says
            if left_old or left_new:
                kind = line[:1]
                if kind in (b" ", b"-"):
                    left_old -= 1
                if kind in (b" ", b"+"):
                    left_new -= 1
                if kind in (b" ", b"-", b"+"):
                    cur[-1][4].append(kind)
            elif line.startswith(b"+++ b/"):
                cur = out.setdefault(line[6:].rstrip(b"\n").decode(), [])
            elif line.startswith(b"@@ "):
                old, new = line.split(b" ")[1:3]
                os_, ol = (old[1:].split(b",") + [b"1"])[:2]
                ns, nl = (new[1:].split(b",") + [b"1"])[:2]
                cur.append([int(os_), int(ol), int(ns), int(nl), []])
                left_old, left_new = int(ol), int(nl)
    return out


def step_map(n_old, n_new, hunks):
    """For each line of the new state, its index in the old one, or None
    when this step wrote it."""
    src, i, j = [], 0, 0
    for os_, ol, ns, nl, body in hunks:
        start = os_ - 1 if ol else os_
        while i < start:
            src.append(i)
            i += 1
            j += 1
        for kind in body:
            if kind == b" ":
                src.append(i)
                i += 1
                j += 1
            elif kind == b"-":
                i += 1
            else:
                src.append(None)
                j += 1
    while i < n_old:
        src.append(i)
        i += 1
        j += 1
    if j != n_new:
        die("a split diff does not describe its states (%d lines, %d expected)" % (j, n_new))
    return src


def main(argv):
    if len(argv) < 5:
        die("usage: absorb.py OLD NEW OUT ADDS PATCH-DIFF...")
    old, new, out, adds_file = argv[1:5]
    diffs = argv[5:]
    n = len(diffs)
    adds = {}
    with open(adds_file) as f:
        for row in f:
            p, k = row.rstrip("\n").split("\t")
            adds[p] = int(k)
    steps = [parse_diff(d) for d in diffs]
    states = [None] + [os.path.join(old, str(k)) for k in range(1, n + 1)]
    for k in range(1, n + 1):
        shutil.copytree(states[k], os.path.join(out, str(k)))
    old_files, new_files = files(states[n]), files(new)
    for path in sorted(old_files - new_files):
        die("%s was deleted; take it off split/patches.conf and out of the patches that change it (make edit)" % path)
    for path in sorted(new_files - old_files):
        if path not in adds:
            die("no patch in split/patches.conf adds the new file %s; name it on the line of the patch that adds it" % path)
        for j in range(adds[path], n + 1):
            dst = os.path.join(out, str(j), path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(new, path), dst)
        print("%s: new file -> patch %d" % (path, adds[path]))
    for path in sorted(old_files & new_files):
        place(path, states, steps, n, new, out)


def place(path, states, steps, n, new, out):
    have = [None] + [lines(os.path.join(states[k], path)) if os.path.isfile(os.path.join(states[k], path)) else None
                     for k in range(1, n + 1)]
    first = min(k for k in range(1, n + 1) if have[k] is not None)
    # pos[k][i]: where line i of the old final state is in state k
    pos = {n: list(range(len(have[n])))}
    for k in range(n, first, -1):
        src = step_map(len(have[k - 1]), len(have[k]), steps[k - 1].get(path, []))
        pos[k - 1] = [src[p] if p is not None else None for p in pos[k]]
    # origin[i]: the patch that wrote line i, the first state that has it
    origin = []
    for i in range(len(have[n])):
        k = n
        while k > first and pos[k - 1][i] is not None:
            k -= 1
        origin.append(k)
    target = lines(os.path.join(new, path))
    if target == have[n]:
        return
    m = difflib.SequenceMatcher(None, have[n], target, autojunk=False)
    edits = {k: [] for k in range(first, n + 1)}
    for tag, i1, i2, j1, j2 in m.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            # the later of the patches that wrote the lines around it,
            # placed next to that patch's line
            if i1 > 0 and (i1 == len(have[n]) or origin[i1 - 1] >= origin[i1]):
                k, at = origin[i1 - 1], i1 - 1
            elif have[n]:
                k, at = origin[i1], ("before", i1)
            else:
                k, at = first, None
            blocks = [(k, i1, i1, at)]
        else:
            owners = sorted(set(origin[i1:i2]))
            if len(owners) == 1:
                blocks = [(owners[0], i1, i2, None)]
            elif tag == "delete":
                blocks = [(origin[i], i, i + 1, None) for i in range(i1, i2)]
            else:
                die("%s: lines %d-%d of the edit replace lines that patches %s wrote; make the change in each patch: make edit"
                    % (path, i1 + 1, i2, ", ".join(map(str, owners))))
        for bi, (k, b1, b2, at) in enumerate(blocks):
            text = target[j1:j2] if bi == len(blocks) - 1 else []
            print("%s: lines %d-%d -> patch %d" % (path, b1 + 1, max(b1 + 1, b2), k))
            for j in range(k, n + 1):
                if b2 > b1:
                    ps = [pos[j][i] for i in range(b1, b2)]
                    if any(p is None for p in ps) or ps != list(range(ps[0], ps[0] + len(ps))):
                        die("%s: lines %d-%d of patch %d's text are apart in patch %d; make the change there: make edit"
                            % (path, b1 + 1, b2, k, j))
                    edits[j].append((ps[0], ps[-1] + 1, text))
                elif isinstance(at, tuple):
                    edits[j].append((pos[j][at[1]], pos[j][at[1]], text))
                elif at is not None:
                    edits[j].append((pos[j][at] + 1, pos[j][at] + 1, text))
                else:
                    edits[j].append((0, 0, text))
    for j, todo in edits.items():
        if not todo:
            continue
        body = list(have[j])
        for s, e, text in sorted(todo, key=lambda t: (t[0], t[1]), reverse=True):
            body[s:e] = text
        with open(os.path.join(out, str(j), path), "wb") as f:
            f.write(b"".join(body))
    with open(os.path.join(out, str(n), path), "rb") as f:
        if f.read() != b"".join(target):
            die("%s: the placed edit does not give the edited file" % path)


if __name__ == "__main__":
    main(sys.argv)
