#include "pacer/sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/sim_rng.hpp"

namespace pacer {

SimulatedOs::SimulatedOs(const SimModel& model, std::uint64_t seed, clock::time_point start) noexcept
    : model_(model), now_(clock::to_ns(start)) {
    detail::seed_rng(rng_, seed);
    detail::seed_rng(stall_rng_, seed ^ 0x5ca1ab1e5ca1ab1eULL);
    stall_begin_ = stall_end_ = now_;
}

// The stall after the current one: a gap (exponential, stall_gap on average) after `after`.
void SimulatedOs::next_stall(std::int64_t after) noexcept {
    const double gap = static_cast<double>(model_.stall_gap.count());
    const double lo = std::max(0.0, static_cast<double>(model_.stall_min.count()));
    const double hi = std::max(lo, static_cast<double>(model_.stall_max.count()));
    stall_begin_ = after + static_cast<std::int64_t>(-gap * std::log1p(-detail::next_uniform(stall_rng_)));
    stall_end_ = stall_begin_ + static_cast<std::int64_t>(lo + (hi - lo) * detail::next_uniform(stall_rng_));
}

std::int64_t SimulatedOs::run_at(std::int64_t t) noexcept {
    if (model_.stall_gap.count() <= 0) return t;
    // Far past the last stall (a clock jump): the stalls start again from t.
    if (t - stall_end_ > 100 * model_.stall_gap.count()) next_stall(t);
    while (stall_end_ <= t) next_stall(stall_end_);
    return t >= stall_begin_ ? stall_end_ : t;
}

std::int64_t SimulatedOs::run_for(std::int64_t from, std::int64_t ns) noexcept {
    std::int64_t t = run_at(from);
    if (model_.stall_gap.count() <= 0) return t + ns;
    if (stall_end_ <= t) next_stall(stall_end_);  // t is that stall's end: the next one
    while (t + ns > stall_begin_) {  // a stall before the work is done: it ends after it
        ns -= stall_begin_ - t;
        t = stall_end_;
        next_stall(stall_end_);
    }
    return t + ns;
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
    now_ = run_for(now_, ns);
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
    now_ = run_at(t + static_cast<std::int64_t>(exponential(static_cast<double>(model_.jitter_mean.count()))));
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
    // A raised thread draws the same numbers (runs stay comparable) but is not preempted.
    for (int i = 0; i < 64 && model_.preempt_probability > 0 && uniform() < model_.preempt_probability; ++i)
        if (!raised_) wake += pre;
    now_ = run_at(wake);
}

PriorityGrant SimulatedOs::raise_priority(const PriorityConfig& c, std::chrono::nanoseconds) noexcept {
    PriorityGrant g;
    now_ = run_for(now_, model_.priority_call.count());
    cpu_ += model_.priority_call.count();
    ++raises_;
    if (model_.priority_refusal) {
        std::snprintf(g.reason, sizeof g.reason, "%s", model_.priority_refusal);
        return g;
    }
    g.granted = true;
    g.by = PriorityGrantor::os;
    g.lever = is_weight(c.mode) ? PriorityLever::weight : PriorityLever::realtime;
    if (is_weight(c.mode)) {
        g.level = c.nice;
        std::snprintf(g.in_force, sizeof g.in_force, "simulated nice %d", c.nice);
    } else {
        g.level = c.realtime_priority;
        std::snprintf(g.in_force, sizeof g.in_force, "simulated real-time %d", c.realtime_priority);
    }
    g.saved[0] = raised_ ? 1 : 0;
    raised_ = true;
    return g;
}

void SimulatedOs::restore_priority(const PriorityGrant& g) noexcept {
    if (!g.granted) return;
    now_ = run_for(now_, model_.priority_call.count());
    cpu_ += model_.priority_call.count();
    raised_ = g.saved[0] != 0;
    ++restores_;
}

void SimulatedOs::relax() noexcept {
    ++relaxes_;
    const std::int64_t step = model_.relax_time.count() > 0 ? model_.relax_time.count() : 1;  // a spin must progress
    now_ = run_for(now_, step);
    cpu_ += step;
    spin_run_ns_ += step;
    if (model_.spin_preempt_probability > 0 && spin_run_ns_ > model_.spin_preempt_after.count() &&
        uniform() < model_.spin_preempt_probability && !raised_) {
        now_ += model_.spin_preempt.count();  // another thread's time slice
        spin_run_ns_ = 0;
    }
}

}  // namespace pacer
