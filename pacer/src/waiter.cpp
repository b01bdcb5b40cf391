#include "pacer/waiter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <string>
#include <type_traits>

#include "text.hpp"

namespace pacer {

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

Status duration_in(const char* name, std::chrono::nanoseconds v, std::int64_t lo, std::int64_t hi) {
    if (v.count() < lo || v.count() > hi)
        return Status::error(std::string(name) + " = " + detail::num(v.count()) + " ns: must be in [" +
                             detail::num(lo) + ", " + detail::num(hi) + "] ns");
    return {};
}

}  // namespace

Status validate(const WaiterConfig& c) {
    if (Status s = duration_in("waiter.late_cost", c.late_cost, 0, kSecond); !s) return s;
    if (!std::isfinite(c.half_life) || c.half_life < 8.0 || c.half_life > 1e6)
        return Status::error("waiter.half_life = " + detail::num(c.half_life) + ": must be in [8, 1e6] sleeps");
    if (Status s = duration_in("waiter.max_spin", c.max_spin, 0, kSecond); !s) return s;
    if (Status s = duration_in("waiter.initial_margin", c.initial_margin, 0, kSecond); !s) return s;
    if (Status s = duration_in("waiter.min_margin", c.min_margin, 0, c.max_spin.count()); !s)
        return Status::error(s.message() + " (min_margin cannot exceed max_spin)");
    return {};
}

// ---------------------------------------------------------------------------------------------
// LatenessEstimator
//
// Bin 0 holds [0, 1 us); bin i >= 1 holds [2^((i-1)/8), 2^(i/8)) us; the last bin everything
// from 2^18 us = 262 ms up. Decay: instead of multiplying every bin by 2^(-1/half_life) per
// sample, the weight of new samples grows by 2^(1/half_life); all weights are rescaled when they
// get large. Same quantiles, O(1) per sample.

namespace {

int bin_of(std::int64_t ns) noexcept {
    if (ns < 1000) return 0;
    const double octaves = std::log2(static_cast<double>(ns) / 1000.0);
    const int i = 1 + static_cast<int>(octaves * LatenessEstimator::kBinsPerOctave);
    return std::min(i, LatenessEstimator::kBins - 1);
}
// The bins' lower edges, computed once: a margin query walks up to three times over them, and
// two exp2() per bin made it cost about 1 us.
const std::array<double, LatenessEstimator::kBins> kBinLow = [] {
    std::array<double, LatenessEstimator::kBins> low{};
    for (int i = 1; i < LatenessEstimator::kBins; ++i)
        low[static_cast<std::size_t>(i)] =
            1000.0 * std::exp2(static_cast<double>(i - 1) / LatenessEstimator::kBinsPerOctave);
    return low;
}();
double bin_low_ns(int i) noexcept { return kBinLow[static_cast<std::size_t>(std::max(i, 0))]; }

}  // namespace

LatenessEstimator::LatenessEstimator(double half_life) noexcept { set_half_life(half_life); }

void LatenessEstimator::set_half_life(double half_life) noexcept {
    growth_ = std::exp2(1.0 / std::max(half_life, 1.0));
}

void LatenessEstimator::reset() noexcept {
    weight_.fill(0.0);
    increment_ = 1.0;
    total_ = 0.0;
    count_ = 0;
}

void LatenessEstimator::add(std::int64_t ns) noexcept {
    if (ns < 0) ns = 0;
    weight_[static_cast<std::size_t>(bin_of(ns))] += increment_;
    total_ += increment_;
    ++count_;
    increment_ *= growth_;
    if (increment_ > 1e200) {  // rescale long before overflow; relative weights are unchanged
        const double k = 1.0 / increment_;
        for (double& w : weight_) w *= k;
        total_ *= k;
        increment_ = 1.0;
    }
}

double LatenessEstimator::fraction_below(std::int64_t ns) const noexcept {
    if (total_ <= 0.0 || ns <= 0) return 0.0;
    const int b = bin_of(ns);
    double below = 0.0;
    for (int i = 0; i < b; ++i) below += weight_[static_cast<std::size_t>(i)];
    // The part of ns's own bin below ns, spread evenly over the bin (as quantile() does).
    const double lo = bin_low_ns(b);
    const double hi = (b == kBins - 1) ? lo : bin_low_ns(b + 1);
    if (hi > lo) below += weight_[static_cast<std::size_t>(b)] * (static_cast<double>(ns) - lo) / (hi - lo);
    return std::clamp(below / total_, 0.0, 1.0);
}

