#!/usr/bin/env python3
"""`pacer analyze` and `pacer report` on one-million-frame captures, against pandas + numpy.

    bench/analyze_scale.py [--pacer build-release/tools/pacer] [--frames 1000000] [--rounds 5]
                           [--write docs/analyze-scale.md]

Writes three captures of N frames each into a temporary folder (removed at the end), in the
layouts of tests/samples/presentmon1.csv (PresentMon 1.x), presentmon2.csv (PresentMon 2.x) and
mangohud.csv (MangoHud, frame time in microseconds): the same headers, the same row shapes and
number formats, frame times drawn from a fixed-seed generator (the same files on every run).

For each file, three commands run interleaved, round after round (A B C, A B C, ...), so that
the load other programs put on the machine falls on all three alike:
  analyze  pacer analyze FILE
  report   pacer report FILE -o PAGE.html
  pandas   /usr/bin/python3: pandas.read_csv(FILE, usecols=[the frame-time column]) and
           numpy.percentile of it at 50, 90, 95, 99 and 99.9 (the percentiles analyze prints)
Each command's wall time (from start to exit) and peak resident memory (GNU time's %M, the
command's ru_maxrss) are taken; the table gives the medians over the rounds and the ratios of the
medians. --keep DIR writes the captures into DIR and leaves them there (to profile one).

Needs Debian's python3-pandas, python3-numpy and time (GNU time); pandas and numpy are installed
when missing (apt-get, as ./dev does). They are not in ./dev's list: no test needs them.
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DEBIAN_PYTHON = "/usr/bin/python3"  # Debian's interpreter: the one python3-pandas installs into
GNU_TIME = "/usr/bin/time"  # Debian's `time`: the peak resident memory of a command (run())

# The goals the table is checked against (ratios of medians).
GOAL_ANALYZE_TIME = 0.30     # analyze time <= 0.3 x pandas
GOAL_ANALYZE_MEMORY = 0.25   # analyze peak memory <= 0.25 x pandas
GOAL_REPORT_TIME = 3.0       # report time <= 3 x analyze
GOAL_REPORT_BYTES = 5 << 20  # report page < 5 MB

PANDAS_SCRIPT = r"""
import sys
import numpy
import pandas
path, column, skip = sys.argv[1], sys.argv[2], int(sys.argv[3])
ft = pandas.read_csv(path, usecols=[column], skiprows=skip)[column].to_numpy(dtype="float64")
ft = ft[~numpy.isnan(ft)]
p = numpy.percentile(ft, [50, 90, 95, 99, 99.9])
print(len(ft), ft.mean(), *p)
"""


def ensure_pandas():
    probe = [DEBIAN_PYTHON, "-c", "import pandas, numpy"]
    if subprocess.run(probe, stderr=subprocess.DEVNULL).returncode == 0:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("analyze_scale: installing python3-pandas python3-numpy", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-q"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends",
                           "python3-pandas", "python3-numpy"], check=True, env=env)


# ---- the captures ----------------------------------------------------------------------------

def frame_times(n, seed):
    """n frame times (ms) of a 60 Hz game: jitter around the period, a slow frame now and then,
    a stall once in a while."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        ft = 16.6667 + rng.gauss(0.0, 0.35)
        r = rng.random()
        if r < 0.01:
            ft *= 2.0       # a frame that missed a refresh
        elif r < 0.0102:
            ft += rng.uniform(40.0, 200.0)  # a stall
        out.append(max(ft, 0.5))
    return out


def write_rows(f, rows):
    """The rows into f, 65536 at a time (one string per chunk: fast, bounded memory)."""
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == 65536:
            f.write("".join(chunk))
            chunk.clear()
    f.write("".join(chunk))


