#include "pacer/frame_pacer.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pacer/log.hpp"

namespace pacer {

const char* to_string(LatePolicy policy) noexcept {
    switch (policy) {
        case LatePolicy::catch_up: return "catch_up";
        case LatePolicy::skip: return "skip";
        case LatePolicy::resync: return "resync";
    }
    return "?";
}

bool parse_late_policy(const char* text, LatePolicy* out) noexcept {
    if (!text || !out) return false;
    for (LatePolicy p : {LatePolicy::catch_up, LatePolicy::skip, LatePolicy::resync}) {
        if (std::strcmp(text, to_string(p)) == 0) {
            *out = p;
            return true;
        }
    }
    return false;
}

Status validate(const PacerConfig& c) {
    if (!std::isfinite(c.target_hz) || c.target_hz <= 0.0 || c.target_hz > kMaxTargetHz)
        return Status::error(fmt::format("target_hz = {}: must be a finite number in (0, {}]",
                                         c.target_hz, kMaxTargetHz));
    if (c.mode != WaitMode::sleep && c.mode != WaitMode::spin && c.mode != WaitMode::hybrid)
        return Status::error(fmt::format("mode = {}: not a WaitMode", static_cast<int>(c.mode)));
    if (c.late_policy != LatePolicy::catch_up && c.late_policy != LatePolicy::skip &&
        c.late_policy != LatePolicy::resync)
        return Status::error(fmt::format("late_policy = {}: not a LatePolicy", static_cast<int>(c.late_policy)));
    if (c.max_catch_up < 0 || c.max_catch_up > 1000)
        return Status::error(fmt::format("max_catch_up = {}: must be in [0, 1000] frames", c.max_catch_up));
    if (c.miss_tolerance.count() < 0 || c.miss_tolerance.count() > 1'000'000'000)
        return Status::error(fmt::format("miss_tolerance = {} ns: must be in [0, 1e9] ns", c.miss_tolerance.count()));
    return validate(c.waiter);
}

namespace {

PacerConfig checked(const PacerConfig& c) {
    if (Status s = validate(c); !s) throw ConfigError(s.message());
    return c;
}

void log_config(const PacerConfig& c, const char* what) {
    if (auto lg = logger())
        lg->info("{} {} Hz, mode {}, late policy {}{}", what, c.target_hz, to_string(c.mode),
                 to_string(c.late_policy),
                 c.late_policy == LatePolicy::catch_up ? fmt::format(" (max {})", c.max_catch_up) : "");
}

}  // namespace

FramePacer::FramePacer(const PacerConfig& config, TimeSource* ts)
    : cfg_(checked(config)), ts_(ts ? ts : &system_time_source()), waiter_(config.waiter, ts_) {
    apply_config();
    pending_ = false;
    log_config(cfg_, "pacing at");
}

FramePacer::~FramePacer() { end(); }

void FramePacer::end() noexcept {
    if (pacing_ && pacing_thread_ == std::this_thread::get_id()) {
        ts_->end_pacing();
        pacing_ = false;
    }
}

std::chrono::nanoseconds FramePacer::period() const noexcept {
    return std::chrono::nanoseconds(std::llround(1e9 / cfg_.target_hz));
}

void FramePacer::apply_config() noexcept {
    // 1e9 / hz in whole ns plus a 32-bit binary fraction: exact to 2^-33 ns per frame.
    const long double p = 1e9L / static_cast<long double>(cfg_.target_hz);
    const long double whole = std::floor(p);
    long double frac = std::round((p - whole) * 4294967296.0L);
    period_whole_ = static_cast<std::int64_t>(whole);
    if (frac >= 4294967296.0L) {
        ++period_whole_;
        frac = 0;
    }
    period_frac_ = static_cast<std::uint64_t>(frac);
    if (started_) {  // the new period starts at the last deadline
        anchor_ = last_deadline_;
        index_base_ += k_;
        k_ = 0;
    }
    (void)waiter_.set_config(cfg_.waiter);  // validated with cfg_
    pending_ = false;
}

std::int64_t FramePacer::deadline_of(std::uint64_t k) const noexcept {
    // k < 2^32 (kept so by wait()), so k * frac fits in 64 bits.
    return anchor_ + static_cast<std::int64_t>(k) * period_whole_ +
           static_cast<std::int64_t>((k * period_frac_) >> 32);
}

Status FramePacer::set_config(const PacerConfig& config) {
    if (Status s = validate(config); !s) {
        if (auto lg = logger()) lg->warn("setting refused: {}", s.message());
        return s;
    }
    const bool changed = config.target_hz != cfg_.target_hz || config.mode != cfg_.mode ||
                         config.late_policy != cfg_.late_policy ||
                         config.max_catch_up != cfg_.max_catch_up;
    cfg_ = config;
    pending_ = true;
    if (changed) log_config(cfg_, "now");
    return {};
}

Status FramePacer::set_target_hz(double hz) {
    PacerConfig c = cfg_;
    c.target_hz = hz;
    return set_config(c);
}

Status FramePacer::set_mode(WaitMode mode) {
    PacerConfig c = cfg_;
    c.mode = mode;
    return set_config(c);
}

Status FramePacer::set_late_policy(LatePolicy policy, int max_catch_up) {
    PacerConfig c = cfg_;
    c.late_policy = policy;
    c.max_catch_up = max_catch_up;
    return set_config(c);
}

void FramePacer::reset() noexcept {
    if (started_) index_base_ += k_ + 1;
    started_ = false;
    k_ = 0;
}

FrameTiming FramePacer::wait() noexcept {
    using std::chrono::nanoseconds;
    using tp = std::chrono::steady_clock::time_point;
    TimeSource& ts = *ts_;
    if (!pacing_) {
        ts.begin_pacing();
        pacing_ = true;
        pacing_thread_ = std::this_thread::get_id();
    }
    if (pending_) apply_config();

    FrameTiming t;
    t.mode = cfg_.mode;
    t.period = nanoseconds(period_whole_ + (period_frac_ >= (1u << 31) ? 1 : 0));
    std::int64_t now = ts.now_ns();
    ++frames_;

    // First frame, or a clock that went backwards (only an injected clock can): anchor here.
    if (!started_ || now < last_wake_) {
        if (started_) index_base_ += k_ + 1;
        started_ = true;
        anchor_ = now;
        k_ = 0;
        last_deadline_ = now;
        last_wake_ = now;
        t.index = index_base_;
        t.deadline = t.wake = tp(nanoseconds(now));
        return t;
    }

    t.work = nanoseconds(now - last_wake_);
    std::uint64_t k = k_ + 1;
    std::int64_t deadline = deadline_of(k);
    if (now >= deadline) {
        // Slots whose time has come, this frame's included.
        const std::int64_t p = period_whole_ > 0 ? period_whole_ : 1;
        std::uint64_t behind = static_cast<std::uint64_t>((now - deadline) / p) + 1;
        while (behind > 1 && deadline_of(k + behind - 1) > now) --behind;  // period rounding
        std::uint64_t skip = 0;
        switch (cfg_.late_policy) {
            case LatePolicy::catch_up: {
                const auto m = static_cast<std::uint64_t>(cfg_.max_catch_up);
                skip = behind > m ? behind - m : 0;
                break;
            }
            case LatePolicy::skip: skip = behind; break;
            case LatePolicy::resync:
                index_base_ += k;
                anchor_ = now;
                k = 0;
                break;
        }
        k += skip;
        t.skipped = static_cast<std::uint32_t>(skip > 0xffffffffu ? 0xffffffffu : skip);
        deadline = deadline_of(k);
    }

    const WaitResult r = waiter_.wait_until_ns(deadline, cfg_.mode);
    const std::int64_t wake = r.end_ns;

    t.index = index_base_ + k;
    t.deadline = tp(nanoseconds(deadline));
    t.wake = tp(nanoseconds(wake));
    t.lateness = nanoseconds(wake > deadline ? wake - deadline : 0);
    t.interval = nanoseconds(wake - last_wake_);
    t.slept = r.slept;
    t.spun = r.spun;
    t.oversleep = r.oversleep;
    t.margin = r.margin;
    t.missed = t.skipped > 0 || t.lateness > cfg_.miss_tolerance;
    if (t.missed) ++missed_;

    last_deadline_ = deadline;
    last_wake_ = wake;
    k_ = k;
    if (k_ >= (std::uint64_t{1} << 31)) {  // keep k * frac inside 64 bits; loses < 1 ns per 2^31 frames
        anchor_ = deadline;
        index_base_ += k_;
        k_ = 0;
    }
    return t;
}

}  // namespace pacer
