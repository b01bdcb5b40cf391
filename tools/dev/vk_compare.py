#!/usr/bin/env python3
"""The pacer Vulkan layer against MangoHud's fps limiter, on one app, in one interleaved run.

    tools/dev/vk_compare.py [--hz 60,144] [--rounds N] [--seconds S] [--drift-seconds D]
                            [--busy N] [--weston] [--quick] [--build-dir DIR] [--json FILE]
    (./dev vkbench [options]: builds the layers first)

The app is vkcube (Debian's vulkan-tools) on lavapipe, Mesa's CPU Vulkan driver
(VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json), in a window of an Xvfb started
here. Xvfb's FIFO swap waits for nothing (hundreds of frames a second), so the limiter alone
decides when frames go out. --weston runs it instead under weston's headless backend
(vkcube-wayland), whose swap paces (about 39 fps with pixman on this 2-core VM): by default at 30
Hz, under the swap's rate (the limiter decides), and 60 Hz, over it (the swap paces: the pacer's
vsync hand-off; the p99 against 60 Hz is then the swap's, not the limiter's).

The strategies, each a launch of the same vkcube with only its environment changed:

  pacer-before    VK_LAYER_pacer_frame_pacing, PACER_HZ=hz, PACER_PLACEMENT=before (the
                  default; PACER_WAIT unset: the layer's default, sleep)
  pacer-after     the same with PACER_PLACEMENT=after
  pacer-before-hybrid, pacer-after-hybrid
                  the same with PACER_WAIT=hybrid (the spin over the wake-up's learned spread);
                  pacer-after-hybrid only when --strategies names it
  pacer-...@P     any pacer strategy with PACER_PRIORITY=P for its runs only (automatic, high,
                  wait, thread, normal), e.g. pacer-before@normal beside pacer-before: the
                  priority modes compared in one interleaved run (--pacer-priority sets it for
                  every pacer strategy without a suffix)
  mangohud-early  MangoHud (its implicit layer, MANGOHUD=1) with MANGOHUD_CONFIG
  mangohud-late   fps_limit=hz,fps_limit_method=early|late,no_display=1: the HUD hidden, so that
                  drawing the overlay on a CPU driver does not dominate the app's cost (MangoHud
                  still records its frame statistics and submits its overlay pass). MangoHud
                  0.6.8 (Debian 12) has no fps_limit_method: it sleeps after the present, what
                  later versions call late (and default to). Where the installed MangoHud does
                  not know the option, mangohud-early is not run and the output says so, and
                  mangohud-late runs without the option.

The observer, outside both limiters: VK_LAYER_pacer_observer (tests/vulkan/observer/), a layer
of ours whose folder is last in VK_ADD_LAYER_PATH, so the loader puts it right above the driver
(Debian's loader stacks the layers VK_INSTANCE_LAYERS names in the order their manifests were
found, whatever their order in the variable), below
MangoHud's implicit layer and below the pacer layer (a run checks that order once with
VK_LOADER_DEBUG=layer). It stamps each vkQueuePresentKHR with CLOCK_MONOTONIC as it reaches the
driver and the process's CPU time (CLOCK_PROCESS_CPUTIME_ID: the app's threads, lavapipe's and
the layers'), into a file. Not chosen: MangoHud's own log (it records per log_interval, 100 ms
by default, not each frame, and would stack MangoHud's cost onto the pacer's runs), X11 Present
events (Mesa's X11 WSI for a CPU device copies the image with PutImage/MIT-SHM, not through
Present; weston has none).

Each chunk is one vkcube run of --c frames: `--seconds` of frames at the rate plus one second
of warm-up that is not judged (instance and pipeline creation, the limiters' first frames).
Per chunk, from the presents' times at the driver after the warm-up:

  p99      the 99th percentile of |interval - period|, in us
  >100us   the share of intervals off by more than 100 us
  drift    frames presented minus frames expected over the judged span: (presents - 1) -
           (last - first) / period, in frames (negative: behind the grid)
  CPU      the app's CPU time over the judged span, in % of one core
  p99 own  the 99th percentile of |interval - the chunk's median interval|, in us: the jitter
           around the rate the app ran at, whatever the target (under weston over the swap's
           rate, the swap's own pacing with the limiter handing off to it)

A round runs every strategy at every rate once, in an order shuffled per round. Then, with
--drift-seconds D (default 60, 0 to skip), one D-second chunk per strategy and rate, shuffled
too, for the drift over D seconds. Reported per rate and strategy: the median over rounds of p99,
>100us and CPU, the worst |drift| over the short chunks and the long chunk's drift, and the
ratios against MangoHud's better method (the lower median p99). The goal:
p99 <= 0.3x MangoHud's better method, |drift| <= 1 frame over 60 s, CPU at most 1 point over that
MangoHud method's (less is no miss: the goal bounds the cost); not judged at a rate where the swap
paces (MangoHud under 95 % of it). The steal time of the guest (from /proc/stat) is printed per
setting.

--busy N starts N busy processes (a shell loop each) for the whole run. --quick is the smoke test
of this harness (ctest vulkan.compare_quick): one round of 2 s chunks at 60 Hz, no drift chunk,
checks that every chunk ran, was observed and parsed into finite numbers; it judges no timing.
Exit status: 0 done (the goal is printed, not enforced), 1 a chunk failed or was not observed,
2 bad options, 77 missing prerequisites (vkcube, Xvfb/weston, lavapipe, the observer layer).
"""

