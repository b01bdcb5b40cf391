#include "pacer/frame_pacer.hpp"

#include <algorithm>
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
    if (c.mode != WaitMode::sleep && c.mode != WaitMode::spin && c.mode != WaitMode::hybrid &&
        c.mode != WaitMode::vsync && c.mode != WaitMode::automatic)
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
    decide_vsync(ts_->now_ns());
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
    t.source = cfg_.mode == WaitMode::sleep ? PacingSource::sleep
             : cfg_.mode == WaitMode::spin  ? PacingSource::spin
                                            : PacingSource::hybrid;
    t.period = nanoseconds(period_whole_ + (period_frac_ >= (1u << 31) ? 1 : 0));
    std::int64_t now = ts.now_ns();
    ++frames_;
    // No present reported for two frames: nothing else can pace this loop.
    const bool swap_paces = (vs_.in_use || vstate_ == Vsync::probing) && waits_without_present_ < 2;
    if (waits_without_present_ < 2) ++waits_without_present_;

    // The swap paced the frames until now: start a grid one period after the last wake, so the
    // hand-over frame gets a whole period like any other.
    if (started_ && grid_dirty_ && !swap_paces && now >= last_wake_) {
        index_base_ += k_;
        anchor_ = last_wake_;
        k_ = 0;
        grid_dirty_ = false;
    }
    // First frame, or a clock that went backwards (only an injected clock can): anchor here and
    // return at once. There is no frame time yet.
    if (!started_ || now < last_wake_) {
        if (started_) index_base_ += k_ + 1;
        started_ = true;
        grid_dirty_ = false;
        anchor_ = now;
        k_ = 0;
        t.index = index_base_;
        t.deadline = t.wake = tp(nanoseconds(now));
        last_deadline_ = now;
        last_wake_ = now;
        return t;
    }

    t.work = nanoseconds(now - last_wake_);
    std::uint64_t k = k_ + 1;
    std::int64_t deadline = 0;
    WaitMode how = cfg_.mode;
    if (swap_paces) {
        // The swap paced this frame. Nominal deadline one period after the last wake; the wait
        // only enforces the floor of half a period (at most twice the target rate).
        grid_dirty_ = true;
        deadline = last_wake_ + t.period.count();
        how = WaitMode::hybrid;
        if (last_locked_) t.source = PacingSource::vsync;
    } else {
        deadline = deadline_of(k);
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
    }

    const WaitResult r = waiter_.wait_until_ns(swap_paces ? last_wake_ + t.period.count() / 2 : deadline, how);
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
    if (!swap_paces && k_ >= (std::uint64_t{1} << 31)) {  // keep k * frac in 64 bits; < 1 ns lost
        anchor_ = deadline;
        index_base_ += k_;
        k_ = 0;
    }
    return t;
}

// ---------------------------------------------------------------------------------------------
// Vsync decisions

namespace {
constexpr std::int64_t kFirstReprobeNs = 10'000'000'000;   // 10 s after a fallback ...
constexpr std::int64_t kMaxReprobeNs = 160'000'000'000;    // ... doubling up to 160 s
constexpr int kMaxProbePresents = 48;                      // 3 x the 16 needed to trust
constexpr double kMaxMissedShare = 0.10;                   // Swappy's threshold

bool refresh_ok(double hz) { return std::isfinite(hz) && hz >= kMinRefreshHz && hz <= kMaxRefreshHz; }
}  // namespace

void FramePacer::set_vsync(Vsync state, int interval, const char* reason, bool warn) noexcept {
    if (interval != vs_.swap_interval) {
        settle_ = 2;  // the first presents after a change may still follow the old interval
        detector_.reset();
        probe_presents_ = 0;
        last_locked_ = false;
    }
    const bool changed = state != vstate_ || reason != vs_.reason;
    vstate_ = state;
    vs_.swap_interval = interval;
    vs_.requested = interval > 0;
    vs_.detected = detector_.verified();
    vs_.in_use = cfg_.mode == WaitMode::vsync || state == Vsync::verified;
    vs_.refresh_hz = refresh_hz_;
    vs_.reason = reason;
    if (changed) {
        if (auto lg = logger()) {
            if (warn)
                lg->warn("{} (refresh {} Hz, target {} Hz, swap interval {})", reason, refresh_hz_, cfg_.target_hz, interval);
            else
                lg->info("{} (refresh {} Hz, target {} Hz, swap interval {})", reason, refresh_hz_, cfg_.target_hz, interval);
        }
    }
}

