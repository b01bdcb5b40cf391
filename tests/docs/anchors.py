#!/usr/bin/env python3
"""Every link into a Markdown heading points at a heading that exists.

Scans the repository's files (git ls-files: the tracked ones and the new ones git does not
ignore; without git, every file outside .git and the build folders) for references to a heading
of a Markdown file:

  * a path ending in .md followed by #anchor, anywhere: a header's comment naming
    docs/platforms.md#measured-the-hybrid-wait, a README link [x](docs/latency.md#definitions),
    a docs page's [x](latency.md#definitions) or [x](../README.md#measured-results);
  * a link to a heading of the same page, [x](#anchor), inside a .md file.

A path is read the way its reader resolves it: a link inside a .md file relative to that file's
folder (as GitHub does), a name in any other file relative to the repository's root; when that
file does not exist, the other way round. Web addresses (https://.../README.md#x) are left
alone. The anchors of a page are GitHub's: each heading's text without its Markdown (links keep
their text, code spans their code) lowercased, every character but letters, digits, spaces,
hyphens and underscores dropped, each space a hyphen; the second heading of the same text gets
-1, the third -2. Headings inside fenced or indented code blocks are none; <a name="x"> and
<a id="x"> count as anchors too.

usage: anchors.py --source-dir DIR
Exit 0: every reference resolves; 1: each broken one is listed as file:line: reference (why).
"""
import argparse
import os
import re
import subprocess
import sys
import unicodedata

SKIP_DIRS = re.compile(r"^(build[^/]*|\.git)/")  # build trees, were one not ignored
SELF = "tests/docs/anchors.py"  # its docstring shows the forms, not real references

# A path to a Markdown file followed by #anchor, not in the middle of a longer name or path.
MD_REF = re.compile(r"(?<![\w./-])((?:\.{1,2}/)*(?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")
SELF_REF = re.compile(r"\]\(#([\w-]+)\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)\s*=\s*\"([^\"]+)\"", re.I)


