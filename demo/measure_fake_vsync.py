#!/usr/bin/env python3
"""Pacing-thread CPU of pacer_demo --headless, --fake-vsync vs hybrid sleep, interleaved runs.
Headless with no work and no load the process has one thread, the pacing thread: its CPU is
the process's (os.wait4 rusage, microseconds)."""
import os, re, statistics, subprocess, sys
demo = sys.argv[1] if len(sys.argv) > 1 else "./build/demo/pacer_demo"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 6
secs = 5
common = ["--headless", "--hz", "60", "--seconds", str(secs), "--work-ms", "0", "--work-jitter-ms", "0"]
cases = {"fake-auto": ["--fake-vsync", "60", "--mode", "auto"],
         "fake-vsync": ["--fake-vsync", "60", "--mode", "vsync"],
         "hybrid": ["--mode", "hybrid"]}
res = {k: [] for k in cases}
swap_paced = {k: [] for k in cases}  # runs whose last frame was paced by the swap
for i in range(runs):
    for name, extra in cases.items():
        p = subprocess.Popen([demo] + common + extra, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        cpu_ms = (ru.ru_utime + ru.ru_stime) * 1e3
        src = re.search(r"source=(\w+)", out).group(1)
        res[name].append(cpu_ms / secs / 10)  # % of one core
        if src == "vsync":
            swap_paced[name].append(cpu_ms / secs / 10)
        print(f"run {i+1} {name:10s} cpu {cpu_ms:7.1f} ms = {cpu_ms/secs/10:5.2f} %  last frame paced by {src}", flush=True)
for k, v in res.items():
    print(f"{k:10s} median {statistics.median(v):5.2f} % of a core  (runs: {' '.join(f'{x:.2f}' for x in v)})")
v = swap_paced["fake-auto"]
if v:
    print(f"fake-auto, the {len(v)} of {runs} runs that ended paced by the swap: median {statistics.median(v):5.2f} %")
h = statistics.median(res["hybrid"])
for k in ("fake-auto", "fake-vsync"):
    print(f"hybrid / {k}: {h / statistics.median(res[k]):.1f}x")
