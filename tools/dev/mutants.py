#!/usr/bin/env python3
"""Broken pacers that the real-display tests must fail: each mutant is one edit of the source,
built into its own `pacer` tool, and run through the test that should catch it.

    tools/dev/mutants.py [--noise NAME[,NAME...]] [--only NAME] [--build DIR]
    (./dev mutants [options]: builds first)

A test judged against a floor measured in its own run (tests/display/x11_present_test.py: the
server's stamps in hindsight; tests/stop_cont_test.cpp: the frames the machine woke late) must
still fail a pacer that is wrong. Each mutant below is applied
to a copy of the source tree under BUILD/mutants/src (the working tree is never touched), the tool
is rebuilt there (one file and a link), and the test runs against it (a test program of the main
build through PACER_TEST_CLI, so ./dev mutants wants ./dev test's build) beside each noise source
named (the noise sources of tools/dev/flake.py: none, disk, busy, timer, mix, all). A mutant that passes
the test is a test that lost its power: exit status 1, and the line says which. Exit status 0 when
every mutant failed its test, 2 on bad options or a mutant whose edit no longer applies (the
source moved on: update the edit here).
"""

import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flake import NOISES, SOURCES, Noise  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/dev/ -> the checkout
LOCK = ["tests/display/x11_present_test.py", "lock", "60", "120", "144"]
TARGET = ["tests/display/x11_present_test.py", "target", "60", "144"]
# A test program of the main build (./dev builds it), pointed at the mutant tool by PACER_TEST_CLI.
STOP_CONT = ["build/tests/pacer_stop_cont_test"]

# name: (what it breaks, file, the text replaced, its replacement, the test that must fail it,
#        the check of that test expected to say FAIL)
MUTANTS = {
    "phase-quarter": (
        "the predicted vblank a quarter period late",
        "pacer/src/parts/display.cpp",
        "    return clock::from_ns(v);\n}",
        "    return clock::from_ns(v + std::llround(period_ / 4));\n}",
        LOCK, "next vblank error p50"),
    "phase-1ms": (
        "the predicted vblank 1 ms late (the test's resolution: floor + 0.5 ms)",
        "pacer/src/parts/display.cpp",
        "    return clock::from_ns(v);\n}",
        "    return clock::from_ns(v + 1'000'000);\n}",
        LOCK, "next vblank error p50"),
    "rate-0.1pct": (
        "the fit fed a clock 0.1 % fast (the vblank times converted with a 1000 ppm error)",
        "pacer/adapters/include/pacer/x11_present.hpp",
        "            out->time = offset_.to_pacer(std::chrono::microseconds(cn->ust));",
        "            out->time = offset_.to_pacer(std::chrono::microseconds(cn->ust + cn->ust / 1000));",
        LOCK, "fitted"),
    "skip-counter": (
        "the source asks for the vblank after next instead of the next one",
        "pacer/adapters/include/pacer/x11_present.hpp",
        "            xcb_present_notify_msc(c_, window_, next_serial(), ++requested_, 1, 0);",
        "            xcb_present_notify_msc(c_, window_, next_serial(), requested_ += 2, 1, 0);",
        LOCK, "counter steps"),
    "target-early": (
        "each frame presented for the vblank before the one it was paced for",
        "pacer/src/core/frame_pacer.cpp",
        "    aims_[static_cast<std::size_t>(frames_ % aims_.size())] = {",
        "    t.display_target_msc -= t.has_display_target_msc ? 1 : 0;\n"
        "    aims_[static_cast<std::size_t>(frames_ % aims_.size())] = {",
        TARGET, "presents the pacer's"),
    "lead-eighth": (
        "the present's lead an eighth of what was learned (too short for the machine's delays)",
        "pacer/src/parts/lead.cpp",
        "std::clamp(static_cast<std::int64_t>(q + offset_), std::int64_t{0}, 4 * p)",
        "std::clamp(static_cast<std::int64_t>(q + offset_) / 8, std::int64_t{0}, 4 * p)",
        TARGET, "presents the pacer's"),
    "catch-up-8": (
        "the catch_up late policy serves 8 late frames back to back, not 1",
        "pacer/src/parts/grid.cpp",
        "    const auto m = static_cast<std::uint64_t>(std::max(max_catch_up, 0));",
        "    const auto m = static_cast<std::uint64_t>(std::max(max_catch_up, 0)) + 7;",
        STOP_CONT, "frames after the stop came back to back"),
}


