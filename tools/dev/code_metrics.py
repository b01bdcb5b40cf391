#!/usr/bin/env python3
"""Size metrics of the repository's C++ sources, at a git revision or in the working tree.

    tools/dev/code_metrics.py [REV]      (./dev metrics [REV])

Prints the largest C++ files, the five longest functions of the shipped code (library, tools,
cli, demo) and how many exceed 60 lines, FramePacer's public member count, whether the public
headers keep their layers (tests/headers/layering.cmake), and the summary of the `duplicates`
command (repeated blocks of code), compact enough for a commit message.
REV is measured from `git archive` into a temporary folder, so any commit can be measured
without checking it out; without REV the working tree is measured (tracked files plus
untracked ones git does not ignore).

Functions are found by a brace-matching heuristic, good enough to rank them, not a parser:
comments, string and character literals and preprocessor lines are blanked out, then every
`{` at namespace or class scope whose preceding declaration has a parenthesis before any `=`
opens a function body (constructors with initializer lists, operators, trailing return types
and test macros such as TEST(Suite, name) included). Lambdas and local classes count as part
of the function around them. A function's lines run from its declaration's first line to its
closing brace.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

CPP_EXTENSIONS = (".cpp", ".hpp", ".cc", ".cxx", ".hh", ".hxx", ".h", ".ipp", ".inl")
# Vendored code is not ours to measure (duplicates leaves these folders out too).
SKIP_DIRS = {"third_party", "vendor", "node_modules"}
TOP = 5
DUPLICATE_ROWS_SHOWN = 3
# The shipped code, where no function may be longer than MAX_FUNCTION lines; tests and benchmarks
# are measured but not held to it.
SHIPPED = ("pacer/", "tools/", "cli/", "demo/", "vulkan_layer/")
MAX_FUNCTION = 60
MAX_FILE = 800  # lines of a source outside tests/
# The door: FramePacer's public members besides construction, at most this many.
MAX_DOOR = 15


def git(*args, cwd=None, binary=False):
    out = subprocess.run(["git", *args], cwd=cwd, check=True, stdout=subprocess.PIPE)
    return out.stdout if binary else out.stdout.decode()


def is_cpp(path):
    parts = path.split("/")
    return path.endswith(CPP_EXTENSIONS) and not SKIP_DIRS.intersection(parts[:-1])


def count_lines(text):
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


# ---- Blanking comments, literals and preprocessor lines (newlines kept, so lines still match) ----

def _blank(s):
    return re.sub(r"[^\n]", " ", s)


def strip_code(text):
    out = []
    i, n = 0, len(text)
    at_line_start = True  # only white space since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            i += 1
            at_line_start = True
            continue
        if at_line_start and c == "#":
            # A preprocessor line, with its backslash continuations.
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            out.append(_blank(text[i:k]))
            i = k
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            k = text.find("\n", i)
            k = n if k < 0 else k
            out.append(_blank(text[i:k]))
            i = k
        elif text.startswith("/*", i):
            k = text.find("*/", i + 2)
            k = n if k < 0 else k + 2
            out.append(_blank(text[i:k]))
            i = k
        elif c == '"' and _raw_string_prefix(text, i):
            m = re.compile(r'"([^()\\\s]{0,16})\(').match(text, i)
            if m:
                end = text.find(")" + m.group(1) + '"', m.end())
                k = n if end < 0 else end + len(m.group(1)) + 2
            else:
                k = i + 1
            out.append('"' + _blank(text[i + 1:k - 1]) + '"')
            i = k
        elif c == '"' or (c == "'" and not _digit_separator(text, i)):
            k = i + 1
            while k < n and text[k] != c and text[k] != "\n":
                k += 2 if text[k] == "\\" else 1
            k = min(k + 1, n)
            out.append(c + _blank(text[i + 1:k - 1]) + c)
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _raw_string_prefix(text, i):
    # R"(...)" is a raw string when R (u8R, uR, UR, LR) is a whole token: fooR"(...)" is not.
    m = re.search(r"[A-Za-z0-9_]*$", text[max(0, i - 64):i])
    return m.group(0) in ("R", "u8R", "uR", "UR", "LR")


def _digit_separator(text, i):
    # 65'536 or 0xFF'FF: the quote sits inside a number literal.
    m = re.search(r"[0-9A-Za-z_.']*$", text[max(0, i - 64):i])
    return bool(m.group(0)) and m.group(0)[0].isdigit()


# ---- Finding function bodies ----

CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|try|return)\b")
CLASS_HEAD = re.compile(r"^(?:template\s*<.*>\s*)?(?:\[\[.*?\]\]\s*)?(class|struct|union|enum)\b")
NAMESPACE_HEAD = re.compile(r"^(?:inline\s+)?namespace\b|^extern\s*\"\s*\"$")
NAME_BEFORE_PAREN = re.compile(
    r"(operator\s*(?:\(\s*\)|[^\s(]+)|[A-Za-z_~][\w:~]*(?:<[^()]*>)?)\s*$")
# What may follow a function's parameter list: qualifiers, then a trailing return type, a
# requires-clause or a constructor's initializer list (which ends in ')' or '}').
FUNCTION_TAIL = re.compile(
    r"^\s*(?:(?:const|volatile|noexcept(?:\s*\(\))?|override|final|mutable|&&?|try"
    r"|throw\s*\(\)|\[\[[^\]]*\]\]|__attribute__\s*\(\))\s*)*"
    r"(?:->.*|requires\b.*|:(?!:).*[)}]\s*(?:try\s*)?)?$")


def _collapse(s):
    """Nested (...) and {...} groups reduced to () and {}, innermost first: a group may hold
    groups already reduced (std::function<int(int)> in a parameter list)."""
    while True:
        t = re.sub(r"\((?:[^(){}]|\(\)|\{\})*\)", "()", re.sub(r"\{(?:[^(){}]|\(\)|\{\})*\}", "{}", s))
        if t == s:
            return s
        s = t


def _paren_prefix(head):
    """The head up to its first top-level '(' (operator() handled), or None without one."""
    depth = 0
    i = 0
    while i < len(head):
        c = head[i]
        if c == "<":
            depth += 1  # template arguments; a stray '<' only makes us more conservative
        elif c == ">" and depth:
            depth -= 1
        elif c == "(" and depth == 0:
            if re.search(r"\boperator\s*$", head[:i]) and head.startswith("()", i):
                i += 2
                continue
            return head[:i]
        i += 1
    return None


def classify(head):
    """'namespace', 'class', 'function' or 'other' for the declaration before a '{'."""
    h = " ".join(head.split())
    if NAMESPACE_HEAD.search(h):
        return "namespace"
    if CONTROL.search(h):
        return "other"
    m = CLASS_HEAD.search(h)
    if m:
        return "other" if m.group(1) == "enum" else "class"
    prefix = _paren_prefix(h)
    if prefix is None:
        return "other"
    if "=" in re.sub(r"\boperator\s*\S+", "", prefix) or not NAME_BEFORE_PAREN.search(prefix):
        return "other"
    rest = _collapse(h[len(prefix):])
    if not rest.startswith("()"):  # the parameter list is still open: a default argument {}
        return "other"
    return "function" if FUNCTION_TAIL.match(rest[2:]) else "other"


def function_name(head):
    h = " ".join(head.split())
    prefix = _paren_prefix(h)
    name = NAME_BEFORE_PAREN.search(prefix).group(1)
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", name):  # TEST(Suite, name) and the like
        args = h[len(prefix):]
        depth = 0
        for k, c in enumerate(args):
            depth += (c == "(") - (c == ")")
            if depth == 0:
                return name + " ".join(args[:k + 1].split())
    return name


def _matching_brace(code, i):
    """Index just past the '}' matching the '{' at i."""
    depth = 0
    for j in range(i, len(code)):
        depth += (code[j] == "{") - (code[j] == "}")
        if depth == 0:
            return j + 1
    return len(code)


def functions(text):
    """(first line, last line, name) of each function body in a C++ source text."""
    code = strip_code(text)
    newline_at = [0] * (len(code) + 1)  # line number (1-based) of each position
    line = 1
    for k, c in enumerate(code):
        newline_at[k] = line
        line += c == "\n"
    newline_at[len(code)] = line

    found = []
    head_start = 0  # where the declaration before the next '{' starts
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == ";":
            head_start = i + 1
        elif c == "{":
            head = code[head_start:i]
            what = classify(head)
            if what in ("namespace", "class"):
                head_start = i + 1
            else:
                end = _matching_brace(code, i)
                if what == "function":
                    first = head_start + len(head) - len(head.lstrip())
                    found.append((newline_at[first], newline_at[end - 1], function_name(head)))
                    head_start = end
                # else: an initializer or an enum, skipped whole; it stays part of the head
                # (a constructor's `: a_{x}, b_{y} {` goes on to its body).
                i = end
                continue
        elif c == "}":
            head_start = i + 1
        elif c == ":" and re.search(r"\b(public|private|protected)\s*$", code[head_start:i]):
            head_start = i + 1
        i += 1
    return found


# ---- Gathering the files ----

def read_tree(root, paths):
    files = {}
    for p in paths:
        full = os.path.join(root, p)
        if is_cpp(p) and os.path.isfile(full) and not os.path.islink(full):
            with open(full, encoding="utf-8", errors="replace") as f:
                files[p] = f.read()
    return files


def export(rev, dest, cwd):
    data = git("archive", "--format=tar", rev, cwd=cwd, binary=True)
    with tempfile.TemporaryFile() as tmp:
        tmp.write(data)
        tmp.seek(0)
        with tarfile.open(fileobj=tmp) as tar:
            members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
            # Python >= 3.12 takes an extraction filter (and warns without one); 3.11 does not.
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(dest, members=members, **safe)
            return [m.name for m in members if m.isfile()]


def duplicates_report(root):
    exe = shutil.which("duplicates")
    if not exe:
        return ["  `duplicates` is not on PATH: not measured"]
    out = subprocess.run([exe, "--repo", root, "--most", "200", "--seconds", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    lines = out.splitlines()
    rows = [ln for ln in lines if re.match(r"D\d+ ", ln)]
    report = ["  " + (lines[0] if lines else "(no output)"), f"  rows: {len(rows)}"]
    report += ["  " + r for r in rows[:DUPLICATE_ROWS_SHOWN]]
    report += ["  " + ln for ln in lines[1:] if ln.startswith(("left out:", "incomplete:"))]
    return report


def door_members(root):
    """FramePacer's public members besides construction (constructors, destructor, copy)."""
    path = os.path.join(root, "pacer", "include", "pacer", "frame_pacer.hpp")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        code = strip_code(f.read())
    m = re.search(r"\bclass\s+FramePacer\s*\{(.*?)\n\};", code, re.S)
    if not m:
        return None
    count, public = 0, False
    for decl in m.group(1).split(";"):
        decl = " ".join(decl.split())
        for label in re.findall(r"\b(public|private|protected)\s*:", decl):
            public = label == "public"
        decl = re.sub(r"^.*\b(public|private|protected)\s*:", "", decl).strip()
        if not public or "(" not in decl or "operator=" in decl or "~FramePacer" in decl:
            continue
        if re.match(r"(explicit\s+)?FramePacer\s*\(", decl):
            continue
        count += 1
    return count


