#include "display_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "format.hpp"
#include "latency_sim.hpp"
#include "percentile.hpp"
#include "pacer/fixed_step.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"
#include "pacer/stats.hpp"

using namespace std::chrono_literals;

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

DisplayConfig display_config(const DisplaySimConfig& c) {
    const bool vrr = c.vrr_min_hz > 0;
    DisplayConfig dc;
    dc.refresh_hz = c.refresh_hz;
    dc.clock_ppm = c.skew_ppm;
    dc.queue_depth = c.queue;
    dc.vrr_min_hz = c.vrr_min_hz;
    dc.lfc = vrr && c.refresh_hz >= 2 * c.vrr_min_hz;
    dc.report_noise = std::chrono::nanoseconds(std::llround(c.noise_us * 1e3));
    dc.present_cpu = 100us;  // the present call's own work before it queues
    dc.phase = std::chrono::nanoseconds(std::llround(0.37e9 / c.refresh_hz));  // vblanks not aligned with the start
    dc.seed = c.seed;
    if (c.change_hz > 0) dc.refresh_changes = {{std::chrono::nanoseconds(std::llround(c.change_at_s * 1e9)), c.change_hz}};
    return dc;
}

// The display-aware pacer, or (baseline) the fixed grid without display lock.
PacerConfig pacer_config(const DisplaySimConfig& c, bool baseline) {
    PacerConfig pc;
    pc.waiter.priority.mode = ThreadPriority::normal;  // the model's preemptions hit the pacer, as at its own class
    pc.target_hz = c.refresh_hz;
    pc.mode = c.mode;
    pc.display_lock = !baseline;
    pc.match_display = !baseline;
    pc.cadence = baseline ? CadenceMode::fixed : CadenceMode::automatic;
    return pc;
}

FixedStepConfig step_config() {
    FixedStepConfig sc;
    sc.step_hz = 120.0;
    return sc;
}

