#include "coarse_time_source.hpp"

#include <algorithm>

namespace pacer_demo {

CoarseTimeSource::CoarseTimeSource(std::int64_t period_ns, double preempt_probability)
    : os_(pacer::system_time_source()), period_ns_(1'000'000), preempt_p_(0.0) {
    set_period_ns(period_ns);
    set_preempt_probability(preempt_probability);
}

void CoarseTimeSource::set_period_ns(std::int64_t period_ns) noexcept {
    period_ns_ = std::clamp<std::int64_t>(period_ns, 1'000'000, 10'000'000);
}

void CoarseTimeSource::set_preempt_probability(double p) noexcept {
    preempt_p_ = std::clamp(p, 0.0, 0.5);
}

void CoarseTimeSource::sleep_until_ns(std::int64_t deadline_ns) noexcept {
    if (os_.now_ns() >= deadline_ns) return;  // a deadline in the past returns at once
    os_.sleep_until_ns(deadline_ns);
    // Wake on the scheduler's next tick: the next multiple of the period after the real wake-up.
    const std::int64_t woke = os_.now_ns();
    std::int64_t tick = (woke / period_ns_ + 1) * period_ns_;
    // Another process holds the CPU for whole periods now and then (as in the preciseSleep article's fake sleep: 5 %, repeated).
    std::uniform_real_distribution<double> u(0.0, 1.0);
    while (u(rng_) < preempt_p_) tick += period_ns_;
    os_.sleep_until_ns(tick);
}

}  // namespace pacer_demo
