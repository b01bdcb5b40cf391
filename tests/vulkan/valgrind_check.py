#!/usr/bin/env python3
"""Reads a memcheck log (valgrind --fullpath-after= --keep-debuginfo=yes --leak-check=full: the
layer and the driver are unloaded before the leak check, and only kept debug information names
their frames) and fails on an error, or a
definitely lost block, whose first frame outside valgrind's own replacements (malloc, new, memcpy)
is pacer's: the layer library, or a source under pacer's tree. Errors that start in Mesa, the
loader or the X libraries are listed as context, not failures: they are not the layer's to fix.

usage: valgrind_check.py LOG MARKER...   (a frame is pacer's when it names a MARKER)"""
import re
import sys

FRAME = re.compile(r"^==\d+==\s+(at|by) 0x[0-9A-F]+: (.*)$")
HEADER = re.compile(r"^==\d+== (\S.*)$")


def blocks(lines):
    block = []
    for line in lines:
        if re.match(r"^==\d+==\s*$", line):
            if block:
                yield block
            block = []
        else:
            block.append(line.rstrip("\n"))
    if block:
        yield block


def first_own_frame(block):
    for line in block:
        m = FRAME.match(line)
        if m and "vgpreload" not in m.group(2) and "vg_replace" not in m.group(2):
            return m.group(2)
    return None


def main():
    log, markers = sys.argv[1], sys.argv[2:]
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    ours, unknown, others = [], [], 0
    for block in blocks(lines):
        head = HEADER.match(block[0])
        if not head or not any(FRAME.match(l) for l in block):
            continue
        text = head.group(1)
        is_leak = "definitely lost" in text
        is_error = not ("lost in loss record" in text) and not text.startswith(("HEAP SUMMARY", "LEAK SUMMARY"))
        if not (is_leak or is_error):
            continue
        frame = first_own_frame(block)
        if frame is not None and frame.startswith("???") and "(in " not in frame:
            unknown.append("\n".join(block))  # an unloaded object without kept debug information
        elif frame and any(m in frame for m in markers):
            ours.append("\n".join(block))
        else:
            others += 1
    summary = [l.strip() for l in lines if "ERROR SUMMARY" in l or "definitely lost:" in l]
    print("valgrind: " + "; ".join(summary))
    print(f"valgrind: {others} error or leak records start outside pacer (Mesa, the loader, X)")
    if unknown:
        print(f"valgrind: {len(unknown)} start in code it cannot name (run with --keep-debuginfo=yes):\n"
              + "\n\n".join(unknown))
        return 1
    if ours:
        print(f"valgrind: {len(ours)} start in pacer:\n" + "\n\n".join(ours))
        return 1
    print("valgrind: none starts in pacer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
