#include "coarse_time_source.hpp"

#include <algorithm>

namespace pacer_demo {

CoarseTimeSource::CoarseTimeSource(std::chrono::nanoseconds period, double preempt_probability)
    : os_(pacer::system_time_source()), period_ns_(1'000'000), preempt_p_(0.0) {
    set_period(period);
    set_preempt_probability(preempt_probability);
}

void CoarseTimeSource::set_period(std::chrono::nanoseconds period) noexcept {
    period_ns_ = std::clamp<std::int64_t>(period.count(), 1'000'000, 10'000'000);
}

void CoarseTimeSource::set_preempt_probability(double p) noexcept {
    preempt_p_ = std::clamp(p, 0.0, 0.5);
}

void CoarseTimeSource::sleep_until(pacer::clock::time_point deadline) noexcept {
    if (os_.now() >= deadline) return;  // a deadline in the past returns at once
    os_.sleep_until(deadline);
    // Wake on the scheduler's next tick: the next multiple of the period after the real wake-up.
    const std::int64_t woke = pacer::clock::to_ns(os_.now());
    std::int64_t tick = (woke / period_ns_ + 1) * period_ns_;
    // Another process holds the CPU for whole periods now and then (as in the preciseSleep article's fake sleep: 5 %, repeated).
    std::uniform_real_distribution<double> u(0.0, 1.0);
    while (u(rng_) < preempt_p_) tick += period_ns_;
    os_.sleep_until(pacer::clock::from_ns(tick));
}

}  // namespace pacer_demo
