#!/usr/bin/env python3
"""The pacer GL interposer against MangoHud's GL fps limiter, on glxgears, in one interleaved run.

    tools/dev/gl_compare.py [--hz 60,144] [--rounds N] [--seconds S] [--drift-seconds D]
                            [--busy N] [--quick] [--build-dir DIR] [--json FILE]
    (./dev glbench [options]: builds the interposer and the observer first)

The app is glxgears (Debian's mesa-utils), unmodified, in a 160x120 window of an Xvfb started here,
on llvmpipe (Mesa's CPU GL driver): its swap waits for nothing (about a thousand frames a second
here), so the limiter alone decides when frames go out. The method is ./dev vkbench's
(tools/dev/vk_compare.py, whose figures, summary and goal this reuses), with a GL observer.

The strategies, each a launch of the same glxgears with only its environment changed:

  pacer-before    the interposer (LD_PRELOAD=libpacer_gl.so, as pacer-run sets it) with
                  PACER_HZ=hz and its defaults: PACER_PLACEMENT before (set, as the default),
                  PACER_WAIT sleep, priority automatic
  pacer-after     the same with PACER_PLACEMENT=after (the lower latency)
  pacer-before-hybrid
                  the same with PACER_PLACEMENT=before and PACER_WAIT=hybrid (the spin's cost
                  against the tail; not run unless named in --strategies)
  pacer-...@P     any pacer strategy with PACER_PRIORITY=P (automatic, high, wait, thread,
                  normal), e.g. pacer-before@normal: priority modes in one interleaved run
  mangohud-late   MangoHud's GL hook as its `mangohud --dlsym` launcher preloads it
                  (libMangoHud_dlsym.so, libMangoHud.so; MANGOHUD=1) with MANGOHUD_CONFIG
                  fps_limit=hz,no_display=1. MangoHud 0.6.8 (Debian 12) sleeps after the swap
                  (what later versions call late); with fps_limit_method known (0.6.9 on),
                  mangohud-early runs too.

The observer, below both limiters: libpacer_gl_observer.so (tests/gl/observer/), preloaded beside
the limiter. It stamps each swap as it reaches libGL: glvnd's libGLX enters glXSwapBuffers
through __glDispatchCheckMultithreaded, which the observer hooks (CLOCK_MONOTONIC, and the
process's CPU time), whichever way the limiter found the swap; that is after the limiter's wait
and before the driver draws, where the Vulkan observer stamps a present. Chunks, per-chunk figures
(p99 of |interval - period|, >100us share, drift, CPU % of a core), rounds and the goal are
vk_compare.py's: p99 <= 0.3x MangoHud's, |drift| <= 1 frame over 60 s, CPU at most 1 point over
MangoHud's. Also per chunk, "at X": the p99 of the frames as Mesa's software GLX hands them to the
X server (XShmPutImage, stamped by the same observer), which adds llvmpipe's drawing inside the
swap (0.5-2 ms here, varying frame to frame) to the limiter's wait: reported beside, not judged.

--busy N starts N busy processes (a shell loop each) for the whole run. --quick is the smoke test
of this harness (ctest gl.compare_quick): one round of 2 s chunks at 60 Hz, no drift chunk, checks
that every chunk ran, was observed and parsed into finite numbers; it judges no timing.
Exit status: 0 done (the goal is printed, not enforced), 1 a chunk failed or was not observed,
2 bad options, 77 missing prerequisites (glxgears, Xvfb, the interposer, the observer).
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vk_compare as vk  # noqa: E402  (the method: figures, summary, report)

MANGOHUD_DIR = "/usr/lib/x86_64-linux-gnu/mangohud"
ALL_STRATEGIES = ("pacer-after", "pacer-before", "pacer-before-hybrid", "mangohud-late", "mangohud-early")
WARMUP_S = vk.WARMUP_S
SKIP = 77


def strategy_env(ctx, strategy, hz):
    obs = ctx.observer
    strategy, priority = vk.split_priority(strategy)
    if strategy.startswith("pacer-"):
        env = {"PACER_HZ": f"{hz:g}", "LD_PRELOAD": f"{ctx.shim}:{obs}",
               "PACER_PLACEMENT": strategy.split("-")[1]}
        if strategy == "pacer-before-hybrid":
            env["PACER_WAIT"] = "hybrid"
        if priority:
            env["PACER_PRIORITY"] = priority
        return env
    if strategy.startswith("mangohud-"):
        config = f"fps_limit={hz:g},no_display=1"
        if ctx.method_known:
            config += ",fps_limit_method=" + strategy.split("-", 1)[1]
        return {"MANGOHUD": "1", "MANGOHUD_DLSYM": "1", "MANGOHUD_CONFIG": config,
                "MANGOHUD_CONFIGFILE": ctx.cfgfile, "LD_PRELOAD": f"{obs}:libMangoHud_dlsym.so:libMangoHud.so",
                "LD_LIBRARY_PATH": "/usr/$LIB/mangohud/"}
    if strategy == "unpaced":
        return {"LD_PRELOAD": obs}
    raise ValueError(strategy)


def run_chunk(ctx, strategy, hz, seconds, tag):
    """One glxgears run of warm-up + seconds, stopped by SIGTERM; returns the parsed record."""
    obs = os.path.join(ctx.work, f"{tag}.obs")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PACER_", "MANGOHUD", "LD_PRELOAD", "LD_LIBRARY_PATH", "WAYLAND_DISPLAY"))}
    env.update(ctx.server.env)
    env.update(strategy_env(ctx, strategy, hz))
    env["PACER_OBSERVER_FILE"] = obs
    env["PACER_OBSERVER_PUT_FILE"] = obs + ".put"
    env["PACER_LOG"] = "off"
    out = open(os.path.join(ctx.work, f"{tag}.log"), "w")
    steal0, total0 = vk.cpu_times()
    t0 = time.monotonic()
    proc = subprocess.Popen(["glxgears", "-geometry", "160x120"], env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    time.sleep(seconds + WARMUP_S)
    early = proc.poll()
    if early is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - t0
    steal1, total1 = vk.cpu_times()
    out.close()
    rec = {"strategy": strategy, "hz": hz, "seconds": seconds, "tag": tag, "wall_s": wall,
           "steal_jiffies": steal1 - steal0, "total_jiffies": total1 - total0}
    if early is not None:
        rec["error"] = f"glxgears ended early with {early} ({tag}.log)"
        return rec
    rows = vk.read_observer(obs)
    # The last frame may be cut by the signal: judged up to the one before it.
    rec.update(vk.judge(rows[:-1], hz, WARMUP_S))
    put = vk.judge(vk.read_observer(obs + ".put")[:-1], hz, WARMUP_S)
    rec["at_x_p99_us"] = put.get("p99_us", float("nan"))
    rec["extra_log"] = f"; at X p99 {rec['at_x_p99_us']:.0f} us"
    return rec


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hz", default="60,144", help="rates, comma-separated (default 60,144)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of short chunks (default 5)")
    ap.add_argument("--seconds", type=float, default=10.0, help="judged seconds per chunk (default 10)")
    ap.add_argument("--drift-seconds", type=float, default=60.0,
                    help="one chunk this long per strategy and rate for the drift (default 60; 0: none)")
    ap.add_argument("--busy", type=int, default=0, help="busy processes beside the app (default 0)")
    ap.add_argument("--quick", action="store_true", help="the harness's smoke test: seconds, no timing judged")
    ap.add_argument("--strategies", default="pacer-before,pacer-after,mangohud-late,mangohud-early",
                    help="comma-separated subset of " + ", ".join(ALL_STRATEGIES)
                    + "; a pacer strategy may end in @PRIORITY (e.g. pacer-before@normal)")
    ap.add_argument("--build-dir", default="build-release",
                    help="the build tree with gl_preload/ and tests/gl/ (default build-release)")
    ap.add_argument("--json", help="write every chunk's figures and the summary here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (observer files, logs)")
    ap.add_argument("--seed", type=int, help="the shuffle's seed (default: from the clock, printed)")
    a = ap.parse_args(argv)
    try:
        a.hzs = [float(x) for x in a.hz.split(",") if x]
    except ValueError:
        ap.error("--hz takes numbers: " + a.hz)
    if not a.hzs or any(not (1 <= h <= 1000) for h in a.hzs):
        ap.error("--hz: rates from 1 to 1000")
    a.strategies = [s for s in a.strategies.split(",") if s]
    bad = vk.unknown_strategies(a.strategies, ALL_STRATEGIES)
    if bad or not a.strategies:
        ap.error("--strategies: unknown " + ",".join(bad))
    if a.rounds < 1 or a.seconds <= 0 or a.drift_seconds < 0 or a.busy < 0:
        ap.error("--rounds >= 1, --seconds > 0, --drift-seconds >= 0, --busy >= 0")
    if a.quick:
        a.hzs, a.rounds, a.seconds, a.drift_seconds = [60.0], 1, 2.0, 0.0
    return a


class Ctx:
    pass


def main(argv):
    a = parse_args(argv)
    vk.log("command: " + " ".join([os.path.relpath(sys.argv[0])] + argv))
    vk.log("host: " + vk.host_line())
    build = os.path.abspath(a.build_dir)
    ctx = Ctx()
    ctx.shim = os.path.join(build, "gl_preload", "libpacer_gl.so")
    ctx.observer = os.path.join(build, "tests", "gl", "libpacer_gl_observer.so")
    missing = [t for t in ("glxgears", "Xvfb") if shutil.which(t) is None]
    missing += [p for p in (ctx.shim, ctx.observer) if not os.path.exists(p)]
    if missing:
        vk.log("gl_compare: missing " + ", ".join(missing) + ": skipped")
        return SKIP
    ctx.method_known = vk.mangohud_knows_method()
    have_mango = os.path.exists(os.path.join(MANGOHUD_DIR, "libMangoHud_dlsym.so"))
    notes, strategies = [], []
    for s in a.strategies:
        if s.startswith("mangohud") and not have_mango:
            notes.append(f"{s} not run: MangoHud is not installed ({MANGOHUD_DIR})")
        elif s == "mangohud-early" and not ctx.method_known:
            notes.append(f"mangohud-early not run: MangoHud {vk.mangohud_version()} has no fps_limit_method "
                         "(0.6.9 and later); it sleeps after the swap (late) only")
        else:
            strategies.append(s)
    for n in notes:
        vk.log("note: " + n)
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    ctx.work = tempfile.mkdtemp(prefix="pacer-glbench-")
    ctx.cfgfile = os.path.join(ctx.work, "MangoHud.conf")
    open(ctx.cfgfile, "w").close()
    busy = server = None
    records, failed = [], False
    t_start = time.monotonic()
    try:
        server = vk.Xvfb(ctx.work)
        ctx.server = server
        busy = vk.Busy(a.busy) if a.busy else None
        vk.log(f"server: {server.name}; app: glxgears on llvmpipe; busy processes: {a.busy}; seed {seed}; "
               f"work folder {ctx.work}")
        base = run_chunk(ctx, "unpaced", 600.0, 2.0 if a.quick else 3.0, "unpaced")
        base["kind"] = "unpaced"
        records.append(base)
        if "error" in base:
            vk.log("unpaced: " + base["error"])
            failed = True
        else:
            vk.log(f"unpaced (observer only): {base['fps']:.0f} fps, CPU {base['cpu_pct']:.0f} %")
        plan = vk.make_plan(rng, strategies, a)
        vk.log(f"plan: {len(plan)} chunks, about {sum(p[4] + WARMUP_S + 0.5 for p in plan) / 60:.1f} min")
        failed = vk.run_plan(plan, lambda s, hz, secs, tag: run_chunk(ctx, s, hz, secs, tag), records) or failed
    finally:
        if busy:
            busy.stop()
        if server:
            server.stop()
    elapsed = time.monotonic() - t_start
    table = vk.summarize(records, strategies, a.hzs)
    vk.log(f"\nresults: medians over {a.rounds} round(s) of {a.seconds:g} s chunks; drift chunk "
           f"{a.drift_seconds:g} s; Xvfb, glxgears on llvmpipe; busy processes {a.busy}; took {elapsed / 60:.1f} min")
    vk.log(vk.report(table, strategies, a.hzs, a.drift_seconds))
    vk.log("\nat X (XShmPutImage, the driver's drawing included; not judged), median p99 us: " + "; ".join(
        f"{hz:g} Hz " + ", ".join(
            f"{s} {vk.fmt(vk.med([r.get('at_x_p99_us') for r in records if r['hz'] == hz and r['strategy'] == s and r.get('kind') == 'round' and 'error' not in r]), '.0f')}"
            for s in strategies) for hz in a.hzs))
    return vk.write_outputs(a, "gl_compare", ctx.work, records, table, notes, seed, elapsed, failed)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