import argparse
import json
import math
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
MANGOHUD_LIB = "/usr/lib/x86_64-linux-gnu/mangohud/libMangoHud.so"
OBSERVER = "VK_LAYER_pacer_observer"
PACER_LAYER = "VK_LAYER_pacer_frame_pacing"
ALL_STRATEGIES = ("pacer-before", "pacer-after", "pacer-before-hybrid", "mangohud-early", "mangohud-late")
# Also accepted by --strategies: the after placement with PACER_WAIT=hybrid.
MORE_STRATEGIES = ("pacer-after-hybrid",)
WARMUP_S = 1.0
SKIP = 77


def log(msg):
    print(msg, flush=True)


# ---- the machine --------------------------------------------------------------------------------

def cpu_times():
    """(steal, total) jiffies of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    steal = fields[7] if len(fields) > 7 else 0
    return steal, sum(fields[:8])


def host_line():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.node()}: {os.cpu_count()} CPUs ({model}), Linux {platform.release()}"


def mangohud_version():
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "mangohud"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        return out or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def mangohud_knows_method():
    """Whether the installed MangoHud parses fps_limit_method (0.6.9 and later)."""
    try:
        with open(MANGOHUD_LIB, "rb") as f:
            return b"fps_limit_method" in f.read()
    except OSError:
        return False


class Busy:
    """N busy processes, each a shell loop in a process group of its own."""

    def __init__(self, n):
        self.procs = [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True)
                      for _ in range(n)]

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


# ---- the display servers ------------------------------------------------------------------------

class Server:
    """A display server started in a session of its own (proc) with its log (log)."""

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


class Xvfb(Server):
    name = "Xvfb"
    vkcube = "vkcube"

    def __init__(self, work):
        r, w = os.pipe()
        self.log = open(os.path.join(work, "xvfb.log"), "w")
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1024x768x24",
                                      "-nolisten", "tcp", "-noreset"], pass_fds=(w,),
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            self.stop()
            raise RuntimeError("Xvfb did not start (xvfb.log)")
        self.env = {"DISPLAY": ":" + number}
        self.drop = ("WAYLAND_DISPLAY",)


class Weston(Server):
    """weston's headless backend (pixman) on a socket of its own: its repaint paces the swap."""
    name = "weston (headless)"
    vkcube = "vkcube-wayland"

    def __init__(self, work):
        self.runtime = os.path.join(work, "xdg")
        os.makedirs(self.runtime, mode=0o700, exist_ok=True)
        socket = "pacer-vkbench"
        self.log = open(os.path.join(work, "weston.log"), "w")
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime)
        self.proc = subprocess.Popen(["weston", "--backend=headless-backend.so", "--idle-time=0",
                                      "--socket=" + socket], env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        path = os.path.join(self.runtime, socket)
        for _ in range(100):
            if os.path.exists(path) or self.proc.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(path):
            self.stop()
            raise RuntimeError("weston did not start (weston.log)")
        time.sleep(0.3)
        self.env = {"XDG_RUNTIME_DIR": self.runtime, "WAYLAND_DISPLAY": socket}
        self.drop = ("DISPLAY",)


# ---- one chunk ----------------------------------------------------------------------------------

PRIORITIES = ("automatic", "high", "wait", "thread", "normal")


def split_priority(strategy):
    """'pacer-before@normal' -> ('pacer-before', 'normal'); without a suffix (strategy, None)."""
    base, at, prio = strategy.partition("@")
    return base, (prio if at else None)


def unknown_strategies(strategies, known):
    """The names among strategies that are not known, a priority suffix checked too."""
    bad = []
    for s in strategies:
        base, prio = split_priority(s)
        if base not in known or (prio is not None and (not base.startswith("pacer-") or prio not in PRIORITIES)):
            bad.append(s)
    return bad


def strategy_env(strategy, hz, method_known, cfgfile, priority=None):
    """The variables that make a strategy, and the layers above the observer."""
    strategy, own_priority = split_priority(strategy)
    priority = own_priority or priority
    if strategy.startswith("pacer-"):
        parts = strategy.split("-")
        env = {"PACER_HZ": f"{hz:g}", "PACER_PLACEMENT": parts[1], "DISABLE_MANGOHUD": "1"}
        if parts[2:] == ["hybrid"]:
            env["PACER_WAIT"] = "hybrid"
        if priority:
            env["PACER_PRIORITY"] = priority
        return env, [PACER_LAYER]
    if strategy.startswith("mangohud-"):
        config = f"fps_limit={hz:g},no_display=1"
        if method_known:
            config += ",fps_limit_method=" + strategy.split("-", 1)[1]
        return {"MANGOHUD": "1", "MANGOHUD_CONFIG": config, "MANGOHUD_CONFIGFILE": cfgfile}, []
    if strategy == "unpaced":
        return {"DISABLE_MANGOHUD": "1"}, []
    raise ValueError(strategy)


def base_env(server, layer_paths, layers, observer_file):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PACER_", "MANGOHUD", "VK_", "DISABLE_MANGOHUD")) and k not in server.drop}
    env.update(server.env)
    env.update({"VK_ICD_FILENAMES": LVP_ICD, "VK_ADD_LAYER_PATH": ":".join(layer_paths),
                "VK_INSTANCE_LAYERS": ":".join(layers + [OBSERVER]),
                "PACER_OBSERVER_FILE": observer_file})
    return env


def run_chunk(ctx, strategy, hz, seconds, tag):
    """One vkcube run; returns the parsed record (or an 'error')."""
    frames = int(round((seconds + WARMUP_S) * hz))
    obs = os.path.join(ctx.work, f"{tag}.obs")
    extra, layers = strategy_env(strategy, hz, ctx.method_known, ctx.cfgfile, ctx.priority)
    env = base_env(ctx.server, ctx.layer_paths, layers, obs)
    env.update(extra)
    cmd = [ctx.server.vkcube, "--c", str(frames)]
    out = open(os.path.join(ctx.work, f"{tag}.log"), "w")
    steal0, total0 = cpu_times()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    timeout = 3 * (seconds + WARMUP_S) + 30
    try:
        status = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        status = "timeout"
    wall = time.monotonic() - t0
    steal1, total1 = cpu_times()
    out.close()
    rec = {"strategy": strategy, "hz": hz, "seconds": seconds, "tag": tag, "frames_asked": frames,
           "wall_s": wall, "steal_jiffies": steal1 - steal0, "total_jiffies": total1 - total0}
    if status != 0:
        rec["error"] = f"vkcube exit {status} ({tag}.log)"
        return rec
    rec.update(judge(read_observer(obs), hz, WARMUP_S))
    return rec


def read_observer(path):
    rows = []
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                parts = line.split()
                if len(parts) == 4:
                    rows.append((int(parts[0]), int(parts[1]), int(parts[2]), int(parts[3])))
    except OSError:
        pass
    return rows


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100.0 * len(s)) - 1))
    return s[k]