void FramePacer::decide_vsync(std::int64_t now) noexcept {
    const WaitMode m = cfg_.mode;
    if (m == WaitMode::sleep || m == WaitMode::spin || m == WaitMode::hybrid) {
        set_vsync(Vsync::off, 0, "vsync off: the pacer's wait paces the frames");
        return;
    }
    const int n = compatible_swap_interval(refresh_hz_, cfg_.target_hz);
    if (m == WaitMode::vsync) {
        int want = n;
        if (want == 0) {
            want = refresh_ok(refresh_hz_)
                       ? std::max(1, static_cast<int>(std::lround(refresh_hz_ / cfg_.target_hz)))
                       : 1;
            want = std::min(want, 8);
        }
        if (detector_.verified())
            set_vsync(Vsync::verified, want, "vsync mode: the swap paces the frames (verified)");
        else if (probe_presents_ >= VsyncDetector::kTrustAfter)
            set_vsync(Vsync::probing, want, "vsync mode: the swap paces the frames, but presents do not show vsync", true);
        else
            set_vsync(Vsync::probing, want, "vsync mode: the swap paces the frames (not yet verified)");
        return;
    }
    // automatic
    auto fall_back = [&](const char* reason, bool schedule) {
        if (schedule) {
            if (probe_backoff_ns_ == 0) probe_backoff_ns_ = kFirstReprobeNs;
            next_probe_ns_ = now + probe_backoff_ns_;
            probe_backoff_ns_ = std::min(probe_backoff_ns_ * 2, kMaxReprobeNs);
        }
        set_vsync(Vsync::fallback, 0, reason);
    };
    if (vstate_ == Vsync::off && refresh_hz_ == 0 && interval_in_effect_ < 0) {
        set_vsync(Vsync::waiting, 0, "auto: hybrid sleep until a present reports the display");
        return;
    }
    if (vstate_ == Vsync::waiting && refresh_hz_ == 0 && interval_in_effect_ < 0) return;
    if (!refresh_ok(refresh_hz_)) {
        fall_back("auto: display refresh rate unknown or absurd, hybrid sleep with vsync off", false);
        return;
    }
    if (n == 0) {
        fall_back("auto: the refresh rate is not a whole multiple of the target rate, hybrid sleep with vsync off", false);
        return;
    }
    switch (vstate_) {
        case Vsync::off:
        case Vsync::waiting:
        case Vsync::fallback:
            if (now >= next_probe_ns_ || vs_.swap_interval != 0)
                set_vsync(Vsync::probing, n, "auto: probing vsync (pacing capped at twice the target rate)");
            break;
        case Vsync::probing:
            if (vs_.swap_interval != n) {
                set_vsync(Vsync::probing, n, "auto: probing vsync (pacing capped at twice the target rate)");
            } else if (settle_ == 0 && interval_in_effect_ != n && probe_presents_ > 0) {
                fall_back("auto: the driver refused the swap interval, hybrid sleep with vsync off", true);
            } else if (detector_.verified()) {
                probe_backoff_ns_ = 0;
                set_vsync(Vsync::verified, n, "auto: vsync verified at the target rate, the swap paces the frames");
            } else if (detector_.unlocked_streak() >= VsyncDetector::kDropAfter ||
                       probe_presents_ >= kMaxProbePresents) {
                fall_back("auto: the swap does not wait for vblank (vsync off, ignored by the driver or a "
                          "virtual display), hybrid sleep with vsync off", true);
            }
            break;
        case Vsync::verified:
            if (vs_.swap_interval != n) {
                set_vsync(Vsync::probing, n, "auto: probing vsync (pacing capped at twice the target rate)");
            } else if (!detector_.verified()) {
                probe_backoff_ns_ = 0;
                fall_back("auto: vsync lost, hybrid sleep with vsync off", true);
            } else if (detector_.locked_in_window() >= 32 && detector_.missed_share() > kMaxMissedShare) {
                fall_back("auto: vsync missed more than 10 % of refreshes, hybrid sleep with vsync off", true);
            }
            break;
    }
}

void FramePacer::report_present(const PresentInfo& p) noexcept {
    const std::int64_t b = p.begin.time_since_epoch().count();
    const std::int64_t e = p.end.time_since_epoch().count();
    if (!p.ok && !present_failed_) {
        if (auto lg = logger()) lg->warn("a present failed; counted as an unlocked present");
    }
    present_failed_ = !p.ok;
    waits_without_present_ = 0;
    refresh_hz_ = std::isfinite(p.refresh_hz) && p.refresh_hz > 0 ? p.refresh_hz : 0.0;
    interval_in_effect_ = p.swap_interval;
    if (settle_ > 0) {
        --settle_;
        detector_.reset();
        detector_.add(b, e, p.swap_interval, refresh_hz_, p.ok);  // keeps the time of this present
        last_locked_ = false;
    } else {
        last_locked_ = detector_.add(b, e, p.swap_interval, refresh_hz_, p.ok);
        ++probe_presents_;
    }
    decide_vsync(e);
    vs_.detected = detector_.verified();
}

}  // namespace pacer
