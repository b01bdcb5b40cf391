// pacer/estimator.hpp - LatenessEstimator: a fading histogram of durations, for quantiles and
// the margin of least expected cost. The learning half of the hybrid waiter (pacer/waiter.hpp);
// FramePacer also keeps one for the just-in-time lead and one for the wake-up jitter of its waits.
//
//   LatenessEstimator     the histogram (one thread; no allocation)
//     add(d)              one sample, O(1); a negative one counts as 0
//     quantile(p)         the p-quantile, p in [0, 1]; 0 when empty
//     least_cost(c, max)  the m in [0, max] minimizing E[spin] + c x P(later than m)
//     fraction_below(d)   the share of samples below d
//     count, effective_count, reset
//
//   pacer::LatenessEstimator e(500.0);        // old samples count half after 500 new ones
//   e.add(oversleep);                         // a std::chrono::nanoseconds; O(1), no allocation
//   std::chrono::nanoseconds m = e.quantile(0.995);   // ~150 additions
//
// Bins are 1/8 octave wide (9 %) from 1 us to 262 ms, plus [0, 1 us) and an overflow bin.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace pacer {

// Decaying log-binned histogram of oversleep; the waiter's learning half. Allocation-free.
class LatenessEstimator {
public:
    static constexpr int kBinsPerOctave = 8;
    static constexpr int kOctaves = 18;                          // 1 us .. 262 ms
    static constexpr int kBins = 2 + kBinsPerOctave * kOctaves;  // + [0,1us) and overflow

    explicit LatenessEstimator(double half_life = 500.0) noexcept;
    void set_half_life(double half_life) noexcept;
    void add(std::chrono::nanoseconds sample) noexcept;  // negative counts as 0
    // The p-quantile of the (decayed) samples, interpolated inside a bin; 0 when empty.
    std::chrono::nanoseconds quantile(double p) const noexcept;
    // The m in [0, max] that minimizes E[max(0, m - x)] + late_cost x P(x > m) over the
    // (decayed) samples x: the margin of least expected cost. Candidates are 0 and the bin edges
    // (9 % apart); a bin's samples count at its middle. 0 when empty.
    std::chrono::nanoseconds least_cost(std::chrono::nanoseconds late_cost, std::chrono::nanoseconds max) const noexcept;
    // The (decayed) share of samples below d, interpolated inside a bin; 0 when empty.
    double fraction_below(std::chrono::nanoseconds d) const noexcept;
    // How many samples the histogram holds at the newest sample's weight (sum of 2^(-age/half_life)).
    double effective_count() const noexcept { return total_ / increment_; }
    std::int64_t count() const noexcept { return count_; }  // samples ever added
    void reset() noexcept;

private:
    std::array<double, kBins> weight_{};
    double increment_ = 1.0;  // grows instead of shrinking every old bin
    double total_ = 0.0;
    double growth_ = 1.0;
    std::int64_t count_ = 0;
};

}  // namespace pacer
