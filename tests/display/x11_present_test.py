#!/usr/bin/env python3
"""`pacer display` on real X servers: Xvfb with -fakescreenfps runs a vblank clock that X11
Present reports (vblank counter and its time, UST). Checks, for the fake refresh rates given:

  lock    --source x11-present for 20 s at each rate, side by side, a server each: locked
          within 20 vblanks, exactly one lock, the fitted rate within 0.05 % of the server's
          (Xvfb ticks every floor(1e6 / N) us), the next vblank predicted within 1 ms at p99,
          the counter advancing by 1 (99 % of the steps).
          (Measured: locked after 12-14 vblanks in every run; the fit over the span of counted
          vblanks within 0.0001-0.0007 %, where one window's fit was 0.004-0.057 % off.)
          (Xvfb arms each vblank as a timer in whole milliseconds from the request, so its
          stamps come up to 1 ms before the vblank. With one request queued, the default of
          pacer/x11_present.hpp, the prediction's error against them measured 0.50-0.65 ms at
          p99, p50 0.25 ms, alone, side by side, beside one or two busy loops or a build on
          both cores. With three queued, each new request re-armed the pending timers:
          1.05-1.23 ms at p99.)
          (The 1 ms holds while Xvfb's clock keeps its time, and the test checks that from the
          stamps themselves (--vblanks-csv): a stamp more than 0.2 ms after the server's exact
          grid is one its timer fired late. Xvfb's vblank is a software timer, and a spell of
          kernel work delays its wake-ups by milliseconds, under SCHED_FIFO too, on a kernel
          without preemption such as this virtual machine's. Idle or beside a build, 0-0.17 %
          of the stamps came late; a disk writer beside the test (dd with fsync) made 4.7-5.9 %
          late and a p99 of 2.1-2.7 ms. With 0.5 % or more of the stamps late, the test says so
          and holds the prediction to 2 ms instead; a short disk write that made 0.67 % late
          still left the p99 at 0.61 ms.)
  target  --present-at-time --hz N until 10 s of frames (10 N) are judged, counted from 2 s
          after the first lock (at most 30 s): at least 99 % of them shown at exactly the vblank
          counter of their display target. Xvfb's counter rounds: it reads k from half a period
          before vblank k's stamp, so a present for k must reach the server before then, and the
          pacer's lead learns that edge from the late feedback (0.1 % of frames late by design,
          PacerConfig::max_late_share; a burst of late feedback takes larger steps,
          pacer/lead.hpp). Measured over 10 s of frames: 99.86-100 % idle (six runs), 99.83-100 %
          beside a build on both cores, 99.93-100 % beside three busy loops (four runs each).
          With one step per late frame it was 99.31-99.72 % idle, and one CI run gave 98.96 %
          at 144 Hz (each miss costs 2-3 frames: the next present is sent before the
          feedback comes). 10 s of frames leave room for a burst (99 % of 600 frames is 6
          misses; 6 s of frames allowed only 3). A count of frames, not a run time: a server
          clock stalled by the machine delays the verdict instead of starving it. Under SCHED_FIFO where allowed, like the server.

usage: x11_present_test.py PACER_BINARY lock|target HZ...   (exit 0 ok, 1 failed, 77 skipped)
Each server is started here and stopped at the end; nothing is left behind.
"""
import concurrent.futures
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def fifo(priority, cmd):
    """cmd under SCHED_FIFO at priority, when this machine allows it (else as it is)."""
    chrt = shutil.which("chrt")
    if chrt and subprocess.run([chrt, "-f", str(priority), "true"], capture_output=True).returncode == 0:
        return [chrt, "-f", str(priority)] + cmd
    return cmd


def start_xvfb(hz, display):
    """Xvfb on :display at hz; under SCHED_FIFO when allowed, so that the server's vblank timer
    (the display clock under test) is not delayed by the other tests on a busy machine."""
    cmd = fifo(10, ["Xvfb", f":{display}", "-screen", "0", "320x240x24", "-fakescreenfps", str(hz), "-nolisten", "tcp"])
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):  # wait for its socket
        if os.path.exists(f"/tmp/.X11-unix/X{display}"):
            return p
        time.sleep(0.05)
    p.kill()
    raise RuntimeError(f"Xvfb :{display} did not start")


def free_display():
    for d in range(140, 400):
        if not os.path.exists(f"/tmp/.X11-unix/X{d}") and not os.path.exists(f"/tmp/.X{d}-lock"):
            return d
    raise RuntimeError("no free X display number")


