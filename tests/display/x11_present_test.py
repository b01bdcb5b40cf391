#!/usr/bin/env python3
"""`pacer display` on real X servers: Xvfb with -fakescreenfps runs a vblank clock that X11
Present reports (vblank counter and its time, UST). Checks, for the fake refresh rates given:

  lock    --source x11-present for 20 s at each rate, side by side, a server each. The pacer's
          own robustness, asserted as it is: locked within 20 vblanks, exactly one lock, the
          fitted rate within 0.05 % of the server's (Xvfb ticks every floor(1e6 / N) us). Late
          stamps are outliers for the fit, not a new display: a server under load delays its
          stamps the same way (tests/display_test.cpp checks the same in virtual time with 5-20 %
          of the stamps 1-12 ms late).
          The prediction, judged against a floor from the same run: the best predictor of the same
          stamps in hindsight, a robust line through all of them fitted afterwards
          (--vblanks-csv gives each stamp and the pacer's error on it). The pacer's next-vblank
          error must be within the floor's + 0.5 ms at p50 and at p99. On a quiet machine the
          floor is Xvfb's millisecond timer: it arms each vblank in whole milliseconds from the
          request, so its stamps come up to 1 ms before the vblank, p99 about 0.5 ms around their
          line, and the bound is the 1 ms this test asked before. A machine that delays Xvfb's
          timer (a disk writer's kernel work on a kernel without preemption, busy neighbours:
          4-25 % of the stamps late by up to 12 ms, on the noisy host that first failed this
          test) moves the floor and the pacer alike, and the test prints both, so a reader sees
          whose a miss is.
          (Measured with one request queued, the default of pacer/x11_present.hpp: pacer p99
          0.50-0.65 ms, p50 0.25 ms, alone, side by side, beside one or two busy loops or a build
          on both cores. With three queued, each new request re-armed the pending timers:
          1.05-1.23 ms at p99.)
          The counter's steps, judged by who made them (--vblanks-csv also gives, for each
          stamp, when the tool woke to read it and the NotifyMSC it sent then). A step over 1
          whose stamp is off the server's line is its timer firing late (a counter that rounds to
          the next vblank). One whose stamp lies on the line is a request that reached the server
          after the vblank's edge (Xvfb's counter rounds half a period early, and a request for a
          counter already reached is served at the next one): the machine's when the request was
          sent before the edge (the server handled it late) or the tool woke after it; the
          pacer's when the request asked for another counter than the next, or the tool woke
          before the edge and sent it after. The pacer's: at most 1 % of the steps (quiet: 0-4
          of 1,200-2,900 steps). Beside a disk writer (3 runs, 13-16 % of the stamps late): the
          pacer's 0-6, the machine's 26-85 and the server's late timer 13-44 at 120 and 144 Hz,
          where the bound before (the skips with the stamp on the line at most the server's + 1 %)
          failed 4 of 6.
          tools/dev/mutants.py (./dev mutants) shows that broken pacers fail these checks: a
          prediction a quarter period or 1 ms late, a clock 0.1 % fast, a source that asks for
          the vblank after next.
  target  --present-at-time --hz N until 10 s of frames (10 N) are judged, counted from 2 s
          after the first lock (at most 30 s), all rates side by side, a server each, under
          SCHED_FIFO where allowed (below the server: the test judges which vblank the pacer aims
          at). Xvfb's counter rounds: it reads k from half a period before vblank k's stamp (the
          vblank's edge), so a present for k must reach the server before then, and the pacer's
          lead learns that edge from the late feedback (0.1 % of frames late by design,
          PacerConfig::max_late_share; a burst of late feedback takes larger steps,
          pacer/lead.hpp). Each frame not shown at its target counter is judged by whose it is
          (--presents-csv: its deadline, wake-up and present call). The floor is the lead that,
          chosen in hindsight, covers 90 % of the run's own delays from deadline to present call.
          Aimed at or after the edge, or sent after it with a lead under that floor (too little
          even for the bulk of this machine's delays), is the pacer's, at most 1 % of the frames;
          sent after it with a lead at or over the floor is the machine's tail (beside the stall
          noise of tools/dev/flake.py, 1-12 ms stalls: 2-10 of 600 frames at 60 Hz with leads of 5-12
          ms, which failed the old bound of 1 % for both together 2 of 10 runs; a p99 floor is
          the stalls themselves, 7-9 ms, and failed 1 of 10); sent in time and still
          shown late is the server's timer firing late (a machine that stalls delays Xvfb's
          timer: 4 % of 144 Hz frames beside the stall noise). Those two are printed only.
          Measured: the pacer's 0-4 of 600 and 1,440 frames quiet, beside busy loops, stalls, or
          a disk writer, busy loops and a timer neighbour at once. A count of frames, not a run time: a server
          clock stalled by the machine delays the verdict instead of starving it.

usage: x11_present_test.py PACER_BINARY lock|target HZ...   (exit 0 ok, 1 failed, 77 skipped)
Each server is started here and stopped at the end; nothing is left behind.
"""
import concurrent.futures
import csv
import json
import math
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


