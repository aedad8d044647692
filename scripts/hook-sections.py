#!/usr/bin/env python3
"""The tree hooks' sections of a series, kept per base in
split/hooks/<base>.hooks, so that make patches needs no kernel tree.

A hook changes a kernel file that is not lwnfs's own (fs/Kconfig,
MAINTAINERS, ...): git can write that file's part of a patch (its
"section": the diff --git line, the index line with both blob ids, the
hunks with their line numbers and context) only from the whole file.
scripts/gen-patches.sh --capture commits the series on the base's tree
once and keeps each hook file's section of each patch here; without the
tree, scripts/gen-patches.sh commits the series in a scratch repository,
where each hook file is a stand-in that gains as many lines in a patch as
the hook adds there (so that git's diffstat is the tree's), and puts the
kept sections in place of the stand-ins' ones.

usage:
  hook-sections.py capture OUT PIN KEY ATTRS DIR PATH...
      write OUT from the series in DIR (made on the tree): the sections
      of each PATH; ATTRS is a file of "pattern<TAB>attributes" lines
  hook-sections.py attrs FILE       the attribute lines, for info/attributes
  hook-sections.py counts FILE      "K<TAB>PATH<TAB>lines added" per section
  hook-sections.py splice FILE DIR  put FILE's sections into the series in
                                    DIR (the K-th *.patch is patch K)
  hook-sections.py graft SRC DST PATH...  put the sections of each PATH
                                    of the series in SRC (the same series,
                                    written with HOOK_CONTEXT lines of
                                    context) into DST's
"""
import os
import sys

HEAD = b"""\
# The tree hooks' sections of each patch of this base's series, as git
# wrote them on the base's tree (scripts/hook-sections.py says how they
# are used). Generated: scripts/gen-patches.sh --capture BASE writes it,
# and make patches does when the pin or the hooks change and the tree is
# here. "pin": the tree's; "key": what the hooks add, in each patch.
"""


def die(msg):
    sys.stderr.write("error: %s\n" % msg)
    sys.exit(1)


def patches(d):
    names = sorted(n for n in os.listdir(d) if n.endswith(".patch") and n[:4].isdigit() and n[:4] != "0000")
    return [os.path.join(d, n) for n in names]


def sections(data):
    """A patch's bytes as (head, [(path, section bytes)]): the sections
    start at each "diff --git" line and run to the next one, or to the
    end (the series has no signature)."""
    lines = data.splitlines(keepends=True)
    head, secs, cur, body = [], [], None, False
    for line in lines:
        # (the message and the diffstat end at the first "---" line)
        body = body or line == b"---\n"
        if body and line.startswith(b"diff --git a/"):
            path = line[len(b"diff --git a/"):].split(b" b/")[0].decode()
            cur = (path, [line])
            secs.append(cur)
        elif cur is None:
            head.append(line)
        else:
            cur[1].append(line)
    return b"".join(head), [(p, b"".join(s)) for p, s in secs]


def read(path):
    """A hooks file as (fields, {(k, path): section})."""
    fields, secs, k, cur = {}, {}, None, None
    with open(path, "rb") as f:
        for line in f:
            if k is None:
                if line.startswith(b"#") or not line.strip():
                    continue
                name, _, value = line.rstrip(b"\n").partition(b"\t")
                if name == b"patch":
                    k = int(value)
                else:
                    fields.setdefault(name.decode(), []).append(value.decode())
                continue
            if line.startswith(b"patch\t"):
                k, cur = int(line[6:]), None
            elif line.startswith(b"diff --git a/"):
                p = line[len(b"diff --git a/"):].split(b" b/")[0].decode()
                cur = (k, p)
                if cur in secs:
                    die("%s: two sections of %s in patch %d" % (path, p, k))
                secs[cur] = line
            elif cur is None:
                die("%s: a line outside any section: %r" % (path, line))
            else:
                secs[cur] += line
    return fields, secs


def changed(section):
    """The lines a section adds and removes (after its first hunk header)."""
    n, gone, hunks = 0, 0, False
    for line in section.splitlines():
        if line.startswith(b"@@"):
            hunks = True
        elif hunks and line.startswith(b"+"):
            n += 1
        elif hunks and line.startswith(b"-"):
            gone += 1
    return n, gone


def capture(out, pin, key, attrs, d, paths):
    body = [HEAD, b"pin\t%s\n" % pin.encode(), b"key\t%s\n" % key.encode()]
    with open(attrs, "rb") as f:
        body += [b"attr\t" + line for line in f if line.strip()]
    for k, p in enumerate(patches(d), 1):
        with open(p, "rb") as f:
            _, secs = sections(f.read())
        kept = [s for path, s in secs if path in paths]
        for s in kept:
            if changed(s)[1] or b"\\ No newline" in s:
                die("%s: a hook that removes lines, or a hook file without a last newline: "
                    "the stand-ins of scripts/gen-patches.sh only gain lines" % p)
        if kept:
            body.append(b"patch\t%d\n" % k)
            body += kept
    tmp = "%s.%d.new" % (out, os.getpid())
    with open(tmp, "wb") as f:
        f.write(b"".join(body))
    os.replace(tmp, out)


def splice(path, d):
    _, kept = read(path)
    used = set()
    for k, p in enumerate(patches(d), 1):
        with open(p, "rb") as f:
            head, secs = sections(f.read())
        new = []
        for name, s in secs:
            if (k, name) in kept:
                s = kept[(k, name)]
                used.add((k, name))
            new.append(s)
        with open(p, "wb") as f:
            f.write(head + b"".join(new))
    missing = sorted(set(kept) - used)
    if missing:
        die("%s: the series has no section for %s" % (path, ", ".join("%s in patch %d" % (n, k) for k, n in missing)))


def graft(src, dst, paths):
    """Put the sections of paths from the series in src (the same series,
    written with another number of context lines) into the series in dst."""
    srcs, dsts = patches(src), patches(dst)
    if [os.path.basename(p) for p in srcs] != [os.path.basename(p) for p in dsts]:
        die("%s and %s hold different series" % (src, dst))
    for sp, dp in zip(srcs, dsts):
        with open(sp, "rb") as f:
            _, ssecs = sections(f.read())
        with open(dp, "rb") as f:
            head, dsecs = sections(f.read())
        repl = dict((name, sec) for name, sec in ssecs if name in paths)
        if [n for n, _ in ssecs] != [n for n, _ in dsecs]:
            die("%s and %s change other files" % (sp, dp))
        with open(dp, "wb") as f:
            f.write(head + b"".join(repl.get(name, sec) for name, sec in dsecs))


def main(argv):
    if len(argv) >= 7 and argv[1] == "capture":
        capture(argv[2], argv[3], argv[4], argv[5], argv[6], set(argv[7:]))
    elif len(argv) == 3 and argv[1] == "attrs":
        fields, _ = read(argv[2])
        for a in fields.get("attr", []):
            print(a.replace("\t", " ").rstrip())
    elif len(argv) == 3 and argv[1] == "counts":
        _, secs = read(argv[2])
        for (k, p), s in sorted(secs.items()):
            print("%d\t%s\t%d" % (k, p, changed(s)[0]))
    elif len(argv) == 4 and argv[1] == "splice":
        splice(argv[2], argv[3])
    elif len(argv) >= 5 and argv[1] == "graft":
        graft(argv[2], argv[3], set(argv[4:]))
    else:
        die("usage: see the head of %s" % argv[0])


if __name__ == "__main__":
    main(sys.argv)
