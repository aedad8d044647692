#!/usr/bin/env python3
"""Check the docs as code: the README, docs/, bench/README.md, contrib's
READMEs and CHANGELOG.md.

usage: scripts/lint-docs.py [FILE...]   (default: the project's docs)

It fails on:
  - a `make TARGET` in code (a span or a block) that the Makefile has no
    rule for (the kernel's and Buildroot's own targets are listed below);
  - a relative link, or the #anchor of one, that leads nowhere;
  - in the README: more than 300 lines, no `git am` command or no
    `mount -t lwnfs` command in the first 100, a
    block of its applying section that applies the series and does not
    start with `cd linux` (scripts/check-apply.sh runs those blocks), a
    demo command the demo guest (guest/tests.sh run_demo) does not type;
  - outside CHANGELOG.md, a diary phrase ("this release", "was not
    timed", ...);
  - a count typed by hand: a number before "stages", "tests", "patches",
    "bases", "passed" and the like, outside the generated tables.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "CHANGELOG.md", "bench/README.md",
        "docs/testing.md", "docs/hacking.md", "docs/design.md", "docs/maintaining.md", "docs/versions.md",
        "contrib/buildroot/README.md", "contrib/meta-lwnfs/README.md"]
# targets of the kernel's and Buildroot's Makefiles that the docs name
FOREIGN_TARGETS = {"olddefconfig", "menuconfig", "defconfig", "coccicheck", "htmldocs",
                   "modules", "modules_install", "headers_install", "lwnfs-dirclean",
                   "lwnfs-rebuild", "linux-rebuild", "linux-patch", "linux-menuconfig",
                   "run_tests", "kselftest"}
DIARY = ["this release", "earlier release", "previous release", "next release",
         "was not timed", "has not been timed", "not been timed", "last run",
         "measured on", "found later", "they now"]
COUNTED = (r"stages?|packages?|tests?|cases?|patches|bases?|KUnit|kselftests?|passed|"
           r"failed|runs|lines? of")
COUNT_RE = re.compile(r"(?<![\w.~+-])\d[\d,]*\s+(?:" + COUNTED + r")\b")
# the tables scripts/gen-docs.sh writes
GENERATED = re.compile(r"<!-- (lines|tiers|verified|features): begin.*?<!-- \1: end -->", re.S)
APPLIES = re.compile(r"(^|[\s;&|])(git am|git apply|patch|quilt|b4) ")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
MAKE_RE = re.compile(r"(?:^|[\s;&|(`$])make((?:\s+[A-Z_][A-Z0-9_]*=\S*)*)\s+([a-z][a-z0-9_-]*)")

errors = []


def err(path, line, msg):
    errors.append(f"{path}:{line}: {msg}")


def make_targets():
    with open(os.path.join(TOP, "Makefile")) as f:
        return set(re.findall(r"^([a-z][a-z0-9_-]*):", f.read(), re.M))


def code_parts(text):
    """(line number, text) of each fenced block line and each inline span"""
    out, fence = [], False
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            out.append((n, line))
        else:
            out += [(n, span) for span in re.findall(r"`([^`]+)`", line)]
    return out


def slug(heading):
    """GitHub's anchor for a heading"""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {slug(h) for h in re.findall(r"^#+\s+(.*)$", text, re.M)}


def check_links(path, text):
    base = os.path.dirname(os.path.join(TOP, path))
    for n, line in enumerate(text.split("\n"), 1):
        for target in LINK_RE.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, file)) if file else os.path.join(TOP, path)
            if not os.path.exists(dest):
                err(path, n, f"link to {target}: {os.path.relpath(dest, TOP)} does not exist")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                err(path, n, f"link to {target}: no heading makes #{anchor}")


def check_make(path, text, targets):
    for n, code in code_parts(text):
        for m in MAKE_RE.finditer(code):
            t = m.group(2)
            if t not in targets and t not in FOREIGN_TARGETS:
                err(path, n, f"`make {t}`: the Makefile has no target {t}")