def judge(rows, hz, warmup_s):
    """The figures of one chunk from the observer's rows (entry ns, return ns, cpu ns, result)."""
    if len(rows) < 3:
        return {"error": f"the observer recorded {len(rows)} presents"}
    start = rows[0][0] + int(warmup_s * 1e9)
    judged = [r for r in rows if r[0] >= start]
    if len(judged) < 3:
        return {"error": f"{len(judged)} presents after the warm-up"}
    period_ns = 1e9 / hz
    entries = [r[0] for r in judged]
    intervals = [b - a for a, b in zip(entries, entries[1:])]
    errors = [abs(i - period_ns) for i in intervals]
    typical = statistics.median(intervals)
    own_errors = [abs(i - typical) for i in intervals]  # against the rate the chunk ran at
    span = entries[-1] - entries[0]
    cpu = judged[-1][2] - judged[0][2]
    returns = [r[1] for r in judged]
    ret_errors = [abs((b - a) - period_ns) for a, b in zip(returns, returns[1:])]
    return {
        "presents": len(judged),
        "p99_us": percentile(errors, 99) / 1e3,
        "p50_us": percentile(errors, 50) / 1e3,
        "own_p99_us": percentile(own_errors, 99) / 1e3,
        "off100_share": sum(1 for e in errors if e > 100e3) / len(errors),
        "drift_frames": (len(judged) - 1) - span / period_ns,
        "span_s": span / 1e9,
        "fps": (len(judged) - 1) / (span / 1e9) if span > 0 else float("nan"),
        "cpu_pct": 100.0 * cpu / span if span > 0 else float("nan"),
        "return_p99_us": percentile(ret_errors, 99) / 1e3,
        "failed_presents": sum(1 for r in judged if r[3] < 0),
    }


