#include "pacer/sim.hpp"

#include <cmath>

#include "sim_rng.hpp"

namespace pacer {

SimulatedOs::SimulatedOs(const SimModel& model, std::uint64_t seed, clock::time_point start) noexcept
    : model_(model), now_(clock::to_ns(start)) {
    detail::seed_rng(rng_, seed);
}

double SimulatedOs::uniform() noexcept { return detail::next_uniform(rng_); }

double SimulatedOs::exponential(double mean) noexcept {
    if (mean <= 0) return 0.0;
    return -mean * std::log1p(-uniform());
}

void SimulatedOs::advance(std::chrono::nanoseconds d) noexcept {
    const std::int64_t ns = d.count();
    spin_run_ns_ = 0;
    if (ns <= 0) return;
    now_ += ns;
    cpu_ += ns;
}

void SimulatedOs::jump(std::chrono::nanoseconds d) noexcept {
    if (d.count() > 0) now_ += d.count();
}

void SimulatedOs::block_until(clock::time_point t_tp) noexcept {
    const std::int64_t t = clock::to_ns(t_tp);
    spin_run_ns_ = 0;
    cpu_ += model_.sleep_cpu.count();
    if (t <= now_) return;
    now_ = t + static_cast<std::int64_t>(exponential(static_cast<double>(model_.jitter_mean.count())));
}

void SimulatedOs::sleep_until(clock::time_point deadline) noexcept {
    const std::int64_t deadline_ns = clock::to_ns(deadline);
    ++sleeps_;
    spin_run_ns_ = 0;
    cpu_ += model_.sleep_cpu.count();
    std::int64_t wake = deadline_ns > now_ ? deadline_ns : now_;
    const std::int64_t g = model_.granularity.count();
    if (g > 0) {
        if (model_.tick_aligned) {
            wake = ((wake + g - 1) / g) * g;
        } else {
            wake += static_cast<std::int64_t>(uniform() * static_cast<double>(g));
        }
    }
    wake += static_cast<std::int64_t>(exponential(static_cast<double>(model_.jitter_mean.count())));
    const std::int64_t pre = model_.preempt && model_.preempt->count() >= 0 ? model_.preempt->count() : g;
    // Bounded so that a probability near 1 cannot hang a test.
    for (int i = 0; i < 64 && model_.preempt_probability > 0 && uniform() < model_.preempt_probability; ++i)
        wake += pre;
    now_ = wake;
}

void SimulatedOs::relax() noexcept {
    ++relaxes_;
    const std::int64_t step = model_.relax_time.count() > 0 ? model_.relax_time.count() : 1;  // a spin must progress
    now_ += step;
    cpu_ += step;
    spin_run_ns_ += step;
    if (model_.spin_preempt_probability > 0 && spin_run_ns_ > model_.spin_preempt_after.count() &&
        uniform() < model_.spin_preempt_probability) {
        now_ += model_.spin_preempt.count();  // another thread's time slice
        spin_run_ns_ = 0;
    }
}

}  // namespace pacer
