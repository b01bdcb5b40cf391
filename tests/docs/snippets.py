#!/usr/bin/env python3
"""The documentation's examples, compiled against the installed pacer as a newcomer meets them.

Extracts
  * every ```cpp and ```c block of README.md, docs/*.md and demo/README.md;
  * the examples in the leading comment of each public header (pacer/include/pacer/*.hpp,
    pacer/include/pacer/pacer.h, pacer/adapters/include/pacer/*.hpp): a block indented by three
    spaces after the comment marker, between empty comment lines, whose first line that is not
    a comment is a statement or opens one (ends in ';', '{' or '=') or is an #include. Index
    tables (a name, spaces, a description) and pseudo-notation do not end that way; an example
    that is meant to compile must;
and compiles them with -fsyntax-only -Werror (C++20 and C99) against the headers that
`cmake --install` of the build tree put into WORK_DIR/prefix (fresh each run), with the flags of
the installed pacer.pc. An example's #include
lines go to file scope, a function it defines at its top level too, the rest into a function
body; each example in a namespace of its own. The names an example takes from its host (`running`,
`update()`, `fp`, the SDL window, ...) are declared in tests/docs/snippet_host.hpp and
snippet_host.h, nothing else: a name pacer does not have fails to compile. `#line` directives point
a compiler error at the document's own line.

Examples that use an optional adapter compile with it when it was built (--adapters), with its
dependency's flags from pkg-config, and are reported skipped otherwise.
pacer/wayland_presentation.hpp is not installed: its examples compile against the source tree and
the generated protocol header (--wayland-include).

Also checked, as text:
  * no `pacer.name(` in those documents or the headers' leading comments: pacer is the namespace,
    the examples' FramePacer is `fp`;
  * every inline `fp....` code span of the documents compiles, as an expression;
  * every `cmake --build` they show builds in parallel (-j, --parallel, or a preset: it sets jobs);
  * docs/embedding.md's table of installed files covers every file installed, and names every
    adapter header installed;
  * docs/embedding.md shows each file of examples/consumer/ (the game project of "Using pacer in
    your project", which tests/consumer/run.cmake builds and runs) verbatim in a fenced block, and
    names it.

usage: snippets.py --source-dir DIR --build-dir DIR --work-dir DIR --cmake CMAKE --cxx CXX --cc CC
                   --pkg-config PKG_CONFIG [--config CONFIG] [--adapters=sdl2,spdlog,...]
                   [--wayland-include=DIR,DIR]
Exit 0: every check passed; 1: a check failed (each one is listed).
"""
import argparse
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

FENCE_LANGS = {"cpp": "cpp", "c": "c"}
# Groups: the adapter an example needs (core: none), the macro snippet_host.hpp knows it by and
# the pkg-config modules of its dependency.
GROUPS = {
    "core": ([], []),
    "sdl2": (["PACER_SNIPPETS_SDL2"], ["sdl2"]),
    "spdlog": (["PACER_SNIPPETS_SPDLOG"], ["spdlog"]),
    "x11_present": (["PACER_SNIPPETS_X11_PRESENT"], ["xcb", "xcb-present"]),
    "vulkan": (["PACER_SNIPPETS_VULKAN"], ["vulkan"]),
    "wayland": (["PACER_SNIPPETS_SDL2", "PACER_SNIPPETS_WAYLAND"], ["sdl2", "wayland-client"]),
}
HEADER_GROUPS = {"sdl2.hpp": "sdl2", "spdlog.hpp": "spdlog", "x11_present.hpp": "x11_present",
                 "wayland_presentation.hpp": "wayland", "vulkan.hpp": "vulkan"}


class Snippet:
    def __init__(self, path, line, lang, lines):
        self.path, self.line, self.lang = path, line, lang
        self.lines = lines  # (line number, text)

    def text(self):
        return "\n".join(t for _, t in self.lines)

    def group(self):
        name = os.path.basename(self.path)
        if name in HEADER_GROUPS:
            return HEADER_GROUPS[name]
        text = self.text()
        if "pacer::wayland" in text or "WP_PRESENTATION" in text:
            return "wayland"
        if "pacer::x11" in text:
            return "x11_present"
        if "pacer::vk::" in text:
            return "vulkan"
        if "spdlog" in text:
            return "spdlog"
        if "SDL_" in text or "pacer::sdl2" in text:
            return "sdl2"
        return "core"