# ---- checks -------------------------------------------------------------------------------------

def device_callstack(text):
    """The device layers from the application down to the driver, from the loader's
    "vkCreateDevice layer callstack setup to:" listing (VK_LOADER_DEBUG=layer)."""
    names, inside = [], False
    for line in text.splitlines():
        if "vkCreateDevice layer callstack setup to:" in line:
            names, inside = [], True
        elif inside:
            m = re.search(r"LAYER:\s+(VK_LAYER_[A-Za-z0-9_]+)\s*$", line)
            if m:
                names.append(m.group(1))
            elif "<Device>" in line:
                inside = False
    return names


def check_order(ctx):
    """The loader's layer order with MangoHud and with the pacer layer: the observer last (next to
    the driver). Returns the orders seen, or raises."""
    orders = {}
    for strategy in ["unpaced"] + ctx.strategies:
        if strategy not in ("unpaced", "mangohud-late", "pacer-before"):
            continue
        extra, layers = strategy_env(strategy, 60, ctx.method_known, ctx.cfgfile)
        env = base_env(ctx.server, ctx.layer_paths, layers, os.devnull)
        env.update(extra)
        env["VK_LOADER_DEBUG"] = "layer"
        p = subprocess.run([ctx.server.vkcube, "--c", "3"], env=env, capture_output=True, text=True,
                           timeout=60)
        names = device_callstack(p.stdout + p.stderr)
        if OBSERVER not in names:
            raise RuntimeError(f"{strategy}: the loader did not load {OBSERVER} (exit {p.returncode})")
        if names[-1] != OBSERVER:
            raise RuntimeError(f"{strategy}: the observer is not next to the driver: {' > '.join(names)}")
        want = {"pacer-before": PACER_LAYER, "mangohud-late": "VK_LAYER_MANGOHUD_overlay"}.get(strategy)
        if want and want not in names:
            raise RuntimeError(f"{strategy}: {want} not loaded: {' > '.join(names)}")
        orders[strategy] = names
    return orders