// One run: the host loop on the simulated OS and display, and what it records frame by frame
// (the header's metrics, from the model's ground truth).
class DisplayRun {
public:
    DisplayRun(const DisplaySimConfig& c, bool baseline)
        : c_(c),
          baseline_(baseline),
          os_(linux_like_os(), c.seed),  // as `pacer simulate latency`
          t0_(pacer::clock::to_ns(os_.now())),
          dc_(display_config(c)),
          display_(os_, dc_),
          pc_(pacer_config(c, baseline)),
          fp_(pc_, &os_),
          sim_(step_config()),
          work_rng_({}, c.seed ^ 0x5eedf00dULL),  // the work trace: the same in both runs
          end_(t0_ + std::llround(c.seconds * 1e9)),
          warm_(t0_ + 1'000'000'000),
          change_at_(c.change_hz > 0 ? t0_ + dc_.refresh_changes[0].at.count() : end_) {
        res_.baseline = baseline;
    }

    DisplaySimResult run() {
        while (pacer::clock::to_ns(os_.now()) < end_) frame();
        return figures();
    }

private:
    // wait(); work; present; report the present; record.
    void frame() {
        const std::int64_t cpu0 = os_.cpu_times().thread.count();
        const FrameTiming t = fp_.wait();
        const std::int64_t cpu_wait = os_.cpu_times().thread.count() - cpu0;
        const std::int64_t wake = pacer::clock::to_ns(os_.now());
        const std::size_t i = locked_.size();
        track_display(i, wake);
        track_cadence(i, t.cadence, wake);
        const double frame_hz = frame_rate(t);
        res_.cadence_hz = frame_hz;
        (void)sim_.advance(baseline_ ? t.interval : t.display_dt);
        os_.advance(std::chrono::nanoseconds(std::llround(work_ms(wake) * 1e6)));
        const std::int64_t cpu1 = os_.cpu_times().thread.count();
        const PresentResult r = display_.present(fp_.desired_swap_interval());
        const std::int64_t cpu_present = os_.cpu_times().thread.count() - cpu1 - dc_.present_cpu.count();
        for (int k = 0; k < r.reports; ++k) fp_.report_present(r.info());
        record_shown(i, r, frame_hz, wake, cpu_wait + cpu_present);
        prev_scanout_ = pacer::clock::to_ns(r.scanout);
    }

    // The tracker against the model: locked, the phase error, the fitted period on the model's.
    void track_display(std::size_t i, std::int64_t wake) {
        if (!change_seen_ && wake >= change_at_) {
            change_seen_ = true;
            change_frame_ = i;
        }
        const PacerStatus st = fp_.status();  // read at `wake`: next_vblank is the first after it
        const bool is_locked = st.display.state == DisplayState::locked;
        locked_.push_back(is_locked ? 1 : 0);
        bool on_period = false;
        if (is_locked) {
            const std::int64_t period = display_.refresh_period_at(pacer::clock::from_ns(wake)).count();
            const std::int64_t predicted = clock::to_ns(st.next_vblank);
            phase_us_.push_back(static_cast<double>(phase_error_ns(predicted, pacer::clock::to_ns(display_.vblank_after(pacer::clock::from_ns(wake))), period)) /
                                1e3);
            on_period = std::fabs(static_cast<double>(st.display.period.count() - period)) <=
                        1e-3 * static_cast<double>(period);
        }
        relocked_.push_back(on_period ? 1 : 0);
    }

    void track_cadence(std::size_t i, std::uint32_t cadence, std::int64_t wake) {
        if (i > 0 && cadence != prev_cadence_) {
            ++res_.cadence_switches;
            if (last_switch_ != 0) {
                const double gap = static_cast<double>(wake - last_switch_) / 1e9;
                res_.cadence_min_gap_s = res_.cadence_min_gap_s ? std::min(*res_.cadence_min_gap_s, gap) : gap;
            }
            last_switch_ = wake;
        }
        prev_cadence_ = cadence;
    }

    // The frame rate in force: the governor's, else the pacer's period.
    double frame_rate(const FrameTiming& t) const {
        return t.cadence_hz > 0           ? t.cadence_hz
               : t.period.count() > 0 ? 1e9 / static_cast<double>(t.period.count())
                                      : pc_.target_hz;
    }

    // This frame's work, ms: the sawtooth's ramp, or uniform jitter around the mean.
    double work_ms(std::int64_t wake) {
        const double u = c_.sawtooth_s > 0 ? std::fmod(static_cast<double>(wake - t0_) / 1e9 / c_.sawtooth_s, 1.0)
                                           : work_rng_.uniform();
        return std::max(0.0, c_.work_ms + (2.0 * u - 1.0) * c_.work_jitter_ms);
    }

    // After the warm-up: the waiting CPU, the simulated, wall and displayed times, the vblanks
    // since the previous frame.
    void record_shown(std::size_t i, const PresentResult& r, double frame_hz, std::int64_t wake,
                      std::int64_t pace_cpu) {
        if (!counting_ && wake >= warm_) {
            counting_ = true;
            wall0_ = wake;
        }
        if (!counting_) return;
        pace_cpu_ += pace_cpu;
        sim_ns_.push_back(static_cast<double>(sim_.total_steps()) * sim_.step().count() + sim_.backlog().count());
        shown_ns_.push_back(pacer::clock::to_ns(r.displayed));
        wake_ns_.push_back(wake);
        if (i == 0) return;
        ShownFrame f;
        if (c_.vrr_min_hz > 0) {
            // No vblank grid: the slots of the frame rate in force since the last frame.
            f.vblanks = std::max<std::int64_t>(
                0, std::llround(static_cast<double>(pacer::clock::to_ns(r.scanout) - prev_scanout_) * frame_hz / 1e9));
        } else {
            f.vblanks = vblanks_between(prev_scanout_, pacer::clock::to_ns(r.scanout),
                                        [&](std::int64_t x) { return pacer::clock::to_ns(display_.vblank_after(pacer::clock::from_ns(x))); });
            f.wanted = wanted_vblanks(display_.refresh_hz_at(r.scanout), frame_hz);
        }
        shown_.push_back(f);
    }

    DisplaySimResult figures() {
        DisplaySimResult res = res_;
        res.frames = locked_.size();
        res.state = fp_.status().display.state;
        res.lock_frames = frames_until_for_good(locked_, 0, change_seen_ ? change_frame_ : locked_.size());
        if (c_.change_hz > 0 && change_seen_)
            res.relock_frames = frames_until_for_good(relocked_, change_frame_, relocked_.size());
        if (!phase_us_.empty()) {
            res.phase_error_p50_us = percentile_of(phase_us_, 0.5);
            res.phase_error_p99_us = percentile_of(phase_us_, 0.99);
        }
        const MissCount m = count_misses(shown_);
        res.missed_vblanks = m.missed_vblanks;
        res.late_frames = m.late_frames;
        res.counted_frames = shown_.size();
        res.late_share =
            shown_.empty() ? 0.0 : static_cast<double>(m.late_frames) / static_cast<double>(shown_.size());
        res.dt_error_max_ms = dt_error_max_ns(sim_ns_, wake_ns_) / 1e6;
        res.dt_shown_error_max_ms = dt_error_max_ns(sim_ns_, shown_ns_) / 1e6;
        const double wall = static_cast<double>(pacer::clock::to_ns(os_.now()) - wall0_);
        res.cpu_share = counting_ && wall > 0 ? static_cast<double>(pace_cpu_) / wall : 0.0;
        return res;
    }

    const DisplaySimConfig& c_;
    const bool baseline_;
    SimulatedOs os_;
    const std::int64_t t0_;
    const DisplayConfig dc_;
    SimulatedDisplay display_;
    const PacerConfig pc_;
    FramePacer fp_;
    FixedStep sim_;
    SimulatedOs work_rng_;
    const std::int64_t end_, warm_, change_at_;

    DisplaySimResult res_;  // the counters kept as the run goes
    std::vector<char> locked_, relocked_;  // per frame from the first
    std::vector<double> phase_us_;
    std::size_t change_frame_ = 0;
    bool change_seen_ = false;
    std::uint32_t prev_cadence_ = 0;
    std::int64_t last_switch_ = 0;
    bool counting_ = false;  // after the warm-up
    std::int64_t pace_cpu_ = 0, wall0_ = 0, prev_scanout_ = 0;
    std::vector<double> sim_ns_;
    std::vector<std::int64_t> shown_ns_, wake_ns_;
    std::vector<ShownFrame> shown_;
};

}  // namespace

