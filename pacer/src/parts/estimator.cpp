#include "pacer/estimator.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace pacer {

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

void LatenessEstimator::add(std::chrono::nanoseconds sample) noexcept {
    std::int64_t ns = sample.count();
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

double LatenessEstimator::fraction_below(std::chrono::nanoseconds d) const noexcept {
    const std::int64_t ns = d.count();
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

std::chrono::nanoseconds LatenessEstimator::least_cost(std::chrono::nanoseconds late_cost, std::chrono::nanoseconds max) const noexcept {
    const double late_cost_ns = static_cast<double>(late_cost.count());
    const std::int64_t max_ns = max.count();
    if (total_ <= 0.0 || max_ns <= 0) return std::chrono::nanoseconds(0);
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
    return std::chrono::nanoseconds(best);
}

std::chrono::nanoseconds LatenessEstimator::quantile(double p) const noexcept {
    if (total_ <= 0.0) return std::chrono::nanoseconds(0);
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
            return std::chrono::nanoseconds(static_cast<std::int64_t>(hi - frac * (hi - lo)));
        }
        above += w;
    }
    return std::chrono::nanoseconds(0);
}

}  // namespace pacer