def layering(root, name, define):
    script = os.path.join(root, "tests", "headers", name)
    if not os.path.isfile(script) or not shutil.which("cmake"):
        return f"not checked (no cmake or no tests/headers/{name})"
    out = subprocess.run(["cmake", define, "-P", script], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    lines = [ln.strip(" -") for ln in out.stdout.splitlines() if ln.strip()]
    return ("ok: " if out.returncode == 0 else "BROKEN: ") + (lines[-1] if lines else "")


def report(label, root, files):
    sizes = sorted(((count_lines(t), p) for p, t in files.items()), key=lambda x: (-x[0], x[1]))
    funcs = []
    for p, t in files.items():
        if not p.startswith(SHIPPED):
            continue
        for first, last, name in functions(t):
            funcs.append((last - first + 1, f"{p}:{first}", name))
    funcs.sort(key=lambda x: (-x[0], x[1]))
    total = sum(s for s, _ in sizes)
    over = sum(1 for n, _, _ in funcs if n > MAX_FUNCTION)
    out = [f"code metrics, {label}: {len(files)} C++ files, {total} lines"]
    big = [p for s, p in sizes if s > MAX_FILE and not p.startswith("tests/")]
    out.append(f"largest files (lines; {len(big)} outside tests/ over {MAX_FILE}"
               f"{': ' + ', '.join(big) if big else ''}):")
    out += [f"  {s:5d}  {p}" for s, p in sizes[:TOP]]
    out.append(f"longest functions of the library, tools, cli and demo ({len(funcs)} functions; "
               f"{over} over {MAX_FUNCTION} lines):")
    out += [f"  {s:5d}  {where}  {name}" for s, where, name in funcs[:TOP]]
    door = door_members(root)
    out.append(f"FramePacer public members besides construction: "
               f"{'not found' if door is None else door} (at most {MAX_DOOR})")
    dirs = ";".join(os.path.join(root, d) for d in ("pacer/include", "pacer/adapters/include"))
    out.append(f"public header layers: {layering(root, 'layering.cmake', f'-DINCLUDE_DIRS={dirs}')}")
    src = os.path.join(root, "pacer", "src")
    out.append(f"library folders: {layering(root, 'src_layering.cmake', f'-DSRC_DIR={src}')}")
    out.append("repeated code (duplicates):")
    out += duplicates_report(root)
    return "\n".join(out)


def check_limits(root):
    """The house's two size limits over every C++ file below root (git's list where root is a
    checkout, else every file), without the slower parts of the report."""
    try:
        paths = [p for p in git("ls-files", "--cached", "--others", "--exclude-standard", "-z",
                                cwd=root).split("\0") if p]
    except (subprocess.CalledProcessError, OSError):
        # No git (an unpacked tarball): every file, but not the build trees .gitignore names.
        paths = []
        for d, dirs, fs in os.walk(root):
            dirs[:] = [x for x in dirs if not (x.startswith((".", "build")) or x == "out")]
            paths += [os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/") for f in fs]
    files = read_tree(root, paths)
    broken = [f"  {p}: {count_lines(t)} lines (at most {MAX_FILE} outside tests/)"
              for p, t in sorted(files.items())
              if not p.startswith("tests/") and count_lines(t) > MAX_FILE]
    for p, t in sorted(files.items()):
        if p.startswith(SHIPPED):
            broken += [f"  {p}:{first}: {name} is {last - first + 1} lines (at most {MAX_FUNCTION})"
                       for first, last, name in functions(t) if last - first + 1 > MAX_FUNCTION]
    if broken:
        print("code_metrics: over the limits (split at the code's own seams):\n" + "\n".join(broken))
        return 1
    print(f"code_metrics: {len(files)} C++ files: none outside tests/ over {MAX_FILE} lines, "
          f"no function of the library, tools, cli or demo over {MAX_FUNCTION}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", nargs="?", help="git revision to measure (default: the working tree)")
    ap.add_argument("--check", metavar="DIR",
                    help=f"exit 1, naming them, if a source outside tests/ of the checkout DIR is over "
                         f"{MAX_FILE} lines or a function of the shipped code over {MAX_FUNCTION} "
                         f"(the test metrics.limits)")
    ap.add_argument("--functions", metavar="FILE",
                    help="list every function found in FILE (to check the heuristic by eye)")
    args = ap.parse_args()

    if args.functions:
        with open(args.functions, encoding="utf-8", errors="replace") as f:
            for first, last, name in functions(f.read()):
                print(f"{last - first + 1:5d}  {first}-{last}  {name}")
        return 0

    if args.check:
        return check_limits(os.path.abspath(args.check))

    top = git("rev-parse", "--show-toplevel").strip()
    if args.rev is None:
        paths = git("ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=top)
        files = read_tree(top, [p for p in paths.split("\0") if p])
        head = git("rev-parse", "--short", "HEAD", cwd=top).strip()
        print(report(f"working tree (HEAD {head})", top, files))
        return 0

    try:
        commit = git("rev-parse", "--short", "--verify", "--quiet", args.rev + "^{commit}",
                     cwd=top).strip()
    except subprocess.CalledProcessError:
        print(f"code_metrics: {args.rev}: not a revision", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pacer-metrics-") as tmp:
        paths = export(commit, tmp, top)
        print(report(f"revision {commit}", tmp, read_tree(tmp, paths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
