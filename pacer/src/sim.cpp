#include "pacer/sim.hpp"

#include <cmath>

namespace pacer {
namespace {

std::uint64_t splitmix(std::uint64_t& x) noexcept {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

}  // namespace

SimulatedOs::SimulatedOs(const SimModel& model, std::uint64_t seed, std::int64_t start_ns) noexcept
    : model_(model), now_(start_ns) {
    for (auto& s : rng_) s = splitmix(seed);
}

double SimulatedOs::uniform() noexcept {
    // xoshiro256** (Blackman & Vigna): fast, and the same stream on every platform.
    const std::uint64_t result = rotl(rng_[1] * 5, 7) * 9;
    const std::uint64_t t = rng_[1] << 17;
    rng_[2] ^= rng_[0];
    rng_[3] ^= rng_[1];
    rng_[1] ^= rng_[2];
    rng_[0] ^= rng_[3];
    rng_[2] ^= t;
    rng_[3] = rotl(rng_[3], 45);
    return static_cast<double>(result >> 11) * 0x1.0p-53;
}

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
