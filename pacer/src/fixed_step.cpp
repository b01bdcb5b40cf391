#include "pacer/fixed_step.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pacer {

Status validate(const FixedStepConfig& c) {
    if (!std::isfinite(c.step_hz) || c.step_hz <= 0.0 || c.step_hz > 100'000.0)
        return Status::error(fmt::format("step_hz = {}: must be a finite number in (0, 100000]", c.step_hz));
    if (c.max_steps < 1 || c.max_steps > 1000)
        return Status::error(fmt::format("max_steps = {}: must be in [1, 1000]", c.max_steps));
    const double step_ns = 1e9 / c.step_hz;
    if (static_cast<double>(c.max_frame_delta.count()) < step_ns || c.max_frame_delta.count() > 10'000'000'000)
        return Status::error(fmt::format("max_frame_delta = {} ns: must be in [one step = {:.0f} ns, 10 s]",
                                         c.max_frame_delta.count(), step_ns));
    if (c.snap_period.count() < 0 || c.snap_period.count() > 10'000'000'000)
        return Status::error(fmt::format("snap_period = {} ns: must be in [0, 10 s] (0 = off)", c.snap_period.count()));
    if (c.snap_tolerance.count() < 0 ||
        (c.snap_period.count() > 0 && c.snap_tolerance.count() > c.snap_period.count() / 4))
        return Status::error(fmt::format("snap_tolerance = {} ns: must be in [0, snap_period / 4 = {} ns]",
                                         c.snap_tolerance.count(), c.snap_period.count() / 4));
    return {};
}

FixedStep::FixedStep(const FixedStepConfig& config) : cfg_(config) {
    if (Status s = validate(config); !s) throw ConfigError(s.message());
    step_ns_ = 1e9 / cfg_.step_hz;
}

Status FixedStep::set_config(const FixedStepConfig& config) {
    if (Status s = validate(config); !s) return s;
    cfg_ = config;
    step_ns_ = 1e9 / cfg_.step_hz;
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
    const double max_delta = static_cast<double>(cfg_.max_frame_delta.count());
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
        if (k >= 1 && std::fabs(want - snapped) <= static_cast<double>(cfg_.snap_tolerance.count())) {
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
