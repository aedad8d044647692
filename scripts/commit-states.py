#!/usr/bin/env python3
"""Commit the states of a series in one run of git fast-import.

scripts/gen-patches.sh makes WORK/state/1 .. N (the sources after each
patch, kernel-relative), WORK/hooks/1 .. N (the tree hooks' files after
each patch, each named by its path with % for /) and WORK/msg/1 .. N (each
patch's commit message). This commits them in turn on PARENT in the
repository GITDIR, with the fixed identity and date, each commit holding
PARENT's tree with the state's and the hooks' files on it, and prints the
last commit. One fast-import instead of a dozen git runs a commit.

usage: commit-states.py GITDIR PARENT WORK N NAME EMAIL EPOCH
"""
import os
import subprocess
import sys


def files(top):
    """{path: (mode, bytes)} of the files under TOP."""
    out = {}
    for root, _, names in os.walk(top):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                data = f.read()
            out[os.path.relpath(p, top)] = ("100755" if os.access(p, os.X_OK) else "100644", data)
    return out


def data(b):
    return b"data %d\n%s\n" % (len(b), b)


def main(argv):
    if len(argv) != 8:
        sys.exit("usage: commit-states.py GITDIR PARENT WORK N NAME EMAIL EPOCH")
    gitdir, parent, work, n, name, email, epoch = argv[1:]
    ident = ("%s <%s> %s +0000" % (name, email, epoch)).encode()
    ref = b"refs/lwnfs/commit-states-%d" % os.getpid()
    stream, before = [], set()
    for k in range(1, int(n) + 1):
        now = files(os.path.join(work, "state", str(k)))
        for p, (_, body) in files(os.path.join(work, "hooks", str(k))).items():
            now[p.replace("%", "/")] = ("100644", body)
        with open(os.path.join(work, "msg", str(k)), "rb") as f:
            msg = f.read()
        stream += [b"commit " + ref + b"\n", b"mark :%d\n" % k, b"author " + ident + b"\n",
                   b"committer " + ident + b"\n", data(msg)]
        stream.append(b"from " + (parent.encode() if k == 1 else b":%d" % (k - 1)) + b"\n")
        for p in sorted(before - set(now)):
            stream.append(b"D " + p.encode() + b"\n")
        for p in sorted(now):
            mode, body = now[p]
            stream.append(b"M %s inline %s\n" % (mode.encode(), p.encode()))
            stream.append(data(body))
        stream.append(b"\n")
        before = set(now)
    marks = os.path.join(work, "marks")
    subprocess.run(["git", "--git-dir", gitdir, "fast-import", "--quiet", "--force", "--export-marks=" + marks],
                   input=b"".join(stream), check=True)
    subprocess.run(["git", "--git-dir", gitdir, "update-ref", "-d", ref.decode()], check=True)
    with open(marks) as f:
        tips = dict(line.split() for line in f)
    print(tips[":%s" % n])


if __name__ == "__main__":
    main(sys.argv)
