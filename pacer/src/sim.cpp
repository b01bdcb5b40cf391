#include "pacer/sim.hpp"

#include <cmath>

#include "sim_rng.hpp"

namespace pacer {

SimulatedOs::SimulatedOs(const SimModel& model, std::uint64_t seed, std::int64_t start_ns) noexcept
    : model_(model), now_(start_ns) {
    detail::seed_rng(rng_, seed);
}

double SimulatedOs::uniform() noexcept { return detail::next_uniform(rng_); }

double SimulatedOs::exponential(double mean) noexcept {
    if (mean <= 0) return 0.0;
    return -mean * std::log1p(-uniform());
}

void SimulatedOs::advance(std::int64_t ns) noexcept {
    spin_run_ns_ = 0;
    if (ns <= 0) return;
    now_ += ns;
    cpu_ += ns;
}

void SimulatedOs::jump(std::int64_t ns) noexcept {
    if (ns > 0) now_ += ns;
}

void SimulatedOs::block_until_ns(std::int64_t t) noexcept {
    spin_run_ns_ = 0;
    cpu_ += model_.sleep_cpu_ns;
    if (t <= now_) return;
    now_ = t + static_cast<std::int64_t>(exponential(static_cast<double>(model_.jitter_mean_ns)));
}

void SimulatedOs::sleep_until_ns(std::int64_t deadline_ns) noexcept {
    ++sleeps_;
    spin_run_ns_ = 0;
    cpu_ += model_.sleep_cpu_ns;
    std::int64_t wake = deadline_ns > now_ ? deadline_ns : now_;
    const std::int64_t g = model_.granularity_ns;
    if (g > 0) {
        if (model_.tick_aligned) {
            wake = ((wake + g - 1) / g) * g;
        } else {
            wake += static_cast<std::int64_t>(uniform() * static_cast<double>(g));
        }
    }
    wake += static_cast<std::int64_t>(exponential(static_cast<double>(model_.jitter_mean_ns)));
    const std::int64_t pre = model_.preempt_ns >= 0 ? model_.preempt_ns : g;
    // Bounded so that a probability near 1 cannot hang a test.
    for (int i = 0; i < 64 && model_.preempt_probability > 0 && uniform() < model_.preempt_probability; ++i)
        wake += pre;
    now_ = wake;
}

void SimulatedOs::relax() noexcept {
    ++relaxes_;
    const std::int64_t step = model_.relax_ns > 0 ? model_.relax_ns : 1;  // a spin must progress
    now_ += step;
    cpu_ += step;
    spin_run_ns_ += step;
    if (model_.spin_preempt_probability > 0 && spin_run_ns_ > model_.spin_preempt_after_ns &&
        uniform() < model_.spin_preempt_probability) {
        now_ += model_.spin_preempt_ns;  // another thread's time slice
        spin_run_ns_ = 0;
    }
}

}  // namespace pacer
