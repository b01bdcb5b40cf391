#include "latency_sim.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "percentile.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"
#include "pacer/stats.hpp"

using namespace std::chrono_literals;

namespace pacer::tools {
namespace {

// Inverse of the standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9).
double normal_quantile(double p) noexcept {
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615962015576831e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double lo = 0.02425;
    if (p < lo) {
        const double q = std::sqrt(-2 * std::log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - lo) return -normal_quantile(1 - p);
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace

std::vector<double> work_trace(const WorkModel& work, std::size_t frames, std::uint64_t seed) {
    std::vector<double> out(frames);
    // The OS model's generator, on a stream of its own (the same on every platform).
    SimulatedOs rng({}, seed ^ 0x5eedf00dULL);
    const double mu = std::log(std::max(work.mean_ms, 1e-9)) - 0.5 * work.sigma * work.sigma;
    for (std::size_t i = 0; i < frames; ++i) {
        switch (work.kind) {
            case WorkModel::Kind::lognormal:
                out[i] = std::exp(mu + work.sigma * normal_quantile(rng.uniform() + 0x1.0p-54));  // in (0, 1)
                break;
            case WorkModel::Kind::constant: out[i] = work.mean_ms; break;
            case WorkModel::Kind::replay:
                out[i] = work.replay_ms.empty() ? 0.0 : work.replay_ms[i % work.replay_ms.size()];
                break;
        }
    }
    return out;
}

double work_quantile_ms(const WorkModel& work, double p) {
    if (work.kind == WorkModel::Kind::lognormal) {
        const double mu = std::log(work.mean_ms) - 0.5 * work.sigma * work.sigma;
        return std::exp(mu + work.sigma * normal_quantile(p));
    }
    if (work.kind == WorkModel::Kind::constant) return work.mean_ms;
    return work.replay_ms.empty() ? 0.0 : percentile_of(work.replay_ms, p);
}

double late_bound(std::size_t n, double b) {
    const double nd = static_cast<double>(n);
    return nd * b + 1.96 * std::sqrt(nd * b * (1 - b));
}

SimModel linux_like_os() {
    SimModel model;
    model.granularity = 50us;
    model.jitter_mean = 20us;
    model.preempt_probability = 0.002;
    model.preempt = 1ms;
    return model;
}

namespace {

DisplayConfig display_config(const LatencySimConfig& cfg) {
    DisplayConfig dc;
    dc.refresh_hz = cfg.hz;
    dc.queue_depth = 1;
    dc.present_cpu = 100us;  // the present call's own work before it queues
    dc.seed = cfg.seed;
    dc.clock_ppm = cfg.clock_ppm;
    return dc;
}

PacerConfig pacer_config(const LatencySimConfig& cfg, SyncMode sync) {
    PacerConfig pc;
    pc.waiter.priority.mode = ThreadPriority::normal;  // the model's preemptions hit the pacer, as at its own class
    pc.target_hz = cfg.hz;
    pc.mode = WaitMode::vsync;
    pc.sync = sync;
    pc.max_late_share = cfg.max_late_share;
    return pc;
}

// Frames after the step until the late share of the next 100 frames is within the budget's bound
// (late_after_step: one entry per counted frame from the step on); all of them when it never is.
long recovery_frames(const std::vector<char>& late_after_step, double max_late_share) {
    constexpr std::size_t kWindow = 100;
    const double allowed = late_bound(kWindow, max_late_share);
    const std::size_t n = late_after_step.size();
    std::size_t in_window = 0;
    for (std::size_t k = 0; k < std::min(n, kWindow); ++k) in_window += static_cast<std::size_t>(late_after_step[k]);
    for (std::size_t s = 0; s + kWindow <= n; ++s) {
        if (static_cast<double>(in_window) <= allowed) return static_cast<long>(s);
        in_window -= static_cast<std::size_t>(late_after_step[s]);
        if (s + kWindow < n) in_window += static_cast<std::size_t>(late_after_step[s + kWindow]);
    }
    return static_cast<long>(n);
}

// One sync mode's run: the host loop on the simulated OS and display, and what it records (the
// header's figures, from the model's ground truth).
class LatencyRun {
public:
    LatencyRun(const LatencySimConfig& cfg, SyncMode sync)
        : cfg_(cfg),
          sync_(sync),
          os_(linux_like_os(), cfg.seed),
          display_(os_, display_config(cfg)),
          fp_(pacer_config(cfg, sync), &os_),
          max_frames_(static_cast<std::size_t>(cfg.seconds * cfg.hz * 2.2) + 16),
          trace_(work_trace(cfg.work, max_frames_, cfg.seed)),
          t0_(pacer::clock::to_ns(os_.now())),
          end_(t0_ + static_cast<std::int64_t>(cfg.seconds * 1e9)),
          warm_(t0_ + static_cast<std::int64_t>(cfg.warm_up_s * 1e9)),
          step_at_(cfg.step_at_s >= 0 ? t0_ + static_cast<std::int64_t>(cfg.step_at_s * 1e9) : -1),
          period_ns_(1e9 / cfg.hz) {}

    LatencySimResult run() {
        for (std::size_t i = 0; i < max_frames_ && pacer::clock::to_ns(os_.now()) < end_; ++i) frame(i);
        return figures();
    }

private:
    // A frame's start: wait(); (with a render thread, the presents that ended meanwhile reach
    // the pacer); the input sample; the counting from the warm-up's end; the frame's work, stepped.
    struct Start {
        FrameTiming t;
        std::int64_t input = 0;
        double work_ms = 0;
        bool stepped = false;
    };
    Start start_frame(std::size_t i) {
        Start f;
        f.t = fp_.wait();
        if (cfg_.render_thread) report_presents_done();
        fp_.mark_input();
        f.input = pacer::clock::to_ns(os_.now());
        if (!counting_ && f.input >= warm_) {
            counting_ = true;
            cpu0_ = os_.cpu_times().thread.count();
            wall0_ = f.input;
        }
        if (counting_ && f.t.latency.count() > 0) pacer_latency_.push_back(to_ms(f.t.latency));
        f.work_ms = trace_[i];
        f.stepped = step_at_ >= 0 && f.input >= step_at_;
        if (f.stepped) f.work_ms *= cfg_.step_factor;
        return f;
    }

    // wait(); input; work (stepped); present; report the present; record.
    void frame(std::size_t i) {
        if (cfg_.render_thread) return render_thread_frame(i);
        const Start f = start_frame(i);
        const std::int64_t input = f.input;
        const bool stepped = f.stepped;
        os_.advance(std::chrono::nanoseconds(static_cast<std::int64_t>(f.work_ms * 1e6)));
        fp_.before_present();
        const PresentResult r = display_.present(std::max(1, fp_.desired_swap_interval()));
        PresentInfo info = r.info();
        if (!cfg_.report_displayed) info.displayed = {};
        for (int k = 0; k < r.reports; ++k) fp_.report_present(info);
        if (counting_) record(r, input, stepped);
        prev_begin_ = pacer::clock::to_ns(r.begin);
        prev_shown_ = pacer::clock::to_ns(r.displayed);
    }

    void record(const PresentResult& r, std::int64_t input, bool stepped) {
        record(pacer::clock::to_ns(r.begin), pacer::clock::to_ns(r.displayed), input, stepped);
    }
    void record(std::int64_t begin, std::int64_t shown, std::int64_t input, bool stepped) {
        latency_.push_back(static_cast<double>(shown - input) / 1e6);
        if (prev_begin_ != 0)
            interval_err_.push_back(std::fabs(static_cast<double>(begin - prev_begin_) - period_ns_) / 1e6);
        const bool is_late = prev_shown_ != 0 && static_cast<double>(shown - prev_shown_) > 1.5 * period_ns_;
        late_ += is_late ? 1 : 0;
        if (stepped) late_after_step_.push_back(is_late ? 1 : 0);
    }

    // The game thread's frame with a render thread: wait(); input; its share of the work; hand
    // the frame over (waiting while the render thread has not picked up the one before). The
    // render thread's side is computed at once on the same virtual clock (it never waits for the
    // game thread but for the hand-over), and each present is reported once virtual time has
    // passed its return: the pacer learns of it no earlier than a render thread's report.
    void render_thread_frame(std::size_t i) {
        report_presents_done();
        const Start f = start_frame(i);
        const FrameTiming& t = f.t;
        const std::int64_t input = f.input;
        const bool stepped = f.stepped;
        const double w = f.work_ms;
        const auto ns = [](double ms) { return static_cast<std::int64_t>(ms * 1e6); };
        os_.advance(std::chrono::nanoseconds(ns(w * (1.0 - cfg_.render_share))));
        std::int64_t now = pacer::clock::to_ns(os_.now());
        if (render_picked_ > now) {  // the one-slot hand-over is full: blocked until it is taken
            os_.jump(std::chrono::nanoseconds(render_picked_ - now));
            now = render_picked_;
        }
        // The render thread: picks the frame up when free, renders, presents.
        render_picked_ = std::max(now, render_free_);
        const std::int64_t begin = render_picked_ + ns(w * cfg_.render_share);
        const std::int64_t queued = begin + 100'000;  // the present call's own work
        const std::int64_t end = std::max(queued, shown_last_);  // one buffer may wait: for it to show
        const std::int64_t p = static_cast<std::int64_t>(std::llround(period_ns_));
        const std::int64_t after = std::max(queued, shown_last_ + 1) - t0_;
        const std::int64_t shown = t0_ + (after + p - 1) / p * p;  // the first vblank at or after
        shown_last_ = shown;
        render_free_ = end;
        PresentInfo info{pacer::clock::from_ns(begin), pacer::clock::from_ns(end), 1, cfg_.hz, true,
                         cfg_.report_displayed ? pacer::clock::from_ns(shown) : pacer::clock::time_point{}};
        info.frame = t.frame;
        in_flight_.push_back(info);
        if (counting_) record(begin, shown, input, stepped);
        prev_begin_ = begin;
        prev_shown_ = shown;
    }

    void report_presents_done() {
        const auto now = os_.now();
        while (!in_flight_.empty() && in_flight_.front().end <= now) {
            fp_.report_present(in_flight_.front());
            in_flight_.pop_front();
        }
    }

    LatencySimResult figures() {
        LatencySimResult res;
        res.sync = sync_;
        res.render_thread = cfg_.render_thread;
        res.frames = latency_.size();
        res.latency_p50_ms = percentile_of(latency_, 0.5);
        res.latency_p99_ms = percentile_of(latency_, 0.99);
        res.pacer_latency_p50_ms = percentile_of(pacer_latency_, 0.5);
        res.late = late_;
        res.late_share = res.frames ? static_cast<double>(late_) / static_cast<double>(res.frames) : 0.0;
        res.present_interval_p99_error_ms = percentile_of(interval_err_, 0.99);
        const double wall = static_cast<double>(pacer::clock::to_ns(os_.now()) - wall0_);
        res.cpu_share = wall > 0 ? static_cast<double>(os_.cpu_times().thread.count() - cpu0_) / wall : 0.0;
        if (step_at_ >= 0) res.recovery_frames = recovery_frames(late_after_step_, cfg_.max_late_share);
        return res;
    }

    const LatencySimConfig& cfg_;
    const SyncMode sync_;
    SimulatedOs os_;
    SimulatedDisplay display_;
    FramePacer fp_;
    const std::size_t max_frames_;
    const std::vector<double> trace_;
    const std::int64_t t0_, end_, warm_, step_at_;
    const double period_ns_;

    std::vector<double> latency_, interval_err_, pacer_latency_;
    std::vector<char> late_after_step_;
    // The render thread (LatencySimConfig::render_thread).
    std::deque<PresentInfo> in_flight_;  // presented, not yet reported (their call had not returned)
    std::int64_t render_picked_ = 0, render_free_ = 0, shown_last_ = 0;
    std::size_t late_ = 0;
    std::int64_t prev_begin_ = 0, prev_shown_ = 0, cpu0_ = 0, wall0_ = 0;
    bool counting_ = false;  // after the warm-up
};

}  // namespace

LatencySimResult run_latency_sim(const LatencySimConfig& cfg, SyncMode sync) { return LatencyRun(cfg, sync).run(); }

}  // namespace pacer::tools