# ---- the report ---------------------------------------------------------------------------------

def med(values):
    values = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def summarize(records, strategies, hzs):
    table = {}
    for hz in hzs:
        for s in strategies:
            short = [r for r in records if r["hz"] == hz and r["strategy"] == s and r["kind"] == "round"]
            long = [r for r in records if r["hz"] == hz and r["strategy"] == s and r["kind"] == "drift"]
            ok = [r for r in short if "error" not in r]
            row = {"chunks": len(short), "failed": len(short) - len(ok),
                   "p99_us": med([r["p99_us"] for r in ok]),
                   "off100_share": med([r["off100_share"] for r in ok]),
                   "own_p99_us": med([r["own_p99_us"] for r in ok]),
                   "cpu_pct": med([r["cpu_pct"] for r in ok]),
                   "fps": med([r["fps"] for r in ok]),
                   "worst_chunk_drift": max((r["drift_frames"] for r in ok), key=abs, default=float("nan")),
                   "steal_pct": steal_pct(short + long)}
            lok = [r for r in long if "error" not in r]
            row["long_drift"] = lok[0]["drift_frames"] if lok else float("nan")
            row["long_s"] = lok[0]["span_s"] if lok else float("nan")
            table[(hz, s)] = row
    return table


def steal_pct(records):
    steal = sum(r["steal_jiffies"] for r in records)
    total = sum(r["total_jiffies"] for r in records)
    return 100.0 * steal / total if total else float("nan")


def fmt(v, spec):
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def report(table, strategies, hzs, drift_s):
    lines = []
    mango = [s for s in strategies if s.startswith("mangohud")]
    for hz in hzs:
        best = min(mango, key=lambda s: (math.isnan(table[(hz, s)]["p99_us"]), table[(hz, s)]["p99_us"]),
                   default=None)
        steal = steal_pct_all = [table[(hz, s)]["steal_pct"] for s in strategies]
        lines.append(f"\n{hz:g} Hz (period {1e6 / hz:.1f} us), steal {fmt(med(steal_pct_all), '.2f')} % "
                     f"(per strategy {', '.join(fmt(v, '.2f') for v in steal)})"
                     + (f"; MangoHud's better method: {best}" if best else ""))
        head = (f"| strategy | p99 us | >100us | worst chunk drift | drift {drift_s:g} s | CPU % | fps |"
                " p99 ratio | CPU - MangoHud | p99 own us |")
        lines.append(head)
        lines.append("|" + "---|" * 10)
        for s in strategies:
            r = table[(hz, s)]
            ratio = dcpu = float("nan")
            if best and not s.startswith("mangohud"):
                b = table[(hz, best)]
                ratio = r["p99_us"] / b["p99_us"] if b["p99_us"] else float("nan")
                dcpu = r["cpu_pct"] - b["cpu_pct"]
            elif best:
                b = table[(hz, best)]
                ratio = r["p99_us"] / b["p99_us"] if b["p99_us"] else float("nan")
            fail = f" ({r['failed']} of {r['chunks']} chunks failed)" if r["failed"] else ""
            lines.append(f"| {s}{fail} | {fmt(r['p99_us'], '.0f')} | {fmt(100 * r['off100_share'], '.1f')} % | "
                         f"{fmt(r['worst_chunk_drift'], '+.2f')} | {fmt(r['long_drift'], '+.2f')} | "
                         f"{fmt(r['cpu_pct'], '.1f')} | {fmt(r['fps'], '.2f')} | {fmt(ratio, '.2f')}x | "
                         f"{fmt(dcpu, '+.1f')} | {fmt(r['own_p99_us'], '.0f')} |")
        if best and not table[(hz, best)]["fps"] >= 0.95 * hz:
            lines.append(f"goal not judged at {hz:g} Hz: the swap paces ({fmt(table[(hz, best)]['fps'], '.2f')} fps "
                         "under MangoHud): compare p99 own")
        elif best:
            b = table[(hz, best)]
            for s in strategies:
                if not s.startswith("pacer"):
                    continue
                r = table[(hz, s)]
                drift = r["long_drift"] if not math.isnan(r["long_drift"]) else r["worst_chunk_drift"]
                goals = [("p99 <= 0.3x", r["p99_us"] <= 0.3 * b["p99_us"]),
                         ("|drift| <= 1 frame", abs(drift) <= 1.0),
                         ("CPU at most 1 point over", r["cpu_pct"] - b["cpu_pct"] <= 1.0)]
                lines.append(f"goal {s} at {hz:g} Hz: " + ", ".join(
                    f"{name} {'met' if ok else 'NOT met'}" for name, ok in goals))
    return "\n".join(lines)


