#include "pacer/fixed_step.hpp"

#include <algorithm>
#include <cmath>

#include "base/text.hpp"

namespace pacer {

namespace {

constexpr std::int64_t kTenSeconds = 10'000'000'000;

std::chrono::nanoseconds default_max_delta(double step_hz) noexcept {
    const auto step = static_cast<std::int64_t>(std::ceil(1e9 / step_hz));
    return std::chrono::nanoseconds(std::max<std::int64_t>(250'000'000, step));
}

std::chrono::nanoseconds default_tolerance(std::chrono::nanoseconds snap_period) noexcept {
    const std::int64_t quarter = snap_period.count() / 4;
    return std::chrono::nanoseconds(quarter > 0 ? std::min<std::int64_t>(200'000, quarter) : 200'000);
}

}  // namespace

Status validate(const FixedStepConfig& c) {
    using detail::num;
    if (!std::isfinite(c.step_hz) || c.step_hz <= 0.0 || c.step_hz > 100'000.0)
        return Status::error("step_hz = " + num(c.step_hz) + ": must be a finite number in (0, 100000]");
    if (c.max_steps < 1 || c.max_steps > 1000)
        return Status::error("max_steps = " + num(c.max_steps) + ": must be in [1, 1000]");
    const double step_ns = 1e9 / c.step_hz;
    if (c.max_frame_delta) {
        const std::int64_t d = c.max_frame_delta->count();
        if (static_cast<double>(d) < step_ns || d > kTenSeconds)
            return Status::error("max_frame_delta = " + num(d) + " ns: must be in [one step = " +
                                 num(static_cast<std::int64_t>(std::ceil(step_ns))) + " ns, 10 s]");
    }
    if (c.snap_period.count() < 0 || c.snap_period.count() > kTenSeconds)
        return Status::error("snap_period = " + num(static_cast<std::int64_t>(c.snap_period.count())) +
                             " ns: must be in [0, 10 s] (0 = off)");
    if (c.snap_tolerance) {
        const std::int64_t tol = c.snap_tolerance->count();
        if (tol < 0 || (c.snap_period.count() > 0 && tol > c.snap_period.count() / 4))
            return Status::error("snap_tolerance = " + num(tol) + " ns: must be in [0, snap_period / 4 = " +
                                 num(static_cast<std::int64_t>(c.snap_period.count() / 4)) + " ns]");
    }
    return {};
}

void FixedStep::apply(const FixedStepConfig& config) noexcept {
    cfg_ = config;
    step_ns_ = 1e9 / cfg_.step_hz;
    max_delta_ = cfg_.max_frame_delta.value_or(default_max_delta(cfg_.step_hz));
    tolerance_ = cfg_.snap_tolerance.value_or(default_tolerance(cfg_.snap_period));
}

FixedStep::FixedStep(const FixedStepConfig& config) {
    if (Status s = validate(config); !s) throw ConfigError(s.message());
    apply(config);
}

Status FixedStep::set_config(const FixedStepConfig& config) {
    if (Status s = validate(config); !s) return s;
    apply(config);
    if (acc_ns_ >= step_ns_) acc_ns_ = std::fmod(acc_ns_, step_ns_);  // a faster rate: keep alpha < 1
    if (cfg_.snap_period.count() == 0) {  // snapping off: hand the carry back to the accumulator
        acc_ns_ += carry_ns_;
        carry_ns_ = 0;
    }
    return {};
}

void FixedStep::reset() noexcept {
    acc_ns_ = 0;
    carry_ns_ = 0;
    total_steps_ = 0;
}

FixedStep::Advance FixedStep::advance(std::chrono::nanoseconds frame_delta) noexcept {
    Advance a;
    double delta = static_cast<double>(std::max<std::int64_t>(0, frame_delta.count()));
    const double max_delta = static_cast<double>(max_delta_.count());
    if (delta > max_delta) {
        a.dropped = std::chrono::nanoseconds(static_cast<std::int64_t>(delta - max_delta));
        delta = max_delta;
    }

    // Snapping: use the nearest whole multiple of the pacing period if real time (including what
    // earlier snaps held back) is within tolerance of it. The carry keeps |sim - real| <= tolerance.
    const double period = static_cast<double>(cfg_.snap_period.count());
    if (period > 0) {
        const double want = delta + carry_ns_;
        const double k = std::round(want / period);
        const double snapped = k * period;
        if (k >= 1 && std::fabs(want - snapped) <= static_cast<double>(tolerance_.count())) {
            carry_ns_ = want - snapped;
            delta = snapped;
            a.snapped = true;
        } else {
            carry_ns_ = 0;
            delta = want;
        }
    }

    acc_ns_ += delta;
    double steps = std::floor(acc_ns_ / step_ns_);
    if (steps > cfg_.max_steps) {
        const double excess = (steps - cfg_.max_steps) * step_ns_;
        a.dropped += std::chrono::nanoseconds(static_cast<std::int64_t>(excess));
        acc_ns_ -= excess;
        steps = cfg_.max_steps;
    }
    acc_ns_ -= steps * step_ns_;
    if (acc_ns_ < 0) acc_ns_ = 0;  // rounding at exact multiples
    if (acc_ns_ >= step_ns_) acc_ns_ = std::nextafter(step_ns_, 0.0);
    a.steps = static_cast<int>(steps);
    a.alpha = acc_ns_ / step_ns_;
    if (a.alpha >= 1.0) a.alpha = std::nextafter(1.0, 0.0);
    total_steps_ += static_cast<std::uint64_t>(a.steps);
    return a;
}

}  // namespace pacer