DisplaySimResult run_display_sim(const DisplaySimConfig& c, bool baseline) {
    return DisplayRun(c, baseline).run();
}

namespace {

template <class T>
std::string opt(const std::optional<T>& x) {
    return x ? json_number(static_cast<double>(*x)) : "null";
}

std::string figures(const DisplaySimResult& r) {
    return "\"frames\": " + json_number(static_cast<double>(r.frames)) + ", \"display_state\": \"" + to_string(r.state) +
           "\", \"lock_frames\": " + opt(r.lock_frames) + ", \"phase_error_p50_us\": " + opt(r.phase_error_p50_us) +
           ", \"phase_error_p99_us\": " + opt(r.phase_error_p99_us) + ", \"relock_frames\": " + opt(r.relock_frames) +
           ", \"missed_vblanks\": " + json_number(static_cast<double>(r.missed_vblanks)) +
           ", \"late_share\": " + json_number(r.late_share) +
           ", \"cadence_switches\": " + json_number(static_cast<double>(r.cadence_switches)) +
           ", \"cadence_min_gap_s\": " + opt(r.cadence_min_gap_s) +
           ", \"cadence_hz\": " + json_number(r.cadence_hz) + ", \"dt_error_max_ms\": " + json_number(r.dt_error_max_ms) +
           ", \"dt_shown_error_max_ms\": " + json_number(r.dt_shown_error_max_ms) +
           ", \"cpu_share\": " + json_number(r.cpu_share);
}

}  // namespace

std::string format_display_json(const DisplaySimConfig& c, const DisplaySimResult& run,
                                const DisplaySimResult& baseline) {
    const bool vrr = c.vrr_min_hz > 0, change = c.change_hz > 0;
    std::string s = "{\n  \"refresh_hz\": " + json_number(c.refresh_hz) + ", \"skew_ppm\": " + json_number(c.skew_ppm) +
                    ", \"noise_us\": " + json_number(c.noise_us) + ", \"queue\": " + json_number(c.queue) +
                    ", \"work_ms\": " + json_number(c.work_ms) + ", \"work_jitter_ms\": " + json_number(c.work_jitter_ms) +
                    ", \"sawtooth_s\": " + (c.sawtooth_s > 0 ? json_number(c.sawtooth_s) : std::string("null")) +
                    ",\n  \"refresh_change_hz\": " + (change ? json_number(c.change_hz) : "null") +
                    ", \"at_s\": " + (change ? json_number(c.change_at_s) : "null") +
                    ", \"vrr_min_hz\": " + (vrr ? json_number(c.vrr_min_hz) : "null") +
                    ", \"vrr_max_hz\": " + (vrr ? json_number(c.refresh_hz) : "null") + ", \"seconds\": " + json_number(c.seconds) +
                    ", \"seed\": " + std::to_string(c.seed) + ", \"mode\": \"" + to_string(c.mode) + "\",\n  " +
                    figures(run) + ",\n  \"baseline\": {" + figures(baseline) + "}\n}\n";
    return s;
}

}  // namespace pacer::tools