def make_plan(rng, strategies, a):
    """The chunks: each round every strategy at every rate once, shuffled per round; then, with
    --drift-seconds, one long chunk per strategy and rate, shuffled too. Items: (kind, round,
    strategy, hz, seconds)."""
    plan = []
    for rnd in range(a.rounds):
        chunk = [(s, hz) for s in strategies for hz in a.hzs]
        rng.shuffle(chunk)
        plan += [("round", rnd, s, hz, a.seconds) for s, hz in chunk]
    if a.drift_seconds > 0:
        chunk = [(s, hz) for s in strategies for hz in a.hzs]
        rng.shuffle(chunk)
        plan += [("drift", 0, s, hz, a.drift_seconds) for s, hz in chunk]
    return plan


def run_plan(plan, run, records):
    """Runs each chunk (run(strategy, hz, seconds, tag) -> record), logs it and appends it to
    records; returns whether one failed or could not be judged."""
    failed = False
    for i, (kind, rnd, s, hz, secs) in enumerate(plan):
        tag = f"{i:03d}-{kind}{rnd}-{s}-{hz:g}"
        rec = run(s, hz, secs, tag)
        rec["kind"] = kind
        rec["round"] = rnd
        records.append(rec)
        if "error" in rec:
            failed = True
            log(f"  {tag}: {rec['error']}")
            continue
        extra = rec.pop("extra_log", "")  # a harness's own figure, for the line only
        log(f"  {tag}: p99 {rec['p99_us']:.0f} us, >100us {100 * rec['off100_share']:.1f} %, "
            f"drift {rec['drift_frames']:+.2f}, CPU {rec['cpu_pct']:.1f} %, {rec['fps']:.2f} fps, "
            f"steal {100 * rec['steal_jiffies'] / max(1, rec['total_jiffies']):.1f} %{extra}")
        bad = [k for k in ("p99_us", "off100_share", "drift_frames", "cpu_pct") if not math.isfinite(rec[k])]
        if bad or rec["presents"] < max(3, 0.5 * secs * hz):
            failed = True
            log(f"  {tag}: not judged: {rec['presents']} presents, non-finite {bad}")
    return failed