std::int64_t LatenessEstimator::least_cost(double late_cost_ns, std::int64_t max_ns) const noexcept {
    if (total_ <= 0.0 || max_ns <= 0) return 0;
    // Walk up the bins; after bin i, "below" holds the weight of the bins up to i and "moment" its
    // sum of weight x middle, so the spin of margin m is (below x m - moment) / total.
    double below = 0.0, moment = 0.0;
    double best_cost = late_cost_ns;  // m = 0: no spin, late unless the wake-up is on time
    std::int64_t best = 0;
    for (int i = 0; i < kBins - 1; ++i) {
        const double lo = bin_low_ns(i), hi = bin_low_ns(i + 1);
        if (hi > static_cast<double>(max_ns)) break;
        const double w = weight_[static_cast<std::size_t>(i)];
        below += w;
        moment += w * 0.5 * (lo + hi);
        const double cost = (below * hi - moment + late_cost_ns * (total_ - below)) / total_;
        if (cost < best_cost) {
            best_cost = cost;
            best = static_cast<std::int64_t>(hi);
        }
        if (total_ - below <= 1e-9 * total_) break;  // nothing above: a larger margin only spins more
    }
    return best;
}

std::int64_t LatenessEstimator::quantile(double p) const noexcept {
    if (total_ <= 0.0) return 0;
    p = std::clamp(p, 0.0, 1.0);
    // Walk down from the top: the tail above the quantile holds (1 - p) of the weight.
    const double tail = (1.0 - p) * total_;
    double above = 0.0;
    for (int i = kBins - 1; i >= 0; --i) {
        const double w = weight_[static_cast<std::size_t>(i)];
        if (w <= 0.0) continue;
        if (above + w >= tail) {
            const double lo = bin_low_ns(i);
            const double hi = (i == kBins - 1) ? lo : bin_low_ns(i + 1);
            // Fraction of this bin that lies above the quantile, spread evenly over the bin.
            const double frac = (tail - above) / w;  // in [0, 1]
            return static_cast<std::int64_t>(hi - frac * (hi - lo));
        }
        above += w;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// HybridWaiter

HybridWaiter::HybridWaiter(const WaiterConfig& config, TimeSource* ts)
    : cfg_(config), ts_(ts ? ts : &system_time_source()), est_(config.half_life),
      cap_ns_(config.max_spin.count()) {
    if (Status s = validate(config); !s) throw ConfigError(s.message());
}

Status HybridWaiter::set_config(const WaiterConfig& config) {
    if (Status s = validate(config); !s) return s;
    if (config.max_spin != cfg_.max_spin) {  // a new ceiling: start there, as at construction
        cap_ns_ = config.max_spin.count();
        calm_spins_ = 0;
    }
    cfg_ = config;
    est_.set_half_life(config.half_life);
    return {};
}

void HybridWaiter::set_time_source(TimeSource* ts) noexcept { ts_ = ts ? ts : &system_time_source(); }

void HybridWaiter::note_spin(bool preempted) noexcept {
    spins_since_preempted_ = preempted ? 0 : spins_since_preempted_ + 1;
    const std::int64_t floor = std::min(cfg_.max_spin.count(), std::max(kMinGuardedCapNs, cfg_.min_margin.count()));
    if (preempted) {
        ++preempted_spins_;
        calm_spins_ = 0;
        cap_ns_ = std::max(floor, cap_ns_ / 2);
    } else if (++calm_spins_ >= kCalmSpinsToGrow) {
        calm_spins_ = 0;
        cap_ns_ = std::min(cfg_.max_spin.count(), cap_ns_ * 2);
    }
}

std::chrono::nanoseconds HybridWaiter::margin() const noexcept {
    // Until a few sleeps are measured, the histogram is a guess; use the configured prior as a floor.
    constexpr std::int64_t kWarmup = 16;
    // The margin of least expected cost among those the cap allows (see waiter.hpp).
    const std::int64_t cap = std::max(cfg_.min_margin.count(), cap_ns_);
    const std::int64_t reach = cap - cfg_.min_margin.count();  // the oversleep a spin can catch
    std::int64_t m = est_.least_cost(static_cast<double>(cfg_.late_cost.count()), reach);
    if (spins_since_preempted_ >= kCalmSpinsForFloor) {
        // The floor: kFloorQuantile of the catchable wake-ups, once at least kFloorSamples
        // wake-ups' weight lies between the least-cost margin and the reach.
        const double catchable = est_.fraction_below(reach);
        const double left_late = catchable - est_.fraction_below(m);
        if (left_late * est_.effective_count() >= kFloorSamples)
            m = std::max(m, est_.quantile(kFloorQuantile * catchable));
    }
    m += cfg_.min_margin.count();
    if (est_.count() < kWarmup) m = std::max(m, cfg_.initial_margin.count());
    m = std::clamp(m, cfg_.min_margin.count(), cap);
    return std::chrono::nanoseconds(m);
}

WaitResult HybridWaiter::wait_until(clock::time_point deadline, WaitMode mode) noexcept {
    WaitResult r = wait_until_handoff(deadline, mode);
    finish_wait(*ts_, r, deadline);
    return r;
}

WaitResult HybridWaiter::wait_until_handoff(clock::time_point deadline_tp, WaitMode mode) noexcept {
    using std::chrono::nanoseconds;
    const std::int64_t deadline = clock::to_ns(deadline_tp);
    WaitResult r;
    TimeSource& ts = *ts_;
    if (mode == WaitMode::vsync || mode == WaitMode::automatic) mode = WaitMode::hybrid;
    std::int64_t now = ts.now_ns();

    std::int64_t m = 0;
    if (mode == WaitMode::hybrid) {
        m = margin().count();
        r.margin = nanoseconds(m);
    }

    const std::int64_t wake_target = deadline - m;
    if (mode != WaitMode::spin && wake_target > now) {
        ts.sleep_until_ns(wake_target);
        const std::int64_t woke = ts.now_ns();
        r.os_slept = true;
        r.slept = nanoseconds(woke - now);
        r.oversleep = nanoseconds(std::max<std::int64_t>(0, woke - wake_target));
        if (mode == WaitMode::hybrid) est_.add(woke - wake_target);
        now = woke;
    }
    if (mode != WaitMode::sleep) {
        const std::int64_t spin_start = now;
        const std::int64_t spin_end = deadline - kHandoffNs;  // the caller's finish_wait() spins the rest
        std::int64_t prev = now;
        while (now < spin_end) {
            ts.relax();
            now = ts.now_ns();
            if (now - prev > kPreemptGapNs) r.spin_preempted = true;
            prev = now;
        }
        r.spun = nanoseconds(now - spin_start);
        if (mode == WaitMode::hybrid && r.spun.count() > 0) note_spin(r.spin_preempted);
    }
    r.lateness = nanoseconds(std::max<std::int64_t>(0, now - deadline));
    r.end = clock::from_ns(now);
    return r;
}

// ---------------------------------------------------------------------------------------------
// Free functions

namespace {

// Must stay trivially destructible: a thread_local with a destructor can corrupt the heap at
// thread exit with mingw-w64's emulated TLS (GCC PR 80816; platform/windows/platform.cpp).
static_assert(std::is_trivially_destructible_v<HybridWaiter>);

// Where a new thread's waiter starts. A waiter spins whenever its margin covers the whole wait,
// so the 1 ms default prior would turn a fresh thread's first 16 sleep_for(1 ms) calls into pure
// spins. The free functions start instead from the margin another thread of this process has
// learned, or else from a prior that covers the usual wake-up lateness: the 99.5th percentile of
// oversleep measured 250-480 us on a loaded 2-core VM on Linux (1 ns timer slack) and about
// 480 us for Windows' high-resolution timer under Wine. A machine on Windows' coarser Sleep rung
// wakes later for the first 16 sleeps, until the waiter has measured it.
constexpr std::int64_t kFreshThreadPriorNs = 500'000;
std::atomic<std::int64_t> g_learned_margin_ns{0};

WaiterConfig fresh_thread_config() noexcept {
    WaiterConfig c;
    const std::int64_t learned = g_learned_margin_ns.load(std::memory_order_relaxed);
    c.initial_margin = std::chrono::nanoseconds(learned > 0 ? learned : kFreshThreadPriorNs);
    return c;
}

HybridWaiter& thread_waiter() noexcept {
    thread_local HybridWaiter w(fresh_thread_config());  // always valid: cannot throw
    return w;
}

WaitResult free_wait(clock::time_point deadline) noexcept {
    HybridWaiter& w = thread_waiter();
    const WaitResult r = w.wait_until_handoff(deadline, WaitMode::hybrid);
    // Share what this thread learned, now and then (a margin query walks the histogram).
    if (r.os_slept && w.estimator().count() % 64 == 16)
        g_learned_margin_ns.store(w.margin().count(), std::memory_order_relaxed);
    return r;
}

}  // namespace

namespace detail {

// The timer slack is restored here, before the caller's finish_wait(): the system call then costs
// spin time, not lateness.
WaitResult sleep_until_handoff(clock::time_point deadline) noexcept {
    TimeSource& ts = system_time_source();
    const std::int64_t now = ts.now_ns();
    if (deadline <= clock::from_ns(now)) {  // at once, and counted on time
        WaitResult r;
        r.end = clock::from_ns(now);
        return r;
    }
    PacingScope scope(ts);
    return free_wait(deadline);
}

}  // namespace detail

}  // namespace pacer