def check_prose(path, text):
    lines = text.split("\n")
    if path != "CHANGELOG.md":
        for n, line in enumerate(lines, 1):
            for phrase in DIARY:
                if phrase in line.lower():
                    err(path, n, f"a diary phrase, '{phrase}' (history goes in CHANGELOG.md, "
                                 "figures in generated files)")
    stripped = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for n, line in enumerate(stripped.split("\n"), 1):
        for m in COUNT_RE.finditer(line):
            err(path, n, f"a count typed by hand, '{m.group(0)}': generate it, or name where it is kept")


def section(text, begin, end):
    """the lines between two marker lines, with their line numbers"""
    lines = text.split("\n")
    try:
        a = lines.index(begin)
        b = lines.index(end, a)
    except ValueError:
        return None
    return list(enumerate(lines[a + 1:b], a + 2))


def blocks(numbered):
    """the fenced blocks of numbered lines: [(first line number, [lines])]"""
    out, cur, start = [], None, 0
    for n, line in numbered:
        if line.strip().startswith("```"):
            if cur is None:
                cur, start = [], n + 1
            else:
                out.append((start, cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def demo_commands():
    with open(os.path.join(TOP, "guest/tests.sh")) as f:
        text = f.read()
    body = re.search(r"^run_demo\(\) \{\n(.*?)^\}", text, re.M | re.S).group(1)
    return {re.sub(r'^"(.*)"$', r"\1", c.strip()) for c in re.findall(r"^\s*say(?:_fails)? (.*)$", body, re.M)}


def check_readme(text):
    path = "README.md"
    lines = text.split("\n")
    if len(lines) - (lines[-1] == "") > 300:
        err(path, len(lines), f"{len(lines)} lines: the README has at most 300")
    first = next((n for n, l in enumerate(lines, 1) if l.startswith("git am ")), None)
    if first is None or first > 100:
        err(path, first or 1, "the first `git am` must come within the first 100 lines")
    mount = next((n for n, l in enumerate(lines, 1) if l.startswith("mount -t lwnfs ")), None)
    if mount is None or mount > 100:
        err(path, mount or 1, "applying, enabling and mounting (`mount -t lwnfs ...`) must end "
                              "within the first 100 lines")
    apply = section(text, "<!-- apply: begin -->", "<!-- apply: end -->")
    if apply is None:
        err(path, 1, "no '<!-- apply: begin -->' ... '<!-- apply: end -->' section")
    else:
        found = 0
        for start, block in blocks(apply):
            applies = any(APPLIES.search(l) for l in block)
            if applies and (not block or block[0].strip() != "cd linux"):
                err(path, start, "a block that applies the series must start with `cd linux`, "
                                 "for scripts/check-apply.sh runs it")
            found += applies
        if not found:
            err(path, apply[0][0], "the applying section shows no block that applies the series")
    said = demo_commands()
    demo = section(text, "<!-- demo: begin -->", "<!-- demo: end -->")
    if demo is None:
        err(path, 1, "no '<!-- demo: begin -->' ... '<!-- demo: end -->' section")
    else:
        for n, line in demo:
            if line.startswith("# ") and line[2:] not in said:
                err(path, n, f"the demo guest does not type '{line[2:]}' (guest/tests.sh run_demo)")


def main():
    docs = sys.argv[1:] or DOCS
    targets = make_targets()
    for path in docs:
        full = os.path.join(TOP, path)
        if not os.path.exists(full):
            err(path, 0, "missing")
            continue
        with open(full) as f:
            text = f.read()
        check_links(path, text)
        check_make(path, text, targets)
        check_prose(path, text)
        if path == "README.md":
            check_readme(text)
    gen = subprocess.run([os.path.join(TOP, "scripts/gen-docs.sh"), "--check"])
    if gen.returncode:
        errors.append("README.md: a generated table is stale (scripts/gen-docs.sh --check)")
    for e in errors:
        print(e)
    if errors:
        sys.exit(f"lint-docs: {len(errors)} problems")
    print(f">> docs: {len(docs)} files checked: make targets, links, README shape, "
          "apply and demo blocks, diary phrases, counts")


if __name__ == "__main__":
    main()