def start_xvfb(hz):
    """Xvfb at hz on a display number of its own choosing (-displayfd: the first free one, no race
    with other tests starting servers); under SCHED_FIFO when allowed, so that the server's vblank
    timer (the display clock under test) is not delayed by the other tests on a busy machine.
    Returns the process and its display number."""
    read, write = os.pipe()
    cmd = fifo(10, ["Xvfb", "-displayfd", str(write), "-screen", "0", "320x240x24", "-fakescreenfps", str(hz),
                    "-nolisten", "tcp"])
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write,))
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()  # written once the server listens
    if not number.isdigit():
        p.kill()
        raise RuntimeError("Xvfb did not start")
    return p, int(number)


def run(pacer, display, args, priority=None):
    env = dict(os.environ, DISPLAY=f":{display}")
    cmd = [pacer, "display", "--source", "x11-present", "--json"] + args
    r = subprocess.run(fifo(priority, cmd) if priority else cmd, env=env,
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"pacer display {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def read_stamps(csv_path):
    """The vblanks `pacer display --vblanks-csv` wrote: (counter, time ns, the pacer's error ns or
    None before its first lock), counted ones only; and for each, the request the tool sent after
    reading it: (woke ns, requested counter, sent ns), or None."""
    stamps, requests = [], []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["msc"]:
                stamps.append((int(row["msc"]), int(row["time_ns"]), int(row["error_ns"]) if row["error_ns"] else None))
                requests.append((int(row["woke_ns"]), int(row["requested_msc"]), int(row["requested_ns"]))
                                if row.get("requested_msc") else None)
    return stamps, requests


def median(v):
    s = sorted(v)
    return s[len(s) // 2] if s else 0.0


def quantile(v, p):
    """Linear interpolation at (n - 1) p, as the pacer's own percentiles (pacer/stats.hpp)."""
    s = sorted(v)
    if not s:
        return None
    x = p * (len(s) - 1)
    i = int(x)
    return s[i] + (s[min(i + 1, len(s) - 1)] - s[i]) * (x - i)


def hindsight(stamps, period_ns):
    """The best predictor of the stamps in hindsight: a robust line through all of them, (counter,
    time), fitted afterwards (least squares through the stamps within 3.5 robust sigmas, at least
    0.1 ms, of the median residual; three rounds). Returns the line's period, each stamp's residual
    and whether it is on the line (within that band: the server's own spread)."""
    m0, t0 = stamps[0][0], stamps[0][1]
    xs = [m - m0 for m, _, _ in stamps]
    ys = [t - t0 for _, t, _ in stamps]
    b = float(period_ns)
    a = median([y - b * x for x, y in zip(xs, ys)])
    on = [True] * len(xs)
    for _ in range(3):
        res = [y - (a + b * x) for x, y in zip(xs, ys)]
        centre = median(res)
        band = max(3.5 * 1.4826 * median([abs(r - centre) for r in res]), 100_000)
        on = [abs(r - centre) <= band for r in res]
        n = sum(on)
        mx = sum(x for x, o in zip(xs, on) if o) / n
        my = sum(y for y, o in zip(ys, on) if o) / n
        sxx = sum((x - mx) ** 2 for x, o in zip(xs, on) if o)
        b = sum((x - mx) * (y - my) for x, y, o in zip(xs, ys, on) if o) / sxx if sxx > 0 else b
        a = my - b * mx
    res = [y - (a + b * x) for x, y in zip(xs, ys)]
    return b, res, on


def fold(e, period):
    """An error against the nearest vblank of a grid with this period (as the pacer's is)."""
    e = math.fmod(e, period)
    if e < 0:
        e += period
    return e - period if 2 * e >= period else e


def judge_stamps(hz, stamps, requests):
    """The pacer's figures on the stamps beside the floor's, from the same stamps (see check_lock)."""
    interval_ns = (1000000 // hz) * 1000
    period, res, on = hindsight(stamps, interval_ns)
    pacer_err = [abs(e) / 1e3 for _, _, e in stamps if e is not None]
    floor_err = [abs(fold(r, period)) / 1e3 for r, (_, _, e) in zip(res, stamps) if e is not None]
    skips_server = skips_machine = skips_pacer = steps = 0
    for i in range(1, len(stamps)):
        k = stamps[i - 1][0]
        step = stamps[i][0] - k
        steps += 1
        if step <= 1:
            continue
        req = requests[i - 1]
        edge = (k + 1) * interval_ns - interval_ns // 2  # Xvfb's counter reaches k + 1 here
        if req is not None and req[1] != k + 1:
            skips_pacer += 1    # asked for another counter than the next
        elif not on[i] or req is None:
            skips_server += 1   # its timer fired late (or the stamp came unasked, in one read)
        elif req[2] <= edge or req[0] > edge:
            skips_machine += 1  # sent in time and handled late, or the tool woke after the edge
        else:
            skips_pacer += 1    # read in time, sent after the edge
    late = sum(1 for m, t, _ in stamps if t - m * interval_ns > 200_000)
    return {
        "pacer_p50": quantile(pacer_err, 0.5), "pacer_p99": quantile(pacer_err, 0.99),
        "floor_p50": quantile(floor_err, 0.5), "floor_p99": quantile(floor_err, 0.99),
        "judged": len(pacer_err), "steps": steps, "skips_server": skips_server, "skips_machine": skips_machine,
        "skips_pacer": skips_pacer,
        "late_share": late / len(stamps) if stamps else 1.0, "off_line_share": 1 - sum(on) / len(on) if on else 1.0,
    }


def check_lock(hz, out, stamped, errors):
    server_hz = 1e6 / (1000000 // hz)
    name = f"{hz} Hz lock"
    f = judge_stamps(hz, *stamped)
    print(f"{name}: the server's stamps: {f['late_share']:.2%} over 0.2 ms past its exact grid, {f['off_line_share']:.2%} "
          f"off their own line; next vblank error of that line in hindsight (the floor) p50 {f['floor_p50']:.1f} us, "
          f"p99 {f['floor_p99']:.1f} us; the pacer's p50 {f['pacer_p50']:.1f} us, p99 {f['pacer_p99']:.1f} us "
          f"({f['judged']} vblanks)")
    steps = {int(k): v for k, v in out["msc_step_counts"].items()}
    json_p99 = out["next_vblank_error_p99_us"]
    checks = [
        (out["ahead"] == 1, f"{out['ahead']} vblank request(s) kept queued (the default)"),
        (out["state"] == "locked", f"state {out['state']} ({out['reason']})"),
        (out["lock_vblanks"] is not None and out["lock_vblanks"] <= 20, f"locked after {out['lock_vblanks']} vblanks"),
        (out["locks"] == 1, f"{out['locks']} locks"),
        (out["fitted_hz"] is not None and abs(out["fitted_hz"] - server_hz) <= 5e-4 * server_hz,
         f"fitted {out['fitted_hz']} Hz, server {server_hz:.4f} Hz"),
        (f["judged"] >= 0.9 * sum(steps.values()) and json_p99 is not None and abs(json_p99 - f["pacer_p99"]) <= 0.1,
         f"{f['judged']} vblanks judged, p99 {f['pacer_p99']:.1f} us (the JSON's {json_p99})"),
        (f["pacer_p50"] <= f["floor_p50"] + 500, f"next vblank error p50 {f['pacer_p50']:.1f} us (under the floor's "
                                                 f"{f['floor_p50']:.1f} + 500)"),
        (f["pacer_p99"] <= f["floor_p99"] + 500, f"next vblank error p99 {f['pacer_p99']:.1f} us (under the floor's "
                                                 f"{f['floor_p99']:.1f} + 500)"),
        (f["skips_pacer"] <= 0.01 * f["steps"],
         f"counter steps {' '.join(f'{k}:{v}' for k, v in sorted(steps.items()))}: {f['skips_pacer']} skipped by the "
         f"pacer (a request for another counter, or read before the vblank's edge and sent after it), at most 1 % of "
         f"{f['steps']}; the server's late timer skipped {f['skips_server']}, the machine {f['skips_machine']} (the "
         f"request sent in time and handled late, or the tool woken after the edge)"),
    ]
    for ok, what in checks:
        print(f"{name}: {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            errors.append(f"{name}: {what}")


def read_presents(csv_path):
    """The judged presents `pacer display --presents-csv` wrote: (target counter, deadline, wake,
    sent, shown counter or None when skipped), times in ns."""
    out = []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            out.append((int(row["target_msc"]), int(row["deadline_ns"]), int(row["wake_ns"]), int(row["sent_ns"]),
                        int(row["shown_msc"]) if row["shown_msc"] else None))
    return out


def judge_presents(hz, presents):
    """Each present not shown at its target, by whose it is (see check_target)."""
    interval_us = 1000000 // hz
    f = {"on_target": 0, "pacer": 0, "machine": 0, "server": 0}
    # The floor: the lead that would have covered 90 % of this run's own delays from the deadline
    # to the present call (wake-up lateness and the send), chosen in hindsight.
    delays = sorted(sent - deadline for _, deadline, _, sent, _ in presents)
    floor = delays[min(len(delays) - 1, int(0.9 * len(delays)))] if delays else 0
    for target, deadline, wake, sent, shown in presents:
        if shown == target:
            f["on_target"] += 1
            continue
        edge = (target * interval_us - interval_us // 2) * 1000  # Xvfb's counter reaches target here
        if deadline > edge or (shown is not None and shown < target):
            f["pacer"] += 1      # aimed at or after the edge (or at a counter already shown)
        elif sent > edge:
            if edge - deadline < floor:
                f["pacer"] += 1  # a lead shorter than the hindsight one: too little for this machine
            else:
                f["machine"] += 1  # a delay in the run's tail, longer than the lead
        else:
            f["server"] += 1     # sent in time, shown late or replaced: the server's timer
    f["floor_us"] = floor / 1000
    return f


def check_target(hz, frames, out, presents, errors):
    name = f"{hz} Hz present at time"
    f = judge_presents(hz, presents)
    n = len(presents)
    share = out.get("on_target_share")
    print(f"{name}: {share} on target of {out.get('presented')} in {out.get('seconds')} s (late "
          f"{out.get('late_frames')}, skipped {out.get('skipped_frames')}, paced unlocked {out.get('untargeted_frames')}; "
          f"locked after {out.get('lock_vblanks')} vblanks, {out.get('locks')} locks, {out.get('state')}); the misses: "
          f"{f['pacer']} the pacer's (aimed after the vblank's edge, or sent after it with a lead under the floor of "
          f"{f['floor_us']:.0f} us, the run's p90 delay from deadline to send), {f['machine']} the machine's (a delay "
          f"longer than that and the lead), {f['server']} sent in time (the server's timer)")
    checks = [
        (out.get("presented", 0) >= frames and n == out.get("presented"), f"{n} presents judged of {frames}"),
        (n > 0 and f["pacer"] <= 0.01 * n, f"{f['pacer']} presents the pacer's: at most 1 % of {n}"),
    ]
    for ok, what in checks:
        print(f"{name}: {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            errors.append(f"{name}: {what}")


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
                server, number = start_xvfb(hz)
                servers.append(server)
                displays.append(number)
            with tempfile.TemporaryDirectory(prefix="pacer-x11-present-test-") as tmp:
                csvs = [os.path.join(tmp, f"vblanks-{d}.csv") for d in displays]
                with concurrent.futures.ThreadPoolExecutor(len(rates)) as pool:
                    # Under SCHED_FIFO (below the server) where allowed, as the target run: the
                    # client's requests judged are the adapter's, not the scheduler's (beside three
                    # other tests on two cores a normal-priority client missed the vblank's edge on
                    # 39 of 2,835 steps at 144 Hz, the server on 6).
                    outs = list(pool.map(lambda dc: run(pacer, dc[0], ["--seconds", "20", "--vblanks-csv", dc[1]],
                                                        priority=5), zip(displays, csvs)))
                for hz, out, path in zip(rates, outs, csvs):
                    check_lock(hz, out, read_stamps(path), errors)
        else:  # all rates side by side too, each on a server of its own
            displays = []
            for hz in rates:
                server, number = start_xvfb(hz)
                servers.append(server)
                displays.append(number)

            def present_at_time(hz_display):
                hz, d = hz_display
                frames = 10 * hz
                # The pacer under SCHED_FIFO too (below the server) when allowed: the test judges
                # which vblank the pacer aims at, not the scheduler's wake-up delays (a build on
                # both cores made 2 % of 144 Hz frames late by those alone).
                with tempfile.TemporaryDirectory(prefix="pacer-x11-present-test-") as tmp:
                    path = os.path.join(tmp, "presents.csv")
                    out = run(pacer, d, ["--present-at-time", "--hz", str(hz), "--frames", str(frames),
                                         "--seconds", "30", "--presents-csv", path], priority=5)
                    return hz, frames, out, read_presents(path)

            with concurrent.futures.ThreadPoolExecutor(len(rates)) as pool:
                for hz, frames, out, presents in pool.map(present_at_time, zip(rates, displays)):
                    check_target(hz, frames, out, presents, errors)
    finally:
        for s in servers:
            s.send_signal(signal.SIGTERM)
            s.wait(timeout=10)
    for e in errors:
        print("FAILED:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
