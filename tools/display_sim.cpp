#include "display_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "latency_sim.hpp"
#include "pacer/fixed_step.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"
#include "pacer/stats.hpp"

namespace pacer::tools {

std::optional<std::size_t> frames_until_for_good(const std::vector<char>& ok, std::size_t begin, std::size_t end) {
    end = std::min(end, ok.size());
    if (begin >= end || !ok[end - 1]) return std::nullopt;
    std::size_t k = end - 1;
    while (k > begin && ok[k - 1]) --k;
    return k - begin;
}

std::int64_t phase_error_ns(std::int64_t predicted, std::int64_t truth, std::int64_t period) {
    std::int64_t d = predicted - truth;
    if (period <= 0) return d < 0 ? -d : d;
    d %= period;
    if (d < 0) d += period;          // [0, period)
    if (2 * d >= period) d -= period;  // [-period / 2, period / 2)
    return d < 0 ? -d : d;
}

std::int64_t vblanks_between(std::int64_t a, std::int64_t b,
                             const std::function<std::int64_t(std::int64_t)>& vblank_after) {
    std::int64_t n = 0;
    for (std::int64_t v = vblank_after(a), prev = a; v <= b && v > prev; prev = v, v = vblank_after(v)) ++n;
    return n;
}

std::int64_t wanted_vblanks(double refresh_hz, double frame_hz) {
    if (!(refresh_hz > 0) || !(frame_hz > 0)) return 1;
    return std::max<std::int64_t>(1, std::llround(refresh_hz / frame_hz));
}

MissCount count_misses(const std::vector<ShownFrame>& shown) {
    MissCount m;
    for (const ShownFrame& f : shown) {
        const std::int64_t wanted = std::max<std::int64_t>(1, f.wanted);
        if (f.vblanks <= wanted) continue;
        ++m.late_frames;
        m.missed_vblanks += static_cast<std::uint64_t>((f.vblanks + wanted - 1) / wanted - 1);
    }
    return m;
}

double dt_error_max_ns(const std::vector<double>& sim_ns, const std::vector<std::int64_t>& shown_ns) {
    const std::size_t n = std::min(sim_ns.size(), shown_ns.size());
    double worst = 0;
    for (std::size_t k = 1; k < n; ++k)
        worst = std::max(worst, std::fabs((sim_ns[k] - sim_ns[0]) - static_cast<double>(shown_ns[k] - shown_ns[0])));
    return worst;
}

namespace {

double pct(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return percentile_sorted(v, p);
}

}  // namespace

DisplaySimResult run_display_sim(const DisplaySimConfig& c, bool baseline) {
    SimulatedOs os(linux_like_os(), c.seed);  // as `pacer simulate latency`
    const std::int64_t t0 = os.now_ns();
    const bool vrr = c.vrr_min_hz > 0;
    DisplayConfig dc;
    dc.refresh_hz = c.refresh_hz;
    dc.clock_ppm = c.skew_ppm;
    dc.queue_depth = c.queue;
    dc.vrr_min_hz = c.vrr_min_hz;
    dc.lfc = vrr && c.refresh_hz >= 2 * c.vrr_min_hz;
    dc.report_noise_ns = std::llround(c.noise_us * 1e3);
    dc.present_cpu_ns = 100'000;  // the present call's own work before it queues
    dc.phase_ns = std::llround(0.37e9 / c.refresh_hz);  // vblanks not aligned with the start
    dc.seed = c.seed;
    const bool change = c.change_hz > 0;
    if (change) dc.refresh_changes = {{std::llround(c.change_at_s * 1e9), c.change_hz}};
    SimulatedDisplay display(os, dc);
    PacerConfig pc;
    pc.target_hz = c.refresh_hz;
    pc.mode = c.mode;
    pc.display_lock = !baseline;
    pc.match_display = !baseline;
    pc.cadence = baseline ? CadenceMode::fixed : CadenceMode::automatic;
    FramePacer fp(pc, &os);
    FixedStepConfig sc;
    sc.step_hz = 120.0;
    FixedStep sim(sc);
    SimulatedOs work_rng({}, c.seed ^ 0x5eedf00dULL);  // the work trace: the same in both runs

    const std::int64_t end = t0 + std::llround(c.seconds * 1e9);
    const std::int64_t warm = t0 + 1'000'000'000;
    const std::int64_t change_at = change ? t0 + dc.refresh_changes[0].at_ns : end;
    std::vector<char> locked, relocked;
    std::vector<double> phase_us, sim_ns;
    std::vector<std::int64_t> shown_ns, wake_ns;
    std::vector<ShownFrame> shown;
    std::size_t change_frame = 0;
    bool change_seen = false, counting = false;
    std::int64_t pace_cpu = 0, wall0 = 0, prev_scanout = 0;
    std::uint32_t prev_cadence = 0;
    std::int64_t last_switch = 0;
    DisplaySimResult res;
    res.baseline = baseline;
    while (os.now_ns() < end) {
        const std::int64_t cpu0 = os.cpu_times().thread_ns;
        const FrameTiming t = fp.wait();
        const std::int64_t cpu_wait = os.cpu_times().thread_ns - cpu0;
        const std::int64_t wake = os.now_ns();
        const std::size_t i = locked.size();
        if (!change_seen && wake >= change_at) {
            change_seen = true;
            change_frame = i;
        }
        const PacerStatus st = fp.status();  // read at `wake`: next_vblank is the first after it
        const bool is_locked = st.display.state == DisplayState::locked;
        locked.push_back(is_locked ? 1 : 0);
        bool on_period = false;
        if (is_locked) {
            const std::int64_t period = display.refresh_period_at(wake);
            const std::int64_t predicted = clock::to_ns(st.next_vblank);
            phase_us.push_back(static_cast<double>(phase_error_ns(predicted, display.vblank_after(wake), period)) / 1e3);
            on_period = std::fabs(static_cast<double>(st.display.period.count() - period)) <=
                        1e-3 * static_cast<double>(period);
        }
        relocked.push_back(on_period ? 1 : 0);
        if (i > 0 && t.cadence != prev_cadence) {
            ++res.cadence_switches;
            if (last_switch != 0) {
                const double gap = static_cast<double>(wake - last_switch) / 1e9;
                res.cadence_min_gap_s = res.cadence_min_gap_s ? std::min(*res.cadence_min_gap_s, gap) : gap;
            }
            last_switch = wake;
        }
        prev_cadence = t.cadence;
        // The frame rate in force: the governor's, else the pacer's period.
        const double frame_hz = t.cadence_hz > 0   ? t.cadence_hz
                                : t.period.count() > 0 ? 1e9 / static_cast<double>(t.period.count())
                                                       : pc.target_hz;
        res.cadence_hz = frame_hz;
        (void)sim.advance(baseline ? t.interval : t.display_dt);
        const double u = c.sawtooth_s > 0 ? std::fmod(static_cast<double>(wake - t0) / 1e9 / c.sawtooth_s, 1.0)
                                          : work_rng.uniform();
        const double w = std::max(0.0, c.work_ms + (2.0 * u - 1.0) * c.work_jitter_ms);
        os.advance(std::llround(w * 1e6));
        const std::int64_t cpu1 = os.cpu_times().thread_ns;
        const PresentResult r = display.present(fp.desired_swap_interval());
        const std::int64_t cpu_present = os.cpu_times().thread_ns - cpu1 - dc.present_cpu_ns;
        for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
        if (!counting && wake >= warm) {
            counting = true;
            wall0 = wake;
        }
        if (counting) {
            pace_cpu += cpu_wait + cpu_present;
            sim_ns.push_back(static_cast<double>(sim.total_steps()) * sim.step().count() + sim.backlog().count());
            shown_ns.push_back(r.displayed_ns);
            wake_ns.push_back(wake);
            if (i > 0) {
                ShownFrame f;
                if (vrr) {
                    // No vblank grid: the slots of the frame rate in force since the last frame.
                    f.vblanks = std::max<std::int64_t>(
                        0, std::llround(static_cast<double>(r.scanout_ns - prev_scanout) * frame_hz / 1e9));
                } else {
                    f.vblanks = vblanks_between(prev_scanout, r.scanout_ns,
                                                [&](std::int64_t x) { return display.vblank_after(x); });
                    f.wanted = wanted_vblanks(display.refresh_hz_at(r.scanout_ns), frame_hz);
                }
                shown.push_back(f);
            }
        }
        prev_scanout = r.scanout_ns;
    }
    res.frames = locked.size();
    res.state = fp.status().display.state;
    res.lock_frames = frames_until_for_good(locked, 0, change_seen ? change_frame : locked.size());
    if (change && change_seen) res.relock_frames = frames_until_for_good(relocked, change_frame, relocked.size());
    if (!phase_us.empty()) {
        res.phase_error_p50_us = pct(phase_us, 0.5);
        res.phase_error_p99_us = pct(phase_us, 0.99);
    }
    const MissCount m = count_misses(shown);
    res.missed_vblanks = m.missed_vblanks;
    res.late_frames = m.late_frames;
    res.counted_frames = shown.size();
    res.late_share = shown.empty() ? 0.0 : static_cast<double>(m.late_frames) / static_cast<double>(shown.size());
    res.dt_error_max_ms = dt_error_max_ns(sim_ns, wake_ns) / 1e6;
    res.dt_shown_error_max_ms = dt_error_max_ns(sim_ns, shown_ns) / 1e6;
    const double wall = static_cast<double>(os.now_ns() - wall0);
    res.cpu_share = counting && wall > 0 ? static_cast<double>(pace_cpu) / wall : 0.0;
    return res;
}

namespace {

std::string num(double x) {
    if (!std::isfinite(x)) return "null";
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", x);
    return b;
}
template <class T>
std::string opt(const std::optional<T>& x) {
    return x ? num(static_cast<double>(*x)) : "null";
}

std::string figures(const DisplaySimResult& r) {
    return "\"frames\": " + num(static_cast<double>(r.frames)) + ", \"display_state\": \"" + to_string(r.state) +
           "\", \"lock_frames\": " + opt(r.lock_frames) + ", \"phase_error_p50_us\": " + opt(r.phase_error_p50_us) +
           ", \"phase_error_p99_us\": " + opt(r.phase_error_p99_us) + ", \"relock_frames\": " + opt(r.relock_frames) +
           ", \"missed_vblanks\": " + num(static_cast<double>(r.missed_vblanks)) +
           ", \"late_share\": " + num(r.late_share) +
           ", \"cadence_switches\": " + num(static_cast<double>(r.cadence_switches)) +
           ", \"cadence_min_gap_s\": " + opt(r.cadence_min_gap_s) +
           ", \"cadence_hz\": " + num(r.cadence_hz) + ", \"dt_error_max_ms\": " + num(r.dt_error_max_ms) +
           ", \"dt_shown_error_max_ms\": " + num(r.dt_shown_error_max_ms) +
           ", \"cpu_share\": " + num(r.cpu_share);
}

}  // namespace

std::string format_display_json(const DisplaySimConfig& c, const DisplaySimResult& run,
                                const DisplaySimResult& baseline) {
    const bool vrr = c.vrr_min_hz > 0, change = c.change_hz > 0;
    std::string s = "{\n  \"refresh_hz\": " + num(c.refresh_hz) + ", \"skew_ppm\": " + num(c.skew_ppm) +
                    ", \"noise_us\": " + num(c.noise_us) + ", \"queue\": " + num(c.queue) +
                    ", \"work_ms\": " + num(c.work_ms) + ", \"work_jitter_ms\": " + num(c.work_jitter_ms) +
                    ", \"sawtooth_s\": " + (c.sawtooth_s > 0 ? num(c.sawtooth_s) : std::string("null")) +
                    ",\n  \"refresh_change_hz\": " + (change ? num(c.change_hz) : "null") +
                    ", \"at_s\": " + (change ? num(c.change_at_s) : "null") +
                    ", \"vrr_min_hz\": " + (vrr ? num(c.vrr_min_hz) : "null") +
                    ", \"vrr_max_hz\": " + (vrr ? num(c.refresh_hz) : "null") + ", \"seconds\": " + num(c.seconds) +
                    ", \"seed\": " + std::to_string(c.seed) + ", \"mode\": \"" + to_string(c.mode) + "\",\n  " +
                    figures(run) + ",\n  \"baseline\": {" + figures(baseline) + "}\n}\n";
    return s;
}

}  // namespace pacer::tools
