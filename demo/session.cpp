#include "session.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "pacer/log.hpp"
#include "pacer/time_source.hpp"

namespace pacer_demo {

namespace {

std::int64_t now_ns() { return pacer::clock::to_ns(pacer::system_time_source().now()); }

}  // namespace

pacer::FixedStepConfig sim_config(double step_hz, int max_steps, std::chrono::nanoseconds period) {
    pacer::FixedStepConfig c;
    c.step_hz = step_hz;
    c.max_steps = max_steps;
    // Snapping to the pacing period is defined for periods up to 10 s; rates below 0.1 Hz do not
    // snap. The clamp and the snap tolerance keep FixedStep's defaults, which hold at every rate.
    if (period <= std::chrono::seconds(10)) c.snap_period = period;
    return c;
}

std::int64_t vblank_offset_ns(std::int64_t t, std::int64_t vblank, std::int64_t period) noexcept {
    std::int64_t d = (t - vblank) % period;  // from the vblank at or before t, in [0, period)
    if (d < 0) d += period;
    return d <= period - d ? d : d - period;
}

bool shown_late_known(const pacer::StatsSummary& m, bool vsync_in_use) noexcept {
    return m.latency_frames > 0 && (m.present_feedback || vsync_in_use);
}

std::string shown_late_text(const pacer::StatsSummary& m, bool vsync_in_use, pacer::SyncMode sync) {
    if (m.latency_frames == 0) return {};
    if (!shown_late_known(m, vsync_in_use)) return "Shown late  unknown (no presentation feedback)";
    char buf[128];
    std::snprintf(buf, sizeof buf, "Shown late  %.2f %% of %zu frames (sync %s)",
                  100.0 * static_cast<double>(m.shown_late) / static_cast<double>(m.latency_frames),
                  m.latency_frames, pacer::to_string(sync));
    return buf;
}

double frame_cost_ms(const pacer::StatsSummary& m) noexcept {
    return m.frames == 0 ? 0.0 : m.work_share * pacer::to_ms(m.interval.mean);  // mean work per frame
}

std::string overrun_text(const pacer::StatsSummary& m, double hz, bool vsync_in_use, double swap_ms) {
    if (vsync_in_use || m.frames == 0 || !(hz > 0)) return {};
    const double period_ms = 1000.0 / hz;
    const double cost_ms = frame_cost_ms(m);
    if (!(cost_ms > period_ms)) return {};
    char swap[48] = "";
    if (swap_ms >= 0) std::snprintf(swap, sizeof swap, " (swap %.2f ms)", swap_ms);
    char buf[160];
    std::snprintf(buf, sizeof buf, "cannot hold %g Hz: a frame costs %.2f ms%s > %.2f ms period", hz, cost_ms, swap,
                  period_ms);
    return buf;
}

void Motion::step(double dt) noexcept {
    prev_x = x;
    x += v * dt;
    if (x > 1.0) {
        x = 2.0 - x;
        v = -v;
    } else if (x < 0.0) {
        x = -x;
        v = -v;
    }
}

Session::Session(const Options& o)
    : coarse_(std::chrono::milliseconds(o.coarse_ms > 0 ? o.coarse_ms : 4)),
      work_ms_(o.work_ms),
      jitter_ms_(o.work_jitter_ms) {
    pacer::PacerConfig cfg;
    cfg.target_hz = o.hz;
    cfg.mode = o.mode;
    cfg.late_policy = o.policy;
    cfg.sync = o.sync;
    cfg.max_late_share = o.max_late_share;
    cfg.display_lock = o.display_lock;
    cfg.match_display = o.match_display;
    cfg.cadence = o.cadence;
    cfg.waiter.priority.mode = o.priority;
    coarse_on_ = o.coarse_ms > 0;
    // Throws pacer::ConfigError; options were validated before.
    pacer_ = std::make_unique<pacer::FramePacer>(cfg, coarse_on_ ? &coarse_ : nullptr);
    sim_ = pacer::FixedStep(sim_config(o.sim_hz, 8, pacer_->status().period));
    busy_.set_count(o.load);
    start_ns_ = last_refresh_ns_ = now_ns();
    run_cpu_start_ns_ = pacer::system_time_source().cpu_times().process.count();
    (void)cpu_.sample();
    (void)machine_.sample();
}

Session::~Session() {
    busy_.set_count(0);
    (void)capture_.close();
}

pacer::Status Session::start_capture(const std::string& path) {
    pacer::CaptureOptions c;
    c.application = "pacer_demo";
    c.config = pacer_->config();
    c.notes = "work " + std::to_string(work_ms_) + " ms +- " + std::to_string(jitter_ms_) + " ms, busy threads " +
              std::to_string(busy_.count()) + (coarse_on_ ? ", coarse scheduler injected" : "");
    return capture_.open(path, c, coarse_on_ ? static_cast<pacer::TimeSource*>(&coarse_) : nullptr);
}

pacer::Status Session::stop_capture() { return capture_.close(); }

const pacer::FrameTiming& Session::begin_frame() {
    t_ = pacer_->wait();
    ++frames_;
    if (!replay_on_) {
        feed(t_);
        if (t_.work.count() > 0 && t_.period.count() > 0) {
            ++grid_frames_;
            grid_slots_ += static_cast<std::uint64_t>(std::max<std::int64_t>(
                1, (t_.work.count() + t_.period.count() - 1) / t_.period.count()));
            target_hz_ = 1e9 / static_cast<double>(t_.period.count());
        }
    } else if (replay_playing_) {
        // The file at its own pace: its frames that fit in the time since the last frame. A
        // long stall of the window (a dragged window, a debugger) does not replay a flood.
        replay_due_ns_ = std::min<std::int64_t>(replay_due_ns_ + t_.interval.count(), 1'000'000'000);
        while (replay_pos_ < replay_.size() && replay_[replay_pos_].interval.count() <= replay_due_ns_) {
            replay_due_ns_ -= replay_[replay_pos_].interval.count();
            feed(replay_[replay_pos_++]);
        }
        if (replay_pos_ == replay_.size()) replay_playing_ = false;
    }
    return t_;
}

void Session::feed(const pacer::FrameTiming& t) {
    stats_.add(t);
    if (t.interval.count() > 0) frame_ms.push(static_cast<float>(static_cast<double>(t.interval.count()) * 1e-6));
}

pacer::Status Session::start_replay(const std::string& path) {
    Replay r;
    if (pacer::Status st = r.load(path); !st) return st;
    replay_ = std::move(r);
    replay_on_ = true;
    restart_replay();
    return {};
}

void Session::restart_replay() {
    reset_stats();
    replay_pos_ = 0;
    replay_due_ns_ = 0;
    replay_playing_ = replay_.size() > 0;
    last_refresh_ns_ = 0;  // the panels follow at once
}

void Session::step_replay(std::size_t frames) {
    replay_playing_ = false;
    for (std::size_t i = 0; i < frames && replay_pos_ < replay_.size(); ++i) feed(replay_[replay_pos_++]);
    last_refresh_ns_ = 0;
}

void Session::stop_replay() {
    replay_on_ = replay_playing_ = false;
    replay_ = Replay();
    reset_stats();
}

std::chrono::nanoseconds Session::target_period() const noexcept {
    return replay_on_ ? replay_.target() : pacer_->status().period;
}

void Session::simulate() {
    // The display-time delta (FrameTiming::display_dt): wake-up noise stays out of the motion. A
    // replayed capture has none: its intervals.
    adv_ = sim_.advance(t_.display_dt.count() > 0 ? t_.display_dt : t_.interval);
    for (int i = 0; i < adv_.steps; ++i) motion_.step(sim_.step_seconds());
}

void Session::do_work() {
    double ms = work_ms_;
    if (jitter_ms_ > 0) ms += std::uniform_real_distribution<double>(-jitter_ms_, jitter_ms_)(rng_);
    if (ms <= 0) return;
    // A busy spin, like a game's CPU-bound simulation and render submission.
    const std::int64_t end = now_ns() + static_cast<std::int64_t>(ms * 1e6);
    while (now_ns() < end) {
    }
}

bool Session::refresh_due() const { return now_ns() - last_refresh_ns_ >= kRefreshNs; }

void Session::refresh(bool histograms) {
    last_refresh_ns_ = now_ns();
    sum_ = stats_.summarize();
    const pacer::CpuUsage u = cpu_.sample();
    if (u.valid) {
        process_pct_ = u.process_pct;
        thread_pct_ = u.thread_pct;
    }
    if (const double m = machine_.sample(); m >= 0) machine_pct_ = m;
    else if (!machine_.available()) machine_pct_ = -1;
    cpu_process.push(static_cast<float>(std::max(0.0, process_pct_)));
    cpu_thread.push(static_cast<float>(std::max(0.0, thread_pct_)));
    cpu_machine.push(static_cast<float>(std::max(0.0, machine_pct_)));
    share_sleep.push(static_cast<float>(100.0 * sum_.sleep_share));
    share_spin.push(static_cast<float>(100.0 * sum_.spin_share));
    // Phase error: how far the recent presents returned from the predicted vblanks.
    const std::size_t n = std::min(kPhaseFrames, vblank_offset_ms.count);
    if (n > 0) {
        std::array<float, kPhaseFrames> a{};
        for (std::size_t i = 0; i < n; ++i) a[i] = std::fabs(vblank_offset_ms.last(n, i));
        std::sort(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
        phase_p50_ms_ = a[(n - 1) / 2];
        phase_p99_ms_ = a[std::min(n - 1, static_cast<std::size_t>(0.99 * static_cast<double>(n)))];
    } else {
        phase_p50_ms_ = phase_p99_ms_ = -1;
    }
    if (histograms) {
        // Ranges follow the target: frame times on [0, 2 x target) (60 Hz: 0..33 ms, 144 Hz:
        // 0..13.9 ms); lateness on [0, target / 4) but at least 1 ms (a hybrid wait is late by
        // tens of us, a plain sleep by up to ~1 ms on Linux).
        using std::chrono::nanoseconds;
        const nanoseconds target = target_period();
        const nanoseconds interval_hi = 2 * target;
        const nanoseconds lateness_hi = std::max<nanoseconds>(std::chrono::milliseconds(1), target / 4);
        stats_.histogram(pacer::FrameMetric::interval, nanoseconds(0), interval_hi, interval_bins);
        stats_.histogram(pacer::FrameMetric::lateness, nanoseconds(0), lateness_hi, lateness_bins);
        // Latency on [0, 3 x target): frame_start with a blocking vsync swap shows its input about
        // two periods late, just_in_time about one work time.
        const nanoseconds latency_hi = 3 * target;
        stats_.histogram(pacer::FrameMetric::latency, nanoseconds(0), latency_hi, latency_bins);
        interval_hi_ms = pacer::to_ms(interval_hi);
        lateness_hi_ms = pacer::to_ms(lateness_hi);
        latency_hi_ms = pacer::to_ms(latency_hi);
    }
}

void Session::reset_stats() {
    stats_.reset();
    frame_ms.clear();
    vblank_offset_ms.clear();
    interval_bins.fill(0);
    lateness_bins.fill(0);
    latency_bins.fill(0);
    sum_ = stats_.summarize();
}

double Session::elapsed_s() const { return static_cast<double>(now_ns() - start_ns_) * 1e-9; }

double Session::run_process_pct() {
    const std::int64_t cpu = pacer::system_time_source().cpu_times().process.count();
    const double wall = static_cast<double>(now_ns() - start_ns_);
    if (cpu < 0 || run_cpu_start_ns_ < 0 || wall <= 0) return -1;
    return 100.0 * static_cast<double>(cpu - run_cpu_start_ns_) / wall;
}

pacer::Status Session::set_rate(double hz) {
    pacer::Status s = pacer_->set_target_hz(hz);
    if (!s) return s;
    const pacer::FixedStepConfig& c = sim_.config();
    return sim_.set_config(sim_config(c.step_hz, c.max_steps, pacer_->status().period));
}

pacer::Status Session::set_max_late_share(double share) {
    pacer::PacerConfig c = pacer_->config();
    c.max_late_share = share;
    return pacer_->set_config(c);
}

pacer::Status Session::set_display_lock(bool on) {
    pacer::PacerConfig c = pacer_->config();
    c.display_lock = on;
    return pacer_->set_config(c);
}

pacer::Status Session::set_match_display(bool on) {
    pacer::PacerConfig c = pacer_->config();
    c.match_display = on;
    return pacer_->set_config(c);
}

pacer::Status Session::set_sync(pacer::SyncMode sync) {
    pacer::PacerConfig c = pacer_->config();
    c.sync = sync;
    return pacer_->set_config(c);
}

pacer::Status Session::set_priority(pacer::ThreadPriority p) {
    pacer::PacerConfig c = pacer_->config();
    c.waiter.priority.mode = p;
    return pacer_->set_config(c);
}

pacer::Status Session::set_cadence(pacer::CadenceMode mode) {
    pacer::PacerConfig c = pacer_->config();
    c.cadence = mode;
    return pacer_->set_config(c);
}

void Session::note_present(pacer::clock::time_point returned) noexcept {
    const pacer::PacerStatus st = pacer_->status();
    const std::int64_t period = st.display.period.count();
    if (st.display.state != pacer::DisplayState::locked || period <= 0) return;
    const std::int64_t t = pacer::clock::to_ns(returned);
    const std::int64_t vblank = pacer::clock::to_ns(st.next_vblank);  // any fitted vblank will do
    vblank_offset_ms.push(static_cast<float>(static_cast<double>(vblank_offset_ns(t, vblank, period)) * 1e-6));
}


pacer::Status Session::set_mode(pacer::WaitMode m) {
    pacer::PacerConfig c = pacer_->config();
    c.mode = m;
    return pacer_->set_config(c);
}

pacer::Status Session::set_policy(pacer::LatePolicy p, int max_catch_up) {
    pacer::PacerConfig c = pacer_->config();
    c.late_policy = p;
    c.max_catch_up = max_catch_up;
    return pacer_->set_config(c);
}

pacer::Status Session::set_waiter(const pacer::WaiterConfig& w) {
    pacer::PacerConfig c = pacer_->config();
    c.waiter = w;
    return pacer_->set_config(c);
}

pacer::Status Session::set_sim(double step_hz, int max_steps) {
    return sim_.set_config(sim_config(step_hz, max_steps, pacer_->status().period));
}

pacer::Status Session::set_work(double mean_ms, double jitter_ms) {
    if (!std::isfinite(mean_ms) || mean_ms < 0 || mean_ms > kMaxWorkMs)
        return pacer::Status::error("work = " + std::to_string(mean_ms) + " ms: must be in [0, 1000]");
    if (!std::isfinite(jitter_ms) || jitter_ms < 0 || jitter_ms > kMaxWorkMs)
        return pacer::Status::error("jitter = " + std::to_string(jitter_ms) + " ms: must be in [0, 1000]");
    work_ms_ = mean_ms;
    jitter_ms_ = jitter_ms;
    return {};
}

pacer::Status Session::set_load(int threads) {
    if (threads < 0 || threads > kMaxLoadThreads)
        return pacer::Status::error("busy threads = " + std::to_string(threads) + ": must be in [0, " +
                                    std::to_string(kMaxLoadThreads) + "]");
    busy_.set_count(threads);
    return {};
}

pacer::Status Session::set_coarse(int period_ms) {
    if (period_ms < 0 || period_ms > 10)
        return pacer::Status::error("scheduler period = " + std::to_string(period_ms) +
                                    " ms: must be 0 (off) or in [1, 10]");
    if (period_ms > 0) coarse_.set_period(std::chrono::milliseconds(period_ms));
    const bool on = period_ms > 0;
    if (on != coarse_on_) {
        coarse_on_ = on;
        // The grid restarts on the new source; what the waiter learned is kept and adapts.
        pacer_->set_time_source(on ? &coarse_ : nullptr);
    }
    return {};
}

}  // namespace pacer_demo
