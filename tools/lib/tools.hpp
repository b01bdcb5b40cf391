// tools/lib/tools.hpp - what the `pacer` tool's commands and the benchmarks share beside the
// library: the target rate's check for --hz, and a busy load for --load.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "cli_options.hpp"
#include "pacer/frame_pacer.hpp"

namespace pacer::tools {

// A target rate as the library accepts it (validate), for the tools' --hz.
inline Status check_rate(double hz) {
    PacerConfig c;
    c.target_hz = hz;
    return validate(c);
}
inline std::string rate_range() { return "in (0, " + cli::format_number(kMaxTargetHz) + "]"; }

// Background threads that spin at 100 % while the object lives: the load of "Quantifying The
// Accuracy Of Sleep", for probe's and compare's --load.
class BusyLoad {
public:
    explicit BusyLoad(int threads) {
        for (int b = 0; b < threads; ++b)
            threads_.emplace_back([this] {
                volatile std::uint64_t x = 0;
                while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
            });
    }
    ~BusyLoad() {
        stop_ = true;
        for (std::thread& t : threads_) t.join();
    }
    BusyLoad(const BusyLoad&) = delete;
    BusyLoad& operator=(const BusyLoad&) = delete;

private:
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

}  // namespace pacer::tools
