// Baseline: the preciseSleep() of Blat Blatnik's "Making an accurate Sleep() function" (2020), rewritten
// here. It sleeps in 1 ms slices while the time left exceeds mean + 1 sigma of the observed slice
// (Welford's running estimate, never forgotten), then spins. Relative: it is handed "time left".
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>

namespace bench {

class PreciseSleep {
public:
    // Returns the time spent spinning, in ns.
    std::int64_t sleep(double seconds) {
        using clk = std::chrono::steady_clock;
        while (seconds > estimate_) {
            const auto start = clk::now();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            const double observed = std::chrono::duration<double>(clk::now() - start).count();
            seconds -= observed;
            ++count_;
            const double delta = observed - mean_;
            mean_ += delta / static_cast<double>(count_);
            m2_ += delta * (observed - mean_);
            estimate_ = mean_ + std::sqrt(m2_ / static_cast<double>(count_ - 1));
        }
        const auto start = clk::now();
        const auto end = start + std::chrono::duration<double>(seconds);
        while (clk::now() < end) {
        }
        return std::chrono::duration_cast<std::chrono::nanoseconds>(clk::now() - start).count();
    }

private:
    double estimate_ = 5e-3, mean_ = 5e-3, m2_ = 0;
    std::int64_t count_ = 1;
};

}  // namespace bench