def sync_tree(dst):
    """The working tree's tracked and untracked (not ignored) files, copied to dst."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src, out = os.path.join(ROOT, f), os.path.join(dst, f)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # Only what changed, so that the copy's build stays incremental.
        if not os.path.exists(out) or open(src, "rb").read() != open(out, "rb").read():
            shutil.copy2(src, out)


def build(src, bld):
    if not os.path.exists(os.path.join(bld, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", src, "-B", bld, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g0 -DNDEBUG", "-DPACER_BUILD_TESTS=OFF",
                        "-DPACER_BUILD_BENCH=OFF", "-DPACER_BUILD_DEMO=OFF", "-DPACER_INSTALL=OFF"],
                       check=True, stdout=subprocess.DEVNULL)
    r = subprocess.run(["cmake", "--build", bld, "--target", "pacer_cli", "-j", "2"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-4000:] + r.stderr[-4000:])
        raise SystemExit("mutants: the mutant did not build")
    return os.path.join(bld, "tools", "pacer")


def main():
    ap = argparse.ArgumentParser(prog="./dev mutants", description=__doc__.split("\n\n")[0])
    ap.add_argument("--noise", default="none", help="none, disk, busy, timer, mix, all, or a comma-separated list")
    ap.add_argument("--only", choices=sorted(MUTANTS), help="one mutant")
    ap.add_argument("--build", default="build", help="the build tree the copy goes under (default: build)")
    args = ap.parse_args()
    noises = NOISES if args.noise == "all" else tuple(args.noise.split(","))
    for n in noises:
        if n not in SOURCES:
            ap.error(f"--noise: {n!r} is not one of {', '.join(SOURCES)} or all")
    work = os.path.join(os.path.abspath(args.build), "mutants")
    src, bld = os.path.join(work, "src"), os.path.join(work, "build")
    os.makedirs(src, exist_ok=True)
    sync_tree(src)
    for name, (_, path, old, _, _, _) in MUTANTS.items():  # every edit still applies
        if open(os.path.join(ROOT, path)).read().count(old) != 1:
            print(f"mutants: {name}: its text is no longer found once in {path}: update tools/dev/mutants.py")
            return 2
    survived = []
    for name in [args.only] if args.only else MUTANTS:
        what, path, old, new, test, check = MUTANTS[name]
        target = os.path.join(src, path)
        original = open(os.path.join(ROOT, path)).read()
        with open(target, "w") as f:
            f.write(original.replace(old, new))
        try:
            tool = build(src, bld)
        finally:
            with open(target, "w") as f:
                f.write(original)
        for noise in noises:
            with Noise(noise, work):
                if test[0].endswith(".py"):
                    cmd, env = [sys.executable, os.path.join(ROOT, test[0]), tool] + test[1:], None
                else:
                    cmd, env = [os.path.join(ROOT, test[0])] + test[1:], dict(os.environ, PACER_TEST_CLI=tool)
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
            # The failed checks: the script's FAIL lines, or gtest's failure messages.
            lines = r.stdout.splitlines()
            fails = [line for line in lines if "FAIL" in line and not line.startswith("FAILED")
                     and not line.startswith("[  FAILED") and "FAILED TEST" not in line]
            fails += [line for i, line in enumerate(lines) if i > 0 and "Failure" in lines[i - 1]]
            fails += [line for line in lines if check in line and line not in fails]
            caught = r.returncode == 1 and any(check in line for line in fails)
            print(f"mutants: {name} ({what}), noise {noise}: {'caught' if caught else 'NOT CAUGHT'} by "
                  f"{' '.join([os.path.basename(test[0])] + test[1:2])}, exit {r.returncode}", flush=True)
            for line in fails:
                print(f"    {line}")
            if not caught:
                survived.append(f"{name} ({noise})")
                sys.stdout.write(r.stdout[-3000:] + r.stderr[-2000:])
    # The copy's build back to the unmutated tool (the next run starts from it).
    build(src, bld)
    if survived:
        print(f"mutants: survived: {', '.join(survived)}")
        return 1
    print("mutants: every mutant failed its test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