def write_presentmon1(path, n):
    # tests/samples/presentmon1.csv: the classic 15 columns, 6 decimals of seconds, 4 of ms.
    with open(path, "w", newline="\n") as f:
        f.write("Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,"
                "PresentMode,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,"
                "MsUntilRenderComplete,MsUntilDisplayed\n")
        def rows():
            t = 0.0
            for i, ft in enumerate(frame_times(n, 1)):
                t += ft / 1000.0
                dropped = 1 if i % 997 == 0 else 0
                shown = 0.0 if dropped else ft
                yield ("game.exe,4242,0x0000021D5B1C2F40,DXGI,1,0,0,Hardware: Independent Flip,%d,%.6f,%.4f,"
                       "%.4f,0.2150,1.3020,18.4410\n" % (dropped, t, ft, shown))
        write_rows(f, rows())


def write_presentmon2(path, n):
    # tests/samples/presentmon2.csv: PresentMon 2.x metrics, DisplayedTime NA for a dropped frame.
    with open(path, "w", newline="\n") as f:
        f.write("Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,AllowsTearing,"
                "PresentMode,CPUStartTime,FrameTime,CPUBusy,CPUWait,GPULatency,GPUTime,GPUBusy,GPUWait,"
                "DisplayLatency,DisplayedTime,ClickToPhotonLatency\n")
        def rows():
            t = 1.258333
            for i, ft in enumerate(frame_times(n, 2)):
                busy = min(ft, 6.1 + (i % 3) * 0.1)
                shown = "NA" if i % 997 == 5 else "%.4f" % ft
                yield ("game.exe,4242,0x0000021D5B1C2F40,DXGI,0,512,1,Hardware: Independent Flip,%.6f,%.4f,%.4f,"
                       "%.4f,0.5100,5.0200,4.8800,0.1400,21.0300,%s,NA\n" % (t, ft, busy, ft - busy, shown))
                t += ft / 1000.0
        write_rows(f, rows())


def write_mangohud(path, n):
    # tests/samples/mangohud.csv: two system-information lines, then fps, frametime in us, elapsed ns.
    with open(path, "w", newline="\n") as f:
        f.write("os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
                "Debian GNU/Linux 12,AMD Ryzen 5 5600X 6-Core Processor,AMD Radeon RX 6600,16 GB,"
                "6.1.0-18-amd64,Mesa 22.3.6,\n"
                "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,"
                "gpu_power,ram_used,elapsed\n")
        def rows():
            elapsed = 0
            for ft in frame_times(n, 3):
                us = round(ft * 1000.0, 1)
                elapsed += int(us * 1000)
                yield "%.4f,%.1f,31,57,61,66,2491,1000,3.2,88,6.1,%d\n" % (1e6 / us, us, elapsed)
        write_rows(f, rows())


# (label, file name, writer, frame-time column, header lines before the column names)
CAPTURES = [
    ("PresentMon 1.x", "presentmon1.csv", write_presentmon1, "MsBetweenPresents", 0),
    ("PresentMon 2.x", "presentmon2.csv", write_presentmon2, "FrameTime", 0),
    ("MangoHud", "mangohud.csv", write_mangohud, "frametime", 2),
]


# ---- measuring -------------------------------------------------------------------------------

