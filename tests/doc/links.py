#!/usr/bin/env python3
"""tests/doc/links.py - the documentation points at things that exist.

For README.md, tests/README.md and every doc/*.md: each relative markdown
link names an existing file (and, with #anchor, a heading of it, as GitHub
makes anchors), and each repository path written in backticks
(`src/runtime/shadow.c`, `tests/e2e/`; not a pattern or a placeholder such
as `test_NAME.c`) exists, from the top or from the file's own directory,
so a file renamed in the code fails here until the docs follow. Prints
"PASS doc-links FILE" or "FAIL doc-links FILE: why" per file, and
doc-readme-length: the README is at most 150 lines; exits 1 if any failed. Usage: links.py [ROOT] (default: this repository).
"""
import glob
import os
import re
import sys

# a path in backticks is checked when it starts with one of these
TOP = ("src/", "arch/", "tests/", "bench/", "doc/", "scripts/", "demo/", ".ci/")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^(```|~~~)")
# a name to fill in (tests/unit/test_NAME.c), not a path
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(NAME|SUBJECT|DIR|FILE|PID|CMD|ARCH)(?![A-Za-z])")


def anchors(path):
    """GitHub's anchors of a markdown file's headings."""
    out, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        text = re.sub(r"[^\w\- ]", "", text)
        out.add(text.replace(" ", "-"))
    return out


def prose(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line


def check(root, md):
    bad = []
    here = os.path.dirname(md)
    for n, line in prose(md):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue            # http:, https:, mailto:
            name, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(here, name)) if name else md
            if not os.path.exists(dest):
                bad.append("line %d: link to %s: no such file" % (n, name))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append("line %d: link to %s: no heading #%s" % (n, target, anchor))
        for code in CODE.findall(LINK.sub("", line)):
            for word in code.split():
                if not word.startswith(TOP) or re.search(r"[*<>{}$]", word) \
                        or PLACEHOLDER.search(word):
                    continue
                word = word.rstrip(".,:;")
                if not any(os.path.exists(os.path.join(d, word)) for d in (root, here)):
                    bad.append("line %d: `%s`: no such path" % (n, word))
    return bad


README_MAX_LINES = 150


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    files = [os.path.join(root, "README.md"), os.path.join(root, "tests", "README.md")]
    files += sorted(glob.glob(os.path.join(root, "doc", "*.md")))
    files = [f for f in files if os.path.exists(f)]
    failed = 0
    for md in files:
        rel = os.path.relpath(md, root)
        bad = check(root, md)
        if bad:
            failed += 1
            print("FAIL doc-links %s: %s" % (rel, "; ".join(bad)))
        else:
            print("PASS doc-links %s" % rel)
    # the README stays a front page: what scaler is, set-up, a first
    # session, where to read on; the reference lives in doc/
    n = sum(1 for _ in open(os.path.join(root, "README.md")))
    if n > README_MAX_LINES:
        failed += 1
        print("FAIL doc-readme-length: README.md has %d lines, more than %d: move "
              "reference text to doc/" % (n, README_MAX_LINES))
    else:
        print("PASS doc-readme-length: %d lines" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