def run(pacer, display, args, priority=None):
    env = dict(os.environ, DISPLAY=f":{display}")
    cmd = [pacer, "display", "--source", "x11-present", "--json"] + args
    r = subprocess.run(fifo(priority, cmd) if priority else cmd, env=env,
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"pacer display {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def delayed_share(csv_path, hz):
    """The share of the vblank stamps more than 0.2 ms after Xvfb's own grid: vblank k is due at
    k x floor(1e6 / hz) us of CLOCK_MONOTONIC, the pacer's clock here, and a timer that is not
    delayed stamps it up to 1 ms before that (never after it by more than the wake-up)."""
    interval_ns = (1000000 // hz) * 1000
    late = total = 0
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if not row["msc"]:
                continue
            total += 1
            late += int(row["time_ns"]) - int(row["msc"]) * interval_ns > 200_000
    return late / total if total else 1.0


def check_lock(hz, out, delayed, errors):
    server_hz = 1e6 / (1000000 // hz)
    name = f"{hz} Hz lock"
    # 1 ms while Xvfb's clock kept its time; a machine that delayed it (a disk writer, kernel
    # work) moves the stamps themselves, and then only the looser bound holds (see above).
    bound = 1000 if delayed < 0.005 else 2000
    if bound > 1000:
        print(f"{name}: note {delayed:.1%} of the server's stamps came over 0.2 ms late: the machine delayed "
              f"Xvfb's clock, so the next-vblank bound is 2 ms, not 1 ms")
    steps = {int(k): v for k, v in out["msc_step_counts"].items()}
    total = sum(steps.values())
    checks = [
        (out["ahead"] == 1, f"{out['ahead']} vblank request(s) kept queued (the default)"),
        (out["state"] == "locked", f"state {out['state']} ({out['reason']})"),
        (out["lock_vblanks"] is not None and out["lock_vblanks"] <= 20, f"locked after {out['lock_vblanks']} vblanks"),
        (out["locks"] == 1, f"{out['locks']} locks"),
        (out["fitted_hz"] is not None and abs(out["fitted_hz"] - server_hz) <= 5e-4 * server_hz,
         f"fitted {out['fitted_hz']} Hz, server {server_hz:.4f} Hz"),
        (out["next_vblank_error_p99_us"] is not None and out["next_vblank_error_p99_us"] < bound,
         f"next vblank error p99 {out['next_vblank_error_p99_us']} us (under {bound}; stamps delayed "
         f"{delayed:.2%})"),
        (total > 0 and steps.get(1, 0) >= 0.99 * total, f"counter steps {steps}"),
    ]
    for ok, what in checks:
        print(f"{name}: {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            errors.append(f"{name}: {what}")


def check_target(hz, frames, out, errors):
    name = f"{hz} Hz present at time"
    share = out.get("on_target_share")
    ok = share is not None and share >= 0.99 and out.get("presented", 0) >= frames
    print(f"{name}: {'ok  ' if ok else 'FAIL'} on target {share} of {out.get('presented')} in {out.get('seconds')} s "
          f"(late {out.get('late_frames')}, skipped {out.get('skipped_frames')}, paced unlocked "
          f"{out.get('untargeted_frames')}; locked after {out.get('lock_vblanks')} vblanks, {out.get('locks')} locks, "
          f"{out.get('state')})")
    if not ok:
        errors.append(f"{name}: on target {share} of {out.get('presented')}")


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in ("lock", "target"):
        print(__doc__)
        return 2
    pacer, what, rates = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
    if shutil.which("Xvfb") is None:
        print("Xvfb not found: skipped")
        return 77
    errors = []
    servers = []
    try:
        if what == "lock":  # all rates side by side, each on a server of its own
            displays = []
            for hz in rates:
                displays.append(free_display())
                servers.append(start_xvfb(hz, displays[-1]))
            with tempfile.TemporaryDirectory(prefix="pacer-x11-present-test-") as tmp:
                csvs = [os.path.join(tmp, f"vblanks-{d}.csv") for d in displays]
                with concurrent.futures.ThreadPoolExecutor(len(rates)) as pool:
                    outs = list(pool.map(lambda dc: run(pacer, dc[0], ["--seconds", "20", "--vblanks-csv", dc[1]]),
                                         zip(displays, csvs)))
                for hz, out, path in zip(rates, outs, csvs):
                    check_lock(hz, out, delayed_share(path, hz), errors)
        else:  # one at a time: each paces frames with a spin at the end of its waits
            for hz in rates:
                d = free_display()
                servers.append(start_xvfb(hz, d))
                frames = 10 * hz
                # The pacer under SCHED_FIFO too (below the server) when allowed: the test judges
                # which vblank the pacer aims at, not the scheduler's wake-up delays (a build on
                # both cores made 2 % of 144 Hz frames late by those alone).
                check_target(hz, frames, run(pacer, d, ["--present-at-time", "--hz", str(hz), "--frames", str(frames),
                                                        "--seconds", "30"], priority=5), errors)
    finally:
        for s in servers:
            s.send_signal(signal.SIGTERM)
            s.wait(timeout=10)
    for e in errors:
        print("FAILED:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