def run(cmd, folder):
    """Wall seconds and peak RSS (KiB) of one command; its output is discarded, a failure is fatal.

    The peak comes from GNU time (/usr/bin/time, Debian's `time`), which runs the command as its
    own child: Linux starts a child's ru_maxrss at the high-water mark of the process it was
    forked from, so the RSS of this script (the captures it generated) would otherwise be the
    floor of every figure."""
    report = os.path.join(folder, "time.txt")
    start = time.perf_counter()
    child = subprocess.run([GNU_TIME, "-f", "%M", "-o", report] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if child.returncode != 0:
        sys.exit("analyze_scale: %s failed (%d): %s" % (" ".join(cmd), child.returncode,
                                                       child.stderr.decode(errors="replace").strip()))
    with open(report) as f:
        return wall, int(f.read().split()[-1])


def measure(pacer, folder, rounds):
    results = []
    for label, name, _, column, skip in CAPTURES:
        path = os.path.join(folder, name)
        page = os.path.join(folder, name + ".html")
        commands = {
            "analyze": [pacer, "analyze", path],
            "report": [pacer, "report", path, "-o", page],
            "pandas": [DEBIAN_PYTHON, "-c", PANDAS_SCRIPT, path, column, str(skip)],
        }
        runs = {k: [] for k in commands}
        for _ in range(rounds):
            for k, cmd in commands.items():
                runs[k].append(run(cmd, folder))
        med = {k: (statistics.median(w for w, _ in v), statistics.median(m for _, m in v)) for k, v in runs.items()}
        results.append({"label": label, "bytes": os.path.getsize(path), "page": os.path.getsize(page), "med": med})
        print("analyze_scale: %s done" % label, file=sys.stderr)
    return results


def table(results, frames, rounds, command):
    lines = [
        "| capture (%d frames) | file MB | analyze s | pandas s | analyze / pandas time | analyze MB | pandas MB "
        "| analyze / pandas memory | report s | report / analyze time | report page KB |" % frames,
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ok = True
    for r in results:
        (at, am), (rt, _), (pt, pm) = r["med"]["analyze"], r["med"]["report"], r["med"]["pandas"]
        ratios = (at / pt, am / pm, rt / at)
        ok = ok and ratios[0] <= GOAL_ANALYZE_TIME and ratios[1] <= GOAL_ANALYZE_MEMORY
        ok = ok and ratios[2] <= GOAL_REPORT_TIME and r["page"] < GOAL_REPORT_BYTES
        lines.append("| %s | %.0f | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f | %.3f | %.2f | %.0f |" % (
            r["label"], r["bytes"] / 1e6, at, pt, ratios[0], am / 1024, pm / 1024, ratios[1], rt, ratios[2],
            r["page"] / 1024))
    lines.append("")
    lines.append("Medians of %d interleaved rounds; memory is the peak resident set (GNU time's %%M). Goals: analyze "
                 "<= %.2f x pandas' time and <= %.2f x its memory, report <= %.0f x analyze's time and a page "
                 "under %d MB: %s." % (rounds, GOAL_ANALYZE_TIME, GOAL_ANALYZE_MEMORY, GOAL_REPORT_TIME,
                                       GOAL_REPORT_BYTES >> 20, "all met" if ok else "NOT all met"))
    lines.append("")
    lines.append("```")
    lines.append("$ " + command)
    lines.append("```")
    return "\n".join(lines) + "\n", ok


def write_doc(path, text):
    """Replaces the part of path between the two markers with text (the rest is prose)."""
    begin, end = "<!-- analyze_scale.py: begin -->\n", "<!-- analyze_scale.py: end -->\n"
    with open(path) as f:
        doc = f.read()
    a, b = doc.find(begin), doc.find(end)
    if a < 0 or b < a:
        sys.exit("analyze_scale: %s has no %s ... %s markers" % (path, begin.strip(), end.strip()))
    with open(path, "w") as f:
        f.write(doc[: a + len(begin)] + text + doc[b:])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pacer", default=os.path.join(here, "..", "build-release", "tools", "pacer"))
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--write", metavar="DOC", help="put the table into DOC between its markers")
    ap.add_argument("--keep", metavar="DIR", help="write the captures into DIR and keep them")
    args = ap.parse_args()
    if not os.access(args.pacer, os.X_OK):
        sys.exit("analyze_scale: no pacer at %s (cmake --preset release && cmake --build build-release "
                 "--target pacer_cli)" % args.pacer)
    ensure_pandas()
    folder = args.keep or tempfile.mkdtemp(prefix="pacer-analyze-scale-")
    os.makedirs(folder, exist_ok=True)
    try:
        for label, name, writer, _, _ in CAPTURES:
            writer(os.path.join(folder, name), args.frames)
        results = measure(os.path.abspath(args.pacer), folder, args.rounds)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    command = "bench/analyze_scale.py --frames %d --rounds %d" % (args.frames, args.rounds)
    text, ok = table(results, args.frames, args.rounds, command)
    sys.stdout.write(text)
    if args.write:
        write_doc(args.write, text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
