#!/usr/bin/env python3
"""Runs tests again and again, beside a noise source, and counts the passes of each test.

    tools/dev/flake.py [N] [--noise NAME[,NAME...]] [--all-tests] [-R REGEX] [--build DIR]
    (./dev flake [N] [options]: builds first)

N runs (default 10) of the tests labelled `realtime` (every test that paces, sleeps or reads a
clock in real time, or talks to a real server: Xvfb, weston, Chromium), through
`ctest --preset default`, once beside each noise source named (default: none):

  none    nothing beside the tests
  disk    a disk writer: `dd` of 1.5 GB with conv=fsync, in a loop (kernel work and I/O; it
          delays the wake-ups of every process, Xvfb's vblank timer too)
  busy    two busy loops (`sh -c 'while :; do :; done'`), as many as a 2-core machine has cores
  timer   a timer-heavy neighbour: `stress-ng --timer 1 --timer-freq 100000` (Debian: stress-ng)
  stall   the whole machine stopped for 1-12 ms every 20-100 ms: a thread at SCHED_FIFO 99 on
          each of the first two cores, spinning on one schedule (needs the right to raise a
          thread's priority: root or CAP_SYS_NICE). Nothing else runs meanwhile, real-time
          servers included: a hypervisor's pause, or a spell of kernel work on a kernel that
          does not preempt it (a noisy host's Xvfb timer: 4-25 % of its stamps late).
  mix     the disk writer, the two busy loops and the timer neighbour at once (a host worse than
          any of them alone)
  all     none, disk, busy, timer and stall in turn

--all-tests runs the whole default preset (every test `./dev test` runs) instead of the
realtime label; -R narrows the set to the tests whose name matches REGEX. Nothing is retried:
the count says how often a test passed of N, and the output of each failure is kept under
BUILD/flake/NOISE/ (the path is printed), so that a flake can be read and its cause found. Prints one table: test x noise source -> passes of runs, the failures first. Exit
status 0 when every run of every test passed, 1 otherwise, 2 on bad options.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

NOISES = ("none", "disk", "busy", "timer", "stall")  # `all`
SOURCES = NOISES + ("mix",)
# One staller: from the shared start time and seed, spin for 1-12 ms every 20-100 ms, forever,
# under SCHED_FIFO 99. Two of them, one a core, on the same schedule: the whole machine stops at
# once, as in a hypervisor's pause or a spell of kernel work on every core.
STALLER = ("import random, sys, time\n"
           "rng = random.Random(int(sys.argv[2]))\n"
           "t = float(sys.argv[1])\n"
           "while True:\n"
           "    t += rng.uniform(0.02, 0.1)\n"
           "    d = rng.uniform(0.001, 0.012)\n"
           "    time.sleep(max(0.0, t - time.monotonic()))\n"
           "    while time.monotonic() < t + d: pass\n"
           "    t += d\n")


class Noise:
    """A noise source started in a process group of its own, stopped (group and all) on exit."""

    def __init__(self, name, scratch):
        self.name = name
        self.procs = []
        self.cleanup = None
        parts = ("disk", "busy", "timer") if name == "mix" else (name,)
        for part in parts:
            self.add(part, scratch)

    def add(self, name, scratch):
        if name == "disk":
            target = os.path.join(scratch, "pacer-flake-disk-noise")
            self.start(["sh", "-c", f"while :; do dd if=/dev/zero of={target} bs=1M count=1500 conv=fsync "
                                    f"status=none; rm -f {target}; done"])
            self.cleanup = target
        elif name == "busy":
            for _ in range(2):
                self.start(["sh", "-c", "while :; do :; done"])
        elif name == "stall":
            if subprocess.run(["chrt", "-f", "99", "true"], capture_output=True).returncode != 0:
                raise SystemExit("flake: --noise stall needs the right to use SCHED_FIFO (root or CAP_SYS_NICE)")
            start, seed = time.monotonic() + 0.5, int(time.time())
            for cpu in range(min(2, os.cpu_count() or 1)):
                self.start(["taskset", "-c", str(cpu), "chrt", "-f", "99", sys.executable, "-c", STALLER,
                            f"{start:.6f}", str(seed)])
        elif name == "timer":
            if shutil.which("stress-ng") is None:
                raise SystemExit("flake: --noise timer needs stress-ng (Debian package stress-ng)")
            self.start(["stress-ng", "--timer", "1", "--timer-freq", "100000", "--quiet"])

    def start(self, cmd):
        self.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True))

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        if self.cleanup and os.path.exists(self.cleanup):
            os.remove(self.cleanup)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def run_once(args, junit, env):
    """One ctest run; returns {test: (passed, output)} read from its JUnit file."""
    cmd = ["ctest", "--preset", "default", "--output-junit", junit, "--timeout", "300"]
    if not args.all_tests:
        cmd += ["-L", "realtime"]
    if args.regex:
        cmd += ["-R", args.regex]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    results = {}
    if not os.path.exists(junit):
        raise SystemExit(f"flake: ctest wrote no {junit} (is the build configured? ./dev flake builds it)")
    for case in ET.parse(junit).getroot().iter("testcase"):
        status = case.get("status", "")
        if status == "disabled" or case.find("skipped") is not None and status != "fail":
            continue
        failed = status == "fail" or case.find("failure") is not None
        out = case.findtext("system-out") or ""
        results[case.get("name")] = (not failed, out)
    return results


def main():
    ap = argparse.ArgumentParser(prog="./dev flake", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="?", type=int, default=10, help="runs beside each noise source (default 10)")
    ap.add_argument("--noise", default="none", help="none, disk, busy, timer, mix, all, or a comma-separated list")
    ap.add_argument("--all-tests", action="store_true", help="every test of the default preset, not the realtime label")
    ap.add_argument("-R", dest="regex", help="only the tests whose name matches REGEX")
    ap.add_argument("--build", default="build", help="the build tree (default: build)")
    args = ap.parse_args()
    if args.runs < 1 or args.runs > 1000:
        ap.error("N must be in [1, 1000]")
    noises = NOISES if args.noise == "all" else tuple(args.noise.split(","))
    for n in noises:
        if n not in SOURCES:
            ap.error(f"--noise: {n!r} is not one of {', '.join(SOURCES)} or all")
    build = os.path.abspath(args.build)
    counts = {}  # test -> {noise: [passes, runs]}
    logs = os.path.join(build, "flake")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pacer-flake-") as tmp:
        for noise in noises:
            with Noise(noise, os.path.join(build)):
                time.sleep(1 if noise != "none" else 0)  # the noise up to speed
                for i in range(args.runs):
                    junit = os.path.join(tmp, f"{noise}-{i}.xml")
                    t0 = time.monotonic()
                    res = run_once(args, junit, os.environ.copy())
                    failed = [name for name, (ok, _) in res.items() if not ok]
                    for name, (ok, out) in res.items():
                        c = counts.setdefault(name, {}).setdefault(noise, [0, 0])
                        c[0] += ok
                        c[1] += 1
                        if not ok:
                            d = os.path.join(logs, noise)
                            os.makedirs(d, exist_ok=True)
                            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
                            with open(os.path.join(d, f"{safe}-{i + 1}.log"), "w") as f:
                                f.write(out)
                    print(f"flake: noise {noise} run {i + 1}/{args.runs}: {len(res) - len(failed)}/{len(res)} passed "
                          f"in {time.monotonic() - t0:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""),
                          flush=True)
    if not counts:
        print("flake: no test ran (is the label or -R right?)")
        return 1
    failing = sorted(t for t, by in counts.items() if any(p < r for p, r in by.values()))
    width = max(len(t) for t in counts)
    print(f"\npasses of runs, {len(counts)} tests, {time.monotonic() - started:.0f} s"
          + (f"; failure logs under {logs}/NOISE/" if failing else ""))
    print(f"{'test':<{width}}  " + "  ".join(f"{n:>7}" for n in noises))
    for t in failing + sorted(t for t in counts if t not in failing):
        cells = [counts[t].get(n) for n in noises]
        print(f"{t:<{width}}  " + "  ".join(f"{f'{c[0]}/{c[1]}' if c else '-':>7}" for c in cells))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