# ---- Extraction ----------------------------------------------------------------------------------
def markdown_snippets(src, rel):
    """The ```cpp and ```c blocks of a Markdown file."""
    out, block, lang = [], None, None
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if block is None:
                m = re.match(r"^```(\w+)\s*$", line)
                if m and m.group(1) in FENCE_LANGS:
                    block, lang, start = [], FENCE_LANGS[m.group(1)], n + 1
                elif line.startswith("```"):
                    block, lang, start = [], None, n + 1
            elif line.startswith("```"):
                if lang:
                    out.append(Snippet(rel, start, lang, block))
                block = None
            else:
                block.append((n, line))
    return out


def leading_comment(text):
    """The header's leading comment as (line number, text after the comment marker)."""
    lines = text.split("\n")
    out = []
    if lines[0].startswith("/*"):
        for n, line in enumerate(lines, 1):
            end = "*/" in line
            body = line.split("*/")[0]
            if n == 1:
                body = body[2:]
            elif body.startswith(" *"):
                body = body[2:]
            out.append((n, body.rstrip()))
            if end:
                break
    else:
        for n, line in enumerate(lines, 1):
            if not line.startswith("//"):
                break
            out.append((n, line[2:].rstrip()))
    return out


def code_part(line):
    """A line without its trailing // comment (not one inside a string literal)."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i].rstrip()
    return line.rstrip()


def is_example(block):
    for _, text in block:
        code = code_part(text).strip()
        if not code:
            continue  # a comment line
        return code.startswith("#include") or code.endswith((";", "{", "="))
    return False


def header_snippets(src, rel, lang):
    comment = leading_comment(open(os.path.join(src, rel), encoding="utf-8").read())
    out, block, previous_empty = [], [], True
    for n, text in comment + [(0, "")]:
        indent = len(text) - len(text.lstrip(" "))
        if text.strip() and (block and indent >= 3 or not block and previous_empty and indent == 3):
            block.append((n, text))
            continue
        if block and not text.strip() and is_example(block):
            out.append(Snippet(rel, block[0][0], lang, [(m, t[3:]) for m, t in block]))
        block = []
        previous_empty = not text.strip()
    return out


# ---- Translation units ---------------------------------------------------------------------------
# A function definition's first line at an example's top level: a return type, a name, parameters
# and the opening brace (not a statement such as `while (running) {`).
DEFINITION = re.compile(r"^(?!(if|for|while|switch|return|else|do|catch)\b)"
                        r"[A-Za-z_][\w:<>,\s*&]*\b[A-Za-z_]\w*\s*\([^;]*\)\s*"
                        r"(const\s*)?(noexcept\s*)?\{\s*$")


def split_snippet(snippet):
    """(#include lines, file-scope chunks, body chunks): chunks are lists of (line number, text)."""
    includes, scope, body = [], [], []
    lines = snippet.lines
    i = 0
    while i < len(lines):
        n, text = lines[i]
        if text.startswith("#include"):
            includes.append((n, text))
        elif DEFINITION.match(text):  # a function: to its closing brace in column 0
            chunk = [(n, text)]
            while i + 1 < len(lines) and not lines[i][1].startswith("}"):
                i += 1
                chunk.append(lines[i])
            scope.append(chunk)
        else:
            body.append((n, text))
        i += 1
    return includes, scope, body


class Unit:
    """One generated source file; remembers its own line count for #line directives."""

    def __init__(self, path):
        self.path, self.lines = path, []

    def add(self, text):
        self.lines.extend(text.split("\n"))

    def origin(self, chunk, rel):
        """Adds source lines with a #line before each run of consecutive lines."""
        previous = None
        for n, text in chunk:
            if previous is None or n != previous + 1:
                self.lines.append('#line %d "%s"' % (n, rel))
            self.lines.append(text)
            previous = n
        self.lines.append('#line %d "%s"' % (len(self.lines) + 2, self.path))

    def write(self):
        with open(self.path, "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")


def write_unit(path, snippets, lang, spans=()):
    unit = Unit(path)
    unit.add("// Generated by tests/docs/snippets.py: the documentation's examples.")
    unit.add('#include "snippet_host.h%s"' % ("pp" if lang == "cpp" else ""))
    parts = [(s, split_snippet(s)) for s in snippets]
    for s, (includes, _, _) in parts:
        if includes:
            unit.origin(includes, s.path)
    for k, (s, (_, scope, body)) in enumerate(parts):
        unit.add("// %s:%d" % (s.path, s.line))
        if lang == "cpp":
            unit.add("namespace snippet_%d {" % k)
        for chunk in scope:
            unit.origin(chunk, s.path)
        unit.add("int %s(void) {" % ("body" if lang == "cpp" else "snippet_%d" % k))
        unit.origin(body, s.path)
        unit.add("    return 0;\n}")
        if lang == "cpp":
            unit.add("}")
    if spans:
        unit.add("// The documents' inline fp.... spans, each an expression.\nint inline_spans() {")
        for rel, n, span in spans:
            unit.origin([(n, "    (void)(%s);" % span)], rel)
        unit.add("    return 0;\n}")
    unit.write()


# ---- Text checks ---------------------------------------------------------------------------------
def text_checks(src, docs, headers, prefix):
    problems, spans = [], []
    for rel in docs + headers:
        text = open(os.path.join(src, rel), encoding="utf-8").read()
        lines = text.split("\n") if rel.endswith(".md") else [t for _, t in leading_comment(text)]
        for n, line in enumerate(lines, 1):
            for m in re.finditer(r"\bpacer\.([A-Za-z_]\w*)\(", line):
                problems.append("%s:%d: `pacer.%s(`: pacer is the namespace; the examples' "
                                "FramePacer is fp" % (rel, n, m.group(1)))
            if not rel.endswith(".md"):
                continue
            for m in re.finditer(r"`(fp\.[^`]+)`", line):
                if "..." not in m.group(1):
                    spans.append((rel, n, m.group(1)))
            for m in re.finditer(r"cmake --build\b[^`\n]*", line):
                if not re.search(r"\s(-j|--parallel|--preset)\b", m.group(0)):
                    problems.append("%s:%d: `%s` builds on one core: add -j (or --parallel, or "
                                    "use a preset)" % (rel, n, m.group(0).strip()))
    problems += installed_table(src, prefix)
    problems += example_files(src)
    return problems, spans


EXAMPLE_DIR = "examples/consumer"
# The document that shows the example project and the table of installed files.
EMBEDDING_DOC = "docs/embedding.md"


def fenced_blocks(text):
    """The text of every fenced block of a Markdown text, whatever its language."""
    out, block = [], None
    for line in text.split("\n"):
        if block is None:
            if line.startswith("```"):
                block = []
        elif line.startswith("```"):
            out.append("\n".join(block))
            block = None
        else:
            block.append(line)
    return out


def example_files(src):
    """docs/embedding.md against examples/consumer/: one copy of the truth, the files built."""
    doc = open(os.path.join(src, EMBEDDING_DOC), encoding="utf-8").read()
    blocks = set(fenced_blocks(doc))
    folder = os.path.join(src, EXAMPLE_DIR)
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    if not names:
        return ["%s: no files: %s's \"Using pacer in your project\" shows them" % (EXAMPLE_DIR, EMBEDDING_DOC)]
    problems = []
    for name in names:
        rel = "%s/%s" % (EXAMPLE_DIR, name)
        text = open(os.path.join(folder, name), encoding="utf-8").read()
        if text.rstrip("\n") not in blocks:
            problems.append("%s: no fenced block shows %s as it is (the block must be the file's "
                            "text: tests/consumer/run.cmake builds the file)" % (EMBEDDING_DOC, rel))
        if rel not in doc:
            problems.append("%s: %s is shown but not named" % (EMBEDDING_DOC, rel))
    return problems


def installed_table(src, prefix):
    """docs/embedding.md's table of installed files against what `cmake --install` installed."""
    doc = open(os.path.join(src, EMBEDDING_DOC), encoding="utf-8").read()
    table = doc.split("| installed | what |", 1)[-1].split("\n\n")[0]
    rows = re.findall(r"^\| (`[^|]*`) \| ([^\n]*) \|$", table, re.M)
    if not rows:
        return ["%s: no table of installed files (| installed | what |)" % EMBEDDING_DOC]
    patterns = []
    for first, what in rows:
        for p in re.findall(r"`([^`]+)`", first):
            patterns.append((p, what))
    problems = []
    adapters = {os.path.basename(h) for h in sources(src, "pacer/adapters/include/pacer/*.hpp")}
    for root, _, files in os.walk(prefix):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), prefix).replace(os.sep, "/")
            rel = re.sub(r"^lib/[^/]*-linux-[^/]*/", "lib/", rel)  # lib/<multiarch>/ under /usr
            rows_for = [what for p, what in patterns
                        if fnmatch.fnmatchcase(rel, p) or (p.endswith("/") and rel.startswith(p))]
            if not rows_for:
                problems.append("%s: the table of installed files has no row for %s" % (EMBEDDING_DOC, rel))
            elif (name in adapters and rel.startswith("include/")
                  and not any("pacer/" + name in what for what in rows_for)):
                problems.append("%s: the table of installed files does not name the "
                                "installed adapter header pacer/%s" % (EMBEDDING_DOC, name))
    return problems