def write_outputs(a, name, work, records, table, notes, seed, elapsed, failed):
    """The notes, the --json file, the work folder kept (--keep, or a failure) or removed; the exit
    status."""
    for n in notes:
        log("note: " + n)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"command": " ".join(sys.argv), "host": host_line(), "seed": seed, "notes": notes,
                       "elapsed_s": elapsed, "records": records,
                       "summary": {f"{hz:g}/{s}": row for (hz, s), row in table.items()}}, f, indent=1)
    if a.keep or failed:
        log(f"work folder kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        log(f"{name}: FAILED (a chunk failed or was not observed)")
        return 1
    return 0


# ---- main ---------------------------------------------------------------------------------------

class Ctx:
    pass


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hz", help="rates, comma-separated (default 60,144; with --weston 30,60)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of short chunks (default 5)")
    ap.add_argument("--seconds", type=float, default=10.0, help="judged seconds per chunk (default 10)")
    ap.add_argument("--drift-seconds", type=float, default=60.0,
                    help="one chunk this long per strategy and rate for the drift (default 60; 0: none)")
    ap.add_argument("--busy", type=int, default=0, help="busy processes beside the app (default 0)")
    ap.add_argument("--weston", action="store_true", help="under weston's headless backend, whose swap paces")
    ap.add_argument("--quick", action="store_true", help="the harness's smoke test: seconds, no timing judged")
    ap.add_argument("--strategies", default=",".join(ALL_STRATEGIES),
                    help="comma-separated subset of " + ", ".join(ALL_STRATEGIES + MORE_STRATEGIES)
                    + "; a pacer strategy may end in @PRIORITY (e.g. pacer-before@normal)")
    ap.add_argument("--build-dir", default="build-release",
                    help="the build tree with vulkan_layer/ and tests/vulkan/observer/ (default build-release)")
    ap.add_argument("--pacer-priority", help="PACER_PRIORITY for the pacer layer's runs (default: unset, "
                    "the layer's automatic)")
    ap.add_argument("--pacer-layer-dir",
                    help="the folder with the pacer layer's manifest (default BUILD_DIR/vulkan_layer)")
    ap.add_argument("--json", help="write every chunk's figures and the summary here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (observer files, logs)")
    ap.add_argument("--seed", type=int, help="the shuffle's seed (default: from the clock, printed)")
    a = ap.parse_args(argv)
    if a.hz is None:
        a.hz = "30,60" if a.weston else "60,144"
    try:
        a.hzs = [float(x) for x in a.hz.split(",") if x]
    except ValueError:
        ap.error("--hz takes numbers: " + a.hz)
    if not a.hzs or any(not (1 <= h <= 1000) for h in a.hzs):
        ap.error("--hz: rates from 1 to 1000")
    a.strategies = [s for s in a.strategies.split(",") if s]
    bad = unknown_strategies(a.strategies, ALL_STRATEGIES + MORE_STRATEGIES)
    if bad or not a.strategies:
        ap.error("--strategies: unknown " + ",".join(bad))
    if a.rounds < 1 or a.seconds <= 0 or a.drift_seconds < 0 or a.busy < 0:
        ap.error("--rounds >= 1, --seconds > 0, --drift-seconds >= 0, --busy >= 0")
    if a.quick:
        a.hzs, a.rounds, a.seconds, a.drift_seconds = [60.0], 1, 2.0, 0.0
    return a


def main(argv):
    a = parse_args(argv)
    log("command: " + " ".join([os.path.relpath(sys.argv[0])] + argv))
    log("host: " + host_line())
    build = os.path.abspath(a.build_dir)
    observer_dir = os.path.join(build, "tests", "vulkan", "observer")
    pacer_dir = os.path.abspath(a.pacer_layer_dir) if a.pacer_layer_dir else os.path.join(build, "vulkan_layer")
    missing = []
    for tool in ("vkcube-wayland" if a.weston else "vkcube", "weston" if a.weston else "Xvfb"):
        if shutil.which(tool) is None:
            missing.append(tool)
    if not os.path.exists(LVP_ICD):
        missing.append(LVP_ICD + " (mesa-vulkan-drivers)")
    if not os.path.exists(os.path.join(observer_dir, "VkLayer_pacer_observer.json")):
        missing.append("the observer layer in " + observer_dir)
    if missing:
        log("vk_compare: missing " + ", ".join(missing) + ": skipped")
        return SKIP

    ctx = Ctx()
    ctx.method_known = mangohud_knows_method()
    ctx.priority = a.pacer_priority
    have_mango = os.path.exists(MANGOHUD_LIB)
    have_pacer = any(f.endswith(".json") for f in os.listdir(pacer_dir)) if os.path.isdir(pacer_dir) else False
    notes = []
    strategies = []
    for s in a.strategies:
        if s.startswith("pacer") and not have_pacer:
            notes.append(f"{s} not run: no pacer layer manifest in {pacer_dir}")
        elif s.startswith("mangohud") and not have_mango:
            notes.append(f"{s} not run: MangoHud is not installed ({MANGOHUD_LIB})")
        elif s == "mangohud-early" and not ctx.method_known:
            notes.append(f"mangohud-early not run: MangoHud {mangohud_version()} has no fps_limit_method "
                         "(0.6.9 and later); it sleeps after the present (late) only")
        else:
            strategies.append(s)
    if not a.quick and "mangohud-late" in strategies and not ctx.method_known:
        notes.append(f"mangohud-late: MangoHud {mangohud_version()} without fps_limit_method (its only method)")
    for n in notes:
        log("note: " + n)
    if not strategies and not a.quick:
        log("vk_compare: no strategy can run: skipped")
        return SKIP
    ctx.strategies = strategies
    # Debian's loader (1.3.239) stacks the layers that VK_INSTANCE_LAYERS enables in the order
    # their manifests were found, not in the variable's order: the folder found first is nearest
    # the app. So the pacer layer's folder comes first and the observer's last (check_order).
    ctx.layer_paths = ([pacer_dir] if have_pacer else []) + [observer_dir]

    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    ctx.work = tempfile.mkdtemp(prefix="pacer-vkbench-")
    ctx.cfgfile = os.path.join(ctx.work, "MangoHud.conf")
    open(ctx.cfgfile, "w").close()
    busy = None
    server = None
    records = []
    failed = False
    t_start = time.monotonic()
    try:
        server = (Weston if a.weston else Xvfb)(ctx.work)
        ctx.server = server
        busy = Busy(a.busy) if a.busy else None
        log(f"server: {server.name}; app: {server.vkcube} on lavapipe; busy processes: {a.busy}; "
            f"PACER_PRIORITY={a.pacer_priority or '(unset: automatic)'}; "
            f"seed {seed}; work folder {ctx.work}")
        log(f"MangoHud {mangohud_version() if have_mango else 'not installed'}: MANGOHUD_CONFIG="
            f"fps_limit=<hz>,no_display=1{',fps_limit_method=<m>' if ctx.method_known else ''}")
        try:
            orders = check_order(ctx)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            log(f"vk_compare: FAILED: {e}")
            return 1
        for s, names in orders.items():
            log(f"layer order ({s}): app > {' > '.join(names)} > driver")
        # Unpaced, for its rate: frames for about 600 fps (Xvfb) over the warm-up and 2-3 s.
        base = run_chunk(ctx, "unpaced", 60.0 if a.weston else 600.0, 2.0 if a.quick else 3.0, "unpaced")
        base["kind"] = "unpaced"
        records.append(base)
        if "error" in base:
            log("unpaced: " + base["error"])
            failed = True
        else:
            log(f"unpaced (observer only): {base['fps']:.0f} fps, CPU {base['cpu_pct']:.0f} %")
        plan = make_plan(rng, strategies, a)
        log(f"plan: {len(plan)} chunks, about {sum(p[4] + WARMUP_S + 1.5 for p in plan) / 60:.1f} min")
        failed = run_plan(plan, lambda s, hz, secs, tag: run_chunk(ctx, s, hz, secs, tag), records) or failed
    finally:
        if busy:
            busy.stop()
        if server:
            server.stop()
    elapsed = time.monotonic() - t_start
    table = summarize(records, strategies, a.hzs)
    log(f"\nresults: medians over {a.rounds} round(s) of {a.seconds:g} s chunks; drift chunk "
        f"{a.drift_seconds:g} s; {server.name}; busy processes {a.busy}; took {elapsed / 60:.1f} min")
    log(report(table, strategies, a.hzs, a.drift_seconds))
    return write_outputs(a, "vk_compare", ctx.work, records, table, notes, seed, elapsed, failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