# ---- GitHub's anchors -----------------------------------------------------------------------------
def heading_text(raw):
    """The text GitHub renders for a heading's Markdown source."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)                     # inline HTML tags
    return text.replace("`", "").strip()


def slugify(text):
    """github-slugger: lowercase, drop punctuation but hyphens and underscores, spaces to hyphens."""
    out = []
    for ch in text.lower():
        if ch in "-_" or ch == " ":
            out.append("-" if ch == " " else ch)
        elif unicodedata.category(ch)[0] in "LNM":
            out.append(ch)
    return "".join(out)


class Slugger:
    """Duplicate headings: the first keeps its slug, the next ones get -1, -2, ..."""

    def __init__(self):
        self.seen = {}

    def slug(self, text):
        base = slug = slugify(heading_text(text))
        while slug in self.seen:
            self.seen[base] += 1
            slug = "%s-%d" % (base, self.seen[base])
        self.seen[slug] = 0
        return slug


def markdown_headings(text):
    """(line number, heading source) of each heading outside code blocks: ATX and setext."""
    out, fence, previous, previous_blank = [], None, "", True
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        m = re.match(r"(`{3,}|~{3,})", stripped) if indent < 4 else None
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not stripped[len(m.group(1)):].strip():
                fence = None
            previous, previous_blank = "", True
            continue
        if m:
            fence = m.group(1)
            previous, previous_blank = "", True
            continue
        if indent >= 4 and previous_blank:  # an indented code block (also its following lines)
            continue
        atx = re.match(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$", line)
        if atx:
            body = re.sub(r"(^|[ \t]+)#+[ \t]*$", "", atx.group(2) or "")
            out.append((n, body))
            previous, previous_blank = "", True
            continue
        if (re.match(r"^ {0,3}(=+|-+)[ \t]*$", line) and previous.strip() and not previous_blank
                and not re.match(r"^\s*([|>*+-]|\d+[.)]\s)", previous)):
            out.append((n - 1, previous.strip()))
            previous, previous_blank = "", True
            continue
        previous, previous_blank = line, not line.strip()
    return out


def anchors_of(path, cache={}):
    if path not in cache:
        text = open(path, encoding="utf-8").read()
        slugger = Slugger()
        found = {slugger.slug(h) for _, h in markdown_headings(text)}
        found |= set(HTML_ANCHOR.findall(text))
        cache[path] = found
    return cache[path]


# ---- The files and their references -------------------------------------------------------------
def repository_files(src):
    try:
        r = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           check=True)
        files = sorted(set(f for f in r.stdout.decode("utf-8").split("\0") if f))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
            for name in names:
                files.append(os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/"))
    return [f for f in files if not SKIP_DIRS.match(f) and f != SELF
            and os.path.isfile(os.path.join(src, f))]


def text_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        return None  # binary
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def in_web_address(line, start):
    """True when the path at `start` is part of a URL (https://host/.../x.md#y)."""
    before = re.split(r"[\s(<\[\"'`]", line[:start])[-1]
    return "://" in before or before.startswith("www.")


def resolve(src, rel, target):
    """The referenced file's path under src, or None; the two readings as in the docstring."""
    here = os.path.dirname(rel)
    by_file = os.path.normpath(os.path.join(src, here, target))
    by_root = os.path.normpath(os.path.join(src, target))
    order = [by_file, by_root] if rel.endswith(".md") else [by_root, by_file]
    for path in order:
        if os.path.isfile(path) and os.path.realpath(path).startswith(os.path.realpath(src)):
            return path
    return None


def check(src):
    problems, count = [], 0
    for rel in repository_files(src):
        text = text_of(os.path.join(src, rel))
        if text is None:
            continue
        for n, line in enumerate(text.split("\n"), 1):
            for m in MD_REF.finditer(line):
                if in_web_address(line, m.start()):
                    continue
                count += 1
                target, anchor = m.group(1), m.group(2)
                path = resolve(src, rel, target)
                if path is None:
                    problems.append("%s:%d: %s#%s (no such file: %s)" % (rel, n, target, anchor, target))
                elif anchor not in anchors_of(path):
                    problems.append("%s:%d: %s#%s (no heading of %s has that anchor)"
                                    % (rel, n, target, anchor, os.path.relpath(path, src)))
            if rel.endswith(".md"):
                for m in SELF_REF.finditer(line):
                    count += 1
                    if m.group(1) not in anchors_of(os.path.join(src, rel)):
                        problems.append("%s:%d: #%s (no heading of this page has that anchor)"
                                        % (rel, n, m.group(1)))
    return problems, count


def self_test():
    """GitHub's anchors for headings of the kinds this repository has."""
    cases = [("Measured: FramePacer call costs", "measured-framepacer-call-costs"),
             ("Display lock and cadence: `pacer simulate display`",
              "display-lock-and-cadence-pacer-simulate-display"),
             ("The raised spin's bound", "the-raised-spins-bound"),
             ("Where to call `wait()`", "where-to-call-wait"),
             ("60 -> 30", "60---30"),
             ("Using `sleep_until`", "using-sleep_until"),
             ("[Linked](x.md) heading", "linked-heading")]
    bad = ["slugify(%r) = %r, GitHub: %r" % (h, slugify(heading_text(h)), want)
           for h, want in cases if slugify(heading_text(h)) != want]
    s = Slugger()
    dup = [s.slug("Notes"), s.slug("Notes"), s.slug("Notes")]
    if dup != ["notes", "notes-1", "notes-2"]:
        bad.append("duplicate headings: %r, GitHub: notes, notes-1, notes-2" % dup)
    heads = markdown_headings("# A\n```\n# not one\n```\n\n    # nor this\n\nB\n---\n")
    if [h for _, h in heads] != ["A", "B"]:
        bad.append("headings outside code: %r, want ['A', 'B']" % heads)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    src = os.path.abspath(ap.parse_args().source_dir)
    problems = ["anchors.py itself: " + p for p in self_test()]
    found, count = check(src)
    problems += found
    if problems:
        print("anchors: %d broken reference(s):\n  %s" % (len(problems), "\n  ".join(problems)))
        return 1
    print("anchors: ok: %d reference(s) to Markdown headings, every one resolves" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