# ---- Main ----------------------------------------------------------------------------------------
def sources(src, pattern):
    paths = glob.glob(os.path.join(src, pattern))
    return sorted(os.path.relpath(p, src).replace(os.sep, "/") for p in paths)



def run(cmd, env=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in ("--source-dir", "--build-dir", "--work-dir", "--cmake", "--cxx", "--cc",
                 "--pkg-config"):
        ap.add_argument(name, required=True)
    ap.add_argument("--config", default="")
    ap.add_argument("--adapters", default="")
    ap.add_argument("--wayland-include", default="")
    args = ap.parse_args()
    src, work = os.path.abspath(args.source_dir), os.path.abspath(args.work_dir)
    adapters = {a for a in args.adapters.split(",") if a}

    # The installed package, fresh.
    prefix = os.path.join(work, "prefix")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    install = [args.cmake, "--install", args.build_dir, "--prefix", prefix]
    if args.config:
        install += ["--config", args.config]
    r = run(install)
    if r.returncode != 0:
        print(r.stdout)
        print("snippets: cmake --install failed")
        return 1
    pcs = glob.glob(os.path.join(prefix, "**", "pacer.pc"), recursive=True)
    if not pcs:
        print("snippets: no pacer.pc under %s" % prefix)
        return 1
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))

    def cflags(modules):
        r = run([args.pkg_config, "--cflags"] + modules, env)
        if r.returncode != 0:
            raise RuntimeError("pkg-config --cflags %s: %s" % (" ".join(modules), r.stdout.strip()))
        return shlex.split(r.stdout)

    pacer_flags = cflags(["pacer"])

    docs = ["README.md"] + sources(src, "docs/*.md") + sources(src, "demo/README.md")
    headers = sources(src, "pacer/include/pacer/*.hpp") + ["pacer/include/pacer/pacer.h"]
    headers += sources(src, "pacer/adapters/include/pacer/*.hpp")

    snippets = []
    for rel in docs:
        snippets += markdown_snippets(src, rel)
    for rel in headers:
        snippets += header_snippets(src, rel, "c" if rel.endswith(".h") else "cpp")
    problems, spans = text_checks(src, docs, headers, prefix)

    counts = {}
    for s in snippets:
        counts.setdefault(s.path, 0)
        counts[s.path] += 1
    for rel in sorted(counts):
        print("snippets: %s: %d example(s)" % (rel, counts[rel]))
    expected = (("README.md", "cpp"), ("README.md", "c"), (EMBEDDING_DOC, "cpp"),
                ("pacer/include/pacer/pacer.h", "c"))
    for rel, lang in expected:
        if not any(s.path == rel and s.lang == lang for s in snippets):
            problems.append("%s: no %s example found: the extraction no longer matches the document"
                            % (rel, lang))

    here = os.path.dirname(os.path.abspath(__file__))
    units = []
    for group, (macros, modules) in GROUPS.items():
        for lang in ("cpp", "c"):
            chosen = [s for s in snippets if s.lang == lang and s.group() == group]
            chosen_spans = spans if group == "core" and lang == "cpp" else []
            if not chosen and not chosen_spans:
                continue
            if group != "core" and group not in adapters:
                print("snippets: %d %s example(s) skipped: pacer::%s was not built (%s)"
                      % (len(chosen), group, group, ", ".join(sorted({s.path for s in chosen}))))
                continue
            path = os.path.join(work, "snippets_%s.%s" % (group, lang))
            write_unit(path, chosen, lang, chosen_spans)
            flags = list(pacer_flags)
            if group == "wayland":
                for d in args.wayland_include.split(","):
                    flags += ["-isystem", d] if d else []
            try:
                flags += cflags(modules) if modules else []
            except RuntimeError as e:
                problems.append("%s examples: %s" % (group, e))
                continue
            flags += ["-D" + m for m in macros]
            if lang == "cpp":
                cmd = [args.cxx, "-std=c++20"]
            else:
                cmd = [args.cc, "-std=c99"]
            cmd += ["-fsyntax-only", "-Werror", "-I", here] + flags + [path]
            units.append((group, lang, len(chosen), len(chosen_spans), cmd))

    for group, lang, n, n_spans, cmd in units:
        r = run(cmd)
        what = "%s %s: %d example(s)%s" % (group, "C++" if lang == "cpp" else "C", n,
                                             ", %d inline span(s)" % n_spans if n_spans else "")
        if r.returncode == 0:
            print("snippets: ok: %s" % what)
        else:
            print(r.stdout.rstrip())
            print("snippets: compile command: %s" % " ".join(shlex.quote(c) for c in cmd))
            problems.append("%s do not compile against the installed pacer (errors above)" % what)

    if problems:
        print("snippets: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
